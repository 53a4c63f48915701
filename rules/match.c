/*
 * match.c -- bind a rule set to hierarchies and decide for a task.
 *
 * The candidates for a task are the rules filed under its euid, its
 * egid and supplementary groups, and "*", each combined with "any
 * process" and with the task's exact names and paths.  These sorted
 * lists are merged in file order, so the first match is found without
 * looking at rules that cannot apply.
 */
#include "rules_private.h"

#include <errno.h>
#include <fnmatch.h>
#include <string.h>

/* Does controller token tok (length n) name hierarchy h? */
static bool
names_hier(const char *tok, size_t n, const char *h)
{
	if (n == 1 && tok[0] == '*')
		return true;
	for (;;) {
		size_t m = strcspn(h, ",");

		if (m == n && strncmp(tok, h, n) == 0)
			return true;
		if (h[m] == '\0')
			return false;
		h += m + 1;
	}
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

bool
process_matches(const struct rules_rule *r, const struct rules_task *t)
{
	const char *p = r->process;

	if (p == NULL)
		return true;
	if (strchr(p, '/') != NULL)
		return glob(p, t->exe) || glob(p, t->script);
	if (t->exe != NULL && glob(p, base_name(t->exe)))
		return true;
	if (t->script != NULL && glob(p, base_name(t->script)))
		return true;
	return t->exe == NULL && glob(p, t->comm);
}

#define MAX_LISTS 256

struct cursor {
	const struct rule_list *list;
	uint32_t pos;
};

struct merge {
	struct cursor c[MAX_LISTS];
	size_t n;
};

static void
add_list(struct merge *m, const struct rule_list *l)
{
	if (l != NULL && l->n > 0 && m->n < MAX_LISTS)
		m->c[m->n++] = (struct cursor){ .list = l };
}

/* Gather the lists for one key (kind, id). */
static void
add_key(struct merge *m, const struct rules_set *set, int kind, uint32_t id,
	const struct rules_task *t)
{
	const struct rules_index *ix = set->index;

	add_list(m, index_get(ix, kind, IDX_GENERAL, id, NULL));
	if (!set->need_process)
		return;
	if (t->exe != NULL) {
		add_list(m, index_get(ix, kind, IDX_NAME, id, base_name(t->exe)));
		add_list(m, index_get(ix, kind, IDX_PATH, id, t->exe));
	} else if (t->comm != NULL) {
		add_list(m, index_get(ix, kind, IDX_NAME, id, t->comm));
	}
	if (t->script != NULL) {
		add_list(m, index_get(ix, kind, IDX_NAME, id, base_name(t->script)));
		add_list(m, index_get(ix, kind, IDX_PATH, id, t->script));
	}
}

/* Next rule number in file order, each once; UINT32_MAX at the end. */
static uint32_t
merge_next(struct merge *m)
{
	uint32_t best = UINT32_MAX;

	for (size_t i = 0; i < m->n; i++) {
		const struct cursor *c = &m->c[i];

		if (c->pos < c->list->n && c->list->v[c->pos] < best)
			best = c->list->v[c->pos];
	}
	for (size_t i = 0; i < m->n; i++) {
		struct cursor *c = &m->c[i];

		if (c->pos < c->list->n && c->list->v[c->pos] == best)
			c->pos++;
	}
	return best;
}

/* Is group path g the directory d or below it? */
static bool
within(const char *g, const char *d)
{
	size_t n = strlen(d);

	while (n > 1 && d[n - 1] == '/')
		n--;
	if (n == 1 && d[0] == '/')
		return true;
	return strncmp(g, d, n) == 0 && (g[n] == '\0' || g[n] == '/');
}

/* Let rule r decide hierarchy h for task t. */
static void
decide(const struct rules_rule *r, size_t h, const struct rules_task *t,
       struct rules_decision *d)
{
	d->rule = r;
	d->move = false;
	d->dest[0] = '\0';
	if ((r->options & RULES_OPT_IGNORE_RT) && t->realtime)
		return;
	if (rules_expand(r->dest, t, d->dest, sizeof(d->dest)) < 0)
		return; /* too long: leave alone rather than guess */
	if ((r->options & RULES_OPT_IGNORE) && t->cgroups != NULL &&
	    t->cgroups[h] != NULL && within(t->cgroups[h], d->dest))
		return;
	d->move = true;
}

/* Apply rule r to every bound hierarchy it names not yet decided. */
static uint64_t
apply(struct rules_rule *r, uint64_t decided, const struct rules_task *t,
      struct rules_decision *out)
{
	uint64_t todo = r->mask & ~decided;

	for (size_t h = 0; h < RULES_MAX_HIERS; h++)
		if (todo & (1ull << h))
			decide(r, h, t, &out[h]);
	return decided | todo;
}

void
rules_match(struct rules_set *set, const struct rules_task *t, struct rules_decision *out)
{
	struct merge m;
	uint64_t decided = 0;
	uint32_t r;

	for (size_t h = 0; h < set->nhiers; h++)
		out[h] = (struct rules_decision){ .rule = NULL };
	m.n = 0;
	add_key(&m, set, RULES_KEY_USER, t->euid, t);
	add_key(&m, set, RULES_KEY_GROUP, t->egid, t);
	for (size_t i = 0; i < t->ngroups; i++)
		if (t->groups[i] != t->egid)
			add_key(&m, set, RULES_KEY_GROUP, t->groups[i], t);
	add_key(&m, set, RULES_KEY_ANY, 0, t);

	while ((decided & set->named) != set->named &&
	       (r = merge_next(&m)) != UINT32_MAX) {
		struct rules_rule *rule = &set->rules[r];

		if (rule->pmode == PMODE_PATTERN && !process_matches(rule, t))
			continue;
		if (set->semantics == RULES_PER_HIERARCHY) {
			uint64_t before = decided;

			decided = apply(rule, decided, t, out);
			rule->hits += decided != before;
			continue;
		}
		/* first-match: this rule and its '%' lines decide, alone */
		rule->hits++;
		for (uint32_t i = rule->head + 1;
		     i < set->n && set->rules[i].head == rule->head; i++)
			set->rules[i].hits++;
		for (uint32_t i = rule->head;
		     i < set->n && set->rules[i].head == rule->head; i++)
			decided = apply(&set->rules[i], decided, t, out);
		break;
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
	return set->need_process;
}
