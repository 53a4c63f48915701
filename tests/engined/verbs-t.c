/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs-t.c -- the control requests over the fixture core, without
 * root: who may ask what, the exact denials, and JSON that stays valid
 * whatever bytes a process name holds.
 */
#include "engined/core/core_private.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOBODY 65534
#define DAEMON 1 /* a user the profile is not granted to */

static struct fixture fx;
static struct core *core;
static char err[512];
static struct strbuf out;
static double now = 50.0; /* the loop's clock, as requests see it */

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
	struct verbs_request rq = { .core = core, .now = now, .uid = uid, .json = json };
	err[0] = '\0';
	strbuf_reset(&out);
	return verbs_dispatch(&rq, argc, argv, &out, err, sizeof(err));
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
	is_string("permission denied: pid 100 belongs to another user", err, "... is denied");
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
	is_string("permission denied: pid 100 belongs to another user", err,
		  "nobody may not boost root's process");
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


int
main(void)
{
	plan(43);
	fixture_init(&fx);
	fixture_files(&fx, fixture_profile, fixture_rules);
	fixture_proc(&fx, 100, 0, 0, "/usr/bin/bash", 10, "/");
	fixture_proc(&fx, 200, NOBODY, NOBODY, "/usr/bin/fx-www", 20, "/");
	if ((core = fixture_core(&fx)) == NULL)
		bail("no core over the fixture");
	core_start(core, 1.0);
	test_root_only();
	test_explain();
	test_boosts();
	test_denial_log();
	core_free(core);
	free(out.p);
	fixture_done(&fx);
	return 0;
}
