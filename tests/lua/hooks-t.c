/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hooks-t.c -- unit tests for lua/: the sandbox (forbidden globals,
 * bytecode, budgets, memory cap, contained errors, a balanced stack),
 * the task object, the decision/why tables, and the helper process
 * (wall-clock deadline, restarts, privileges, answer validation).
 */
#include "lua/hooks.h"
#include "tests/tap/tap.h"
#include "util/util.h"

#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[64];
static char last_log[1024];
static int nlogs, cmdline_calls;
/* Generous by default so that valgrind runs pass; the deadline tests
 * set their own. */
static long timeout_ms = 5000;
/* Deadlines of the tests that stall, scaled up under valgrind (where
 * starting a helper alone can take a few hundred ms). */
static long stall_ms = 300, slow = 1;
/* Milliseconds a busy machine (both cores taken by other work) may add
 * to a wall-clock bound that only tells a deadline from a hang. */
#define BUSY 5000

static void
logger(void *arg, enum hooks_level level, const char *msg)
{
	snprintf(last_log, sizeof(last_log), "%s", msg);
	nlogs++;
}

static const char *
user_name(void *arg, uid_t uid)
{
	return uid == 1000 ? "alice" : NULL;
}

static const char *
group_name(void *arg, gid_t gid)
{
	return gid == 100 ? "students" : NULL;
}

static int
cmdline(void *arg, char *buf, size_t len)
{
	static const char cmd[] = "/usr/bin/sim\0--batch\0input.dat";

	cmdline_calls++;
	memcpy(buf, cmd, sizeof(cmd));
	return (int)sizeof(cmd);
}

static const char *
cgroup(void *arg, const char *hier)
{
	return strcmp(hier, "cpu,cpuacct") == 0 ? "/students" : NULL;
}

static const gid_t groups[] = { 100, 27 };
static const struct hooks_task task = {
	.pid = 4242,
	.ppid = 1,
	.uid = 1000,
	.euid = 1000,
	.gid = 100,
	.egid = 100,
	.groups = groups,
	.ngroups = 2,
	.comm = "sim",
	.exe = "/usr/bin/sim",
	.cmdline = cmdline,
	.cgroup = cgroup,
};

static const char *
script(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL)
		bail("cannot write %s", path);
	fputs(text, f);
	fclose(f);
	return path;
}

static struct hooks *
load(const char *name, const char *text, long budget, long memory, char *err)
{
	struct hooks_options o = {
		.script = script(name, text),
		.instructions = budget,
		.memory = memory,
		.log = logger,
		.user_name = user_name,
		.group_name = group_name,
		.timeout_ms = timeout_ms,
	};
	err[0] = '\0';
	return hooks_load(&o, err, 512);
}

/* Slots: cpu decided by a rule, net_cls left alone. */
static void
init_slots(struct hooks_slot *s)
{
	memset(s, 0, 2 * sizeof(*s));
	s[0].hier = "cpu,cpuacct";
	s[0].set = true;
	strcpy(s[0].dest, "/students");
	s[0].why = "cgrules.conf:12";
	s[1].hier = "net_cls";
}

/* A call stopped at its deadline: of CPU time, or on a busy machine
 * perhaps first of wall-clock time. */
static bool
timed_out(int rc)
{
	return rc == -ETIMEDOUT || rc == -ETIME;
}

static int
classify(struct hooks *h, struct hooks_slot *s)
{
	init_slots(s);
	return hooks_classify(h, &task, s, 2);
}

/* The same task with another pid (scripts below act on the pid). */
static int
classify_pid(struct hooks *h, struct hooks_slot *s, pid_t pid)
{
	struct hooks_task t = task;

	t.pid = pid;
	init_slots(s);
	return hooks_classify(h, &t, s, 2);
}

static bool
untouched(const struct hooks_slot *s)
{
	return s[0].set && strcmp(s[0].dest, "/students") == 0 && !s[0].changed &&
	       !s[1].set && !s[1].changed;
}

/* The two ways a stalled call is reported: its CPU limit, or (on a
 * machine too busy to give the helper that much CPU) the wall-clock cap
 * of five times that. */
static bool
stopped_call(const char *log, long ms)
{
	char cpu[256], wall[256];

	snprintf(
		cpu, sizeof(cpu),
		"Lua hook classify() failed: timed out after %ld ms of CPU time (lua-timeout); helper killed",
		ms);
	snprintf(
		wall, sizeof(wall),
		"Lua hook classify() failed: no answer within %ld ms (5 x lua-timeout; the helper got too little CPU time); helper killed",
		ms * 5);
	return strcmp(log, cpu) == 0 || strcmp(log, wall) == 0;
}

