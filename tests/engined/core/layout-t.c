/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layout-t.c -- the unified layout (engined/layout.c and the composing
 * part of classify.c), without root: a fixture /proc, a fake v1
 * hierarchy and a fake cgroup2 tree whose root offers controllers.
 * Verdicts of the virtual dimensions "cpu" and "net_cls" compose into
 * one v2 group per process; settings are mapped to v2 names and
 * written at the level of their group; controllers are enabled in
 * cgroup.subtree_control of every inner level; the daemon moves itself
 * into a leaf of its own group; groups made from templates are removed
 * once empty.
 */
#include "engined/core/core_private.h"
#include "engined/core/core.h"
#include "engined/render/render.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The decision of the last explain or what-if (freed by the next and
 * at the end). */
static struct decision *dn;

static enum decide_result
explain(struct core *c, pid_t pid, uid_t asker)
{
	decision_free(dn);
	dn = core_decision_new(c);
	return core_explain(c, pid, asker, dn);
}

#define NOBODY 65534
#define OTHER  4321

static const char rules[] = "root              cpu      /profs\n"
			    "nobody:fx-batch   cpu      /students/%u\n"
			    "nobody            cpu      /students\n"
			    "*:fx-www          net_cls  /www\n"
			    "nobody            net_cls  /others\n"
			    "root              name=cgecore  /admins\n"
			    "*:cgengined       cpu      /system\n";

static const char conf[] =
	"unified-layout = {\"cpu\", \"net_cls\"}\n"
	"group \"cpu:/profs\" {\n"
	"  set = {\"cpu.shares=1024\", \"memory.limit_in_bytes=1073741824\",\n"
	"         \"net_cls.classid=0x10001\"}\n"
	"}\n"
	"group \"net_cls:/www\" {\n"
	"  set = {\"blkio.weight=1000\"}\n"
	"}\n";

static struct fixture fx;

static bool
was_set(const char *what)
{
	for (size_t i = 0; i < fx.nsets; i++)
		if (strcmp(fx.sets[i], what) == 0)
			return true;
	return false;
}

static void
test_pure(void)
{
	char k[64], v[64];

	ok(layout_v2_setting("cpu.shares", "1024", k, sizeof(k), v, sizeof(v)) == 0 &&
		   strcmp(k, "cpu.weight") == 0 && strcmp(v, "39") == 0,
	   "cpu.shares=1024 is cpu.weight=39 (got %s=%s)", k, v);
	ok(layout_v2_setting("cpu.shares", "2", k, sizeof(k), v, sizeof(v)) == 0 &&
		   strcmp(v, "1") == 0,
	   "cpu.shares=2 is the lowest weight");
	ok(layout_v2_setting("cpu.shares", "262144", k, sizeof(k), v, sizeof(v)) == 0 &&
		   strcmp(v, "10000") == 0,
	   "cpu.shares=262144 is the highest weight");
	ok(layout_v2_setting("memory.limit_in_bytes", "-1", k, sizeof(k), v, sizeof(v)) ==
			   0 &&
		   strcmp(k, "memory.max") == 0 && strcmp(v, "max") == 0,
	   "memory.limit_in_bytes=-1 is memory.max=max");
	ok(layout_v2_setting("blkio.weight", "500", k, sizeof(k), v, sizeof(v)) == 0 &&
		   strcmp(k, "io.weight") == 0 && strcmp(v, "100") == 0,
	   "blkio.weight=500 (the default) is io.weight=100 (the default)");
	is_int(-ENOTSUP,
	       layout_v2_setting("net_cls.classid", "1", k, sizeof(k), v, sizeof(v)),
	       "net_cls.classid has no meaning in v2");
	ok(layout_v2_setting("cpu.max", "50000 100000", k, sizeof(k), v, sizeof(v)) ==
			   0 &&
		   strcmp(k, "cpu.max") == 0 && strcmp(v, "50000 100000") == 0,
	   "v2 names pass unchanged");
	is_int(-EINVAL,
	       layout_v2_setting("cpu.shares", "lots", k, sizeof(k), v, sizeof(v)),
	       "a cpu.shares that is no number is refused");
}

static int
dim(const struct policy *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->virt[i] && strcmp(p->names[i], name) == 0)
			return (int)i;
	return -1;
}

