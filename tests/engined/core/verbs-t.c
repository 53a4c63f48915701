/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs-t.c -- the control requests over the fixture core, without
 * root: who may ask what, the exact denials, and JSON that stays valid
 * whatever bytes a process name holds.
 */
#include "engined/core/core_private.h"
#include "engined/render/render.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOBODY 65534
#define DAEMON 1 /* a user the profile is not granted to */

static struct fixture fx;
static struct core *core;
static char err[512];
static struct strbuf out;
static double now = 50.0; /* the loop's clock, as requests see it */
static gid_t peer_groups[2];  /* the asking process's groups (SO_PEERGROUPS) */
static size_t npeer_groups;
#define METRICS_GID 4242 /* metrics-group of the fixture's configuration */

/* Run one request line as uid; the dispatch result. */
static int
ask(uid_t uid, bool json, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
ask(uid_t uid, bool json, const char *fmt, ...)
{
	static char line[1024];
	char *argv[64];
	int argc = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (char *w = strtok(line, " "); w != NULL && argc < 64; w = strtok(NULL, " "))
		argv[argc++] = w;
	struct verbs_request rq = { .core = core, .now = now, .uid = uid, .json = json,
				    .groups = peer_groups, .ngroups = npeer_groups };
	err[0] = '\0';
	strbuf_reset(&out);
	return render_answer(&rq, argc, argv, &out, err, sizeof(err));
}

static void
test_root_only(void)
{
	static const char *const verbs[] = { "reload", "pause", "resume", "rules", "metrics" };
	char want[128];

	for (size_t i = 0; i < 5; i++) {
		snprintf(want, sizeof(want), "permission denied: '%s' needs root", verbs[i]);
		ask(NOBODY, false, "%s", verbs[i]);
		is_string(want, err, "a user may not %s", verbs[i]);
	}
	is_int(0, ask(0, false, "pause"), "root may pause");
	ok(core_paused(core), "... and the core is paused");
	is_int(0, ask(0, false, "resume"), "root may resume");
	is_int(0, ask(0, false, "rules"), "root may list the rules");
	ok(out.p != NULL && strstr(out.p, "cgrules.conf:2: nobody:fx-www name=cgecore /www") != NULL,
	   "the rules list names file and line");
	is_int(0, ask(NOBODY, false, "status"), "anyone may ask for the status");
	is_int(0, ask(NOBODY, false, "test --user nobody --exe /usr/bin/fx-www"),
	       "anyone may run test");
	ok(out.p != NULL && strstr(out.p, "/www") != NULL, "test: fx-www of nobody wants /www");
	is_int(-EINVAL, ask(NOBODY, false, "frobnicate"), "unknown verb");
	is_string("unknown request 'frobnicate' (try 'help')", err, "... says so");
}

static void
test_explain(void)
{
	is_int(-EINVAL, ask(NOBODY, false, "explain 100"), "explain of root's process as nobody");
	is_string("no process 100 of uid 65534", err, "... is refused");
	is_int(0, ask(NOBODY, false, "explain 200"), "explain of one's own process");
	ok(out.p != NULL && strstr(out.p, "/www") != NULL, "... shows the wanted group");
	is_int(0, ask(0, false, "explain 100"), "root may explain anything");
	is_int(-EINVAL, ask(0, false, "explain 99999"), "explain of no process");
	is_string("no process 99999", err, "... says so");

	/* an exe path that is not UTF-8: still valid JSON */
	fixture_proc(&fx, 250, NOBODY, NOBODY, "/usr/bin/fx-\xff\xfe-\xc3(", 25, "/");
	is_int(0, ask(NOBODY, true, "explain 250"), "json explain of a process named in Latin-1");
	json_error_t je;
	json_t *v = json_loads(out.p ? out.p : "", 0, &je);
	ok(v != NULL, "the answer parses as JSON (%s)", v ? "ok" : je.text);
	is_string("/usr/bin/fx-\xef\xbf\xbd\xef\xbf\xbd-\xef\xbf\xbd(",
		  json_string_value(json_object_get(v, "exe")),
		  "invalid bytes become U+FFFD, the rest is kept");
	json_decref(v);
}

static void
test_boosts(void)
{
	ask(NOBODY, false, "boost 200 name=cgecore:/fast 60s");
	is_string("permission denied: a boost without --profile needs root", err,
		  "a user may not boost without a profile");
	ask(DAEMON, false, "boost --profile fast 200");
	is_string("permission denied: boost profile 'fast' is not granted to uid 1", err,
		  "a profile is only for those it is granted to");
	ask(NOBODY, false, "boost --profile fast 100 60s");
	is_string("no process 100 of uid 65534", err, "nobody may not boost root's process");
	ask(NOBODY, false, "boost --profile fast 200 2h");
	is_string("permission denied: 2h00m00s exceeds the maximum of profile 'fast' (1h00m00s)",
		  err, "nor beyond the profile's maximum");
	is_int(0, ask(NOBODY, true, "boost --profile fast 200 30m"), "nobody boosts its own");
	json_t *v = json_loads(out.p ? out.p : "", 0, NULL);
	is_int(1, json_integer_value(json_object_get(v, "id")), "... boost #1 (JSON answer)");
	json_decref(v);
	is_string("/fast", fixture_group(&fx, 200), "... and 200 is in /fast");

	is_int(0, ask(0, false, "boost 100 name=cgecore:/fast 60s"), "root boosts directly");
	is_int(0, ask(NOBODY, true, "boosts"), "nobody lists boosts");
	v = json_loads(out.p ? out.p : "", 0, NULL);
	is_int(1, (long long)json_array_size(v), "... and sees only its own");
	json_decref(v);
	ask(NOBODY, false, "unboost 2");
	is_string("permission denied: boost #2 is not yours", err, "nor may it end root's");
	is_int(0, ask(NOBODY, false, "unboost 200"), "it ends its own by pid");
	is_string("ended: #1\n", out.p ? out.p : "", "... text answer");
	is_int(0, ask(0, false, "unboost #2"), "root ends its boost by #id");
	is_int(0, (long long)core_boost_count(core), "no boost left");
	is_string("/www", fixture_group(&fx, 200), "200 back in /www");
}

/*
 * Another user's process, a kernel thread and no process at all give
 * a user one and the same answer: with hidepid, /proc hides the others'
 * processes, and the daemon must not tell which pids exist.
 */
static void
test_no_oracle(void)
{
	static const char *const asks[] = { "explain", "boost --profile" };
	char why[3][512];

	fixture_proc(&fx, 150, 0, 0, "kworker/0:1", 15, "/");
	fixture_status(&fx, 150, "Kthread", "1"); /* a kernel thread */
	for (size_t v = 0; v < 2; v++) {
		const pid_t pids[] = { 100, 150, 99999 };
		char want[64];

		for (size_t i = 0; i < 3; i++) {
			if (v == 0)
				ask(NOBODY, false, "explain %d", (int)pids[i]);
			else
				ask(NOBODY, false, "boost --profile fast %d 60s", (int)pids[i]);
			snprintf(why[i], sizeof(why[i]), "%s", err);
		}
		snprintf(want, sizeof(want), "no process %d of uid 65534", 99999);
		is_string(want, why[2], "%s of no process, as a user", asks[v]);
		snprintf(want, sizeof(want), "no process %d of uid 65534", 100);
		is_string(want, why[0], "... of root's process: the same answer");
		snprintf(want, sizeof(want), "no process %d of uid 65534", 150);
		is_string(want, why[1], "... of a kernel thread: the same answer");
	}
	ask(0, false, "explain 150");
	is_string("pid 150 is a kernel thread; cgengined never moves those", err,
		  "root is told what it is");
	ask(0, false, "explain 99999");
	is_string("no process 99999", err, "... or that there is none");
	fixture_gone(&fx, 150);
}

/* "test": ids beyond 32 bits are refused, never cut (4294967296 is not root) */
static void
test_id_range(void)
{
	static const struct {
		const char *args, *want;
	} bad[] = {
		{ "--user 4294967296", "user id 4294967296 is out of range (0 to 4294967294)" },
		{ "--user 99999999999", "user id 99999999999 is out of range (0 to 4294967294)" },
		{ "--user 4294967295", "user id 4294967295 is out of range (0 to 4294967294)" },
		{ "--user 0 --group 4294967296",
		  "group id 4294967296 is out of range (0 to 4294967294)" },
		{ "--user 0 --group 184467440737095516160",
		  "group id 184467440737095516160 is out of range (0 to 4294967294)" },
		{ "--user -1", "unknown user '-1'" },
		{ "--user 12x", "unknown user '12x'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		is_int(-EINVAL, ask(NOBODY, false, "test %s", bad[i].args), "test %s is refused",
		       bad[i].args);
		is_string(bad[i].want, err, "... %s", bad[i].want);
	}
	is_int(0, ask(NOBODY, true, "test --user 4294967294 --group 4294967294"),
	       "the largest ids are taken");
	json_t *v = json_loads(out.p ? out.p : "", 0, NULL);
	ok(json_integer_value(json_object_get(v, "uid")) == 4294967294LL &&
		   json_integer_value(json_object_get(v, "gid")) == 4294967294LL,
	   "... as they are");
	json_decref(v);
}

/* denials are logged, but not without bound */
static void
test_denial_log(void)
{
	char path[256], line[512];
	int denied = 0, summary = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/verbs.log", fx.dir);
	if (log_open(path, LOG_LEVEL_INFO) < 0)
		bail("log_open");
	now = 60.0; /* a second of its own */
	for (int i = 0; i < 20; i++)
		ask(NOBODY, false, "reload");
	now = 62.0;
	ask(NOBODY, false, "reload");
	log_close();
	if ((f = fopen(path, "r")) == NULL)
		bail("no log");
	while (fgets(line, sizeof(line), f) != NULL) {
		denied += strstr(line, "denied: 'reload' needs root") != NULL;
		summary += strstr(line, "control: 15 more denials not logged") != NULL;
	}
	fclose(f);
	is_int(6, denied, "21 denials: 5 logged in the first second, then the next one");
	is_int(1, summary, "... and one line counts the 15 not logged");
}


/*
 * explain counts the once-a-second warning of a command line given up
 * on from its own time, not from the last event's: explained again
 * 1.5 s later, with no event between, a stuck process is said again.
 * Its cmdline is a FIFO nobody writes (kernel/cmdline.c's bound).
 */
static void
test_explain_clock(void)
{
	char path[256], line[512];
	int said = 0, fd;
	FILE *f;

	fixture_proc(&fx, 300, NOBODY, NOBODY, "/usr/bin/dash", 30, "/");
	fixture_stuck_cmdline(&fx, 300);
	snprintf(path, sizeof(path), "%s/300/cmdline", fx.proc);
	snprintf(line, sizeof(line), "%s/explain.log", fx.dir);
	if (log_open(line, LOG_LEVEL_INFO) < 0)
		bail("log_open");
	now = 70.0;
	is_int(0, ask(0, false, "explain 300"),
	       "a process whose cmdline is stuck is explained");
	now = 71.5;
	is_int(0, ask(0, false, "explain 300"), "... and 1.5 s later again");
	log_close();
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) /* the stuck reads return */
		bail("open %s", path);
	close(fd);
	if ((f = fopen(line, "r")) == NULL)
		bail("no log");
	while (fgets(line, sizeof(line), f) != NULL)
		said += strstr(line, "pid 300 (uid 65534) classified without its command "
				     "line") != NULL;
	fclose(f);
	is_int(2, said, "... said both times");
	size_t left = CMDLINE_WORKERS;
	for (int i = 0; i < 200 && left > 0; i++) {
		if (i > 0)
			usleep(10000);
		left = cmdline_stop();
	}
	fixture_gone(&fx, 300);
}

