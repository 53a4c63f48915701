/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * task-t.c -- tests for kernel/task.c on a recorded /proc tree and on
 * the live /proc: status parsing, exe and script, kernel threads,
 * cgroup files, vanished tasks.
 */
#include "kernel/kernel.h"
#include "tests/lib/testenv.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* ---- fixtures made at run time -------------------------------------------- */

/* The files the fixture tasks see under their root, fs/. */
static void
make_fs(const char *root)
{
	static const char elf[] = "\177ELF not really";
	char to[8192];

	testenv_put_file(root, "fs/opt/jobs/run.py", "#!/usr/bin/python3 -u\n", 22);
	testenv_put_file(root, "fs/opt/job.sh", "#!/bin/sh\necho\n", 15);
	testenv_put_file(root, "fs/usr/sbin/nfsd", elf, sizeof(elf) - 1);
	testenv_put_file(root, "fs/usr/bin/dash", elf, sizeof(elf) - 1);
	testenv_put_file(root, "fs/usr/bin/python3", elf, sizeof(elf) - 1);
	testenv_put_file(root, "fs/usr/bin/peerreal", elf, sizeof(elf) - 1);
	snprintf(to, sizeof(to), "%s/fs/usr/bin/peerlink", root);
	if (symlink("peerreal", to) < 0)
		bail("symlink %s", to);
	snprintf(to, sizeof(to), "%s/fs/tmp", root);
	mkdir(to, 0755);
}

/*
 * Task pid: command name comm, command line cmd (len bytes), exe the
 * file fs/exe, working directory fs/cwd, root fs.
 */
static void
fake_task(const char *root, int pid, const char *comm, const char *cmd, size_t len,
	  const char *exe, const char *cwd)
{
	char rel[256], text[512];
	int n = snprintf(text, sizeof(text),
			 "Name:\t%s\nPPid:\t1\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
			 "Groups:\t\nKthread:\t0\n",
			 comm);

	snprintf(rel, sizeof(rel), "%d/status", pid);
	testenv_put_file(root, rel, text, (size_t)n);
	snprintf(rel, sizeof(rel), "%d/cmdline", pid);
	testenv_put_file(root, rel, cmd, len);
	snprintf(rel, sizeof(rel), "%d/exe", pid);
	snprintf(text, sizeof(text), "fs/%s", exe);
	testenv_link(root, rel, text);
	snprintf(rel, sizeof(rel), "%d/cwd", pid);
	snprintf(text, sizeof(text), "fs/%s", cwd);
	testenv_link(root, rel, text);
	snprintf(rel, sizeof(rel), "%d/root", pid);
	testenv_link(root, rel, "fs");
	snprintf(rel, sizeof(rel), "%d/fd", pid);
	snprintf(text, sizeof(text), "%s/%s", root, rel);
	mkdir(text, 0755);
}

/* An open file: pid's fd n is fs/file. */
static void
fake_fd(const char *root, int pid, int n, const char *file)
{
	char rel[256], target[256];

	snprintf(rel, sizeof(rel), "%d/fd/%d", pid, n);
	snprintf(target, sizeof(target), "fs/%s", file);
	testenv_link(root, rel, target);
}

#define CMD(s) s, sizeof(s) - 1

/*
 * Which script and which invoked name: only files the interpreter
 * really runs count ("sh -s /usr/sbin/nfsd < payload" must not pass for
 * nfsd), and a name only when it is a link to the executable or such a
 * script.
 */
