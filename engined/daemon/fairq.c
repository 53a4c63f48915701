/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fairq.c -- held execs per user, served in turn (see fairq.h).
 *
 * The users with items queued are an array in turn order; a user who
 * comes is added at its end, a user whose last item is taken is
 * removed (the users after it move up, so the turn stays fair).  Each
 * user's items are a list through next[], from head to tail.  At most
 * FAIRQ_MAX users, so a linear search finds one: with a burst of one
 * user and a few others, a handful of comparisons.
 */
#include "fairq.h"

#include <errno.h>
#include <string.h>

void
fairq_init(struct fairq *q, unsigned budget)
{
	memset(q, 0, sizeof(*q));
	q->budget = budget > 0 ? budget : 1;
}

static struct fairq_user *
user_of(const struct fairq *q, uint32_t key)
{
	for (size_t i = 0; i < q->nusers; i++)
		if (q->users[i].key == key)
			return (struct fairq_user *)&q->users[i];
	return NULL;
}

unsigned
fairq_queued(const struct fairq *q, uint32_t key)
{
	const struct fairq_user *u = user_of(q, key);

	return u != NULL ? u->n : 0;
}

bool
fairq_room(const struct fairq *q, uint32_t key)
{
	return q->count < FAIRQ_MAX && fairq_queued(q, key) < q->budget;
}

int
fairq_push(struct fairq *q, uint32_t key, int item)
{
	struct fairq_user *u = user_of(q, key);

	if (item < 0 || item >= FAIRQ_MAX)
		return -EINVAL;
	if (q->count == FAIRQ_MAX)
		return -ENOSPC;
	if (u != NULL && u->n >= q->budget)
		return -EDQUOT;
	q->next[item] = -1;
	if (u == NULL) {
		u = &q->users[q->nusers++];
		*u = (struct fairq_user){ .key = key, .head = item, .tail = item };
	} else {
		q->next[u->tail] = item;
		u->tail = item;
	}
	u->n++;
	q->count++;
	return 0;
}

int
fairq_pop(struct fairq *q)
{
	if (q->nusers == 0)
		return -1;
	if (q->turn >= q->nusers)
		q->turn = 0;
	struct fairq_user *u = &q->users[q->turn];
	int item = u->head;

	u->head = q->next[item];
	q->count--;
	if (--u->n > 0) {
		q->turn++;
		return item;
	}
	/* the user's last item: the users after it move up, and the next
	 * of them is served next */
	memmove(u, u + 1, (q->nusers - q->turn - 1) * sizeof(*u));
	q->nusers--;
	return item;
}
