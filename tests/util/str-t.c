/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * str-t.c -- util/str.c: an item of a comma-separated list.
 */
#include "util/util.h"
#include "tests/tap/tap.h"

int
main(void)
{
	plan(6);
	ok(str_list_has("cpu,cpuacct", "cpu", 3), "the first item");
	ok(str_list_has("cpu,cpuacct", "cpuacct", 7), "the last item");
	ok(!str_list_has("cpu,cpuacct", "cpua", 4), "not a prefix of an item");
	ok(!str_list_has("cpuacct", "cpu", 3), "nor of the only one");
	ok(str_list_has("net_cls,net_prio", "net_prio,x", 8), "only n bytes of tok count");
	ok(!str_list_has("", "cpu", 3), "an empty list has nothing");
	return 0;
}
