/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decision.c -- the value one classification fills (struct decision in
 * core_private.h): made for a policy, as one block whose arrays have
 * one entry per managed hierarchy, and what explain and test read of it.
 */
#include "core_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The arrays follow the struct, each at the alignment of a pointer. */
#define ALIGNED(n) (((n) + sizeof(void *) - 1) & ~(sizeof(void *) - 1))

struct decision *
decision_new(const struct policy *p)
{
	size_t n = p->n > 0 ? p->n : 1;
	size_t head = ALIGNED(sizeof(struct decision));
	size_t verdicts = ALIGNED(n * sizeof(struct verdict));
	size_t rules = ALIGNED(n * sizeof(struct rules_decision));
	size_t slots = ALIGNED(n * sizeof(struct hooks_slot));
	char *m = malloc(head + verdicts + rules + slots + n * sizeof(const char *));

	if (m == NULL)
		return NULL;
	/* not cleared: every step of a classification sets what it reads */
	struct decision *d = (struct decision *)m;
	d->n = p->n;
	d->verdicts = (struct verdict *)(m + head);
	d->rules = (struct rules_decision *)(m + head + verdicts);
	d->slots = (struct hooks_slot *)(m + head + verdicts + rules);
	d->parts = (const char **)(m + head + verdicts + rules + slots);
	for (size_t i = 0; i < n; i++)
		d->parts[i] = NULL;
	d->cg_read = d->at_gate = d->placed = false;
	d->cg.n = 0;
	d->composed[0] = d->refusal[0] = '\0';
	return d;
}

void
decision_free(struct decision *d)
{
	free(d);
}

struct decision *
core_decision_new(const struct core *c)
{
	return decision_new(core_policy(c));
}

const struct task *
decision_task(const struct decision *d)
{
	return &d->task;
}

const struct task_cgroups *
decision_cgroups(const struct decision *d)
{
	return &d->cg;
}

const struct verdict *
decision_verdicts(const struct decision *d)
{
	return d->verdicts;
}

const char *
decision_composed(const struct decision *d)
{
	return d->composed;
}

const char *
decision_part(const struct decision *d, size_t i)
{
	return i < d->n ? d->parts[i] : NULL;
}

const char *
decision_refusal(const struct decision *d)
{
	return d->refusal[0] ? d->refusal : NULL;
}

int
core_units(const struct core *c, const struct decision *d, char *cur, size_t curlen,
	   char *want, size_t wantlen)
{
	const struct backend *fs = c->env.cgfs;
	const struct policy *p = c->pol;
	const char *real = p->v2 != NULL ? task_cgroup_of(&d->cg, p->v2->name) : NULL;

	if (fs->look.unit == NULL || p->v2 == NULL)
		return -ENOTSUP;
	if (real == NULL || backend_unit(fs, p->v2, real, false, cur, curlen) < 0)
		snprintf(cur, curlen, "?");
	want[0] = '\0';
	if (d->composed[0] != '\0' &&
	    backend_unit(fs, p->v2, d->composed, true, want, wantlen) < 0)
		want[0] = '\0';
	return 0;
}
