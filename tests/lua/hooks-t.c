/*
 * hooks-t.c -- unit tests for lua/: the sandbox (forbidden globals,
 * bytecode, budgets, memory cap, contained errors, a balanced stack),
 * the task object, and the decision/why tables.
 */
#include "lua/hooks.h"
#include "tests/tap/tap.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];
static char last_log[1024];
static int nlogs, cmdline_calls;

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

static int
classify(struct hooks *h, struct hooks_slot *s)
{
	init_slots(s);
	return hooks_classify(h, &task, s, 2);
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
		is_int(-1, rc, "%s: the call fails", bad[i].name);
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

	for (int i = 0; i < 10000; i++) {
		if (classify(h, s) < 0)
			failures++;
		else if (s[1].set)
			moved++;
	}
	is_int(depth, hooks_stack_depth(h),
	       "the Lua stack is balanced after 10,000 calls");
	is_int(3333, failures, "a third of them failed");
	is_int(3334, moved, "a third of them moved");
	is_int(10000, (long long)hooks_stats(h)->calls, "calls counted");
	is_int(3333, (long long)hooks_stats(h)->errors, "errors counted");
	ok(nlogs < 20, "failures are logged rate-limited (%d lines)", nlogs);
	hooks_free(h);
}

int
main(void)
{
	char err[512];

	snprintf(dir, sizeof(dir), "/tmp/cgetest-lua.XXXXXX");
	if (mkdtemp(dir) == NULL)
		bail("mkdtemp");
	plan(11 + 2 + 5 + 13 + 8 * 3 + 2 + 6 + 2);
	test_forbidden();
	test_bytecode();
	test_errors_at_load();
	test_classify();
	test_containment();
	test_many_calls();

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
