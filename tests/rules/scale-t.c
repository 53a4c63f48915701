/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scale-t.c -- a rule set of 100,000 rules still decides correctly:
 * the matching rule last, other users' rules, and wildcards.  (Speed
 * is measured by bench/, not here.)
 */
#include "fake.h"
#include "rules/rules_private.h" /* match_cursor_limit */
#include "tests/tap/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A resolver where "uN" is uid N and "gN" is gid N. */
static int
num_user(void *arg, const char *name, uid_t *uid)
{
	if (name[0] != 'u')
		return -1;
	*uid = (uid_t)strtoul(name + 1, NULL, 10);
	return 0;
}

static int
num_group(void *arg, const char *name, gid_t *gid, uid_t **m, size_t *n)
{
	*m = NULL;
	*n = 0;
	if (name[0] != 'g')
		return -1;
	*gid = (gid_t)strtoul(name + 1, NULL, 10);
	return 0;
}

static const struct rules_names num_names = { .user = num_user, .group = num_group };

/*
 * A task in 300 groups that each carry rules: every candidate list
 * counts, the catch-all rule included (once, 256 lists were kept and
 * the rest, "*" among them, silently dropped).
 */
static void
test_many_groups(void)
{
	static gid_t groups[300];
	size_t cap = 300 * 64, len = 0;
	char *text = malloc(cap);
	const char *hiers[] = { "name=a", "name=b" };
	struct rules_decision d[2];

	/* the first rule belongs to the task's 300th group */
	len += (size_t)snprintf(text + len, cap - len, "@g1299 name=a /last-group\n");
	for (size_t i = 0; i < 300; i++) {
		groups[i] = (gid_t)(1000 + i);
		if (i < 299)
			len += (size_t)snprintf(text + len, cap - len,
						"@g%zu name=a /g%zu\n", 1000 + i, i);
	}
	len += (size_t)snprintf(text + len, cap - len, "* name=b /catchall\n");

	struct rules_options o = { .file = "groups.conf", .names = &num_names };
	struct rules_set *s = rules_parse_buffer("groups.conf", text, len, &o);
	if (s == NULL || rules_bind(s, hiers, 2) != 0)
		bail("cannot load groups.conf");
	struct rules_task t = { .pid = 1,
				.euid = 5,
				.egid = 7,
				.groups = groups,
				.ngroups = 300,
				.exe = "/bin/ls",
				.comm = "ls" };
	rules_match(s, &t, d);
	is_string("/last-group", d[0].move ? d[0].dest : NULL,
		  "300 groups: the first rule, of the 300th group, decides");
	is_string("/catchall", d[1].move ? d[1].dest : NULL,
		  "300 groups: the catch-all rule");

	/* as if memory for cursors ran out: the merge goes on without them */
	match_cursor_limit = 4;
	rules_match(s, &t, d);
	is_string("/last-group", d[0].move ? d[0].dest : NULL,
		  "without cursors: same rule");
	is_string("/catchall", d[1].move ? d[1].dest : NULL,
		  "without cursors: catch-all");
	t.ngroups = 3;
	rules_match(s, &t, d);
	is_string("/g0", d[0].move ? d[0].dest : NULL, "without cursors, 3 groups: /g0");
	match_cursor_limit = SIZE_MAX;
	rules_free(s);
	free(text);
}

int
main(void)
{
	const size_t n = 100000;
	size_t cap = n * 64, len = 0;
	char *text = malloc(cap);
	const char *hiers[] = { "name=a", "name=b" };

	plan(5 + 5);
	test_many_groups();
	for (size_t i = 0; i < n - 2; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"u%zu:prog%zu name=a /g%zu\n", i + 10, i, i);
	len += (size_t)snprintf(text + len, cap - len, "@g7:/opt/*/tool name=b /tools\n");
	len += (size_t)snprintf(text + len, cap - len, "u5 name=a /last\n");

	struct rules_options o = { .file = "big.conf", .names = &num_names };
	struct rules_set *s = rules_parse_buffer("big.conf", text, len, &o);
	if (!ok(s != NULL, "100,000 rules load"))
		bail("cannot load");
	if (rules_bind(s, hiers, 2) != 0)
		bail("bind");
	is_int((long long)n, (long long)rules_count(s), "all rules kept");

	struct rules_decision d[2];
	struct rules_task t = {
		.pid = 1, .euid = 5, .egid = 7, .exe = "/opt/x/tool", .comm = "tool"
	};
	rules_match(s, &t, d);
	is_string("/last", d[0].move ? d[0].dest : NULL, "the last rule decides name=a");
	is_string("/tools", d[1].move ? d[1].dest : NULL,
		  "the wildcard rule decides name=b");

	t.euid = 50010;
	t.exe = "/usr/bin/prog50000";
	rules_match(s, &t, d);
	is_string("/g50000", d[0].move ? d[0].dest : NULL,
		  "a rule in the middle by uid and name");
	rules_free(s);
	free(text);
	return tap_done();
}
