/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arena.c -- bump allocator for the strings of one rule set, so that
 * 100,000 rules do not cost 400,000 malloc headers.
 */
#include "rules_private.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE 65536

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	char data[];
};

char *
arena_strdup(struct arena *a, const char *s)
{
	size_t len = strlen(s) + 1;
	struct arena_chunk *c = a->head;

	if (c == NULL || c->size - c->used < len) {
		size_t size = len > CHUNK_SIZE ? len : CHUNK_SIZE;

		c = malloc(sizeof(*c) + size);
		if (c == NULL)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	char *p = c->data + c->used;
	memcpy(p, s, len);
	c->used += len;
	return p;
}

void
arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head;

	while (c != NULL) {
		struct arena_chunk *next = c->next;

		free(c);
		c = next;
	}
	a->head = NULL;
}
