/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names-t.c -- tests for task.c's script and invoked name, checked in
 * a worker (kernel/cmdline.c) with the command line: a check that
 * blocks is given up on after CMDLINE_WAIT_MS, as a stuck cmdline read
 * is.  On a /proc look-alike whose command lines read at once, the
 * script both tasks name is a regular file this test holds a write
 * lease on (any user may, on a file of theirs): the check's open of it,
 * to read its #! line, blocks until the lease is let go (or the
 * kernel's lease-break-time, 45 s by default, has passed).  One task
 * is an interpreter whose script is checked, the other a program
 * started by that script's name; they are two users' (one stuck worker
 * each at most).  A third task of the first user, whose event told no
 * uid (read from status for the job), is given up on at once, leaving
 * a worker to a fourth user's task, whose script is read.  On a build
 * that checks them in the loop, task_read() blocks in that open:
 * alarm() ends the test, failed.
 */
#include "kernel/kernel.h"
#include "tests/lib/testenv.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static double
now_ms(void)
{
	return (double)mono_ns() / 1e6;
}

/* pid: status naming comm and uid, exe a link to fs/EXE, cwd fs/opt,
 * root fs, an empty fd directory, cmdline the len bytes of cmd. */
static void
make_task(int pid, const char *comm, int uid, const char *exe, const char *cmd, size_t len)
{
	char rel[128], status[256];
	int n = snprintf(status, sizeof(status),
			 "Name:\t%s\nPPid:\t1\nUid:\t%d\t%d\t%d\t%d\n"
			 "Gid:\t1000\t1000\t1000\t1000\nGroups:\t\nKthread:\t0\n",
			 comm, uid, uid, uid, uid);

	if (n < 0 || (size_t)n >= sizeof(status))
		bail("status of %d", pid);
	testenv_fake_task(root, pid, status, exe, "fs/opt", "fs");
	snprintf(rel, sizeof(rel), "%d/cmdline", pid);
	testenv_put_file(root, rel, cmd, len);
}

/* dash running /opt/job.sh after the #! line's own option (its script
 * believed on that line alone); env started by the script's name. */
static const char dash_job[] = "/bin/sh\0-e\0/opt/job.sh\0";
static const char env_job[] = "env\0/opt/job.sh\0";
static const char dash_other[] = "/bin/sh\0-e\0/opt/other.sh\0";

static void
make_tasks(void)
{
	static const char script[] = "#!/bin/sh -e\necho\n";

	testenv_put_file(root, "fs/opt/job.sh", script, sizeof(script) - 1);
	testenv_put_file(root, "fs/opt/other.sh", script, sizeof(script) - 1);
	testenv_put_file(root, "fs/usr/bin/dash", "\177ELF", 4);
	testenv_put_file(root, "fs/usr/bin/env", "\177ELF", 4);
	make_task(200, "dash", 1000, "fs/usr/bin/dash", dash_job, sizeof(dash_job) - 1);
	make_task(201, "job.sh", 1001, "fs/usr/bin/env", env_job, sizeof(env_job) - 1);
	make_task(202, "dash", 1000, "fs/usr/bin/dash", dash_job, sizeof(dash_job) - 1);
	make_task(203, "dash", 1002, "fs/usr/bin/dash", dash_other, sizeof(dash_other) - 1);
}

/* A write lease on the script: an open of it blocks until it is let
 * go.  The fd holding it, or -1 (why on stderr) if leases are not to
 * be had here. */
