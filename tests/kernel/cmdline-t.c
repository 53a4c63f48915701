/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmdline-t.c -- tests for kernel/cmdline.c: reads of /proc/PID/cmdline
 * bounded in time, on a /proc look-alike whose stuck cmdlines are FIFOs
 * nobody writes (an open of one for reading blocks, as the read of a
 * hostile process's argument pages does).  A stuck read is given up on
 * after CMDLINE_WAIT_MS; the next ones take the other workers, then
 * fail at once; a uid holds one stuck worker at most, its next reads
 * failing at once while others' are still read; a worker whose read
 * returns is free again; task_read() classifies without the command
 * line; the process exits with a worker stuck.  On a build without the bound the first stuck read
 * never returns: alarm() ends the test, failed.
 */
#include "kernel/kernel.h"
#include "tests/lib/testenv.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[64];

static double
now_ms(void)
{
	return (double)mono_ns() / 1e6;
}

/* pid's cmdline: a FIFO nobody writes yet. */
static void
stuck_cmdline(int pid)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/cmdline", root, pid);
	if (mkfifo(path, 0600) < 0)
		bail("mkfifo %s", path);
}

/* Unstick pid's cmdline: open its FIFO (the stuck reader's open then
 * returns) and write a command line. */
static void
unstick(int pid)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/cmdline", root, pid);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		bail("open %s", path);
	if (write(fd, "argv\0", 5) != 5)
		bail("write %s", path);
	close(fd);
}

/* Read the cmdline of pid, of uid: its result; *ms how long it took. */
static int
timed_read(int pid, uid_t uid, char *buf, size_t len, double *ms)
{
	double t0 = now_ms();
	int n = task_read_cmdline(root, pid, uid, buf, len);

	*ms = now_ms() - t0;
	return n;
}

/* A stuck read: -ETIMEDOUT after the wait, not much later. */
static void
check_waited(int pid, uid_t uid, const char *what)
{
	char buf[64];
	double ms;
	int n = timed_read(pid, uid, buf, sizeof(buf), &ms);

	is_int(-ETIMEDOUT, n, "%s: -ETIMEDOUT", what);
	ok(ms >= CMDLINE_WAIT_MS - 5 && ms < 1000, "%s: after the wait (%.1f ms)", what,
	   ms);
}

/* A read with every worker stuck, or one on uid's read: -ETIMEDOUT at
 * once. */
static void
check_at_once(int pid, uid_t uid, const char *what)
{
	char buf[64];
	double ms;
	int n = timed_read(pid, uid, buf, sizeof(buf), &ms);

	is_int(-ETIMEDOUT, n, "%s: -ETIMEDOUT", what);
	ok(ms < CMDLINE_WAIT_MS / 2, "%s: at once (%.1f ms)", what, ms);
}

/* The child of test_exit_stuck: read a stuck cmdline, stop the
 * workers, exit. */
static int
exit_stuck(const char *dir)
{
	char buf[64];
	int n;

	snprintf(root, sizeof(root), "%s", dir);
	alarm(30);
	n = task_read_cmdline(root, 900, 1000, buf, sizeof(buf));
	return n == -ETIMEDOUT && cmdline_stop() == 1 ? 0 : 1;
}

/*
 * The process exits with a worker stuck: a child (this program again,
 * a process of its own, which valgrind does not follow: a thread still
 * running at exit holds memory that valgrind calls possibly lost)
 * reads a stuck cmdline, stops the workers and exits.
 */
