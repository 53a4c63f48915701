/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map-t.c -- the project's one hash table (rules/map.c): integer keys
 * against a plain array under random inserts and removals, compound
 * keys whose hashes collide, iteration, growth, the hash of a string.
 */
#include "util/util.h"
#include "tests/tap/tap.h"

#include <stdlib.h>
#include <string.h>

#define N 4000

struct pair {
	int key;
	int value;
};

static bool
same(const void *value, const void *probe)
{
	return ((const struct pair *)value)->key == *(const int *)probe;
}

int
main(void)
{
	struct map m;
	static int model[N];
	bool fresh;
	int wrong = 0;

	plan(11);
	map_init(&m, sizeof(int));
	ok(map_find(&m, 7, NULL, NULL) == NULL, "an empty map finds nothing");
	srand(11);
	for (int round = 0; round < 300000; round++) {
		int k = 1 + rand() % (N - 1);
		if (rand() % 3 == 0) {
			int *v = map_find(&m, (uint64_t)k, NULL, NULL);
			if (v != NULL)
				map_remove(&m, v);
			model[k] = 0;
		} else {
			int *v = map_insert(&m, (uint64_t)k, NULL, NULL, &fresh);
			if (v != NULL) {
				*v = round + 1;
				model[k] = round + 1;
			}
		}
	}
	size_t count = 0;
	for (int k = 1; k < N; k++) {
		int *v = map_find(&m, (uint64_t)k, NULL, NULL);
		if ((v ? *v : 0) != model[k])
			wrong++;
		count += model[k] != 0;
	}
	is_int(0, wrong, "300,000 random inserts and removals agree with a plain array");
	is_int((long long)count, (long long)map_count(&m), "and so does the count");
	size_t cursor = 0, seen = 0;
	while (map_next(&m, &cursor) != NULL)
		seen++;
	is_int((long long)count, (long long)seen, "iteration visits every entry once");
	map_free(&m);

	/* compound keys, all with the same hash: eq tells them apart */
	map_init(&m, sizeof(struct pair));
	for (int k = 0; k < 100; k++) {
		struct pair *p = map_insert(&m, 42, same, &k, &fresh);
		if (p != NULL && fresh)
			*p = (struct pair){ .key = k, .value = k * 10 };
	}
	is_int(100, (long long)map_count(&m), "100 keys with one hash are kept apart");
	int k = 57;
	struct pair *p = map_find(&m, 42, same, &k);
	ok(p != NULL && p->value == 570, "and found by their key");
	map_insert(&m, 42, same, &k, &fresh);
	ok(!fresh, "inserting a present key finds it");
	for (k = 0; k < 100; k += 2)
		map_remove(&m, map_find(&m, 42, same, &k));
	wrong = 0;
	for (k = 0; k < 100; k++)
		wrong += (map_find(&m, 42, same, &k) != NULL) != (k % 2 == 1);
	is_int(0, wrong, "removing half of a colliding cluster keeps the other half");
	is_int(50, (long long)map_count(&m), "50 left");
	map_free(&m);

	/* string keys: FNV-1a's published values */
	ok(map_hash_str("") == 0xcbf29ce484222325ull,
	   "the hash of \"\" is FNV-1a's offset basis");
	ok(map_hash_str("a") == 0xaf63dc4c8601ec8cull, "the hash of \"a\" is FNV-1a's");
	return 0;
}
