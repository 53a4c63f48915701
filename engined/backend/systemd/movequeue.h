/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * movequeue.h -- the systemd backend's calls to PID 1, without the
 * transport: which calls are in flight or held, which units are noted
 * (mkdir) and which scopes' properties are remembered, the cap on calls,
 * the order of one process's moves, the retry rule and its pauses, the
 * start jobs awaited.  It sends through a transport it is given
 * (sdbus.c over sd-bus; tests/engined/backend/movequeue-t a stand-in)
 * and is told the answers; it links no libsystemd.
 *
 * The rules (sdplace.c's header says why):
 *   - at most MQ_CALLS_MAX calls in flight or held; a move beyond is
 *     refused (-ENOBUFS) and a rescan asked for once half are answered;
 *   - moves of one process go one at a time, and an attach to a scope
 *     waits until its start call was answered and its job ended; a new
 *     move of a process drops its moves still held;
 *   - a start of a scope that exists becomes an attach, an attach to a
 *     scope collected meanwhile a start with the properties it had, an
 *     attach to a dead scope a reset and then a start; at most
 *     MQ_MAX_TRIES calls per move, and from the second retry on a pause
 *     (backoff_delay: 0.1 s, doubled) before it is sent again;
 *   - a held move whose process is no longer the one it was held for
 *     (by its start time) is never sent.
 */
#ifndef CGENGINE_MOVEQUEUE_H
#define CGENGINE_MOVEQUEUE_H

#include "engined/backend/systemd/sdunit.h"
#include "engined/core/core.h"

#include <stdint.h>
#include <sys/queue.h>

#define MQ_PROPS_MAX 16	  /* properties of one unit */
#define MQ_KNOWN_MAX 1024 /* scopes whose properties are remembered, at most */
/* calls in flight or held, at most: a move beyond waits for a rescan (a
 * slow PID 1 must not grow the daemon) */
#define MQ_CALLS_MAX   512
#define MQ_MAX_TRIES   8 /* calls per move (start, attach, reset, start ...) */
#define MQ_JOB_WAIT_US (10ull * 1000000) /* a start job's end, awaited that long */

/* A unit mkdir() noted (not yet asked for), or a scope started. */
struct mq_unit {
	char path[RULES_DEST_MAX]; /* the layout's group */
	struct sdprop props[MQ_PROPS_MAX];
	size_t nprops;
	TAILQ_ENTRY(mq_unit) link;
};
TAILQ_HEAD(mq_unit_head, mq_unit);

enum mq_op { MQ_SLICE, MQ_SCOPE, MQ_ATTACH, MQ_SET, MQ_STOP, MQ_RESET };

/* A call in flight or held. */
struct mq_call {
	struct movequeue *q;
	enum mq_op op;
	pid_t pid; /* MQ_SCOPE, MQ_ATTACH, MQ_RESET */
	unsigned tries;
	bool held;	    /* waiting to be sent (mq_release) */
	uint64_t send_at;   /* held until then: a retry while its unit changes state */
	uint64_t start;	    /* held: its process's start time (UINT64_MAX: gone), so
			     that a pid reused meanwhile is never moved */
	char job[128];	    /* a start call answered: its job, until it ends */
	uint64_t job_until; /* wait that long for it (monotonic us) */
	char path[RULES_DEST_MAX]; /* the layout's group it is about */
	char unit[SDUNIT_NAME_MAX];
	struct mq_unit *def; /* MQ_SLICE, MQ_SCOPE, MQ_SET: properties (owned) */
	LIST_ENTRY(mq_call) link;
};

/* What PID 1's answer to a call was, as the transport read it. */
enum mq_answer {
	MQ_DONE,	  /* success */
	MQ_NO_ANSWER,	  /* the connection, not PID 1, failed the call */
	MQ_UNIT_EXISTS,	  /* a start: the unit exists */
	MQ_NO_SUCH_UNIT,  /* an attach: no such unit */
	MQ_UNIT_INACTIVE, /* an attach: the unit is loaded but not active */
	MQ_REFUSED,	  /* any other error */
};
struct mq_error {
	enum mq_answer kind;
	int err;	     /* its errno (0: none) */
	const char *name;    /* systemd's error name, for the log */
	const char *message; /* and its message (may be NULL) */
};

/* Where calls go and what is told of them. */
struct mq_env {
	/* send call k (again): 0, or -errno (k is then still the queue's);
	 * a sent call's answer comes through mq_answered() */
	int (*send)(void *arg, struct mq_call *k);
	void *send_arg;
	/* a move ended: 0, -ESRCH (process gone) or -errno (logged) */
	void (*done)(void *arg, pid_t pid, int rc);
	/* the unit standing for group path was started (NULL: nobody told) */
	void (*made)(void *arg, const char *path);
	void *arg;
	uint64_t (*now)(void); /* monotonic microseconds (NULL: the clock's) */
	const char *procroot;  /* where start times are read ("/proc" if NULL) */
};

/* The queue (its lists read-only outside movequeue.c). */
struct movequeue {
	struct mq_env env;
	struct mq_unit_head pending; /* noted by mkdir, oldest first */
	/* the properties of the scopes started, newest first: a scope
	 * collected and started again by a retry gets them too */
	struct mq_unit_head known;
	size_t nknown;
	LIST_HEAD(, mq_call) calls;
	size_t ncalls, nheld;
	bool full; /* a move was refused at MQ_CALLS_MAX: a rescan once below half */
	bool lost; /* moves were lost: the processes are classified again */
};

void mq_init(struct movequeue *q, const struct mq_env *env);
/* Drop every call and unit, telling nobody. */
void mq_clear(struct movequeue *q);
uint64_t mq_now(const struct movequeue *q);
const char *mq_method(enum mq_op op); /* the Manager's method for op */

/* ---- units ------------------------------------------------------------------------ */

/* The unit of group path in list (pending or known), or NULL. */
struct mq_unit *mq_unit_of(struct mq_unit_head *list, const char *path);
/* Note group path's unit (mkdir); 0 or -ENOMEM. */
int mq_note(struct movequeue *q, const char *path);
/* Merge properties p[0..n-1] into what is known of the scope of path. */
void mq_know(struct movequeue *q, const char *path, const struct sdprop *p, size_t n);
void mq_forget_known(struct movequeue *q);

/* ---- calls ------------------------------------------------------------------------ */

/* A new call about group path, sent or held; 0 or -errno.  def is taken. */
int mq_call(struct movequeue *q, enum mq_op op, const char *path, const char *unit,
	    pid_t pid, struct mq_unit *def);
/* May another move be asked for?  0, or -ENOBUFS (said once per spell). */
int mq_room(struct movequeue *q);
bool mq_is_move(const struct mq_call *k);
/* Is a call in flight about group path or a group below it? */
bool mq_busy(const struct movequeue *q, const char *path);
/* The start call in flight for path's unit (op MQ_SLICE or MQ_SCOPE), or NULL. */
struct mq_call *mq_starting(const struct movequeue *q, const char *path, enum mq_op op);
/* Is a move of pid in flight or held? */
bool mq_moving(const struct movequeue *q, pid_t pid);
/* The exec gate placed pid in path's scope (unit): drop its moves held,
 * and after those in flight ask for an attach there. */
void mq_gate_placed(struct movequeue *q, pid_t pid, const char *path, const char *unit);

/* ---- answers ---------------------------------------------------------------------- */

/* Call k was answered; e NULL: success.  k may be freed. */
void mq_answered(struct mq_call *k, const struct mq_error *e);
/* Start call k was answered with job: its end is awaited (mq_job_end). */
void mq_job_queued(struct mq_call *k, const char *job);
/* Job ended with result ("done", "failed", ...); nothing if not ours. */
void mq_job_end(struct movequeue *q, const char *job, const char *result);
/* Jobs whose end was not seen in time are taken as done; held calls
 * whose pause is over are sent. */
void mq_process(struct movequeue *q);
/* The connection broke: every call ends (moves with -ETIMEDOUT); how
 * many moves. */
size_t mq_lose_all(struct movequeue *q);
/* Must the processes be classified again (moves lost, or refused and
 * the queue drained below half)?  True once. */
bool mq_take_lost(struct movequeue *q);
/* The earliest of the awaited jobs' and the held retries' deadlines
 * before t (monotonic us). */
uint64_t mq_deadline(const struct movequeue *q, uint64_t t);

#endif
