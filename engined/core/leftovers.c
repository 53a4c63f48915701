/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * leftovers.c -- template groups a former run of the daemon made in the
 * unified layout's tree, found again at start.
 *
 * At run time the daemon remembers each group it makes from a template
 * (/students/%u) and removes it once empty.  That memory does not
 * survive a restart: groups whose processes exited while the daemon was
 * stopped would stay for ever, and their ids in the nft sets.  But the
 * tree below unified-root is the daemon's, and its layout says what
 * each level is: level k of a composed group belongs to one dimension,
 * at one depth in it.  A level is a template's when a rule of that
 * dimension has a template segment at or above that depth whose fixed
 * segments match (%u matches any name), and no fixed destination (a
 * rule's, a group section's, a boost profile's) names that path: that
 * level and every level below it were made from a template, as at run
 * time.  At start such groups are removed when empty -- their ids
 * leave the nft sets at the start's sync -- and the others are
 * remembered, to be removed once empty like those made at run time.
 * Groups a Lua hook named are not recognisable: they are left alone.
 */
#include "core_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the destinations of one virtual dimension look like. */
struct shapes {
	char **tmpl; /* templated destinations (distinct) */
	size_t ntmpl;
	struct map fixed; /* every prefix of a fixed destination: char * */
};

struct leftovers {
	struct core *c;
	struct shapes dim[RULES_MAX_HIERS];
	unsigned levels;
	unsigned long removed, kept;
};

static bool
same_str(const void *value, const void *probe)
{
	return strcmp(*(char *const *)value, probe) == 0;
}

/* The first d segments of path, as "/a/b", into out; how many it had
 * (at most d).  Repeated slashes are one. */
static unsigned
prefix_of(const char *path, unsigned d, char *out, size_t len)
{
	size_t used = 0;
	unsigned k = 0;

	out[0] = '\0';
	for (const char *s = path; *s && k < d;) {
		size_t n = strcspn(s, "/");
		if (n > 0) {
			if (used + n + 2 > len)
				return 0;
			out[used++] = '/';
			memcpy(out + used, s, n);
			used += n;
			out[used] = '\0';
			k++;
		}
		s += n + (s[n] == '/');
	}
	return k;
}

static unsigned
depth_of(const char *path)
{
	char buf[RULES_DEST_MAX];

	return prefix_of(path, RULES_MAX_HIERS * RULES_DEST_MAX, buf, sizeof(buf));
}

/* Remember every prefix of fixed destination dest of dimension i, padded
 * with the default segment to the dimension's depth as composing does
 * ("/students" is "/students/default" at depth 2). */
static int
add_fixed(struct leftovers *l, size_t i, const char *dest)
{
	const struct policy *p = l->c->pol;
	struct shapes *s = &l->dim[i];
	char buf[RULES_DEST_MAX], padded[RULES_DEST_MAX];
	unsigned d = prefix_of(dest, p->depth[i], padded, sizeof(padded));
	size_t used = strlen(padded);

	for (; d < p->depth[i]; d++) {
		int w = snprintf(padded + used, sizeof(padded) - used, "/%s",
				 p->cfg->unified_default);
		if (w < 0 || (size_t)w >= sizeof(padded) - used)
			return 0; /* too long to compose anyway */
		used += (size_t)w;
	}
	for (unsigned k = 1; k <= d; k++) {
		bool fresh;

		prefix_of(padded, k, buf, sizeof(buf));
		char **v =
			map_insert(&s->fixed, map_hash_str(buf), same_str, buf, &fresh);
		if (v == NULL || (fresh && (*v = strdup(buf)) == NULL)) {
			if (v != NULL)
				map_remove(&s->fixed, v);
			return -ENOMEM;
		}
	}
	return 0;
}

static int
add_template(struct shapes *s, const char *dest)
{
	if (strv_has(s->tmpl, s->ntmpl, dest))
		return 0;
	return strv_add(&s->tmpl, &s->ntmpl, dest);
}

static int
add_dest(struct leftovers *l, size_t i, const char *dest, bool templated)
{
	if (i >= RULES_MAX_HIERS || !l->c->pol->virt[i])
		return 0;
	return templated ? add_template(&l->dim[i], dest) : add_fixed(l, i, dest);
}

/* The shapes of every virtual dimension, from rules, groups, profiles. */
static int
shapes_build(struct leftovers *l)
{
	const struct policy *p = l->c->pol;
	int rc = 0;

	for (size_t i = 0; i < RULES_MAX_HIERS; i++)
		map_init(&l->dim[i].fixed, sizeof(char *));
	for (size_t k = 0; rc == 0 && k < p->nlayout; k++) /* a dimension left alone */
		rc = add_dest(l, p->layout[k], "/", false);
	for (size_t r = 0; rc == 0 && r < rules_count(p->rules); r++) {
		const struct rules_rule *rule = rules_get(p->rules, r);
		for (size_t k = 0; rc == 0 && k < p->nlayout; k++)
			if (rule->mask & (1ull << p->layout[k]))
				rc = add_dest(l, p->layout[k], rule->dest,
					      rule->templated);
	}
	for (size_t g = 0; rc == 0 && g < p->nsettings; g++) {
		const char *path = p->settings[g].conf->path;
		rc = add_dest(l, p->settings[g].hier, path, strchr(path, '%') != NULL);
	}
	for (size_t b = 0; rc == 0 && b < p->cfg->nprofiles; b++) {
		const struct hier *h = policy_find(p, p->cfg->profiles[b].hier);
		int i = h != NULL ? policy_index(p, h) : -1;
		if (i >= 0)
			rc = add_dest(l, (size_t)i, p->cfg->profiles[b].dest, false);
	}
	return rc;
}

static void
shapes_free(struct leftovers *l)
{
	for (size_t i = 0; i < RULES_MAX_HIERS; i++) {
		struct shapes *s = &l->dim[i];
		char **v;
		size_t cursor = 0;

		while ((v = map_next(&s->fixed, &cursor)) != NULL)
			free(*v);
		map_free(&s->fixed);
		for (size_t t = 0; t < s->ntmpl; t++)
			free(s->tmpl[t]);
		free(s->tmpl);
	}
}

/* Does template t, cut to the depth of dimpath, have a template segment
 * and match dimpath (a template segment matching any name)? */
static bool
template_matches(const char *t, const char *dimpath)
{
	char cut[RULES_DEST_MAX];
	unsigned d = depth_of(dimpath);

	if (prefix_of(t, d, cut, sizeof(cut)) != d || strchr(cut, '%') == NULL)
		return false;
	const char *a = cut + 1, *b = dimpath + 1;
	for (unsigned k = 0; k < d; k++) {
		size_t na = strcspn(a, "/"), nb = strcspn(b, "/");
		if (memchr(a, '%', na) == NULL && (na != nb || memcmp(a, b, na) != 0))
			return false;
		a += na + (a[na] == '/');
		b += nb + (b[nb] == '/');
	}
	return true;
}

/* Is level k of composed group path a template's (see above)? */
static bool
level_from_template(const struct leftovers *l, const char *path, unsigned k)
{
	char dimpath[RULES_DEST_MAX];
	int i = layout_level(l->c->pol, path, k, dimpath, sizeof(dimpath));

	if (i < 0)
		return false;
	const struct shapes *s = &l->dim[i];
	if (map_find(&s->fixed, map_hash_str(dimpath), same_str, dimpath) != NULL)
		return false;
	for (size_t t = 0; t < s->ntmpl; t++)
		if (template_matches(s->tmpl[t], dimpath))
			return true;
	return false;
}

/* ---- the walk -------------------------------------------------------------------------- */

static void visit(struct leftovers *l, const char *path, unsigned k, bool made);

struct level {
	struct leftovers *l;
	const char *path;
	unsigned k; /* of the children */
	bool made;  /* the parent level was a template's */
	char **names;
	size_t n, cap;
};

static int
collect(void *arg, const char *name)
{
	struct level *v = arg;

	if (name[0] == '.' || (v->k == 1 && v->l->c->pol->uroot_own &&
			       strcmp(name, LAYOUT_DAEMON_LEAF) == 0))
		return 0; /* the service manager's, or the daemon's leaf */
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 16;
		char **names = realloc(v->names, cap * sizeof(*names));
		if (names == NULL)
			return -ENOMEM;
		v->names = names;
		v->cap = cap;
	}
	if ((v->names[v->n] = strdup(name)) == NULL)
		return -ENOMEM;
	v->n++;
	return 0;
}

