/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * movequeue.c -- the systemd backend's calls to PID 1, without the
 * transport; see movequeue.h for the rules.
 */
#include "engined/backend/systemd/movequeue.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* a retry is sent at once; from the second on, after 0.1 s, doubled for each next one */
static const struct backoff retry_pause = { .first = 0.1, .max = 6.4, .free = 1 };

static const char *const method[] = {
	[MQ_SLICE] = "StartTransientUnit",
	[MQ_SCOPE] = "StartTransientUnit",
	[MQ_ATTACH] = "AttachProcessesToUnit",
	[MQ_SET] = "SetUnitProperties",
	[MQ_STOP] = "StopUnit",
	[MQ_RESET] = "ResetFailedUnit",
};

const char *
mq_method(enum mq_op op)
{
	return method[op];
}

uint64_t
mq_now(const struct movequeue *q)
{
	if (q->env.now != NULL)
		return q->env.now();
	return mono_ns() / 1000;
}

void
mq_init(struct movequeue *q, const struct mq_env *env)
{
	memset(q, 0, sizeof(*q));
	q->env = *env;
	if (q->env.procroot == NULL)
		q->env.procroot = "/proc";
	TAILQ_INIT(&q->pending);
	TAILQ_INIT(&q->known);
	LIST_INIT(&q->calls);
}

/* ---- units ------------------------------------------------------------------------ */

struct mq_unit *
mq_unit_of(struct mq_unit_head *list, const char *path)
{
	struct mq_unit *d;

	TAILQ_FOREACH (d, list, link)
		if (strcmp(d->path, path) == 0)
			return d;
	return NULL;
}

static void
units_free(struct mq_unit_head *list)
{
	struct mq_unit *d;

	while ((d = TAILQ_FIRST(list)) != NULL) {
		TAILQ_REMOVE(list, d, link);
		free(d);
	}
}

int
mq_note(struct movequeue *q, const char *path)
{
	struct mq_unit *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return -ENOMEM;
	snprintf(d->path, sizeof(d->path), "%s", path);
	TAILQ_INSERT_TAIL(&q->pending, d, link);
	return 0;
}

void
mq_know(struct movequeue *q, const char *path, const struct sdprop *p, size_t n)
{
	struct mq_unit *d = mq_unit_of(&q->known, path);

	if (d != NULL) {
		TAILQ_REMOVE(&q->known, d, link);
	} else {
		if ((d = calloc(1, sizeof(*d))) == NULL)
			return;
		snprintf(d->path, sizeof(d->path), "%s", path);
		q->nknown++;
	}
	TAILQ_INSERT_HEAD(&q->known, d, link);
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < d->nprops && strcmp(d->props[j].name, p[i].name) != 0)
			j++;
		if (j < MQ_PROPS_MAX)
			d->props[j] = p[i];
		if (j == d->nprops && j < MQ_PROPS_MAX)
			d->nprops++;
	}
	if (q->nknown > MQ_KNOWN_MAX) {
		struct mq_unit *old = TAILQ_LAST(&q->known, mq_unit_head);
		TAILQ_REMOVE(&q->known, old, link);
		free(old);
		q->nknown--;
	}
}

void
mq_forget_known(struct movequeue *q)
{
	units_free(&q->known);
	q->nknown = 0;
}

/* Move k, which was an attach, starts its scope: with the properties
 * the scope had when it was started (or set since). */
static void
start_with_known(struct mq_call *k)
{
	const struct mq_unit *d = mq_unit_of(&k->q->known, k->path);

	k->op = MQ_SCOPE;
	if (k->def == NULL && d != NULL && (k->def = malloc(sizeof(*k->def))) != NULL)
		*k->def = *d;
}

/* ---- holding moves ------------------------------------------------------------------ */

bool
mq_is_move(const struct mq_call *k)
{
	return k->op == MQ_SCOPE || k->op == MQ_ATTACH || k->op == MQ_RESET;
}

/* Hold call k (sent later by release()), noting who its process is. */
static void
hold(struct mq_call *k)
{
	if (!k->held)
		k->q->nheld++;
	k->held = true;
	if (mq_is_move(k) && k->start == 0 &&
	    task_start_time(k->q->env.procroot, k->pid, &k->start) < 0)
		k->start = UINT64_MAX; /* gone already */
}

static void
unhold(struct mq_call *k)
{
	if (k->held)
		k->q->nheld--;
	k->held = false;
	k->send_at = 0;
}

/* Is the process of held move k still the one it was held for? */
static bool
same_process(const struct mq_call *k)
{
	uint64_t start;

	return !mq_is_move(k) || k->start == 0 ||
	       (task_start_time(k->q->env.procroot, k->pid, &start) == 0 &&
		start == k->start);
}

