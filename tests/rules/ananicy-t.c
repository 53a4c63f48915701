/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy-t.c -- tests for rules/ananicy*.c: reading ananicy-cpp's
 * types, cgroups and rules (a directory tree with spaces and '&' in its
 * names, tests/data/ananicy.d), a rule's fields over its type's,
 * ananicy-cpp's completions, comments, malformed lines as file:line,
 * the JSON reader's corners, and the name a process is matched by.
 */
#include "rules/ananicy.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_MAX 32

struct log {
	char *msg[LOG_MAX];
	size_t n;
};

static void
log_report(void *arg, enum rules_severity sev, const char *msg)
{
	struct log *l = arg;

	(void)sev;
	if (l->n < LOG_MAX)
		l->msg[l->n++] = strdup(msg);
}

static void
log_clear(struct log *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->msg[i]);
	l->n = 0;
}

/* The one message a single line gives (or "" when none). */
static const char *
one_line(const char *text)
{
	static char last[512];
	struct ananicy_set *s = ananicy_new();
	struct log log = {0};

	if (s == NULL || ananicy_add_buffer(s, "t.rules", text, strlen(text), log_report,
					    &log) != 0)
		bail("out of memory");
	str_copy(last, sizeof(last), log.n > 0 ? log.msg[0] : "");
	log_clear(&log);
	ananicy_free(s);
	return last;
}

static const char *
resolved(const struct ananicy_set *s, const char *name)
{
	static char buf[256];
	struct ananicy_values v;

	if (!ananicy_resolve(s, name, &v, NULL))
		return "(no rule)";
	ananicy_format(&v, buf, sizeof(buf));
	return buf;
}

static void
test_dir(void)
{
	struct ananicy_set *s = ananicy_new();
	struct log log = {0};
	struct ananicy_counts n;
	const struct ananicy_entry *r;
	struct ananicy_values v;
	char dir[4096], want[4200];

	snprintf(dir, sizeof(dir), "%s/ananicy.d/", tap_data_dir());
	is_int(0, ananicy_add_dir(s, dir, log_report, &log), "the tree loads");
	ananicy_counts(s, &n);
	is_int(7, (long long)n.rules, "seven names (indexer twice, two lines bad)");
	is_int(4, (long long)n.types, "four types");
	is_int(1, (long long)n.cgroups, "one cgroup");
	is_int(2, (long long)n.malformed, "two malformed lines");
	is_int(1, (long long)n.warnings, "one warning");
	is_int(6, (long long)n.files, "six files read, README.txt not");
	is_int(3, (long long)log.n, "three messages");
	dir[strlen(dir) - 1] = '\0';
	snprintf(want, sizeof(want),
		 "%s/00-default/Audio Video/player.rules:4: \"nice\" must be an integer; "
		 "line skipped", dir);
	is_string(want, log.n > 0 ? log.msg[0] : NULL, "a bad value: file:line, sorted order");
	snprintf(want, sizeof(want),
		 "%s/00-default/Games/native.rules:3: invalid JSON: expected ',' or '}' at "
		 "column 35; line skipped", dir);
	is_string(want, log.n > 1 ? log.msg[1] : NULL, "an unclosed object");
	snprintf(want, sizeof(want),
		 "%s/00-default/Audio Video/player.rules:5: warning: type \"TODO\" is not "
		 "defined; the rule's own fields apply", dir);
	is_string(want, log.n > 2 ? log.msg[2] : NULL, "an undefined type warns");

	is_string("nice=-5 ioclass=best-effort ionice=0 sched=normal latency_nice=-5",
		  resolved(s, "Hogwarts Legacy.exe"), "a name with spaces, under 'wine & proton'");
	is_string("nice=-7 ioclass=best-effort ionice=0 sched=normal latency_nice=-7",
		  resolved(s, "The Witcher 3 Wild Hunt.exe"), "a rule's nice over its type's");
	is_string("nice=-5 ioclass=best-effort ionice=0 sched=normal latency_nice=-5",
		  resolved(s, "a_game_with_a_very_long_name"), "a name longer than comm's 15");
	is_string("(no rule)", resolved(s, "a_game_with_a_v"), "no match by the first 15 bytes");
	is_string("nice=9 ioclass=best-effort ionice=7 latency_nice=9 cgroup=cpu80",
		  resolved(s, "compiler"), "a rule's cgroup");
	is_string("nice=19 ioclass=idle sched=idle latency_nice=19", resolved(s, "indexer"),
		  "the later file's line wins; trailing '+' ignored");
	is_string("nice=-4 ioclass=realtime ionice=1 latency_nice=-4", resolved(s, "player"),
		  "a rule without a type");
	is_string("(no rule)", resolved(s, "keeper"), "a skipped line defines nothing");
	is_string("(no rule)", resolved(s, "broken"), "nor does an unclosed one");
	is_string("", resolved(s, "orphan"), "an undefined type: the rule alone");
	is_string("(no rule)", resolved(s, "ignored"), "a .txt file is not read");
	ok(ananicy_resolve(s, "indexer", &v, &r) && r != NULL && r->line == 1 &&
		   strstr(r->file, "zz-local/override.rules") != NULL,
	   "the rule says its file and line");
	r = ananicy_find(s, ANANICY_CGROUPS, "cpu80");
	ok(r != NULL && r->cpuquota == 80, "the cgroup's CPUQuota");
	log_clear(&log);
	ananicy_free(s);

	s = ananicy_new();
	snprintf(dir, sizeof(dir), "%s/no-such-ananicy.d", tap_data_dir());
	is_int(-2, ananicy_add_dir(s, dir, log_report, &log), "a missing directory: -ENOENT");
	snprintf(want, sizeof(want), "%s: No such file or directory", dir);
	is_string(want, log.n > 0 ? log.msg[0] : NULL, "and says so");
	log_clear(&log);
	ananicy_free(s);
}

