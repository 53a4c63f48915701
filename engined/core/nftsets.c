/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nftsets.c -- keeping nftables sets of cgroup ids filled.
 *
 * A group section may name sets: group "net_cls:/www" { nft-set =
 * {"inet fw www"} }.  A firewall matches a socket's group with "socket
 * cgroupv2 level N @www", and nftables knows a group only by its id,
 * which changes when the group is removed and made again.  So the
 * daemon puts the id of each v2 group of such a section into its sets
 * when it makes the group, takes it out when it removes the group, and
 * re-synchronises every set at start, at reload and shortly after the
 * ruleset changed (the loop watches nf_tables' notifications).
 *
 * The groups of a section are those of a path pattern below the v2
 * root: for a dimension of the unified layout, every composed group
 * whose part of that dimension is the section's path (the levels of the
 * dimensions before it are wildcards); for the v2 hierarchy itself, the
 * path.  Template segments (%u) are wildcards too.  All groups of one
 * pattern sit at the same depth: the level the firewall's rule uses.
 *
 * What this file knows: the patterns (rebuilt with each policy), the
 * groups found so far with their ids ("members"), and per set the ids
 * the daemon put there -- kept across reloads, so a set a new policy no
 * longer names is emptied of them.  Members and ids are hash tables
 * (the project's map), so a group made, removed or found costs the same
 * with 20 groups as with 20,000.
 *
 * A sync runs in steps, at most NFT_STEP units of work each (a group
 * looked at, a directory listed, 256 members swept or set elements
 * compared), and the loop runs between two steps: a process exec'd
 * meanwhile is placed without waiting for the whole sync.  A step walks
 * the tree from an explicit stack, so it can stop anywhere; what
 * changes meanwhile goes through nftsets_made/removed as usual, and the
 * generation a member was last found in tells the sweep which groups
 * the walk did not find.
 */
#include "core_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFT_SETTLE 0.2 /* after a ruleset change, wait this long, then sync */
/* Ids of others in a set whose groups a sync checks for life, at most:
 * each check is a system call, and a firewall's set may be large. */
#define NFT_LIVE_CHECKS 1024
/* Units of work of one sync step (see above); a few ms at most. */
#define NFT_STEP 256
#define NFT_UNIT 256 /* members swept, or set elements compared, per unit */

struct nft_pattern {
	char **seg; /* segments below the v2 root; a wildcard is "*" */
	size_t nseg;
	size_t leaf_at; /* the segment here never matches the daemon's leaf (or SIZE_MAX) */
	const struct group_conf *g;
	size_t *sets; /* indexes into nftsets.sets */
	size_t nsets;
};

struct nft_set {
	struct nftset_ref ref;
	char name[3 * NFTSET_NAME_MAX];
	struct map ids; /* what the daemon put there: uint64_t, keyed by itself */
	bool configured;      /* named by the current policy */
	bool missing;	      /* logged as missing, until it is found */
};

struct nft_member {
	char *path; /* below the v2 root; the key */
	uint64_t id;
	unsigned gen; /* the sync that last found (or made) it */
};

/* A directory the walk of a sync has still to look at. */
struct nft_todo {
	size_t pat; /* the pattern */
	size_t j;   /* its segment to match next */
	char *path;
};

struct nftsets {
	struct nft_pattern *pat;
	size_t npat;
	struct nft_set *sets;
	size_t nsets;
	struct map mem;  /* struct nft_member, keyed by path */
	struct map gone; /* ids of groups removed at start: uint64_t */
	const struct hier *h;  /* the v2 hierarchy the patterns are in */
	double sync_at; /* a sync is wanted then (0: none) */
	/* the sync in progress */
	bool syncing;
	unsigned gen;	 /* its generation */
	size_t next_pat; /* patterns whose walk has not started */
	struct nft_todo *todo;
	size_t ntodo, captodo;
	bool swept;	 /* members it did not find are dropped */
	size_t next_set; /* sets brought in line so far */
};

/* ---- no sets at all (core_env.nft NULL) -------------------------------------- */

static int
none_change(void *arg, const struct nftset_ref *s, const uint64_t *ids, size_t k)
{
	return -EOPNOTSUPP;
}

static int
none_list(void *arg, const struct nftset_ref *s, uint64_t **ids, size_t *k)
{
	return -EOPNOTSUPP;
}

static const struct backend_nft none = { .add = none_change,
					 .del = none_change,
					 .list = none_list };

/* ---- small helpers ----------------------------------------------------------------- */

static bool
set_has(const struct nft_set *s, uint64_t id)
{
	return map_find(&s->ids, id, NULL, NULL) != NULL;
}

static void
set_forget(struct nft_set *s, uint64_t id)
{
	uint64_t *v = map_find(&s->ids, id, NULL, NULL);

	if (v != NULL)
		map_remove(&s->ids, v);
}

static void
set_remember(struct nft_set *s, uint64_t id)
{
	bool fresh;
	uint64_t *v = map_insert(&s->ids, id, NULL, NULL, &fresh);

	if (v != NULL) /* else forgotten: the next sync finds it in the set */
		*v = id;
}

static const char *
why(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "it does not exist (the daemon fills it once it is made)";
	case -EINVAL:
	case -EPROTOTYPE:
		return "it is not a set of type cgroupsv2";
	default:
		return strerror(-rc);
	}
}