static int
lease_script(void)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/fs/opt/job.sh", root);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    fcntl(fd, F_SETLEASE, F_WRLCK) < 0) {
		diag("no lease on %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* task_read of pid with its script check stuck: as with no cmdline,
 * after one wait.  t is freed at once: the worker, stuck in its open,
 * must not write to it when it returns (valgrind sees it). */
static void
check_stuck(int pid, const char *exe, int uid, const char *what)
{
	unsigned want = TASK_EXE | TASK_SCRIPT | TASK_ARGV0;
	struct task *t = malloc(sizeof(*t));
	char path[256];

	if (t == NULL)
		bail("malloc");
	snprintf(path, sizeof(path), "%s/%s", root, exe);
	double t0 = now_ms();
	is_int(0, task_read(root, pid, want, t), "%s: read", what);
	double ms = now_ms() - t0;
	ok(t->cmdline_timedout, "... its command line given up on");
	ok(ms >= CMDLINE_WAIT_MS - 5 && ms < 1000, "... after the wait (%.1f ms)", ms);
	is_string("", t->script, "... no script");
	is_string(path, t->invoked, "... the name it was started by: its exe");
	is_string("", t->argv0, "... no argv[0] (its command line not read again)");
	is_int(uid, t->uid, "... the rest read as ever (uid)");
	free(t);
}

/*
 * Task 202, uid 1000's as 200 is, with 200's job stuck: its event told
 * that it exec'd and no uid (the job's uid read from status), and it is
 * given up on at once, taking no worker; task 203, of uid 1002, still
 * gets one, and its script.
 */
static void
check_one_per_uid(void)
{
	unsigned want = TASK_EXE | TASK_SCRIPT;
	struct task_known k = { .have = TASK_KNOW_EXECED | TASK_KNOW_COMM, .comm = "dash" };
	struct task t;

	double t0 = now_ms();
	is_int(0, task_read_known(root, 202, want, &k, &t), "task 202 of uid 1000 read");
	double ms = now_ms() - t0;
	is_int(-1, (int)t.uid, "... no uid told (the job's read from status)");
	ok(t.cmdline_timedout, "... its command line given up on");
	ok(ms < CMDLINE_WAIT_MS / 2, "... at once: uid 1000 holds a stuck worker (%.1f ms)",
	   ms);
	is_string("", t.script, "... no script");
	is_int(0, task_read(root, 203, want, &t), "task 203 of uid 1002 read");
	ok(!t.cmdline_timedout, "... its command line read");
	is_string("/opt/other.sh", t.script, "... its script");
}

/* task_read of pid once its uid's stuck worker, if any, has come back
 * from its open: until then a job of that uid is given up on at once.
 * Each stuck worker wakes when the lease is let go, but may not have
 * run yet (up to 2 s). */
static int
read_unstuck(int pid, unsigned want, struct task *t)
{
	int rc = -1; /* (t is read only after a read that gave 0) */

	for (int i = 0; i < 200 && (rc != 0 || t->cmdline_timedout); i++) {
		if (i > 0)
			usleep(10000);
		rc = task_read(root, pid, want, t);
	}
	return rc;
}

/* The lease let go: the same tasks read whole, their stuck jobs ended
 * and their workers free again. */
static void
check_unstuck(void)
{
	unsigned want = TASK_EXE | TASK_SCRIPT | TASK_ARGV0;
	struct task t;

	is_int(0, read_unstuck(200, want, &t), "unstuck, task 200 read");
	ok(!t.cmdline_timedout, "... its command line read");
	is_string("/opt/job.sh", t.script, "... its script, believed on its #! line");
	is_string("/bin/sh", t.argv0, "... its argv[0]");
	is_int(0, read_unstuck(201, want, &t), "task 201 read");
	ok(!t.cmdline_timedout, "... its command line read");
	is_string("/opt/job.sh", t.invoked,
		  "... the name it was started by, from its #! line");
	size_t left = CMDLINE_WORKERS;
	for (int i = 0; i < 200 && left > 0; i++) {
		if (i > 0)
			usleep(10000);
		left = cmdline_stop(); /* ends the free workers, leaves the stuck */
	}
	is_int(0, left, "every worker is free again (and ends)");
}

int
main(void)
{
	char cmd[128];
	int lease;

	alarm(30); /* a check that is not bounded fails the test, not hangs it */
	signal(SIGIO, SIG_IGN); /* what a broken lease sends its holder */
	snprintf(root, sizeof(root), "/tmp/cgetest-names.XXXXXX");
	if (mkdtemp(root) == NULL)
		bail("mkdtemp");
	make_tasks();
	if ((lease = lease_script()) < 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		(void)system(cmd);
		skip_all("no file lease to be had in /tmp");
	}
	plan(2 * 7 + 8 + 8);
	check_stuck(200, "fs/usr/bin/dash", 1000,
		    "an interpreter, its script's #! line stuck");
	check_stuck(201, "fs/usr/bin/env", 1001,
		    "started by a script's name, its #! line stuck");
	check_one_per_uid();
	close(lease);
	check_unstuck();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		diag("cannot remove %s", root);
	return tap_done();
}
