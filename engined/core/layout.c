/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layout.c -- the unified layout: per-dimension verdicts composed into
 * one group of the cgroup v2 tree per process.
 *
 * On a host without a v1 hierarchy for a dimension the rules name
 * ("cpu", "net_cls", any word), the dimension is virtual: rules bind to
 * it by name, verdicts are computed for it as for a hierarchy, and the
 * verdicts of all virtual dimensions are composed, outer to inner as
 * unified-layout lists them, into v2:<uroot>/<cpu part>/<net part>.
 *
 * The kernel lets processes live only in leaves once controllers are
 * enabled below a group.  So every dimension always contributes the
 * same number of levels (its depth: the deepest destination any rule,
 * group or boost profile gives it), shorter destinations are padded
 * with the default segment, and every composed group that holds
 * processes is at the same depth: no group is both a leaf and an inner
 * node.
 */
#include "core_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Path components of a destination ("/" has none). */
static unsigned
segments(const char *path)
{
	unsigned n = 0;

	for (const char *s = path; *s; s++)
		if (*s != '/' && (s == path || s[-1] == '/'))
			n++;
	return n;
}

static int
virtual_index(const struct policy *p, const char *name)
{
	for (size_t k = 0; k < p->nlayout; k++)
		if (strcmp(p->names[p->layout[k]], name) == 0)
			return (int)p->layout[k];
	return -1;
}

static bool
is_managed(const struct policy *p, const struct hier *h)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->managed[i] == h)
			return true;
	return false;
}

/* The daemon's own v2 group, from procroot/self/cgroup ("" = root). */
static int
own_group(const char *procroot, char *out, size_t len)
{
	char file[512], line[4096];
	FILE *f;
	int rc = -ENOENT;

	snprintf(file, sizeof(file), "%s/self/cgroup", procroot ? procroot : "/proc");
	if ((f = fopen(file, "re")) == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "0::", 3) != 0)
			continue;
		const char *g = strcmp(line + 3, "/") == 0 ? "" : line + 3;
		rc = strlen(g) < len ? 0 : -ENAMETOOLONG;
		if (rc == 0)
			memcpy(out, g, strlen(g) + 1);
		break;
	}
	fclose(f);
	return rc;
}

static int
add_dimension(struct policy *p, const char *name)
{
	if (p->n == RULES_MAX_HIERS)
		return -EINVAL;
	struct hier *d = &p->dims[p->nlayout];

	d->name = (char *)name; /* owned by the config */
	d->mount = p->v2->mount;
	d->version = HIER_V2;
	p->managed[p->n] = d;
	p->names[p->n] = name;
	p->labels[p->n] = name;
	p->virt[p->n] = true;
	p->layout[p->nlayout++] = p->n++;
	return 0;
}

/* The daemon's own group, without its leaf; -errno. */
static int
own_root(const char *procroot, char *own, size_t len)
{
	int rc = own_group(procroot, own, len);
	size_t n = rc == 0 ? strlen(own) : 0, l = strlen("/" LAYOUT_DAEMON_LEAF);

	/* after a restart or reload, it already sits in its leaf */
	if (n >= l && strcmp(own + n - l, "/" LAYOUT_DAEMON_LEAF) == 0)
		own[n - l] = '\0';
	return rc;
}

/* A root the backend names (a slice systemd owns): not our group.
 * 1 when it does, 0 when the root is in the daemon's own tree, -1. */
static int
backend_root(struct policy *p, const struct overrides *o, const char *where,
	     const struct report *rep)
{
	const char *r = p->cfg->unified_root, *why = "cannot be the layout's root";
	char root[2048];
	int rc = o->layout_root != NULL
			 ? o->layout_root(p->backend, r, root, sizeof(root), &why)
			 : 0;

	if (rc < 0) {
		report_msg(rep, "%s: unified-root: \"%s\" %s", where, r, why);
		return -1;
	}
	if (rc == 0)
		return 0;
	p->uroot_own = false;
	return (p->uroot = strdup(root)) == NULL ? -1 : 1;
}