static void
test_policy(struct core *c)
{
	const struct policy *p = core_policy(c);
	int cpu = dim(p, "cpu"), net = dim(p, "net_cls");
	char buf[512], out[512];
	const char *parts[RULES_MAX_HIERS] = { 0 }, *want[RULES_MAX_HIERS] = { 0 };
	size_t bad = 0;

	ok(cpu >= 0 && net >= 0 && p->nlayout == 2,
	   "cpu and net_cls are virtual dimensions");
	ok(p->v2 != NULL && strcmp(p->uroot, "/svc") == 0,
	   "the root is the daemon's own group (%s)", p->uroot ? p->uroot : "none");
	is_int(2, p->depth[cpu], "cpu has two levels (/students/%%u)");
	is_int(1, p->depth[net], "net_cls has one");
	is_string("cpu memory io", p->controllers,
		  "controllers: the layout's and the settings'");
	layout_split(p, "/svc/students/default/www", buf, sizeof(buf), parts);
	ok(parts[cpu] && strcmp(parts[cpu], "/students/default") == 0 && parts[net] &&
		   strcmp(parts[net], "/www") == 0,
	   "a composed group splits into its dimensions' parts");
	layout_split(p, "/svc/students/www", buf, sizeof(buf), parts);
	ok(parts[cpu] == NULL && parts[net] == NULL,
	   "a group of another depth has no parts");
	want[net] = "/nfs";
	parts[cpu] = "/profs/default";
	parts[net] = "/www";
	ok(layout_compose(p, want, parts, out, sizeof(out), &bad) == 0 &&
		   strcmp(out, "/svc/profs/default/nfs") == 0,
	   "a dimension left alone keeps its current part (%s)", out);
	parts[cpu] = NULL;
	ok(layout_compose(p, want, parts, out, sizeof(out), &bad) == 0 &&
		   strcmp(out, "/svc/default/default/nfs") == 0,
	   "... or gets the default one (%s)", out);
	want[net] = NULL;
	is_int(1, layout_compose(p, want, parts, out, sizeof(out), &bad),
	       "nothing wanted: nothing to do");
	want[net] = "/www/fast";
	ok(layout_compose(p, want, parts, out, sizeof(out), &bad) == -EMLINK &&
		   bad == (size_t)net,
	   "a destination deeper than its dimension is refused");
	ok(layout_level(p, "/svc/students/nobody/others", 2, buf, sizeof(buf)) == cpu &&
		   strcmp(buf, "/students/nobody") == 0,
	   "level 2 is cpu's /students/nobody");
	ok(layout_level(p, "/svc/students/nobody/others", 3, buf, sizeof(buf)) == net &&
		   strcmp(buf, "/others") == 0,
	   "level 3 is net_cls's /others");
}

static void
test_compose(struct core *c)
{
	pid_t self = getpid();

	core_start(c, 1.0);
	is_string("/svc/daemon", fixture_group_v2(&fx, self),
		  "the daemon moved itself into a leaf of its own group");
	core_rescan(c, 1.5);
	is_string("/svc/daemon", fixture_group_v2(&fx, self),
		  "... and stays there, whatever the rules say about it");
	is_string("cpu memory io", fixture_v2_file(&fx, "/svc", "cgroup.subtree_control"),
		  "controllers enabled below the root (those available)");
	is_string("/svc/profs/default/www", fixture_group_v2(&fx, 100),
		  "root's browser: /profs x /www");
	is_string("/admins", fixture_group(&fx, 100),
		  "... and its v1 hierarchy as before");
	is_string("/svc/students/default/www", fixture_group_v2(&fx, 200),
		  "a student's browser lands in students/.../www");
	is_string("/svc/students/nobody/others", fixture_group_v2(&fx, 300),
		  "a student's batch job: the template's level");
	is_string("/svc/students/default/others", fixture_group_v2(&fx, 400),
		  "a student's other program");
	is_string("/", fixture_group_v2(&fx, 500), "no rule: left where it is");
	is_string("/svc/default/default/www", fixture_group_v2(&fx, 600),
		  "cpu left alone, not yet composed: the default segment");
	ok(was_set("/svc/profs cgroup.subtree_control +cpu +memory +io"),
	   "controllers enabled on an inner level");
	ok(!was_set("/svc/profs/default/www cgroup.subtree_control +cpu +memory +io"),
	   "... never on a leaf");
	is_string("39", fixture_v2_file(&fx, "/svc/profs", "cpu.weight"),
		  "cpu.shares of cpu:/profs is cpu.weight on its level");
	is_string("1073741824", fixture_v2_file(&fx, "/svc/profs", "memory.max"),
		  "memory.limit_in_bytes is memory.max");
	is_string("", fixture_v2_file(&fx, "/svc/profs", "net_cls.classid"),
		  "net_cls.classid is not written");
	is_string("200", fixture_v2_file(&fx, "/svc/students/default/www", "io.weight"),
		  "net_cls:/www's setting on every www level");
	is_string("200", fixture_v2_file(&fx, "/svc/profs/default/www", "io.weight"),
		  "... under every cpu class");
	unsigned long long moves = core_stats(c)->moves;
	core_rescan(c, 2.0);
	is_int((long long)moves, (long long)core_stats(c)->moves,
	       "a rescan moves nothing already in place");
	bool created;
	is_int(-EBUSY,
	       backend_move(&fx.cgfs, core_policy(c)->v2, "/svc/students", 400),
	       "the fake tree refuses a process in an inner group, as the kernel does");
	ok(backend_mkdir(&fx.cgfs, core_policy(c)->v2, "/svc/students", &created) == 0,
	   "(it exists)");
}

