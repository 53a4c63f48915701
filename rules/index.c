/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * index.c -- hash index from (key kind, process mode, id, name) to the
 * ordered list of rules filed under it.  Matching looks up a handful of
 * keys per task instead of scanning every rule, so its cost does not
 * grow with the size of the rules file.
 */
#include "rules_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One key and the rules filed under it (the map's value). */
struct slot {
	const char *name; /* borrowed from the rule set's arena; "" = none */
	uint32_t id;
	uint8_t kind, pmode;
	struct rule_list list;
};

struct rules_index {
	struct map map; /* hash of the key -> struct slot */
	uint32_t filed; /* a bit per (kind, process mode) any rule is filed under */
};

/* The bit of (kind, pmode) in filed; 0 for values out of its range. */
static uint32_t
filed_bit(int kind, int pmode)
{
	unsigned b = (unsigned)kind * 4 + (unsigned)pmode;

	return kind >= 0 && pmode >= 0 && pmode < 4 && b < 32 ? 1u << b : 0;
}

static uint64_t
hash_key(const struct slot *k)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	h = (h ^ (uint64_t)k->kind) * 1099511628211ull;
	h = (h ^ (uint64_t)k->pmode) * 1099511628211ull;
	for (int i = 0; i < 4; i++)
		h = (h ^ ((k->id >> (8 * i)) & 0xff)) * 1099511628211ull;
	for (const unsigned char *p = (const unsigned char *)k->name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h;
}

static bool
same_key(const void *value, const void *probe)
{
	const struct slot *a = value, *b = probe;

	return a->kind == b->kind && a->pmode == b->pmode && a->id == b->id &&
	       strcmp(a->name, b->name) == 0;
}

struct rules_index *
index_new(void)
{
	struct rules_index *ix = calloc(1, sizeof(*ix));

	if (ix != NULL)
		map_init(&ix->map, sizeof(struct slot));
	return ix;
}

void
index_free(struct rules_index *ix)
{
	size_t cursor = 0;
	struct slot *s;

	if (ix == NULL)
		return;
	while ((s = map_next(&ix->map, &cursor)) != NULL)
		if (s->list.cap > 0)
			free(s->list.u.v);
	map_free(&ix->map);
	free(ix);
}

int
index_add(struct rules_index *ix, int kind, int pmode, uint32_t id, const char *name,
	  uint32_t r)
{
	struct slot key = {
		.name = name ? name : "", .id = id, .kind = (uint8_t)kind, .pmode = (uint8_t)pmode
	};
	bool fresh;
	struct slot *s = map_insert(&ix->map, hash_key(&key), same_key, &key, &fresh);

	if (s == NULL)
		return -ENOMEM;
	if (fresh)
		*s = key;
	ix->filed |= filed_bit(kind, pmode);
	struct rule_list *l = &s->list;
	if (l->n > 0 && rule_list_at(l, l->n - 1) == r)
		return 0; /* filed twice under one key (e.g. member and gid) */
	if (l->n == 0) { /* the first: in place */
		l->u.one = r;
		l->n = 1;
		return 0;
	}
	if (l->n >= l->cap) { /* from the one in place, or full */
		uint32_t cap = l->cap ? l->cap * 2 : 4;
		uint32_t *v = realloc(l->cap ? l->u.v : NULL, cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		if (l->cap == 0)
			v[0] = l->u.one;
		l->u.v = v;
		l->cap = cap;
	}
	l->u.v[l->n++] = r;
	return 0;
}

const struct rule_list *
index_get(const struct rules_index *ix, int kind, int pmode, uint32_t id,
	  const char *name)
{
	struct slot key = {
		.name = name ? name : "", .id = id, .kind = (uint8_t)kind, .pmode = (uint8_t)pmode
	};
	uint32_t bit = filed_bit(kind, pmode);

	if (bit != 0 && (ix->filed & bit) == 0)
		return NULL; /* no rule of that kind and mode: no hash, no probe */
	const struct slot *s = map_find(&ix->map, hash_key(&key), same_key, &key);

	return s != NULL ? &s->list : NULL;
}
