/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * priority.c -- per-process priorities as part of a class: which ones a
 * process is wanted to have (a boost's profile, the group section of
 * each group its verdicts name), and giving them to every thread of it
 * through the priorities table (core_env.prio, backend.h), writing only
 * what differs.  Setting a priority moves nothing: it works the same
 * for a process the backend leaves in its unit.
 *
 * A field the new class does not name is left as it is.  A write that
 * fails (the thread exited, EPERM) is counted and logged at debug
 * level; the next classification of the process (an exec, a rescan, a
 * reload) tries again, nothing else does.
 */
#include "core_private.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

void
priority_want_add(struct prio_want *w, const struct prio *p, const char *file,
		  unsigned line)
{
	for (size_t k = 0; k < PRIO_NFIELDS; k++) {
		unsigned bit = 1u << k;

		if (!(p->set & bit) || (w->prio.set & bit))
			continue;
		w->file[k] = file;
		w->line[k] = line;
	}
	prio_merge(&w->prio, p);
}

/* The group section with priorities for dest (or the template its rule
 * expanded) in managed hierarchy i, or NULL. */
static const struct group_conf *
prio_group(const struct policy *p, size_t i, const struct verdict *v)
{
	for (size_t k = 0; k < p->nprio_groups; k++) {
		const struct group_conf *g = p->prio_groups[k].conf;

		if (p->prio_groups[k].hier == i &&
		    (strcmp(g->path, v->dest) == 0 ||
		     (v->rule != NULL && v->rule->templated && strcmp(g->path, v->rule->dest) == 0)))
			return g;
	}
	return NULL;
}

void
priority_decide(struct core *c, struct decision *d, bool boosted)
{
	const struct policy *p = c->pol;
	const struct config *cfg = p->cfg;

	d->prio.prio.set = 0;
	if (!p->prio_any)
		return;
	for (size_t i = 0; boosted && i < p->n; i++) {
		const struct boost *b = boost_of(c, d->task.pid, p->names[i]);
		const struct boost_profile *prof =
			b != NULL ? boost_profile_of(cfg, b->profile) : NULL;

		if (prof != NULL && prof->prio.set != 0)
			priority_want_add(&d->prio, &prof->prio, cfg->file, prof->prio_line);
	}
	fgprio_decide(c, d); /* the foreground's profile, next (fgprio.c) */
	for (size_t i = 0; i < p->n; i++) {
		const struct verdict *v = &d->verdicts[i];
		const struct group_conf *g = v->move ? prio_group(p, i, v) : NULL;

		if (g != NULL)
			priority_want_add(&d->prio, &g->prio, cfg->file, g->prio_line);
	}
}

/* ---- applying ---------------------------------------------------------------------- */

/* One process's threads given the priorities want. */
struct apply {
	struct core *c;
	pid_t pid;
	const struct prio *want;
	unsigned threads, changed, failed;
	unsigned done; /* the fields written to some thread */
	int err;       /* the first failure */
};

/* latency_nice wanted, on a kernel without it: said once, not an error. */
static void
no_latency(struct apply *a)
{
	static bool said;

	if (said)
		return;
	said = true;
	log_notice("latency_nice=%d for pid %d: this kernel has no latency_nice; left "
		   "alone for every process (said once)",
		   a->want->latency_nice, (int)a->pid);
}

static int
apply_thread(void *arg, pid_t tid)
{
	struct apply *a = arg;
	const struct backend_prio *bp = a->c->env.prio;
	struct prio want = *a->want, cur, todo;
	int rc;

	a->threads++;
	if (tid != a->pid)
		want.set &= ~(unsigned)PRIO_OOM; /* the process's, written once */
	rc = bp->get(bp->arg, a->pid, tid, want.set, &cur);
	if (rc == 0 && (want.set & PRIO_LATENCY) && !(cur.set & PRIO_LATENCY)) {
		no_latency(a);
		want.set &= ~(unsigned)PRIO_LATENCY;
	}
	if (rc == 0 && prio_plan(&want, &cur, &todo)) {
		rc = bp->set(bp->arg, a->pid, tid, &todo);
		if (rc == 0) {
			a->changed++;
			a->done |= todo.set;
		}
	}
	if (rc < 0 && a->err == 0)
		a->err = rc;
	a->failed += rc < 0;
	return 0;
}