static void
test_explain(struct core *c)
{
	const struct policy *p = core_policy(c);

	is_int(DECIDE_OK, explain(c, 200, 0), "explain a student's browser");
	is_string("/svc/students/default/www", decision_composed(dn), "the composed group");
	is_string("/students/default", decision_part(dn, (size_t)dim(p, "cpu")),
		  "cpu's current part");
	is_string("/students", decision_verdicts(dn)[dim(p, "cpu")].dest, "cpu's verdict");
	is_int(DECIDE_OK, explain(c, 500, 0), "explain a process no rule names");
	is_string("", decision_composed(dn), "nothing composed: left alone");
}

/* explain through the control protocol: the unified row, text and JSON */
static void
test_verb(struct core *c)
{
	static char pid[] = "200", verb[] = "explain";
	char *argv[] = { verb, pid };
	char err[256] = "";
	struct strbuf out = { 0 };
	struct verbs_request rq = { .core = c, .now = 50.0, .uid = 0, .json = false };

	is_int(0, render_answer(&rq, 2, argv, &out, err, sizeof(err)), "explain 200");
	ok(out.p != NULL && strstr(out.p, "\nunified ") != NULL &&
		   strstr(out.p,
			  "/svc/students/default/www composed from cpu, net_cls") != NULL,
	   "the text has the unified row");
	rq.json = true;
	strbuf_reset(&out);
	is_int(0, render_answer(&rq, 2, argv, &out, err, sizeof(err)),
	       "explain 200 --json");
	json_t *r = json_loads(out.p ? out.p : "", 0, NULL);
	json_t *rows = json_object_get(r, "hierarchies");
	json_t *last = json_array_get(rows, json_array_size(rows) - 1);
	ok(json_is_true(json_object_get(last, "composed")) &&
		   strcmp(json_string_value(json_object_get(last, "wanted")) ?: "",
			  "/svc/students/default/www") == 0 &&
		   strcmp(json_string_value(json_object_get(last, "current")) ?: "",
			  "/svc/students/default/www") == 0,
	   "the JSON's last row is the composed group");
	json_decref(r);
	free(out.p);
}

static void
test_boost(struct core *c)
{
	struct boost_info info;
	char err[256] = "";
	struct boost_request r = {
		.pid = 400, .hier = "cpu", .dest = "/fast", .seconds = 60, .owner = 0
	};

	ok(core_boost_start(c, &r, &info, err, sizeof(err)) == 0,
	   "boost on dimension cpu %s", err);
	is_string("/svc/fast/default/others", fixture_group_v2(&fx, 400),
		  "the boost changes the cpu part only");
	ok(core_boost_end(c, info.id, "test") == 0, "end it");
	is_string("/svc/students/default/others", fixture_group_v2(&fx, 400),
		  "back to the rules");
	r.dest = "/fast/x/y";
	is_int(-EINVAL, core_boost_start(c, &r, &info, err, sizeof(err)), "a boost too deep");
	is_string(
		"destination '/fast/x/y' is deeper than the 2 levels of cpu in the unified "
		"layout",
		err, "... is refused");
}

static void
test_cleanup(struct core *c)
{
	fixture_gone(&fx, 300);
	core_timeout(c, 100.0);
	core_timeout(c, 200.0);
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/svc/students/nobody", fx.cg2);
	ok(access(dir, F_OK) < 0, "the template's empty groups are removed");
	snprintf(dir, sizeof(dir), "%s/svc/students", fx.cg2);
	ok(access(dir, F_OK) == 0, "the configured class stays");
}