/* A change to set s failed: say so (a missing set only once). */
static void
set_failed(struct nft_set *s, const char *what, int rc)
{
	if (rc == -ENOENT && s->missing)
		return;
	s->missing = rc == -ENOENT;
	log_warning("nft set %s: cannot %s: %s", s->name, what, why(rc));
}

/* ---- patterns ----------------------------------------------------------------------- */

/* Append the segments of path to p (template segments become "*"). */
static int
add_segments(struct nft_pattern *p, const char *path)
{
	for (const char *s = path; *s;) {
		size_t n = strcspn(s, "/");
		if (n > 0) {
			char **v = realloc(p->seg, (p->nseg + 1) * sizeof(*v));
			if (v == NULL)
				return -ENOMEM;
			p->seg = v;
			bool wild = memchr(s, '%', n) != NULL;
			if ((v[p->nseg] = wild ? strdup("*") : strndup(s, n)) == NULL)
				return -ENOMEM;
			p->nseg++;
		}
		s += n + (s[n] == '/');
	}
	return 0;
}

static int
add_wildcards(struct nft_pattern *p, unsigned k)
{
	for (unsigned i = 0; i < k; i++)
		if (add_segments(p, "*") < 0)
			return -ENOMEM;
	return 0;
}

/* The set state for spec, made if new; its index, or -1. */
static ssize_t
set_index(struct nftsets *n, const char *spec)
{
	struct nftset_ref r;
	char err[256], name[sizeof(n->sets[0].name)];

	if (nftset_parse(spec, &r, err, sizeof(err)) < 0)
		return -1; /* config.c checked it */
	nftset_format(&r, name, sizeof(name));
	for (size_t i = 0; i < n->nsets; i++)
		if (strcmp(n->sets[i].name, name) == 0) {
			n->sets[i].configured = true;
			return (ssize_t)i;
		}
	struct nft_set *v = realloc(n->sets, (n->nsets + 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	n->sets = v;
	memset(&v[n->nsets], 0, sizeof(v[0]));
	map_init(&v[n->nsets].ids, sizeof(uint64_t));
	v[n->nsets].ref = r;
	snprintf(v[n->nsets].name, sizeof(v[0].name), "%s", name);
	v[n->nsets].configured = true;
	return (ssize_t)n->nsets++;
}

/* The pattern of group section g in managed hierarchy k; 0, 1 when it
 * has none (said why), -ENOMEM. */
static int
pattern_build(struct core *c, size_t k, const struct group_conf *g,
	      struct nft_pattern *pat)
{
	const struct policy *p = c->pol;

	pat->leaf_at = SIZE_MAX;
	pat->g = g;
	if (p->virt[k]) {
		unsigned outer = 0;
		for (size_t j = 0; j < p->nlayout && p->layout[j] != k; j++)
			outer += p->depth[p->layout[j]];
		if (!layout_fits(p, k, g->path)) {
			log_warning(
				"group \"%s:%s\": nft-set unused: the path is deeper than "
				"its dimension, no such group is made",
				g->hier, g->path);
			return 1;
		}
		if (add_segments(pat, p->uroot) < 0)
			return -ENOMEM;
		if (p->uroot_own) /* even a section that names it: never the leaf */
			pat->leaf_at = pat->nseg;
		if (add_wildcards(pat, outer) < 0 || add_segments(pat, g->path) < 0)
			return -ENOMEM;
		return 0;
	}
	if (p->managed[k]->version != HIER_V2) {
		log_warning(
			"group \"%s:%s\": nft-set unused: %s is a cgroup v1 hierarchy here, "
			"and nftables matches a socket's cgroup v2 group",
			g->hier, g->path, hier_label(p->managed[k]));
		return 1;
	}
	return add_segments(pat, g->path);
}

static void
patterns_free(struct nftsets *n)
{
	for (size_t i = 0; i < n->npat; i++) {
		for (size_t j = 0; j < n->pat[i].nseg; j++)
			free(n->pat[i].seg[j]);
		free(n->pat[i].seg);
		free(n->pat[i].sets);
	}
	free(n->pat);
	n->pat = NULL;
	n->npat = 0;
}

/* One pattern for each group section with sets. */
static int
patterns_build(struct core *c)
{
	struct nftsets *n = c->nft;
	const struct policy *p = c->pol;

	for (size_t i = 0; i < p->nsettings; i++) {
		const struct group_conf *g = p->settings[i].conf;
		if (g->nnft == 0)
			continue;
		struct nft_pattern *v = realloc(n->pat, (n->npat + 1) * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		n->pat = v;
		struct nft_pattern *pat = memset(&v[n->npat++], 0, sizeof(*v));
		int rc = pattern_build(c, p->settings[i].hier, g, pat);
		if (rc == 0 && (pat->sets = calloc(g->nnft, sizeof(size_t))) == NULL)
			rc = -ENOMEM;
		for (size_t j = 0; rc == 0 && j < g->nnft; j++) {
			ssize_t s = set_index(n, g->nft[j]);
			if (s >= 0)
				pat->sets[pat->nsets++] = (size_t)s;
		}
		if (rc < 0)
			return rc; /* rc 1: no sets, it matches nothing */
	}
	return 0;
}

/* Does path (below the v2 root) match pattern p? */
static bool
pattern_match(const struct nft_pattern *p, const char *path)
{
	size_t j = 0;

	if (p->nsets == 0)
		return false;
	for (const char *s = path; *s;) {
		size_t n = strcspn(s, "/");
		if (n > 0) {
			if (j == p->nseg)
				return false;
			bool wild = strcmp(p->seg[j], "*") == 0;
			if ((wild && s[0] == '.') ||
			    (j == p->leaf_at && n == strlen(LAYOUT_DAEMON_LEAF) &&
			     memcmp(s, LAYOUT_DAEMON_LEAF, n) == 0))
				return false;
			if (!wild &&
			    (strlen(p->seg[j]) != n || memcmp(p->seg[j], s, n) != 0))
				return false;
			j++;
		}
		s += n + (s[n] == '/');
	}
	return j == p->nseg;
}

/* ---- members: the groups found, with their ids ---------------------------------------- */

static bool
member_is(const void *value, const void *probe)
{
	return strcmp(((const struct nft_member *)value)->path, probe) == 0;
}

static struct nft_member *
member_find(struct nftsets *n, const char *path)
{
	return map_find(&n->mem, map_hash_str(path), member_is, path);
}

/* The member for path (made if new), with id, found by this sync. */
static struct nft_member *
member_add(struct nftsets *n, const char *path, uint64_t id)
{
	bool fresh;
	struct nft_member *m =
		map_insert(&n->mem, map_hash_str(path), member_is, path, &fresh);

	if (m == NULL)
		return NULL;
	if (fresh && (m->path = strdup(path)) == NULL) {
		map_remove(&n->mem, m);
		return NULL;
	}
	m->id = id;
	m->gen = n->gen;
	return m;
}

static void
member_drop(struct nftsets *n, struct nft_member *m)
{
	char *path = m->path;

	map_remove(&n->mem, m);
	free(path);
}

/* Does group path belong in set s (a pattern naming s matches it)? */
static bool
wanted_in(const struct nftsets *n, size_t s, const char *path)
{
	for (size_t i = 0; i < n->npat; i++) {
		const struct nft_pattern *p = &n->pat[i];
		for (size_t j = 0; j < p->nsets; j++)
			if (p->sets[j] == s && pattern_match(p, path))
				return true;
	}
	return false;
}

/* ---- one group made or removed ---------------------------------------------------------- */

/* Add id (or delete it, add false) in every set of the patterns path matches. */
static void
change_sets(struct core *c, const char *path, uint64_t id, bool add)
{
	struct nftsets *n = c->nft;
	const struct backend_nft *ops = c->env.nft;

	for (size_t s = 0; s < n->nsets; s++) {
		struct nft_set *set = &n->sets[s];
		if (!set->configured || !wanted_in(n, s, path))
			continue;
		int rc = add ? ops->add(ops->arg, &set->ref, &id, 1)
			     : ops->del(ops->arg, &set->ref, &id, 1);
		if (add && rc == 0) {
			set->missing = false;
			set_remember(set, id);
			log_info("nft set %s: added unified:%s (id %llu)", set->name,
				 path, (unsigned long long)id);
		} else if (!add && (rc == 0 || rc == -ENOENT)) {
			set_forget(set, id);
			if (rc == 0)
				log_info("nft set %s: deleted unified:%s (id %llu)",
					 set->name, path, (unsigned long long)id);
		} else {
			char what[RULES_DEST_MAX + 64];
			snprintf(what, sizeof(what), "%s unified:%s",
				 add ? "add" : "delete", path);
			set_failed(set, what, rc);
		}
	}
}

static bool
matches_any(const struct nftsets *n, const char *path)
{
	for (size_t i = 0; i < n->npat; i++)
		if (pattern_match(&n->pat[i], path))
			return true;
	return false;
}

void
nftsets_made(struct core *c, const struct hier *h, const char *path)
{
	struct nftsets *n = c->nft;
	const struct backend *fs = c->env.cgfs;
	uint64_t id;

	if (n == NULL || n->npat == 0 || h->version != HIER_V2 || fs->ids.id == NULL ||
	    !matches_any(n, path))
		return;
	int rc = backend_id(fs, h, path, &id);
	if (rc == -EINPROGRESS)
		return; /* the backend says when it is made: core_group_made */
	if (rc < 0) {
		log_warning("cannot read the id of unified:%s: %s", path, strerror(-rc));
		return;
	}
	n->h = h;
	struct nft_member *m = member_find(n, path);
	if (m != NULL && m->id == id) {
		m->gen = n->gen; /* there: a sync in progress keeps it */
		return;
	}
	if (m != NULL) { /* made again behind our back: a new id */
		change_sets(c, path, m->id, false);
		m->id = id;
	} else if (member_add(n, path, id) == NULL) {
		log_error("out of memory: unified:%s is not added to its nft sets", path);
		return;
	}
	change_sets(c, path, id, true);
}

void
nftsets_removed(struct core *c, const struct hier *h, const char *path)
{
	struct nftsets *n = c->nft;
	struct nft_member *m =
		n != NULL && h->version == HIER_V2 ? member_find(n, path) : NULL;

	if (m == NULL)
		return;
	change_sets(c, path, m->id, false);
	member_drop(n, m);
}

/* ---- re-synchronising: the walk, a step at a time --------------------------------------- */

/* Push path/name (name NULL: path itself) for segment j of pattern pat. */
static void
todo_push(struct nftsets *n, size_t pat, size_t j, const char *path, const char *name)
{
	char sub[RULES_DEST_MAX];

	if (name != NULL) {
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, name) >=
		    sizeof(sub))
			return;
		path = sub;
	}
	if (n->ntodo == n->captodo) {
		size_t cap = n->captodo ? 2 * n->captodo : 64;
		struct nft_todo *v = realloc(n->todo, cap * sizeof(*v));
		if (v == NULL)
			return; /* missed: the sweep keeps nothing it did not see */
		n->todo = v;
		n->captodo = cap;
	}
	char *copy = strdup(path);
	if (copy != NULL)
		n->todo[n->ntodo++] =
			(struct nft_todo){ .pat = pat, .j = j, .path = copy };
}

static void
todo_clear(struct nftsets *n)
{
	while (n->ntodo > 0)
		free(n->todo[--n->ntodo].path);
}

struct listing {
	struct nftsets *n;
	const struct nft_todo *t;
	unsigned children;
};

static int
todo_child(void *arg, const char *name)
{
	struct listing *l = arg;
	const struct nft_pattern *p = &l->n->pat[l->t->pat];

	if (name[0] == '.' ||
	    (l->t->j == p->leaf_at && strcmp(name, LAYOUT_DAEMON_LEAF) == 0))
		return 0;
	todo_push(l->n, l->t->pat, l->t->j + 1, l->t->path, name);
	l->children++;
	return 0;
}

/* Look at one directory of the walk: a group of the pattern (its id
 * recorded), or the next level pushed.  Its cost in units. */
static unsigned
walk_one(struct core *c, const struct nft_todo *t)
{
	struct nftsets *n = c->nft;
	const struct nft_pattern *p = &n->pat[t->pat];
	const struct backend *fs = c->env.cgfs;
	uint64_t id;

	if (t->j == p->nseg) {
		if (backend_id(fs, n->h, t->path, &id) == 0) /* else not there */
			(void)member_add(n, t->path, id);
		return 1;
	}
	if (strcmp(p->seg[t->j], "*") != 0) {
		if (t->j != p->leaf_at || strcmp(p->seg[t->j], LAYOUT_DAEMON_LEAF) != 0)
			todo_push(n, t->pat, t->j + 1, t->path, p->seg[t->j]);
		return 1;
	}
	struct listing l = { n, t, 0 };
	if (fs->look.children != NULL)
		(void)backend_children(fs, n->h, t->path, todo_child, &l);
	return 1 + l.children / NFT_UNIT;
}

/* Drop the members the walk did not find (their groups are gone). */
static unsigned
sweep(struct nftsets *n)
{
	size_t k = 0, cursor = 0, count = map_count(&n->mem);
	char **gone = calloc(count + 1, sizeof(*gone));
	struct nft_member *m;

	if (gone == NULL)
		return 1; /* kept until the next sync */
	while ((m = map_next(&n->mem, &cursor)) != NULL)
		if (m->gen != n->gen)
			gone[k++] = m->path;
	for (size_t i = 0; i < k; i++)
		if ((m = member_find(n, gone[i])) != NULL)
			member_drop(n, m);
	free(gone);
	return 1 + (unsigned)(count / NFT_UNIT);
}

static int
cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool
sorted_has(const uint64_t *v, size_t n, uint64_t id)
{
	return n > 0 && bsearch(&id, v, n, sizeof(*v), cmp_id) != NULL;
}

/* The ids of the members that belong in set s, sorted, without
 * duplicates, in a new array (NULL: out of memory). */
static uint64_t *
wanted_ids(const struct nftsets *n, size_t s, size_t *count)
{
	uint64_t *v = malloc((map_count(&n->mem) + 1) * sizeof(*v));
	const struct nft_member *m;
	size_t k = 0, cursor = 0;

	if (v == NULL)
		return NULL;
	while (n->sets[s].configured && (m = map_next(&n->mem, &cursor)) != NULL)
		if (wanted_in(n, s, m->path))
			v[k++] = m->id;
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_id);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || v[u - 1] != v[i])
			v[u++] = v[i];
	*count = u;
	return v;
}

