/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * classify-t.c -- classify.c with a process whose command line cannot
 * be read in time (its owner can make the read block: kernel/cmdline.c).
 * The start-up scan classifies it as a process without a command line
 * -- no script, started by its executable -- after one bounded wait,
 * and an exec event of it at once (its user holds a stuck worker
 * already), and they say so once in the log; a Lua hook reading its
 * cmdline gets none, at once.  In the fixture's /proc the stuck
 * cmdline is a FIFO nobody writes.  Without the bound the scan never
 * returns: alarm() ends the test, failed.
 */
#include "engined/core/core.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOBODY 65534

static struct fixture fx;

static const char rules[] = "nobody:/opt/job.sh  name=cgecore  /scripts\n"
			    "nobody              name=cgecore  /users\n";

static double
now_ms(void)
{
	return (double)mono_ns() / 1e6;
}

static void
put(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fwrite(text, 1, len, f) != len)
		bail("cannot write %s", path);
	fclose(f);
}

/* pid: nobody's dash running /opt/job.sh (comm job.sh), its root and
 * working directory fx.dir/fs; its cmdline stuck (a FIFO) or not. */
static void
job(pid_t pid, uint64_t start, bool stuck)
{
	static const char cmd[] = "/bin/sh\0/opt/job.sh\0";
	char path[256], fs[200];

	fixture_proc(&fx, pid, NOBODY, NOBODY, "/usr/bin/dash", start, "/");
	fixture_status(&fx, pid, "Name", "job.sh");
	snprintf(fs, sizeof(fs), "%s/fs", fx.dir);
	snprintf(path, sizeof(path), "%s/%d/root", fx.proc, (int)pid);
	if (symlink(fs, path) < 0)
		bail("symlink %s", path);
	snprintf(path, sizeof(path), "%s/%d/cwd", fx.proc, (int)pid);
	if (symlink(fs, path) < 0)
		bail("symlink %s", path);
	snprintf(path, sizeof(path), "%s/%d/cmdline", fx.proc, (int)pid);
	if (stuck)
		fixture_stuck_cmdline(&fx, pid);
	else
		put(path, cmd, sizeof(cmd) - 1);
}

static void
make_fs(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/fs", fx.dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/fs/opt", fx.dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/fs/opt/job.sh", fx.dir);
	put(path, "#!/bin/sh\necho\n", 15);
}

/* Lines of the log holding text; the first of them (past its time
 * stamp) into first. */
static int
logged(const char *log, const char *text, char *first, size_t len)
{
	char line[512];
	int n = 0;
	FILE *f = fopen(log, "r");

	first[0] = '\0';
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, text) == NULL)
			continue;
		if (n++ == 0 && strlen(line) > 20)
			snprintf(first, len, "%.*s", (int)strcspn(line + 20, "\n"),
				 line + 20);
	}
	fclose(f);
	return n;
}

/* Unstick pid's cmdline (the stuck reader's open returns). */
static void
unstick(pid_t pid)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/cmdline", fx.proc, (int)pid);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		bail("open %s", path);
	close(fd);
}

static void
test_stuck(void)
{
	char log[256], line[512];
	double t0, ms;

	job(500, 50, false);
	job(501, 51, true);
	snprintf(log, sizeof(log), "%s/daemon.log", fx.dir);
	if (log_open(log, LOG_LEVEL_INFO) < 0)
		bail("log_open %s", log);
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("cannot build a core over the fixture");

	t0 = now_ms();
	core_start(c, 1.0);
	ms = now_ms() - t0;
	ok(ms >= CMDLINE_WAIT_MS - 5 && ms < 2000,
	   "the scan at start ends, one wait (%.0f ms)", ms);
	is_string("/scripts", fixture_group(&fx, 500),
		  "a script, its cmdline read: by its rule");
	is_string("/users", fixture_group(&fx, 501),
		  "its cmdline stuck: as without one, by the user's rule");
	is_int(1, logged(log, "classified without its command line", line, sizeof(line)),
	       "said once");
	is_string(
		"warning: pid 501 (uid 65534) classified without its command line: reading "
		"it or checking the files it names is stuck or too slow (0 more not reported)",
		line, "... naming the pid and its user");

	/* an exec of it again: its user's worker is stuck, no wait */
	t0 = now_ms();
	struct procev_event ev = fixture_event(PROCEV_EXEC, 501, 0);
	core_event(c, &ev, 3.0);
	core_batch_done(c, 3.0);
	ms = now_ms() - t0;
	ok(ms < CMDLINE_WAIT_MS / 2,
	   "an exec event of it is classified at once: its user's worker is stuck (%.0f ms)",
	   ms);
	is_string("/users", fixture_group(&fx, 501), "... as without a cmdline");
	is_int(2, logged(log, "classified without its command line", line, sizeof(line)),
	       "... said again a second later");
	log_close();
	core_stop(c);
	core_free(c);
}