/* Wait (up to 30 s) until pid, not reaped by us, has died: a zombie. */
static void
wait_exit(pid_t pid)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 3000; i++) {
		FILE *f = fopen(path, "r");
		char *st = NULL;

		if (f == NULL)
			return;
		if (fgets(buf, sizeof(buf), f) != NULL &&
		    (st = strrchr(buf, ')')) != NULL && st[1] == ' ' &&
		    (st[2] == 'Z' || st[2] == 'X')) {
			fclose(f);
			return;
		}
		fclose(f);
		usleep(10000);
	}
}

/* Reaped (not even a zombie)?  Pids are not reused that fast. */
static bool
gone(pid_t pid)
{
	return pid > 0 && kill(pid, 0) < 0 && errno == ESRCH;
}

static void
test_forbidden(void)
{
	static const char *const names[] = { "io",	    "os",      "package",
					     "debug",	    "load",    "loadfile",
					     "dofile",	    "require", "collectgarbage",
					     "string.dump", NULL };
	char err[512], text[512];

	for (size_t i = 0; names[i] != NULL; i++) {
		snprintf(text, sizeof(text), "assert(%s == nil, 'present')\n", names[i]);
		struct hooks *h = load("forbidden.lua", text, 100000, 1 << 22, err);
		ok(h != NULL, "%s is absent%s%s", names[i], h ? "" : ": ", err);
		hooks_free(h);
	}
	struct hooks *h = load(
		"allowed.lua",
		"assert(string.format and table.concat and math.max and utf8.char and pairs and pcall)\n",
		100000, 1 << 22, err);
	ok(h != NULL, "string, table, math, utf8 and base functions are there");
	hooks_free(h);
}

static int
writer(lua_State *L, const void *p, size_t sz, void *ud)
{
	return fwrite(p, 1, sz, ud) == sz ? 0 : 1;
}

static void
test_bytecode(void)
{
	char path[128], err[512];
	lua_State *L = luaL_newstate();
	FILE *f;

	snprintf(path, sizeof(path), "%s/bytecode.lua", dir);
	luaL_loadstring(L, "function classify() end");
	f = fopen(path, "wb");
	lua_dump(L, writer, f, 0);
	fclose(f);
	lua_close(L);
	struct hooks_options o = { .script = path,
				   .instructions = 1000,
				   .memory = 1 << 22 };
	struct hooks *h = hooks_load(&o, err, sizeof(err));
	ok(h == NULL, "bytecode is refused");
	char want[256];
	snprintf(want, sizeof(want), "%s: attempt to load a binary chunk (mode is 't')",
		 path);
	is_string(want, err, "with a message naming the file");
}

static void
test_errors_at_load(void)
{
	char err[512], want[512];
	struct hooks *h;

	h = load("syntax.lua", "function classify(\n  x = \n", 100000, 1 << 22, err);
	ok(h == NULL, "a syntax error fails the load");
	snprintf(want, sizeof(want), "%s/syntax.lua:2: ')' expected near '='", dir);
	is_string(want, err, "syntax error as file:line: message");

	h = load("init.lua", "function init()\n  error('no config')\nend\n", 100000,
		 1 << 22, err);
	ok(h == NULL, "an init() that fails fails the load");
	snprintf(want, sizeof(want), "%s/init.lua:2: no config", dir);
	is_string(want, err, "its message");

	h = load("initloop.lua", "function init() while true do end end\n", 100000,
		 1 << 22, err);
	ok(h == NULL && strstr(err, "instruction budget exceeded") != NULL,
	   "an init() that loops is stopped: %s", err);
}