static char reported[1024];

static void
report(void *arg, const char *msg)
{
	snprintf(reported, sizeof(reported), "%s", msg);
}

/* The error building a core over f reports ("" if none). */
static const char *
build_error(struct fixture *f)
{
	struct report rep = { .fn = report };
	struct core_options o = {
		.ov = { .config = f->conf, .config_explicit = true },
		.env = { .procroot = f->proc,
			 .mountinfo = f->mountinfo,
			 .cgfs = &f->cgfs },
	};
	reported[0] = '\0';
	core_free(core_new(&o, &rep));
	return reported[0] ? strstr(reported, "cgengined.conf") : "";
}

/*
 * Stopping hands the group back (controllers disabled bottom up: the
 * service manager can start the daemon in it again, as systemd before
 * DelegateSubgroup= does); the restarted daemon (a new core, the
 * processes where the old one put them) moves itself into its leaf,
 * enables the controllers again along the existing tree, writes each
 * existing group's settings again (disabling a controller took its
 * files; enabled again, they hold the kernel's defaults), but not at a
 * reload, where they stayed on, and moves nothing that is in place.
 */
static void
test_restart(void)
{
	is_string("", fixture_v2_file(&fx, "/svc", "cgroup.subtree_control"),
		  "stopped: no controller enabled below the root");
	is_string("",
		  fixture_v2_file(&fx, "/svc/profs/default", "cgroup.subtree_control"),
		  "... nor below an inner level");
	is_string("/svc/profs/default/www", fixture_group_v2(&fx, 100),
		  "... and the processes stay where they are");
	fixture_proc_v2(&fx, getpid(), "/svc"); /* where systemd starts it */
	/* the kernel dropped the controllers' files with them; enabled
	 * again, they hold the defaults */
	fixture_v2_write(&fx, "/svc/profs", "cpu.weight", "100");
	fixture_v2_write(&fx, "/svc/profs", "memory.max", "max");
	fixture_v2_write(&fx, "/svc/students/default/www", "io.weight", "100");
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("cannot build a second core");
	ok(strcmp(core_policy(c)->uroot, "/svc") == 0 && core_policy(c)->uroot_own,
	   "restarted in the unit's group: the same root");
	core_start(c, 1.0);
	is_string("/svc/daemon", fixture_group_v2(&fx, getpid()),
		  "the daemon in its leaf again");
	is_string("cpu memory io",
		  fixture_v2_file(&fx, "/svc/profs/default", "cgroup.subtree_control"),
		  "controllers enabled again along the existing tree");
	is_int(0, (long long)core_stats(c)->moves, "nothing in place is moved again");
	is_string("39", fixture_v2_file(&fx, "/svc/profs", "cpu.weight"),
		  "an existing class's settings written again (the defaults came back)");
	is_string("1073741824", fixture_v2_file(&fx, "/svc/profs", "memory.max"),
		  "... every one of them");
	is_string("200", fixture_v2_file(&fx, "/svc/students/default/www", "io.weight"),
		  "... on every level of the tree");
	fixture_v2_write(&fx, "/svc/profs", "cpu.weight", "55"); /* the admin's */
	is_int(0, core_reload(c, 2.0), "reloaded");
	is_string("55", fixture_v2_file(&fx, "/svc/profs", "cpu.weight"),
		  "a reload leaves the files of groups whose controllers stayed on");
	is_string("/svc/students/default/www", fixture_group_v2(&fx, 200),
		  "the student's browser stays");
	core_stop(c);
	core_free(c);

	char file[300];
	snprintf(file, sizeof(file), "%s/self/cgroup", fx.proc);
	FILE *f = fopen(file, "w");
	if (f == NULL)
		bail("cannot write %s", file);
	fprintf(f, "0::/svc/daemon\n"); /* DelegateSubgroup=daemon, or a reload */
	fclose(f);
	c = fixture_core(&fx);
	ok(c != NULL && strcmp(core_policy(c)->uroot, "/svc") == 0 &&
		   core_policy(c)->uroot_own,
	   "started in the leaf: the root is still the unit's group");
	core_free(c);
}

/*
 * A Lua hook sees a dimension under its name and task:cgroup() of a
 * dimension as the process's part; a destination it gives that is
 * deeper than the dimension is not applied, and explain says why.
 */
