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

struct slot {
	const char *name; /* borrowed from the rule set's arena; "" = none */
	uint32_t id;
	uint8_t kind, pmode;
	bool used;
	struct rule_list list;
};

struct rules_index {
	struct slot *slots;
	size_t cap, used; /* cap is a power of two */
};

static uint64_t
hash_key(int kind, int pmode, uint32_t id, const char *name)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	h = (h ^ (uint64_t)kind) * 1099511628211ull;
	h = (h ^ (uint64_t)pmode) * 1099511628211ull;
	for (int i = 0; i < 4; i++)
		h = (h ^ ((id >> (8 * i)) & 0xff)) * 1099511628211ull;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h;
}

static struct slot *
find(const struct rules_index *ix, int kind, int pmode, uint32_t id, const char *name)
{
	size_t mask = ix->cap - 1;
	size_t i = hash_key(kind, pmode, id, name) & mask;

	for (;;) {
		struct slot *s = &ix->slots[i];

		if (!s->used || (s->kind == kind && s->pmode == pmode && s->id == id &&
				 strcmp(s->name, name) == 0))
			return s;
		i = (i + 1) & mask;
	}
}

struct rules_index *
index_new(void)
{
	struct rules_index *ix = calloc(1, sizeof(*ix));

	if (ix == NULL)
		return NULL;
	ix->cap = 64;
	ix->slots = calloc(ix->cap, sizeof(*ix->slots));
	if (ix->slots == NULL) {
		free(ix);
		return NULL;
	}
	return ix;
}

void
index_free(struct rules_index *ix)
{
	if (ix == NULL)
		return;
	for (size_t i = 0; i < ix->cap; i++)
		free(ix->slots[i].list.v);
	free(ix->slots);
	free(ix);
}

static int
grow(struct rules_index *ix)
{
	struct rules_index bigger = { .cap = ix->cap * 2 };

	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (bigger.slots == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < ix->cap; i++) {
		struct slot *old = &ix->slots[i];

		if (old->used)
			*find(&bigger, old->kind, old->pmode, old->id, old->name) = *old;
	}
	free(ix->slots);
	ix->slots = bigger.slots;
	ix->cap = bigger.cap;
	return 0;
}

int
index_add(struct rules_index *ix, int kind, int pmode, uint32_t id, const char *name,
	  uint32_t r)
{
	if (name == NULL)
		name = "";
	if ((ix->used + 1) * 2 > ix->cap && grow(ix) < 0)
		return -ENOMEM;

	struct slot *s = find(ix, kind, pmode, id, name);
	if (!s->used) {
		*s = (struct slot){
			.name = name, .id = id, .kind = kind, .pmode = pmode, .used = true
		};
		ix->used++;
	}
	struct rule_list *l = &s->list;
	if (l->n > 0 && l->v[l->n - 1] == r)
		return 0; /* filed twice under one key (e.g. member and gid) */
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 2;
		uint32_t *v = realloc(l->v, cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = r;
	return 0;
}

const struct rule_list *
index_get(const struct rules_index *ix, int kind, int pmode, uint32_t id,
	  const char *name)
{
	if (name == NULL)
		name = "";
	const struct slot *s = find(ix, kind, pmode, id, name);
	return s->used ? &s->list : NULL;
}
