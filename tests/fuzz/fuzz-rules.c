/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-rules.c -- the cgrules.conf parser (rules_parse_buffer) on any
 * bytes, then, for sets that load, rules_bind and rules_match with a
 * few fixed tasks under both semantics.
 *
 * Invariants: a set loads only when no error was reported; every rule
 * has a line number and a destination; every decision to move names a
 * destination that rules_dest_problem() accepts (templates expanded).
 * Names resolve through the fixed database of tests/rules/fake.c.
 */
#include "fuzz.h"
#include "rules/rules.h"
#include "tests/rules/fake.h"

#include <string.h>

static const char *const hiers[] = { "cpu,cpuacct", "net_cls", "name=classes", "memory",
				     "unified" };
#define NHIERS (sizeof(hiers) / sizeof(hiers[0]))

static const gid_t student_groups[] = { 500, 700 };
static const char *const current[NHIERS] = { "/students", "/", NULL, "/a/b", "/" };

static const struct rules_task tasks[] = {
	{ .pid = 4242,
	  .uid = 1002,
	  .euid = 1002,
	  .gid = 500,
	  .egid = 500,
	  .groups = student_groups,
	  .ngroups = 2,
	  .exe = "/usr/bin/python3",
	  .comm = "python3",
	  .script = "/opt/sim/run.py",
	  .user = "carol",
	  .group = "students",
	  .cgroups = current },
	{ .pid = 1,
	  .exe = "/sbin/init",
	  .comm = "init",
	  .user = "root",
	  .group = "root" },
	{ .pid = 77,
	  .uid = 1000,
	  .euid = 2000,
	  .gid = 600,
	  .egid = 600,
	  .exe = "/usr/lib/firefox/firefox",
	  .comm = "firefox",
	  .realtime = true },
	{ .pid = 3, .comm = "kworker/0:1" }, /* a kernel thread: no exe */
	{ .pid = 999999,
	  .uid = 4242,
	  .euid = 4242,
	  .gid = 4242,
	  .egid = 4242,
	  .exe = "/x/../..",
	  .comm = "%u/..",
	  .user = "..",
	  .group = "a/b",
	  .cgroups = current },
};

struct count {
	int errors;
};

static void
report(void *arg, enum rules_severity sev, const char *msg)
{
	struct count *c = arg;

	FUZZ_CHECK(msg != NULL && strncmp(msg, "fuzz.conf:", 10) == 0);
	if (sev == RULES_ERROR)
		c->errors++;
}

static void
match_all(struct rules_set *set)
{
	struct rules_decision dec[NHIERS];

	for (size_t i = 0; i < rules_count(set); i++) {
		const struct rules_rule *r = rules_get(set, i);
		FUZZ_CHECK(r->line > 0 && r->dest != NULL && r->controllers != NULL);
	}
	if (rules_bind(set, hiers, NHIERS) != 0)
		FUZZ_CHECK(!"binding five hierarchies cannot fail");
	for (size_t t = 0; t < sizeof(tasks) / sizeof(tasks[0]); t++) {
		rules_match(set, &tasks[t], dec);
		for (size_t h = 0; h < NHIERS; h++) {
			if (!dec[h].move)
				continue;
			FUZZ_CHECK(dec[h].rule != NULL);
			FUZZ_CHECK(memchr(dec[h].dest, '\0', sizeof(dec[h].dest)) !=
				   NULL);
			FUZZ_CHECK(rules_dest_problem(dec[h].dest) == NULL);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum rules_semantics sems[] = { RULES_PER_HIERARCHY,
						     RULES_FIRST_MATCH };

	for (size_t s = 0; s < 2; s++) {
		struct count c = { 0 };
		struct rules_options o = { .file = "fuzz.conf",
					   .semantics = sems[s],
					   .names = &fake_names,
					   .report = report,
					   .report_arg = &c };
		struct rules_set *set =
			rules_parse_buffer("fuzz.conf", (const char *)data, size, &o);

		/* NULL exactly when an error was reported */
		FUZZ_CHECK((set == NULL) == (c.errors > 0));
		if (set == NULL)
			continue; /* first-match may load what per-hierarchy refuses */
		FUZZ_CHECK(rules_semantics(set) == sems[s]);
		match_all(set);
		rules_free(set);
	}
	return 0;
}
