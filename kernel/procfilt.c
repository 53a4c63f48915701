/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procfilt.c -- which proc connector events reach a reader: a classic
 * BPF socket filter (SO_ATTACH_FILTER) built from a struct procev_want,
 * run by the kernel on every event before it is queued, so an event
 * nobody needs never wakes the daemon.  Unlike the connector's own
 * event-type filter (Linux >= 6.6), it works on any kernel and can look
 * inside an event: a new thread is not a new process, the exit of a
 * process the daemon does not remember does not matter.
 *
 * The program reads the datagram as the kernel queues it: a netlink
 * header, a connector header (struct cn_msg), then struct proc_event.
 * Classic BPF loads 32-bit words in network byte order, so constants
 * are compared in that order too (htonl), and two fields of one event
 * are compared with each other as loaded.
 */
#include "kernel_private.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/filter.h>
#include <linux/netlink.h>

#define EV_OFF(f) (NLMSG_HDRLEN + sizeof(struct cn_msg) + offsetof(struct proc_event, f))
#define OFF_WHAT	EV_OFF(what)
#define OFF_FORK_CPID	EV_OFF(event_data.fork.child_pid)
#define OFF_FORK_CTGID	EV_OFF(event_data.fork.child_tgid)
#define OFF_EXIT_PID	EV_OFF(event_data.exit.process_pid)
#define OFF_EXIT_TGID	EV_OFF(event_data.exit.process_tgid)

#define PASS 0xffffffffu /* keep the whole datagram */
#define DROP 0u

struct prog {
	struct sock_filter *code;
	size_t n, max;
};

static void
emit(struct prog *p, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
	if (p->n < p->max)
		p->code[p->n] = (struct sock_filter){ .code = code, .jt = jt, .jf = jf, .k = k };
	p->n++;
}

static void
ret(struct prog *p, bool pass)
{
	emit(p, BPF_RET | BPF_K, pass ? PASS : DROP, 0, 0);
}

static void
load(struct prog *p, size_t off)
{
	emit(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)off, 0, 0);
}

/*
 * A holds a thread group id: pass when it is one of pids[0..n), else
 * drop; n == PROCEV_ALL passes every one.  Two instructions per pid,
 * so no jump is longer than one (classic BPF's conditional jumps reach
 * 255 instructions at most).
 */
static void
pid_list(struct prog *p, const pid_t *pids, size_t n)
{
	if (n == PROCEV_ALL || n > PROCEV_TRACK_MAX) {
		ret(p, true);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		emit(p, BPF_JMP | BPF_JEQ | BPF_K, htonl((uint32_t)pids[i]), 0, 1);
		ret(p, true);
	}
	ret(p, false);
}

/* FORK: only of a new process (child pid == child tgid). */
static void
fork_block(struct prog *p, bool forks)
{
	if (!forks) {
		ret(p, false);
		return;
	}
	load(p, OFF_FORK_CPID);
	emit(p, BPF_MISC | BPF_TAX, 0, 0, 0);
	load(p, OFF_FORK_CTGID);
	emit(p, BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1);
	ret(p, true);
	ret(p, false);
}

/* EXIT: of a tracked group's main thread, or any thread of a gone one. */
static void
exit_block(struct prog *p, const struct procev_want *w)
{
	if (w->ntrack == 0 && w->ngone == 0) {
		ret(p, false);
		return;
	}
	load(p, OFF_EXIT_PID);
	emit(p, BPF_MISC | BPF_TAX, 0, 0, 0);
	load(p, OFF_EXIT_TGID); /* A = tgid on both branches */
	emit(p, BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1);
	size_t ja = p->n; /* main thread: jump over the threads' list */
	emit(p, BPF_JMP | BPF_JA, 0, 0, 0);
	pid_list(p, w->gone, w->ngone);
	if (ja < p->max)
		p->code[ja].k = (uint32_t)(p->n - ja - 1);
	pid_list(p, w->track, w->ntrack);
}

int
procev_filter_build(const struct procev_want *w, struct sock_filter *code, size_t max)
{
	static const uint32_t kinds[] = { PROC_EVENT_EXEC, PROC_EVENT_UID, PROC_EVENT_GID,
					  PROC_EVENT_FORK, PROC_EVENT_EXIT };
	struct prog p = { .code = code, .max = max };
	size_t nk = sizeof(kinds) / sizeof(kinds[0]);

	/* dispatch on the kind: the i-th jeq jumps to the i-th block, nk on */
	load(&p, OFF_WHAT);
	for (size_t i = 0; i < nk; i++)
		emit(&p, BPF_JMP | BPF_JEQ | BPF_K, htonl(kinds[i]), (uint8_t)nk, 0);
	ret(&p, false); /* acks, comm, sid, ptrace, coredump, ... */
	ret(&p, w->exec);
	ret(&p, w->uid);
	ret(&p, w->gid);
	/* the two blocks of their own start with a jump out of the list */
	size_t to_fork = p.n, to_exit = p.n + 1;
	emit(&p, BPF_JMP | BPF_JA, 0, 0, 0);
	emit(&p, BPF_JMP | BPF_JA, 0, 0, 0);
	if (to_exit < max)
		code[to_fork].k = (uint32_t)(p.n - to_fork - 1);
	fork_block(&p, w->forks);
	if (to_exit < max)
		code[to_exit].k = (uint32_t)(p.n - to_exit - 1);
	exit_block(&p, w);
	return p.n > max ? -E2BIG : (int)p.n;
}

int
procev_want_attach(int fd, const struct procev_want *w)
{
	size_t max = 64 + 2 * 2 * (PROCEV_TRACK_MAX + 1);
	struct sock_filter *code = calloc(max, sizeof(*code));
	int n, rc = 0;

	if (code == NULL)
		return -ENOMEM;
	if ((n = procev_filter_build(w, code, max)) < 0) {
		free(code);
		return n;
	}
	struct sock_fprog prog = { .len = (unsigned short)n, .filter = code };
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
		rc = -errno;
	free(code);
	return rc;
}