/* Make the ids the daemon put in set s exactly want[0..n). */
static void
set_replace(struct nft_set *set, const uint64_t *want, size_t n)
{
	map_free(&set->ids);
	map_init(&set->ids, sizeof(uint64_t));
	for (size_t i = 0; i < n; i++)
		set_remember(set, want[i]);
}

/* Bring set s in line: add the members' ids it lacks, delete the ids
 * the daemon put there that are no longer wanted, and those of groups
 * that no longer exist.  Sorted lists and hash look-ups, so a big set
 * costs n log n.  Its cost in units. */
static unsigned
sync_set(struct core *c, size_t s)
{
	struct nftsets *n = c->nft;
	struct nft_set *set = &n->sets[s];
	const struct backend_nft *ops = c->env.nft;
	const struct backend *fs = c->env.cgfs;
	uint64_t *have, *want = NULL, *add = NULL, *del = NULL;
	size_t nhave, nwant = 0, nadd = 0, ndel = 0;
	int rc = ops->list(ops->arg, &set->ref, &have, &nhave);

	if (rc < 0) {
		set_failed(set, "list it", rc);
		set_replace(set, NULL, 0); /* nothing of ours is there */
		return 1;
	}
	if (set->missing)
		log_notice("nft set %s: found", set->name);
	set->missing = false;
	want = wanted_ids(n, s, &nwant);
	add = malloc((nwant + 1) * sizeof(*add));
	del = malloc((nhave + 1) * sizeof(*del));
	if (want == NULL || add == NULL || del == NULL)
		goto out;
	if (nhave > 1)
		qsort(have, nhave, sizeof(*have), cmp_id);
	for (size_t i = 0; i < nwant; i++)
		if (!sorted_has(have, nhave, want[i]))
			add[nadd++] = want[i];
	unsigned checks = 0;
	for (size_t i = 0; i < nhave; i++) {
		if (sorted_has(want, nwant, have[i]) || (i > 0 && have[i] == have[i - 1]))
			continue;
		if (set_has(set, have[i]) ||
		    map_find(&n->gone, have[i], NULL, NULL) != NULL ||
		    (set->configured && fs->ids.id_live != NULL && n->h != NULL &&
		     checks++ < NFT_LIVE_CHECKS &&
		     backend_id_live(fs, n->h, have[i]) == 0))
			del[ndel++] = have[i];
	}
	if (checks > NFT_LIVE_CHECKS)
		log_info(
			"nft set %s: %u ids of others not checked this time (at most %d per "
			"sync)",
			set->name, checks - NFT_LIVE_CHECKS, NFT_LIVE_CHECKS);
	if (nadd > 0 && (rc = ops->add(ops->arg, &set->ref, add, nadd)) < 0)
		set_failed(set, "add group ids", rc);
	if (ndel > 0 && (rc = ops->del(ops->arg, &set->ref, del, ndel)) < 0)
		set_failed(set, "delete group ids", rc);
	if (nadd > 0 || ndel > 0)
		log_notice("nft set %s: %zu group id%s added, %zu deleted", set->name,
			   nadd, nadd == 1 ? "" : "s", ndel);
	set_replace(set, want, nwant); /* what is ours there now: the wanted ones */
out:
	free(want);
	free(add);
	free(del);
	free(have);
	return 1 + (unsigned)((nhave + nwant) / NFT_UNIT);
}