static void
test_classify(void)
{
	char err[512];
	struct hooks_slot s[2];
	struct hooks *h;

	h = load("keep.lua", "function classify(task, decision, why) end\n", 100000,
		 1 << 22, err);
	ok(h && hooks_has_classify(h), "a script with classify()");
	is_int(0, classify(h, s), "returning nothing");
	ok(s[0].set && strcmp(s[0].dest, "/students") == 0 && !s[0].changed && !s[1].set,
	   "keeps the rules' decision");
	hooks_free(h);

	h = load("edit.lua",
		 "function classify(task, decision, why)\n"
		 "  if task:cgroup('cpu,cpuacct') == '/students' then\n"
		 "    decision['net_cls'] = '/www/students'\n"
		 "  end\n"
		 "  decision['cpu,cpuacct'] = nil\n"
		 "end\n",
		 100000, 1 << 22, err);
	is_int(0, classify(h, s), "editing in place");
	ok(s[1].set && strcmp(s[1].dest, "/www/students") == 0 && s[1].changed,
	   "sets a hierarchy from the task's CPU class");
	ok(!s[0].set && s[0].changed, "clears another");
	hooks_free(h);

	h = load("new.lua",
		 "function classify(task, decision, why)\n"
		 "  return { ['net_cls'] = '/batch/' .. task.user }\n"
		 "end\n",
		 100000, 1 << 22, err);
	is_int(0, classify(h, s), "returning a new table");
	ok(!s[0].set && s[1].set && strcmp(s[1].dest, "/batch/alice") == 0,
	   "replaces the decision (and task.user comes from the name callback)");
	hooks_free(h);

	h = load(
		"fields.lua",
		"function classify(t, d, why)\n"
		"  assert(t.pid == 4242 and t.ppid == 1 and t.uid == 1000 and t.euid == 1000)\n"
		"  assert(t.gid == 100 and t.egid == 100 and t.comm == 'sim' and t.exe == '/usr/bin/sim')\n"
		"  assert(t.user == 'alice' and t.group == 'students')\n"
		"  assert(#t.groups == 2 and t.groups[2] == 27)\n"
		"  assert(why['cpu,cpuacct'] == 'cgrules.conf:12' and why['net_cls'] == nil)\n"
		"  assert(cgengine.user(1000) == 'alice' and cgengine.group(100) == 'students')\n"
		"  assert(not pcall(function() why.x = 1 end), 'why is writable')\n"
		"  assert(not pcall(function() t.pid = 1 end), 'task is writable')\n"
		"  if t.cmdline[2] == '--batch' then d['net_cls'] = '/batch' end\n"
		"end\n",
		100000, 1 << 22, err);
	cmdline_calls = 0;
	last_log[0] = '\0';
	int rc = classify(h, s);
	is_int(0, rc, "every task field, why and the helpers%s%s", rc ? ": " : "",
	       last_log);
	ok(s[1].set && strcmp(s[1].dest, "/batch") == 0, "cmdline read as an array");
	is_int(1, cmdline_calls, "cmdline was read once, when asked for");
	hooks_free(h);

	h = load("nocmd.lua",
		 "function classify(t, d) d['net_cls'] = '/x' .. t.pid end\n", 100000,
		 1 << 22, err);
	cmdline_calls = 0;
	is_int(0, classify(h, s), "a hook that does not read cmdline");
	is_int(0, cmdline_calls, "never reads it");
	hooks_free(h);
}

