/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strbuf.c -- the project's one growable text buffer: control answers,
 * the boost state file and the socket servers' output all build in it.
 */
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define STRBUF_FIRST 1024

/* Room for n more bytes and a NUL; 0 or -ENOMEM (then `failed`). */
static int
reserve(struct strbuf *b, size_t n)
{
	if (b->failed)
		return -ENOMEM;
	if (n >= SIZE_MAX / 2 - b->len) {
		b->failed = true;
		return -ENOMEM;
	}
	if (b->len + n + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : STRBUF_FIRST;
	while (cap < b->len + n + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (p == NULL) {
		b->failed = true;
		return -ENOMEM;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

int
strbuf_add(struct strbuf *b, const void *s, size_t n)
{
	int rc = reserve(b, n);

	if (rc < 0)
		return rc;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

/* Formats into the free space; when the text did not fit, makes room
 * and formats once more. */
int
strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n, rc;

	if ((rc = reserve(b, 0)) < 0)
		return rc;
	va_copy(again, ap);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	if (n >= 0 && (size_t)n >= b->cap - b->len) {
		b->p[b->len] = '\0';
		if ((rc = reserve(b, (size_t)n)) == 0)
			n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, again);
	}
	va_end(again);
	if (rc < 0)
		return rc;
	if (n < 0) {
		b->p[b->len] = '\0';
		return -EINVAL;
	}
	b->len += (size_t)n;
	return 0;
}

int
strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = strbuf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void
strbuf_reset(struct strbuf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->p != NULL)
		b->p[0] = '\0';
}

void
strbuf_free(struct strbuf *b)
{
	free(b->p);
	*b = (struct strbuf){ 0 };
}