bool
mq_busy(const struct movequeue *q, const char *path)
{
	size_t n = strlen(path);
	const struct mq_call *k;

	LIST_FOREACH (k, &q->calls, link)
		if (strncmp(k->path, path, n) == 0 &&
		    (k->path[n] == '\0' || k->path[n] == '/'))
			return true;
	return false;
}

struct mq_call *
mq_starting(const struct movequeue *q, const char *path, enum mq_op op)
{
	struct mq_call *k;

	LIST_FOREACH (k, &q->calls, link)
		if (k->op == op && !k->held && strcmp(k->path, path) == 0)
			return k;
	return NULL;
}

bool
mq_moving(const struct movequeue *q, pid_t pid)
{
	const struct mq_call *k;

	LIST_FOREACH (k, &q->calls, link)
		if (mq_is_move(k) && k->pid == pid)
			return true;
	return false;
}

/*
 * Must move k wait?  While the scope it joins is being started (the
 * attach would find it inactive), and while an earlier move of the same
 * process is in flight (a scope's start job attaches its PIDs= when it
 * runs, after its call was answered: it would undo a later move).
 */
static bool
blocked(const struct movequeue *q, const struct mq_call *k)
{
	const struct mq_call *o;

	if (k->op == MQ_ATTACH && mq_starting(q, k->path, MQ_SCOPE) != NULL)
		return true;
	LIST_FOREACH (o, &q->calls, link)
		if (o != k && !o->held && mq_is_move(o) && o->pid == k->pid)
			return true;
	return false;
}

/* ---- calls -------------------------------------------------------------------------- */

/* Send call k (again) through the transport; 0 or -errno. */
static int
send_call(struct mq_call *k)
{
	int rc = k->q->env.send(k->q->env.send_arg, k);

	if (rc == 0)
		k->tries++;
	return rc;
}

static void
call_free(struct mq_call *k)
{
	unhold(k);
	k->q->ncalls--;
	LIST_REMOVE(k, link);
	free(k->def);
	free(k);
}

static void
done(struct movequeue *q, pid_t pid, int rc)
{
	q->env.done(q->env.arg, pid, rc);
}

/*
 * A new move of pid supersedes the moves of it still held (not sent):
 * they would run after it and undo it (release() sends the newest
 * first, and a retried attach starts a collected scope again).  The one
 * in flight stays: the new move waits for it.
 */
static void
supersede(struct movequeue *q, pid_t pid)
{
	struct mq_call *k, *next;

	for (k = LIST_FIRST(&q->calls); k != NULL; k = next) {
		next = LIST_NEXT(k, link);
		if (k->held && mq_is_move(k) && k->pid == pid) {
			log_debug("systemd: the move of pid %d into %s is superseded",
				  (int)pid, k->unit);
			call_free(k);
		}
	}
}

int
mq_call(struct movequeue *q, enum mq_op op, const char *path, const char *unit, pid_t pid,
	struct mq_unit *def)
{
	struct mq_call *k = calloc(1, sizeof(*k));

	if (k == NULL) {
		free(def);
		return -ENOMEM;
	}
	if (op == MQ_SCOPE || op == MQ_ATTACH)
		supersede(q, pid);
	k->q = q;
	k->op = op;
	k->pid = pid;
	k->def = def;
	snprintf(k->path, sizeof(k->path), "%s", path);
	snprintf(k->unit, sizeof(k->unit), "%s", unit);
	LIST_INSERT_HEAD(&q->calls, k, link);
	q->ncalls++;
	if (op == MQ_SCOPE && def != NULL)
		mq_know(q, path, def->props, def->nprops);
	if (mq_is_move(k) && blocked(q, k)) {
		hold(k); /* sent by release() */
		return 0;
	}
	int rc = send_call(k);
	if (rc < 0) {
		log_warning("systemd: cannot send %s for %s: %s", method[op], unit,
			    strerror(-rc));
		call_free(k);
	}
	return rc;
}

int
mq_room(struct movequeue *q)
{
	if (q->ncalls < MQ_CALLS_MAX)
		return 0;
	if (!q->full)
		log_warning("systemd: %d calls to PID 1 in flight; further moves "
			    "wait for a rescan once half of them are answered",
			    MQ_CALLS_MAX);
	q->full = true;
	return -ENOBUFS;
}

