/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * askrate.c -- how often one user's requests may run the Lua hook.
 *
 * "cgenginectl test" and "explain" run the hook like a classification,
 * but in a helper of their own (policy.c's hooks_ask): what a user
 * asks can stall, kill or back off only that helper, never the one
 * that classifies real processes.  A call still holds the loop while
 * it runs (up to lua-timeout of the helper's CPU time), so each user
 * but root may have the hook run for it at most ASK_RATE times a second
 * (ASK_BURST at once); beyond that the rules alone answer, and the
 * answer says so.  A token bucket per uid, in the project's hash map;
 * the table is forgotten when it holds ASK_USERS uids (every user then
 * starts with a full bucket again: harmless).
 */
#include "core_private.h"

#include <stdlib.h>

#define ASK_RATE  1.0 /* hook runs a second for one user */
#define ASK_BURST 4.0
#define ASK_USERS 4096

struct bucket {
	double tokens;
	double last;
};

void
askrate_init(struct askrate *r)
{
	map_init(&r->users, sizeof(struct bucket));
}

bool
askrate_take(struct askrate *r, uid_t uid, double now)
{
	bool fresh;

	if (uid == 0)
		return true;
	if (map_count(&r->users) >= ASK_USERS &&
	    map_find(&r->users, uid, NULL, NULL) == NULL) {
		askrate_free(r);
		askrate_init(r);
	}
	struct bucket *b = map_insert(&r->users, uid, NULL, NULL, &fresh);
	if (b == NULL)
		return false; /* out of memory: the rules answer */
	if (fresh)
		*b = (struct bucket){ .tokens = ASK_BURST, .last = now };
	if (now > b->last) { /* a clock set back refills nothing */
		b->tokens += (now - b->last) * ASK_RATE;
		if (b->tokens > ASK_BURST)
			b->tokens = ASK_BURST;
	}
	b->last = now;
	if (b->tokens < 1.0)
		return false;
	b->tokens -= 1.0;
	return true;
}

void
askrate_free(struct askrate *r)
{
	map_free(&r->users);
}