static void
test_exit_stuck(const char *self)
{
	double t0 = now_ms();
	int status = 0;
	pid_t pid = fork();

	if (pid < 0)
		bail("fork");
	if (pid == 0) {
		execl(self, self, "--exit-stuck", root, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		bail("waitpid");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "a stuck read is given up on; cmdline_stop() leaves its worker (status %d)",
	   status);
	ok(now_ms() - t0 < 2000, "the process exits with its worker stuck (%.0f ms)",
	   now_ms() - t0);
}

static const char job[] = "/bin/sh\0/opt/job.sh\0x\0";

/* A cmdline read as before: the file's bytes, cut as read_file cuts. */
static void
test_normal(void)
{
	char buf[256];

	is_int(sizeof(job) - 1, task_read_cmdline(root, 100, 1000, buf, sizeof(buf)),
	       "a cmdline read whole");
	ok(memcmp(buf, job, sizeof(job)) == 0, "... its bytes, NUL-terminated");
	is_int(4, task_read_cmdline(root, 100, 1000, buf, 5),
	       "a short buffer: len - 1 bytes");
	is_string("/bin", buf, "... NUL-terminated");
	is_int(-ESRCH, task_read_cmdline(root, 101, 1000, buf, sizeof(buf)),
	       "a process gone: -ESRCH");
}

/* job.sh run by dash: pid 200's cmdline readable, pid 201's stuck. */
static void
make_tasks(void)
{
	static const char status[] =
		"Name:\tjob.sh\nPPid:\t1\nUid:\t1000\t1000\t1000\t1000\n"
		"Gid:\t1000\t1000\t1000\t1000\nGroups:\t\nKthread:\t0\n";

	testenv_put_file(root, "fs/opt/job.sh", "#!/bin/sh\necho\n", 15);
	testenv_put_file(root, "fs/usr/bin/dash", "\177ELF", 4);
	for (int pid = 200; pid <= 201; pid++)
		testenv_fake_task(root, pid, status, "fs/usr/bin/dash", "fs/opt", "fs");
	testenv_put_file(root, "200/cmdline", job, sizeof(job) - 1);
	stuck_cmdline(201);
}

/* task_read with the cmdline stuck: as with no cmdline, after one wait. */
static void
test_task(void)
{
	unsigned what = TASK_EXE | TASK_SCRIPT | TASK_ARGV0;
	char dash[256];
	struct task t;

	snprintf(dash, sizeof(dash), "%s/fs/usr/bin/dash", root);
	is_int(0, task_read(root, 200, what, &t), "task 200 read");
	is_string("/opt/job.sh", t.script, "... its script, from its cmdline");
	is_string("/opt/job.sh", t.invoked, "... the name it was started by");
	is_string("/bin/sh", t.argv0, "... its argv[0]");
	ok(!t.cmdline_timedout, "... its cmdline was read");

	double t0 = now_ms();
	is_int(0, task_read(root, 201, what, &t), "task 201 read, its cmdline stuck");
	double ms = now_ms() - t0;
	ok(t.cmdline_timedout, "... its cmdline was given up on");
	ok(ms >= CMDLINE_WAIT_MS - 5 && ms < 1000, "... after the wait (%.1f ms)", ms);
	is_string("", t.script, "... no script");
	is_string(dash, t.invoked, "... the name it was started by: its exe");
	is_string("", t.argv0, "... no argv[0]");
	is_int(1000, t.uid, "... the rest read as ever (uid)");
}

/*
 * Task 201 (uid 1000) holds a worker: uid 1000's next reads, stuck or
 * not, fail at once and take no worker (test_workers finds the other
 * CMDLINE_WORKERS - 1 free); another uid's read is answered.
 */
static void
test_uid(void)
{
	char buf[256];

	stuck_cmdline(210); /* never opened: not unstuck */
	check_at_once(210, 1000, "a second stuck read of uid 1000");
	check_at_once(100, 1000, "a readable cmdline of uid 1000");
	is_int(sizeof(job) - 1, task_read_cmdline(root, 100, 1001, buf, sizeof(buf)),
	       "the same cmdline read for uid 1001");
	ok(memcmp(buf, job, sizeof(job)) == 0, "... its bytes");
}

/* The other workers, then none; workers free again once unstuck. */
static void
test_workers(void)
{
	char buf[64], what[64];
	double ms;
	int n = -ETIMEDOUT;

	/* task 201 holds one worker: the others, one each */
	for (int pid = 202; pid < 201 + CMDLINE_WORKERS; pid++) {
		snprintf(what, sizeof(what), "stuck read %d, of uid %d", pid - 200,
			 2000 + pid);
		check_waited(pid, (uid_t)(2000 + pid), what);
	}
	check_at_once(100, 1001, "every worker stuck, a readable cmdline");
	check_at_once(201 + CMDLINE_WORKERS, 3000,
		      "every worker stuck, another stuck cmdline");
	for (int pid = 201; pid < 201 + CMDLINE_WORKERS; pid++)
		unstick(pid);
	for (int i = 0; i < 200 && n == -ETIMEDOUT; i++) {
		if (i > 0)
			usleep(10000);
		n = timed_read(100, 1000, buf, sizeof(buf), &ms);
	}
	is_int(sizeof(job) - 1, n, "unstuck, a worker reads again, for uid 1000 too");
	/* all of them free: as many stuck reads wait again */
	for (int pid = 301; pid < 301 + CMDLINE_WORKERS; pid++)
		stuck_cmdline(pid);
	size_t left = CMDLINE_WORKERS;
	for (int i = 0; i < 200 && left > 0; i++) {
		if (i > 0)
			usleep(10000);
		left = cmdline_stop(); /* ends those free, leaves the stuck */
	}
	is_int(0, left, "every unstuck worker is free (and ends)");
	for (int pid = 301; pid < 301 + CMDLINE_WORKERS; pid++) {
		snprintf(what, sizeof(what), "after them, stuck read %d", pid - 300);
		check_waited(pid, (uid_t)(2000 + pid), what);
	}
	check_at_once(100, 1001, "every worker stuck again");
	for (int pid = 301; pid < 301 + CMDLINE_WORKERS; pid++)
		unstick(pid);
	left = CMDLINE_WORKERS;
	for (int i = 0; i < 200 && left > 0; i++) {
		if (i > 0)
			usleep(10000);
		left = cmdline_stop();
	}
	is_int(0, left, "unstuck, every worker ends");
}

int
main(int argc, char **argv)
{
	char cmd[128];

	if (argc == 3 && strcmp(argv[1], "--exit-stuck") == 0)
		return exit_stuck(argv[2]);
	alarm(30); /* a read that is not bounded fails the test, not hangs it */
	plan(2 + 5 + 12 + 3 * 2 + 2 * (CMDLINE_WORKERS - 1) + 2 * 2 + 1 + 1 +
	     2 * CMDLINE_WORKERS + 2 + 1);
	snprintf(root, sizeof(root), "/tmp/cgetest-cmdline.XXXXXX");
	if (mkdtemp(root) == NULL)
		bail("mkdtemp");
	testenv_put_file(root, "100/cmdline", job, sizeof(job) - 1);
	stuck_cmdline(900);
	test_exit_stuck(argv[0]);
	test_normal();
	make_tasks();
	test_task();
	test_uid();
	for (int pid = 202; pid <= 201 + CMDLINE_WORKERS; pid++)
		stuck_cmdline(pid);
	test_workers();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		diag("cannot remove %s", root);
	return tap_done();
}
