/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ratelimit.c -- the project's one per-user rate limiter (util.h): a
 * token bucket per uid in the project's hash map.  The table is
 * forgotten when it holds max_users uids and another one comes (every
 * user then starts with a full bucket again: harmless, and a table that
 * cannot grow without bound).
 */
#include "util.h"

struct bucket {
	double tokens;
	double last;
	bool limited; /* refused since the bucket was last full */
};

void
ratelimit_init(struct ratelimit *r, double rate, double burst, size_t max_users)
{
	r->rate = rate;
	r->burst = burst;
	r->max_users = max_users;
	map_init(&r->users, sizeof(struct bucket));
}

bool
ratelimit_take(struct ratelimit *r, uid_t uid, double now, bool *first)
{
	bool fresh;

	if (first != NULL)
		*first = false;
	if (uid == 0)
		return true;
	if (map_count(&r->users) >= r->max_users &&
	    map_find(&r->users, uid, NULL, NULL) == NULL)
		map_free(&r->users);
	struct bucket *b = map_insert(&r->users, uid, NULL, NULL, &fresh);
	if (b == NULL)
		return false; /* out of memory: refused, never let through unbounded */
	if (fresh)
		*b = (struct bucket){ .tokens = r->burst, .last = now };
	if (now > b->last) /* a clock set back refills nothing */
		b->tokens += (now - b->last) * r->rate;
	if (b->tokens >= r->burst) {
		b->tokens = r->burst;
		b->limited = false; /* it slowed down: a new episode is reported */
	}
	b->last = now;
	if (b->tokens < 1.0) {
		if (first != NULL)
			*first = !b->limited;
		b->limited = true;
		return false;
	}
	b->tokens -= 1.0;
	return true;
}

void
ratelimit_free(struct ratelimit *r)
{
	map_free(&r->users);
}