/*
 * The gate has just placed pid in path's scope by a write: moves of pid
 * asked for before (decided by its old program, e.g. after a setuid
 * that came before its exec) would undo that when PID 1 makes them.
 * Those not sent yet are dropped.  After those PID 1 has, an attach to
 * path's scope (unit; NULL: none can be named) is asked for, so that
 * the last move is the gate's: at once after attaches (PID 1 handles
 * one connection's calls in order), after the start job of a scope
 * (whose PIDs= are attached when the job runs) when it has ended.
 */
void
mq_gate_placed(struct movequeue *q, pid_t pid, const char *path, const char *unit)
{
	struct mq_call *k, *next, *n;
	bool sent = false, job = false;

	for (k = LIST_FIRST(&q->calls); k != NULL; k = next) {
		next = LIST_NEXT(k, link);
		if (!mq_is_move(k) || k->pid != pid)
			continue;
		if (k->held) {
			log_debug(
				"systemd: the move of pid %d into %s is dropped: the exec "
				"gate placed it",
				(int)pid, k->unit);
			call_free(k);
			continue;
		}
		sent = true;
		job = job || k->op != MQ_ATTACH;
	}
	if (!sent || unit == NULL || (n = calloc(1, sizeof(*n))) == NULL)
		return;
	*n = (struct mq_call){ .q = q, .op = MQ_ATTACH, .pid = pid };
	snprintf(n->path, sizeof(n->path), "%s", path);
	snprintf(n->unit, sizeof(n->unit), "%s", unit);
	LIST_INSERT_HEAD(&q->calls, n, link);
	q->ncalls++;
	if (job)
		hold(n);
	log_debug("systemd: pid %d has a move in flight; %s is asked for after it",
		  (int)pid, unit);
	if (!job && send_call(n) < 0)
		call_free(n);
}

/* ---- answers -------------------------------------------------------------------------- */

/* Retry a move the way the rule says; true when it was sent again. */
static bool
retried(struct mq_call *k, const struct mq_error *e)
{
	if (k->tries >= MQ_MAX_TRIES)
		return false;
	if (k->op == MQ_SCOPE && e->kind == MQ_UNIT_EXISTS)
		k->op = MQ_ATTACH; /* someone (a former run) made it: join it */
	else if (k->op == MQ_ATTACH && e->kind == MQ_NO_SUCH_UNIT)
		start_with_known(k); /* emptied and collected meanwhile: start it again */
	else if (k->op == MQ_ATTACH && e->kind == MQ_UNIT_INACTIVE)
		k->op = MQ_RESET; /* loaded but dead (failed): forget it, then start it */
	else
		return false;
	log_debug("systemd: %s for pid %d: %s; trying %s", k->unit, (int)k->pid,
		  e->message, method[k->op]);
	if (k->tries >= 2) { /* its unit is changing state: sent by release() */
		hold(k);
		k->send_at = mq_now(k->q) +
			     (uint64_t)(backoff_delay(&retry_pause, k->tries) * 1e6);
		return true;
	}
	return send_call(k) == 0;
}

/* A call failed: log, retry or give up; true when k was sent again. */
static bool
failed(struct mq_call *k, const struct mq_error *e)
{
	struct movequeue *q = k->q;
	const char *msg = e->message ? e->message : "";
	bool move = mq_is_move(k);

	if (e->kind == MQ_NO_ANSWER) {
		if (move) {
			q->lost = true;
			done(q, k->pid, -ETIMEDOUT);
		}
		log_warning("systemd: %s of %s got no answer (%s: %s)%s", method[k->op],
			    k->unit, e->name, msg,
			    move ? "; it is classified again later" : "");
		return false;
	}
	if (k->op == MQ_SLICE && e->kind == MQ_UNIT_EXISTS) {
		log_info("systemd: %s exists already; its properties stay as they are",
			 k->unit);
		return false;
	}
	if (move && e->err == ESRCH) {
		done(q, k->pid, -ESRCH);
		return false;
	}
	if (move && retried(k, e))
		return true;
	if (move)
		log_warning(
			"systemd refused to move pid %d into %s: %s (%s); given up until "
			"its next exec or a rescan",
			(int)k->pid, k->unit, msg, e->name);
	else
		log_warning("systemd refused %s of %s: %s (%s)", method[k->op], k->unit,
			    msg, e->name);
	if (move)
		done(q, k->pid, e->err > 0 ? -e->err : -EIO);
	return false;
}

