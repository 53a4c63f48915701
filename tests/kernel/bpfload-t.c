/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfload-t.c -- kernel/bpfload.c for real (root, a kernel with BTF): a
 * child loads the program and hands its descriptors over, whatever soft
 * limit of open files the caller runs under (the child takes the hard
 * one), so long as the caller has room for what it receives; and with
 * the caller at its limit, the kernel cannot give it as many as were
 * sent -- bpfload_run() then says so (-EMFILE: "Too many open files"),
 * not that the loader died, and keeps none of them.
 */

#include "kernel/kernel_private.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The lowest descriptor free now. */
static int
lowest_free(void)
{
	int fd = dup(0);

	if (fd < 0)
		bail("dup: %s", strerror(errno));
	close(fd);
	return fd;
}

/* The soft limit that leaves room free descriptors, no more: the test
 * runs with some open past the lowest free (the harness's). */
static rlim_t
limit_for(int room)
{
	int fd = 0;

	for (; room > 0; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			room--;
	return (rlim_t)fd;
}

/* Which of the descriptors base..base+63 are open, a bit each. */
static unsigned long long
open_from(int base)
{
	unsigned long long set = 0;

	for (int fd = base; fd < base + 64; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			set |= 1ull << (fd - base);
	return set;
}

int
main(void)
{
#ifndef HAVE_BPF
	skip_all("built without BPF");
#else
	struct bpfload l;
	struct rlimit rl, low;
	int rc;

	if (geteuid() != 0)
		skip_all("needs root");
	rc = bpfload_run(&l, 1 << 16, true);
	if (rc < 0)
		skip_all("the BPF program does not load here: %s", strerror(-rc));
	plan(6);
	ok(true, "a child loads the program");
	bool all = true;
	for (int i = 0; i < BPFLOAD_NFDS; i++)
		all = all && (l.fd[i] >= 0 || (i == BPFLOAD_IDS && l.ids != 0));
	ok(all, "and hands every descriptor over");
	bpfload_close(&l);

	/* room for the socket pair and one more: the child may open what
	 * it needs (it raises its soft limit to the hard one), the caller
	 * cannot take the descriptors it sends */
	int base = lowest_free();
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		bail("getrlimit: %s", strerror(errno));
	low = rl;
	low.rlim_cur = limit_for(3);
	if (setrlimit(RLIMIT_NOFILE, &low) < 0)
		bail("setrlimit: %s", strerror(errno));
	unsigned long long before = open_from(base);
	rc = bpfload_run(&l, 1 << 16, true);
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		bail("setrlimit: %s", strerror(errno));
	is_int(-EMFILE, rc, "at the open-file limit: -EMFILE (%s)", strerror(-rc));
	is_int((long long)before, (long long)open_from(base), "none of the descriptors is kept");

	/* room for what the daemon receives, not for what the loader opens
	 * on the way (a descriptor per map, program and link, the BTF):
	 * the loader is bound by the hard limit only */
	low.rlim_cur = limit_for(2 + BPFLOAD_NFDS);
	if (setrlimit(RLIMIT_NOFILE, &low) < 0)
		bail("setrlimit: %s", strerror(errno));
	rc = bpfload_run(&l, 1 << 16, true);
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		bail("setrlimit: %s", strerror(errno));
	is_int(0, rc, "room for the socket pair and what is received, no more: it loads (%s)",
	       rc < 0 ? strerror(-rc) : "loaded");
	if (rc == 0)
		bpfload_close(&l);

	/* and with room again, it loads */
	rc = bpfload_run(&l, 1 << 16, true);
	is_int(0, rc, "with room again, it loads");
	if (rc == 0)
		bpfload_close(&l);
	return tap_done();
#endif
}