/* Drop set s (no pattern names it), and renumber the later sets in
 * the patterns. */
static void
set_drop(struct nftsets *n, size_t s)
{
	map_free(&n->sets[s].ids);
	memmove(&n->sets[s], &n->sets[s + 1], (n->nsets - s - 1) * sizeof(*n->sets));
	n->nsets--;
	for (size_t i = 0; i < n->npat; i++)
		for (size_t j = 0; j < n->pat[i].nsets; j++)
			if (n->pat[i].sets[j] > s)
				n->pat[i].sets[j]--;
}

/* The sync is done: sets no longer named are empty of our ids now:
 * forget them, keeping the order, since the patterns name sets by index. */
static void
sync_done(struct nftsets *n)
{
	for (size_t s = n->nsets; s-- > 0;)
		if (!n->sets[s].configured)
			set_drop(n, s);
	n->syncing = false;
	map_free(&n->gone); /* deleted where they were, or never there */
	map_init(&n->gone, sizeof(uint64_t));
}

void
nftsets_gone(struct core *c, uint64_t id)
{
	struct nftsets *n = c->nft;
	bool fresh;
	uint64_t *v = n != NULL && n->nsets > 0
			      ? map_insert(&n->gone, id, NULL, NULL, &fresh)
			      : NULL;

	if (v != NULL)
		*v = id;
}