static void
test_names(const char *root)
{
	static const struct {
		int pid;
		const char *comm, *cmd;
		size_t len;
		const char *exe, *cwd, *fd;   /* fd: a file held open, or NULL */
		const char *script, *invoked; /* invoked: "@x" = root/fs/x */
		const char *what;
	} c[] = {
		{ 5001, "sh", CMD("sh\0-s\0/usr/sbin/nfsd\0"), "usr/bin/dash", "tmp",
		  NULL, "", "@usr/bin/dash", "sh -s FILE (stdin runs): not a script" },
		{ 5002, "sh", CMD("sh\0-s\0/usr/sbin/nfsd\0"), "usr/bin/dash", "tmp",
		  "usr/sbin/nfsd", "/usr/sbin/nfsd", "@usr/bin/dash",
		  "an option first, but the file is held open" },
		{ 5003, "sh", CMD("sh\0/usr/sbin/nfsd\0"), "usr/bin/dash", "tmp", NULL,
		  "/usr/sbin/nfsd", "@usr/bin/dash", "the first argument is run" },
		{ 5004, "sh", CMD("sh\0/nonexistent\0"), "usr/bin/dash", "tmp", NULL, "",
		  "@usr/bin/dash", "a file that does not exist is no script" },
		{ 5005, "peerlink", CMD("/usr/bin/peerlink\0"), "usr/bin/peerreal", "tmp",
		  NULL, "", "/usr/bin/peerlink", "started through a symlink: its name" },
		{ 5006, "nfsd", CMD("/usr/sbin/nfsd\0-f\0"), "usr/bin/peerreal", "tmp",
		  NULL, "", "@usr/bin/peerreal",
		  "argv[0] naming another file is not believed" },
		{ 5007, "job.sh", CMD("/bin/sh\0/opt/job.sh\0x\0"), "usr/bin/dash", "tmp",
		  NULL, "/opt/job.sh", "/opt/job.sh", "a #! script: script and name" },
		{ 5008, "job.sh", CMD("/bin/sh\0./job.sh\0"), "usr/bin/dash", "opt", NULL,
		  "./job.sh", "@opt/job.sh",
		  "a relative script is resolved from the cwd" },
		{ 5009, "python3", CMD("python3\0-O\0/opt/jobs/run.py\0"),
		  "usr/bin/python3", "tmp", NULL, "", "@usr/bin/python3",
		  "options not from the #! line" },
		{ 5010, "sh", CMD("/bin/sh\0-c\0/opt/job.sh\0"), "usr/bin/dash", "tmp",
		  "opt/job.sh", "", "@usr/bin/dash",
		  "-c: a command string, never a script" },
	};
	struct task t;
	char want[8192];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		fake_task(root, c[i].pid, c[i].comm, c[i].cmd, c[i].len, c[i].exe,
			  c[i].cwd);
		if (c[i].fd != NULL)
			fake_fd(root, c[i].pid, 3, c[i].fd);
	}
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		if (task_read(root, c[i].pid, TASK_EXE | TASK_SCRIPT, &t) != 0)
			bail("cannot read fixture %d", c[i].pid);
		is_string(c[i].script, t.script, "script: %s", c[i].what);
		if (c[i].invoked[0] == '@')
			snprintf(want, sizeof(want), "%s/fs/%s", root, c[i].invoked + 1);
		else
			snprintf(want, sizeof(want), "%s", c[i].invoked);
		is_string(want, t.invoked, "invoked: %s", c[i].what);
	}
}

/* A reused struct task never keeps a value from the task read before. */
static void
test_reuse(const char *root)
{
	struct task t;

	memset(&t, 0, sizeof(t));
	t.kthread = true;
	t.realtime = true;
	is_int(0, task_read(root, 1234, 0, &t), "read 1234 into a used struct");
	ok(!t.realtime, "realtime is not left over");
	ok(!t.kthread, "kthread is not left over");
	is_int(0, task_read(root, 5005, TASK_EXE | TASK_SCRIPT, &t), "read 5005");
	is_int(0, task_read(root, 4000, TASK_EXE, &t), "then 4000 without names");
	is_string("", t.invoked, "invoked is not left over");
	is_string("", t.script, "script is not left over");
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
	make_fs(root);
	testenv_link(root, "1234/root", "fs");
}

static void
remove_procroot(const char *root)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		diag("could not remove %s", root);
}

/* task_exited() on the live /proc: a child running, a zombie, reaped. */
static void
test_exited(void)
{
	int go[2];
	char c;
	struct procid id;

	if (pipe(go) < 0)
		bail("pipe");
	pid_t child = fork();
	if (child == 0) {
		close(go[1]);
		_exit(read(go[0], &c, 1) == 1 ? 0 : 1);
	}
	close(go[0]);
	is_int(0, task_procid("/proc", child, &id), "a child's identity");
	ok(!task_exited("/proc", id), "a running child has not exited");
	char run = 0;
	for (int i = 0; i < 2000 && run != 'S'; i++) /* until it waits in read() */
		if (task_run_state("/proc", child, &run) < 0 || run != 'S')
			usleep(1000);
	is_int('S', run, "a child waiting in read() is sleeping (S)");
	struct procid other = id;
	other.start++;
	ok(task_exited("/proc", other), "another start time: that process has exited");
	if (write(go[1], "x", 1) != 1)
		bail("write");
	close(go[1]);
	bool zombie = false;
	for (int i = 0; i < 2000 && !zombie; i++) { /* until it is a zombie */
		FILE *f;
		char path[64], state = 0;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
		if ((f = fopen(path, "r")) != NULL) {
			zombie = fscanf(f, "%*d %*s %c", &state) == 1 && state == 'Z';
			fclose(f);
		}
		if (!zombie)
			usleep(1000);
	}
	ok(zombie && task_exited("/proc", id), "a zombie has exited");
	run = 0;
	is_int(0, task_run_state("/proc", child, &run), "a zombie's run state");
	is_int('Z', run, "... is Z");
	waitpid(child, NULL, 0);
	ok(task_exited("/proc", id), "and so has a reaped child");
	is_int(-ESRCH, task_run_state("/proc", child, &run), "a reaped child's is gone");
}

