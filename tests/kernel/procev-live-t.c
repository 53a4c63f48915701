/*
 * procev-live-t.c -- the real proc connector: a child the test starts
 * forks, changes uid and gid, execs and exits; each event must arrive.
 */
#include "kernel/kernel.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
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

int
main(void)
{
	struct procev *p;
	int go[2];

	if (geteuid() != 0)
		skip_all("needs root");
	int rc = procev_open(&p, 1 << 20);
	if (rc < 0)
		skip_all("proc connector unavailable: %s", strerror(-rc));
	plan(8);
	ok(procev_fd(p) >= 0, "socket open");

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

	bool fork_seen = false, uid_seen = false, gid_seen = false;
	bool exec_seen = false, exit_seen = false;
	double end = now() + 10;
	while (!exit_seen && now() < end) {
		struct pollfd pfd = { .fd = procev_fd(p), .events = POLLIN };
		struct procev_event ev[16];

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		int n;
		while ((n = procev_recv(p, ev, 16)) != -EAGAIN) {
			if (n == -ENOBUFS)
				continue;
			if (n < 0)
				bail("recv: %s", strerror(-n));
			for (int i = 0; i < n; i++) {
				if (ev[i].type == PROCEV_FORK && ev[i].tgid == child &&
				    ev[i].parent_tgid == getpid())
					fork_seen = true;
				if (ev[i].tgid != child)
					continue;
				if (ev[i].type == PROCEV_UID && ev[i].eid == 65534)
					uid_seen = true;
				if (ev[i].type == PROCEV_GID && ev[i].eid == 65534)
					gid_seen = true;
				if (ev[i].type == PROCEV_EXEC)
					exec_seen = true;
				if (ev[i].type == PROCEV_EXIT)
					exit_seen = true;
			}
		}
	}
	int status;
	waitpid(child, &status, 0);
	ok(fork_seen, "FORK of our child, with us as parent");
	ok(gid_seen, "GID change to 65534");
	ok(uid_seen, "UID change to 65534");
	ok(exec_seen, "EXEC");
	ok(exit_seen, "EXIT");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child ran /bin/true");
	rc = procev_grow(p);
	ok(rc > (1 << 20), "receive buffer grows (%d)", rc);
	procev_close(p);
	return tap_done();
}
