/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * helper.c -- the Lua helper process as the caller sees it: start it,
 * talk to it with a deadline, serve what it asks for during a call,
 * kill and reap it.
 *
 * The helper is followed through a pidfd: signals go to that process
 * and no other even if a SIGCHLD handler elsewhere has reaped it and
 * its pid was reused.  Every wait here is bounded.
 */
#include "hooks_private.h"
#include "util/util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REAP_WAIT_MS 1000 /* for a SIGKILLed helper to go */

/* A pidfd for pid, or -errno. */
static int
pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	return fd >= 0 ? fd : -errno;
#else
	(void)pid;
	return -ENOSYS;
#endif
}

/* SIGKILL to the process of pidfd; 0 or -errno. */
static int
pidfd_kill(int pidfd)
{
#ifdef SYS_pidfd_send_signal
	return syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) == 0 ? 0 : -errno;
#else
	(void)pidfd;
	return -ENOSYS;
#endif
}

/* Reap the helper if it is gone; true when it is (or is not ours). */
static bool
reap(struct hooks *h)
{
	siginfo_t si = { 0 };
	int rc;

	if (h->pidfd >= 0)
		rc = waitid(P_PIDFD, (id_t)h->pidfd, &si, WEXITED | WNOHANG);
	else
		rc = waitid(P_PID, (id_t)h->pid, &si, WEXITED | WNOHANG);
	if (rc < 0)
		return true; /* ECHILD: someone else reaped it */
	return si.si_pid != 0;
}

void
helper_stop(struct hooks *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	if (h->pid != -1 && h->owner == getpid()) {
		if (h->pidfd >= 0) {
			struct pollfd p = { .fd = h->pidfd, .events = POLLIN };

			(void)pidfd_kill(h->pidfd);
			(void)poll(&p, 1, REAP_WAIT_MS);
		} else if (!reap(h)) {
			kill(h->pid, SIGKILL); /* not reaped yet, so still ours */
			for (int i = 0; i < REAP_WAIT_MS && !reap(h); i++)
				usleep(1000);
		}
		if (!reap(h))
			hooks_log(h, HOOKS_WARNING,
				  "the Lua helper did not exit when killed");
	}
	if (h->pidfd >= 0)
		close(h->pidfd);
	h->pidfd = -1;
	h->pid = -1;
}

bool
helper_alive(struct hooks *h)
{
	if (h->fd < 0 || h->owner != getpid())
		return false;
	struct pollfd p = { .fd = h->fd, .events = 0 };
	return poll(&p, 1, 0) == 0; /* no POLLHUP or POLLERR */
}

