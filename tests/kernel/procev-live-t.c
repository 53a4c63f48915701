/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procev-live-t.c -- the real proc connector: a child the test starts
 * forks, changes uid and gid, execs and exits; each event must arrive,
 * and on Linux >= 6.6 only those subscribed to.
 */
#include "kernel/kernel.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct seen {
	bool fork, uid, gid, exec, exit;
};

static void
note(const struct procev_event *ev, pid_t child, struct seen *s)
{
	if (ev->type == PROCEV_FORK && ev->tgid == child && ev->parent_tgid == getpid())
		s->fork = true;
	if (ev->tgid != child)
		return;
	if (ev->type == PROCEV_UID && ev->eid == 65534)
		s->uid = true;
	if (ev->type == PROCEV_GID && ev->eid == 65534)
		s->gid = true;
	if (ev->type == PROCEV_EXEC)
		s->exec = true;
	if (ev->type == PROCEV_EXIT)
		s->exit = true;
}

/* Events of a child that forks, changes gid and uid, execs and exits,
 * until its EXIT arrives, or (filtered) for 300 ms after it ended. */
static int
watch_child(struct procev *p, struct seen *s)
{
	int go[2], status = -1;

	memset(s, 0, sizeof(*s));
	if (pipe(go) < 0)
		bail("pipe");
	pid_t child = fork();
	if (child == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		execl("/bin/true", "true", (char *)NULL);
		_exit(4);
	}
	close(go[0]);
	if (write(go[1], "x", 1) != 1)
		bail("write");
	close(go[1]);

	/* the kernel queues a child's events before its parent can reap
	 * it: once reaped, one more round reads whatever is left (and the
	 * loop ends only after such a round, however late it runs) */
	double end = now() + 30, quiet = 0;
	for (;;) {
		struct pollfd pfd = { .fd = procev_fd(p), .events = POLLIN };
		struct procev_event ev[16];

		if (quiet == 0 && waitpid(child, &status, WNOHANG) == child)
			quiet = now() + 0.3;
		if (poll(&pfd, 1, 50) > 0) {
			int n;
			while ((n = procev_recv(p, ev, 16)) != -EAGAIN) {
				if (n == -ENOBUFS)
					continue;
				if (n < 0)
					bail("recv: %s", strerror(-n));
				for (int i = 0; i < n; i++)
					note(&ev[i], child, s);
			}
		}
		if (s->exit || now() >= end || (quiet != 0 && now() >= quiet))
			break;
	}
	if (quiet == 0)
		waitpid(child, &status, 0);
	return status;
}

/* Does the running kernel filter events (Linux >= 6.6)? */
static bool
kernel_filters(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 6);
}

int
main(void)
{
	struct procev *p;
	struct seen s;

	if (geteuid() != 0)
		skip_all("needs root");
	int rc = procev_open(&p, 1 << 20);
	if (rc < 0)
		skip_all("proc connector unavailable: %s", strerror(-rc));
	plan(16);
	ok(procev_fd(p) >= 0, "socket open");

	int status = watch_child(p, &s);
	ok(s.fork, "FORK of our child, with us as parent");
	ok(s.gid, "GID change to 65534");
	ok(s.uid, "UID change to 65534");
	ok(s.exec, "EXEC");
	ok(s.exit, "EXIT");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child ran /bin/true");

	is_int(0, procev_filter(p, false), "subscribe to exec, uid and gid only");
	watch_child(p, &s);
	ok(s.gid && s.uid && s.exec, "GID, UID and EXEC still arrive");
	if (kernel_filters()) {
		ok(!s.fork, "FORK does not (Linux >= 6.6)");
		ok(!s.exit, "nor EXIT");
	} else {
		skip(2, "kernel before 6.6: no filter, every event arrives");
	}
	is_int(0, procev_filter(p, true), "subscribe to fork and exit again");
	watch_child(p, &s);
	ok(s.fork, "FORK arrives again");
	ok(s.exit, "and EXIT");
	ok(s.gid && s.uid && s.exec, "and the others");

	rc = procev_grow(p);
	ok(rc > (1 << 20), "receive buffer grows (%d)", rc);
	procev_close(p);
	return tap_done();
}
