/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfload.c -- the eBPF event source's program loaded in a child process.
 *
 * Loading is most of what libbpf does for us, and it is heavy: it reads
 * the kernel's BTF (megabytes, for CO-RE's relocations), the object
 * embedded in the daemon, and runs through code of its own, of libelf's
 * and of libc's that the daemon never needs again.  Done in the daemon
 * itself, all of that stays in its resident memory for good -- the pages
 * of code and read-only data it touched, the heap it grew -- some 400 KiB
 * of a daemon of 4 MiB, and 15 MiB at its peak.
 *
 * So a child does it: it opens, sizes, loads and attaches the skeleton
 * (kernel/bpf/exec.bpf.c, wrapped by bpftool at build time), sends the
 * descriptors the daemon works with back over a socket pair
 * (SCM_RIGHTS), and exits.  The kernel keeps the programs, their maps
 * and the attachment alive through those descriptors; the daemon maps
 * the ring buffer and the program's globals from them (bpfexec.c) and
 * never calls into libbpf's loader.
 */
#include "kernel_private.h"

#ifdef HAVE_BPF

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "kernel/bpf/exec.skel.h"

/* What the child says: rc, and when it is 0, l with the descriptors of
 * l.fd[] sent beside it (SCM_RIGHTS; the numbers in l.fd are the
 * child's), BPFLOAD_IDS among them only when l.ids is 0. */
struct loaded {
	int rc; /* 0, or -errno: why the program did not load (no descriptor) */
	struct bpfload l;
};

static int
silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/*
 * Open, size and load the skeleton into *out, and attach its exec
 * program; with ids, load the socket filter on uid and gid changes too
 * (the daemon attaches it to its connector socket).  0, or -errno (then
 * *out may be set: the caller destroys it).
 */
static int
load(struct execbpf **out, size_t rbsize, bool ids)
{
	struct execbpf *s;
	int rc;

	if ((s = *out = execbpf__open()) == NULL)
		return errno ? -errno : -EINVAL;
	if ((rc = bpf_map__set_max_entries(s->maps.events, (__u32)rbsize)) < 0 ||
	    (rc = bpf_program__set_autoload(s->progs.cge_ids, ids)) < 0 ||
	    (rc = execbpf__load(s)) < 0)
		return rc;
	if ((s->links.cge_exec = bpf_program__attach(s->progs.cge_exec)) == NULL)
		return errno ? -errno : -EINVAL;
	return 0;
}

