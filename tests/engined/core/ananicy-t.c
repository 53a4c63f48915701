/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy-t.c -- ananicy's rules in the core (engined/core/ananicy.c),
 * without root, over a fixture /proc and fake hierarchies:
 * ananicy-type-hierarchy makes each type a group of a dimension of the
 * unified layout with the cpu.weight of its nice and the io.weight of
 * its I/O level, places the processes of a type there after
 * cgrules.conf, and explain names the rule's and the type's lines; it
 * composes with ananicy-cgroup-hierarchy in another dimension; the
 * hierarchies it refuses; the cgroup2 tree managed without a layout; on
 * backend systemd (a stand-in) a class is a
 * slice with CPUWeight= and IOWeight=, an ananicy cgroup one with
 * CPUQuota=; and ananicy's CPUQuota written
 * as a v1 cpu hierarchy's CFS files.
 */
#include "engined/core/core_private.h"
#include "engined/core/core.h"
#include "tests/lib/fakebackend.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The decision of the last explain (freed by the next and at the end). */
static struct decision *dn;

static enum decide_result
explain(struct core *c, pid_t pid)
{
	decision_free(dn);
	dn = core_decision_new(c);
	return core_explain(c, pid, 0, dn);
}

/* The verdict of dimension or hierarchy spec in the last explain. */
static const struct verdict *
verdict_of(struct core *c, const char *spec)
{
	const struct policy *p = core_policy(c);
	int i = policy_index(p, policy_find(p, spec));

	if (i < 0)
		bail("no hierarchy %s", spec);
	return &decision_verdicts(dn)[i];
}

static void
put_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) < 0 || fclose(f) != 0)
		bail("cannot write %s", path);
}

/* A small rules tree in f's directory; its path into dir[len]. */
static void
ananicy_tree(struct fixture *f, char *dir, size_t len)
{
	snprintf(dir, len, "%s/ananicy.d", f->dir);
	if (mkdir(dir, 0755) < 0)
		bail("mkdir %s", dir);
	put_file(dir, "a.types",
		 "{ \"type\": \"Game\", \"nice\": -5, \"ioclass\": \"best-effort\", "
		 "\"cgroup\": \"cpu80\" }\n"
		 "{ \"type\": \"Heavy_CPU\", \"nice\": 9, \"ioclass\": \"best-effort\", "
		 "\"ionice\": 7 }\n");
	put_file(dir, "a.cgroups", "{ \"cgroup\": \"cpu80\", \"CPUQuota\": 80 }\n");
	put_file(dir, "a.rules",
		 "{ \"name\": \"fx-game\", \"type\": \"Game\" }\n"
		 "{ \"name\": \"fx-cc\", \"type\": \"Heavy_CPU\", \"nice\": 2 }\n"
		 "{ \"name\": \"fx-admin\", \"type\": \"Game\" }\n");
}

static struct fixture fx;

/* The error building a core over f reports ("" if none). */
static char reported[1024];

static void
report(void *arg, const char *msg)
{
	(void)arg;
	snprintf(reported, sizeof(reported), "%s", msg);
}

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

/* Processes: the daemon in /svc; fx-game and fx-cc of nobody; fx-admin of
 * root (cgrules.conf places root's); fx-other no rule names. */
static void
procs(struct fixture *f)
{
	fixture_proc(f, getpid(), 0, 0, "/usr/sbin/cgengined", 1, "/");
	fixture_proc_v2(f, getpid(), "/svc");
	fixture_proc(f, 100, 65534, 65534, "/usr/bin/fx-game", 10, "/");
	fixture_proc(f, 200, 65534, 65534, "/usr/bin/fx-cc", 20, "/");
	fixture_proc(f, 300, 0, 0, "/usr/bin/fx-admin", 30, "/");
	fixture_proc(f, 400, 65534, 65534, "/usr/bin/fx-other", 40, "/");
	for (pid_t p = 100; p <= 400; p += 100)
		fixture_proc_v2(f, p, "/");
}

