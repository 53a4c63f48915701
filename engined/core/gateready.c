/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gateready.c -- the exec gate's groups made ahead for a backend's
 * move_now (core_cgfs.prepare), apart from gate.c's execs in flight.
 *
 * The systemd backend's move_now writes cgroup.procs of a scope made
 * ahead, held by a keeper process.  Which composed groups: those a
 * gated rule (a binary named by path) can compose, made at start and
 * after each reload -- the rule's own destinations, each other
 * dimension at its default or at any fixed destination some rule gives
 * it (at most CANDS_MAX of them, at most READY_MAX groups in all) --
 * and any other group a gated exec wanted and did not find ready
 * (learned: that exec is placed after it, as a late move; the next
 * finds the group ready).  Template destinations (%u ...) are not made
 * ahead nor learned: one keeper per user would pile up.
 */
#include "core_private.h"
#include "gate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define READY_MAX  64	/* groups kept ready for a backend's move_now, at most */
#define CANDS_MAX  16	/* destinations of one dimension combined, at most */
#define COMBOS_MAX 4096 /* combinations tried per gated rule, at most */

struct gate_ready {
	char **v; /* the groups the backend keeps ready (prepare) */
	size_t n;
	bool due;  /* groups were added: hand them over (gate_timeout) */
	bool full; /* READY_MAX reached, and said so */
};

static struct gate_ready *
ready_get(struct core *c)
{
	if (c->ready == NULL)
		c->ready = calloc(1, sizeof(*c->ready));
	return c->ready;
}

static void
ready_clear(struct gate_ready *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->v[i]);
	free(g->v);
	g->v = NULL;
	g->n = 0;
	g->due = false;
}

void
gate_ready_free(struct core *c)
{
	if (c->ready != NULL)
		ready_clear(c->ready);
	free(c->ready);
	c->ready = NULL;
}

bool
gate_ready_due(const struct core *c)
{
	return c->ready != NULL && c->ready->due;
}

static int
ready_add(struct gate_ready *g, const char *path)
{
	if (strv_has(g->v, g->n, path))
		return 0;
	if (g->n == READY_MAX) {
		if (!g->full)
			log_warning(
				"exec gate: %d groups are kept ready for the gate, the "
				"most there may be; execs into others are placed after "
				"their exec",
				READY_MAX);
		g->full = true;
		return 0;
	}
	int rc = strv_add(&g->v, &g->n, path);
	return rc < 0 ? rc : 1;
}

/* A destination written without templates or escapes: it is as written. */
static bool
fixed(const struct rules_rule *r)
{
	return !r->templated && strchr(r->dest, '\\') == NULL;
}

/* Is rule h (a first line) one the gate holds execs for? */
static bool
gated_rule(const struct rules_rule *h)
{
	return !h->continuation && h->options == 0 && h->process != NULL &&
	       h->process[0] == '/' && strpbrk(h->process, "*?[") == NULL;
}

struct cands {
	const char *v[CANDS_MAX]; /* v[0]: NULL, the default */
	size_t n;
};

/* The fixed destinations the rules give each virtual dimension. */
static void
other_parts(const struct policy *p, struct cands *other)
{
	size_t nr = rules_count(p->rules);

	for (size_t k = 0; k < p->nlayout; k++)
		other[p->layout[k]] = (struct cands){ .n = 1 };
	for (size_t r = 0; r < nr; r++) {
		const struct rules_rule *l = rules_get(p->rules, r);
		const struct rules_rule *h = rules_get(p->rules, l->head);

		if (h->options != 0 || !fixed(l))
			continue;
		for (size_t k = 0; k < p->nlayout; k++) {
			struct cands *o = &other[p->layout[k]];
			size_t j = 1;

			if (!(l->mask & (1ull << p->layout[k])))
				continue;
			while (j < o->n && strcmp(o->v[j], l->dest) != 0)
				j++;
			if (j == o->n && o->n < CANDS_MAX)
				o->v[o->n++] = l->dest;
		}
	}
}

