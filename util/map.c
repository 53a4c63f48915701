/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map.c -- the project's one hash table: open addressing with linear
 * probing, values stored inline, backward-shift deletion (so no
 * tombstones pile up under churn), grown to keep the load at most 1/2.
 *
 * A slot is a small header (used flag, 64-bit hash) followed by the
 * value.  Keys that are small integers (pids, uids, boost ids) are
 * their own hash and need no comparison; compound keys (the rules
 * index) hash themselves and pass an equality test on the value.
 */
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct slot_head {
	uint64_t hash;
	bool used;
};

#define HEAD_SIZE                                                             \
	((sizeof(struct slot_head) + _Alignof(max_align_t) - 1) &             \
	 ~(_Alignof(max_align_t) - 1))

static struct slot_head *
head(const struct map *m, size_t i)
{
	return (struct slot_head *)(m->v + i * m->slot);
}

static void *
value(struct slot_head *h)
{
	return (unsigned char *)h + HEAD_SIZE;
}

/* Spread the bits of a hash (integer keys are their own hash). */
static size_t
home(const struct map *m, uint64_t hash)
{
	hash ^= hash >> 33;
	hash *= 0xff51afd7ed558ccdull;
	hash ^= hash >> 33;
	return (size_t)hash & (m->cap - 1);
}

void
map_init(struct map *m, size_t vsize)
{
	*m = (struct map){ .vsize = vsize };
	m->slot = (HEAD_SIZE + vsize + _Alignof(max_align_t) - 1) &
		  ~(_Alignof(max_align_t) - 1);
}

void
map_free(struct map *m)
{
	free(m->v);
	m->v = NULL;
	m->cap = m->n = 0;
}

/* The slot of hash (and probe), or the empty slot where it would go. */
static struct slot_head *
find(const struct map *m, uint64_t hash, map_eq_fn *eq, const void *probe)
{
	for (size_t i = home(m, hash);; i = (i + 1) & (m->cap - 1)) {
		struct slot_head *h = head(m, i);

		if (!h->used || (h->hash == hash && (eq == NULL || eq(value(h), probe))))
			return h;
	}
}

void *
map_find(const struct map *m, uint64_t hash, map_eq_fn *eq,
	       const void *probe)
{
	if (m->cap == 0)
		return NULL;
	struct slot_head *h = find(m, hash, eq, probe);
	return h->used ? value(h) : NULL;
}

/* The first free slot for hash (every key in a fresh table is distinct). */
static struct slot_head *
free_slot(const struct map *m, uint64_t hash)
{
	size_t i = home(m, hash);

	while (head(m, i)->used)
		i = (i + 1) & (m->cap - 1);
	return head(m, i);
}

static int
grow(struct map *m)
{
	struct map bigger = *m;

	bigger.cap = m->cap ? m->cap * 2 : 16;
	if ((bigger.v = calloc(bigger.cap, m->slot)) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		struct slot_head *h = head(m, i);

		if (h->used)
			memcpy(free_slot(&bigger, h->hash), h, m->slot);
	}
	free(m->v);
	*m = bigger;
	return 0;
}

void *
map_insert(struct map *m, uint64_t hash, map_eq_fn *eq, const void *probe,
		 bool *fresh)
{
	struct slot_head *h;

	*fresh = false;
	if (m->cap > 0 && (h = find(m, hash, eq, probe))->used)
		return value(h);
	if ((m->n + 1) * 2 > m->cap && grow(m) < 0)
		return NULL;
	h = free_slot(m, hash);
	memset(h, 0, m->slot);
	h->hash = hash;
	h->used = true;
	m->n++;
	*fresh = true;
	return value(h);
}

void
map_remove(struct map *m, void *val)
{
	size_t hole = (size_t)((unsigned char *)val - HEAD_SIZE - m->v) / m->slot;

	memset(head(m, hole), 0, m->slot);
	m->n--;
	/* backward shift: pull later entries of the cluster into the hole
	 * when the hole lies between their home and where they sit */
	for (size_t i = (hole + 1) & (m->cap - 1); head(m, i)->used;
	     i = (i + 1) & (m->cap - 1)) {
		size_t want = home(m, head(m, i)->hash);
		bool movable = hole <= i ? (want <= hole || want > i) : (want <= hole && want > i);

		if (movable) {
			memcpy(head(m, hole), head(m, i), m->slot);
			memset(head(m, i), 0, m->slot);
			hole = i;
		}
	}
}

uint64_t
map_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

size_t
map_count(const struct map *m)
{
	return m->n;
}

void *
map_next(const struct map *m, size_t *cursor)
{
	while (*cursor < m->cap) {
		struct slot_head *h = head(m, (*cursor)++);

		if (h->used)
			return value(h);
	}
	return NULL;
}
