/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wants.c -- which of the kernel's process events the core needs, so
 * the loop can have the kernel drop the others before they wake the
 * daemon (kernel/procfilt.c):
 *
 *   EXEC               always
 *   UID, GID           when a decision can depend on them (the rules'
 *                      keys and templates, any Lua hook)
 *   FORK of processes  while some process passes something on to its
 *                      children (sticky children, boosts, an exec the
 *                      gate placed and has not settled)
 *   EXIT               of the processes the table holds (main thread),
 *                      and of any thread of one whose main thread is
 *                      gone while others run on
 *
 * The table changes as events and requests are handled; the wanted set
 * is computed again, and handed to the loop (env.want_events) only when
 * it differs, by core_sync_wants(): the loop calls it before it waits,
 * the sticky and boost requests before they are answered (so a process
 * made sticky with its children cannot fork one before the kernel
 * reports forks).  A process the table begins to track may have exited
 * before the kernel let its EXIT through: once the filter covers it,
 * its exit is checked in /proc and handled as if the event had come.
 */
#include "core_private.h"

#include <stdlib.h>
#include <string.h>

#define SYNC_ROUNDS 8 /* handling exits found changes the table: again */

static void
collect(void *arg, const struct proc *p)
{
	struct core_wants *w = arg;

	if (w->ntrack < PROCEV_TRACK_MAX)
		w->track[w->ntrack++] = p->id.pid;
	if ((p->flags & PROC_LEADER_GONE) && w->ngone < PROCEV_TRACK_MAX)
		w->gone[w->ngone++] = p->id.pid;
}

static int
cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/* The events the core needs now, into w (lists sorted). */
static void
compute(const struct core *c, struct core_wants *w)
{
	const struct policy *p = c->pol;
	unsigned ids = rules_need_ids(p->rules);
	bool hook = hooks_has_classify(p->hooks); /* a hook sees every credential */
	size_t n = proctab_count(c->procs);
	size_t gone = proctab_count_flag(c->procs, PROC_LEADER_GONE);

	w->uid = hook || (ids & RULES_NEED_UID);
	w->gid = hook || (ids & RULES_NEED_GID);
	w->forks = proctab_count_flag(c->procs, PROC_STICKY_CHILDREN) > 0 ||
		   proctab_count_flag(c->procs, PROC_BOOSTED) > 0 ||
		   (c->gate != NULL && gate_in_flight(c));
	w->ntrack = w->ngone = 0;
	if (n <= PROCEV_TRACK_MAX)
		proctab_foreach(c->procs, collect, w);
	qsort(w->track, w->ntrack, sizeof(pid_t), cmp_pid);
	qsort(w->gone, w->ngone, sizeof(pid_t), cmp_pid);
	w->all_track = n > PROCEV_TRACK_MAX;
	w->all_gone = gone > PROCEV_TRACK_MAX;
}

static bool
same_list(const pid_t *a, size_t na, const pid_t *b, size_t nb)
{
	return na == nb && (na == 0 || memcmp(a, b, na * sizeof(pid_t)) == 0);
}

static bool
same(const struct core_wants *a, const struct core_wants *b)
{
	return a->uid == b->uid && a->gid == b->gid && a->forks == b->forks &&
	       a->all_track == b->all_track && a->all_gone == b->all_gone &&
	       same_list(a->track, a->ntrack, b->track, b->ntrack) &&
	       same_list(a->gone, a->ngone, b->gone, b->ngone);
}

/* Was pid's exit let through already by the filter in force? */
static bool
covered(const pid_t *list, size_t n, bool all, pid_t pid)
{
	return all || bsearch(&pid, list, n, sizeof(pid_t), cmp_pid) != NULL;
}

/*
 * The processes the new filter covers and the old one did not: did one
 * exit (main thread, or the last thread of a gone one) before?  Then
 * handle it as its EXIT would have been.
 */
static void
check_new(struct core *c, const struct core_wants *old, const struct core_wants *now)
{
	for (size_t i = 0; i < now->ntrack; i++) {
		pid_t pid = now->track[i];
		const struct proc *p = proctab_get(c->procs, pid);

		if (p == NULL || (p->flags & PROC_LEADER_GONE) ||
		    covered(old->track, old->ntrack, old->all_track, pid))
			continue;
		if (task_exited(c->env.procroot, p->id))
			core_exit(c, pid, pid);
	}
	for (size_t i = 0; i < now->ngone; i++) {
		pid_t pid = now->gone[i];

		if (!covered(old->gone, old->ngone, old->all_gone, pid))
			core_exit(c, 0, pid); /* as if one more thread ended */
	}
}

static void
apply(struct core *c, const struct core_wants *w)
{
	struct procev_want pw = { .exec = true,
				  .uid = w->uid,
				  .gid = w->gid,
				  .forks = w->forks,
				  .track = w->track,
				  .ntrack = w->all_track ? PROCEV_ALL : w->ntrack,
				  .gone = w->gone,
				  .ngone = w->all_gone ? PROCEV_ALL : w->ngone };

	c->env.want_events(c->env.loop_arg, &pw);
}

void
wants_changed(void *arg)
{
	struct core *c = arg;

	c->wants.dirty = true;
}

void
core_sync_wants(struct core *c)
{
	if (c->env.want_events == NULL)
		return;
	for (int round = 0; c->wants.dirty && round < SYNC_ROUNDS; round++) {
		struct core_wants *now = &c->wants.set[!c->wants.cur];
		const struct core_wants *old = &c->wants.set[c->wants.cur];

		c->wants.dirty = false;
		compute(c, now);
		if (c->wants.applied && same(now, old))
			continue;
		apply(c, now);
		c->wants.cur = !c->wants.cur;
		if (c->wants.applied)
			check_new(c, old, now); /* may make the table, so the set, change */
		c->wants.applied = true;
	}
}
