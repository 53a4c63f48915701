/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config-t.c -- unit tests for engined/config.c: built-in defaults,
 * every key of SPEC 5.1, and exact error messages.
 */
#include "engined/core/core.h"
#include "tests/tap/tap.h"

#include <stdio.h>
#include <string.h>

static char last[1024];
static int nmsg;

static void
collect(void *arg, const char *msg)
{
	snprintf(last, sizeof(last), "%s", msg);
	nmsg++;
}

static struct config *
load(const char *name, bool optional)
{
	char path[4096];
	struct report rep = { .fn = collect };

	snprintf(path, sizeof(path), "%s/%s", tap_data_dir(), name);
	nmsg = 0;
	last[0] = '\0';
	return config_load(path, optional, &rep);
}

static void
expect_error(const char *file, const char *tail)
{
	char want[4096];
	struct config *c = load(file, false);

	snprintf(want, sizeof(want), "%s/%s%s", tap_data_dir(), file, tail);
	ok(c == NULL, "%s is refused", file);
	is_string(want, last, "%s: message", file);
	config_free(c);
}

int
main(void)
{
	struct config *c;

	plan(48);
	c = load("no-such.conf", true);
	ok(c != NULL, "a missing optional file gives the defaults");
	is_string("", c->file, "no file read");
	is_string("per-hierarchy",
		  c->match == RULES_PER_HIERARCHY ? "per-hierarchy" : "?",
		  "default match");
	ok(c->hierarchies == NULL, "default hierarchies: the built-in selection");
	is_string("/var/run/cgred.socket", c->sticky_socket, "default sticky socket");
	is_string("/run/cgengine/control.sock", c->control_socket,
		  "default control socket");
	is_string("syslog", c->log, "default log");
	ok(c->remove_empty, "remove-empty defaults to true");
	is_int(1000000, c->lua_instructions, "default lua-instructions");
	is_int(-10, c->nice, "default nice: raised");
	is_int(0, c->rt_priority, "no real-time priority by default");
	config_free(c);

	c = load("no-such.conf", false);
	ok(c == NULL, "a missing explicit file is an error");

	c = load("cgengined-full.conf", false);
	if (!ok(c != NULL, "the full example loads"))
		bail("%s", last);
	is_string("/srv/rules.conf", c->rules, "rules");
	is_string("", c->rules_dir, "rules-dir");
	ok(c->match == RULES_FIRST_MATCH, "first-match");
	is_int(3, (long long)c->nhierarchies, "three hierarchies");
	is_string("name=classes", c->hierarchies[2], "third hierarchy");
	is_string("", c->sticky_socket, "sticky socket disabled");
	is_int(LOG_LEVEL_DEBUG, c->log_level, "log-level");
	ok(!c->remove_empty, "remove-empty false");
	is_int(5000, c->lua_instructions, "lua-instructions");
	is_int(1048576, c->lua_memory, "lua-memory");
	is_int(8388608, c->netlink_buffer, "netlink-buffer");
	is_int(5, c->nice, "nice");
	is_int(7, c->rt_priority, "realtime-priority");
	is_int(2, (long long)c->ngroups, "two groups");
	is_string("cpu", c->groups[0].hier, "group hierarchy");
	is_string("/profs", c->groups[0].path, "group path");
	is_string("cpu.cfs_quota_us=-1",
		  c->groups[0].nset == 2 ? c->groups[0].set[1] : NULL, "group setting");
	is_int(1, (long long)c->nprofiles, "one boost profile");
	is_int(4 * 3600, c->profiles[0].max_seconds, "max-duration 4h");
	is_string("@students", c->profiles[0].allow[0], "profile allow list");
	config_free(c);

	expect_error("cgengined-unknown.conf", ":2: no such option 'bogus-key'");
	expect_error(
		"cgengined-baddur.conf",
		":4: max-duration: invalid duration \"forever\" (use 90s, 15m, 2h, 1d)");
	expect_error("cgengined-badint.conf",
		     ":1: lua-instructions: must be a positive number");
	expect_error("cgengined-badnice.conf",
		     ":1: nice: -21 is not a priority from -20 to 19");
	expect_error("cgengined-badrt.conf",
		     ":1: realtime-priority: 100 is not 0 (off) or a priority from 1 to 99");
	/* libconfuse refused it without a word (found by fuzz-config) */
	expect_error("cgengined-nul.conf", ":2: contains a NUL byte");

	is_int(5400, parse_duration("90m"), "90m");
	ok(parse_duration("1d") == 86400 && parse_duration("90s") == 90 &&
		   parse_duration("2h") == 7200 && parse_duration("15") == 15,
	   "durations: 1d 90s 2h and plain seconds");
	ok(parse_duration("h") < 0 && parse_duration("5x") < 0 &&
		   parse_duration("-5s") < 0 && parse_duration("5ss") < 0 &&
		   parse_duration("999d") < 0 && parse_duration(NULL) < 0,
	   "bad durations are refused");
	return tap_done();
}
