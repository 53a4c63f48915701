/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdunit.c -- unit names, unit properties and the processes the systemd
 * backend may move (see sdunit.h).  Pure: strings in, strings out.
 */
#include "engined/backend/systemd/sdunit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------------ */

static bool
plain_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == ':' || ch == '_' || ch == '.';
}

/* Append segment s (n bytes) escaped as systemd escapes a unit name's
 * part: a leading '.', '-', '\' and anything but [A-Za-z0-9:_.] as \xNN. */
static int
escape(const char *s, size_t n, char *out, size_t len, size_t *used)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		bool plain = plain_char((char)ch) && !(i == 0 && ch == '.');

		if (*used + (plain ? 1 : 4) >= len)
			return -ENAMETOOLONG;
		if (plain) {
			out[(*used)++] = (char)ch;
			continue;
		}
		out[(*used)++] = '\\';
		out[(*used)++] = 'x';
		out[(*used)++] = hex[ch >> 4];
		out[(*used)++] = hex[ch & 15];
	}
	out[*used] = '\0';
	return 0;
}

static int
hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1; /* systemd writes lower case only */
}

/* Unescape one part of a unit name (n bytes, no '-') onto out. */
static int
unescape(const char *s, size_t n, char *out, size_t len, size_t *used)
{
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (ch == '\\') {
			int hi, lo;

			if (n - i < 4 || s[i + 1] != 'x' || (hi = hexval(s[i + 2])) < 0 ||
			    (lo = hexval(s[i + 3])) < 0)
				return -ENOENT;
			ch = (char)(hi << 4 | lo);
			i += 3;
		} else if (!plain_char(ch)) {
			return -ENOENT;
		}
		if (*used + 1 >= len)
			return -ENAMETOOLONG;
		out[(*used)++] = ch;
	}
	out[*used] = '\0';
	return 0;
}

/* Is segment s (n bytes) a group name the layout could have made? */
static bool
good_segment(const char *s, size_t n)
{
	return n > 0 && !(n == 1 && s[0] == '.') &&
	       !(n == 2 && s[0] == '.' && s[1] == '.');
}

static bool
ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && strncmp(s + n - k, suffix, k) == 0;
}

int
sdunit_layout_root(const char *configured, char *out, size_t len, const char **why)
{
	const char *r = configured[0] ? configured : SDUNIT_ROOT;
	char prefix[SDUNIT_NAME_MAX];

	if (sdunit_root_prefix(r, prefix, sizeof(prefix)) < 0) {
		*why = "is not a slice's group (backend systemd: e.g. \"/cgengine.slice\" or "
		       "\"/a.slice/a-b.slice\")";
		return -EINVAL;
	}
	return snprintf(out, len, "%s", r) >= (int)len ? -ENAMETOOLONG : 1;
}

int
sdunit_root_prefix(const char *root, char *out, size_t len)
{
	const char *s = root, *prev = NULL;
	size_t prevlen = 0;

	if (root == NULL || root[0] != '/' || root[1] == '\0')
		return -EINVAL;
	while (*s == '/') {
		const char *c = s + 1;
		size_t n = strcspn(c, "/");

		if (!ends_with(c, n, ".slice") || n == 6 || c[0] == '-' ||
		    c[n - 7] == '-')
			return -EINVAL;
		size_t base = n - 6;
		if (prev == NULL && memchr(c, '-', base) != NULL)
			return -EINVAL; /* "a-b.slice" belongs in "a.slice" */
		if (prev != NULL &&
		    (base <= prevlen + 1 || strncmp(c, prev, prevlen) != 0 ||
		     c[prevlen] != '-' ||
		     memchr(c + prevlen + 1, '-', base - prevlen - 1) != NULL))
			return -EINVAL; /* not the child of the slice above */
		if (strncmp(c, "-.slice", n) == 0)
			return -EINVAL;
		prev = c;
		prevlen = base;
		s = c + n;
	}
	if (*s != '\0' || prev == NULL || prevlen >= len)
		return -EINVAL;
	memcpy(out, prev, prevlen);
	out[prevlen] = '\0';
	return 0;
}

