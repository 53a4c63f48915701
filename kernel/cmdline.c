/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmdline.c -- reads of /proc/PID/cmdline, and checks of the files it
 * names, that cannot freeze the daemon.
 *
 * Why it exists: reading another process's cmdline reads that
 * process's memory (the kernel's access_remote_vm on its argument
 * pages, under the mm's lock), and the process's owner decides how long
 * that takes.  Any user can make it last for ever: hold the lock for
 * reading with a read of a file mapping whose FUSE server never answers
 * (through /proc/PID/mem, say) and queue a writer (an mmap) behind it;
 * every later reader then waits too.  (Argument pages mapped from such
 * a file are no way: the kernel reads cmdline from anonymous memory
 * only.)  The same goes for what task.c does with the command line: an
 * interpreter's script and the name a process was started by are
 * checked by path (stat through /proc/PID/cwd and root, a readdir of
 * /proc/PID/fd and a stat of each fd, a read of the script's #! line,
 * realpath), and the files are the owner's: on a FUSE file system whose
 * server never answers (one the owner mounted with allow_other, or a
 * server of root's that hangs), or with a lease the owner holds on the
 * script (its open waits lease-break-time, 45 s, again and again), each
 * can block.  Done in the daemon's one loop, any of them would stop
 * classification, boosts and the control socket for every user.
 *
 * So the work for one task -- the cmdline read and, for names, the file
 * checks: one job (struct task_job, task_job_run()) -- runs in a worker
 * thread and the caller waits at most CMDLINE_WAIT_MS for it.  Past
 * that the job is abandoned: the caller gets -ETIMEDOUT, and the
 * worker, when (if ever) its job returns, drops the answer and is free
 * again.  While workers are stuck, the next job takes another, up to
 * CMDLINE_WORKERS -- but only one stuck worker per uid (the task's real
 * uid, which the caller knows from status or the event's record): while
 * a worker is stuck on a job of uid U, the next job of U fails at once,
 * without waiting, and leaves the other workers to other users.  With
 * all of them stuck (that many users, each with a stuck job) every job
 * fails at once.  A user so costs their own processes their
 * command-line-based matching, and the loop one wait, while their job
 * stays stuck; others keep theirs unless CMDLINE_WORKERS users do the
 * same, and nobody can stop the loop.
 *
 * Root (uid 0) is a uid like any: its processes are the system's
 * services, and a stuck job of theirs (a hung network file system under
 * a script, a lease a user holds on a script root runs) costs root's
 * other processes their matching while it lasts, not other users'.
 * Exempting root would let such jobs take every worker again.  A user
 * given subordinate uids (/etc/subuid, for newuidmap) runs processes of
 * many uids and can still take every worker: that costs others their
 * matching, never the loop.
 *
 * The workers touch nothing but their own slot (the job's copy of
 * procroot, pid, exe and comm in; cmdline bytes, script and invoked
 * out; one lock for the states); they block every signal, so signals
 * reach the loop's thread only.  task_job_run() keeps its buffers on
 * the worker's stack and shares no state with the loop.  The slots are
 * static: nothing is allocated, nothing is freed by an abandoned job.
 * A worker stuck at exit is never waited for: cmdline_stop(), which
 * exit() runs, ends only the idle ones.
 */
#include "kernel_private.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/*
 * CMDLINE_WAIT_MS (kernel.h), how long the loop waits for one job: a
 * cmdline read takes microseconds when the argument pages are in
 * memory, the file checks a few system calls on cached metadata; the
 * worst honest case is a swap-in or a few reads from a busy disk (tens
 * of ms).  50 ms covers that (a script on a slow network file system
 * may miss it: the process is then classified without its command
 * line, and the log says so), and is what a hostile process costs the
 * loop: once per uid while that uid's job stays stuck (then nothing:
 * the uid's next jobs fail at once), or once per classification if it
 * answers just too late.  CMDLINE_WORKERS (4): the uids whose jobs may
 * be stuck at once before every job fails at once.
 */

enum slot_state {
	SLOT_NONE,	/* no thread (never started, or stopped) */
	SLOT_IDLE,	/* the thread waits for a request */
	SLOT_ASKED,	/* a request given; its caller waits */
	SLOT_ANSWERED,	/* the job ended; the caller takes rc, buf and job's out */
	SLOT_ABANDONED, /* its caller stopped waiting; the answer is dropped */
	SLOT_QUIT,	/* cmdline_stop() asks the thread to end */
};

struct slot {
	enum slot_state state;
	pthread_t thread;
	pthread_cond_t wake; /* the thread waits here for ASKED or QUIT */
	pthread_cond_t done; /* the caller waits here for ANSWERED */
	int policy, nice;    /* the starting thread's scheduling */
	struct sched_param sched;
	struct task_job job; /* the worker's own copy (job.uid: take_slot()'s one stuck per uid) */
	size_t len;
	ssize_t rc;
	char buf[CMDLINE_READ_MAX];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct slot slots[CMDLINE_WORKERS];

/* The conditions, the callers' on the monotonic clock. */
static void
init_conds(void)
{
	pthread_condattr_t mono;

	pthread_condattr_init(&mono);
	pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
	for (size_t i = 0; i < CMDLINE_WORKERS; i++) {
		pthread_cond_init(&slots[i].wake, NULL);
		pthread_cond_init(&slots[i].done, &mono);
	}
	pthread_condattr_destroy(&mono);
}

/*
 * A fork copies no thread: in the child every slot is without one, the
 * conditions have no waiter, and the lock, held across the fork, is
 * the child's own again.  The daemon forks its Lua helper and the exec
 * gate's keepers after reads may have started workers.
 */
static void
fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void
fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

static void
fork_child(void)
{
	for (size_t i = 0; i < CMDLINE_WORKERS; i++)
		slots[i].state = SLOT_NONE;
	init_conds();
	pthread_mutex_unlock(&lock);
}

/* At exit the idle workers end (joined: nothing of theirs is left
 * allocated); stuck ones are left to the process's end. */
static void
stop_at_exit(void)
{
	(void)cmdline_stop();
}

static void
init_slots(void)
{
	init_conds();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	atexit(stop_at_exit);
}

/* A worker: one job per request, until asked to quit. */
static void *
worker(void *arg)
{
	struct slot *s = arg;

	/* the loop's priority, which a new thread does not always inherit
	 * (real-time-priority's SCHED_RESET_ON_FORK resets it): behind
	 * busy ordinary tasks, a read would miss its wait */
	(void)pthread_setschedparam(pthread_self(), s->policy, &s->sched);
	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), s->nice);
	pthread_mutex_lock(&lock);
	for (;;) {
		while (s->state != SLOT_ASKED && s->state != SLOT_QUIT)
			pthread_cond_wait(&s->wake, &lock);
		if (s->state == SLOT_QUIT)
			break;
		pthread_mutex_unlock(&lock);
		ssize_t rc = task_job_run(&s->job, s->buf, s->len); /* may never return */
		pthread_mutex_lock(&lock);
		s->rc = rc;
		if (s->state == SLOT_ABANDONED) {
			s->state = SLOT_IDLE; /* nobody waits: free again */
		} else {
			s->state = SLOT_ANSWERED;
			pthread_cond_signal(&s->done);
		}
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Start s's thread with every signal blocked and the calling thread's
 * scheduling (under lock): 0 or -errno. */
static int
start(struct slot *s)
{
	sigset_t all, old;
	int rc;

	if (pthread_getschedparam(pthread_self(), &s->policy, &s->sched) != 0) {
		s->policy = SCHED_OTHER;
		s->sched.sched_priority = 0;
	}
	s->policy &= ~SCHED_RESET_ON_FORK;
	errno = 0;
	s->nice = getpriority(PRIO_PROCESS, 0); /* the calling thread's */
	if (errno != 0)
		s->nice = 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&s->thread, NULL, worker, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return -rc;
	s->state = SLOT_IDLE;
	return 0;
}

/* An idle worker for a job of uid's, started if need be (under lock);
 * NULL if one is stuck on a job of uid's or all are (*err -ETIMEDOUT),
 * or none can start (*err its -errno). */
static struct slot *
take_slot(uid_t uid, int *err)
{
	struct slot *idle = NULL, *unstarted = NULL;

	*err = -ETIMEDOUT;
	for (size_t i = 0; i < CMDLINE_WORKERS; i++) {
		struct slot *s = &slots[i];

		if (s->state == SLOT_ABANDONED && s->job.uid == uid)
			return NULL; /* uid's one stuck worker */
		if (s->state == SLOT_IDLE && idle == NULL)
			idle = s;
		if (s->state == SLOT_NONE && unstarted == NULL)
			unstarted = s;
	}
	if (idle != NULL)
		return idle;
	if (unstarted == NULL || (*err = start(unstarted)) < 0)
		return NULL;
	return unstarted;
}

static struct timespec
deadline(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_nsec += CMDLINE_WAIT_MS * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* Job j's in into the worker's copy w. */
static void
job_in(struct task_job *w, const struct task_job *j)
{
	str_copy(w->procroot, sizeof(w->procroot), j->procroot);
	w->pid = j->pid;
	w->uid = j->uid;
	w->names = j->names;
	if (!j->names)
		return;
	str_copy(w->comm, sizeof(w->comm), j->comm);
	str_copy(w->exe, sizeof(w->exe), j->exe);
}

ssize_t
cmdline_run(struct task_job *j, char *buf, size_t len)
{
	struct slot *s;
	ssize_t n;
	int err;

	if (len == 0)
		return -EINVAL;
	pthread_once(&once, init_slots);
	pthread_mutex_lock(&lock);
	if ((s = take_slot(j->uid, &err)) == NULL) {
		pthread_mutex_unlock(&lock);
		return err;
	}
	job_in(&s->job, j);
	s->len = len < sizeof(s->buf) ? len : sizeof(s->buf);
	s->state = SLOT_ASKED;
	pthread_cond_signal(&s->wake);
	struct timespec until = deadline();
	while (s->state == SLOT_ASKED &&
	       pthread_cond_timedwait(&s->done, &lock, &until) != ETIMEDOUT)
		;
	if (s->state == SLOT_ANSWERED) {
		n = s->rc;
		if (n >= 0 && buf != NULL)
			memcpy(buf, s->buf, (size_t)n + 1); /* with its NUL */
		if (n >= 0 && j->names) {
			str_copy(j->script, sizeof(j->script), s->job.script);
			str_copy(j->invoked, sizeof(j->invoked), s->job.invoked);
		}
		s->state = SLOT_IDLE;
	} else {
		s->state = SLOT_ABANDONED; /* the worker drops its answer */
		n = -ETIMEDOUT;
	}
	pthread_mutex_unlock(&lock);
	return n;
}

size_t
cmdline_stop(void)
{
	bool ending[CMDLINE_WORKERS] = { false };
	size_t stuck = 0;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < CMDLINE_WORKERS; i++) {
		if (slots[i].state != SLOT_IDLE) {
			stuck += slots[i].state != SLOT_NONE; /* not waited for */
			continue;
		}
		slots[i].state = SLOT_QUIT;
		pthread_cond_signal(&slots[i].wake);
		ending[i] = true;
	}
	pthread_mutex_unlock(&lock);
	for (size_t i = 0; i < CMDLINE_WORKERS; i++) {
		if (!ending[i])
			continue;
		pthread_join(slots[i].thread, NULL);
		pthread_mutex_lock(&lock);
		slots[i].state = SLOT_NONE;
		pthread_mutex_unlock(&lock);
	}
	return stuck;
}