static void
test_classes(void)
{
	char dir[200], conf[600], want[600];

	ananicy_tree(&fx, dir, sizeof(dir));
	snprintf(conf, sizeof(conf),
		 "unified-layout = {\"classes\"}\nananicy-dir = \"%s\"\n"
		 "ananicy-type-hierarchy = \"classes\"\n",
		 dir);
	fixture_files(&fx, conf, "root classes /admins\n");
	procs(&fx);
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	is_string("/svc/Game", fixture_group_v2(&fx, 100),
		  "a Game goes to its type's class");
	is_string("305", fixture_v2_file(&fx, "/svc/Game", "cpu.weight"),
		  "made with the cpu.weight of nice -5");
	is_string("200", fixture_v2_file(&fx, "/svc/Game", "io.weight"),
		  "and the io.weight of best-effort 0");
	is_string("/svc/Heavy_CPU", fixture_group_v2(&fx, 200),
		  "a compiler goes to its class");
	is_string("13", fixture_v2_file(&fx, "/svc/Heavy_CPU", "cpu.weight"),
		  "with the cpu.weight of its type's nice 9, not its rule's 2");
	is_string("25", fixture_v2_file(&fx, "/svc/Heavy_CPU", "io.weight"),
		  "and the io.weight of best-effort 7");
	is_string("cpu io", fixture_v2_file(&fx, "/svc", "cgroup.subtree_control"),
		  "cpu and io enabled for the classes");
	is_string("/svc/admins", fixture_group_v2(&fx, 300), "cgrules.conf places first");
	is_string("/", fixture_group_v2(&fx, 400), "a program no rule names stays");
	is_int(DECIDE_OK, explain(c, 100), "explain the Game");
	const struct verdict *v = verdict_of(c, "classes");
	is_string("/Game", v->move ? v->dest : "(none)", "... its class");
	snprintf(want, sizeof(want),
		 "%s/a.rules:1, the class of type Game (%s/a.types:1)", dir, dir);
	is_string(want, v->reason, "... and the rule's and the type's file:line");
	is_int(DECIDE_OK, explain(c, 300), "explain root's");
	snprintf(want, sizeof(want), "%s:1", fx.rules);
	is_string(want, verdict_of(c, "classes")->reason,
		  "... cgrules.conf's line decided");
	core_free(c);
}

/* The classes in one dimension, ananicy's cgroups in another: a Game
 * whose type names cpu80 goes to Game/cpu80, each level with its own
 * settings. */
static void
test_with_cgroups(void)
{
	struct fixture f2;
	char dir[200], conf[600], want[64];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	fixture_init(&f2);
	fixture_v2(&f2, "cpu io", "/svc");
	ananicy_tree(&f2, dir, sizeof(dir));
	snprintf(
		conf, sizeof(conf),
		"unified-layout = {\"classes\", \"quota\"}\nananicy-dir = \"%s\"\n"
		"ananicy-type-hierarchy = \"classes\"\nananicy-cgroup-hierarchy = \"quota\"\n",
		dir);
	fixture_files(&f2, conf, "");
	procs(&f2);
	struct core *c = fixture_core(&f2);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	is_string("/svc/Game/cpu80", fixture_group_v2(&f2, 100),
		  "class and cgroup compose: Game/cpu80");
	is_string("305", fixture_v2_file(&f2, "/svc/Game", "cpu.weight"),
		  "the class's weight");
	snprintf(want, sizeof(want), "%ld 100000", (ncpu > 0 ? ncpu : 1) * 80 * 1000);
	is_string(want, fixture_v2_file(&f2, "/svc/Game/cpu80", "cpu.max"),
		  "the cgroup's quota below it");
	core_free(c);

	snprintf(
		conf, sizeof(conf),
		"unified-layout = {\"classes\"}\nananicy-dir = \"%s\"\n"
		"ananicy-type-hierarchy = \"classes\"\nananicy-cgroup-hierarchy = \"classes\"\n",
		dir);
	fixture_files(&f2, conf, "");
	is_string(
		"cgengined.conf: ananicy-type-hierarchy \"classes\": ananicy-cgroup-hierarchy "
		"names it too; give each a hierarchy of its own",
		build_error(&f2), "one hierarchy for both is refused");
	snprintf(conf, sizeof(conf),
		 "unified-layout = {\"classes\"}\nananicy-dir = \"%s\"\n"
		 "ananicy-type-hierarchy = \"" FIXTURE_HIER "\"\n",
		 dir);
	fixture_files(&f2, conf, "");
	is_string("cgengined.conf: ananicy-type-hierarchy \"" FIXTURE_HIER
		  "\": a cgroup v1 "
		  "hierarchy; cpu.weight and io.weight need cgroup v2 (\"unified\" or a "
		  "dimension of unified-layout)",
		  build_error(&f2), "a v1 hierarchy is refused");
	snprintf(conf, sizeof(conf),
		 "unified-layout = {\"classes\"}\nananicy-dir = \"%s\"\n"
		 "ananicy-type-hierarchy = \"nosuch\"\n",
		 dir);
	fixture_files(&f2, conf, "");
	is_string(
		"cgengined.conf: ananicy-type-hierarchy \"nosuch\": not a managed hierarchy "
		"or dimension",
		build_error(&f2), "a hierarchy not managed is refused");
	fixture_done(&f2);
	fixture_current = &fx;
}

/* The cgroup2 tree managed as a hierarchy ("unified", no layout): the
 * classes are groups of its root. */
static void
test_unified(void)
{
	struct fixture f2;
	char dir[200], conf[600];

	fixture_init(&f2);
	fixture_v2(&f2, "cpu io", "/");
	ananicy_tree(&f2, dir, sizeof(dir));
	snprintf(conf, sizeof(conf),
		 "hierarchies = {\"" FIXTURE_HIER
		 "\", \"unified\"}\nananicy-dir = \"%s\"\n"
		 "ananicy-type-hierarchy = \"unified\"\n",
		 dir);
	fixture_files(&f2, conf, "");
	fixture_proc(&f2, 100, 65534, 65534, "/usr/bin/fx-game", 10, "/");
	fixture_proc_v2(&f2, 100, "/");
	struct core *c = fixture_core(&f2);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	is_string("/Game", fixture_group_v2(&f2, 100),
		  "unified: the class is a group of its root");
	is_string("305", fixture_v2_file(&f2, "/Game", "cpu.weight"),
		  "with its cpu.weight");
	core_free(c);
	fixture_done(&f2);
	fixture_current = &fx;
}

