/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdunit-t.c -- engined/backend/systemd/sdunit.c without root: the names
 * for the unified layout's groups (escaping as systemd-escape does, the
 * chain of nested slices, and back, from a control group or a unit's
 * name as systemd's UnitRemoved gives it), the root slice's prefix, the unit
 * a control group belongs to, the processes the systemd backend leaves
 * alone (by their path, and by systemd's mark on a delegated unit's
 * group through an injected reader), and group settings as unit
 * properties of systemd 252.
 */
#include "engined/backend/systemd/sdunit.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define R "/cgengine.slice"

static void
test_names(void)
{
	char out[SDUNIT_NAME_MAX * 4];

	is_int(0, sdunit_root_prefix(R, out, sizeof(out)), "the default root is a slice");
	is_string("cgengine", out, "its prefix");
	is_int(0, sdunit_root_prefix("/a.slice/a-b.slice", out, sizeof(out)),
	       "a nested root");
	is_string("a-b", out, "its prefix is the inner slice's");
	is_int(-EINVAL, sdunit_root_prefix("/a.slice/b.slice", out, sizeof(out)),
	       "a slice that systemd would not nest there is refused");
	is_int(-EINVAL, sdunit_root_prefix("/a-b.slice", out, sizeof(out)),
	       "so is a nested name at the top");
	is_int(-EINVAL,
	       sdunit_root_prefix("/system.slice/cgengined.service", out, sizeof(out)),
	       "a service is no root slice");
	is_int(-EINVAL, sdunit_root_prefix("/", out, sizeof(out)),
	       "nor is the root group");
	is_int(-EINVAL, sdunit_root_prefix("/-.slice", out, sizeof(out)),
	       "nor is -.slice");

	const char *why = NULL;
	is_int(1, sdunit_layout_root("", out, sizeof(out), &why),
	       "the layout's root when unified-root is \"\"");
	is_string(R, out, "is the default slice");
	is_int(1, sdunit_layout_root("/a.slice/a-b.slice", out, sizeof(out), &why),
	       "a configured slice");
	is_string("/a.slice/a-b.slice", out, "is the root as it is");
	is_int(-EINVAL, sdunit_layout_root("/svc", out, sizeof(out), &why),
	       "a group that is no slice's is refused");
	is_string("is not a slice's group (backend systemd: e.g. \"/cgengine.slice\" or "
		  "\"/a.slice/a-b.slice\")",
		  why, "saying why");

	is_int(0, sdunit_name("cgengine", "/students/www", "scope", out, sizeof(out)),
	       "a two-level group");
	is_string("cgengine-students-www.scope", out,
		  "names its scope after both levels");
	is_int(0, sdunit_name("cgengine", "/stud-1/.x/a b\\c", "slice", out, sizeof(out)),
	       "segments with a dash, a leading dot, a blank and a backslash");
	is_string("cgengine-stud\\x2d1-\\x2ex-a\\x20b\\x5cc.slice", out,
		  "are escaped as systemd-escape does");
	is_int(-EINVAL, sdunit_name("cgengine", "/a//b", "scope", out, sizeof(out)),
	       "an empty segment is refused");
	is_int(-EINVAL, sdunit_name("cgengine", "/a/..", "scope", out, sizeof(out)),
	       "so is ..");
	char longseg[300];
	memset(longseg, 'x', sizeof(longseg) - 1);
	longseg[0] = '/';
	longseg[sizeof(longseg) - 1] = '\0';
	is_int(-ENAMETOOLONG, sdunit_name("cgengine", longseg, "scope", out, sizeof(out)),
	       "a name longer than systemd's 255 bytes is refused");
	/* the longest value a template gives (48 bytes, rules/template.c),
	 * every byte escaped, still makes a unit name: a program's name
	 * cannot take its process out of its class */
	char hostile[64] = "/students/";
	memset(hostile + 10, 0xff, 48);
	hostile[58] = '\0';
	is_int(0, sdunit_name("cgengine", hostile, "scope", out, sizeof(out)),
	       "a 48-byte template value of bytes systemd escapes fits");
	is_int(18 + 48 * 4 + 6, (long long)strlen(out), "... in %zu bytes", strlen(out));
	char desc[300];
	sdunit_description("/students/www", "cgengine-students-www.scope", desc,
			   sizeof(desc));
	is_string("cgengine class /students/www", desc, "a unit's description");
	sdunit_description(hostile, out, desc, sizeof(desc));
	ok(strncmp(desc, "cgengine class cgengine-students-\\xff", 37) == 0,
	   "... is the unit's (ASCII) name when the group's is not printable ASCII "
	   "(sd-bus refuses a string that is not UTF-8)");
	sdunit_description("", "cgengine.slice", desc, sizeof(desc));
	is_string("cgengine class root", desc, "... and 'root' for the root slice");

	is_int(0,
	       sdunit_cgroup(R, "cgengine", "/students/default/www", "scope", out,
			     sizeof(out)),
	       "the control group of a three-level group");
	is_string(R "/cgengine-students.slice/cgengine-students-default.slice/"
		    "cgengine-students-default-www.scope",
		  out, "is its chain of slices, then the scope");
}