/* Every verb "help" lists has a text renderer (engined/render/text.c). */
static void
test_every_verb_has_text(void)
{
	json_t *help, *v, *empty = json_object();
	struct strbuf text = { 0 };
	char missing[256] = "";
	size_t i, used = 0;

	is_int(0, ask(NOBODY, true, "help"), "json help");
	help = json_loads(out.p ? out.p : "", 0, NULL);
	json_array_foreach(help, i, v)
	{
		const char *verb = json_string_value(json_object_get(v, "verb"));

		if (render_text(verb, empty, &text) < 0 && used < sizeof(missing))
			used += (size_t)snprintf(missing + used, sizeof(missing) - used, " %s", verb);
	}
	ok(json_array_size(help) >= 14 && used == 0, "every verb has a text renderer (missing:%s)",
	   missing);
	strbuf_free(&text);
	json_decref(empty);
	json_decref(help);
}

/*
 * The Prometheus text names every counter of the status once: the
 * core's table of counters (verbs.c) and the metrics' table
 * (render/metrics.c) list the same keys.  Each counter gets a value of
 * its own; each value must show on exactly one line.
 */
static void
test_metrics_name_every_counter(void)
{
	struct strbuf text = { 0 };
	long long n = 0, lines = 0, once = 0;

	is_int(0, ask(0, true, "status"), "json status");
	json_t *st = json_loads(out.p ? out.p : "", 0, NULL);
	json_t *counts = json_object_get(st, "counters");
	for (void *it = json_object_iter(counts); it != NULL; it = json_object_iter_next(counts, it))
		json_object_iter_set_new(counts, it, json_integer(1000 + n++));
	json_object_set_new(st, "uptime", json_integer(0));
	render_text("metrics", st, &text);
	for (const char *l = text.p ? text.p : ""; *l != '\0'; l = strchr(l, '\n') + 1)
		lines += l[0] != '#';
	for (long long i = 0; i < n; i++) {
		char want[32];
		int seen = 0;

		snprintf(want, sizeof(want), " %lld\n", 1000 + i);
		for (const char *p = text.p ? text.p : ""; (p = strstr(p, want)) != NULL; p++)
			seen++;
		once += seen == 1;
	}
	ok(n >= 30 && once == n, "each of the %lld counters has one metric (%lld do)", n, once);
	is_int(n + 7, lines, "... and seven gauges follow them (the event source last)");
	strbuf_free(&text);
	json_decref(st);
}

