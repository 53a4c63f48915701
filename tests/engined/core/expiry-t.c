/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * expiry-t.c -- unit tests for engined/expiry.c, the boosts ordered by
 * expiry: the first is always the earliest (by id among equals), each
 * boost knows its place, and a randomised run of adds and removals
 * agrees with a plain scan after every step.
 */
#include "engined/core/core_private.h"
#include "tests/tap/tap.h"

#include <stdlib.h>
#include <string.h>

#define N 3000

static struct boost pool[N];
static bool in[N];

/* The earliest boost in the pool (by expiry, then id), by a scan. */
static const struct boost *
scan_first(void)
{
	const struct boost *best = NULL;

	for (size_t i = 0; i < N; i++)
		if (in[i] &&
		    (best == NULL || pool[i].expires < best->expires ||
		     (pool[i].expires == best->expires && pool[i].id < best->id)))
			best = &pool[i];
	return best;
}

/* Does every boost in the heap sit where it says, after its parent? */
static bool
consistent(const struct expiry_heap *h)
{
	for (size_t i = 0; i < h->n; i++) {
		const struct boost *b = h->v[i], *up = i > 0 ? h->v[(i - 1) / 2] : NULL;

		if (b->heap_at != i)
			return false;
		if (up != NULL && (up->expires > b->expires ||
				   (up->expires == b->expires && up->id > b->id)))
			return false;
	}
	return true;
}

static void
test_small(void)
{
	struct expiry_heap h = { 0 };

	ok(expiry_first(&h) == NULL && expiry_count(&h) == 0,
	   "an empty heap has no first");
	time_t at[] = { 50, 10, 30, 10, 40 };
	for (unsigned i = 0; i < 5; i++) {
		pool[i] = (struct boost){ .id = 5 - i, .expires = at[i] };
		if (expiry_add(&h, &pool[i]) < 0)
			bail("out of memory");
	}
	is_int(5, (long long)expiry_count(&h), "five boosts");
	ok(expiry_first(&h) == &pool[3],
	   "the first: expiry 10, and the lower id of the two");
	expiry_remove(&h, &pool[3]);
	ok(expiry_first(&h) == &pool[1], "without it, the other one of 10");
	expiry_remove(&h, &pool[0]); /* a leaf, not the root */
	ok(expiry_first(&h) == &pool[1] && consistent(&h),
	   "removing another keeps the order");
	expiry_remove(&h, &pool[0]);
	is_int(3, (long long)expiry_count(&h), "removing one no longer in does nothing");
	expiry_remove(&h, &pool[1]);
	expiry_remove(&h, &pool[2]);
	ok(expiry_first(&h) == &pool[4], "the last one left");
	expiry_remove(&h, &pool[4]);
	ok(expiry_first(&h) == NULL, "then none");
	expiry_free(&h);
}

static void
test_random(void)
{
	struct expiry_heap h = { 0 };
	unsigned seed = 22;
	bool agree = true, placed = true;
	size_t adds = 0, removes = 0;

	memset(in, 0, sizeof(in));
	for (size_t i = 0; i < N; i++)
		pool[i] = (struct boost){ .id = (unsigned)i + 1,
					  .expires = 1000 + rand_r(&seed) % 500 };
	for (unsigned step = 0; step < 20000; step++) {
		size_t i = (size_t)rand_r(&seed) % N;

		if (!in[i]) {
			if (expiry_add(&h, &pool[i]) < 0)
				bail("out of memory");
			in[i] = true;
			adds++;
		} else if (rand_r(&seed) % 2 == 0) {
			expiry_remove(&h, &pool[i]);
			in[i] = false;
			removes++;
		} else { /* take the first, as expiry does */
			struct boost *b = expiry_first(&h);
			expiry_remove(&h, b);
			in[b - pool] = false;
			removes++;
		}
		agree = agree && expiry_first(&h) == scan_first();
		if (step % 97 == 0)
			placed = placed && consistent(&h);
	}
	ok(adds > 5000 && removes > 5000, "%zu adds and %zu removals", adds, removes);
	ok(agree, "after each, the first is the earliest a scan finds");
	ok(placed && consistent(&h), "each boost knows its place; parents expire first");
	size_t left = expiry_count(&h);
	time_t last = 0;
	bool sorted = true;
	for (struct boost *b; (b = expiry_first(&h)) != NULL;) {
		sorted = sorted && b->expires >= last;
		last = b->expires;
		expiry_remove(&h, b);
	}
	ok(left > 0 && sorted, "emptied from the first: %zu boosts in expiry order",
	   left);
	expiry_free(&h);
}

int
main(void)
{
	plan(12);
	test_small();
	test_random();
	return tap_done();
}
