/*
 * scale-t.c -- a rule set of 100,000 rules still decides correctly:
 * the matching rule last, other users' rules, and wildcards.  (Speed
 * is measured by bench/, not here.)
 */
#include "fake.h"
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

int
main(void)
{
	const size_t n = 100000;
	size_t cap = n * 64, len = 0;
	char *text = malloc(cap);
	const char *hiers[] = { "name=a", "name=b" };

	plan(5);
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