/* One step of the sync in progress: at most about NFT_STEP units. */
static void
sync_step(struct core *c)
{
	struct nftsets *n = c->nft;
	unsigned used = 0;

	while (n->syncing && used < NFT_STEP) {
		if (n->ntodo > 0) {
			struct nft_todo t = n->todo[--n->ntodo];
			used += walk_one(c, &t);
			free(t.path);
		} else if (n->next_pat < n->npat) {
			size_t i = n->next_pat++;
			if (n->pat[i].nsets > 0) /* else its groups go in no set */
				todo_push(n, i, 0, "", NULL);
		} else if (!n->swept) {
			used += sweep(n);
			n->swept = true;
		} else if (n->next_set < n->nsets) {
			used += sync_set(c, n->next_set++);
		} else {
			sync_done(n);
		}
	}
}

void
nftsets_sync(struct core *c)
{
	struct nftsets *n = c->nft;

	if (n == NULL || (n->npat == 0 && n->nsets == 0))
		return;
	n->sync_at = 0;
	n->h = c->pol->v2;
	for (size_t i = 0; n->h == NULL && i < c->pol->n; i++)
		if (c->pol->managed[i]->version == HIER_V2)
			n->h = c->pol->managed[i];
	todo_clear(n);
	n->syncing = true;
	n->gen++;
	/* nothing to walk without a v2 tree whose ids can be read */
	n->next_pat = n->h != NULL && c->env.cgfs->ids.id != NULL ? 0 : n->npat;
	n->swept = false;
	n->next_set = 0;
	sync_step(c);
}