static int
find_root(struct policy *p, const struct overrides *o, const char *procroot,
	  const char *where, const struct report *rep)
{
	int rc = backend_root(p, o, where, rep);

	if (rc != 0)
		return rc < 0 ? rc : 0;

	const char *r = p->cfg->unified_root;
	char own[2048];
	rc = own_root(procroot, own, sizeof(own));

	if (r[0] == '\0') {
		if (rc < 0) {
			report_msg(
				rep,
				"%s: unified-root: cannot find the daemon's own v2 group "
				"in %s/self/cgroup: %s",
				where, procroot ? procroot : "/proc", strerror(-rc));
			return -EINVAL;
		}
		/* never compose into a group that is not the daemon's own: the
		 * root, or a slice (systemd may have put it there when it could
		 * not attach it to its unit's group) */
		size_t n = strlen(own);
		if (n == 0 || (n >= 6 && strcmp(own + n - 6, ".slice") == 0)) {
			report_msg(
				rep,
				"%s: unified-root: the daemon runs in %s, not in a group "
				"delegated to it; run it in its own unit with "
				"Delegate=yes, or set unified-root",
				where, n ? own : "the root group");
			return -EINVAL;
		}
		r = own;
	}
	if ((p->uroot = strdup(r)) == NULL)
		return -ENOMEM;
	size_t n = strlen(p->uroot);
	while (n > 0 && p->uroot[n - 1] == '/')
		p->uroot[--n] = '\0';
	/* the daemon in the root it manages: it moves itself into a leaf */
	p->uroot_own = rc == 0 && strcmp(own, p->uroot) == 0;
	return 0;
}

int
layout_build(struct policy *p, const struct overrides *o, const char *procroot,
	     const struct report *rep)
{
	const struct config *c = p->cfg;
	const char *where = c->file[0] ? c->file : "built-in config";
	const struct hier *v2 = NULL;

	if (c->nlayout == 0)
		return 0;
	for (size_t i = 0; i < p->all.n && v2 == NULL; i++)
		if (p->all.v[i].version == HIER_V2)
			v2 = &p->all.v[i];
	if (v2 != NULL && is_managed(p, v2)) {
		report_msg(
			rep,
			"%s: unified-layout: the v2 tree cannot also be in hierarchies",
			where);
		return -EINVAL;
	}
	for (size_t k = 0; k < c->nlayout; k++) {
		const struct hier *h = hier_find(&p->all, c->layout[k]);

		if (h != NULL && h->version == HIER_V1 && is_managed(p, h))
			continue; /* a managed v1 hierarchy: used as such */
		if (v2 == NULL) {
			report_msg(
				rep,
				"%s: unified-layout: \"%s\" has no v1 hierarchy and no "
				"cgroup2 file system is mounted",
				where, c->layout[k]);
			return -EINVAL;
		}
		p->v2 = v2;
		if (add_dimension(p, c->layout[k]) < 0) {
			report_msg(rep, "%s: hierarchies: more than %d", where,
				   RULES_MAX_HIERS);
			return -EINVAL;
		}
	}
	if (p->v2 == NULL)
		return 0;
	return find_root(p, o, procroot, where, rep);
}