/* backend systemd: the class is a slice under the root slice, its
 * weights the slice's properties, and ananicy's cgroup in the next
 * dimension a slice below it with its quota (the values: sdunit-t). */
static void
test_systemd(void)
{
	struct fixture f2;
	char dir[200], conf[600];

	fixture_init(&f2);
	fixture_v2(&f2, "cpu io memory pids", "/system.slice/cgengined.service");
	ananicy_tree(&f2, dir, sizeof(dir));
	snprintf(conf, sizeof(conf),
		 "unified-layout = {\"classes\", \"quota\"}\nbackend = \"systemd\"\n"
		 "ananicy-dir = \"%s\"\nananicy-type-hierarchy = \"classes\"\n"
		 "ananicy-cgroup-hierarchy = \"quota\"\n",
		 dir);
	fixture_files(&f2, conf, "");
	fixture_proc(&f2, 100, 65534, 65534, "/usr/bin/fx-game", 10, "/");
	fixture_proc_v2(&f2, 100, "/user.slice/user-65534.slice/session-1.scope");
	fixture_proc(&f2, getpid(), 0, 0, "/usr/sbin/cgengined", 70, "/");
	fixture_proc_v2(&f2, getpid(), "/system.slice/cgengined.service");
	fakebackend_reset();
	struct core *c = fakebackend_core(&f2, NULL);
	if (c == NULL)
		bail("no core over the systemd stand-in");
	core_start(c, 1.0);
	ok(fakebackend_called(FAKEBACKEND_ROOT "/Game"), "systemd: the class is made");
	ok(fakebackend_called(FAKEBACKEND_ROOT "/Game CPUWeight") &&
		   fakebackend_called(FAKEBACKEND_ROOT "/Game IOWeight"),
	   "with its weights as the slice's CPUWeight= and IOWeight=");
	ok(fakebackend_called(FAKEBACKEND_ROOT "/Game/cpu80 CPUQuotaPerSecUSec"),
	   "ananicy's cgroup below it is a slice with CPUQuota=");
	ok(fakebackend_called("move 100 " FAKEBACKEND_ROOT "/Game/cpu80"),
	   "the game's move is asked for");
	core_free(c);
	fixture_done(&f2);
	fixture_current = &fx;
}

/*
 * ananicy-cgroup-hierarchy on a v1 hierarchy with the cpu controller:
 * the group is made with cpu.cfs_period_us and cpu.cfs_quota_us (the
 * machine's own cpu hierarchy is never written by a test; here the fake
 * hierarchy says it has the cpu controller).
 */
static void
test_v1_quota(void)
{
	struct fixture f2;
	char dir[200], conf[600], want[64];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	fixture_init(&f2);
	fixture_v1_controllers(&f2, "cpu");
	ananicy_tree(&f2, dir, sizeof(dir));
	snprintf(conf, sizeof(conf),
		 "ananicy-dir = \"%s\"\nananicy-cgroup-hierarchy = \"cpu\"\n", dir);
	fixture_files(&f2, conf, "root " FIXTURE_HIER " /admins\n");
	fixture_proc(&f2, 100, 65534, 65534, "/usr/bin/fx-game", 10, "/");
	fixture_proc(&f2, 300, 0, 0, "/usr/bin/fx-admin", 30, "/");
	struct core *c = fixture_core(&f2);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	is_string("/cpu80", fixture_group(&f2, 100), "v1 cpu: the type's cgroup places");
	is_string("100000", fixture_v1_file(&f2, "/cpu80", "cpu.cfs_period_us"),
		  "cpu.cfs_period_us is 100 ms");
	snprintf(want, sizeof(want), "%ld", (ncpu > 0 ? ncpu : 1) * 80 * 1000);
	is_string(want, fixture_v1_file(&f2, "/cpu80", "cpu.cfs_quota_us"),
		  "cpu.cfs_quota_us: 80%% of all %ld CPUs", ncpu);
	ok(f2.nsets == 2 && strcmp(f2.sets[0], "/cpu80 cpu.cfs_period_us 100000") == 0 &&
		   strncmp(f2.sets[1], "/cpu80 cpu.cfs_quota_us ", 24) == 0,
	   "the period written first, then the quota");
	is_string("/admins", fixture_group(&f2, 300), "cgrules.conf places first");
	core_free(c);
	fixture_done(&f2);
	fixture_current = &fx;
}

int
main(void)
{
	plan(31);
	fixture_init(&fx);
	fixture_v2(&fx, "cpu io memory", "/svc");
	test_classes();
	test_with_cgroups();
	test_unified();
	test_systemd();
	test_v1_quota();
	decision_free(dn);
	fixture_done(&fx);
	return tap_done();
}