/*
 * A Lua hook reading task.cmdline of a process whose snapshot needed
 * none (cat, named cat): the hook's read is bounded too, and gives it
 * an empty command line.
 */
static void
test_hook(void)
{
	static const char cmd[] = "/usr/bin/cat\0x\0";
	static const char hook[] = "function classify(t, d) d['" FIXTURE_HIER
				   "'] = '/args' .. #t.cmdline end\n";
	char conf[512], script[300], path[300], log[256], line[512];
	struct procev_event ev;

	fixture_init(&fx);
	snprintf(script, sizeof(script), "%s/hook.lua", fx.dir);
	put(script, hook, sizeof(hook) - 1);
	snprintf(conf, sizeof(conf), "lua-script = \"%s\"\n", script);
	fixture_files(&fx, conf, rules);
	fixture_proc(&fx, 600, NOBODY, NOBODY, "/usr/bin/cat", 60, "/");
	snprintf(path, sizeof(path), "%s/600/cmdline", fx.proc);
	put(path, cmd, sizeof(cmd) - 1);
	snprintf(log, sizeof(log), "%s/daemon.log", fx.dir);
	if (log_open(log, LOG_LEVEL_INFO) < 0)
		bail("log_open %s", log);
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("no core with a hook");
	core_start(c, 10.0);
	/* a loaded machine (make -j check) may keep the first read past its
	 * 50 ms: then it is given up on, and read again at the next exec
	 * once the worker is back -- a bounded number of times */
	for (int i = 0; i < 40 && strcmp(fixture_group(&fx, 600), "/args2") != 0; i++) {
		usleep(50000);
		ev = fixture_event(PROCEV_EXEC, 600, 0);
		core_event(c, &ev, 10.0);
		core_batch_done(c, 10.0);
	}
	is_string("/args2", fixture_group(&fx, 600), "the hook reads a command line");

	/* the same user's next process, its cmdline stuck: a second on,
	 * past the warning's limit, whatever was said of 600 */
	fixture_proc(&fx, 601, NOBODY, NOBODY, "/usr/bin/cat", 61, "/");
	fixture_stuck_cmdline(&fx, 601);
	ev = fixture_event(PROCEV_EXEC, 601, 0);
	core_event(c, &ev, 12.0);
	core_batch_done(c, 12.0);
	is_string("/args0", fixture_group(&fx, 601), "a stuck one: the hook reads none");
	is_int(1, logged(log, "pid 601 (uid 65534) classified without its command line", line,
			 sizeof(line)),
	       "said once");
	/* its count of those not reported: 0, unless 600's reads were given
	 * up on under load */
	char said[512], other[512];
	bool quiet = logged(log, "pid 600 ", other, sizeof(other)) == 0;
	snprintf(said, sizeof(said), "%s%s",
		 "warning: pid 601 (uid 65534) classified without its command line: reading "
		 "it or checking the files it names is stuck or too slow (",
		 quiet ? "0 more not reported)" : "");
	snprintf(other, sizeof(other), "%.*s", (int)strlen(said), line);
	is_string(said, other, "... naming the pid and its user");
	log_close();
	core_free(c);
	unstick(601);
}

int
main(void)
{
	alarm(30); /* an unbounded read fails the test, not hangs it */
	plan(8 + 4 + 1);
	fixture_init(&fx);
	fixture_files(&fx, NULL, rules);
	make_fs();
	fixture_proc(&fx, 1, 0, 0, "/usr/lib/systemd/systemd", 1, "/init.scope");
	test_stuck();

	/* its reads unstuck, every worker ends (nothing left running) */
	unstick(501); /* its stuck reader, waiting in open */
	fixture_done(&fx);
	test_hook();
	size_t left = CMDLINE_WORKERS;
	for (int i = 0; i < 200 && left > 0; i++) {
		if (i > 0)
			usleep(10000);
		left = cmdline_stop();
	}
	is_int(0, left, "unstuck, every worker ends");
	fixture_done(&fx);
	return 0;
}