static void
test_containment(void)
{
	char err[512];
	struct hooks_slot s[2];
	static const struct {
		const char *name, *text, *log;
	} bad[] = {
		{ "raise.lua", "function classify() error('boom') end\n", "boom" },
		{ "loop.lua", "function classify() while true do end end\n",
		  "instruction budget exceeded" },
		{ "hog.lua",
		  "function classify() local t = {} for i = 1, 1e9 do t[i] = i end end\n",
		  "not enough memory" },
		{ "badtype.lua", "function classify(t, d) d['net_cls'] = 5 end\n",
		  "decision[\"net_cls\"] must be a string or nil, not a number" },
		{ "relative.lua", "function classify(t, d) d['net_cls'] = 'www' end\n",
		  "must be an absolute path" },
		{ "dotdot.lua", "function classify(t, d) d['net_cls'] = '/a/../b' end\n",
		  "must not contain '..'" },
		{ "ret.lua", "function classify() return 7 end\n",
		  "classify must return a table or nothing, not a number" },
		{ "stale.lua",
		  "local saved\nfunction classify(t) if saved then return {x = saved.pid} end saved = t error('first') end\n",
		  "first" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hooks *h = load(bad[i].name, bad[i].text, 200000, 1 << 21, err);

		if (h == NULL) {
			ok(false, "%s loads: %s", bad[i].name, err);
			ok(false, "skipped");
			ok(false, "skipped");
			continue;
		}
		nlogs = 0;
		last_log[0] = '\0';
		int rc = classify(h, s);
		is_int(-ECANCELED, rc, "%s: the call fails", bad[i].name);
		ok(s[0].set && strcmp(s[0].dest, "/students") == 0 && !s[1].set,
		   "%s: the rules' decision stands", bad[i].name);
		ok(strstr(last_log, bad[i].log) != NULL, "%s: logged: %s", bad[i].name,
		   last_log);
		hooks_free(h);
	}

	/* the stale-task case: the second call uses a task kept from the first */
	struct hooks *h = load(
		"stale2.lua",
		"local saved\nfunction classify(t) if saved then local x = saved.pid end saved = t end\n",
		200000, 1 << 21, err);
	is_int(0, classify(h, s), "first call keeps the task");
	is_int(0, classify(h, s),
	       "a kept task reads the current call's task, harmlessly");
	hooks_free(h);
}

static void
test_many_calls(void)
{
	char err[512];
	struct hooks_slot s[2];
	struct hooks *h =
		load("many.lua",
		     "local n = 0\n"
		     "function classify(t, d)\n"
		     "  n = n + 1\n"
		     "  if n % 3 == 0 then error('every third') end\n"
		     "  if n % 3 == 1 then return { ['net_cls'] = '/n/' .. n } end\n"
		     "end\n",
		     100000, 1 << 22, err);
	int depth = hooks_stack_depth(h), failures = 0, moved = 0;
	double t0 = (mono_s() * 1e3);
	nlogs = 0;

	for (int i = 0; i < 10000; i++) {
		if (classify(h, s) < 0)
			failures++;
		else if (s[1].set)
			moved++;
	}
	double took = (mono_s() * 1e3) - t0;
	diag("10,000 calls through the helper: %.1f us per call", took * 1000 / 10000);
	ok(depth >= 0, "the helper tells its stack depth (%d)", depth);
	is_int(depth, hooks_stack_depth(h),
	       "the Lua stack is balanced after 10,000 calls");
	is_int(3333, failures, "a third of them failed");
	is_int(3334, moved, "a third of them moved");
	is_int(10000, (long long)hooks_stats(h)->calls, "calls counted");
	is_int(3333, (long long)hooks_stats(h)->errors, "errors counted");
	/* at most one line a second (10,000 calls are slow under valgrind) */
	ok(nlogs <= 1 + (int)(took / 1000),
	   "failures are logged rate-limited (%d lines in %.1f s)", nlogs, took / 1000);
	hooks_free(h);
}

/* A hook that stalls inside C (where the instruction budget does not
 * count) is stopped by the wall-clock deadline; the helper is killed,
 * reaped and replaced, and the next call works. */
static void
test_deadline(void)
{
	static const struct {
		const char *name, *stall;
	} stalls[] = {
		{ "pattern", "string.rep('a', 2000):find('.-.-.-.-b')" },
		{ "C loop", "string.rep('', 1e18)" },
	};
	char err[512], text[512];
	struct hooks_slot s[2];

	timeout_ms = stall_ms;
	for (size_t i = 0; i < 2; i++) {
		snprintf(text, sizeof(text),
			 "function classify(t, d)\n"
			 "  if t.pid == 13 then error('unlucky') end\n"
			 "  if t.pid == 666 then %s end\n"
			 "  d['net_cls'] = '/ok/' .. t.pid\n"
			 "end\n",
			 stalls[i].stall);
		struct hooks *h = load("stall.lua", text, 1000000, 1 << 22, err);
		if (h == NULL)
			bail("stall.lua: %s", err);
		pid_t first = hooks_helper_pid(h);
		last_log[0] = '\0';
		double t0 = (mono_s() * 1e3);
		int rc = classify_pid(h, s, 666);
		double took = (mono_s() * 1e3) - t0;
		ok(timed_out(rc), "%s: a stalled call fails (%d)", stalls[i].name, rc);
		/* 300 ms of CPU time: as much wall-clock time on an idle
		 * machine, at most five times that on a busy one (plus the
		 * time this process waits for a CPU: BUSY) */
		ok(took >= stall_ms - 10 && took < stall_ms * 5 + BUSY * slow,
		   "%s: within the deadline (%.0f ms for %ld)", stalls[i].name, took,
		   stall_ms);
		ok(untouched(s), "%s: the slots are untouched", stalls[i].name);
		ok(stopped_call(last_log, stall_ms), "%s: logged: %s", stalls[i].name,
		   last_log);
		ok(gone(first), "%s: the stalled helper is killed and reaped",
		   stalls[i].name);
		is_int(0, classify_pid(h, s, 7), "%s: the next call works",
		       stalls[i].name);
		ok(s[1].set && strcmp(s[1].dest, "/ok/7") == 0 && untouched(s) == false,
		   "%s: and decides", stalls[i].name);
		ok(hooks_helper_pid(h) > 0 && hooks_helper_pid(h) != first,
		   "%s: in a new helper", stalls[i].name);
		const struct hooks_stats *st = hooks_stats(h);
		ok(st->calls == 2 && st->errors == 1 && st->timeouts == 1 &&
			   st->restarts == 1,
		   "%s: counted (calls %llu, errors %llu, timeouts %llu, restarts %llu)",
		   stalls[i].name, (unsigned long long)st->calls,
		   (unsigned long long)st->errors, (unsigned long long)st->timeouts,
		   (unsigned long long)st->restarts);
		if (i == 0) {
			/* a hook error is no failure of the helper */
			ok(timed_out(classify_pid(h, s, 666)), "a stall");
			is_int(-ECANCELED, classify_pid(h, s, 13),
			       "a hook error in the next helper");
			ok(timed_out(classify_pid(h, s, 666)), "then a stall");
			is_int(0, classify_pid(h, s, 7),
			       "a new helper at once: the error showed the last was healthy");
		}
		if (i == 1) {
			/* a second failure before a call succeeds: back off */
			pid_t p = hooks_helper_pid(h);
			is_int(0, classify_pid(h, s, 8), "a healthy call in between");
			ok(timed_out(classify_pid(h, s, 666)), "stalls again");
			ok(timed_out(classify_pid(h, s, 666)), "and again");
			t0 = (mono_s() * 1e3);
			rc = classify_pid(h, s, 9);
			took = (mono_s() * 1e3) - t0;
			/* sooner than a stalled call could have failed */
			ok(rc == -EAGAIN && took < stall_ms * 2 / 3 && untouched(s),
			   "after two failures in a row, calls fail at once for a while (%.0f ms)",
			   took);
			ok(gone(p), "no helper is left behind");
		}
		t0 = (mono_s() * 1e3);
		hooks_free(h);
		ok((mono_s() * 1e3) - t0 < BUSY * slow, "%s: freeing is quick", stalls[i].name);
	}
	timeout_ms = 5000;
}

/* Finalizers run with debug hooks off: a looping one must not get in. */
static void
test_gc(void)
{
	char err[512];
	struct hooks_slot s[2];
	struct hooks *h;

	h = load("gc.lua",
		 "function classify(t, d)\n"
		 "  setmetatable({}, { __gc = function() while true do end end })\n"
		 "end\n",
		 100000, 1 << 22, err);
	last_log[0] = '\0';
	double t0 = (mono_s() * 1e3);
	is_int(-ECANCELED, classify(h, s), "setmetatable with __gc fails the call");
	ok(strstr(last_log, "gc.lua:2: __gc metamethods are not allowed") != NULL,
	   "with a clear message: %s", last_log);
	is_int(0, hooks_stats(h)->timeouts, "at once");
	pid_t pid = hooks_helper_pid(h);
	hooks_free(h);
	ok((mono_s() * 1e3) - t0 < BUSY * slow && gone(pid),
	   "freeing is quick and reaps the helper");

	h = load(
		"gcload.lua",
		"local t = setmetatable({}, { __gc = function() while true do end end })\n",
		100000, 1 << 22, err);
	ok(h == NULL && strstr(err, "gcload.lua:1: __gc metamethods are not allowed"),
	   "a main chunk that tries fails the load: %s", err);

	h = load("gcok.lua",
		 "local mt = { __index = function(t, k) return k end }\n"
		 "function classify(t, d)\n"
		 "  local x = setmetatable({}, mt)\n"
		 "  if x.net == 'net' then d['net_cls'] = '/meta' end\n"
		 "end\n",
		 100000, 1 << 22, err);
	is_int(0, classify(h, s), "other metatables still work");
	ok(s[1].set && strcmp(s[1].dest, "/meta") == 0, "and decide");
	hooks_free(h);
}

static void
test_init_stall(void)
{
	char err[512], want[512], starved[512];
	double t0;
	struct hooks *h;

	timeout_ms = stall_ms / 6; /* 50 ms, loading 500 */
	t0 = (mono_s() * 1e3);
	h = load("initstall.lua", "function init() string.rep('', 1e18) end\n", 1000000,
		 1 << 22, err);
	ok(h == NULL, "an init() that stalls in C fails the load");
	ok((mono_s() * 1e3) - t0 < timeout_ms * 10 * 5 + BUSY * slow,
	   "after ten times the deadline (%.0f ms)", (mono_s() * 1e3) - t0);
	snprintf(
		want, sizeof(want),
		"%s/initstall.lua: not loaded within %ld ms (10 x lua-timeout): the main chunk or init() is stuck or too slow",
		dir, timeout_ms * 10);
	snprintf(
		starved, sizeof(starved),
		"%s/initstall.lua: not loaded within %ld ms: the Lua helper got too little CPU time",
		dir, timeout_ms * 10 * 5);
	ok(strcmp(want, err) == 0 || strcmp(starved, err) == 0,
	   "with a clear message: %s", err);

	h = load("mainstall.lua", "local x = string.rep('a', 2000):find('.-.-.-.-b')\n",
		 1000000, 1 << 22, err);
	ok(h == NULL && strstr(err, "not loaded within") != NULL,
	   "so does a main chunk that stalls");
	timeout_ms = 5000;
}

/* A helper that dies between calls (the backstop limits, the OOM
 * killer) is replaced at the next call, which works. */
static void
test_helper_death(void)
{
	char err[512];
	struct hooks_slot s[2];
	struct hooks *h =
		load("death.lua", "function classify(t, d) d['net_cls'] = '/alive' end\n",
		     100000, 1 << 22, err);
	pid_t first = hooks_helper_pid(h);

	kill(first, SIGKILL);
	wait_exit(first);
	is_int(0, classify(h, s), "a helper killed between calls is replaced");
	ok(s[1].set && strcmp(s[1].dest, "/alive") == 0 && gone(first) &&
		   hooks_helper_pid(h) != first,
	   "the new one answers");
	is_int(0, (long long)hooks_stats(h)->errors, "no call failed");

	/* a forked copy of the caller gets its own helper */
	pid_t kid = fork();
	if (kid == 0) {
		int rc = classify(h, s);
		bool fine = rc == 0 && s[1].set && hooks_helper_pid(h) != first &&
			    hooks_helper_pid(h) > 0;
		hooks_free(h);
		_exit(fine ? 0 : 1);
	}
	int status = -1;
	waitpid(kid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "a forked process starts its own helper");
	pid_t mine = hooks_helper_pid(h);
	is_int(0, classify(h, s), "and ours still answers");
	is_int(mine, hooks_helper_pid(h), "the same one");
	hooks_free(h);
}

/*
 * Issue 22 §3: a clone runs the same script in a helper of its own.  A
 * stalling call gets the clone's helper killed and backed off; the
 * original's helper is never touched and answers at once.
 */
static void
test_clone(void)
{
	char err[512];
	struct hooks_slot s[2];

	timeout_ms = stall_ms;
	struct hooks *h = load("clone.lua",
			       "function classify(t, d)\n"
			       "  if t.pid == 666 then string.rep('', 1e18) end\n"
			       "  d['net_cls'] = '/ok/' .. t.pid\n"
			       "end\n",
			       1000000, 1 << 22, err);
	if (h == NULL)
		bail("clone.lua: %s", err);
	struct hooks *c = hooks_clone(h, "asked: ");
	if (c == NULL)
		bail("no clone");
	pid_t mine = hooks_helper_pid(h);
	ok(hooks_has_classify(c) && hooks_helper_pid(c) == -1,
	   "a clone has the script's classify(), and no helper until asked");
	is_int(0, classify_pid(c, s, 7), "the clone answers");
	ok(s[1].set && strcmp(s[1].dest, "/ok/7") == 0 && hooks_helper_pid(c) > 0 &&
		   hooks_helper_pid(c) != mine,
	   "... in a helper of its own");
	last_log[0] = '\0';
	ok(timed_out(classify_pid(c, s, 666)), "a call that stalls the clone fails");
	ok(strncmp(last_log, "asked: Lua hook classify() failed: ",
		   strlen("asked: Lua hook classify() failed: ")) == 0,
	   "... logged with the clone's tag: %s", last_log);
	ok(timed_out(classify_pid(c, s, 666)), "so does the next one");
	double t0 = (mono_s() * 1e3);
	int rc = classify_pid(c, s, 8);
	ok(rc == -EAGAIN && (mono_s() * 1e3) - t0 < 100 * slow,
	   "the clone's helper backs off: its calls fail at once (%.0f ms)",
	   (mono_s() * 1e3) - t0);
	t0 = (mono_s() * 1e3);
	is_int(0, classify_pid(h, s, 9), "the original still answers");
	ok((mono_s() * 1e3) - t0 < 100 * slow + stall_ms && strcmp(s[1].dest, "/ok/9") == 0 &&
		   hooks_helper_pid(h) == mine,
	   "... at once, with its own helper, never killed");
	const struct hooks_stats *o = hooks_stats(h), *k = hooks_stats(c);
	ok(o->errors == 0 && o->timeouts == 0 && o->restarts == 0,
	   "the original counts nothing of the clone's failures");
	ok(k->errors == 3 && k->timeouts == 2 && k->restarts == 1,
	   "the clone counts its own (errors %llu, timeouts %llu, restarts %llu)",
	   (unsigned long long)k->errors, (unsigned long long)k->timeouts,
	   (unsigned long long)k->restarts);
	hooks_free(c);
	ok(!gone(mine) && classify_pid(h, s, 10) == 0,
	   "freeing the clone leaves the original's helper running");
	hooks_free(h);
	timeout_ms = 5000;
}

/* A helper that gets no CPU time at all (here: stopped by a signal,
 * as another process of its user could do) is killed after five times
 * the deadline in wall-clock time. */
static void
test_starved(void)
{
	char err[512], want[256];
	struct hooks_slot s[2];
	long t = stall_ms / 6;

	timeout_ms = t;
	struct hooks *h =
		load("starved.lua", "function classify(t, d) d['net_cls'] = '/fed' end\n",
		     100000, 1 << 22, err);
	pid_t pid = hooks_helper_pid(h);
	kill(pid, SIGSTOP);
	last_log[0] = '\0';
	double t0 = (mono_s() * 1e3);
	int rc = classify(h, s);
	double took = (mono_s() * 1e3) - t0;
	is_int(-ETIME, rc, "a stopped helper: the call fails");
	ok(took >= t * 5 - 10 && took < t * 5 + BUSY * slow,
	   "after five times the deadline (%.0f ms for %ld)", took, t);
	snprintf(
		want, sizeof(want),
		"Lua hook classify() failed: no answer within %ld ms (5 x lua-timeout; the helper got too little CPU time); helper killed",
		t * 5);
	is_string(want, last_log, "logged");
	ok(untouched(s) && gone(pid), "the slots are untouched, the helper reaped");
	is_int(0, classify(h, s), "the next call goes to a new helper");
	hooks_free(h);
	timeout_ms = 5000;
}

/* What the helper logs cannot forge lines or flood the log. */
static void
test_log_limits(void)
{
	char err[512];
	struct hooks_slot s[2];
	struct hooks *h = load(
		"logs.lua",
		"function classify(t, d)\n"
		"  if t.pid == 1 then cgengine.log('info', 'a\\nforged: b') return end\n"
		"  for i = 1, 1000 do cgengine.log('info', 'line ' .. i) end\n"
		"end\n",
		100000, 1 << 22, err);

	is_int(0, classify_pid(h, s, 1), "a hook logs a newline");
	is_string("a?forged: b", last_log, "it cannot start a line of its own");
	nlogs = 0;
	is_int(0, classify(h, s), "a hook logs 1000 lines");
	is_int(101, nlogs, "100 reach the log, then one notice");
	is_string("Lua hook: 900 more log lines dropped (at most 100 a call)", last_log,
		  "which says so");
	hooks_free(h);
}

/* As root the helper runs as the given user, without groups. */
static void
test_privileges(void)
{
	char err[512], path[64], line[256], uid[256] = "", gid[256] = "", grp[256] = "";
	struct hooks_slot s[2];

	if (geteuid() != 0) {
		skip(5, "needs root");
		return;
	}
	struct hooks_options o = {
		.script = script("nobody.lua",
				 "function classify(t, d) d['net_cls'] = '/n' end\n"),
		.instructions = 100000,
		.memory = 1 << 22,
		.timeout_ms = timeout_ms,
		.drop_privileges = true,
		.run_uid = 65534,
		.run_gid = 65534,
	};
	struct hooks *h = hooks_load(&o, err, sizeof(err));
	ok(h != NULL, "loads as nobody%s%s", h ? "" : ": ", err);
	if (h == NULL) {
		skip(4, "no helper");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)hooks_helper_pid(h));
	FILE *f = fopen(path, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		size_t len = strlen(line);
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == ' ' ||
				   line[len - 1] == '\t'))
			line[--len] = '\0';
		if (strncmp(line, "Uid:", 4) == 0)
			snprintf(uid, sizeof(uid), "%s", line);
		else if (strncmp(line, "Gid:", 4) == 0)
			snprintf(gid, sizeof(gid), "%s", line);
		else if (strncmp(line, "Groups:", 7) == 0)
			snprintf(grp, sizeof(grp), "%s", line);
	}
	if (f != NULL)
		fclose(f);
	is_string("Uid:\t65534\t65534\t65534\t65534", uid, "the helper's uids");
	is_string("Gid:\t65534\t65534\t65534\t65534", gid, "its gids");
	is_string("Groups:", grp, "no supplementary groups");
	is_int(0, classify(h, s), "and it answers");
	hooks_free(h);
}