/* metrics-group: "metrics" for its members, by the groups the asking
 * process has (not those of its user in /etc/group); nothing else. */
static void
test_metrics_group(void)
{
	peer_groups[0] = NOBODY;
	peer_groups[1] = METRICS_GID + 1;
	npeer_groups = 2;
	is_int(-EPERM, ask(NOBODY, false, "metrics"), "metrics: refused outside metrics-group");
	is_string("permission denied: 'metrics' needs root", err, "... with the usual denial");
	peer_groups[1] = METRICS_GID;
	is_int(0, ask(NOBODY, false, "metrics"), "granted to a process in metrics-group");
	ok(out.p != NULL && strstr(out.p, "\ncgengine_info{version=\"") != NULL &&
		   strstr(out.p, "\ncgengine_rule_hits_total{file=\"other\",line=\"\"} ") != NULL,
	   "... with the fleet's metrics");
	is_int(-EPERM, ask(NOBODY, false, "reload"), "the group grants nothing else: reload");
	is_int(-EPERM, ask(NOBODY, false, "rules"), "... nor rules");
	is_int(0, ask(NOBODY, true, "status"), "json status, anyone's");
	ok(out.p != NULL && strstr(out.p, "\"fleet\":") == NULL &&
		   strstr(out.p, "\"counters\":") != NULL,
	   "... has the counters but not the fleet's part (hashes, rule hits)");
	npeer_groups = 0;
}

int
main(void)
{
	alarm(30); /* an unbounded cmdline read fails the test, not hangs it */
	plan(43 + 8 + 16 + 5 + 8 + 3);
	fixture_init(&fx);
	char conf[1024];
	snprintf(conf, sizeof(conf), "%smetrics-group = \"%d\"\n", fixture_profile, METRICS_GID);
	fixture_files(&fx, conf, fixture_rules);
	fixture_proc(&fx, 100, 0, 0, "/usr/bin/bash", 10, "/");
	fixture_proc(&fx, 200, NOBODY, NOBODY, "/usr/bin/fx-www", 20, "/");
	if ((core = fixture_core(&fx)) == NULL)
		bail("no core over the fixture");
	core_start(core, 1.0);
	test_root_only();
	test_explain();
	test_boosts();
	test_no_oracle();
	test_id_range();
	test_denial_log();
	test_explain_clock();
	test_every_verb_has_text();
	test_metrics_name_every_counter();
	test_metrics_group();
	core_free(core);
	free(out.p);
	fixture_done(&fx);
	return 0;
}
