/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * template.c -- expand %u %U %g %G %p %P in destinations.
 */
#include "rules_private.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *
base_name(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash ? slash + 1 : p;
}

const char *
rules_dest_problem(const char *dest)
{
	if (dest[0] != '/')
		return "must be an absolute path";
	if (strlen(dest) >= RULES_DEST_MAX)
		return "is too long";
	for (const unsigned char *c = (const unsigned char *)dest; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return "must not contain control characters";
	for (const char *p = dest; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return "must not contain '..'";
		p += n;
		while (*p == '/')
			p++;
	}
	return NULL;
}

/*
 * One expanded value is at most VALUE_MAX bytes: a longer one keeps its
 * first bytes (at most VALUE_KEEP, never half a UTF-8 character), then
 * '~' and 8 hex digits of a hash of the whole value.  Values come from
 * users (a program's name): unbounded, they could make a group name the
 * kernel or systemd refuses (a unit name is at most 255 bytes, and
 * systemd writes each byte outside [A-Za-z0-9:_.] as 4), and so escape
 * the class.  Two long names that start alike still differ.
 */
#define VALUE_MAX  48
#define VALUE_KEEP (VALUE_MAX - 9)

/* FNV-1a, 32 bits: short, stable across runs and machines. */
static uint32_t
value_hash(const char *v)
{
	uint32_t h = 2166136261u;

	for (; *v; v++)
		h = (h ^ (unsigned char)*v) * 16777619u;
	return h;
}

/*
 * Append one expanded value as a single path component: '/' and control
 * characters become '_' (a process may name itself "a\nb": that must not
 * forge a log line, and cgroupfs refuses a newline), and "." or ".."
 * (or an empty value) becomes "_"; a long one is cut (VALUE_MAX).
 */
static int
put_value(char *buf, size_t len, size_t *o, const char *v)
{
	size_t n = strlen(v);
	char tail[16] = "";

	if (v[0] == '\0' || strcmp(v, ".") == 0 || strcmp(v, "..") == 0) {
		v = "_";
		n = 1;
	} else if (n > VALUE_MAX) {
		snprintf(tail, sizeof(tail), "~%08x", (unsigned)value_hash(v));
		n = VALUE_KEEP;
		while (n > 0 && ((unsigned char)v[n] & 0xc0) == 0x80)
			n--; /* v[n] continues a character: cut before it */
	}
	for (size_t i = 0; i < n; i++) {
		if (*o + 1 >= len)
			return -ENAMETOOLONG;
		unsigned char c = (unsigned char)v[i];

		buf[(*o)++] = c == '/' || c < 0x20 || c == 0x7f ? '_' : v[i];
	}
	for (const char *c = tail; *c; c++) {
		if (*o + 1 >= len)
			return -ENAMETOOLONG;
		buf[(*o)++] = *c;
	}
	return 0;
}

/*
 * %p: the script for interpreted programs, else the name the process
 * was started by, else the executable.
 */
static const char *
process_name(const struct rules_task *t)
{
	if (t->script != NULL && t->script[0] != '\0')
		return base_name(t->script);
	if (t->invoked != NULL && t->invoked[0] != '\0')
		return base_name(t->invoked);
	if (t->exe != NULL && t->exe[0] != '\0')
		return base_name(t->exe);
	return t->comm ? t->comm : "";
}

/*
 * The value of template %c for a task, or NULL when c is no template.
 * Numbers are written into num[len].
 */
static const char *
template_value(char c, const struct rules_task *t, char *num, size_t len)
{
	switch (c) {
	case 'u':
		return t->user != NULL ? t->user : template_value('U', t, num, len);
	case 'U':
		snprintf(num, len, "%u", (unsigned)t->euid);
		return num;
	case 'g':
		return t->group != NULL ? t->group : template_value('G', t, num, len);
	case 'G':
		snprintf(num, len, "%u", (unsigned)t->egid);
		return num;
	case 'p':
		return process_name(t);
	case 'P':
		snprintf(num, len, "%d", (int)t->pid);
		return num;
	default:
		return NULL;
	}
}

/*
 * A '\' takes the next character literally.  So does a '%' that starts
 * no template: "%x" and "%%u" stay as written, as libcgroup copies them
 * (only first-match rules can hold one; see parse.c).
 */
int
rules_expand(const char *tmpl, const struct rules_task *t, char *buf, size_t len)
{
	size_t o = 0;
	char num[24];

	if (len == 0)
		return -ENAMETOOLONG;
	for (const char *s = tmpl; *s; s++) {
		const char *v = s[0] == '%' && s[1] != '\0'
					? template_value(s[1], t, num, sizeof(num))
					: NULL;

		if (v != NULL) {
			int rc = put_value(buf, len, &o, v);

			if (rc < 0)
				return rc;
			s++;
			continue;
		}
		if (s[1] != '\0' && (s[0] == '\\' || s[0] == '%')) {
			if (s[0] == '%') { /* not a template: '%' and what follows */
				if (o + 1 >= len)
					return -ENAMETOOLONG;
				buf[o++] = '%';
			}
			s++;
		}
		if (o + 1 >= len)
			return -ENAMETOOLONG;
		buf[o++] = *s;
	}
	buf[o] = '\0';
	return 0;
}
