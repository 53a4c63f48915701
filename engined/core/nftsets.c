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
 * longer names is emptied of them.
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

struct nft_pattern {
	char **seg; /* segments below the v2 root; a wildcard is "*" */
	size_t nseg;
	size_t leaf_at; /* a wildcard here never matches the daemon's leaf (or SIZE_MAX) */
	const struct group_conf *g;
	size_t *sets; /* indexes into nftsets.sets */
	size_t nsets;
};

struct nft_set {
	struct nftset_ref ref;
	char name[3 * NFTSET_NAME_MAX];
	uint64_t *ids; /* what the daemon put there */
	size_t n, cap;
	bool configured; /* named by the current policy */
	bool missing;	 /* logged as missing, until it is found */
};

struct nft_member {
	char *path; /* below the v2 root */
	uint64_t id;
	bool seen; /* found by the current walk */
};

struct nftsets {
	struct nft_pattern *pat;
	size_t npat;
	struct nft_set *sets;
	size_t nsets;
	struct nft_member *mem;
	size_t nmem, capmem;
	const struct hier *h; /* the v2 hierarchy the patterns are in */
	struct core_nft real;
	struct nftset_conn *conn; /* for real: opened when first needed */
	bool conn_logged;
	double sync_at;
};

/* ---- the kernel's sets, through libnftnl ------------------------------------ */

static int
conn_get(struct nftsets *n, struct nftset_conn **out)
{
	int rc = 0;

	if (n->conn == NULL && (rc = nftset_open(&n->conn)) < 0) {
		if (!n->conn_logged)
			log_error("cannot talk to nftables: %s", strerror(-rc));
		n->conn_logged = true;
		return rc;
	}
	n->conn_logged = false;
	*out = n->conn;
	return 0;
}

static int
real_add(void *arg, const struct nftset_ref *s, const uint64_t *ids, size_t k)
{
	struct nftset_conn *conn;
	int rc = conn_get(arg, &conn);

	return rc < 0 ? rc : nftset_add(conn, s, ids, k);
}

static int
real_del(void *arg, const struct nftset_ref *s, const uint64_t *ids, size_t k)
{
	struct nftset_conn *conn;
	int rc = conn_get(arg, &conn);

	return rc < 0 ? rc : nftset_del(conn, s, ids, k);
}

static int
real_list(void *arg, const struct nftset_ref *s, uint64_t **ids, size_t *k)
{
	struct nftset_conn *conn;
	int rc = conn_get(arg, &conn);

	return rc < 0 ? rc : nftset_list(conn, s, ids, k);
}

/* ---- small helpers ----------------------------------------------------------------- */

static bool
ids_has(const uint64_t *v, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == id)
			return true;
	return false;
}

static void
set_forget(struct nft_set *s, uint64_t id)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->ids[i] == id) {
			s->ids[i] = s->ids[--s->n];
			return;
		}
}

static void
set_remember(struct nft_set *s, uint64_t id)
{
	if (ids_has(s->ids, s->n, id))
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		uint64_t *v = realloc(s->ids, cap * sizeof(*v));
		if (v == NULL)
			return; /* forgotten: the next sync finds it in the set */
		s->ids = v;
		s->cap = cap;
	}
	s->ids[s->n++] = id;
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
		if (outer > 0 && p->uroot_own)
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
			if (wild &&
			    (s[0] == '.' ||
			     (j == p->leaf_at && n == strlen(LAYOUT_DAEMON_LEAF) &&
			      memcmp(s, LAYOUT_DAEMON_LEAF, n) == 0)))
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

static struct nft_member *
member_find(struct nftsets *n, const char *path)
{
	for (size_t i = 0; i < n->nmem; i++)
		if (strcmp(n->mem[i].path, path) == 0)
			return &n->mem[i];
	return NULL;
}

static struct nft_member *
member_add(struct nftsets *n, const char *path, uint64_t id)
{
	if (n->nmem == n->capmem) {
		size_t cap = n->capmem ? 2 * n->capmem : 16;
		struct nft_member *v = realloc(n->mem, cap * sizeof(*v));
		if (v == NULL)
			return NULL;
		n->mem = v;
		n->capmem = cap;
	}
	struct nft_member *m = &n->mem[n->nmem];
	if ((m->path = strdup(path)) == NULL)
		return NULL;
	m->id = id;
	m->seen = true;
	n->nmem++;
	return m;
}

