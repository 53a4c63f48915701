/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procfilt-t.c -- the proc connector's socket filter (procfilt.c), run
 * by the kernel itself: the program is attached to one end of a Unix
 * datagram socket pair, crafted proc connector datagrams are sent from
 * the other end, and what arrives is what the filter passed.  No root
 * needed.
 */
#include "kernel/kernel.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/filter.h>
#include <linux/netlink.h>

static int pair[2];

/* A datagram as the proc connector queues it; len bytes of the event. */
static size_t
datagram(char *buf, const struct proc_event *ev, size_t evlen)
{
	struct nlmsghdr nh = { 0 };
	struct cn_msg cn = { 0 };

	nh.nlmsg_len = NLMSG_LENGTH(sizeof(cn) + evlen);
	nh.nlmsg_type = NLMSG_DONE;
	cn.id.idx = CN_IDX_PROC;
	cn.id.val = CN_VAL_PROC;
	cn.len = (unsigned short)evlen;
	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
	memcpy(buf + NLMSG_HDRLEN + sizeof(cn), ev, evlen);
	return nh.nlmsg_len;
}

/* Send ev (its first evlen bytes) through the filter: did it pass? */
static bool
passes_len(const struct proc_event *ev, size_t evlen)
{
	char buf[512], got[512];

	size_t n = datagram(buf, ev, evlen);
	if (send(pair[0], buf, n, 0) != (ssize_t)n)
		bail("send: %s", strerror(errno));
	ssize_t r = recv(pair[1], got, sizeof(got), MSG_DONTWAIT);
	if (r < 0 && errno != EAGAIN)
		bail("recv: %s", strerror(errno));
	if (r >= 0 && ((size_t)r != n || memcmp(buf, got, n) != 0))
		bail("the filter changed a datagram it passed");
	return r >= 0;
}

static bool
passes(const struct proc_event *ev)
{
	return passes_len(ev, sizeof(*ev));
}

static struct proc_event
ev_simple(unsigned what, pid_t pid, pid_t tgid)
{
	struct proc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.what = what;
	ev.timestamp_ns = 123456789;
	ev.event_data.exec.process_pid = pid; /* exec, id and exit start alike */
	ev.event_data.exec.process_tgid = tgid;
	return ev;
}

static struct proc_event
ev_fork(pid_t ppid, pid_t child_pid, pid_t child_tgid)
{
	struct proc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_FORK;
	ev.event_data.fork.parent_pid = ppid;
	ev.event_data.fork.parent_tgid = ppid;
	ev.event_data.fork.child_pid = child_pid;
	ev.event_data.fork.child_tgid = child_tgid;
	return ev;
}

static struct proc_event
ev_exit(pid_t pid, pid_t tgid)
{
	return ev_simple(PROC_EVENT_EXIT, pid, tgid);
}

static void
want(const struct procev_want *w, const char *what)
{
	int rc = procev_want_attach(pair[1], w);

	if (rc < 0)
		bail("attaching the filter (%s): %s", what, strerror(-rc));
}

/* Only what the daemon needs with no process remembered. */
static void
test_plain(void)
{
	struct procev_want w = { .exec = true, .uid = true, .gid = true };
	struct proc_event ev;

	want(&w, "plain");
	ev = ev_simple(PROC_EVENT_EXEC, 100, 100);
	ok(passes(&ev), "EXEC passes");
	ev = ev_simple(PROC_EVENT_UID, 100, 100);
	ok(passes(&ev), "UID passes");
	ev = ev_simple(PROC_EVENT_GID, 101, 100);
	ok(passes(&ev), "GID passes, of a thread too");
	ev = ev_fork(1, 200, 200);
	ok(!passes(&ev), "FORK of a process is dropped when forks are not wanted");
	ev = ev_exit(100, 100);
	ok(!passes(&ev), "EXIT is dropped when no process is tracked");
	ev = ev_simple(PROC_EVENT_COMM, 100, 100);
	ok(!passes(&ev), "COMM is dropped");
	ev = ev_simple(PROC_EVENT_SID, 100, 100);
	ok(!passes(&ev), "SID is dropped");
	ev = ev_simple(PROC_EVENT_PTRACE, 100, 100);
	ok(!passes(&ev), "PTRACE is dropped");
	ev = ev_simple(PROC_EVENT_COREDUMP, 100, 100);
	ok(!passes(&ev), "COREDUMP is dropped");
	ev = ev_simple(PROC_EVENT_NONE, 0, 0);
	ok(!passes(&ev), "the connector's acknowledgement is dropped");
	ev = ev_simple(PROC_EVENT_EXEC, 100, 100);
	ok(!passes_len(&ev, 2), "a datagram too short to hold an event kind is dropped");
	ok(passes_len(&ev, offsetof(struct proc_event, event_data) + 8),
	   "an EXEC of exactly its own size passes");
}

