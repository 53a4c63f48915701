/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config-t.c -- unit tests for engined/config.c: built-in defaults,
 * every key of cgengined.conf(5), and exact error messages.
 */
#include "engined/core/core_private.h"
#include "tests/tap/tap.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Load text written to a file of the build tree. */
static struct config *
load_text(const char *text)
{
	char path[4096];
	struct report rep = { .fn = collect };
	FILE *f;

	snprintf(path, sizeof(path), "%s/config-t.conf", tap_build_dir());
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) < 0 || fclose(f) != 0)
		bail("cannot write %s", path);
	nmsg = 0;
	last[0] = '\0';
	return config_load(path, false, &rep);
}

/* text is refused with "FILE:tail" (FILE the file load_text wrote) */
static void
refused(const char *text, const char *tail, const char *why)
{
	char want[4096];
	struct config *c = load_text(text);

	snprintf(want, sizeof(want), "%s/config-t.conf%s", tap_build_dir(), tail);
	ok(c == NULL && nmsg == 1, "%s is refused", why);
	is_string(want, last, "... %s", tail);
	config_free(c);
}

/*
 * Every count and size has a range, refused outside it whatever the
 * number (lua-timeout = 9223372036854775807 once overflowed the
 * helper's deadline; 1844674407370955 meant no timeout at all).
 */
static void
test_ranges(void)
{
	static const struct {
		const char *key, *below, *min, *max, *above, *what;
		size_t off;
	} k[] = {
		{ "lua-instructions", "999", "1000", "1000000000", "1000000001",
		  "a budget from 1000 to 1000000000 instructions",
		  offsetof(struct config, lua_instructions) },
		{ "lua-memory", "65535", "65536", "17179869184", "17179869185",
		  "a size from 65536 to 17179869184 bytes", offsetof(struct config, lua_memory) },
		{ "lua-timeout", "0", "1", "10000", "10001", "a time from 1 to 10000 ms",
		  offsetof(struct config, lua_timeout) },
		{ "netlink-buffer", "0", "1", "268435456", "268435457",
		  "a size from 1 to 268435456 bytes", offsetof(struct config, netlink_buffer) },
		{ "bpf-buffer", "0", "1", "67108864", "67108865",
		  "a size from 1 to 67108864 bytes", offsetof(struct config, bpf_buffer) },
		{ "boosts-per-user", "0", "1", "100000", "100001",
		  "a number of boosts from 1 to 100000",
		  offsetof(struct config, boosts_per_user) },
	};
	char text[256], tail[512], desc[256];

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		const char *edge[] = { k[i].min, k[i].max };
		for (size_t e = 0; e < 2; e++) {
			snprintf(text, sizeof(text), "%s = %s\n", k[i].key, edge[e]);
			struct config *c = load_text(text);
			ok(c != NULL && *(long *)((char *)c + k[i].off) == atol(edge[e]),
			   "%s = %s is taken", k[i].key, edge[e]);
			config_free(c);
		}
		const char *bad[] = { k[i].below, k[i].above };
		for (size_t e = 0; e < 2; e++) {
			snprintf(text, sizeof(text), "\n%s = %s\n", k[i].key, bad[e]);
			snprintf(tail, sizeof(tail), ":2: %s: %s is not %s", k[i].key, bad[e],
				 k[i].what);
			snprintf(desc, sizeof(desc), "%s = %s", k[i].key, bad[e]);
			refused(text, tail, desc);
		}
	}
	refused("lua-timeout = 9223372036854775807\n",
		":1: lua-timeout: 9223372036854775807 is not a time from 1 to 10000 ms",
		"the largest long as lua-timeout");
	refused("lua-timeout = 1844674407370955\n",
		":1: lua-timeout: 1844674407370955 is not a time from 1 to 10000 ms",
		"a lua-timeout whose microseconds wrap");
	refused("lua-memory = 99999999999999999999999\n",
		":1: lua-memory: 99999999999999999999999 is not a size from 65536 to "
		"17179869184 bytes",
		"a number beyond 64 bits");
	refused("lua-timeout = 0x10\n", ":1: lua-timeout: 0x10 is not a time from 1 to 10000 ms",
		"a hexadecimal number (decimal only)");
	refused("nice = 20\n", ":1: nice: 20 is not a priority from -20 to 19", "nice = 20");
	refused("realtime-priority = -1\n",
		":1: realtime-priority: -1 is not 0 (off) or a priority from 1 to 99",
		"realtime-priority = -1");
	refused("boost-profile \"p\" {\n hierarchy = \"cpu\"\n destination = \"/f\"\n"
		" max-duration = \"366d\"\n}\n",
		":4: max-duration: invalid duration \"366d\" (1s to 365d: 90s, 15m, 2h, 1d)",
		"a max-duration beyond a year");
	struct config *c = load_text("boost-profile \"p\" {\n hierarchy = \"cpu\"\n"
				     " destination = \"/f\"\n max-duration = \"365d\"\n}\n");
	ok(c != NULL && c->profiles[0].max_seconds == 365L * 86400, "max-duration = 365d is taken");
	config_free(c);
}

