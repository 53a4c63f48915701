/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rescan.c -- classifying every process again (struct rescans,
 * c->rescan): at start, after a reload or a pause, and when something
 * was missed -- events the kernel dropped, moves a backend lost, a
 * process that could not be read or moved for want of descriptors.
 * Asked-for rescans run at most once a RESCAN_INTERVAL.
 */
#include "core_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RESCAN_INTERVAL 1.0 /* seconds between two rescans at most */

void
rescan_init(struct core *c)
{
	c->rescan = (struct rescans){ .last = -RESCAN_INTERVAL };
}

void
rescan_request(struct core *c, const char *why)
{
	struct rescans *r = &c->rescan;

	if (r->at <= 0) {
		double at = r->last + RESCAN_INTERVAL;
		r->at = at > c->now ? at : c->now;
	}
	if (why != NULL)
		r->why = why;
}

void
rescan_soon(struct core *c, double delay)
{
	if (c->rescan.at == 0)
		c->rescan.at = c->now + delay;
}

struct scan {
	struct core *c;
	struct decision *d; /* one for the whole scan */
};

static int
classify_cb(void *arg, pid_t pid)
{
	struct scan *s = arg;

	classify(s->c, pid, s->d);
	core_between(s->c); /* held execs do not wait for the scan */
	return 0;
}

static void
collect_pid(void *arg, const struct proc *p)
{
	pid_t **cursor = arg;

	*(*cursor)++ = p->id.pid;
}

/* Forget every table entry whose process is gone (its exit unseen). */
static void
prune_procs(struct core *c)
{
	size_t n = proctab_count(c->procs);
	pid_t *pids = n ? calloc(n, sizeof(*pids)) : NULL;
	pid_t *cursor = pids;

	if (pids == NULL)
		return;
	proctab_foreach(c->procs, collect_pid, &cursor);
	for (size_t i = 0; i < n; i++)
		(void)proc_known(c, pids[i]); /* forgets it if gone */
	free(pids);
}

void
core_rescan(struct core *c, double now)
{
	c->now = now;
	c->rescan = (struct rescans){ .last = now };
	c->stats.rescans++;
	prune_procs(c);
	struct scan s = { .c = c, .d = decision_new(c->pol) };
	if (s.d == NULL) {
		log_error("cannot scan %s: out of memory; trying again soon", c->env.procroot);
		rescan_soon(c, RESCAN_INTERVAL);
		return;
	}
	int rc = task_foreach(c->env.procroot, classify_cb, &s);
	if (rc < 0)
		log_error("cannot scan %s: %s", c->env.procroot, strerror(-rc));
	decision_free(s.d);
}

double
rescan_deadline(const struct core *c, double now)
{
	(void)now;
	return c->rescan.at;
}

void
rescan_timeout(struct core *c, double now)
{
	if (c->rescan.at <= 0 || now < c->rescan.at)
		return;
	log_notice("rescanning %s %s", c->env.procroot,
		   c->rescan.why ? c->rescan.why : "for processes not placed yet");
	core_rescan(c, now);
}