/* What an exec record gave: read instead of status, comm and exe. */
static void
test_known(const char *procroot)
{
	struct task t;
	struct task_known k = {
		.have = TASK_KNOW_CREDS | TASK_KNOW_COMM | TASK_KNOW_PPID | TASK_KNOW_EXE |
			TASK_KNOW_RT,
		.ppid = 77,
		.uid = 5001,
		.euid = 5002,
		.gid = 5003,
		.egid = 5004,
		.ngroups = 2,
		.groups = { 10, 20 },
		.realtime = true,
		.comm = "fromrecord",
		.exe = "/opt/rec/fromrecord",
	};

	/* 999 has no /proc entry: nothing is read */
	is_int(0, task_read_known(procroot, 999, TASK_EXE | TASK_RT, &k, &t),
	       "a record's facts: no /proc read");
	ok(t.pid == 999 && t.tgid == 999 && t.ppid == 77, "pid, tgid, ppid");
	ok(t.uid == 5001 && t.euid == 5002 && t.gid == 5003 && t.egid == 5004,
	   "uid, euid, gid, egid as told");
	ok(t.ngroups == 2 && t.groups[0] == 10 && t.groups[1] == 20, "the groups as told");
	is_string("fromrecord", t.comm, "comm as told");
	is_string("/opt/rec/fromrecord", t.exe, "exe as told");
	ok(t.realtime && !t.kthread, "realtime as told, not a kernel thread");

	/* 1234 exists: status, comm and exe are not what the record says */
	is_int(0, task_read_known(procroot, 1234, TASK_EXE, &k, &t), "read 1234 with a record");
	ok(t.uid == 5001 && t.gid == 5003 && t.ppid == 77, "the record wins over status");
	is_string("/opt/rec/fromrecord", t.exe, "and over the exe link");
	ok(!t.realtime, "realtime only when asked");

	/* argv[0] told: 1234's cmdline (/usr/bin/python3 -u ...) is not read */
	k.have |= TASK_KNOW_ARGV0;
	memcpy(k.argv0, "-told", 6);
	is_int(0, task_read_known(procroot, 1234, TASK_ARGV0, &k, &t), "argv[0] asked and told");
	is_string("-told", t.argv0, "argv[0] as told, not cmdline's");
	k.have &= ~TASK_KNOW_ARGV0;
	is_int(0, task_read_known(procroot, 1234, TASK_ARGV0, &k, &t), "argv[0] asked, not told");
	is_string("/usr/bin/python3", t.argv0, "argv[0] from cmdline then");

	k.have &= ~TASK_KNOW_EXE;
	is_int(0, task_read_known(procroot, 1234, TASK_EXE, &k, &t), "a record without exe");
	is_string("/usr/bin/python3.11", t.exe, "exe from the link then");
	is_string("fromrecord", t.comm, "comm still the record's");

	k.ngroups = TASK_KNOWN_GROUPS + 1;
	is_int(0, task_read_known(procroot, 1234, 0, &k, &t), "more groups than told");
	ok(t.uid == 5001 && t.euid == 5002, "uid and euid still the record's");
	ok(t.gid == (gid_t)-1 && t.egid == (gid_t)-1 && t.ngroups == 0,
	   "no gids: the list is not whole");
	is_string("fromrecord", t.comm, "comm the record's");
	k.have &= ~TASK_KNOW_COMM;
	is_int(-ESRCH, task_read_known(procroot, 999, 0, &k, &t),
	       "without comm told, the comm file is read (999: missing)");
	k.have |= TASK_KNOW_COMM;

	k.ngroups = 2;
	is_int(0, task_read_known(procroot, 1234, TASK_NNP, &k, &t), "no_new_privs asked");
	ok(t.uid == 1001 && t.gid == 100, "status read: the record does not say that");

	k.have = TASK_KNOW_CREDS | TASK_KNOW_COMM; /* no ppid */
	is_int(0, task_read_known(procroot, 1234, 0, &k, &t), "a record without ppid");
	ok(t.uid == 1001 && t.gid == 100 && t.ppid == 1000, "status read for it");
	is_string("python3", t.comm, "comm status's too");

	is_int(0, task_read_known(procroot, 1234, 0, NULL, &t), "NULL: task_read");
	ok(t.uid == 1001 && t.ppid == 1000, "status read");
}