/* The v2 controller behind a v1 controller or file prefix, or NULL. */
static const char *
v2_controller(const char *name, size_t len)
{
	static const char *const map[][2] = {
		{ "cpu", "cpu" },	{ "cpuacct", "cpu" },	  { "cpuset", "cpuset" },
		{ "memory", "memory" }, { "blkio", "io" },	  { "io", "io" },
		{ "pids", "pids" },	{ "hugetlb", "hugetlb" }, { "rdma", "rdma" },
		{ "misc", "misc" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strlen(map[i][0]) == len && strncmp(map[i][0], name, len) == 0)
			return map[i][1];
	return NULL;
}

static void
want_controller(struct policy *p, const char *name, size_t len)
{
	const char *c = v2_controller(name, len);
	size_t have = strlen(p->controllers), n;

	if (c == NULL)
		return;
	for (const char *s = p->controllers; *s; s += n + (s[n] != '\0')) {
		n = strcspn(s, " ");
		if (n == strlen(c) && strncmp(s, c, n) == 0)
			return;
	}
	snprintf(p->controllers + have, sizeof(p->controllers) - have, "%s%s",
		 have ? " " : "", c);
}

static void
deepen(struct policy *p, int i, const char *path)
{
	unsigned n = segments(path);

	if (i >= 0 && n > p->depth[i])
		p->depth[i] = n;
}

void
layout_want_controller(struct policy *p, const char *name)
{
	want_controller(p, name, strlen(name));
}

void
layout_finish(struct policy *p)
{
	const struct config *c = p->cfg;

	for (size_t i = 0; i < rules_count(p->rules); i++) {
		const struct rules_rule *r = rules_get(p->rules, i);

		for (size_t k = 0; k < p->nlayout; k++)
			if (r->mask & (1ull << p->layout[k]))
				deepen(p, (int)p->layout[k], r->dest);
	}
	for (size_t g = 0; g < c->ngroups; g++) {
		int i = virtual_index(p, c->groups[g].hier);

		deepen(p, i, c->groups[g].path);
		for (size_t s = 0; i >= 0 && s < c->groups[g].nset; s++)
			want_controller(p, c->groups[g].set[s],
					strcspn(c->groups[g].set[s], "."));
	}
	for (size_t b = 0; b < c->nprofiles; b++)
		deepen(p, virtual_index(p, c->profiles[b].hier), c->profiles[b].dest);
	for (size_t k = 0; k < p->nlayout; k++) {
		size_t i = p->layout[k];

		if (p->depth[i] == 0)
			p->depth[i] = 1;
		want_controller(p, p->names[i], strlen(p->names[i]));
	}
}

/*
 * The longest part of one dimension, and what gives it: a rule, a
 * boost profile, or (neither) the default segments alone.
 */
struct longest {
	size_t len;
	const struct rules_rule *rule;
	const struct boost_profile *profile;
};

/* A destination of len bytes (expanded) in dimension i, padded. */
static void
consider(const struct policy *p, size_t i, const char *dest, size_t len,
	 const struct rules_rule *r, const struct boost_profile *b, struct longest *l)
{
	unsigned n = segments(dest);

	if (n < p->depth[i])
		len += (p->depth[i] - n) * (1 + strlen(p->cfg->unified_default));
	if (len > l[i].len)
		l[i] = (struct longest){ len, r, b };
}

/* Where the longest part of dimension i comes from, into buf. */
static const char *
origin(const struct longest *l, char *buf, size_t len)
{
	if (l->rule != NULL)
		snprintf(buf, len, "%s:%u, %.80s", l->rule->file, l->rule->line,
			 l->rule->dest);
	else if (l->profile != NULL)
		snprintf(buf, len, "boost-profile \"%.80s\", %.80s", l->profile->name,
			 l->profile->dest);
	else
		snprintf(buf, len, "unified-default");
	return buf;
}

int
layout_limit(const struct policy *p, const struct report *rep)
{
	const struct config *c = p->cfg;
	struct longest l[RULES_MAX_HIERS] = { 0 };

	if (p->v2 == NULL)
		return 0;
	for (size_t k = 0; k < p->nlayout; k++)
		consider(p, p->layout[k], "", 0, NULL, NULL, l);
	for (size_t j = 0; j < rules_count(p->rules); j++) {
		const struct rules_rule *r = rules_get(p->rules, j);
		size_t len = 0;

		if (r->options & (RULES_OPT_IGNORE | RULES_OPT_IGNORE_RT))
			continue; /* never moves a task */
		for (size_t k = 0; k < p->nlayout; k++)
			if (r->mask & (1ull << p->layout[k])) {
				len = len ? len : rules_expand_max(r->dest);
				consider(p, p->layout[k], r->dest, len, r, NULL, l);
			}
	}
	for (size_t b = 0; b < c->nprofiles; b++) {
		int i = virtual_index(p, c->profiles[b].hier);

		if (i >= 0)
			consider(p, (size_t)i, c->profiles[b].dest,
				 strlen(c->profiles[b].dest), NULL, &c->profiles[b], l);
	}
	size_t total = strlen(p->uroot), worst = p->layout[0];
	for (size_t k = 0; k < p->nlayout; k++) {
		total += l[p->layout[k]].len;
		if (l[p->layout[k]].len > l[worst].len)
			worst = p->layout[k];
	}
	if (total < RULES_DEST_MAX)
		return 0;
	char line[16] = "", from[4352];
	if (c->layout_line > 0)
		snprintf(line, sizeof(line), ":%u", c->layout_line);
	report_msg(rep,
		   "%s%s: unified-layout: a composed group can be %zu bytes long, over the "
		   "limit of %d (%zu dimension%s; the longest part is %s's, %zu bytes, from "
		   "%s): use fewer dimensions or levels, or shorter destinations (a "
		   "template's value takes up to 48 bytes)",
		   c->file[0] ? c->file : "built-in config", line, total, RULES_DEST_MAX - 1,
		   p->nlayout, p->nlayout == 1 ? "" : "s", p->names[worst], l[worst].len,
		   origin(&l[worst], from, sizeof(from)));
	return -EINVAL;
}

bool
layout_fits(const struct policy *p, size_t i, const char *dest)
{
	return !p->virt[i] || segments(dest) <= p->depth[i];
}

unsigned
layout_levels(const struct policy *p)
{
	unsigned n = 0;

	for (size_t k = 0; k < p->nlayout; k++)
		n += p->depth[p->layout[k]];
	return n;
}

void
layout_split(const struct policy *p, const char *cur, char *buf, size_t len,
	     const char **parts)
{
	size_t rlen = strlen(p->uroot), used = 0;

	for (size_t k = 0; k < p->nlayout; k++)
		parts[p->layout[k]] = NULL;
	if (cur == NULL || strncmp(cur, p->uroot, rlen) != 0 || cur[rlen] != '/' ||
	    segments(cur + rlen) != layout_levels(p))
		return;
	const char *s = cur + rlen;
	for (size_t k = 0; k < p->nlayout; k++) {
		size_t i = p->layout[k];
		const char *start = s;

		for (unsigned d = 0; d < p->depth[i]; d++) {
			s++;
			s += strcspn(s, "/");
		}
		size_t n = (size_t)(s - start);
		if (used + n + 1 > len)
			return;
		memcpy(buf + used, start, n);
		buf[used + n] = '\0';
		parts[i] = buf + used;
		used += n + 1;
	}
}

/* Append the part of dimension i: path (or nothing), padded. */
static int
append_part(const struct policy *p, size_t i, const char *path, char *out, size_t len,
	    size_t *used)
{
	unsigned n = path ? segments(path) : 0;
	int w;

	if (path != NULL && n > 0) {
		const char *s = path;
		while (s[0] == '/' && s[1] == '/')
			s++;
		w = snprintf(out + *used, len - *used, "%s%s", s[0] == '/' ? "" : "/", s);
		if (w < 0 || (size_t)w >= len - *used)
			return -ENAMETOOLONG;
		*used += (size_t)w;
		while (*used > 1 && out[*used - 1] == '/')
			out[--*used] = '\0';
	}
	for (; n < p->depth[i]; n++) {
		w = snprintf(out + *used, len - *used, "/%s", p->cfg->unified_default);
		if (w < 0 || (size_t)w >= len - *used)
			return -ENAMETOOLONG;
		*used += (size_t)w;
	}
	return 0;
}

int
layout_compose(const struct policy *p, const char *const *want, const char *const *cur,
	       char *out, size_t len, size_t *bad)
{
	bool any = false;
	size_t used;
	int rc;

	for (size_t k = 0; k < p->nlayout; k++) {
		size_t i = p->layout[k];

		if (want[i] != NULL && segments(want[i]) > p->depth[i]) {
			*bad = i;
			return -EMLINK;
		}
		any |= want[i] != NULL;
	}
	if (!any)
		return 1;
	if ((size_t)snprintf(out, len, "%s", p->uroot) >= len)
		return -ENAMETOOLONG;
	used = strlen(out);
	for (size_t k = 0; k < p->nlayout; k++) {
		size_t i = p->layout[k];
		const char *part = want[i] != NULL ? want[i] : cur[i];

		if ((rc = append_part(p, i, part, out, len, &used)) < 0)
			return rc;
	}
	return 0;
}

unsigned
layout_reserved(const struct policy *p, const char *path, const char **why)
{
	size_t rlen = strlen(p->uroot);
	unsigned k = 0;

	if (strncmp(path, p->uroot, rlen) != 0)
		return 0;
	for (const char *s = path + rlen; *s;) {
		size_t n = strcspn(s, "/");
		if (n > 0) {
			k++;
			if (s[0] == '.') {
				*why = "a name starting with '.' (the service manager's)";
				return k;
			}
			if (k == 1 && p->uroot_own && n == strlen(LAYOUT_DAEMON_LEAF) &&
			    memcmp(s, LAYOUT_DAEMON_LEAF, n) == 0) {
				*why = "the daemon's own leaf";
				return k;
			}
		}
		s += n + (s[n] == '/');
	}
	return 0;
}

int
layout_level(const struct policy *p, const char *path, unsigned k, char *dimpath,
	     size_t len)
{
	size_t rlen = strlen(p->uroot);
	unsigned level = 0;

	if (strncmp(path, p->uroot, rlen) != 0 || k == 0)
		return -1;
	const char *s = path + rlen;
	for (size_t j = 0; j < p->nlayout; j++) {
		size_t i = p->layout[j];
		const char *start = s;

		for (unsigned d = 0; d < p->depth[i]; d++) {
			if (*s != '/')
				return -1;
			s++;
			s += strcspn(s, "/");
			if (++level == k) {
				size_t n = (size_t)(s - start);
				if (n + 1 > len)
					return -1;
				memcpy(dimpath, start, n);
				dimpath[n] = '\0';
				return (int)i;
			}
		}
	}
	return -1;
}

static int
put(char *buf, size_t len, long long v)
{
	int n = snprintf(buf, len, "%lld", v);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int
number(const char *s, long long *v)
{
	char *end;

	*v = strtoll(s, &end, 10);
	return end == s || *end != '\0' ? -EINVAL : 0;
}

int
layout_v2_setting(const char *key, const char *value, char *k2, size_t klen, char *v2,
		  size_t vlen)
{
	static const char *const v1_only[] = { "net_cls.", "net_prio.", "devices.",
					       "freezer.", "cpuacct.",	"blkio." };
	long long v;

	if (strcmp(key, "cpu.shares") == 0) {
		if (number(value, &v) < 0)
			return -EINVAL;
		v = v < 2 ? 2 : v > 262144 ? 262144 : v;
		/* the kernel's and systemd's conversion: 2..262144 -> 1..10000 */
		snprintf(k2, klen, "cpu.weight");
		return put(v2, vlen, 1 + ((v - 2) * 9999) / 262142);
	}
	if (strcmp(key, "memory.limit_in_bytes") == 0) {
		snprintf(k2, klen, "memory.max");
		if (strcmp(value, "-1") == 0)
			return snprintf(v2, vlen, "max") < 0 ? -EIO : 0;
		return snprintf(v2, vlen, "%s", value) < 0 ? -EIO : 0;
	}
	if (strcmp(key, "blkio.weight") == 0) {
		if (number(value, &v) < 0)
			return -EINVAL;
		/* as systemd: the defaults (500 and 100) correspond */
		v = v * 100 / 500;
		snprintf(k2, klen, "io.weight");
		return put(v2, vlen, v < 1 ? 1 : v > 10000 ? 10000 : v);
	}
	for (size_t i = 0; i < sizeof(v1_only) / sizeof(v1_only[0]); i++)
		if (strncmp(key, v1_only[i], strlen(v1_only[i])) == 0)
			return -ENOTSUP;
	snprintf(k2, klen, "%s", key);
	snprintf(v2, vlen, "%s", value);
	return 0;
}