static void
test_hook(void)
{
	struct fixture f2;
	char cfg[600], script[300];

	fixture_init(&f2);
	fixture_v2(&f2, "cpu", "/svc");
	snprintf(script, sizeof(script), "%s/hook.lua", f2.dir);
	FILE *f = fopen(script, "w");
	if (f == NULL)
		bail("cannot write %s", script);
	fprintf(f, "function classify(task, decision, why)\n"
		   "  if decision[\"net_cls\"] == \"/www\" then\n"
		   "    decision[\"net_cls\"] = \"/www/deep\"\n"
		   "  end\n"
		   "  if task:cgroup(\"cpu\") == \"/profs\" then\n"
		   "    decision[\"net_cls\"] = \"/seen\"\n"
		   "  end\n"
		   "end\n");
	fclose(f);
	snprintf(cfg, sizeof(cfg),
		 "unified-layout = {\"cpu\", \"net_cls\"}\nlua-script = \"%s\"\n",
		 script);
	fixture_files(&f2, cfg, "root cpu /profs\n*:fx-www net_cls /www\n");
	fixture_proc(&f2, 100, 0, 0, "/usr/bin/fx-www", 10, "/");
	fixture_proc_v2(&f2, 100, "/");
	fixture_proc(&f2, 200, 0, 0, "/usr/bin/cat", 20, "/");
	fixture_proc_v2(&f2, 200, "/svc/profs/other");
	struct core *c = fixture_core(&f2);
	if (c == NULL)
		bail("cannot build a core with a hook");
	const struct policy *p = core_policy(c);
	explain(c, 100, 0);
	const struct verdict *v = &decision_verdicts(dn)[dim(p, "net_cls")];
	ok(!v->move && strstr(v->reason, "(too deep for the layout)") != NULL,
	   "a hook's destination deeper than the dimension is not applied: %s",
	   v->reason);
	is_string("/svc/profs/default", decision_composed(dn), "... the rest is composed");
	explain(c, 200, 0);
	is_string("/seen", decision_verdicts(dn)[dim(p, "net_cls")].dest,
		  "task:cgroup(\"cpu\") is the process's part of its composed group");
	core_free(c);
	fixture_done(&f2);
	fixture_current = &fx;
}

/*
 * Issue 22 §4: a template that expands to a name the daemon reserves
 * -- its own leaf, a dot name (the service manager's) -- is refused for
 * that process; nothing lands next to the daemon.
 */
static void
test_reserved(void)
{
	struct fixture f2;

	fixture_init(&f2);
	fixture_v2(&f2, "cpu", "/svc");
	fixture_files(&f2, "unified-layout = {\"cpu\"}\n", "* cpu /%p\n");
	fixture_proc(&f2, getpid(), 0, 0, "/usr/sbin/cgengined", 1, "/");
	fixture_proc_v2(&f2, getpid(), "/svc");
	fixture_proc(&f2, 100, 0, 0, "/usr/bin/fx-www", 10, "/");
	fixture_proc(&f2, 200, 1, 1, "/usr/sbin/daemon", 20, "/");
	fixture_proc(&f2, 300, 1, 1, "/usr/bin/.control", 30, "/");
	for (pid_t p = 100; p <= 300; p += 100)
		fixture_proc_v2(&f2, p, "/");
	struct core *c = fixture_core(&f2);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	is_string("/svc/daemon", fixture_group_v2(&f2, getpid()),
		  "the daemon in its leaf");
	is_string("/svc/fx-www", fixture_group_v2(&f2, 100),
		  "/%%p for fx-www: /svc/fx-www");
	is_string("/", fixture_group_v2(&f2, 200),
		  "/%%p for a program named daemon: refused, never the daemon's leaf");
	is_string("/", fixture_group_v2(&f2, 300), "/%%p for .control: refused too");
	is_int(DECIDE_OK, explain(c, 200, 0), "explain the refused one");
	const struct verdict *v = &decision_verdicts(dn)[dim(core_policy(c), "cpu")];
	ok(!v->move && strstr(v->reason, "(refused: the daemon's own leaf)") != NULL,
	   "... says why: %s", v->reason);
	is_string("", decision_composed(dn), "... and composes nothing");
	core_free(c);
	fixture_done(&f2);
	fixture_current = &fx;
}

/* Write text into dir/name. */
static void
put_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) < 0 || fclose(f) != 0)
		bail("cannot write %s", path);
}

