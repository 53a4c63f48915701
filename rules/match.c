/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * match.c -- bind a rule set to hierarchies and decide for a task.
 *
 * The candidates for a task are the rules filed under its euid, its
 * egid (and, per-hierarchy, its supplementary groups), and "*", each
 * combined with "any process" and with the task's exact names and
 * paths.  These sorted lists are merged in file order, so the first
 * match is found without looking at rules that cannot apply.
 *
 * A rule is its first line and the '%' lines after it.  An ignore rule
 * never moves anything (see RULES_OPT_IGNORE); any other rule applies
 * its lines in turn, so a later line overrides an earlier one for the
 * same hierarchy, as libcgroup does.
 */
#include "rules_private.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* Does controller token tok (length n) name hierarchy h? */
static bool
names_hier(const char *tok, size_t n, const char *h)
{
	return (n == 1 && tok[0] == '*') || str_list_has(h, tok, n);
}

int
rules_bind(struct rules_set *set, const char *const *hiers, size_t n)
{
	if (n > RULES_MAX_HIERS)
		return -E2BIG;
	set->nhiers = n;
	set->named = 0;
	for (size_t i = 0; i < set->n; i++) {
		struct rules_rule *r = &set->rules[i];
		const char *s = r->controllers;

		r->mask = 0;
		for (;;) {
			size_t len = strcspn(s, ",");

			for (size_t h = 0; h < n; h++)
				if (names_hier(s, len, hiers[h]))
					r->mask |= 1ull << h;
			if (s[len] == '\0')
				break;
			s += len + 1;
		}
		set->named |= r->mask;
	}
	return 0;
}

static bool
glob(const char *pat, const char *s)
{
	return s != NULL && fnmatch(pat, s, 0) == 0;
}

/* The name first-match compares: libcgroup's process name. */
static const char *
fm_name(const struct rules_task *t)
{
	return t->invoked != NULL ? t->invoked : t->exe;
}

bool
process_matches(const struct rules_rule *r, const struct rules_task *t,
		enum rules_semantics sem)
{
	const char *p = r->process;
	bool path = p != NULL && strchr(p, '/') != NULL;

	if (p == NULL)
		return true;
	if (sem == RULES_FIRST_MATCH) {
		const char *n = fm_name(t);

		if (n == NULL)
			return !path && glob(p, t->comm);
		return path ? glob(p, n) : glob(p, base_name(n));
	}
	if (path)
		return glob(p, t->exe) || glob(p, t->script) || glob(p, t->invoked);
	if (t->exe != NULL && glob(p, base_name(t->exe)))
		return true;
	if (t->script != NULL && glob(p, base_name(t->script)))
		return true;
	if (t->invoked != NULL && glob(p, base_name(t->invoked)))
		return true;
	return t->exe == NULL && glob(p, t->comm);
}

/* ---- candidate lists ------------------------------------------------------ */

/* The names and paths a task is looked up by. */
struct lookup {
	const char *name[4];
	const char *path[3];
	size_t nname, npath;
};

static void
add_name(const char **v, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(v[i], s) == 0)
			return;
	v[(*n)++] = s;
}

static void
add_file(struct lookup *lk, const char *file)
{
	if (file == NULL)
		return;
	add_name(lk->name, &lk->nname, base_name(file));
	add_name(lk->path, &lk->npath, file);
}

static void
make_lookup(const struct rules_set *set, const struct rules_task *t, struct lookup *lk)
{
	*lk = (struct lookup){ .nname = 0 };
	if (!set->need_process)
		return;
	if (set->semantics == RULES_FIRST_MATCH) {
		add_file(lk, fm_name(t));
	} else {
		add_file(lk, t->exe);
		add_file(lk, t->script);
		add_file(lk, t->invoked);
	}
	if (fm_name(t) == NULL && t->exe == NULL && t->comm != NULL)
		add_name(lk->name, &lk->nname, t->comm); /* a kernel thread */
}

typedef void (*list_fn)(void *arg, const struct rule_list *l);