/*
 * A helper that cannot set up its sandbox does not run: with the hard
 * RLIMIT_CPU below the helper's backstop and no privilege to raise it,
 * the load fails and says which step.  In a child, which drops to
 * nobody when root (root could raise the limit).
 */
static void
test_sandbox_steps(void)
{
	const char *path = script("steps.lua", "function classify(t, d) end\n");
	int status = 0;

	chmod(dir, 0711);
	chmod(path, 0644);
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit low = { 10, 10 };
		char err[512] = "";

		if (setrlimit(RLIMIT_CPU, &low) < 0)
			_exit(10);
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
				       setresuid(65534, 65534, 65534) < 0))
			_exit(11);
		struct hooks_options o = { .script = path,
					   .instructions = 100000,
					   .memory = 1 << 22,
					   .timeout_ms = timeout_ms };
		struct hooks *h = hooks_load(&o, err, sizeof(err));
		if (h != NULL)
			_exit(1);
		if (strstr(err, "Lua helper: RLIMIT_CPU") == NULL)
			diag("sandbox: the load said: %s", err);
		_exit(strstr(err, "Lua helper: RLIMIT_CPU") != NULL ? 0 : 2);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status),
	   "sandbox: the child ran");
	chmod(dir, 0700);
	is_int(0, WEXITSTATUS(status),
	       "sandbox: a failed setrlimit stops the helper, and the load says so "
	       "(1: it ran, 2: other message, 1x: set-up)");
}