static void
test_lines(void)
{
	is_string("", one_line("# comment\n   # indented\n\n\t\n"), "comments and blanks");
	is_string("", one_line("{ \"name\": \"a\" } # trailing comment"), "text after '}'");
	is_string("", one_line("junk { \"name\": \"a\" }"), "text before '{'");
	is_string("t.rules:2: not a JSON object; line skipped", one_line("\nname = a\n"),
		  "no object");
	is_string("t.rules:1: no \"name\", \"type\" or \"cgroup\"; line skipped",
		  one_line("{ \"nice\": 5 }"), "an object of nothing");
	is_string("t.rules:1: \"nice\" 20 is out of range -20..19; line skipped",
		  one_line("{\"name\":\"a\",\"nice\":20}"), "nice range");
	is_string("t.rules:1: \"ionice\" 8 is out of range 0..7; line skipped",
		  one_line("{\"name\":\"a\",\"ionice\":8}"), "ionice range");
	is_string("t.rules:1: \"oom_score_adj\" -1001 is out of range -1000..1000; line skipped",
		  one_line("{\"name\":\"a\",\"oom_score_adj\":-1001}"), "oom range");
	is_string("t.rules:1: \"nice\" must be an integer; line skipped",
		  one_line("{\"name\":\"a\",\"nice\":1.5}"), "no fractions");
	is_string("t.rules:1: \"name\" must be a string; line skipped",
		  one_line("{\"name\":5}"), "a name is a string");
	is_string("t.rules:1: \"name\" must not be empty; line skipped",
		  one_line("{\"name\":\"\"}"), "a name is not empty");
	is_string("t.rules:1: \"ioclass\" must be \"none\", \"realtime\", \"best-effort\" or "
		  "\"idle\"; line skipped",
		  one_line("{\"name\":\"a\",\"ioclass\":\"fast\"}"), "ioclass words");
	is_string("t.rules:1: \"sched\" must be \"normal\", \"other\", \"batch\", \"idle\", "
		  "\"fifo\" or \"rr\"; line skipped",
		  one_line("{\"name\":\"a\",\"sched\":\"slow\"}"), "sched words");
	is_string("t.rules:1: warning: \"sched\" \"iso\" is not supported; ignored",
		  one_line("{\"type\":\"T\",\"sched\":\"iso\",\"nice\":1}"), "iso warns");
	is_string("t.rules:1: invalid JSON: invalid escape in string at column 17; line skipped",
		  one_line("{\"name\":\"a\\u0000\"}"), "no NUL in a name");
	is_string("t.rules:1: invalid JSON: invalid UTF-8 in string at column 10; line skipped",
		  one_line("{\"name\":\"\xff\"}"), "UTF-8 checked");
	is_string("t.rules:1: invalid JSON: control character in string at column 10; "
		  "line skipped",
		  one_line("{\"name\":\"\t\"}"), "no raw tab");
	is_string("", one_line("{\"name\":\"java\",\"cmdlines\":[\"a\",{\"b\":[1,2e3,null]}]}"),
		  "unknown fields skipped, nested too");
	is_string("t.rules:1: invalid JSON: expected ',' or '}' at column 13; line skipped",
		  one_line("{\"name\":\"a\" \"nice\":1}"), "a missing comma");
}