/* Give every thread of pid (comm, for the log) the priorities want. */
static void
apply(struct core *c, pid_t pid, const char *comm, const struct prio *want)
{
	const struct backend_prio *bp = c->env.prio;
	struct apply a = { .c = c, .pid = pid, .want = want };
	char what[PRIO_FORMAT_MAX];

	if (bp == NULL || want->set == 0)
		return;
	int rc = bp->threads(bp->arg, pid, apply_thread, &a);
	if (rc < 0 && a.threads == 0) { /* gone before it was read */
		a.failed = 1;
		a.err = rc;
	}
	c->stats.prio_applied += a.changed;
	c->stats.prio_failed += a.failed;
	struct prio done = *want;
	done.set &= a.done;
	if (a.changed > 0 && prio_format(&done, what, sizeof(what)) == 0)
		log_info("set %s on pid %d (%s): %u of %u thread%s", what, (int)pid, comm,
			 a.changed, a.threads, a.threads == 1 ? "" : "s");
	if (a.failed > 0)
		log_debug("cannot set the priorities of pid %d (%s): %u thread%s failed: %s",
			  (int)pid, comm, a.failed, a.failed == 1 ? "" : "s", strerror(-a.err));
}

void
priority_act(struct core *c, const struct decision *d)
{
	char what[PRIO_FORMAT_MAX];

	if (d->prio.prio.set == 0 || d->at_gate)
		return;
	if (c->dry_run) {
		if (prio_format(&d->prio.prio, what, sizeof(what)) == 0)
			log_info("would set %s on pid %d (%s)", what, (int)d->task.pid,
				 d->task.comm);
		return;
	}
	apply(c, d->task.pid, d->task.comm, &d->prio.prio);
}

int
priority_current(struct core *c, pid_t pid, unsigned int what, struct prio *cur)
{
	const struct backend_prio *bp = c->env.prio;

	if (bp == NULL)
		return -ENOTSUP;
	return bp->get(bp->arg, pid, pid, what, cur);
}

/* ---- kept and restored: boosts and the foreground ------------------------------------ */

void
priority_keep(struct core *c, const struct prio *named, pid_t pid, struct prio *before)
{
	before->set = 0;
	if (named->set == 0 || priority_current(c, pid, named->set, before) < 0)
		return;
	unsigned keep = named->set;
	/* written together, restored together */
	if (keep & (PRIO_SCHED | PRIO_RTPRIO))
		keep |= PRIO_SCHED | PRIO_RTPRIO;
	if (keep & (PRIO_IOCLASS | PRIO_IONICE))
		keep |= PRIO_IOCLASS | PRIO_IONICE;
	before->set &= keep;
}

void
priority_restore(struct core *c, const struct prio *before, pid_t pid,
		 const struct decision *d)
{
	struct prio back = *before;

	back.set &= ~d->prio.prio.set; /* the class decides what it names */
	if (back.set == 0 || c->dry_run || c->paused)
		return;
	apply(c, pid, d->task.pid == pid ? d->task.comm : "?", &back);
}

void
priority_boost_start(struct core *c, struct boost *b, pid_t pid)
{
	const struct boost_profile *prof = boost_profile_of(c->pol->cfg, b->profile);

	b->before.set = 0;
	if (prof != NULL)
		priority_keep(c, &prof->prio, pid, &b->before);
}

void
priority_boost_end(struct core *c, const struct boost *b, pid_t pid,
		   const struct decision *d)
{
	priority_restore(c, &b->before, pid, d);
}

/* ---- explain and test ----------------------------------------------------------------- */

/* A JSON string of s, "?" if s is not UTF-8 (a file name). */
static json_t *
jstr_or_q(const char *s)
{
	json_t *v = json_string(s);

	return v != NULL ? v : json_string("?");
}

json_t *
priority_rows(struct core *c, const struct decision *d, pid_t pid)
{
	const struct prio_want *w = &d->prio;
	struct prio cur;
	bool have = pid > 0 && priority_current(c, pid, w->prio.set, &cur) == 0;
	json_t *rows = json_array();

	for (size_t k = 0; k < PRIO_NFIELDS; k++) {
		unsigned bit = 1u << k;
		char want[32], now[32], why[512];

		if (prio_value(&w->prio, bit, want, sizeof(want)) < 0)
			continue;
		snprintf(why, sizeof(why), "%s:%u", w->file[k], w->line[k]);
		json_t *row = json_pack("{s:s, s:s, s:o}", "priority", prio_field_name(bit),
					"wanted", want, "why", jstr_or_q(why));
		if (pid > 0)
			json_object_set_new(row, "current",
					    have && prio_value(&cur, bit, now, sizeof(now)) == 0
						    ? json_string(now)
						    : json_null());
		json_array_append_new(rows, row);
	}
	return rows;
}