/*
 * ananicy-cgroup-hierarchy naming a dimension: a process whose rule's
 * type names cgroup cpu80 and that cgrules.conf places nowhere goes to
 * the composed group's cpu80 level, made with cpu.max for 80% of all
 * CPUs; one cgrules.conf places stays there; one no rule names stays.
 */
static void
test_ananicy(void)
{
	struct fixture f2;
	char dir[200], conf2[400], want[64];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	fixture_init(&f2);
	fixture_v2(&f2, "cpu", "/svc");
	snprintf(dir, sizeof(dir), "%s/ananicy.d", f2.dir);
	if (mkdir(dir, 0755) < 0)
		bail("mkdir %s", dir);
	put_file(dir, "a.cgroups", "{ \"cgroup\": \"cpu80\", \"CPUQuota\": 80 }\n");
	put_file(dir, "a.types", "{ \"type\": \"Capped\", \"cgroup\": \"cpu80\" }\n");
	put_file(dir, "a.rules", "# games\n{ \"name\": \"fx-game\", \"type\": \"Capped\" }\n");
	snprintf(conf2, sizeof(conf2),
		 "unified-layout = {\"cpu\"}\nananicy-dir = \"%s\"\n"
		 "ananicy-cgroup-hierarchy = \"cpu\"\n",
		 dir);
	fixture_files(&f2, conf2, "root cpu /profs\n");
	fixture_proc(&f2, getpid(), 0, 0, "/usr/sbin/cgengined", 1, "/");
	fixture_proc_v2(&f2, getpid(), "/svc");
	fixture_proc(&f2, 100, 0, 0, "/usr/bin/fx-game", 10, "/");
	fixture_proc(&f2, 200, 1, 1, "/usr/bin/fx-game", 20, "/");
	fixture_proc(&f2, 300, 1, 1, "/usr/bin/fx-other", 30, "/");
	for (pid_t p = 100; p <= 300; p += 100)
		fixture_proc_v2(&f2, p, "/");
	struct core *c = fixture_core(&f2);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	is_string("/svc/cpu80", fixture_group_v2(&f2, 200), "ananicy's type's cgroup places");
	snprintf(want, sizeof(want), "%ld 100000", (ncpu > 0 ? ncpu : 1) * 80 * 1000);
	is_string(want, fixture_v2_file(&f2, "/svc/cpu80", "cpu.max"),
		  "made with cpu.max: 80%% of all CPUs per 100 ms");
	is_string("/svc/profs", fixture_group_v2(&f2, 100), "cgrules.conf places first");
	is_string("/", fixture_group_v2(&f2, 300), "a program no rule names stays");
	is_int(DECIDE_OK, explain(c, 200, 0), "explain the placed one");
	const struct verdict *v = &decision_verdicts(dn)[dim(core_policy(c), "cpu")];
	snprintf(conf2, sizeof(conf2), "%s/a.rules:2", dir);
	is_string(conf2, v->reason, "... names the ananicy rule's file and line");
	core_free(c);
	snprintf(conf2, sizeof(conf2),
		 "unified-layout = {\"cpu\"}\nananicy-dir = \"%s\"\n"
		 "ananicy-cgroup-hierarchy = \"nosuch\"\n",
		 dir);
	fixture_files(&f2, conf2, "root cpu /profs\n");
	is_string("cgengined.conf: ananicy-cgroup-hierarchy \"nosuch\": not a managed "
		  "hierarchy or dimension",
		  build_error(&f2), "ananicy-cgroup-hierarchy naming nothing managed is an error");
	fixture_done(&f2);
	fixture_current = &fx;
}