static void
test_resolve(void)
{
	static const char text[] =
		"{ \"type\": \"RT\", \"sched\": \"fifo\", \"nice\": -2, \"latency_nice\": 3 }\n"
		"{ \"name\": \"rt1\", \"type\": \"RT\" }\n"
		"{ \"name\": \"rt2\", \"type\": \"RT\", \"rtprio\": 40, \"sched\": \"rr\" }\n"
		"{ \"name\": \"io\", \"ionice\": 3 }\n"
		"{ \"name\": \"other\", \"sched\": \"other\", \"rtprio\": 5 }\n"
		"{ \"name\": \"caf\\u00e9 \\ud83d\\ude00\", \"nice\": 1 }\n"
		"{ \"name\": \"late\", \"type\": \"Later\" }\n"
		"{ \"type\": \"Later\", \"oom_score_adj\": 1000 }\n"
		"{ \"name\": \"dup\", \"nice\": 1 }\n"
		"{ \"name\": \"dup\", \"nice\": 2, \"nice\": 3 }\n";
	struct ananicy_set *s = ananicy_new();
	struct ananicy_values v;

	if (s == NULL || ananicy_add_buffer(s, "r.rules", text, sizeof(text) - 1, NULL, NULL))
		bail("out of memory");
	is_string("nice=-2 sched=fifo rtprio=1 latency_nice=3", resolved(s, "rt1"),
		  "fifo without rtprio: 1; latency_nice named");
	is_string("nice=-2 sched=rr rtprio=40 latency_nice=3", resolved(s, "rt2"),
		  "the rule's sched and rtprio win");
	is_string("", resolved(s, "io"), "ionice without ioclass sets nothing");
	is_string("sched=normal", resolved(s, "other"), "rtprio only with fifo or rr");
	is_string("nice=1 latency_nice=1", resolved(s, "caf\xc3\xa9 \xf0\x9f\x98\x80"),
		  "\\u escapes and surrogates decode to UTF-8");
	is_string("oom_score_adj=1000", resolved(s, "late"), "a type defined after its rule");
	is_string("nice=3 latency_nice=3", resolved(s, "dup"),
		  "the last line and the last member win");
	ok(ananicy_resolve(s, "rt1", &v, NULL) && v.sched == SCHED_FIFO, "policy numbers");
	ananicy_free(s);
}

static void
test_names(void)
{
	char buf[64];

	is_string("game", ananicy_name("/opt/x/game", "/opt/y/real", "comm", buf, sizeof(buf)),
		  "argv[0]'s last part");
	is_string("HogwartsLegacy.exe",
		  ananicy_name("C:\\Program Files\\Hogwarts\\HogwartsLegacy.exe", "/usr/bin/wine64",
			       "HogwartsLegacy.", buf, sizeof(buf)),
		  "Wine's backslashes split a .exe name");
	is_string("Hogwarts Legacy.exe",
		  ananicy_name("Z:\\games\\Hogwarts Legacy.exe", NULL, NULL, buf, sizeof(buf)),
		  "spaces kept");
	is_string("a\\b", ananicy_name("/x/a\\b", NULL, NULL, buf, sizeof(buf)),
		  "backslashes are plain characters elsewhere");
	is_string("real", ananicy_name("", "/opt/y/real (deleted)", "comm", buf, sizeof(buf)),
		  "no argv[0]: exe, without ' (deleted)'");
	is_string("comm", ananicy_name(NULL, "", "comm", buf, sizeof(buf)), "then comm");
	is_string("abc", ananicy_name("/abcdef", NULL, NULL, buf, 4), "cut to the buffer");
}

