/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * str-t.c -- util/str.c: an item of a comma-separated list, arrays of
 * strings; util.h's array_room: room in a growable array.
 */
#include "util/util.h"
#include "tests/tap/tap.h"

#include <stdlib.h>

int
main(void)
{
	plan(14);
	ok(str_list_has("cpu,cpuacct", "cpu", 3), "the first item");
	ok(str_list_has("cpu,cpuacct", "cpuacct", 7), "the last item");
	ok(!str_list_has("cpu,cpuacct", "cpua", 4), "not a prefix of an item");
	ok(!str_list_has("cpuacct", "cpu", 3), "nor of the only one");
	ok(str_list_has("net_cls,net_prio", "net_prio,x", 8),
	   "only n bytes of tok count");
	ok(!str_list_has("", "cpu", 3), "an empty list has nothing");

	size_t cap = 0;
	int *v = array_room(NULL, 0, &cap, sizeof(*v), 4);
	ok(v != NULL && cap == 4, "an empty array gets the first size (%zu)", cap);
	v[0] = v[1] = v[2] = v[3] = 7;
	ok(array_room(v, 3, &cap, sizeof(*v), 4) == v && cap == 4,
	   "room left: the same array");
	int *w = array_room(v, 4, &cap, sizeof(*v), 4);
	ok(w != NULL && cap == 8, "full: twice as large (%zu)", cap);
	ok(w != NULL && w[3] == 7, "with the elements kept");
	free(w != NULL ? w : v);

	char **sv = NULL;
	size_t n = 0;
	ok(!strv_has(sv, n, "a"), "an empty array of strings has nothing");
	ok(strv_add(&sv, &n, "a") == 0 && strv_add(&sv, &n, "bc") == 0 && n == 2,
	   "two strings added");
	ok(strv_has(sv, n, "bc") && strv_has(sv, n, "a"), "both are found");
	ok(!strv_has(sv, n, "b"), "a prefix of one is not");
	for (size_t i = 0; i < n; i++)
		free(sv[i]);
	free(sv);
	return 0;
}
