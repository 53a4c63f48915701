/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fairq-t.c -- unit tests for engined/daemon/fairq.c, the exec gate's
 * held execs per user served in turn.  Pure: no root, no I/O.
 *
 * Covered: one user's items in order; one item of each user in turn,
 * however many one user queued; a user who comes late served within a
 * round; the budget per user and the whole queue's bound; items out of
 * range; a user whose last item is taken leaves the turn and comes back
 * at its end.
 */
#include "engined/daemon/fairq.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The next n items popped, as "a b c" (-1 for empty). */
static const char *
pops(struct fairq *q, int n)
{
	static char s[512];
	size_t len = 0;

	s[0] = '\0';
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, sizeof(s) - len, "%s%d", i ? " " : "",
					fairq_pop(q));
	return s;
}

static void
test_one_user(void)
{
	struct fairq q;

	fairq_init(&q, 4);
	is_int(-1, fairq_pop(&q), "an empty queue gives nothing");
	for (int i = 0; i < 4; i++)
		is_int(0, fairq_push(&q, 1000, 10 + i), "user 1000 queues item %d", 10 + i);
	ok(!fairq_room(&q, 1000), "user 1000 has no room past its budget of 4");
	is_int(-EDQUOT, fairq_push(&q, 1000, 20), "a fifth item is refused: -EDQUOT");
	ok(fairq_room(&q, 1001), "another user has room");
	is_int(4, (long long)fairq_queued(&q, 1000), "4 queued for user 1000");
	is_string("10 11 12 13 -1", pops(&q, 5), "its items come in order, then nothing");
	is_int(0, (long long)fairq_queued(&q, 1000), "none left");
}

static void
test_turns(void)
{
	struct fairq q;

	fairq_init(&q, 8);
	for (int i = 0; i < 8; i++)
		(void)fairq_push(&q, 1000, i); /* the burst */
	is_int(0, fairq_push(&q, 2000, 100), "user 2000 queues behind 8 of user 1000");
	is_string("0 100 1 2", pops(&q, 4),
		  "user 2000's item comes after one of user 1000's, not after all 8");
	is_int(0, fairq_push(&q, 3000, 101), "user 3000 comes late");
	is_int(0, fairq_push(&q, 2000, 102), "user 2000 again");
	is_string("101 102 3 4", pops(&q, 4),
		  "user 1000 had its turn: the users who came are served before its next");
	is_int(0, fairq_push(&q, 1000, 8), "user 1000 refills");
	is_string("5 6 7 8 -1", pops(&q, 5), "the rest, in order");
}

static void
test_bounds(void)
{
	struct fairq q;
	int refused = 0;

	fairq_init(&q, 1);
	for (int i = 0; i < FAIRQ_MAX; i++)
		refused += fairq_push(&q, (uint32_t)i, i) != 0;
	is_int(0, refused, "%d users with one item each", FAIRQ_MAX);
	ok(!fairq_room(&q, 5000), "a full queue has no room for a new user");
	is_int(-ENOSPC, fairq_push(&q, 5000, 0), "a full queue refuses: -ENOSPC");
	int order = 1;
	for (int i = 0; i < FAIRQ_MAX; i++)
		order &= fairq_pop(&q) == i;
	ok(order, "served in the order the users came");
	is_int(-EINVAL, fairq_push(&q, 1, FAIRQ_MAX), "an item out of range is refused");
	is_int(-EINVAL, fairq_push(&q, 1, -1), "... and a negative one");
	fairq_init(&q, 0);
	is_int(0, fairq_push(&q, 1, 0), "a budget of 0 is 1");
	is_int(-EDQUOT, fairq_push(&q, 1, 1), "... and holds");
}

int
main(void)
{
	plan(26);
	test_one_user();
	test_turns();
	test_bounds();
	return tap_done();
}
