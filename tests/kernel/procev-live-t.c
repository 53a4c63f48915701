/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procev-live-t.c -- the real proc connector: a child the test starts
 * forks, starts and ends a thread, changes uid and gid, execs and
 * exits; each event must arrive, and only those asked for: by the
 * socket filter on any kernel (alone, as on a kernel before 6.6, on a
 * second socket), with the connector's own filter on Linux >= 6.6.
 */
#include "kernel/kernel.h"
#include "tests/tap/tap.h"
#include "util/util.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct seen {
	bool fork, uid, gid, exec, exit;
	bool thread_fork, thread_exit; /* of the child's thread */
};

static void
note(const struct procev_event *ev, pid_t child, struct seen *s)
{
	if (ev->type == PROCEV_FORK && ev->pid == child && ev->parent_tgid == getpid())
		s->fork = true;
	if (ev->tgid != child)
		return;
	if (ev->type == PROCEV_FORK && ev->pid != child)
		s->thread_fork = true;
	if (ev->type == PROCEV_EXIT && ev->pid != child)
		s->thread_exit = true;
	if (ev->type == PROCEV_UID && ev->eid == 65534)
		s->uid = true;
	if (ev->type == PROCEV_GID && ev->eid == 65534)
		s->gid = true;
	if (ev->type == PROCEV_EXEC)
		s->exec = true;
	if (ev->type == PROCEV_EXIT && ev->pid == child)
		s->exit = true;
}

static void *
thread_main(void *arg)
{
	return arg;
}

/* The filter the child is watched through; with track_child, its
 * track[] is the child's pid, set once the child is known. */
static struct procev_want want_child;
static pid_t tracked;
static bool track_child;

/*
 * Events of a child that forks, starts and joins a thread, changes gid
 * and uid, execs and exits, until its EXIT arrives, or (filtered) for
 * 300 ms after it ended.
 */
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
		pthread_t th;
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		if (pthread_create(&th, NULL, thread_main, NULL) != 0 ||
		    pthread_join(th, NULL) != 0)
			_exit(5);
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		execl("/bin/true", "true", (char *)NULL);
		_exit(4);
	}
	close(go[0]);
	if (track_child) { /* the child is known before it runs */
		tracked = child;
		if (procev_want(p, &want_child) < 0)
			bail("procev_want");
	}
	if (write(go[1], "x", 1) != 1)
		bail("write");
	close(go[1]);

	/* the kernel queues a child's events before its parent can reap
	 * it: once reaped, one more round reads whatever is left (and the
	 * loop ends only after such a round, however late it runs) */
	double end = mono_s() + 30, quiet = 0;
	for (;;) {
		struct pollfd pfd = { .fd = procev_fd(p), .events = POLLIN };
		struct procev_event ev[16];

		if (quiet == 0 && waitpid(child, &status, WNOHANG) == child)
			quiet = mono_s() + 0.3;
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
		if (s->exit || mono_s() >= end || (quiet != 0 && mono_s() >= quiet))
			break;
	}
	if (quiet == 0)
		waitpid(child, &status, 0);
	return status;
}

static void
want(struct procev *p, struct procev_want w, const char *what)
{
	want_child = w;
	track_child = w.track == &tracked;
	is_int(0, procev_want(p, &w), "%s", what);
}

int
main(void)
{
	const pid_t other = 1;
	struct procev *p, *q;
	struct seen s;

	if (geteuid() != 0)
		skip_all("needs root");
	int rc = procev_open(&p, 1 << 20);
	if (rc < 0)
		skip_all("proc connector unavailable: %s", strerror(-rc));
	plan(31);
	ok(procev_fd(p) >= 0, "socket open");

	int status = watch_child(p, &s);
	ok(s.fork, "FORK of our child, with us as parent");
	ok(s.thread_fork && s.thread_exit, "FORK and EXIT of its thread");
	ok(s.gid, "GID change to 65534");
	ok(s.uid, "UID change to 65534");
	ok(s.exec, "EXEC");
	ok(s.exit, "EXIT");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child ran /bin/true");

	want(p, (struct procev_want){ .exec = true, .uid = true, .gid = true },
	     "subscribe to exec, uid and gid only");
	watch_child(p, &s);
	ok(s.gid && s.uid && s.exec, "GID, UID and EXEC still arrive");
	ok(!s.fork && !s.thread_fork, "FORK does not");
	ok(!s.exit && !s.thread_exit, "nor EXIT");

	want(p, (struct procev_want){ .exec = true, .forks = true, .track = &tracked, .ntrack = 1 },
	     "subscribe to forks and the child's exit");
	watch_child(p, &s);
	ok(s.fork && s.exec, "FORK and EXEC arrive");
	ok(!s.thread_fork, "not the new thread's FORK");
	ok(s.exit, "the tracked child's EXIT arrives");
	ok(!s.thread_exit, "not its thread's");
	ok(!s.uid && !s.gid, "nor UID or GID");

	want(p, (struct procev_want){ .exec = true, .forks = true, .track = &other, .ntrack = 1 },
	     "subscribe to forks and another process's exit");
	watch_child(p, &s);
	ok(s.fork && s.exec, "FORK and EXEC arrive");
	ok(!s.exit, "the untracked child's EXIT does not");

	want(p, (struct procev_want){ .exec = true, .uid = true, .gid = true, .forks = true,
				      .ntrack = PROCEV_ALL, .ngone = PROCEV_ALL },
	     "subscribe to every exit again");
	watch_child(p, &s);
	ok(s.fork, "FORK arrives again");
	ok(s.exit && s.thread_exit, "and every EXIT");
	ok(s.gid && s.uid && s.exec, "and the others");
	ok(!s.thread_fork, "but never a new thread's FORK");

	/* the socket filter alone, as on a kernel before 6.6 */
	if ((rc = procev_open(&q, 1 << 20)) < 0)
		bail("second socket: %s", strerror(-rc));
	track_child = false;
	watch_child(q, &s);
	ok(s.fork && s.exit && s.exec, "a second socket gets every event");
	is_int(0, procev_want_attach(procev_fd(q), &(struct procev_want){ .uid = true, .gid = true }),
	       "the socket filter alone: uid and gid changes only");
	watch_child(q, &s);
	ok(s.uid && s.gid, "UID and GID arrive");
	ok(!s.fork && !s.exec && !s.exit && !s.thread_fork && !s.thread_exit,
	   "nothing else (%d %d %d %d %d)", s.fork, s.exec, s.exit, s.thread_fork,
	   s.thread_exit);
	procev_close(q);

	rc = procev_grow(p);
	ok(rc > (1 << 20), "receive buffer grows (%d)", rc);
	procev_close(p);
	return tap_done();
}