/* CPUQuota is percent of all CPUs: a quota per 100 ms period. */
static void
test_quota(void)
{
	long long q = 0;
	long per = 0;

	ok(ananicy_cpu_quota(80, 4, &q, &per) == 0, "CPUQuota 80 on 4 CPUs");
	is_int(320000, q, "is 3.2 CPUs: quota 320000 us");
	is_int(100000, per, "per period 100000 us");
	ok(ananicy_cpu_quota(50, 1, &q, &per) == 0 && q == 50000, "50 on 1 CPU: 50000 us");
	ok(ananicy_cpu_quota(100, 64, &q, &per) == 0 && q == 6400000,
	   "100 on 64 CPUs: all of them");
	ok(ananicy_cpu_quota(1, 1, &q, &per) == 0 && q == 1000, "1 on 1 CPU: 1000 us");
	ok(ananicy_cpu_quota(0, 4, &q, &per) == -EINVAL, "0 percent is refused");
	ok(ananicy_cpu_quota(101, 4, &q, &per) == -EINVAL, "101 percent is refused");
	ok(ananicy_cpu_quota(50, 0, &q, &per) == -EINVAL, "no CPUs is refused");
}

/* Which cgroup a rule (or its type) puts a process in, and when none. */
static void
test_cgroup_for(void)
{
	static const char text[] =
		"{ \"cgroup\": \"cpu80\", \"CPUQuota\": 80 }\n"
		"{ \"type\": \"Capped\", \"nice\": 5, \"cgroup\": \"cpu80\" }\n"
		"{ \"name\": \"own\", \"cgroup\": \"cpu80\" }\n"
		"{ \"name\": \"typed\", \"type\": \"Capped\" }\n"
		"{ \"name\": \"undefined\", \"cgroup\": \"nosuch\" }\n"
		"{ \"name\": \"plain\", \"nice\": 1 }\n";
	struct ananicy_set *s = ananicy_new();
	const struct ananicy_entry *r;
	char dest[64];

	if (s == NULL || ananicy_add_buffer(s, "q.rules", text, sizeof(text) - 1, NULL, NULL))
		bail("cannot load");
	ok(ananicy_cgroup_for(s, "own", false, dest, sizeof(dest), &r),
	   "a rule's own cgroup places");
	is_string("/cpu80", dest, "into /NAME");
	is_int(3, r != NULL ? r->line : 0, "the rule's line decides");
	ok(ananicy_cgroup_for(s, "typed", false, dest, sizeof(dest), &r) &&
		   strcmp(dest, "/cpu80") == 0,
	   "its type's cgroup places too");
	ok(!ananicy_cgroup_for(s, "own", true, dest, sizeof(dest), &r),
	   "placed by cgrules.conf already: not by ananicy");
	ok(!ananicy_cgroup_for(s, "undefined", false, dest, sizeof(dest), &r),
	   "a cgroup no line defines places nowhere");
	ok(!ananicy_cgroup_for(s, "plain", false, dest, sizeof(dest), &r),
	   "a rule without cgroup places nowhere");
	ok(!ananicy_cgroup_for(s, "nobody", false, dest, sizeof(dest), &r) && r == NULL,
	   "nor does a name no rule names");
	ananicy_free(s);
}

int
main(void)
{
	plan(60 + 8 + 9);
	test_dir();
	test_lines();
	test_resolve();
	test_names();
	test_quota();
	test_cgroup_for();
	return tap_done();
}