static void
test_errors(void)
{
	struct fixture f2;

	fixture_init(&f2);
	fixture_files(&f2, "unified-layout = {\"cpu\"}\n", "root cpu /x\n");
	is_string(
		"cgengined.conf: unified-layout: \"cpu\" has no v1 hierarchy and no cgroup2 "
		"file system is mounted",
		build_error(&f2), "a layout without a cgroup2 mount is an error");
	fixture_files(&f2, "unified-layout = {\"cpu\", \"cpu\"}\n", "root cpu /x\n");
	is_string("cgengined.conf:9: unified-layout: \"cpu\" is listed twice",
		  build_error(&f2), "a dimension listed twice");
	fixture_files(&f2, "unified-default = \"a/b\"\n", "root cpu /x\n");
	is_string("cgengined.conf:9: unified-default: \"a/b\" is not a group name",
		  build_error(&f2), "a default segment with a slash");
	fixture_done(&f2);
	fixture_init(&f2);
	fixture_v2(&f2, "cpu", "/system.slice");
	fixture_files(&f2, "unified-layout = {\"cpu\"}\n", "root cpu /x\n");
	is_string(
		"cgengined.conf: unified-root: the daemon runs in /system.slice, not in a group "
		"delegated to it; run it in its own unit with Delegate=yes, or set unified-root",
		build_error(&f2), "never the daemon's group when it is a slice");
	fixture_done(&f2);
	fixture_init(&f2);
	fixture_v2(&f2, "cpu", "/");
	fixture_files(&f2, "unified-layout = {\"cpu\"}\nunified-root = \"/cge\"\n",
		      "root cpu /x\n");
	struct core *c = fixture_core(&f2);
	ok(c != NULL && strcmp(core_policy(c)->uroot, "/cge") == 0 &&
		   !core_policy(c)->uroot_own,
	   "unified-root names the subtree; the daemon stays where it is");
	if (c != NULL)
		core_start(c, 1.0);
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/cge", f2.cg2);
	ok(access(dir, F_OK) == 0, "... and it is made at start");
	core_free(c);
	fixture_done(&f2);
	fixture_current = &fx;
}

/* Rules giving dimensions d0..d<n-1> the part /%p/%p (98 bytes each),
 * and dimension d<n> (if last > 0) a literal part of last bytes. */
static void
long_layout(struct fixture *f, unsigned n, size_t last)
{
	char cfg[1024] = "unified-layout = {", text[4096] = "";
	size_t cl = strlen(cfg), rl = 0;

	for (unsigned k = 0; k < n + (last > 0); k++)
		cl += (size_t)snprintf(cfg + cl, sizeof(cfg) - cl, "%s\"d%u\"", k ? ", " : "", k);
	snprintf(cfg + cl, sizeof(cfg) - cl, "}\n");
	for (unsigned k = 0; k < n; k++)
		rl += (size_t)snprintf(text + rl, sizeof(text) - rl, "* d%u /%%p/%%p\n", k);
	if (last > 0) {
		rl += (size_t)snprintf(text + rl, sizeof(text) - rl, "* d%u /", n);
		for (size_t i = 1; i < last; i++)
			text[rl++] = 'x';
		snprintf(text + rl, sizeof(text) - rl, "\n");
	}
	fixture_files(f, cfg, text);
}

/*
 * Issue 32 §7: a composed group longer than a group path may be (1,023
 * bytes) was left alone silently.  A layout whose rules can compose one
 * is refused (--check, start, reload); one that still does not fit at
 * run time (a current part kept) is left alone, and explain says why.
 */
