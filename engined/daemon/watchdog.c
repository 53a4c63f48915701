/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * watchdog.c -- the exec gate's watchdog thread: whatever the loop does,
 * no exec is held longer than the bound.
 *
 * The loop holds each exec it reads in a slot (the event's descriptor
 * and when it was read) and releases it when it has answered.  The
 * thread, every tick (half the bound), answers the slots held longer
 * than the bound, and -- when events waited unread at two ticks in a
 * row and the loop did not come round in between -- reads and answers
 * those itself.  Slot states
 * change by compare-and-swap, so each exec is answered once and the
 * thread never waits for the loop.  When nothing happens the thread
 * sleeps in poll() on the fanotify descriptor instead of ticking.
 *
 * Tiny on purpose: no allocation, no logging, no lock; a small stack;
 * every signal blocked; it only counts (the loop reads the counts).
 */
#include "gateloop.h"
#include "util/util.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define STACK_SIZE (64 * 1024)
#define IDLE_TICKS 4 /* quiet ticks before sleeping until the next event */

enum { FREE, HELD, ANSWERING, ANSWERED };

struct slot {
	atomic_int state;
	int fd;
	uint64_t since_ns;
};

struct watchdog {
	pthread_t thread;
	int gfd, kick; /* kick: an eventfd that wakes the thread */
	atomic_bool stopping, idle;
	uint64_t bound_ns;
	int tick_ms;
	atomic_uint beat;		   /* the loop came round */
	atomic_uint_fast64_t held, unread; /* answered by the thread */
	struct slot slots[WATCHDOG_SLOTS];
};

/* Answer the slots held longer than the bound. */
static void
answer_old(struct watchdog *w)
{
	uint64_t now = mono_ns();

	for (size_t i = 0; i < WATCHDOG_SLOTS; i++) {
		struct slot *s = &w->slots[i];
		int held = HELD;

		if (atomic_load(&s->state) != HELD || now - s->since_ns < w->bound_ns ||
		    !atomic_compare_exchange_strong(&s->state, &held, ANSWERING))
			continue;
		(void)execgate_allow(w->gfd, s->fd);
		atomic_store(&s->state, ANSWERED); /* the loop closes it */
		atomic_fetch_add(&w->held, 1);
	}
}

/* Wait up to timeout_ms for fd (-1: none) or a kick; is fd readable? */
static bool
readable(struct watchdog *w, int fd, int timeout_ms)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
			       { .fd = w->kick, .events = POLLIN } };
	uint64_t n;

	if (poll(p, 2, timeout_ms) < 0)
		return false;
	if (p[1].revents & POLLIN)
		(void)read(w->kick, &n, sizeof(n));
	return p[0].revents & POLLIN;
}

static bool
any_held(struct watchdog *w)
{
	for (size_t i = 0; i < WATCHDOG_SLOTS; i++)
		if (atomic_load(&w->slots[i].state) != FREE)
			return true;
	return false;
}

/* Nothing is held: sleep until an event waits or the loop holds one
 * (it kicks the thread while idle is set). */
static void
sleep_idle(struct watchdog *w)
{
	atomic_store(&w->idle, true);
	if (!any_held(w)) /* after idle is set: a slot held later kicks */
		(void)readable(w, w->gfd, -1);
	atomic_store(&w->idle, false);
}

static void *
run(void *arg)
{
	struct watchdog *w = arg;
	unsigned last = atomic_load(&w->beat);
	int quiet = 0;
	bool waited = false;

	while (!atomic_load(&w->stopping)) {
		if (quiet >= IDLE_TICKS) {
			sleep_idle(w);
			quiet = 0;
			waited = false;
			last = atomic_load(&w->beat);
			continue;
		}
		(void)readable(w, -1, w->tick_ms);
		answer_old(w);
		unsigned beat = atomic_load(&w->beat);
		bool waiting = readable(w, w->gfd, 0);
		/* events unread at two ticks in a row, and the loop did not
		 * come round in between: it is stuck elsewhere */
		if (waited && waiting && beat == last) {
			int n = execgate_allow_all(w->gfd);
			if (n > 0)
				atomic_fetch_add(&w->unread, (uint_fast64_t)n);
			waiting = false;
		}
		waited = waiting;
		bool busy = waiting || beat != last || any_held(w);
		quiet = busy ? 0 : quiet + 1;
		last = beat;
	}
	return NULL;
}

int
watchdog_start(struct watchdog **out, int gfd, unsigned bound_ms)
{
	struct watchdog *w = calloc(1, sizeof(*w));
	pthread_attr_t attr;
	sigset_t all, old;
	int rc;

	if (w == NULL)
		return -ENOMEM;
	w->gfd = gfd;
	w->bound_ns = (uint64_t)bound_ms * 1000000u;
	w->tick_ms = (int)(bound_ms / 2 > 0 ? bound_ms / 2 : 1);
	if ((w->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		rc = -errno;
		free(w);
		return rc;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits it */
	rc = -pthread_create(&w->thread, &attr, run, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc < 0) {
		close(w->kick);
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

void
watchdog_stop(struct watchdog *w)
{
	uint64_t one = 1;

	if (w == NULL)
		return;
	atomic_store(&w->stopping, true);
	if (write(w->kick, &one, sizeof(one)) == (ssize_t)sizeof(one))
		pthread_join(w->thread, NULL);
	else
		pthread_detach(w->thread); /* cannot happen with an eventfd */
	close(w->kick);
	free(w);
}

void
watchdog_beat(struct watchdog *w)
{
	atomic_fetch_add(&w->beat, 1);
}

int
watchdog_hold(struct watchdog *w, int fd)
{
	for (size_t i = 0; i < WATCHDOG_SLOTS; i++) {
		struct slot *s = &w->slots[i];

		if (atomic_load(&s->state) != FREE)
			continue;
		s->fd = fd;
		s->since_ns = mono_ns();
		atomic_store(&s->state, HELD); /* publishes fd and since_ns */
		if (atomic_load(&w->idle)) {   /* after HELD: see sleep_idle() */
			uint64_t one = 1;
			if (write(w->kick, &one, sizeof(one)) < 0)
				atomic_store(&s->state,
					     HELD); /* an eventfd does not fail */
		}
		return (int)i;
	}
	return -1;
}

bool
watchdog_answered(struct watchdog *w, int slot)
{
	return slot >= 0 && atomic_load(&w->slots[slot].state) != HELD;
}

bool
watchdog_release(struct watchdog *w, int slot)
{
	struct slot *s = &w->slots[slot];
	int held = HELD;
	bool mine = atomic_compare_exchange_strong(&s->state, &held, ANSWERING);

	if (mine)
		(void)execgate_allow(w->gfd, s->fd);
	else
		while (atomic_load(&s->state) == ANSWERING) /* the thread is writing */
			sched_yield();
	atomic_store(&s->state, FREE);
	return mine;
}

void
watchdog_take(struct watchdog *w, uint64_t *held, uint64_t *unread)
{
	*held = atomic_exchange(&w->held, 0);
	*unread = atomic_exchange(&w->unread, 0);
}