void
nftsets_timeout(struct core *c, double now)
{
	struct nftsets *n = c->nft;

	if (n == NULL)
		return;
	if (n->syncing)
		sync_step(c);
	else if (n->sync_at > 0 && now >= n->sync_at)
		nftsets_sync(c);
}

/* ---- life cycle --------------------------------------------------------------------------- */

int
nftsets_new(struct core *c)
{
	struct nftsets *n = calloc(1, sizeof(*n));

	if (n == NULL)
		return -ENOMEM;
	map_init(&n->mem, sizeof(struct nft_member));
	map_init(&n->gone, sizeof(uint64_t));
	c->nft = n;
	if (c->env.nft == NULL)
		c->env.nft = &none;
	return 0;
}

int
nftsets_policy(struct core *c)
{
	struct nftsets *n = c->nft;

	todo_clear(n); /* a sync in progress walked the old patterns */
	n->syncing = false;
	patterns_free(n);
	for (size_t s = 0; s < n->nsets; s++)
		n->sets[s].configured = false;
	int rc = patterns_build(c);
	if (rc < 0)
		log_error("out of memory: nft sets are not kept");
	return rc;
}

void
nftsets_free(struct core *c)
{
	struct nftsets *n = c->nft;

	if (n == NULL)
		return;
	patterns_free(n);
	for (size_t s = 0; s < n->nsets; s++)
		map_free(&n->sets[s].ids);
	free(n->sets);
	struct nft_member *m;
	size_t cursor = 0;
	while ((m = map_next(&n->mem, &cursor)) != NULL)
		free(m->path);
	map_free(&n->mem);
	map_free(&n->gone);
	todo_clear(n);
	free(n->todo);
	free(n);
	c->nft = NULL;
}

