/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dir-t.c -- tests for reading the main rules file plus a rules
 * directory: sorted order, leftovers skipped, '%' not crossing files,
 * errors naming the drop-in file.
 */
#include "fake.h"
#include "tests/tap/tap.h"

#include <stdio.h>
#include <string.h>

static struct rules_set *
load(const char *main_file, const char *dir, struct fake_log *log)
{
	char f[4096], d[4096];
	struct rules_options o = { .file = f,
				   .dir = dir ? d : NULL,
				   .names = &fake_names,
				   .report = fake_report,
				   .report_arg = log };

	snprintf(f, sizeof(f), "%s/%s", tap_data_dir(), main_file);
	snprintf(d, sizeof(d), "%s/%s", tap_data_dir(), dir ? dir : "");
	log->n = 0;
	return rules_load(&o);
}

int
main(void)
{
	struct fake_log log;
	struct rules_set *s;
	static const char *const want[] = { "/main", "/ten", "/twenty", "/twenty-net",
					    "/last" };
	char msg[4096];

	plan(11);
	s = load("rules-main.conf", "rules.d", &log);
	if (!ok(s != NULL, "main file and directory load"))
		bail("%s", log.n ? log.msg[0] : "?");
	is_int(0, log.n, "no messages");
	is_int(5, (long long)rules_count(s), "five rules: leftovers skipped");
	for (size_t i = 0; i < 5; i++)
		is_string(want[i], rules_get(s, i)->dest, "rule %zu in sorted order", i);
	ok(strstr(rules_get(s, 1)->file, "rules.d/10-first.conf") != NULL,
	   "a rule remembers its drop-in file");
	rules_free(s);

	s = load("rules-main.conf", "no-such-dir", &log);
	ok(s != NULL && rules_count(s) == 1, "a missing directory is no error");
	rules_free(s);

	s = load("rules-main.conf", "rules-bad.d", &log);
	snprintf(msg, sizeof(msg), "%s/rules-bad.d/10-bad.conf:2: unknown option 'nope'",
		 tap_data_dir());
	is_string(msg, log.n ? log.msg[0] : NULL,
		  "error names the drop-in file and line");
	rules_free(s);
	return tap_done();
}