/* The caller's check of what an (untrusted) helper answers. */
struct msg {
	unsigned char b[4096];
	size_t len;
};

static void
put(struct msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->len, p, n);
	m->len += n;
}

static void
put_u8(struct msg *m, unsigned v)
{
	unsigned char c = (unsigned char)v;
	put(m, &c, 1);
}

static void
put_u32(struct msg *m, uint32_t v)
{
	put(m, &v, 4);
}

static void
put_dest(struct msg *m, const char *d, size_t len)
{
	put_u8(m, d != NULL);
	if (d != NULL) {
		put_u32(m, (uint32_t)len);
		put(m, d, len);
		put_u8(m, 0);
	}
}

/* An answer message: type 6 (W_ANSWER), count, destinations. */
static struct msg
answer(uint32_t n, const char *d0, const char *d1)
{
	struct msg m = { .len = 0 };

	put_u8(&m, 6);
	put_u32(&m, n);
	put_dest(&m, d0, d0 ? strlen(d0) : 0);
	if (n > 1)
		put_dest(&m, d1, d1 ? strlen(d1) : 0);
	return m;
}

static int
parse(const struct msg *m, struct hooks_slot *out, char *err)
{
	struct hooks_slot in[2];

	init_slots(in);
	return hooks_answer_parse(m->b, m->len, in, out, 2, err, 256);
}