static void
key_lists(const struct rules_set *set, int kind, uint32_t id, const struct lookup *lk,
	  list_fn fn, void *arg)
{
	const struct rules_index *ix = set->index;
	const struct rule_list *l;

	if ((l = index_get(ix, kind, IDX_GENERAL, id, NULL)) != NULL)
		fn(arg, l);
	for (size_t i = 0; i < lk->nname; i++)
		if ((l = index_get(ix, kind, IDX_NAME, id, lk->name[i])) != NULL)
			fn(arg, l);
	for (size_t i = 0; i < lk->npath; i++)
		if ((l = index_get(ix, kind, IDX_PATH, id, lk->path[i])) != NULL)
			fn(arg, l);
}

/*
 * Every list that may hold a rule for the task.  @group rules are filed
 * under the gid and under their members' uids; first-match (libcgroup)
 * looks at the egid and the member list, per-hierarchy also at the
 * supplementary groups.
 */
static void
each_list(const struct rules_set *set, const struct rules_task *t,
	  const struct lookup *lk, list_fn fn, void *arg)
{
	key_lists(set, RULES_KEY_USER, t->euid, lk, fn, arg);
	key_lists(set, RULES_KEY_GROUP, t->egid, lk, fn, arg);
	if (set->semantics == RULES_PER_HIERARCHY)
		for (size_t i = 0; i < t->ngroups; i++)
			if (t->groups[i] != t->egid)
				key_lists(set, RULES_KEY_GROUP, t->groups[i], lk, fn,
					  arg);
	key_lists(set, RULES_KEY_ANY, 0, lk, fn, arg);
}

/* ---- merging them in file order -------------------------------------------- */

size_t match_cursor_limit = SIZE_MAX;

/*
 * The lists are merged with one cursor each, kept in the set.  Should
 * there be no memory for as many cursors, the merge goes on without
 * them: each step then looks every list up again and takes the least
 * rule after the last one (slower, never wrong).
 */
struct merge {
	struct rules_set *set;
	const struct rules_task *t;
	const struct lookup *lk;
	size_t n;
	bool stateless;
	int64_t last; /* stateless: last rule returned, -1 before the first */
	uint32_t best;
};

static void
collect(void *arg, const struct rule_list *l)
{
	struct merge *m = arg;
	struct rules_set *set = m->set;

	if (m->stateless || l->n == 0)
		return;
	if (m->n == set->ncursors) {
		size_t cap = set->ncursors ? set->ncursors * 2 : 32;
		struct cursor *c = NULL;

		if (cap <= match_cursor_limit)
			c = realloc(set->cursors, cap * sizeof(*c));
		if (c == NULL) {
			m->stateless = true;
			return;
		}
		set->cursors = c;
		set->ncursors = cap;
	}
	set->cursors[m->n++] = (struct cursor){ .list = l };
}

static void
merge_start(struct merge *m, struct rules_set *set, const struct rules_task *t,
	    const struct lookup *lk)
{
	*m = (struct merge){ .set = set, .t = t, .lk = lk, .last = -1 };
	each_list(set, t, lk, collect, m);
}

/* Stateless step: the least rule in l after m->last. */
static void
successor(void *arg, const struct rule_list *l)
{
	struct merge *m = arg;
	uint32_t lo = 0, hi = l->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((int64_t)rule_list_at(l, mid) <= m->last)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < l->n && rule_list_at(l, lo) < m->best)
		m->best = rule_list_at(l, lo);
}

/* Next rule number in file order, each once; UINT32_MAX at the end. */
static uint32_t
merge_next(struct merge *m)
{
	struct cursor *c = m->set->cursors;
	uint32_t best = UINT32_MAX;

	if (m->stateless) {
		m->best = UINT32_MAX;
		each_list(m->set, m->t, m->lk, successor, m);
		if (m->best != UINT32_MAX)
			m->last = m->best;
		return m->best;
	}
	for (size_t i = 0; i < m->n; i++)
		if (c[i].pos < c[i].list->n && rule_list_at(c[i].list, c[i].pos) < best)
			best = rule_list_at(c[i].list, c[i].pos);
	for (size_t i = 0; i < m->n; i++)
		if (c[i].pos < c[i].list->n && rule_list_at(c[i].list, c[i].pos) == best)
			c[i].pos++;
	return best;
}

/* ---- ignore rules ---------------------------------------------------------------- */

/* Does the rule's ignore option cover this task's scheduling class? */
static bool
ignore_covers(unsigned opts, bool realtime)
{
	bool plain = opts & RULES_OPT_IGNORE, rt = opts & RULES_OPT_IGNORE_RT;

	if (plain && rt)
		return true;
	return plain ? !realtime : realtime;
}

