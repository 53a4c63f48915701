/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backend-t.c -- the core over a placement backend that is not cgroupfs,
 * without root: a stand-in for the systemd backend (sdplace.c needs
 * PID 1) with its naming (sdunit.c) and asynchronous moves.  The policy
 * chooses it (backend = "systemd", root /cgengine.slice); the core makes
 * the levels and their settings through it, counts a move only when
 * the backend reports back, sees a process in a unit standing for its
 * composed group as in place, leaves alone what the backend refuses
 * (explain says why) and shows units; a reload cannot change backends.
 */
#include "engined/core/core_private.h"
#include "engined/core/core.h"
#include "engined/core/sdunit.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NOBODY 65534
#define ROOT   "/cgengine.slice"
#define SCOPE  ROOT "/cgengine-students.slice/cgengine-students-www.scope"

static struct fixture fx;
static char calls[64][300]; /* what the stand-in was asked, in order */
static size_t ncalls;
static int asked; /* times the core asked for a backend */

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
note(const char *fmt, ...)
{
	va_list ap;

	if (ncalls == 64)
		return;
	va_start(ap, fmt);
	vsnprintf(calls[ncalls++], sizeof(calls[0]), fmt, ap);
	va_end(ap);
}

static bool
called(const char *what)
{
	for (size_t i = 0; i < ncalls; i++)
		if (strcmp(calls[i], what) == 0)
			return true;
	return false;
}

static int
b_mkdir(void *arg, const struct hier *h, const char *path, bool *created)
{
	*created = !called(path);
	note("%s", path);
	return 0;
}

static int
b_set(void *arg, const struct hier *h, const char *path, const char *key,
      const char *value)
{
	struct sdprop p[SDPROP_MAX];
	int n = sdunit_props(key, value, p);

	if (n < 0)
		return n;
	note("%s %s", path, p[0].name);
	return 0;
}

static int
b_move(void *arg, const struct hier *h, const char *path, pid_t pid)
{
	if (!called(path))
		return -ENOENT; /* as sdplace.c: the core makes the levels first */
	note("move %d %s", (int)pid, path);
	return CORE_MOVE_QUEUED;
}

static int
b_rmdir(void *arg, const struct hier *h, const char *path)
{
	return 0;
}

static bool
b_is_empty(void *arg, const struct hier *h, const char *path)
{
	return false;
}

static void
b_flush(void *arg)
{
}

static int
b_logical(void *arg, const struct hier *h, const char *real, char *buf, size_t len)
{
	char rel[512];
	int rc = sdunit_logical(ROOT, "cgengine", real, rel, sizeof(rel));

	if (rc < 0)
		return rc;
	snprintf(buf, len, "%s%s", ROOT, rel);
	return 0;
}

static int
b_may_move(void *arg, const struct hier *h, const char *real, char *why, size_t len)
{
	const char *no = sdunit_refusal(real, "/system.slice/cgengined.service");

	if (no == NULL)
		return 0;
	snprintf(why, len, "%s", no);
	return -EPERM;
}

static int
b_unit(void *arg, const struct hier *h, const char *path, bool logical, char *buf,
       size_t len)
{
	if (!logical)
		return sdunit_unit_of(path, buf, len);
	return sdunit_name("cgengine", path + strlen(ROOT), "scope", buf, len);
}

static const struct core_cgfs table = {
	.mkdir = b_mkdir,
	.set = b_set,
	.move = b_move,
	.rmdir = b_rmdir,
	.is_empty = b_is_empty,
	.flush = b_flush,
	.logical = b_logical,
	.may_move = b_may_move,
	.unit = b_unit,
};

static int
choose(void *arg, enum backend_kind kind, const char *root, const struct core_cgfs **out)
{
	asked++;
	*out = kind == BACKEND_SYSTEMD && strcmp(root, ROOT) == 0 ? &table : NULL;
	return 0;
}

static void
report_diag(void *arg, const char *msg)
{
	diag("%s", msg);
}

static struct core *
new_core(void)
{
	struct report rep = { .fn = report_diag };
	struct core_options o = {
		.ov = { .config = fx.conf, .config_explicit = true },
		.env = { .procroot = fx.proc,
			 .mountinfo = fx.mountinfo,
			 .cgfs = &fx.cgfs,
			 .backend = choose },
	};

	fixture_current = &fx;
	return core_new(&o, &rep);
}