/* process = {...}: each item range-checked, the fields together, the
 * line where the list ends kept for explain (and none for a section
 * without the key, after one with it). */
static void
test_process(void)
{
	refused("group \"cpu:/g\" {\n process = {\"nice=-5\",\n  \"ionice=9\"}\n}\n",
		":3: group \"cpu:/g\": process: ionice=9: ionice must be between 0 and 7",
		"an ionice out of range");
	refused("\ngroup \"cpu:/g\" { process = {\"colour=blue\"} }\n",
		":2: group \"cpu:/g\": process: colour=blue: unknown key colour (nice, ioclass, "
		"ionice, sched, rtprio, oom_score_adj or latency_nice)",
		"an unknown key");
	refused("boost-profile \"p\" {\n hierarchy = \"cpu\"\n destination = \"/f\"\n"
		" process = {\"sched=idle\", \"rtprio=3\"}\n}\n",
		":4: boost-profile \"p\": process: rtprio=3: needs sched=fifo or sched=rr, not "
		"sched=idle",
		"a profile's rtprio with sched=idle");
	struct config *c = load_text("group \"cpu:/a\" {\n process = {\"nice=-5\", "
				     "\"oom_score_adj=-1000\"}\n}\n"
				     "group \"cpu:/b\" { set = {} }\n"
				     "boost-profile \"p\" {\n hierarchy = \"cpu\"\n"
				     " destination = \"/f\"\n process = {\"ioclass=idle\"}\n}\n");
	ok(c != NULL && c->ngroups == 2 && c->nprofiles == 1, "process = is taken");
	if (c == NULL || c->ngroups != 2 || c->nprofiles != 1)
		bail("no config");
	is_int(PRIO_NICE | PRIO_OOM, c->groups[0].prio.set, "a group's fields");
	is_int(-1000, c->groups[0].prio.oom_score_adj, "and values");
	is_int(2, c->groups[0].prio_line, "and the line where its list ends");
	is_int(0, c->groups[1].prio.set | c->groups[1].prio_line,
	       "a section without process = has none");
	is_int(PRIO_IOCLASS, c->profiles[0].prio.set, "a profile's fields");
	is_int(8, c->profiles[0].prio_line, "and its line");
	config_free(c);
}

/* Group titles are destinations: nothing above the hierarchy's root
 * (group "cpu:/.." with an nft-set put the cgroup2 root's id in it). */
static void
test_group_titles(void)
{
	refused("group \"cpu:/..\" { nft-set = {\"inet t s\"} }\n",
		":1: group \"cpu:/..\": the path must not contain '..'",
		"group \"cpu:/..\" with an nft-set");
	refused("\ngroup \"unified:/a/../../x\" { set = {\"cpu.weight=5\"} }\n",
		":2: group \"unified:/a/../../x\": the path must not contain '..'",
		"a path climbing out through ..");
	refused("group \"cpu:/a\" {\n}\ngroup \"cpu:/b\" {}\ngroup \"cpu:/a\" {}\n",
		":4: group \"cpu:/a\" is defined twice (also on line 2)",
		"a group defined twice");
	struct config *c = load_text("group \"cpu:/a\" {}\ngroup \"cpu,x:/a\" {}\n"
				     "group \"cpu:/a/b\" {}\n");
	ok(c != NULL && c->ngroups == 3, "titles that differ in their hierarchy or path are distinct");
	config_free(c);
}