/* Remove a template's group that is empty, or remember it. */
static void
settle(struct leftovers *l, const char *path)
{
	struct core *c = l->c;
	const struct hier *h = c->pol->v2;
	const struct backend *fs = c->env.cgfs;
	uint64_t id = 0;
	bool has_id = fs->ids.id != NULL && backend_id(fs, h, path, &id) == 0;

	if (backend_is_empty(fs, h, path) && backend_rmdir(fs, h, path) == 0) {
		c->stats.groups_removed++;
		l->removed++;
		if (has_id)
			nftsets_gone(c, id);
		log_info("removed empty group unified:%s (made from a template before "
			 "the restart)",
			 path);
		return;
	}
	groups_adopt(c, h, path); /* removed once empty */
	l->kept++;
}

/* The children of path (at level k below the root), depth first. */
static void
visit(struct leftovers *l, const char *path, unsigned k, bool made)
{
	const struct backend *fs = l->c->env.cgfs;
	struct level v = { .l = l, .path = path, .k = k, .made = made };
	char sub[RULES_DEST_MAX];

	if (k > l->levels || backend_children(fs, l->c->pol->v2, path, collect, &v) < 0)
		goto out;
	for (size_t i = 0; i < v.n; i++) {
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, v.names[i]) >=
		    sizeof(sub))
			continue;
		bool mine = made || level_from_template(l, sub, k);
		visit(l, sub, k + 1, mine);
		if (mine)
			settle(l, sub);
	}
out:
	for (size_t i = 0; i < v.n; i++)
		free(v.names[i]);
	free(v.names);
}

void
groups_leftovers(struct core *c)
{
	const struct policy *p = c->pol;
	struct leftovers l = { .c = c, .levels = layout_levels(p) };

	if (p->v2 == NULL || c->dry_run || !p->cfg->remove_empty ||
	    c->env.cgfs->look.children == NULL)
		return;
	if (shapes_build(&l) == 0)
		visit(&l, p->uroot, 1, false);
	else
		log_warning("out of memory: template groups of a former run are kept");
	shapes_free(&l);
	if (l.removed > 0 || l.kept > 0)
		log_notice(
			"template groups of a former run: %lu empty removed, %lu in use "
			"kept until empty",
			l.removed, l.kept);
}