static void
test_limit(void)
{
	struct fixture f2;
	char want[2048];

	fixture_init(&f2);
	fixture_v2(&f2, "cpu", "/svc");
	/* /svc, ten parts of 98 bytes and one of 39: 1,023 bytes */
	long_layout(&f2, 10, 39);
	is_string("", build_error(&f2), "a layout composing up to 1,023 bytes is taken");
	long_layout(&f2, 10, 40);
	snprintf(want, sizeof(want),
		 "cgengined.conf:9: unified-layout: a composed group can be 1024 bytes long, "
		 "over the limit of 1023 (11 dimensions; the longest part is d0's, 98 bytes, "
		 "from %s:1, /%%p/%%p): use fewer dimensions or levels, or shorter destinations "
		 "(a template's value takes up to 48 bytes)",
		 f2.rules);
	is_string(want, build_error(&f2), "one byte more is refused, with file and line");
	/* the attack run's: 63 dimensions, two levels of 48-byte values */
	char cfg[1024] = "unified-layout = {", rule[1024] = "* ";
	for (unsigned k = 0; k < 63; k++) {
		snprintf(cfg + strlen(cfg), sizeof(cfg) - strlen(cfg), "%s\"d%u\"",
			 k ? ", " : "", k);
		snprintf(rule + strlen(rule), sizeof(rule) - strlen(rule), "%sd%u",
			 k ? "," : "", k);
	}
	strcat(cfg, "}\n");
	strcat(rule, " /%p/%p\n");
	fixture_files(&f2, cfg, rule);
	ok(strstr(build_error(&f2), ": a composed group can be 6178 bytes long") != NULL,
	   "63 dimensions x /%%p/%%p: refused");
	/* the default segments and boost profiles count too */
	char text[2048] = "* cpu ";
	for (unsigned k = 0; k < 60; k++)
		strcat(text, "/a");
	strcat(text, "\n");
	fixture_files(&f2, "unified-layout = {\"cpu\"}\nunified-default = \"a-default-segment\"\n",
		      text);
	ok(strstr(build_error(&f2),
		  ": a composed group can be 1084 bytes long, over the limit of 1023 (1 "
		  "dimension; the longest part is cpu's, 1080 bytes, from unified-default)") !=
		   NULL,
	   "60 levels of the default segment: refused");
	snprintf(text, sizeof(text),
		 "unified-layout = {\"cpu\"}\n"
		 "boost-profile \"p\" {\n  hierarchy = \"cpu\"\n  destination = \"/");
	size_t tl = strlen(text);
	memset(text + tl, 'f', 1020);
	snprintf(text + tl + 1020, sizeof(text) - tl - 1020, "\"\n}\n");
	fixture_files(&f2, text, "* cpu /a\n");
	ok(strstr(build_error(&f2), ": a composed group can be 1025 bytes long") != NULL &&
		   strstr(reported, "from boost-profile \"p\", /ffff") != NULL,
	   "a boost profile's destination: refused");
	fixture_files(&f2, "unified-layout = {\"cpu\", \"net_cls\"}\n",
		      "*:fx-www cpu /bbbbbbbbbbbbbbbbbbb\n"
		      "*:fx-www cpu /%p/%p/%p/%p/%p/%p/%p/%p/%p/%p/%p/%p/%p/%p/%p/%p ignore\n");
	is_string("", build_error(&f2), "an ignore rule moves nothing: not counted");
	fixture_files(&f2, "unified-layout = {\"cpu\", \"net_cls\"}\n",
		      "*:fx-www cpu /bbbbbbbbbbbbbbbbbbb\n");
	/* a current part kept that is too long: left alone, explain says why */
	char cur[1100];
	snprintf(cur, sizeof(cur), "/svc/x/");
	memset(cur + 7, 'a', 1010);
	cur[1017] = '\0';
	fixture_proc(&f2, 100, 0, 0, "/usr/bin/fx-www", 10, "/");
	fixture_proc_v2(&f2, 100, cur);
	struct core *c = fixture_core(&f2);
	if (c == NULL)
		bail("no core");
	is_int(DECIDE_OK, explain(c, 100, 0), "explain a process whose group cannot be composed");
	is_string("", decision_composed(dn), "... nothing composed");
	is_string("the composed group would be longer than 1023 bytes",
		  decision_refusal(dn), "... and it says why");
	core_free(c);
	fixture_done(&f2);
	fixture_current = &fx;
}

int
main(void)
{
	plan(77 + 7 + 9 + 7 + 5);
	test_pure();
	fixture_init(&fx);
	fixture_v2(&fx, "cpu io memory pids", "/svc");
	fixture_files(&fx, conf, rules);
	fixture_proc(&fx, 100, 0, 0, "/usr/bin/fx-www", 10, "/");
	fixture_proc(&fx, 200, NOBODY, NOBODY, "/usr/bin/fx-www", 20, "/");
	fixture_proc(&fx, 300, NOBODY, NOBODY, "/usr/bin/fx-batch", 30, "/");
	fixture_proc(&fx, 400, NOBODY, NOBODY, "/usr/bin/cat", 40, "/");
	fixture_proc(&fx, 500, OTHER, OTHER, "/usr/bin/true", 50, "/");
	fixture_proc(&fx, 600, OTHER, OTHER, "/usr/bin/fx-www", 60, "/");
	fixture_proc(&fx, getpid(), OTHER, OTHER, "/usr/sbin/cgengined", 70, "/");
	for (pid_t pid = 100; pid <= 600; pid += 100)
		fixture_proc_v2(&fx, pid, "/");
	fixture_proc_v2(&fx, getpid(), "/svc");

	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("cannot build a core over the fixture");
	test_policy(c);
	test_compose(c);
	test_explain(c);
	test_verb(c);
	test_boost(c);
	test_cleanup(c);
	core_stop(c);
	core_free(c);
	test_restart();
	test_hook();
	test_reserved();
	test_ananicy();
	test_errors();
	test_limit();
	fixture_done(&fx);
	decision_free(dn);
	return 0;
}
