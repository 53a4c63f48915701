/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fairq.h -- the exec gate's held execs, queued per user and served in
 * turn (fairq.c; pure: no I/O, no allocation, no lock).
 *
 * An item is a small number below FAIRQ_MAX (gateloop.c queues the
 * watchdog slots that hold its execs), queued once at most.  A user is
 * any 32-bit key (gateloop.c: the exec'ing process's real uid) and has
 * at most `budget` items queued.  fairq_pop() takes one item of each
 * user in turn, each user's in the order they came: a user's item waits
 * behind at most one item of each other user, however many the others
 * queued.
 */
#ifndef CGENGINE_FAIRQ_H
#define CGENGINE_FAIRQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAIRQ_MAX 128 /* items queued at once at most (and users) */

/* A user with items queued: the first and last of them. */
struct fairq_user {
	uint32_t key;
	int head, tail;
	unsigned n;
};

struct fairq {
	unsigned budget;
	size_t count;			    /* items queued */
	size_t nusers, turn;		    /* users[turn] is served next */
	struct fairq_user users[FAIRQ_MAX]; /* in turn order; each has items */
	int next[FAIRQ_MAX];		    /* the item after each, or -1 */
};

/* An empty queue, each user's items at most budget (1 at least). */
void fairq_init(struct fairq *q, unsigned budget);
/* May user key queue one more item (below its budget, and the queue
 * below FAIRQ_MAX)? */
bool fairq_room(const struct fairq *q, uint32_t key);
/* Queue item for user key: 0, -EDQUOT when key has budget items queued,
 * -ENOSPC when FAIRQ_MAX are, -EINVAL for an item out of range. */
int fairq_push(struct fairq *q, uint32_t key, int item);
/* The next item (one of each user in turn), taken off; -1 when empty. */
int fairq_pop(struct fairq *q);
/* Items queued for user key. */
unsigned fairq_queued(const struct fairq *q, uint32_t key);

#endif
