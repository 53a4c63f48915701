/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * template.c -- expand %u %U %g %G %p %P in destinations.
 */
#include "rules_private.h"

#include <errno.h>
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
 * Append one expanded value as a single path component: '/' and control
 * characters become '_' (a process may name itself "a\nb": that must not
 * forge a log line, and cgroupfs refuses a newline), and "." or ".."
 * (or an empty value) becomes "_".
 */
static int
put_value(char *buf, size_t len, size_t *o, const char *v)
{
	if (v[0] == '\0' || strcmp(v, ".") == 0 || strcmp(v, "..") == 0)
		v = "_";
	for (; *v; v++) {
		if (*o + 1 >= len)
			return -ENAMETOOLONG;
		unsigned char c = (unsigned char)*v;

		buf[(*o)++] = c == '/' || c < 0x20 || c == 0x7f ? '_' : *v;
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

int
rules_expand(const char *tmpl, const struct rules_task *t, char *buf, size_t len)
{
	size_t o = 0;
	char num[24];
	int rc = 0;

	if (len == 0)
		return -ENAMETOOLONG;
	for (const char *s = tmpl; *s && rc == 0; s++) {
		const char *v = NULL;

		if (*s == '\\' && s[1] != '\0') {
			s++;
		} else if (*s == '%' && s[1] != '\0') {
			switch (*++s) {
			case 'u':
				v = t->user;
				if (v == NULL)
					snprintf(num, sizeof(num), "%u",
						 (unsigned)t->euid);
				break;
			case 'U':
				snprintf(num, sizeof(num), "%u", (unsigned)t->euid);
				break;
			case 'g':
				v = t->group;
				if (v == NULL)
					snprintf(num, sizeof(num), "%u",
						 (unsigned)t->egid);
				break;
			case 'G':
				snprintf(num, sizeof(num), "%u", (unsigned)t->egid);
				break;
			case 'p':
				v = process_name(t);
				break;
			case 'P':
				snprintf(num, sizeof(num), "%d", (int)t->pid);
				break;
			default:
				s--; /* not a template: copy the '%' */
				num[0] = '%';
				num[1] = '\0';
				break;
			}
			rc = put_value(buf, len, &o, v ? v : num);
			continue;
		}
		if (o + 1 >= len)
			return -ENAMETOOLONG;
		buf[o++] = *s;
	}
	if (rc < 0)
		return rc;
	buf[o] = '\0';
	return 0;
}