double
nftsets_deadline(const struct core *c, double now)
{
	(void)now; /* a step due at once is due at c->now, the time of the last call */
	if (c->nft == NULL)
		return 0;
	if (c->nft->syncing) /* the next step: as soon as the loop has looked around */
		return c->now > 0 ? c->now : 1e-9;
	return c->nft->sync_at;
}

/* ---- what the loop and explain see ----------------------------------------------------------- */

bool
core_nft_wanted(const struct core *c)
{
	return c->nft != NULL && c->nft->nsets > 0;
}

uint32_t
core_nft_self(const struct core *c)
{
	const struct backend_nft *ops = c->env.nft;

	return ops != NULL && ops->self != NULL ? ops->self(ops->arg) : 0;
}

bool
core_nft_names(const struct core *c, const struct nftset_ref *r)
{
	const struct nftsets *n = c->nft;

	for (size_t s = 0; n != NULL && s < n->nsets; s++)
		if (n->sets[s].ref.family == r->family &&
		    strcmp(n->sets[s].ref.table, r->table) == 0 &&
		    strcmp(n->sets[s].ref.set, r->set) == 0)
			return true;
	return false;
}

void
core_nft_changed(struct core *c, double now)
{
	if (c->nft != NULL && c->nft->nsets > 0 && c->nft->sync_at == 0)
		c->nft->sync_at = now + NFT_SETTLE;
}