static void
test_answer_parse(void)
{
	struct hooks_slot out[2];
	char err[256];
	struct msg m;

	m = answer(2, "/students", "/www");
	is_int(0, parse(&m, out, err), "a valid answer");
	ok(out[0].set && !out[0].changed && out[1].set && out[1].changed &&
		   strcmp(out[1].dest, "/www") == 0 &&
		   strcmp(out[1].hier, "net_cls") == 0,
	   "is read, with what changed");
	m = answer(2, NULL, NULL);
	ok(parse(&m, out, err) == 0 && !out[0].set && out[0].changed, "clearing");

	static const struct {
		const char *dest, *why;
	} bad[] = {
		{ "www", "destination for net_cls must be an absolute path" },
		{ "/a/../b", "destination for net_cls must not contain '..'" },
		{ "/a\nb", "destination for net_cls contains a control character" },
		{ "/a\033[2J", "destination for net_cls contains a control character" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = answer(2, "/students", bad[i].dest);
		is_int(-EPROTO, parse(&m, out, err), "refused: a destination like %s",
		       bad[i].why);
		is_string(bad[i].why, err, "message %zu", i);
	}
	char longd[1100];
	memset(longd, 'a', sizeof(longd) - 1);
	longd[0] = '/';
	longd[sizeof(longd) - 1] = '\0';
	m = answer(2, "/students", longd);
	is_int(-EPROTO, parse(&m, out, err), "refused: too long");
	is_string("destination for net_cls is too long", err, "its message");

	m = (struct msg){ .len = 0 };
	put_u8(&m, 6);
	put_u32(&m, 2);
	put_dest(&m, "/a\0b", 4);
	put_dest(&m, NULL, 0);
	is_int(-EPROTO, parse(&m, out, err), "refused: a NUL inside");

	m = answer(1, "/students", NULL);
	is_int(-EPROTO, parse(&m, out, err), "refused: the wrong number of slots");
	is_string("answer for 1 hierarchies, not 2", err, "its message");
	m = answer(2, "/students", "/www");
	m.len--;
	is_int(-EPROTO, parse(&m, out, err), "refused: truncated");
	m = answer(2, "/students", "/www");
	put_u8(&m, 0);
	is_int(-EPROTO, parse(&m, out, err), "refused: trailing bytes");
	m = answer(2, "/students", "/www");
	m.b[m.len - 1] = 'x'; /* the terminating NUL */
	is_int(-EPROTO, parse(&m, out, err), "refused: an unterminated string");
	m = answer(2, "/students", "/www");
	m.b[0] = 99;
	is_int(-EPROTO, parse(&m, out, err), "refused: an unknown message");
	is_int(-EPROTO, hooks_answer_parse("", 0, out, out, 2, err, sizeof(err)),
	       "refused: empty");

	m = (struct msg){ .len = 0 };
	put_u8(&m, 5); /* W_FAILED */
	put_u32(&m, 9);
	put(&m, "bad\nnews\r", 9);
	is_int(-ECANCELED, parse(&m, out, err), "a reported failure");
	is_string("bad?news?", err, "its message, without control characters");
}

int
main(void)
{
	char err[512];

	const char *pre = getenv("LD_PRELOAD");
	if (pre != NULL && strstr(pre, "vgpreload") != NULL) {
		stall_ms = 600; /* valgrind */
		slow = 5;
	}
	snprintf(dir, sizeof(dir), "/tmp/cgetest-lua.XXXXXX");
	if (mkdtemp(dir) == NULL)
		bail("mkdtemp");
	plan(11 + 2 + 5 + 13 + 8 * 3 + 2 + 7 + 2 + (10 * 2 + 4 + 5) + 7 + 4 + 6 + 5 + 5 +
	     5 + 2 + 23 + 12);
	test_forbidden();
	test_bytecode();
	test_errors_at_load();
	test_classify();
	test_containment();
	test_many_calls();
	test_deadline();
	test_gc();
	test_init_stall();
	test_helper_death();
	test_clone();
	test_starved();
	test_log_limits();
	test_privileges();
	test_sandbox_steps();
	test_answer_parse();

	struct hooks_options o = { .script = "/nonexistent.lua",
				   .instructions = 10,
				   .memory = 1 << 20 };
	ok(hooks_load(&o, err, sizeof(err)) == NULL, "a missing script fails");
	is_string("/nonexistent.lua: cannot open: No such file or directory", err,
		  "and says why");

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
	return tap_done();
}