/* Every group want (the gated rule's parts) composes with the others'. */
static void
combine(struct core *c, const char *const *want, const struct cands *other)
{
	const struct policy *p = c->pol;
	size_t at[RULES_MAX_HIERS] = { 0 }, bad;
	const char *w[RULES_MAX_HIERS] = { 0 }, *cur[RULES_MAX_HIERS] = { 0 };
	char out[RULES_DEST_MAX];

	for (unsigned step = 0; step < COMBOS_MAX && c->ready->n < READY_MAX; step++) {
		size_t k;

		for (k = 0; k < p->nlayout; k++) {
			size_t i = p->layout[k];
			w[i] = want[i] != NULL ? want[i] : other[i].v[at[i]];
		}
		if (layout_compose(p, w, cur, out, sizeof(out), &bad) == 0 &&
		    ready_add(c->ready, out) < 0)
			return;
		for (k = 0; k < p->nlayout; k++) { /* the next combination */
			size_t i = p->layout[k];
			if (want[i] != NULL)
				continue;
			if (++at[i] < other[i].n)
				break;
			at[i] = 0;
		}
		if (k == p->nlayout)
			return;
	}
}

/* The groups the gated rules can compose, into c->ready. */
static void
ready_from_rules(struct core *c)
{
	const struct policy *p = c->pol;
	struct cands other[RULES_MAX_HIERS];
	size_t nr = rules_count(p->rules);

	other_parts(p, other);
	for (size_t r = 0; r < nr; r++) {
		const char *want[RULES_MAX_HIERS] = { 0 };
		bool usable = true, any = false;

		if (!gated_rule(rules_get(p->rules, r)))
			continue;
		for (size_t j = r; j < nr; j++) { /* the rule's line and its % lines */
			const struct rules_rule *l = rules_get(p->rules, j);

			if (j > r && !l->continuation)
				break;
			for (size_t k = 0; k < p->nlayout; k++) {
				size_t i = p->layout[k];
				if (!(l->mask & (1ull << i)))
					continue;
				usable = usable && fixed(l);
				want[i] = l->dest;
				any = true;
			}
		}
		if (usable && any)
			combine(c, want, other);
	}
}

/* The backend placed keeper pid for group path: never classified
 * (sticky, pinned by root), placed there as any process would be. */
static void
keeper_started(void *karg, pid_t pid, const char *path)
{
	struct core *c = karg;

	if (core_make_sticky(c, pid, 0, 0) < 0)
		log_warning("exec gate: cannot exempt keeper pid %d from classification",
			    (int)pid);
	groups_keep(c, pid, path);
}

void
gate_ready_hand_over(struct core *c)
{
	const struct backend *fs = c->env.cgfs;
	struct gate_ready *g = c->ready;

	g->due = false;
	int rc = backend_prepare(fs, c->pol->v2, (const char *const *)g->v, g->n,
				 keeper_started, c);
	if (rc < 0)
		log_warning("exec gate: cannot keep groups ready for the gate: %s; gated "
			    "execs are placed after their exec",
			    strerror(-rc));
}

void
core_gate_prepare(struct core *c, bool on)
{
	const struct backend *fs = c->env.cgfs;
	struct gate_ready *g = ready_get(c);

	if (fs->gate.prepare == NULL || c->pol->v2 == NULL || g == NULL)
		return;
	ready_clear(g);
	g->full = false;
	if (on && !c->dry_run)
		ready_from_rules(c);
	if (on && g->n > 0)
		log_notice("exec gate: %zu group%s kept ready for the gate", g->n,
			   g->n == 1 ? "" : "s");
	gate_ready_hand_over(c);
}

size_t
core_gate_ready(const struct core *c)
{
	return c->ready != NULL ? c->ready->n : 0;
}

void
gate_unready(struct core *c, const struct decision *d)
{
	const struct policy *p = c->pol;
	struct gate_ready *g = ready_get(c);

	c->stats.gate_late++;
	if (c->env.cgfs->gate.prepare == NULL || g == NULL || d->composed[0] == '\0')
		return;
	for (size_t k = 0; k < p->nlayout; k++) {
		const struct verdict *v = &d->verdicts[p->layout[k]];
		if (v->move && v->rule != NULL && !fixed(v->rule))
			return; /* a template's: not kept */
	}
	int rc = ready_add(g, d->composed);
	if (rc > 0)
		log_info("exec gate: unified:%s is kept ready for the gate from now on",
			 d->composed);
	/* handed over again even when it was there: a keeper that has gone
	 * (its scope stopped by hand) is started again */
	if (rc > 0 || (rc == 0 && strv_has(g->v, g->n, d->composed)))
		g->due = true;
}