static const char rules[] = "nobody       cpu      /students\n"
			    "*:fx-www     net_cls  /www\n";
static const char conf[] = "unified-layout = {\"cpu\", \"net_cls\"}\n"
			   "backend = \"systemd\"\n"
			   "group \"cpu:/students\" { set = {\"cpu.shares=256\"} }\n";

static void
test_place(struct core *c)
{
	const struct policy *p = core_policy(c);

	ok(p->backend == BACKEND_SYSTEMD && asked == 1,
	   "the policy asked for the backend");
	is_string(ROOT, p->uroot, "the layout's root is the root slice");
	core_start(c, 1.0);
	ok(called(ROOT), "the root slice is made");
	ok(called(ROOT "/students") && called(ROOT "/students/www"), "and each level");
	ok(called(ROOT "/students CPUWeight"),
	   "the class's cpu.shares reaches the backend as cpu.weight (CPUWeight)");
	ok(called("move 200 " ROOT "/students/www"), "the browser's move is asked for");
	is_int(0, (long long)core_stats(c)->moves, "but not counted yet");
	core_move_done(c, 200, 0);
	is_int(1, (long long)core_stats(c)->moves,
	       "counted when the backend reports back");
	core_move_done(c, 400, -EACCES);
	is_int(1, (long long)core_stats(c)->move_failures, "a refusal is a failed move");
	ok(!called("move 300 " ROOT "/students/www"),
	   "a process in the scope standing for its group is in place");
	ok(!called("move 500 " ROOT "/students/www"), "the user's manager is not moved");
	ok(!called("move 1 " ROOT "/students/www"), "nor is PID 1");
}

static void
test_explain(struct core *c)
{
	char cur[256], want[256];

	is_int(DECIDE_OK, core_explain(c, 500, 0), "explain of the user's manager");
	ok(core_refusal(c) != NULL && strstr(core_refusal(c), "user@UID.service") != NULL,
	   "says why it is left alone");
	is_string("", core_composed(c), "and wants no group for it");
	is_int(DECIDE_OK, core_explain(c, 200, 0), "explain of the browser");
	ok(core_refusal(c) == NULL, "nothing refused");
	is_int(0, core_units(c, cur, sizeof(cur), want, sizeof(want)), "it has units");
	is_string("session-1.scope", cur, "the one it is in");
	is_string("cgengine-students-www.scope", want, "the one it should be in");
}

static void
test_reload(struct core *c)
{
	fixture_files(&fx,
		      "unified-layout = {\"cpu\", \"net_cls\"}\nbackend = \"cgroupfs\"\n",
		      rules);
	is_int(-EINVAL, core_reload(c, 5.0), "a reload cannot change backends");
	ok(core_policy(c)->backend == BACKEND_SYSTEMD, "the running policy stays");
	fixture_files(&fx, conf, rules);
	is_int(0, core_reload(c, 6.0), "a reload with the same backend works");
	is_int(2, asked, "and asks for the backend again (its root may change)");
}

int
main(void)
{
	plan(24);
	fixture_init(&fx);
	fixture_v2(&fx, "cpu io memory pids", "/system.slice/cgengined.service");
	fixture_files(&fx, conf, rules);
	fixture_proc(&fx, 200, NOBODY, NOBODY, "/usr/bin/fx-www", 20, "/");
	fixture_proc(&fx, 300, NOBODY, NOBODY, "/usr/bin/fx-www", 30, "/");
	fixture_proc(&fx, 500, NOBODY, NOBODY, "/usr/lib/systemd/systemd", 50, "/");
	fixture_proc(&fx, 1, 0, 0, "/usr/lib/systemd/systemd", 1, "/");
	fixture_proc_v2(&fx, 200, "/user.slice/user-65534.slice/session-1.scope");
	fixture_proc_v2(&fx, 300, SCOPE);
	fixture_proc_v2(&fx, 500,
			"/user.slice/user-65534.slice/user@65534.service/init.scope");
	fixture_proc_v2(&fx, 1, "/init.scope");
	fixture_proc(&fx, getpid(), 0, 0, "/usr/sbin/cgengined", 70, "/");
	fixture_proc_v2(&fx, getpid(), "/system.slice/cgengined.service");

	struct core *c = new_core();
	if (c == NULL)
		bail("cannot build a core over the fixture");
	test_place(c);
	test_explain(c);
	test_reload(c);
	core_free(c);
	fixture_done(&fx);
	return tap_done();
}
