/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tap.c -- implementation of the TAP helper; see tap.h.
 */
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int planned = -1;
static int current;
static int failed;
static bool lazy;

static void vprint_desc(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static void
vprint_desc(const char *fmt, va_list ap)
{
	if (fmt == NULL || *fmt == '\0')
		return;
	fputs(" - ", stdout);
	vprintf(fmt, ap);
}

static void
finish(void)
{
	fflush(stderr);
	if (lazy)
		printf("1..%d\n", current);
	else if (planned >= 0 && planned != current)
		fprintf(stderr, "# planned %d tests but ran %d\n", planned, current);
	fflush(stdout);
}

void
plan(int n)
{
	planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
	atexit(finish);
}

void
plan_lazy(void)
{
	lazy = true;
	atexit(finish);
}

void
skip_all(const char *fmt, ...)
{
	va_list ap;

	fputs("1..0 # SKIP ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(0);
}

static bool vok(bool cond, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static bool
vok(bool cond, const char *fmt, va_list ap)
{
	current++;
	printf("%sok %d", cond ? "" : "not ", current);
	vprint_desc(fmt, ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		failed++;
	return cond;
}

bool
ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = vok(cond, fmt, ap);
	va_end(ap);
	return r;
}

bool
is_int(long long want, long long got, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = vok(want == got, fmt, ap);
	va_end(ap);
	if (!r)
		diag("    wanted: %lld\n#      got: %lld", want, got);
	return r;
}

bool
is_string(const char *want, const char *got, const char *fmt, ...)
{
	va_list ap;
	bool same;
	bool r;

	if (want == NULL || got == NULL)
		same = want == got;
	else
		same = strcmp(want, got) == 0;
	va_start(ap, fmt);
	r = vok(same, fmt, ap);
	va_end(ap);
	if (!r)
		diag("    wanted: %s%s%s\n#      got: %s%s%s", want ? "\"" : "",
		     want ? want : "(null)", want ? "\"" : "", got ? "\"" : "",
		     got ? got : "(null)", got ? "\"" : "");
	return r;
}

void
skip(int n, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < n; i++) {
		current++;
		printf("ok %d # skip ", current);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
	fflush(stdout);
}

void
diag(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("# ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

void
bail(const char *fmt, ...)
{
	va_list ap;

	fputs("Bail out! ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(255);
}

const char *
tap_data_dir(void)
{
	static char buf[4096];
	const char *src = getenv("SRCDIR");

	snprintf(buf, sizeof(buf), "%s/tests/data", src && *src ? src : ".");
	return buf;
}

const char *
tap_build_dir(void)
{
	const char *b = getenv("BUILDDIR");

	return b && *b ? b : ".";
}

int
tap_done(void)
{
	return failed == 0 ? 0 : 1;
}