static void
succeeded(struct mq_call *k)
{
	struct movequeue *q = k->q;

	switch (k->op) {
	case MQ_SCOPE:
	case MQ_ATTACH:
		log_debug("systemd: pid %d in %s", (int)k->pid, k->unit);
		done(q, k->pid, 0);
		break;
	case MQ_SLICE:
		log_info("systemd: started %s", k->unit);
		break;
	case MQ_SET:
		log_info("systemd: set properties of %s", k->unit);
		break;
	case MQ_STOP:
		log_info("systemd: stopped the empty %s", k->unit);
		break;
	case MQ_RESET:
		break;
	}
	if ((k->op == MQ_SLICE || k->op == MQ_SCOPE) && q->env.made != NULL)
		q->env.made(q->env.arg, k->path);
}

/* A call ended: send the moves that waited for it. */
static void
release(struct movequeue *q)
{
	struct mq_call *k;
	uint64_t now = mq_now(q);

	while (q->nheld > 0) {
		LIST_FOREACH (k, &q->calls, link)
			if (k->held && k->send_at <= now && !blocked(q, k))
				break;
		if (k == NULL)
			return;
		unhold(k);
		if (!same_process(k)) {
			log_debug("systemd: pid %d exited while its move into %s waited",
				  (int)k->pid, k->unit);
			done(q, k->pid, -ESRCH);
			call_free(k);
			continue;
		}
		int rc = send_call(k);
		if (rc < 0) {
			done(q, k->pid, rc);
			call_free(k);
		}
	}
}

void
mq_answered(struct mq_call *k, const struct mq_error *e)
{
	struct movequeue *q = k->q;

	if (k->op == MQ_RESET) { /* whatever it said: start the scope again */
		start_with_known(k);
		if (k->tries < MQ_MAX_TRIES && send_call(k) == 0)
			return;
		done(q, k->pid, -EIO);
		call_free(k);
		release(q);
		return;
	}
	if (e == NULL)
		succeeded(k);
	bool resent = e != NULL && failed(k, e);
	if (!resent)
		call_free(k);
	release(q);
}

void
mq_job_queued(struct mq_call *k, const char *job)
{
	snprintf(k->job, sizeof(k->job), "%s", job);
	k->job_until = mq_now(k->q) + MQ_JOB_WAIT_US;
}

/* The start job of call k ended with result ("done", "failed", ...). */
static void
job_end(struct mq_call *k, const char *result)
{
	struct movequeue *q = k->q;
	bool scope = k->op == MQ_SCOPE;

	if (strcmp(result, "done") == 0) {
		succeeded(k);
	} else {
		log_warning("systemd: the start job of %s ended \"%s\"%s", k->unit,
			    result, scope ? "; its process was not moved" : "");
		if (scope)
			done(q, k->pid, -EIO);
	}
	call_free(k);
	release(q);
}

void
mq_job_end(struct movequeue *q, const char *job, const char *result)
{
	struct mq_call *k;

	LIST_FOREACH (k, &q->calls, link)
		if (k->job[0] != '\0' && strcmp(k->job, job) == 0) {
			job_end(k, result);
			return;
		}
}

void
mq_process(struct movequeue *q)
{
	uint64_t now = mq_now(q);
	struct mq_call *k;

	for (;;) { /* jobs whose end was not seen in time: taken as done */
		LIST_FOREACH (k, &q->calls, link)
			if (k->job[0] != '\0' && now >= k->job_until)
				break;
		if (k == NULL)
			break;
		log_debug("systemd: no end seen for %s of %s; taken as done", k->job,
			  k->unit);
		job_end(k, "done");
	}
	release(q); /* the retries whose pause is over */
	if (q->full && q->ncalls < MQ_CALLS_MAX / 2) {
		q->full = false; /* the moves refused meanwhile: a rescan */
		q->lost = true;
	}
}

size_t
mq_lose_all(struct movequeue *q)
{
	struct mq_call *k;
	size_t moves = 0;

	while ((k = LIST_FIRST(&q->calls)) != NULL) {
		if (mq_is_move(k)) {
			done(q, k->pid, -ETIMEDOUT);
			moves++;
		}
		call_free(k);
	}
	q->lost = true;
	return moves;
}

bool
mq_take_lost(struct movequeue *q)
{
	if (!q->lost || q->full)
		return false;
	q->lost = false;
	return true;
}

uint64_t
mq_deadline(const struct movequeue *q, uint64_t t)
{
	const struct mq_call *k;

	LIST_FOREACH (k, &q->calls, link) {
		if (k->job[0] != '\0' && k->job_until < t)
			t = k->job_until;
		if (k->held && k->send_at != 0 && k->send_at < t)
			t = k->send_at;
	}
	return t;
}

void
mq_clear(struct movequeue *q)
{
	struct mq_call *k;

	units_free(&q->pending);
	while ((k = LIST_FIRST(&q->calls)) != NULL)
		call_free(k);
	mq_forget_known(q);
}