bool
core_nft_syncing(const struct core *c)
{
	return c->nft != NULL && c->nft->syncing;
}

void
core_nft_each_set(const struct core *c,
		  void (*fn)(void *arg, const struct core_nft_set_info *s), void *arg)
{
	const struct nftsets *n = c->nft;

	for (size_t s = 0; n != NULL && s < n->nsets; s++) {
		const struct nft_set *set = &n->sets[s];
		struct core_nft_set_info info = { .ref = &set->ref,
						  .ids = map_count(&set->ids),
						  .configured = set->configured,
						  .missing = set->missing };
		fn(arg, &info);
	}
}

int
core_nft_set_groups(const struct core *c, const struct nftset_ref *r,
		    void (*fn)(void *arg, const char *group, uint64_t id), void *arg)
{
	const struct nftsets *n = c->nft;
	const struct nft_member *m;
	size_t s, cursor = 0;

	for (s = 0; n != NULL && s < n->nsets; s++)
		if (n->sets[s].ref.family == r->family &&
		    strcmp(n->sets[s].ref.table, r->table) == 0 &&
		    strcmp(n->sets[s].ref.set, r->set) == 0)
			break;
	if (n == NULL || s == n->nsets)
		return -ENOENT;
	while ((m = map_next(&n->mem, &cursor)) != NULL)
		if (set_has(&n->sets[s], m->id) && wanted_in(n, s, m->path))
			fn(arg, m->path, m->id);
	return 0;
}

void
core_nft_sets_of(const struct core *c, const char *path,
		 void (*fn)(void *arg, const struct nftset_ref *set, const char *group,
			    unsigned level),
		 void *arg)
{
	const struct nftsets *n = c->nft;
	char prefix[RULES_DEST_MAX];
	unsigned level = 0;

	if (n == NULL)
		return;
	for (const char *s = path; *s;) {
		size_t len = strcspn(s, "/");
		s += len;
		if (len > 0) {
			level++;
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(s - path), path);
			for (size_t i = 0; i < n->npat; i++) {
				if (!pattern_match(&n->pat[i], prefix))
					continue;
				for (size_t j = 0; j < n->pat[i].nsets; j++)
					fn(arg, &n->sets[n->pat[i].sets[j]].ref, prefix,
					   level);
			}
		}
		s += *s == '/';
	}
}
