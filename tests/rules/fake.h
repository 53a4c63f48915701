/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fake.h -- helpers shared by the rules/ tests: a fixed user and group
 * database (so no test depends on the machine's passwd), and a report
 * callback that records every message.
 *
 *   users:  root 0, alice 1000, bob 1001, carol 1002, dave 1003, prof 2000
 *           ("ioerr" fails with -EIO)
 *   groups: root 0, students 500 (members: carol), profs 600, staff 700
 */
#ifndef CGENGINE_TESTS_FAKE_H
#define CGENGINE_TESTS_FAKE_H

#include "rules/rules.h"

extern const struct rules_names fake_names;

#define FAKE_MAX_MSGS 32
struct fake_log {
	char msg[FAKE_MAX_MSGS][512];
	int n;
};

void fake_report(void *arg, enum rules_severity sev, const char *msg);
/* Parse text as file "t.conf"; messages go to log (may be NULL). */
struct rules_set *
fake_load(const char *text, enum rules_semantics sem, struct fake_log *log);

#endif
