/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * execgate-t.c -- kernel/execgate.c: the credentials an exec runs with
 * (pure, always), and as root the real thing: a binary of the test's
 * own marked, its exec held until allowed, the event matched by
 * (device, inode) with the exec'ing pid and a pidfd, the watchdog's
 * allow-everything, a name renamed into place in a watched directory,
 * /proc/PID/exe compared with a binary.
 */
#include "kernel/execgate.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void
test_creds(void)
{
	struct execgate_file f = { .mode = S_IFREG | 04755, .uid = 0, .gid = 0 };
	uid_t euid = 1000;
	gid_t egid = 1000;

	execgate_creds(&f, false, &euid, &egid);
	ok(euid == 0 && egid == 1000, "set-user-ID root: euid 0, egid kept");
	f = (struct execgate_file){ .mode = S_IFREG | 02755, .uid = 5, .gid = 42 };
	euid = egid = 1000;
	execgate_creds(&f, false, &euid, &egid);
	ok(euid == 1000 && egid == 42,
	   "set-group-ID with group execute: the file's group");
	f.mode = S_IFREG | 02745;
	egid = 1000;
	execgate_creds(&f, false, &euid, &egid);
	ok(egid == 1000,
	   "set-group-ID without group execute: nothing (mandatory locking)");
	f = (struct execgate_file){ .mode = S_IFREG | 06755, .uid = 0, .gid = 0 };
	euid = egid = 1000;
	execgate_creds(&f, true, &euid, &egid);
	ok(euid == 1000 && egid == 1000, "no_new_privs: nothing");
	f.nosuid = true;
	execgate_creds(&f, false, &euid, &egid);
	ok(euid == 1000 && egid == 1000, "nosuid mount: nothing");
	f = (struct execgate_file){ .mode = S_IFREG | 0755, .uid = 0, .gid = 0 };
	execgate_creds(&f, false, &euid, &egid);
	ok(euid == 1000 && egid == 1000, "no set-id bit: nothing");
}

/* Wait up to ms for fd to be readable. */
static bool
wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static pid_t
spawn(const char *path)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int
reap(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
test_held(const char *dir, int gfd, bool pidfds)
{
	char bin[256], buf[4096];
	struct execgate_file f, ef;
	struct execgate_event ev[4];

	snprintf(bin, sizeof(bin), "%s/held", dir);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "cp /bin/true '%s'", bin);
	if (system(cmd) != 0)
		bail("cp");
	is_int(0, execgate_mark(gfd, bin, &f), "a binary of the test's own is marked");
	is_int(-EAGAIN, execgate_read(gfd, buf, sizeof(buf), ev, 4), "nothing waits yet");

	pid_t pid = spawn(bin);
	ok(wait_readable(gfd, 2000), "its exec is held: an event waits");
	is_int(1, execgate_read(gfd, buf, sizeof(buf), ev, 4), "one event is read");
	is_int(pid, ev[0].pid, "... for the exec'ing process");
	is_int(0, execgate_stat(ev[0].fd, &ef), "its descriptor is the binary");
	ok(ef.dev == f.dev && ef.ino == f.ino, "... by (device, inode)");
	ok(pidfds ? ev[0].pidfd >= 0 : ev[0].pidfd == -1, "a pidfd %s",
	   pidfds ? "comes with it" : "does not (old kernel)");
	ok(execgate_alive(ev[0].pidfd), "... of a process still there");
	is_int(0, execgate_runs("/proc", pid, f.dev, f.ino),
	       "/proc/PID/exe still shows the old program while held");
	struct timespec nap = { 0, 100000000 };
	nanosleep(&nap, NULL);
	int st;
	is_int(0, waitpid(pid, &st, WNOHANG), "the process waits for the answer");
	is_int(0, execgate_allow(gfd, ev[0].fd), "allowed");
	execgate_close(&ev[0]);
	is_int(0, reap(pid), "then it runs");

	/* the watchdog's path: everything waiting is allowed at once */
	pid_t a = spawn(bin), b = spawn(bin);
	ok(wait_readable(gfd, 2000), "two more execs held");
	nanosleep(&nap, NULL);
	int n = execgate_allow_all(gfd);
	ok(n >= 1 && n <= 2, "allow_all lets them go (%d at once)", n);
	if (n == 1 && wait_readable(gfd, 2000))
		n += execgate_allow_all(gfd);
	ok(reap(a) == 0 && reap(b) == 0, "both ran");

	is_int(0, execgate_unmark(gfd, bin), "the mark is taken off");
	pid = spawn(bin);
	is_int(0, reap(pid), "an unmarked binary runs");
	ok(!wait_readable(gfd, 0), "without an event");
}

/* Collects whether "held" was seen made or renamed into place. */
static void
dir_seen(void *arg, int wd, enum execgate_dir_change ch, const char *name)
{
	bool *held_new = arg;

	if (ch == EXECGATE_NAME_NEW && name != NULL && strcmp(name, "held") == 0)
		*held_new = true;
}

static void
test_dirs(const char *dir)
{
	char old[256], tmp[256], cmd[1024];
	int ifd = execgate_dirs_open();
	bool held_new = false;

	ok(ifd >= 0, "an inotify descriptor");
	ok(execgate_dir_watch(ifd, dir) >= 0, "the directory is watched");
	snprintf(old, sizeof(old), "%s/held", dir);
	snprintf(tmp, sizeof(tmp), "%s/held.dpkg-new", dir);
	snprintf(cmd, sizeof(cmd), "cp /bin/true '%s' && mv '%s' '%s'", tmp, tmp, old);
	if (system(cmd) != 0)
		bail("cp/mv");
	ok(wait_readable(ifd, 2000), "a rename into place is seen");
	is_int(0, execgate_dirs_read(ifd, dir_seen, &held_new), "the events are read");
	ok(held_new, "... 'held' is new");
	close(ifd);
}

int
main(void)
{
	bool pidfds;
	char dir[] = "/tmp/cgetest-execgate.XXXXXX";

	if (geteuid() != 0) {
		plan(6);
		test_creds(); /* the rest needs root */
		return tap_done();
	}
	int gfd = execgate_open(&pidfds);
	if (gfd < 0) {
		plan(6);
		test_creds();
		diag("no fanotify exec permission events: %s", strerror(-gfd));
		return tap_done();
	}
	plan(30);
	test_creds();
	if (mkdtemp(dir) == NULL)
		bail("mkdtemp");
	test_held(dir, gfd, pidfds);
	close(gfd);
	test_dirs(dir);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
	return tap_done();
}
