/*
 * task-t.c -- tests for kernel/task.c on a recorded /proc tree and on
 * the live /proc: status parsing, exe and script, kernel threads,
 * cgroup files, vanished tasks.
 */
#include "kernel/kernel.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
count(void *arg, pid_t pid)
{
	(*(int *)arg)++;
	return 0;
}

static void
test_script_heuristic(void)
{
	char out[256];
	static const struct {
		const char *exe;
		const char *cmd;
		size_t len;
		const char *want;
	} c[] = {
		{ "/bin/dash", "/bin/sh\0/usr/local/bin/job\0a\0", 29,
		  "/usr/local/bin/job" },
		{ "/usr/bin/python3.11", "python3\0-u\0-O\0x.py\0", 20, "x.py" },
		{ "/bin/bash", "bash\0-c\0echo hi\0", 16, "" },
		{ "/bin/bash", "bash\0--\0-weird\0", 15, "-weird" },
		{ "/usr/bin/vim", "vim\0file\0", 9, "" },
		{ "/usr/bin/shred", "shred\0file\0", 11, "" },
		{ "/usr/bin/perl", "perl\0", 5, "" },
		{ "/usr/bin/perl", "perl\0-w", 7, "" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		task_script_from_cmdline(c[i].exe, c[i].cmd, c[i].len, out, sizeof(out));
		is_string(c[i].want, out, "script of %s case %zu", c[i].exe, i);
	}
}

/*
 * Build a /proc look-alike in a temporary directory: the text files of
 * tests/data/proc linked in, plus the exe links (which make dist would
 * turn into copies of the binaries, so they are made here).
 */
static void
make_procroot(char *root, size_t len)
{
	static const char *const files[] = {
		"1234/status", "1234/cmdline", "1234/cgroup",
		"2/status",    "3000/status",  "4000/status"
	};
	char from[8192], to[8192], data[4096];

	if (realpath(tap_data_dir(), data) == NULL)
		bail("no fixtures at %s", tap_data_dir());
	snprintf(root, len, "/tmp/cgetest-proc.XXXXXX");
	if (mkdtemp(root) == NULL)
		bail("mkdtemp");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(to, sizeof(to), "%s/%s", root, files[i]);
		to[strlen(root) + 1 + strcspn(files[i], "/")] = '\0';
		mkdir(to, 0755);
		snprintf(from, sizeof(from), "%s/proc/%s", data, files[i]);
		snprintf(to, sizeof(to), "%s/%s", root, files[i]);
		if (symlink(from, to) < 0)
			bail("symlink %s", to);
	}
	snprintf(to, sizeof(to), "%s/1234/exe", root);
	if (symlink("/usr/bin/python3.11", to) < 0)
		bail("symlink");
	snprintf(to, sizeof(to), "%s/4000/exe", root);
	if (symlink("/usr/bin/vim (deleted)", to) < 0)
		bail("symlink");
}

static void
remove_procroot(const char *root)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		diag("could not remove %s", root);
}

int
main(void)
{
	char procroot[4096];
	struct task t;
	struct task_cgroups cg;

	plan(49);
	make_procroot(procroot, sizeof(procroot));

	is_int(0, task_read(procroot, 1234, TASK_EXE | TASK_SCRIPT, &t), "read 1234");
	is_string("python3", t.comm, "comm");
	is_int(1000, t.ppid, "ppid");
	is_int(1001, t.uid, "uid");
	is_int(1002, t.euid, "euid");
	is_int(100, t.gid, "gid");
	is_int(101, t.egid, "egid");
	is_int(4, (long long)t.ngroups, "four groups");
	is_int(27, t.ngroups > 2 ? t.groups[2] : 0, "third group");
	is_string("/usr/bin/python3.11", t.exe, "exe");
	is_string("/opt/jobs/run.py", t.script, "script after an option");
	ok(!t.kthread, "not a kernel thread");

	is_int(0, task_read(procroot, 1234, 0, &t), "read without exe");
	is_string("", t.exe, "exe not read unless asked");

	is_int(0, task_read(procroot, 2, TASK_EXE, &t), "read kthreadd");
	ok(t.kthread, "Kthread: 1 is a kernel thread");
	is_int(0, (long long)t.ngroups, "no groups");

	is_int(0, task_read(procroot, 3000, TASK_EXE, &t), "read an old-kernel thread");
	ok(t.kthread, "child of kthreadd is a kernel thread without Kthread:");
	is_string("old kernel", t.comm, "comm with a blank");

	is_int(-ESRCH, task_read(procroot, 999, TASK_EXE, &t), "missing task: -ESRCH");

	is_int(0, task_read_cgroups(procroot, 1234, &cg), "read cgroup file");
	is_int(5, (long long)cg.n, "five lines");
	is_string("/www/students", task_cgroup_of(&cg, "name=classes"),
		  "named hierarchy");
	is_string("/students", task_cgroup_of(&cg, "cpu,cpuacct"), "co-mounted");
	is_string("/user.slice/session-1.scope", task_cgroup_of(&cg, ""), "v2");
	ok(task_cgroup_of(&cg, "cpu") == NULL, "partial names do not match");
	is_int(-ESRCH, task_read_cgroups(procroot, 999, &cg),
	       "missing task cgroups: -ESRCH");
	is_int(-EBADMSG, task_parse_cgroups("garbage\n", 8, &cg),
	       "malformed cgroup file");
	{
		/* more hierarchies than fit: the cut last line is dropped, not an error */
		static char big[TASK_CGROUPS_BUF + 100];
		size_t o = 0;
		for (int i = 0; o + 40 < sizeof(big); i++)
			o += (size_t)snprintf(big + o, sizeof(big) - o,
					      "%d:name=h%d:/g\n", i, i);
		is_int(0, task_parse_cgroups(big, o, &cg),
		       "an over-long cgroup file still parses");
		is_string("/g", task_cgroup_of(&cg, "name=h7"),
			  "its early lines are there");
	}

	is_int(0, task_read(procroot, 4000, TASK_EXE | TASK_SCRIPT, &t), "read 4000");
	is_string("/usr/bin/vim", t.exe, "' (deleted)' is cut from an upgraded binary");
	is_string("", t.script, "no script for a non-interpreter");

	/* live /proc: ourselves */
	is_int(0, task_read("/proc", getpid(), TASK_EXE, &t), "read self from /proc");
	ok(strstr(t.exe, "task-t") != NULL, "our own exe: %s", t.exe);
	is_int((long long)geteuid(), t.euid, "our euid");
	is_int(0, task_read_cgroups("/proc", getpid(), &cg), "our cgroups");
	ok(cg.n > 0, "we are in some hierarchy");

	int n = 0;
	is_int(0, task_foreach(procroot, count, &n), "foreach over the fixture");
	is_int(4, n, "four tasks in the fixture");

	test_script_heuristic();
	remove_procroot(procroot);
	return tap_done();
}
