/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * expiry.c -- active boosts ordered by expiry: a binary min-heap.
 *
 * The loop asks the core before every wait when it next has something
 * to do, and the core asks for the boost that expires first: with a
 * heap that is the root, whatever the number of boosts, and adding or
 * removing one costs log n.  Each boost knows its place (heap_at), so
 * a boost that ends early (unboosted, its processes exited) leaves the
 * heap without a search.  Boosts expiring in the same second come out
 * by id, so the order never depends on the heap's history.
 */
#include "core_private.h"

#include <errno.h>
#include <stdlib.h>

static bool
before(const struct boost *a, const struct boost *b)
{
	return a->expires < b->expires || (a->expires == b->expires && a->id < b->id);
}

static void
place(struct expiry_heap *h, size_t i, struct boost *b)
{
	h->v[i] = b;
	b->heap_at = i;
}

/* Move the boost at i up while it expires before its parent. */
static void
sift_up(struct expiry_heap *h, size_t i)
{
	struct boost *b = h->v[i];

	while (i > 0 && before(b, h->v[(i - 1) / 2])) {
		place(h, i, h->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	place(h, i, b);
}

/* Move the boost at i down while a child expires before it. */
static void
sift_down(struct expiry_heap *h, size_t i)
{
	struct boost *b = h->v[i];

	for (;;) {
		size_t k = 2 * i + 1;

		if (k >= h->n)
			break;
		if (k + 1 < h->n && before(h->v[k + 1], h->v[k]))
			k++;
		if (!before(h->v[k], b))
			break;
		place(h, i, h->v[k]);
		i = k;
	}
	place(h, i, b);
}

int
expiry_add(struct expiry_heap *h, struct boost *b)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		struct boost **v = realloc(h->v, cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	h->v[h->n] = b;
	sift_up(h, h->n++);
	return 0;
}

void
expiry_remove(struct expiry_heap *h, struct boost *b)
{
	size_t i = b->heap_at;

	if (i >= h->n || h->v[i] != b)
		return; /* not in the heap */
	b->heap_at = SIZE_MAX;
	if (i == --h->n)
		return;
	place(h, i, h->v[h->n]);
	if (i > 0 && before(h->v[i], h->v[(i - 1) / 2]))
		sift_up(h, i);
	else
		sift_down(h, i);
}

void
expiry_changed(struct expiry_heap *h, struct boost *b)
{
	size_t i = b->heap_at;

	if (i >= h->n || h->v[i] != b)
		return; /* not in the heap */
	if (i > 0 && before(b, h->v[(i - 1) / 2]))
		sift_up(h, i);
	else
		sift_down(h, i);
}

struct boost *
expiry_first(const struct expiry_heap *h)
{
	return h->n > 0 ? h->v[0] : NULL;
}

size_t
expiry_count(const struct expiry_heap *h)
{
	return h->n;
}

void
expiry_free(struct expiry_heap *h)
{
	free(h->v);
	*h = (struct expiry_heap){ 0 };
}
