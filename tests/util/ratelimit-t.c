/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ratelimit-t.c -- the one per-user rate limiter (util/ratelimit.c):
 * the burst, the refill, root, one report per episode, a clock set
 * back, and the table's cap.
 */
#include "util/util.h"
#include "tests/tap/tap.h"

int
main(void)
{
	struct ratelimit r;
	bool first, all = true;

	plan(15);
	ratelimit_init(&r, 2.0, 3.0, 4);
	for (int i = 0; i < 3; i++)
		all &= ratelimit_take(&r, 1000, 10.0, &first);
	ok(all, "a burst of 3 goes through");
	ok(!ratelimit_take(&r, 1000, 10.0, &first), "the 4th in the same instant does not");
	ok(first, "that refusal starts an episode");
	ok(!ratelimit_take(&r, 1000, 10.1, &first) && !first,
	   "the next refusal is the same episode");
	ok(ratelimit_take(&r, 2000, 10.1, NULL), "another user has a bucket of its own");
	ok(ratelimit_take(&r, 1000, 10.6, &first), "half a second later one token is back");
	ok(!ratelimit_take(&r, 1000, 10.6, &first) && !first,
	   "refused again, still the same episode (the bucket never filled)");
	ok(ratelimit_take(&r, 1000, 12.0, NULL), "once the bucket is full again");
	ok(ratelimit_take(&r, 1000, 12.0, NULL) && ratelimit_take(&r, 1000, 12.0, NULL),
	   "the whole burst is back");
	ok(!ratelimit_take(&r, 1000, 12.0, &first) && first, "and a new episode is reported");
	ok(!ratelimit_take(&r, 1000, 5.0, NULL), "a clock set back refills nothing");

	all = true;
	for (int i = 0; i < 100; i++)
		all &= ratelimit_take(&r, 0, 12.0, &first) && !first;
	ok(all, "root is never limited");

	for (uid_t u = 3000; u < 3003; u++)
		(void)ratelimit_take(&r, u, 12.0, NULL);
	ok(map_count(&r.users) <= 4, "the table holds at most max_users uids");
	ok(ratelimit_take(&r, 1000, 12.0, NULL), "a forgotten user starts with a full bucket");
	is_int(2, (long long)map_count(&r.users), "forgetting empties the table first");
	ratelimit_free(&r);
	return tap_done();
}
