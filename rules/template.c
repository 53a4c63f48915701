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
 * One expanded value is one path component of at most VALUE_MAX bytes.
 * Values come from users (a program's name, a user's): unbounded, they
 * could make a group name the kernel or systemd refuses (a unit name is
 * at most 255 bytes, and systemd writes each byte outside
 * [A-Za-z0-9:_.] as 4), name a control file of the group above
 * ("tasks", "cgroup.procs": the move fails with ENOTDIR), or be made to
 * share the group of another value.  So a value is written as it is,
 * unless it is
 *   - longer than VALUE_MAX bytes,
 *   - empty, "." or "..",
 *   - the name of a cgroupfs control file (control_file() below), or
 *   - ends like an encoded value ('~' and 16 lowercase hex digits);
 * then it is encoded: its first bytes (at most VALUE_KEEP, never half a
 * UTF-8 character; "_" for an empty value, "." or ".."), '~' and 16 hex
 * digits of SipHash-2-4 of the whole value under the installation's
 * secret key (rules_options.template_key).  A value written as it is
 * never ends like an encoded one, so the two can never meet; two
 * encoded values meet only when their keyed 64-bit hashes do, which
 * nobody without the key can arrange.  In both, '/' and control
 * characters become '_' (a process may name itself "a\nb": that must
 * not forge a log line, and cgroupfs refuses a newline).
 */
#define VALUE_MAX  48
#define TAIL_LEN   17 /* '~' and 16 hex digits */
#define VALUE_KEEP (VALUE_MAX - TAIL_LEN)

/* Does v[0..n) end in '~' and 16 lowercase hex digits? */
static bool
ends_encoded(const char *v, size_t n)
{
	if (n < TAIL_LEN || v[n - TAIL_LEN] != '~')
		return false;
	for (size_t i = n - TAIL_LEN + 1; i < n; i++)
		if (!((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f')))
			return false;
	return true;
}

/*
 * Could v be a file the kernel puts in every group: v1's "tasks",
 * "notify_on_release" and "release_agent", or "<controller>.<file>" for
 * cgroup itself and every controller v1 or v2 has ("cgroup.procs",
 * "cpu.shares", "memory.max" ...)?
 */
static bool
control_file(const char *v)
{
	static const char *const plain[] = { "tasks", "notify_on_release", "release_agent" };
	static const char *const prefix[] = {
		"cgroup",  "cpu",	 "cpuacct",  "cpuset", "memory",     "io",	"blkio",
		"devices", "freezer", "net_cls", "net_prio", "perf_event", "hugetlb", "pids",
		"rdma",	   "misc",
	};
	const char *dot = strchr(v, '.');

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (strcmp(v, plain[i]) == 0)
			return true;
	if (dot == NULL)
		return false;
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (strlen(prefix[i]) == (size_t)(dot - v) &&
		    strncmp(v, prefix[i], (size_t)(dot - v)) == 0)
			return true;
	return false;
}

static bool
must_encode(const char *v, size_t n)
{
	return n > VALUE_MAX || n == 0 || strcmp(v, ".") == 0 || strcmp(v, "..") == 0 ||
	       ends_encoded(v, n) || control_file(v);
}

/* Append byte c (or '_' for '/' and control characters); -ENAMETOOLONG. */
static int
put_byte(char *buf, size_t len, size_t *o, char c)
{
	unsigned char u = (unsigned char)c;

	if (*o + 1 >= len)
		return -ENAMETOOLONG;
	buf[(*o)++] = u == '/' || u < 0x20 || u == 0x7f ? '_' : c;
	return 0;
}

/* Append one expanded value as a single path component (see above). */
static int
put_value(char *buf, size_t len, size_t *o, const char *v, const unsigned char *key)
{
	static const unsigned char zero[SIPHASH_KEY_LEN];
	size_t n = strlen(v);
	char tail[TAIL_LEN + 1] = "";
	int rc = 0;

	if (must_encode(v, n)) {
		snprintf(tail, sizeof(tail), "~%016llx",
			 (unsigned long long)siphash24(key ? key : zero, v, n));
		if (n == 0 || strcmp(v, ".") == 0 || strcmp(v, "..") == 0) {
			v = "_"; /* never a name that starts with '.' */
			n = 1;
		} else if (n > VALUE_KEEP) {
			n = VALUE_KEEP;
			while (n > 0 && ((unsigned char)v[n] & 0xc0) == 0x80)
				n--; /* v[n] continues a character: cut before it */
		}
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = put_byte(buf, len, o, v[i]);
	for (const char *c = tail; *c && rc == 0; c++)
		rc = put_byte(buf, len, o, *c);
	return rc;
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

/* The most bytes template %c gives (a number: a sign and 10 digits). */
static size_t
value_max(char c)
{
	return c == 'U' || c == 'G' || c == 'P' ? 11 : VALUE_MAX;
}

size_t
rules_expand_max(const char *tmpl)
{
	size_t n = 0;

	for (const char *s = tmpl; *s; s++) {
		if (s[0] == '%' && s[1] != '\0' && strchr("uUgGpP", s[1]) != NULL) {
			n += value_max(s[1]);
			s++;
			continue;
		}
		if (s[1] != '\0' && (s[0] == '\\' || s[0] == '%')) {
			n += s[0] == '%';
			s++;
		}
		n++;
	}
	return n;
}

/*
 * A '\' takes the next character literally.  So does a '%' that starts
 * no template: "%x" and "%%u" stay as written, as libcgroup copies them
 * (only first-match rules can hold one; see parse.c).
 */
int
rules_expand(const char *tmpl, const struct rules_task *t, const unsigned char *key, char *buf,
	     size_t len)
{
	size_t o = 0, lit = strcspn(tmpl, "%\\");
	char num[24];

	if (len == 0)
		return -ENAMETOOLONG;
	if (tmpl[lit] == '\0') { /* nothing to expand (most destinations) */
		if (lit >= len)
			return -ENAMETOOLONG;
		memcpy(buf, tmpl, lit + 1);
		return 0;
	}
	for (const char *s = tmpl; *s; s++) {
		const char *v = s[0] == '%' && s[1] != '\0'
					? template_value(s[1], t, num, sizeof(num))
					: NULL;

		if (v != NULL) {
			int rc = put_value(buf, len, &o, v, key);

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