/* Boost profiles are checked at load like groups, not at boost time. */
static void
test_profiles(void)
{
	refused("boost-profile \"p\" {\n hierarchy = \"cpu\"\n destination = "
		"\"/../../../x\"\n}\n",
		":4: boost-profile \"p\": destination \"/../../../x\" must not contain '..'",
		"a profile's destination with ..");
	refused("boost-profile \"p\" { hierarchy = \"cpu\" destination = \"fast\" }\n",
		":1: boost-profile \"p\": destination \"fast\" must be an absolute path",
		"a relative destination");
	refused("boost-profile \"p\" { hierarchy = \"cpu\" destination = \"/a b\" }\n",
		":1: boost-profile \"p\": destination \"/a b\" must not contain blanks or "
		"control characters",
		"a destination with a blank");
	refused("boost-profile \"p\" { destination = \"/f\" }\n",
		":1: boost-profile \"p\": needs a hierarchy (one word)", "no hierarchy");
	refused("boost-profile \"two words\" { hierarchy = \"cpu\" destination = \"/f\" }\n",
		":1: boost-profile \"two words\": the name must be one word of at most 255 "
		"bytes, without blanks or control characters",
		"a profile name cgenginectl cannot send");
	refused("boost-profile \"p\" { hierarchy = \"cpu\" destination = \"/f\" }\n"
		"boost-profile \"p\" { hierarchy = \"cpu\" destination = \"/g\" }\n",
		":2: boost-profile \"p\" is defined twice (also on line 1)",
		"a profile defined twice");

	/* a hierarchy that does not exist: the policy refuses it */
	char conf[4096], mi[4096];
	snprintf(conf, sizeof(conf), "%s/config-t.conf", tap_build_dir());
	snprintf(mi, sizeof(mi), "%s/mountinfo-v1", tap_data_dir());
	struct overrides ov = { .config = conf, .config_explicit = true, .rules = "/dev/null" };
	struct report rep = { .fn = collect, .warn = collect };
	const char *texts[] = {
		"hierarchies = {\"cpu\"}\nboost-profile \"p\" {\n hierarchy = \"memory\"\n"
		" destination = \"/f\"\n}\n",
		"hierarchies = {\"cpu\"}\nboost-profile \"p\" {\n hierarchy = \"cpu\"\n"
		" destination = \"/f\"\n}\n",
	};
	for (size_t i = 0; i < 2; i++) {
		config_free(load_text(texts[i]));
		nmsg = 0;
		struct policy *p = policy_build(&ov, mi, "/proc", &rep);
		if (i == 0) {
			char want[8192];
			snprintf(want, sizeof(want),
				 "%s:5: boost-profile \"p\": hierarchy \"memory\" is not managed",
				 conf);
			ok(p == NULL, "a profile for a hierarchy not managed is refused");
			is_string(want, last, "... with file and line");
		} else {
			ok(p != NULL && nmsg == 0, "one for a managed hierarchy is taken");
		}
		policy_free(p);
	}
}

/* 20,000 group sections load (libconfuse holds one at a time: linear,
 * bench/confbench measures it), in file order, duplicates still found. */
