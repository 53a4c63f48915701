/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pending.c -- the thread groups kernel events asked to classify
 * (struct pending_set, c->pending): an EXEC, UID or GID event adds its
 * thread group, the end of the batch classifies each once, with one
 * decision for the batch.  A uid/gid change is usually followed at once
 * by an exec (su, sudo, login, setpriv, a spawner dropping privileges:
 * setresgid, setresuid, execve -- often one wake-up each): such entries
 * wait until their exec, at most DEFER_DELAY (defer_at), so the
 * process is classified once, after its exec, instead of once per event.
 */
#include "core_private.h"
#include "gate.h"
#include "util/util.h"

#include <stdlib.h>
#include <time.h>

#define DEFER_DELAY 0.002 /* how long a uid/gid-only entry may wait */
/* ... with the exec gate on a backend that makes groups ahead (PID 1
 * places): a move decided before the exec would be made by PID 1 after
 * the gate's placement, so the exec is given longer to come (PID 1's
 * placements take longer than that anyway) */
#define DEFER_DELAY_GATE 0.050

const unsigned core_latency_us[CORE_LATENCY_BUCKETS - 1] = {
	50, 100, 250, 500, 1000, 10000,
};

/* How long a uid/gid-only entry waits for its exec. */
static double
defer_delay(const struct core *c)
{
	return c->env.cgfs->gate.prepare != NULL && core_gate_state(c)->running ? DEFER_DELAY_GATE
									   : DEFER_DELAY;
}

struct pending *
pending_add(struct core *c, pid_t tgid, bool exec, uint64_t ts)
{
	struct pending_set *s = &c->pending;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].tgid == tgid) {
			s->v[i].exec |= exec;
			if (exec && s->v[i].exec_ns == 0)
				s->v[i].exec_ns = ts;
			return &s->v[i];
		}
	if (s->n == s->cap) { /* (tested here: this runs for every event) */
		struct pending *v = array_room(s->v, s->n, &s->cap, sizeof(*v), 256);

		if (v == NULL) {
			rescan_request(c, NULL); /* cannot remember: catch up later */
			return NULL;
		}
		s->v = v;
	}
	s->v[s->n] = (struct pending){ .tgid = tgid,
				       .exec = exec,
				       .due = c->now + defer_delay(c),
				       .exec_ns = exec ? ts : 0 };
	return &s->v[s->n++];
}

/* The record of p's exec, or NULL. */
static struct task_known *
rec_of(struct core *c, const struct pending *p)
{
	return p->rec > 0 ? &c->pending.recs[p->rec - 1] : NULL;
}

void
pending_note_ids(struct core *c, struct pending *p, const struct procev_event *ev)
{
	struct task_known *k;

	if (p == NULL)
		return;
	k = rec_of(c, p);
	if (k != NULL && ev->ts_ns < k->ts_ns)
		return; /* before the exec the record tells of (or a later change) */
	if (k != NULL && (k->have & TASK_KNOW_CREDS)) {
		/* a change after that exec: its uids hold until a UID event
		 * says otherwise, its gids and groups no longer (its comm,
		 * exe and parent do) */
		k->have = (k->have & ~TASK_KNOW_CREDS) | TASK_KNOW_UIDS;
	}
	if (ev->type != PROCEV_UID)
		return; /* a gid change */
	if (ev->pid != ev->tgid) {
		p->ids_state |= PENDING_IDS_BAD;
		return;
	}
	p->ids.uid = ev->rid;
	p->ids.euid = ev->eid;
	p->ids_ns = ev->ts_ns;
	p->ids_state |= PENDING_IDS_SEEN;
	if (k != NULL) {
		k->uid = ev->rid;
		k->euid = ev->eid;
		k->ts_ns = ev->ts_ns;
	}
}

/* Room for one more record in the set: its index, or -1 (no memory). */
static ssize_t
rec_room(struct pending_set *s)
{
	if (s->nrecs == s->caprecs) {
		struct task_known *v =
			array_room(s->recs, s->nrecs, &s->caprecs, sizeof(*v), 64);

		if (v == NULL)
			return -1;
		s->recs = v;
	}
	return (ssize_t)s->nrecs++;
}