/* The unit name of the first k segments of rel, with suffix kind. */
static int
name_of(const char *prefix, const char *rel, unsigned k, const char *kind, char *out,
	size_t len)
{
	size_t used = strlen(prefix);
	const char *s = rel;

	if (used >= len)
		return -ENAMETOOLONG;
	memcpy(out, prefix, used + 1);
	for (unsigned i = 0; i < k; i++) {
		if (*s != '/')
			return -EINVAL;
		s++;
		size_t n = strcspn(s, "/");
		if (!good_segment(s, n))
			return -EINVAL;
		if (used + 1 >= len)
			return -ENAMETOOLONG;
		out[used++] = '-';
		int rc = escape(s, n, out, len, &used);
		if (rc < 0)
			return rc;
		s += n;
	}
	int w = snprintf(out + used, len - used, ".%s", kind);
	if (w < 0 || (size_t)w >= len - used || used + (size_t)w >= SDUNIT_NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

static unsigned
levels_of(const char *rel)
{
	unsigned n = 0;

	for (const char *s = rel; *s; s++)
		n += *s == '/';
	return n;
}

int
sdunit_name(const char *prefix, const char *rel, const char *kind, char *out, size_t len)
{
	unsigned k = levels_of(rel);

	if (k == 0 || rel[strlen(rel) - 1] == '/')
		return -EINVAL;
	return name_of(prefix, rel, k, kind, out, len);
}

int
sdunit_cgroup(const char *root, const char *prefix, const char *rel, const char *kind,
	      char *out, size_t len)
{
	unsigned k = levels_of(rel);
	char name[SDUNIT_NAME_MAX];
	int w = snprintf(out, len, "%s", root);
	size_t used;

	if (k == 0 || rel[strlen(rel) - 1] == '/')
		return -EINVAL;
	if (w < 0 || (size_t)w >= len)
		return -ENAMETOOLONG;
	used = (size_t)w;
	for (unsigned i = 1; i <= k; i++) {
		int rc = name_of(prefix, rel, i, i < k ? "slice" : kind, name,
				 sizeof(name));
		if (rc < 0)
			return rc;
		w = snprintf(out + used, len - used, "/%s", name);
		if (w < 0 || (size_t)w >= len - used)
			return -ENAMETOOLONG;
		used += (size_t)w;
	}
	return 0;
}

/* Is unit (n bytes) a slice or a scope: which, or NULL. */
static const char *
kind_of(const char *unit, size_t n)
{
	return ends_with(unit, n, ".scope")   ? "scope"
	       : ends_with(unit, n, ".slice") ? "slice"
					      : NULL;
}

/* The logical group a unit of prefix stands for, unescaped and not yet
 * checked against the name sdunit_name() writes; 0, -ENOENT or
 * -ENAMETOOLONG. */
static int
parse_unit(const char *prefix, const char *unit, char *out, size_t len)
{
	size_t plen = strlen(prefix), n = strlen(unit), used = 0;

	if (kind_of(unit, n) == NULL || n <= plen + 7 ||
	    strncmp(unit, prefix, plen) != 0 || unit[plen] != '-')
		return -ENOENT;
	const char *s = unit + plen, *end = unit + n - 6;
	while (s < end && *s == '-') {
		size_t k = strcspn(s + 1, "-");
		if (s + 1 + k > end)
			k = (size_t)(end - s - 1);
		if (used + 1 >= len)
			return -ENAMETOOLONG;
		out[used++] = '/';
		size_t at = used;
		if (unescape(s + 1, k, out, len, &used) < 0 ||
		    !good_segment(out + at, used - at) ||
		    memchr(out + at, '/', used - at))
			return -ENOENT;
		s += 1 + k;
	}
	return s == end ? 0 : -ENOENT;
}

int
sdunit_logical(const char *root, const char *prefix, const char *real, char *out,
	       size_t len)
{
	size_t rlen = strlen(root);
	char check[4096];

	if (strncmp(real, root, rlen) != 0 || real[rlen] != '/')
		return -ENOENT;
	const char *last = strrchr(real, '/') + 1;
	int rc = parse_unit(prefix, last, out, len);
	if (rc < 0)
		return rc;
	/* the whole chain, not only its last unit */
	if (sdunit_cgroup(root, prefix, out, kind_of(last, strlen(last)), check,
			  sizeof(check)) < 0 ||
	    strcmp(check, real) != 0)
		return -ENOENT;
	return 0;
}

int
sdunit_group(const char *prefix, const char *unit, char *out, size_t len)
{
	char check[SDUNIT_NAME_MAX];
	int rc = parse_unit(prefix, unit, out, len);

	if (rc < 0)
		return rc;
	/* the name sdunit_name() writes, not another spelling of it */
	if (sdunit_name(prefix, out, kind_of(unit, strlen(unit)), check, sizeof(check)) <
		    0 ||
	    strcmp(check, unit) != 0)
		return -ENOENT;
	return 0;
}

/* Does a control group's name (n bytes) name a unit that has one? */
static bool
unit_component(const char *s, size_t n)
{
	static const char *const kinds[] = { ".service", ".scope", ".slice",
					     ".socket",	 ".mount", ".swap" };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (n > strlen(kinds[i]) && ends_with(s, n, kinds[i]))
			return true;
	return false;
}

int
sdunit_unit_of(const char *real, char *out, size_t len)
{
	const char *end = real + strlen(real);

	while (end > real) {
		const char *start = end;
		while (start > real && start[-1] != '/')
			start--;
		size_t n = (size_t)(end - start);
		if (unit_component(start, n)) {
			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(out, start, n);
			out[n] = '\0';
			return 0;
		}
		end = start > real ? start - 1 : real;
	}
	return -ENOENT;
}

/* ---- who may be moved ------------------------------------------------------------ */

/* Is component s (n bytes) the user's manager, user@UID.service? */
static bool
user_manager(const char *s, size_t n)
{
	return n > 13 && strncmp(s, "user@", 5) == 0 && ends_with(s, n, ".service");
}

const char *
sdunit_refusal(const char *real, const char *own)
{
	size_t olen = own != NULL ? strlen(own) : 0;
	const char *s = real;
	bool in_unit = false;

	if (olen > 1 && strncmp(real, own, olen) == 0 &&
	    (real[olen] == '\0' || real[olen] == '/'))
		return "it runs in cgengined's own unit";
	while (*s == '/' && s[1] != '\0') {
		const char *c = s + 1;
		size_t n = strcspn(c, "/");

		if (in_unit)
			return "it runs in a subtree systemd delegated to its unit (Delegate=yes)";
		if (user_manager(c, n))
			return "it runs under the user's own service manager (user@UID.service)";
		if (n == 10 && strncmp(c, "init.scope", 10) == 0)
			return "it runs in PID 1's init.scope";
		in_unit = unit_component(c, n) && !ends_with(c, n, ".slice");
		s = c + n;
	}
	if (!in_unit)
		return "it runs in no unit of systemd's";
	return NULL;
}

const char *
sdunit_refusal_delegated(const char *real, const char *own, const char *root,
			 const char *prefix,
			 int (*delegated)(void *arg, const char *group), void *arg)
{
	const char *no = sdunit_refusal(real, own);
	char rel[4096];

	if (no != NULL || sdunit_logical(root, prefix, real, rel, sizeof(rel)) == 0)
		return no;
	/* real is the unit's own group: sdunit_refusal refuses below it */
	int rc = delegated(arg, real);
	if (rc > 0)
		return "its unit is delegated (Delegate=yes): the unit places its own "
		       "processes";
	if (rc < 0 && rc != -ENOENT)
		return "cannot tell whether its unit is delegated (Delegate=yes)";
	return NULL;
}

/* ---- properties -------------------------------------------------------------------- */

/* A byte count with an optional K, M, G, T, P or E (powers of 1024), or "max". */
static int
bytes(const char *v, uint64_t *out)
{
	static const char units[] = "KMGTPE";
	char *end;

	if (strcmp(v, "max") == 0 || strcmp(v, "-1") == 0) {
		*out = UINT64_MAX;
		return 0;
	}
	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno != 0)
		return -EINVAL;
	if (*end != '\0') {
		const char *u = strchr(units, end[0] & ~0x20);
		if (u == NULL || end[1] != '\0')
			return -EINVAL;
		for (const char *k = units; k <= u; k++) {
			if (n > UINT64_MAX / 1024)
				return -EINVAL;
			n *= 1024;
		}
	}
	*out = n;
	return 0;
}

static int
number(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0' || n < lo || n > hi)
		return -EINVAL;
	*out = n;
	return 0;
}

/* A cpuset list ("0-3,8") as systemd's byte mask: bit i%8 of byte i/8. */
static int
mask(const char *v, struct sdprop *p)
{
	const char *s = v;

	memset(p->mask, 0, sizeof(p->mask));
	p->masklen = 0;
	while (*s != '\0') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				return -EINVAL;
		}
		if (b >= SDPROP_MASK_MAX * 8)
			return -EINVAL;
		for (unsigned long i = a; i <= b; i++)
			p->mask[i / 8] |= (uint8_t)(1u << (i % 8));
		if (b / 8 + 1 > p->masklen)
			p->masklen = b / 8 + 1;
		if (*end != ',' && *end != '\0')
			return -EINVAL;
		s = *end == ',' ? end + 1 : end;
	}
	return 0;
}