int
helper_send(struct hooks *h, const void *buf, size_t len)
{
	/* never blocks: a helper that does not read is a dead one */
	if (send(h->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

/* ---- serving the helper's requests ----------------------------------- */

static const char *
ask_string(struct hooks *h, unsigned what, int64_t id, const char *key)
{
	const struct hooks_task *t = h->cur;

	switch (what) {
	case ASK_USER:
		return h->opts.user_name ? h->opts.user_name(h->opts.arg, (uid_t)id)
					 : NULL;
	case ASK_GROUP:
		return h->opts.group_name ? h->opts.group_name(h->opts.arg, (gid_t)id)
					  : NULL;
	case ASK_CGROUP:
		return t != NULL && t->cgroup != NULL && key != NULL
			       ? t->cgroup(t->arg, key)
			       : NULL;
	default:
		return NULL;
	}
}

/* The command line, read once per call and only if asked for: its
 * length, or -ENOENT when the task has none to give. */
static int
ask_cmdline(struct hooks *h, const void **p)
{
	const struct hooks_task *t = h->cur;

	if (t == NULL || t->cmdline == NULL)
		return -ENOENT;
	if (h->cmdlen < 0) {
		int n = t->cmdline(t->arg, h->cmdline, HOOKS_CMDLINE_MAX);
		h->cmdlen = n < 0 ? 0 : n > HOOKS_CMDLINE_MAX ? HOOKS_CMDLINE_MAX : n;
	}
	*p = h->cmdline;
	return h->cmdlen;
}

static int
serve_ask(struct hooks *h, struct rbuf *r)
{
	unsigned what = rget_u8(r);
	int64_t id = rget_i64(r);
	const char *key = rget_str(r);
	unsigned char out[HOOKS_DEST_MAX * 4 + 64];
	struct wbuf w = { .p = out, .cap = sizeof(out) };
	const void *bytes = NULL;
	int len = -1;

	if (r->bad || r->off != r->len)
		return -EPROTO;
	if (what == ASK_CMDLINE) {
		len = ask_cmdline(h, &bytes);
		w.p = h->msg; /* the request is read: the buffer is free */
		w.cap = HOOKS_MSG_MAX;
	} else if ((bytes = ask_string(h, what, id, key)) != NULL) {
		len = (int)strnlen(bytes, HOOKS_DEST_MAX * 4);
	}
	wput_u8(&w, W_REPLY);
	wput_u8(&w, len >= 0);
	wput_bytes(&w, bytes, len > 0 ? (size_t)len : 0);
	return w.full ? -EPROTO : helper_send(h, w.p, w.len);
}

static void
serve_log(struct hooks *h, struct rbuf *r)
{
	unsigned level = rget_u8(r);
	size_t len;
	const char *m = rget_bytes(r, &len);
	char line[HOOKS_TEXT_MAX];

	if (r->bad || level > HOOKS_DEBUG || ++h->nlogs > HOOKS_LOGS_MAX)
		return; /* a hook cannot flood the daemon's log */
	wire_clean(line, sizeof(line), m, len);
	hooks_log(h, (enum hooks_level)level, line);
}

/* Why the helper went away, after reaping it. */
static void
describe_death(struct hooks *h, char *err, size_t errlen)
{
	siginfo_t si = { 0 };
	int rc = -1;

	for (int i = 0; i < 100 && rc < 0; i++) {
		if (h->pidfd >= 0)
			rc = waitid(P_PIDFD, (id_t)h->pidfd, &si, WEXITED | WNOHANG);
		else
			rc = waitid(P_PID, (id_t)h->pid, &si, WEXITED | WNOHANG);
		if (rc == 0 && si.si_pid == 0) {
			rc = -1; /* not yet */
			usleep(1000);
		} else if (rc < 0)
			break;
	}
	if (rc == 0 && si.si_code == CLD_EXITED)
		snprintf(err, errlen, "the Lua helper exited with status %d",
			 si.si_status);
	else if (rc == 0)
		snprintf(err, errlen, "the Lua helper was killed by signal %d",
			 si.si_status);
	else
		snprintf(err, errlen, "the Lua helper went away");
	h->pid = -1; /* reaped, or not ours to reap */
}

/* The helper's CPU time in ms into *ms; 0, or -ENOTSUP (no CPU clock)
 * or clock_gettime()'s -errno. */
static int
helper_cpu_ms(struct hooks *h, double *ms)
{
	struct timespec ts;

	if (!h->has_cpuclock)
		return -ENOTSUP;
	if (clock_gettime(h->cpuclock, &ts) < 0)
		return -errno;
	*ms = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
	return 0;
}

/*
 * How long poll() may sleep before the limits must be checked again;
 * 0 when a limit is reached (*rc says which).  The CPU limit is what
 * stops a stalled hook; the wall-clock limit stops a helper that gets
 * no CPU at all (a busy machine, or a SIGSTOP from another process of
 * its user) without mistaking a starved helper for a stalled one.
 */
static int
next_wait(struct hooks *h, double start, double cpu0, long cpu_ms, long wall_ms, int *rc)
{
	double wall = (mono_s() - start) * 1e3, left;

	if (wall >= wall_ms) {
		*rc = -ETIME;
		return 0;
	}
	if (wall < cpu_ms) {
		left = cpu_ms - wall; /* it cannot have used more CPU than that */
	} else {
		double now;
		double used =
			cpu0 >= 0 && helper_cpu_ms(h, &now) == 0 ? now - cpu0 : wall;
		if (used >= cpu_ms) {
			*rc = -ETIMEDOUT;
			return 0;
		}
		left = cpu_ms - used;
	}
	if (left > wall_ms - wall)
		left = wall_ms - wall;
	return (int)left + 1;
}

static ssize_t
wait_loop(struct hooks *h, long cpu_ms, long wall_ms, char *err, size_t errlen)
{
	double start = mono_s(), cpu0;

	if (helper_cpu_ms(h, &cpu0) < 0)
		cpu0 = -1; /* unknown: the clock stands in for the CPU time */

	for (;;) {
		struct pollfd p = { .fd = h->fd, .events = POLLIN };
		int wait, rc = 0;

		if ((wait = next_wait(h, start, cpu0, cpu_ms, wall_ms, &rc)) == 0)
			return rc;
		rc = poll(&p, 1, wait);
		if (rc < 0 && errno != EINTR)
			return -EPIPE;
		if (rc <= 0)
			continue;
		ssize_t len =
			recv(h->fd, h->msg, HOOKS_MSG_MAX, MSG_DONTWAIT | MSG_TRUNC);
		if (len < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (len <= 0) {
			describe_death(h, err, errlen);
			return -EPIPE;
		}
		if (len > HOOKS_MSG_MAX) {
			snprintf(err, errlen, "the Lua helper sent an oversized message");
			return -EPROTO;
		}
		struct rbuf r = { .p = h->msg, .len = (size_t)len };
		switch (rget_u8(&r)) {
		case W_LOG:
			serve_log(h, &r);
			break;
		case W_ASK:
			if (serve_ask(h, &r) < 0) {
				snprintf(err, errlen,
					 "the Lua helper sent a bad request");
				return -EPROTO;
			}
			break;
		default:
			return len;
		}
	}
}

ssize_t
helper_wait(struct hooks *h, long cpu_ms, char *err, size_t errlen)
{
	h->nlogs = 0;
	ssize_t len = wait_loop(h, cpu_ms, cpu_ms * HOOKS_WALL_FACTOR, err, errlen);
	if (h->nlogs > HOOKS_LOGS_MAX) {
		char m[128];
		snprintf(m, sizeof(m),
			 "Lua hook: %u more log lines dropped (at most %d a call)",
			 h->nlogs - HOOKS_LOGS_MAX, HOOKS_LOGS_MAX);
		hooks_log(h, HOOKS_WARNING, m);
	}
	return len;
}

/* ---- starting ------------------------------------------------------------- */

/* After the helper's first message: 0 (loaded), or -ECANCELED (the
 * script failed to load) or -EPROTO, with err saying why. */
static int
loaded(struct hooks *h, ssize_t len, bool *has_classify, char *err, size_t errlen)
{
	struct rbuf r = { .p = h->msg, .len = (size_t)len };
	size_t mlen;
	const char *m;

	switch (rget_u8(&r)) {
	case W_LOADED:
		*has_classify = rget_u8(&r) != 0;
		if (!r.bad && r.off == r.len)
			return 0;
		break;
	case W_FAILED:
		m = rget_bytes(&r, &mlen);
		if (!r.bad) {
			wire_clean(err, errlen, m, mlen);
			return -ECANCELED;
		}
		break;
	default:
		break;
	}
	snprintf(err, errlen, "%s: the Lua helper broke the protocol", h->script);
	return -EPROTO;
}

int
helper_start(struct hooks *h, bool *has_classify, char *err, size_t errlen)
{
	int sv[2];
	long load_ms = h->timeout_ms * 10; /* CPU time; wall-clock 10 x that */

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		int rc = -errno;

		snprintf(err, errlen, "%s: socketpair: %s", h->script, strerror(-rc));
		return rc;
	}
	/* room for the largest message even where the default is small
	 * (the kernel caps this at wmem_max; failing is harmless) */
	int sndbuf = 2 * HOOKS_MSG_MAX;
	(void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	(void)setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	/* no signal handler of the caller may run in the helper before it
	 * has reset them all: block signals across the fork */
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	h->owner = getpid();
	pid_t pid = fork();
	int fork_rc = pid < 0 ? -errno : 0;
	if (pid != 0)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		snprintf(err, errlen, "%s: cannot start the Lua helper: %s", h->script,
			 strerror(-fork_rc));
		close(sv[0]);
		close(sv[1]);
		return fork_rc;
	}
	if (pid == 0) {
		close(sv[0]);
		child_main(h, sv[1]);
	}
	close(sv[1]);
	h->fd = sv[0];
	h->pid = pid;
	int pidfd = pidfd_open_(pid);
	h->pidfd = pidfd >= 0 ? pidfd : -1; /* without one, the pid is used */
	h->has_cpuclock = clock_getcpuclockid(pid, &h->cpuclock) == 0;
	h->cur = NULL;

	char why[HOOKS_TEXT_MAX];
	ssize_t len = helper_wait(h, load_ms, why, sizeof(why));
	if (len == -ETIMEDOUT)
		snprintf(
			err, errlen,
			"%s: not loaded within %ld ms (10 x lua-timeout): the main chunk or init() is stuck or too slow",
			h->script, load_ms);
	else if (len == -ETIME)
		snprintf(
			err, errlen,
			"%s: not loaded within %ld ms: the Lua helper got too little CPU time",
			h->script, load_ms * HOOKS_WALL_FACTOR);
	else if (len < 0)
		snprintf(err, errlen, "%s: %s", h->script, why);
	int rc = len < 0 ? (int)len : loaded(h, len, has_classify, err, errlen);
	if (rc < 0)
		helper_stop(h);
	return rc;
}