/*
 * Per-hierarchy: is group path g the directory d or below it, by whole
 * components?  "/" and "*" cover every group.
 */
static bool
within(const char *g, const char *d)
{
	size_t n = strlen(d);

	while (n > 1 && d[n - 1] == '/')
		n--;
	if ((n == 1 && d[0] == '/') || strcmp(d, "/*") == 0)
		return true;
	return strncmp(g, d, n) == 0 && (g[n] == '\0' || g[n] == '/');
}

/*
 * First-match: libcgroup's comparison.  The destination, without its
 * leading '/', is a string prefix of the group ("a/b" covers "/a/b2");
 * with a trailing '/' it covers the group and what is below it ("a/"
 * covers "/a" and "/a/x", not "/a1"); "/" is the root group alone.
 */
static bool
fm_within(const char *g, const char *d)
{
	while (*d == '/')
		d++;
	size_t n = strlen(d);
	if (n == 0)
		return strcmp(g, "/") == 0;
	if (strcmp(g, "/") == 0)
		return false;
	while (*g == '/')
		g++;
	if (d[n - 1] != '/')
		return strncmp(g, d, n) == 0;
	while (n > 0 && d[n - 1] == '/')
		n--;
	return strncmp(g, d, n) == 0 && (g[n] == '\0' || g[n] == '/');
}

/* First-match: is one of the groups v[0..n-1] within dest? */
static bool
fm_any_within(const char *const *v, size_t n, const char *dest)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		if (v[i] != NULL && fm_within(v[i], dest))
			return true;
	return false;
}

/*
 * First-match: does ignore rule r hold the task?  As in libcgroup, the
 * rule's controllers do not matter: the task's group in any hierarchy
 * counts -- every bound one, and every v1 hierarchy of
 * /proc/PID/cgroup, bound or not -- and "*" stands for every group.
 */
static bool
fm_ignores(const struct rules_set *set, const struct rules_rule *r,
	   const struct rules_task *t)
{
	char dest[RULES_DEST_MAX];

	if (!ignore_covers(r->options, t->realtime))
		return false;
	if (strcmp(r->dest, "/*") == 0)
		return true;
	if (rules_expand(r->dest, t, set->key, dest, sizeof(dest)) < 0)
		return false;
	return fm_any_within(t->cgroups, set->nhiers, dest) ||
	       fm_any_within(t->v1groups, t->nv1groups, dest);
}

/* Per-hierarchy: does ignore rule r hold the task in hierarchy h? */
static bool
ph_ignores(const struct rules_set *set, const struct rules_rule *r, size_t h,
	   const struct rules_task *t)
{
	char dest[RULES_DEST_MAX];

	if (!ignore_covers(r->options, t->realtime))
		return false;
	if (t->cgroups == NULL || t->cgroups[h] == NULL)
		return false;
	if (rules_expand(r->dest, t, set->key, dest, sizeof(dest)) < 0)
		return false;
	return within(t->cgroups[h], dest);
}

static void
leave_alone(const struct rules_rule *r, struct rules_decision *d)
{
	d->rule = r; /* (not a literal: it would clear dest's 1 KiB) */
	d->move = d->create = false;
	d->dest[0] = '\0';
}

/* ---- deciding ------------------------------------------------------------------ */

/*
 * Line r of a (non-ignore) rule moves the task in hierarchy h.  A
 * missing destination is created per-hierarchy always; first-match
 * when expanding changed the text (a template or a '\' escape), which
 * is how libcgroup tells a template group it creates from a plain one.
 */
static void
decide_move(const struct rules_set *set, const struct rules_rule *r,
	    const struct rules_task *t, struct rules_decision *d)
{
	d->rule = r;
	d->move = false;
	d->create = false;
	if (rules_expand(r->dest, t, set->key, d->dest, sizeof(d->dest)) < 0) {
		d->dest[0] = '\0'; /* too long: leave alone rather than guess */
		return;
	}
	d->move = true;
	d->create =
		set->semantics == RULES_PER_HIERARCHY || strcmp(d->dest, r->dest) != 0;
}