static int
one(struct sdprop *p, const char *name, int rc)
{
	p->name = name;
	return rc < 0 ? rc : 1;
}

/* cpu.max "QUOTA PERIOD" (QUOTA may be "max"; PERIOD defaults to 100 ms). */
static int
cpu_max(const char *v, struct sdprop *out)
{
	char quota[32];
	uint64_t period = 100000, q;
	size_t n = strcspn(v, " ");

	if (n == 0 || n >= sizeof(quota))
		return -EINVAL;
	memcpy(quota, v, n);
	quota[n] = '\0';
	if (v[n] == ' ' && number(v + n + 1, 1000, 1000000, &period) < 0)
		return -EINVAL;
	if (strcmp(quota, "max") == 0)
		q = UINT64_MAX;
	else if (number(quota, 1000, UINT64_MAX / 1000000, &q) == 0)
		q = q * 1000000 / period; /* per second of wall time */
	else
		return -EINVAL;
	out[0] = (struct sdprop){ .name = "CPUQuotaPerSecUSec", .type = 't', .u = q };
	out[1] =
		(struct sdprop){ .name = "CPUQuotaPeriodUSec", .type = 't', .u = period };
	return 2;
}

int
sdunit_props(const char *key, const char *value, struct sdprop *out)
{
	static const struct {
		const char *key, *prop;
	} limits[] = {
		{ "memory.max", "MemoryMax" },		{ "memory.high", "MemoryHigh" },
		{ "memory.low", "MemoryLow" },		{ "memory.min", "MemoryMin" },
		{ "memory.swap.max", "MemorySwapMax" }, { "pids.max", "TasksMax" },
	};
	struct sdprop *p = &out[0];

	memset(p, 0, sizeof(*p));
	p->type = 't';
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (strcmp(key, limits[i].key) == 0)
			return one(p, limits[i].prop, bytes(value, &p->u));
	if (strcmp(key, "cpu.weight") == 0)
		return one(p, "CPUWeight", number(value, 1, 10000, &p->u));
	if (strcmp(key, "io.weight") == 0) /* "N" or "default N" */
		return one(p, "IOWeight",
			   number(strncmp(value, "default ", 8) == 0 ? value + 8 : value,
				  1, 10000, &p->u));
	if (strcmp(key, "cpu.max") == 0)
		return cpu_max(value, out);
	p->type = 'y';
	if (strcmp(key, "cpuset.cpus") == 0)
		return one(p, "AllowedCPUs", mask(value, p));
	if (strcmp(key, "cpuset.mems") == 0)
		return one(p, "AllowedMemoryNodes", mask(value, p));
	return -ENOTSUP;
}

void
sdunit_description(const char *rel, const char *unit, char *out, size_t len)
{
	const char *name = rel[0] != '\0' ? rel : "root";

	for (const unsigned char *c = (const unsigned char *)rel; *c; c++)
		if (*c < 0x20 || *c >= 0x7f) {
			name = unit;
			break;
		}
	snprintf(out, len, "cgengine class %s", name);
}