/* An exec alone (TASK_KNOW_EXECED): comm, never status. */
static void
test_execed(const char *procroot)
{
	struct task_known k = { .have = TASK_KNOW_EXECED };
	struct task t;

	is_int(0, task_read_known(procroot, 1234, TASK_EXE, &k, &t),
	       "read with only the exec known");
	ok(t.uid == (uid_t)-1 && t.euid == (uid_t)-1 && t.gid == (gid_t)-1 &&
		   t.egid == (gid_t)-1 && t.ngroups == 0,
	   "no credentials: none is (uid_t)-1, status's are not taken");
	is_string("python3", t.comm, "comm from the comm file");
	is_string("/usr/bin/python3.11", t.exe, "exe as asked");
	testenv_put_file(procroot, "6000/comm", "nostatus\n", 9);
	is_int(0, task_read_known(procroot, 6000, 0, &k, &t), "a task without a status file");
	is_string("nostatus", t.comm, "... read from comm: status unread");
	is_int(-ESRCH, task_read(procroot, 6000, 0, &t), "(status is what task_read reads)");
	is_int(-ESRCH, task_read_known(procroot, 999, 0, &k, &t), "a missing task: -ESRCH");

	char dir[8192];
	snprintf(dir, sizeof(dir), "%s/6000/comm", procroot);
	unlink(dir);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
}

int
main(void)
{
	char procroot[4096];
	struct task t;
	struct task_cgroups cg;

	plan(49 + 20 + 7 + 3 + 5 + 6 + 4 + 26 + 8 + 4);
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
	is_string("/opt/jobs/run.py", t.script, "script after its own #! line's option");
	ok(!t.kthread, "not a kernel thread");

	testenv_put_file(procroot, "1234/comm", "python3\n", 8);
	struct task_known ids = { .have = TASK_KNOW_UIDS, .uid = 4000, .euid = 4001 };
	is_int(0, task_read_known(procroot, 1234, TASK_EXE, &ids, &t),
	       "read with uid and euid known");
	ok(t.uid == 4000 && t.euid == 4001, "uid and euid as given, not status's");
	ok(t.gid == (gid_t)-1 && t.egid == (gid_t)-1 && t.ngroups == 0,
	   "no gid, egid or groups");
	is_string("python3", t.comm, "comm from the comm file");
	is_string("/usr/bin/python3.11", t.exe, "and exe as asked");
	is_int(-ESRCH, task_read_known(procroot, 999, 0, &ids, &t),
	       "a missing task: -ESRCH without status too");
	test_known(procroot);
	test_execed(procroot);

	is_int(0, task_read(procroot, 1234, 0, &t), "read without exe");
	is_string("", t.exe, "exe not read unless asked");

	is_int(0, task_read(procroot, 2, TASK_EXE, &t), "read kthreadd");
	ok(t.kthread, "Kthread: 1 is a kernel thread");
	is_int(0, (long long)t.ngroups, "no groups");

	is_int(0, task_read(procroot, 3000, TASK_EXE, &t), "read an old-kernel thread");
	ok(t.kthread, "child of kthreadd is a kernel thread without Kthread:");
	is_string("old kernel", t.comm, "comm with a blank");

	is_int(-ESRCH, task_read(procroot, 999, TASK_EXE, &t), "missing task: -ESRCH");
	static const char huge[] =
		"Name:\tx\nUid:\t4294967296\t99999999999999999999\t0\t0\n"
		"Gid:\t0\t0\t0\t0\nGroups:\t\nKthread:\t0\n";
	testenv_put_file(procroot, "5000/status", huge, sizeof(huge) - 1);
	is_int(0, task_read(procroot, 5000, 0, &t), "read ids beyond 32 bits");
	ok(t.uid == UINT32_MAX && t.euid == UINT32_MAX,
	   "... as 4294967295 (no uid), never wrapped to root");
	char gone5000[8192];
	snprintf(gone5000, sizeof(gone5000), "%s/5000/status", procroot);
	unlink(gone5000);
	*strrchr(gone5000, '/') = '\0';
	rmdir(gone5000);
	char longroot[200];
	memset(longroot, 'x', sizeof(longroot) - 1);
	longroot[0] = '/';
	longroot[sizeof(longroot) - 1] = '\0';
	is_int(-ENAMETOOLONG, task_read(longroot, 1234, TASK_EXE, &t),
	       "a /proc path that does not fit: -ENAMETOOLONG, not a cut path");

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

	test_script_heuristic();
	test_names(procroot);
	test_reuse(procroot);
	test_exited();

	int n = 0;
	is_int(0, task_foreach(procroot, count, &n), "foreach over the fixture");
	is_int(14, n, "fourteen tasks in the fixture");
	remove_procroot(procroot);
	return tap_done();
}