static int
send_loaded(int sock, const struct loaded *m, const int *fds, size_t n)
{
	union {
		char buf[CMSG_SPACE(BPFLOAD_NFDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (n > 0) {
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* The child: load, send, exit.  Never returns. */
static void
child(int sock, size_t rbsize, bool ids)
{
	struct execbpf *s = NULL;
	struct loaded m = { .l.ids = -EPERM }; /* (the test's reason, when it asks for none) */
	int *fds = m.l.fd;
	sigset_t all;
	int rc;

	sigfillset(&all); /* the daemon's handlers are not ours */
	sigprocmask(SIG_BLOCK, &all, NULL);
	/* libbpf opens a descriptor per map, program and link, and the BTF:
	 * the loader may use as many as the hard limit lets it, whatever
	 * soft limit the daemon runs under (the daemon then needs room for
	 * what it receives: recv_loaded) */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (getenv("CGENGINED_BPF_DEBUG") == NULL)
		libbpf_set_print(silent);
	/* a test's: as if refused (1), or killed before a word (killed) */
	const char *fail = getenv("CGENGINED_TEST_BPF_FAIL");

	if (fail != NULL && strcmp(fail, "1") == 0) {
		m.rc = -EPERM;
		_exit(send_loaded(sock, &m, NULL, 0) < 0);
	}
	if (fail != NULL && strcmp(fail, "killed") == 0)
		kill(getpid(), SIGKILL);
	if (ids && (rc = load(&s, rbsize, true)) < 0) { /* again, without it */
		m.l.ids = rc;
		ids = false;
		execbpf__destroy(s);
		s = NULL;
	}
	if (s == NULL && (rc = load(&s, rbsize, false)) < 0) {
		m.rc = rc;
		_exit(send_loaded(sock, &m, NULL, 0) < 0);
	}
	if (ids)
		m.l.ids = 0;
	struct bpf_map *filter[] = { s->maps.uids, s->maps.gids, s->maps.names, s->maps.anames };

	for (size_t i = 0; i < 4; i++)
		m.l.cap[i] = bpf_map__max_entries(filter[i]);
	m.l.ring_size = bpf_map__max_entries(s->maps.events);
	m.l.bss_size = bpf_map__value_size(s->maps.bss);
	m.l.data_size = bpf_map__value_size(s->maps.data);
	fds[BPFLOAD_RING] = bpf_map__fd(s->maps.events);
	fds[BPFLOAD_UIDS] = bpf_map__fd(s->maps.uids);
	fds[BPFLOAD_GIDS] = bpf_map__fd(s->maps.gids);
	fds[BPFLOAD_NAMES] = bpf_map__fd(s->maps.names);
	fds[BPFLOAD_ANAMES] = bpf_map__fd(s->maps.anames);
	fds[BPFLOAD_PIDS] = bpf_map__fd(s->maps.pids);
	fds[BPFLOAD_EXEC] = bpf_program__fd(s->progs.cge_exec);
	fds[BPFLOAD_LINK] = bpf_link__fd(s->links.cge_exec);
	fds[BPFLOAD_BSS] = bpf_map__fd(s->maps.bss);
	fds[BPFLOAD_DATA] = bpf_map__fd(s->maps.data);
	fds[BPFLOAD_IDS] = ids ? bpf_program__fd(s->progs.cge_ids) : -1;
	/* (exiting closes the child's descriptors; the daemon's stay) */
	_exit(send_loaded(sock, &m, fds, ids ? BPFLOAD_NFDS : BPFLOAD_NFDS - 1) < 0);
}

/* The child's message into *out; 0 or -errno. */
static int
recv_loaded(int sock, struct bpfload *out)
{
	union {
		char buf[CMSG_SPACE(BPFLOAD_NFDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct loaded m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	int fds[BPFLOAD_NFDS];
	size_t n = 0;
	ssize_t got;

	do
		got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			memcpy(fds, CMSG_DATA(c), n * sizeof(int));
		}
	}
	size_t want = got == (ssize_t)sizeof(m) && m.rc == 0
			      ? (m.l.ids == 0 ? BPFLOAD_NFDS : BPFLOAD_NFDS - 1)
			      : 0;
	int rc = got != (ssize_t)sizeof(m) ? -EPROTO : m.rc < 0 ? m.rc : 0;

	/* descriptors cut short: the kernel could not give the daemon as
	 * many as were sent (it is at its open-file limit), which is not the
	 * child's doing */
	if (rc == 0 && (msg.msg_flags & MSG_CTRUNC))
		rc = -EMFILE;
	else if (rc == 0 && n != want)
		rc = -EPROTO;
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		return rc;
	}
	*out = m.l;
	for (size_t i = 0; i < BPFLOAD_NFDS; i++)
		out->fd[i] = i < n ? fds[i] : -1;
	return 0;
}

int
bpfload_run(struct bpfload *out, size_t rbsize, bool ids)
{
	int sv[2], rc, status;
	pid_t pid;

	for (size_t i = 0; i < BPFLOAD_NFDS; i++)
		out->fd[i] = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if ((pid = fork()) < 0) {
		rc = -errno;
		close(sv[0]);
		close(sv[1]);
		return rc;
	}
	if (pid == 0) {
		close(sv[0]);
		child(sv[1], rbsize, ids);
	}
	close(sv[1]);
	rc = recv_loaded(sv[0], out); /* (0 bytes, -EPROTO: the child died) */
	close(sv[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return rc;
}

void
bpfload_close(struct bpfload *l)
{
	for (size_t i = 0; i < BPFLOAD_NFDS; i++) {
		if (l->fd[i] >= 0)
			close(l->fd[i]);
		l->fd[i] = -1;
	}
}

#endif /* HAVE_BPF */