static void
test_many_groups(void)
{
	size_t n = 20000, cap = n * 64 + 64, len = 0;
	char *text = malloc(cap);

	if (text == NULL)
		bail("out of memory");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"group \"cpu:/g%zu\" { set = {\"cpu.shares=%zu\"} }\n", i,
					i + 2);
	struct config *c = load_text(text);
	ok(c != NULL && c->ngroups == n, "20,000 group sections load");
	ok(c != NULL && strcmp(c->groups[n - 1].path, "/g19999") == 0 &&
		   c->groups[n - 1].line == n && strcmp(c->groups[n - 1].set[0], "cpu.shares=20001") == 0,
	   "... in file order, with their settings and lines");
	config_free(c);
	snprintf(text + len, cap - len, "group \"cpu:/g777\" {}\n");
	char want[4096];
	snprintf(want, sizeof(want),
		 "%s/config-t.conf:20001: group \"cpu:/g777\" is defined twice (also on line 778)",
		 tap_build_dir());
	c = load_text(text);
	ok(c == NULL, "... and a 20,001st repeating one is refused");
	is_string(want, last, "... naming both lines");
	config_free(c);
	free(text);
}

/*
 * hierarchies = {} was taken as no key: it managed every v1 hierarchy
 * of the machine.  That now takes {"all"}; an empty list is refused.
 */
static void
test_hierarchies(void)
{
	struct config *c = load_text("hierarchies = {\"all\"}\n");

	ok(c != NULL && c->hierarchies == NULL && c->nhierarchies == 0,
	   "hierarchies = {\"all\"}: the built-in selection");
	config_free(c);
	refused("log = \"stderr\"\n\n  hierarchies = {}\nnice = 0\n",
		":3: hierarchies: the list is empty; write {\"all\"} to manage every v1 "
		"hierarchy, or name them",
		"hierarchies = {}");
	refused("hierarchies = {\"cpu\"}\nhierarchies = {}\n",
		":2: hierarchies: the list is empty; write {\"all\"} to manage every v1 "
		"hierarchy, or name them",
		"hierarchies = {} after a list");
	refused("hierarchies = {\"cpu\",\n \"all\"}\n",
		":2: hierarchies: \"all\" cannot be listed with other hierarchies",
		"\"all\" with another hierarchy");
	c = load_text("hierarchies = {\"cpu\"}\n# hierarchies = {}\n");
	ok(c != NULL && c->nhierarchies == 1, "a list and a comment naming the key are taken");
	config_free(c);
}

int
main(void)
{
	struct config *c;

	plan(55 + 36 + 15 + 7 + 15 + 4 + 8 + 13 + 2);
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
	is_int(262144, c->bpf_buffer, "default bpf-buffer: 256 KiB");
	is_int(-10, c->nice, "default nice: raised");
	is_int(0, c->rt_priority, "no real-time priority by default");
	is_int(32, c->boosts_per_user, "32 boosts per user by default");
	is_string("no", c->gnome_foreground, "GNOME's app scopes are not watched by default");
	config_free(c);
	c = load_text("gnome-foreground = \"yes\"\n");
	is_string("yes", c != NULL ? c->gnome_foreground : NULL, "gnome-foreground");
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
	is_int(1048576, c->bpf_buffer, "bpf-buffer");
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
	is_int(8, c->boosts_per_user, "boosts-per-user");
	is_int(50, c->profiles[0].max_boosts, "max-boosts");
	config_free(c);

	expect_error("cgengined-unknown.conf", ":2: no such option 'bogus-key'");
	expect_error(
		"cgengined-baddur.conf",
		":4: max-duration: invalid duration \"forever\" (1s to 365d: 90s, 15m, 2h, 1d)");
	expect_error("cgengined-badint.conf",
		     ":1: lua-instructions: 0 is not a budget from 1000 to 1000000000 "
		     "instructions");
	expect_error("cgengined-badnice.conf",
		     ":1: nice: -21 is not a priority from -20 to 19");
	expect_error("cgengined-badrt.conf",
		     ":1: realtime-priority: 100 is not 0 (off) or a priority from 1 to 99");
	expect_error("cgengined-badcap.conf",
		     ":4: max-boosts: 0 is not a number of boosts from 1 to 100000");
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
	test_ranges();
	test_group_titles();
	test_process();
	test_profiles();
	test_many_groups();
	test_hierarchies();
	return tap_done();
}