static void
test_back(void)
{
	char out[1024];

	is_int(0,
	       sdunit_logical(
		       R, "cgengine",
		       R "/cgengine-students.slice/cgengine-students-www\\x2d2.scope",
		       out, sizeof(out)),
	       "a scope of the layout");
	is_string("/students/www-2", out, "is its logical group again, unescaped");
	is_int(0, sdunit_logical(R, "cgengine", R "/cgengine-a.slice", out, sizeof(out)),
	       "a slice of the layout");
	is_string("/a", out, "is one level");
	is_int(-ENOENT,
	       sdunit_logical(R, "cgengine", R "/cgengine-a.slice/cgengine-b-c.scope",
			      out, sizeof(out)),
	       "a scope in the wrong slice is not the layout's");
	is_int(-ENOENT,
	       sdunit_logical(R, "cgengine",
			      "/user.slice/user-1000.slice/session-2.scope", out,
			      sizeof(out)),
	       "nor is a session");
	is_int(-ENOENT,
	       sdunit_logical(R, "cgengine", R "/cgengine-a\\x2F.scope", out,
			      sizeof(out)),
	       "nor a name systemd would not write (upper-case escape)");
	is_int(-ENOENT,
	       sdunit_logical(R, "cgengine", R "/cgengine-a\\x2fb.scope", out,
			      sizeof(out)),
	       "nor one whose segment would hold a slash");
	is_int(-ENOENT,
	       sdunit_logical(R, "cgengine", R "/other-a.scope", out, sizeof(out)),
	       "nor a unit of another prefix in the root slice");

	/* a unit's name alone, as systemd's UnitRemoved names it */
	is_int(0,
	       sdunit_group("cgengine", "cgengine-students-www\\x2d2.scope", out,
			    sizeof(out)),
	       "a scope's name");
	is_string("/students/www-2", out, "is its logical group, unescaped");
	is_int(0, sdunit_group("cgengine", "cgengine-students.slice", out, sizeof(out)),
	       "a slice's name");
	is_string("/students", out, "is its level's group");
	is_int(0, sdunit_group("a-b", "a-b-x-y.scope", out, sizeof(out)),
	       "a scope below a nested root");
	is_string("/x/y", out, "is the group below that root");
	is_int(-ENOENT, sdunit_group("cgengine", "cgengine.slice", out, sizeof(out)),
	       "the root slice is no group below the root");
	is_int(-ENOENT, sdunit_group("cgengine", "session-3.scope", out, sizeof(out)),
	       "a session's scope is not the layout's");
	is_int(-ENOENT, sdunit_group("cgengine", "cgenginex-a.scope", out, sizeof(out)),
	       "nor a unit whose name only starts with the prefix");
	is_int(-ENOENT, sdunit_group("cgengine", "cgengine-a.service", out, sizeof(out)),
	       "nor a service named with it");
	is_int(-ENOENT,
	       sdunit_group("cgengine", "cgengine-\\x61.scope", out, sizeof(out)),
	       "nor a name spelt otherwise than the backend spells it");
	is_int(-ENOENT, sdunit_group("cgengine", "cgengine-a--b.scope", out, sizeof(out)),
	       "nor one with an empty level");
	is_int(-ENOENT,
	       sdunit_group("cgengine", "cgengine-a\\x2fb.scope", out, sizeof(out)),
	       "nor one whose segment would hold a slash");

	is_int(0,
	       sdunit_unit_of("/user.slice/user-1000.slice/session-4.scope", out,
			      sizeof(out)),
	       "the unit of a session's process");
	is_string("session-4.scope", out, "is its scope");
	is_int(0, sdunit_unit_of("/system.slice/docker.service/x.y/z", out, sizeof(out)),
	       "the unit of a delegated subtree's process");
	is_string("docker.service", out, "is the delegating unit, not a group below it");
	is_int(-ENOENT, sdunit_unit_of("/", out, sizeof(out)),
	       "the root group is no unit's");
}