/* Credential changes the rules do not use stay in the kernel. */
static void
test_kinds(void)
{
	struct procev_want w = { .exec = true, .uid = true };
	struct proc_event ev;

	want(&w, "no gid");
	ev = ev_simple(PROC_EVENT_GID, 100, 100);
	ok(!passes(&ev), "GID is dropped when not wanted");
	ev = ev_simple(PROC_EVENT_UID, 100, 100);
	ok(passes(&ev), "while UID passes");
	w = (struct procev_want){ .uid = true, .gid = true };
	want(&w, "ids only");
	ev = ev_simple(PROC_EVENT_EXEC, 100, 100);
	ok(!passes(&ev), "EXEC is dropped on a socket for credential changes only");
	ev = ev_simple(PROC_EVENT_GID, 100, 100);
	ok(passes(&ev), "which passes GID");
}

/* Forks of processes, exits of the tracked ones. */
static void
test_tracked(void)
{
	const pid_t track[] = { 100, 200, 0x01020304 };
	const pid_t gone[] = { 300 };
	struct procev_want w = { .exec = true,
				 .forks = true,
				 .track = track,
				 .ntrack = 3,
				 .gone = gone,
				 .ngone = 1 };
	struct proc_event ev;

	want(&w, "tracked");
	ev = ev_fork(100, 500, 500);
	ok(passes(&ev), "FORK of a new process passes");
	ev = ev_fork(100, 501, 500);
	ok(!passes(&ev), "FORK of a new thread is dropped");
	ev = ev_exit(100, 100);
	ok(passes(&ev), "EXIT of a tracked process passes");
	ev = ev_exit(200, 200);
	ok(passes(&ev), "EXIT of another tracked process passes");
	ev = ev_exit(150, 150);
	ok(!passes(&ev), "EXIT of an untracked process is dropped");
	ev = ev_exit(101, 100);
	ok(!passes(&ev), "EXIT of a thread of a tracked process is dropped");
	ev = ev_exit(301, 300);
	ok(passes(&ev), "EXIT of a thread of a process whose main thread is gone passes");
	ev = ev_exit(301, 302);
	ok(!passes(&ev), "EXIT of a thread of another process is dropped");
	ev = ev_exit(0x01020304, 0x01020304);
	ok(passes(&ev), "pids compare in the host's byte order (tracked)");
	ev = ev_exit(0x04030201, 0x04030201);
	ok(!passes(&ev), "pids compare in the host's byte order (byte-swapped: dropped)");
	ev = ev_simple(PROC_EVENT_UID, 100, 100);
	ok(!passes(&ev), "UID is dropped when not wanted");
}

static void
test_all(void)
{
	struct procev_want w = { .forks = true, .ntrack = PROCEV_ALL, .ngone = PROCEV_ALL };
	struct proc_event ev;

	want(&w, "all exits");
	ev = ev_exit(150, 150);
	ok(passes(&ev), "PROCEV_ALL: any main thread's EXIT passes");
	ev = ev_exit(151, 150);
	ok(passes(&ev), "PROCEV_ALL: any thread's EXIT passes");
	ev = ev_fork(1, 152, 150);
	ok(!passes(&ev), "new threads are still dropped");
}

/* The longest lists the program spells out, and one more. */
static void
test_long(void)
{
	pid_t track[PROCEV_TRACK_MAX + 1];
	struct proc_event ev;
	bool all = true;

	for (size_t i = 0; i < PROCEV_TRACK_MAX + 1; i++)
		track[i] = (pid_t)(1000 + 7 * i);
	struct procev_want w = { .track = track, .ntrack = PROCEV_TRACK_MAX };
	want(&w, "long list");
	for (size_t i = 0; i < PROCEV_TRACK_MAX; i++) {
		ev = ev_exit(track[i], track[i]);
		all = all && passes(&ev);
	}
	ok(all, "each of %d tracked processes' EXIT passes", PROCEV_TRACK_MAX);
	ev = ev_exit(1001, 1001);
	ok(!passes(&ev), "an untracked one between them is dropped");
	ev = ev_exit(track[PROCEV_TRACK_MAX], track[PROCEV_TRACK_MAX]);
	ok(!passes(&ev), "and the one past the list");
	w.ntrack = PROCEV_TRACK_MAX + 1;
	want(&w, "too long");
	ev = ev_exit(1001, 1001);
	ok(passes(&ev), "a longer list passes every main thread's EXIT");
	ev = ev_exit(1002, 1001);
	ok(!passes(&ev), "but not threads'");
}

static void
test_build(void)
{
	struct procev_want w = { .exec = true, .forks = true, .ntrack = 2,
				 .track = (const pid_t[]){ 1, 2 } };
	struct sock_filter code[64];
	int n = procev_filter_build(&w, code, 64);

	ok(n > 0 && n < 64, "the program is built (%d instructions)", n);
	ok(code[n - 1].code == (BPF_RET | BPF_K), "and ends with a return");
	is_int(-E2BIG, procev_filter_build(&w, code, (size_t)n - 1),
	       "a buffer one instruction short is refused");
}

int
main(void)
{
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) < 0)
		bail("socketpair: %s", strerror(errno));
	plan(38);
	test_plain();
	test_kinds();
	test_tracked();
	test_all();
	test_long();
	test_build();
	close(pair[0]);
	close(pair[1]);
	return tap_done();
}