void
pending_note_exec(struct core *c, struct pending *p, const struct procev_event *ev)
{
	struct task_known *k;

	if (p == NULL || ev->known == NULL)
		return;
	if ((k = rec_of(c, p)) == NULL) {
		ssize_t i = rec_room(&c->pending);

		if (i < 0)
			return; /* /proc tells, as without a record */
		p->rec = (size_t)i + 1;
		k = &c->pending.recs[i];
	} else if (k->ts_ns > ev->known->ts_ns && (k->have & TASK_KNOW_CREDS)) {
		return; /* a later exec's record came first */
	}
	task_known_copy(k, ev->known);
	if ((p->ids_state & PENDING_IDS_SEEN) && p->ids_ns > k->ts_ns) {
		/* a UID event after this exec was read before its record */
		k->have = (k->have & ~TASK_KNOW_CREDS) | TASK_KNOW_UIDS;
		k->uid = p->ids.uid;
		k->euid = p->ids.euid;
		k->ts_ns = p->ids_ns;
	}
	p->ids_state |= PENDING_IDS_SEEN; /* BAD stays: lost events, another thread's */
}

void
pending_drop(struct core *c, pid_t tgid)
{
	struct pending_set *s = &c->pending;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].tgid == tgid)
			s->v[i].tgid = 0;
}

void
pending_ids_lost(struct core *c)
{
	struct pending_set *s = &c->pending;

	for (size_t i = 0; i < s->n; i++)
		s->v[i].ids_state |= PENDING_IDS_BAD;
}

/* Count how long after its exec a process was classified. */
static void
count_latency(struct core *c, uint64_t exec_ns)
{
	if (exec_ns == 0)
		return;
	uint64_t now = mono_ns();
	uint64_t us = now > exec_ns ? (now - exec_ns) / 1000 : 0;
	size_t i = 0;

	while (i < CORE_LATENCY_BUCKETS - 1 && us > core_latency_us[i])
		i++;
	c->stats.placed_in[i]++;
}

/* What the events said of p's process, as classify_known takes it:
 * its exec's record, the uids of its UID event, or that it exec'd. */
static const struct task_known *
known_of(struct core *c, const struct pending *p)
{
	struct task_known *k = &c->pending.ids_known;

	if (p->ids_state == PENDING_IDS_SEEN && p->rec > 0)
		return rec_of(c, p);
	k->nv1 = 0;
	if (p->ids_state != PENDING_IDS_SEEN) {
		/* no credential told: that it exec'd, which spares status
		 * where no rule needs one (classify.c's usable()) */
		k->have = TASK_KNOW_EXECED;
		k->ts_ns = p->exec_ns;
		return p->exec ? k : NULL;
	}
	k->have = TASK_KNOW_UIDS;
	k->uid = p->ids.uid;
	k->euid = p->ids.euid;
	k->ts_ns = p->ids_ns;
	return k;
}

void
pending_run(struct core *c)
{
	struct pending_set *s = &c->pending;
	struct decision *d = NULL; /* one for the batch, taken at its first process */
	size_t kept = 0;
	double next = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct pending *p = &s->v[i];

		if (p->tgid == 0)
			continue;
		if (!p->exec && p->due > c->now) {
			if (next == 0 || p->due < next)
				next = p->due;
			s->v[kept++] = *p;
			continue;
		}
		if (d == NULL && s->spare != NULL && s->spare->n == c->pol->n) {
			d = s->spare; /* the same policy's size: its memory reused */
			s->spare = NULL;
		}
		if (d == NULL && (d = decision_new(c->pol)) == NULL) {
			log_warning("out of memory: %zu processes are classified at a rescan",
				    s->n - i);
			rescan_request(c, NULL);
			break;
		}
		uint64_t before = c->stats.classified;
		classify_known(c, p->tgid, known_of(c, p), d);
		if (c->stats.classified != before)
			count_latency(c, p->exec_ns);
		core_between(c); /* held execs do not wait for the batch */
	}
	if (d != NULL) {
		decision_free(s->spare);
		s->spare = d;
	}
	s->n = kept;
	s->nrecs = 0; /* only entries with an exec had one, and none is kept */
	s->defer_at = next;
}

bool
core_waiting_exec(const struct core *c)
{
	const struct pending_set *s = &c->pending;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].tgid != 0 && !s->v[i].exec)
			return true;
	return false;
}

double
pending_deadline(const struct core *c, double now)
{
	(void)now;
	return c->pending.defer_at;
}

void
pending_timeout(struct core *c, double now)
{
	if (c->pending.defer_at > 0 && now >= c->pending.defer_at)
		pending_run(c);
}

void
pending_free(struct core *c)
{
	free(c->pending.v);
	free(c->pending.recs);
	decision_free(c->pending.spare);
}