static void
test_refusal(void)
{
	const char *own = "/system.slice/cgengined.service";

	ok(sdunit_refusal("/user.slice/user-1000.slice/session-2.scope", own) == NULL,
	   "a session's process may be moved");
	ok(sdunit_refusal("/system.slice/cron.service", own) == NULL,
	   "so may a service's");
	ok(sdunit_refusal(R "/cgengine-a.slice/cgengine-a-b.scope", own) == NULL,
	   "and one in the layout's own scopes");
	ok(sdunit_refusal("/init.scope", own) != NULL,
	   "PID 1's init.scope is left alone");
	ok(sdunit_refusal("/user.slice/user-1000.slice/user@1000.service/init.scope",
			  own) != NULL,
	   "the user's manager is left alone");
	ok(sdunit_refusal(
		   "/user.slice/user-1000.slice/user@1000.service/app.slice/x.service",
		   own) != NULL,
	   "so is what it started");
	ok(sdunit_refusal("/machine.slice/machine-c1.scope/payload/system.slice", own) !=
		   NULL,
	   "a group below a unit's own group (delegated) is left alone");
	ok(sdunit_refusal(own, own) != NULL, "the daemon's own unit is left alone");
	ok(sdunit_refusal("/system.slice/cgengined.service/daemon", own) != NULL,
	   "and its delegated leaf");
	ok(sdunit_refusal("/", own) != NULL, "a process in the root group is left alone");
	ok(sdunit_refusal("/system.slice", own) != NULL, "so is one directly in a slice");
	ok(sdunit_refusal("/system.slice/cgengined.service-x.service", own) == NULL,
	   "a unit whose name only starts like the daemon's is not the daemon's");
}

/* The injected reader: the groups systemd marked delegated, and what
 * it was asked about. */
static const char *marked[] = { "/machine.slice/machine-c1.scope",
				"/system.slice/podman.service" };
static char asked_about[256];
static int read_error;

static int
fake_delegated(void *arg, const char *group)
{
	snprintf(asked_about, sizeof(asked_about), "%s", group);
	if (read_error != 0)
		return read_error;
	for (size_t i = 0; i < sizeof(marked) / sizeof(marked[0]); i++)
		if (strcmp(group, marked[i]) == 0)
			return 1;
	return 0;
}

static const char *
refusal_d(const char *real)
{
	asked_about[0] = '\0';
	return sdunit_refusal_delegated(real, "/system.slice/cgengined.service", R,
					"cgengine", fake_delegated, NULL);
}