/* Count a hit for each line of the rule at head that decided something. */
static void
count_hits(struct rules_set *set, uint32_t head, uint64_t done,
	   const struct rules_decision *out)
{
	for (uint32_t i = head; i < set->n && set->rules[i].head == head; i++)
		for (size_t h = 0; h < set->nhiers; h++)
			if ((done & (1ull << h)) && out[h].rule == &set->rules[i]) {
				set->rules[i].hits++;
				break;
			}
}

/*
 * Apply the lines of the rule at head, in turn, to the hierarchies in
 * open; a later line overrides an earlier one.  Returns those decided.
 */
static uint64_t
apply_rule(struct rules_set *set, uint32_t head, uint64_t open,
	   const struct rules_task *t, struct rules_decision *out)
{
	uint64_t done = 0;

	for (uint32_t i = head; i < set->n && set->rules[i].head == head; i++) {
		const struct rules_rule *r = &set->rules[i];
		uint64_t todo = r->mask & open;

		for (size_t h = 0; h < RULES_MAX_HIERS && (todo >> h) != 0; h++)
			if (todo & (1ull << h))
				decide_move(set, r, t, &out[h]);
		done |= todo;
	}
	count_hits(set, head, done, out);
	return done;
}

/* Per-hierarchy: ignore rule r holds the task where it already is. */
static uint64_t
apply_ignore(const struct rules_set *set, struct rules_rule *r, uint64_t open,
	     const struct rules_task *t, struct rules_decision *out)
{
	uint64_t todo = r->mask & open, done = 0;

	for (size_t h = 0; h < RULES_MAX_HIERS && (todo >> h) != 0; h++)
		if ((todo & (1ull << h)) && ph_ignores(set, r, h, t)) {
			leave_alone(r, &out[h]);
			done |= 1ull << h;
		}
	r->hits += done != 0;
	return done;
}

/* First-match: the first rule that matches (and holds) decides alone. */
static bool
first_match_step(struct rules_set *set, struct rules_rule *r, const struct rules_task *t,
		 struct rules_decision *out)
{
	uint32_t no = (uint32_t)(r - set->rules);

	if (r->options == 0) {
		apply_rule(set, no, ~0ull, t, out);
		return true;
	}
	if (!fm_ignores(set, r, t))
		return false; /* falls through to the next rule */
	for (size_t h = 0; h < set->nhiers; h++)
		if (r->mask & (1ull << h))
			leave_alone(r, &out[h]);
	r->hits++;
	return true;
}

void
rules_match(struct rules_set *set, const struct rules_task *t, struct rules_decision *out)
{
	struct lookup lk;
	struct merge m;
	uint64_t decided = 0;
	uint32_t no;

	for (size_t h = 0; h < set->nhiers; h++)
		leave_alone(NULL, &out[h]); /* no rule yet */
	make_lookup(set, t, &lk);
	merge_start(&m, set, t, &lk);

	while ((decided & set->named) != set->named &&
	       (no = merge_next(&m)) != UINT32_MAX) {
		struct rules_rule *r = &set->rules[no];

		if (r->continuation)
			continue; /* applied with its first line */
		if (r->pmode == PMODE_PATTERN && !process_matches(r, t, set->semantics))
			continue;
		if (set->semantics == RULES_FIRST_MATCH) {
			if (first_match_step(set, r, t, out))
				break;
			continue;
		}
		if (r->options != 0)
			decided |= apply_ignore(set, r, ~decided, t, out);
		else
			decided |= apply_rule(set, no, ~decided, t, out);
	}
}

size_t
rules_count(const struct rules_set *set)
{
	return set->n;
}

const struct rules_rule *
rules_get(const struct rules_set *set, size_t i)
{
	return i < set->n ? &set->rules[i] : NULL;
}

bool
rules_templated(const struct rules_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->rules[i].templated)
			return true;
	return false;
}

void
rules_set_key(struct rules_set *set, const unsigned char *key)
{
	memcpy(set->key, key, sizeof(set->key));
}

enum rules_semantics
rules_semantics(const struct rules_set *set)
{
	return set->semantics;
}

bool
rules_need_realtime(const struct rules_set *set)
{
	return set->need_rt;
}

bool
rules_need_process(const struct rules_set *set)
{
	return set->need_process || set->need_pname;
}

bool
rules_need_cgroups(const struct rules_set *set)
{
	return set->need_cgroups;
}

unsigned
rules_need_ids(const struct rules_set *set)
{
	return set->need_ids;
}