static void
member_drop(struct nftsets *n, struct nft_member *m)
{
	free(m->path);
	*m = n->mem[--n->nmem];
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
	const struct core_nft *ops = c->env.nft;

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
	const struct core_cgfs *fs = c->env.cgfs;
	uint64_t id;

	if (n == NULL || n->npat == 0 || h->version != HIER_V2 || fs->id == NULL ||
	    !matches_any(n, path))
		return;
	int rc = fs->id(fs->arg, h, path, &id);
	if (rc < 0) {
		log_warning("cannot read the id of unified:%s: %s", path, strerror(-rc));
		return;
	}
	n->h = h;
	struct nft_member *m = member_find(n, path);
	if (m != NULL && m->id == id)
		return;
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

/* ---- re-synchronising ------------------------------------------------------------------ */

struct walk {
	struct core *c;
	const struct nft_pattern *p;
	size_t j; /* the segment to match next */
	char *path;
};

static void walk(struct core *c, const struct nft_pattern *p, size_t j, char *path);

static int
walk_child(void *arg, const char *name)
{
	const struct walk *w = arg;
	char sub[RULES_DEST_MAX];

	if (name[0] == '.' ||
	    (w->j == w->p->leaf_at && strcmp(name, LAYOUT_DAEMON_LEAF) == 0))
		return 0;
	if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", w->path, name) < sizeof(sub))
		walk(w->c, w->p, w->j + 1, sub);
	return 0;
}

/* Find the groups of pattern p from segment j on below path. */
static void
walk(struct core *c, const struct nft_pattern *p, size_t j, char *path)
{
	struct nftsets *n = c->nft;
	const struct core_cgfs *fs = c->env.cgfs;
	char sub[RULES_DEST_MAX];
	uint64_t id;

	if (j == p->nseg) {
		if (fs->id(fs->arg, n->h, path, &id) < 0)
			return; /* not there */
		struct nft_member *m = member_find(n, path);
		if (m == NULL)
			(void)member_add(n, path, id);
		else
			m->id = id, m->seen = true;
		return;
	}
	if (strcmp(p->seg[j], "*") == 0) {
		struct walk w = { c, p, j, path };
		if (fs->children != NULL)
			(void)fs->children(fs->arg, n->h, path, walk_child, &w);
		return;
	}
	if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, p->seg[j]) < sizeof(sub))
		walk(c, p, j + 1, sub);
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
	uint64_t *v = malloc((n->nmem + 1) * sizeof(*v));
	size_t k = 0;

	if (v == NULL)
		return NULL;
	for (size_t i = 0; n->sets[s].configured && i < n->nmem; i++)
		if (wanted_in(n, s, n->mem[i].path))
			v[k++] = n->mem[i].id;
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_id);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || v[u - 1] != v[i])
			v[u++] = v[i];
	*count = u;
	return v;
}

/* Bring set s in line: add the members' ids it lacks, delete the ids
 * the daemon put there that are no longer wanted, and those of groups
 * that no longer exist.  Sorted lists, so a big set costs n log n. */
static void
sync_set(struct core *c, size_t s)
{
	struct nftsets *n = c->nft;
	struct nft_set *set = &n->sets[s];
	const struct core_nft *ops = c->env.nft;
	const struct core_cgfs *fs = c->env.cgfs;
	uint64_t *have, *want = NULL, *add = NULL, *del = NULL;
	size_t nhave, nwant = 0, nadd = 0, ndel = 0;
	int rc = ops->list(ops->arg, &set->ref, &have, &nhave);

	if (rc < 0) {
		set_failed(set, "list it", rc);
		set->n = 0; /* nothing of ours is there */
		return;
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
	if (set->n > 1)
		qsort(set->ids, set->n, sizeof(*set->ids), cmp_id);
	for (size_t i = 0; i < nwant; i++)
		if (!sorted_has(have, nhave, want[i]))
			add[nadd++] = want[i];
	unsigned checks = 0;
	for (size_t i = 0; i < nhave; i++) {
		if (sorted_has(want, nwant, have[i]) || (i > 0 && have[i] == have[i - 1]))
			continue;
		if (sorted_has(set->ids, set->n, have[i]) ||
		    (set->configured && fs->id_live != NULL && n->h != NULL &&
		     checks++ < NFT_LIVE_CHECKS &&
		     fs->id_live(fs->arg, n->h, have[i]) == 0))
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
	free(set->ids); /* what is ours there now: the wanted ones */
	set->ids = want;
	set->n = set->cap = nwant;
	want = NULL;
out:
	free(want);
	free(add);
	free(del);
	free(have);
}

/* Drop set s (no pattern names it), and renumber the later sets in
 * the patterns. */
static void
set_drop(struct nftsets *n, size_t s)
{
	free(n->sets[s].ids);
	memmove(&n->sets[s], &n->sets[s + 1], (n->nsets - s - 1) * sizeof(*n->sets));
	n->nsets--;
	for (size_t i = 0; i < n->npat; i++)
		for (size_t j = 0; j < n->pat[i].nsets; j++)
			if (n->pat[i].sets[j] > s)
				n->pat[i].sets[j]--;
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
	for (size_t i = 0; i < n->nmem; i++)
		n->mem[i].seen = false;
	for (size_t i = 0; n->h != NULL && c->env.cgfs->id != NULL && i < n->npat; i++) {
		char root[RULES_DEST_MAX] = "";
		walk(c, &n->pat[i], 0, root);
	}
	for (size_t i = 0; i < n->nmem;)
		if (!n->mem[i].seen)
			member_drop(n, &n->mem[i]);
		else
			i++;
	for (size_t s = 0; s < n->nsets; s++)
		sync_set(c, s);
	/* sets no longer named are empty of our ids now: forget them,
	 * keeping the order, since the patterns name sets by index */
	for (size_t s = n->nsets; s-- > 0;)
		if (!n->sets[s].configured)
			set_drop(n, s);
}

/* ---- life cycle --------------------------------------------------------------------------- */

int
nftsets_new(struct core *c)
{
	struct nftsets *n = calloc(1, sizeof(*n));

	if (n == NULL)
		return -ENOMEM;
	c->nft = n;
	if (c->env.nft == NULL) {
		n->real = (struct core_nft){
			.add = real_add, .del = real_del, .list = real_list, .arg = n
		};
		c->env.nft = &n->real;
	}
	return 0;
}

int
nftsets_policy(struct core *c)
{
	struct nftsets *n = c->nft;

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
		free(n->sets[s].ids);
	free(n->sets);
	while (n->nmem > 0)
		member_drop(n, &n->mem[n->nmem - 1]);
	free(n->mem);
	nftset_close(n->conn);
	free(n);
	c->nft = NULL;
}

double
nftsets_deadline(const struct core *c)
{
	return c->nft != NULL ? c->nft->sync_at : 0;
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
	return c->nft != NULL ? nftset_portid(c->nft->conn) : 0;
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