static void
test_delegated(void)
{
	const char *no = refusal_d("/machine.slice/machine-c1.scope");

	ok(no != NULL && strstr(no, "Delegate=yes") != NULL,
	   "a process in a delegated scope's own group is left alone, and why");
	is_string("/machine.slice/machine-c1.scope", asked_about,
		  "the mark looked at is the unit's own group's");
	ok(refusal_d("/system.slice/podman.service") != NULL, "so is a delegated service's");
	ok(refusal_d("/system.slice/cron.service") == NULL,
	   "a unit that is not delegated may be moved");
	ok(refusal_d(R "/cgengine-a.slice/cgengine-a-b.scope") == NULL,
	   "the backend's own scopes (delegated for attaching) may be moved");
	is_string("", asked_about, "without looking at their mark");
	ok(refusal_d(R "/cgengine-a.slice/other.scope") == NULL &&
		   strcmp(asked_about, R "/cgengine-a.slice/other.scope") == 0,
	   "a unit below the root slice not named by the layout is looked at");
	ok(refusal_d("/init.scope") != NULL && asked_about[0] == '\0',
	   "what sdunit_refusal refuses is refused without a look");
	read_error = -ENOENT;
	ok(refusal_d("/system.slice/podman.service") == NULL,
	   "a group that is gone (-ENOENT) is not delegated");
	read_error = -EIO;
	no = refusal_d("/system.slice/cron.service");
	ok(no != NULL && strstr(no, "cannot tell") != NULL,
	   "a mark that cannot be read: left alone, and said so");
	read_error = 0;
}

static void
test_props(void)
{
	struct sdprop p[SDPROP_MAX];

	is_int(1, sdunit_props("cpu.weight", "20", p), "cpu.weight is one property");
	ok(strcmp(p[0].name, "CPUWeight") == 0 && p[0].type == 't' && p[0].u == 20,
	   "CPUWeight=20");
	is_int(-EINVAL, sdunit_props("cpu.weight", "0", p), "weight 0 is out of range");
	is_int(1, sdunit_props("memory.max", "8G", p), "memory.max with a suffix");
	ok(strcmp(p[0].name, "MemoryMax") == 0 && p[0].u == 8ull << 30, "MemoryMax=8G");
	is_int(1, sdunit_props("memory.high", "max", p), "memory.high max");
	ok(strcmp(p[0].name, "MemoryHigh") == 0 && p[0].u == UINT64_MAX,
	   "MemoryHigh=infinity");
	is_int(-EINVAL, sdunit_props("memory.max", "8X", p),
	       "an unknown suffix is refused");
	is_int(-EINVAL, sdunit_props("memory.max", "99999999999E", p),
	       "so is an overflow");
	is_int(1, sdunit_props("io.weight", "default 100", p),
	       "io.weight as the kernel shows it");
	ok(strcmp(p[0].name, "IOWeight") == 0 && p[0].u == 100, "IOWeight=100");
	is_int(1, sdunit_props("pids.max", "512", p), "pids.max");
	ok(strcmp(p[0].name, "TasksMax") == 0 && p[0].u == 512, "TasksMax=512");
	is_int(2, sdunit_props("cpu.max", "50000 100000", p),
	       "cpu.max is two properties");
	ok(strcmp(p[0].name, "CPUQuotaPerSecUSec") == 0 && p[0].u == 500000 &&
		   strcmp(p[1].name, "CPUQuotaPeriodUSec") == 0 && p[1].u == 100000,
	   "CPUQuota=50%% per 100 ms");
	is_int(1, sdunit_props("cpuset.cpus", "0-2,9", p), "cpuset.cpus");
	ok(strcmp(p[0].name, "AllowedCPUs") == 0 && p[0].type == 'y' &&
		   p[0].masklen == 2 && p[0].mask[0] == 0x07 && p[0].mask[1] == 0x02,
	   "AllowedCPUs as systemd's byte mask");
	is_int(-EINVAL, sdunit_props("cpuset.cpus", "3-1", p),
	       "a reversed range is refused");
	is_int(-ENOTSUP, sdunit_props("net_cls.classid", "0x10001", p),
	       "a file no property stands for is not supported");
}

int
main(void)
{
	plan_lazy();
	test_names();
	test_back();
	test_refusal();
	test_delegated();
	test_props();
	return tap_done();
}
