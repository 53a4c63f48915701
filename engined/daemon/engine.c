/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c -- the event loop, and nothing else: it turns watchers into
 * calls of the core (core.h) and of the two socket servers.
 *
 *   proc connector or BPF   ──▶ core_event() per event of both sockets
 *   ring buffer readable        and of the BPF program's ring buffer,
 *                               core_batch_done() (then, if it only queued
 *                               uid/gid changes, a short sleep and one
 *                               more read)
 *   core_sync_wants()       ──▶ want_events_cb: the kernel's filters
 *   SIGHUP/SIGUSR1/SIGUSR2  ──▶ core_reload() (the control socket's reload
 *                               is the same call; the core calls back
 *                               reloading_cb and apply_cb for both)
 *   nftables notification   ──▶ core_nft_changed() (only while the policy
 *                               names nft sets)
 *   SIGTERM/SIGINT          ──▶ leave the loop
 *   before each wait        ──▶ core_sync_wants(), and arm one timer at
 *                               core_next_deadline()
 *   that timer              ──▶ core_timeout()
 *   PID 1's answers         ──▶ sdplace_process() (backend systemd: the
 *                               sd-bus descriptor and its deadline are
 *                               watched like any other), which reports
 *                               to core_move_done() / core_moves_lost()
 *                               / core_group_made() (a unit started)
 *                               / core_group_removed() (a unit gone)
 *
 * It makes the backends the core is handed (engined/backend/backend.h):
 * the cgroupfs one and the kernel's nft sets at start, the systemd one
 * when a policy asks for it (backend_cb), and frees them after the core.
 */
#include "daemon.h"
#include "dbus.h"
#include "foreground.h"
#include "gateloop.h"
#include "engined/backend/systemd/sdplace.h"
#include "engined/backend/systemd/sdunit.h"
#include "util/util.h"

#include <errno.h>
#include <ev.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH_READS	16 /* recvmmsg() calls per wake-up */
#define EVENTS_PER_READ 64
/*
 * After a wake-up that only queued uid/gid changes (setresgid,
 * setresuid: the exec usually follows within microseconds), the daemon
 * sleeps this long and reads once more, so the exec and any other
 * event arriving meanwhile cost one wake-up instead of one each.  The
 * sleep is a plain clock_nanosleep() inside the callback: a libev timer
 * cannot wait less than a millisecond with the epoll backend (it rounds
 * up to epoll_wait's resolution), and stopping the watcher meanwhile
 * cost two epoll_ctl() calls and a wake-up for the events that arrived.
 */
#define HOLD_OFF_NS	200000
#define NSIGNALS	5

/*
 * Credential changes (UID and GID events) come on a socket of their own.
 * While processes are exec'd one after another -- a wake-up for an EXEC
 * less than BUSY_GAP after the one before -- that socket is not watched:
 * each EXEC's wake-up reads it too (after the EXEC's socket, so a uid
 * change that came before an exec is always seen with it), and a spawn
 * that drops privileges, then execs, costs one wake-up instead of two.
 * A timer reads it BUSY_GAP after the last such wake-up and watches it
 * again, so a uid change without exec waits at most that long.  When the
 * BPF program takes them (ids_bpf), it holds them the same way
 * (bpfexec_hold_ids).
 */
#define BUSY_GAP 0.050

/*
 * The BPF program writes records without waking the daemon while it
 * reads them (bpfexec_awake).  One that read the flag just before the
 * daemon cleared it, and was written just after the daemon's last look,
 * is not left waiting: the program looks at the flag again after
 * writing and then wakes the daemon (exec.bpf.c), so no timer is needed.
 */

struct engine {
	struct ev_loop *loop;
	struct engine_options opts;
	struct core *core;
	struct procev *pe;  /* EXEC, and FORK and EXIT when the core wants them */
	struct procev *ids; /* UID and GID */
	bool ids_bpf;	    /* ... handed to the BPF program by its filter: never read */
	struct server *sticky; /* sticky.c's */
	struct control_server *control;
	char *pidfile; /* as at start: a reload does not move it */
	ev_io pe_watcher;
	ev_io ids_watcher; /* stopped while busy */
	ev_timer ids_timer; /* ends a busy spell */
	double last_exec;   /* the last wake-up that read an EXEC (or FORK, EXIT) */
	ev_signal sigs[NSIGNALS];
	ev_timer core_timer;
	ev_prepare prepare;
	ev_io nft_watcher; /* nf_tables' notifications, while nft_fd >= 0 */
	int nft_fd;
	int ready_fd;
	bool ids_wanted; /* the core wants UID or GID events */
	bool pe_wanted;	 /* pe delivers some (with BPF: FORK or EXIT asked for) */
	struct cgroupfs *fs; /* the cgroupfs backend, and the kernel's nft sets */
	struct sdplace *sd; /* the systemd backend, when the policy asks for it */
	ev_io sd_watcher;   /* its sd-bus descriptor (fd -1: not watched) */
	ev_timer sd_timer;  /* its deadline (a call's timeout, a reconnection) */
	struct door *door;  /* the D-Bus door (dbus.c), unless dbus is "no" */
	ev_io door_watcher;
	ev_timer door_timer;
	struct foreground fg;  /* the foreground: the door's and GNOME's */
	struct gnomefg *gnome; /* GNOME's app scopes (gnomefg.c), if watched */
	ev_io fg_watcher;      /* the users' managers (foreground.h), when asked */
	ev_timer fg_timer;
	ev_io gnome_watcher;
	struct gateloop *gate; /* the exec gate, while exec-gate is set */
	struct bpfexec *bpf;   /* the eBPF event source: EXEC (NULL: the connector's) */
	ev_io bpf_watcher;
	ev_timer watchdog;     /* WATCHDOG=1 to systemd (WatchdogSec=) */
};

/* Read and feed to the core every event waiting on p; how many. */
static size_t
drain_one(struct engine *e, struct procev *p, double now)
{
	struct procev_event ev[EVENTS_PER_READ];
	size_t got = 0;

	for (int i = 0; i < BATCH_READS; i++) {
		int n = procev_recv(p, ev, EVENTS_PER_READ);

		if (n == -EAGAIN)
			break;
		if (n == -ENOBUFS) {
			int size = procev_grow(p);
			log_warning(
				"kernel dropped process events; receive buffer now %d bytes, rescanning",
				size);
			core_lost_events(e->core, now);
			continue;
		}
		if (n < 0) {
			log_error("proc connector: %s", strerror(-n));
			break;
		}
		for (int k = 0; k < n; k++)
			core_event(e->core, &ev[k], now);
		got += (size_t)n;
		if (procev_drained(p))
			break; /* saves the recvmmsg() that would say EAGAIN */
		if (gateloop_waiting(e->gate))
			break; /* held execs first: the rest at the next wake-up */
	}
	return got;
}

/* Read and feed to the core every exec the BPF program sent; how many. */
static size_t
drain_bpf(struct engine *e, double now)
{
	struct procev_event ev[EVENTS_PER_READ];
	size_t got = 0;

	for (int i = 0; e->bpf != NULL && i < BATCH_READS; i++) {
		int n = bpfexec_recv(e->bpf, ev, EVENTS_PER_READ);

		if (n == -EAGAIN)
			break;
		if (n == -ENOBUFS) {
			log_warning("kernel dropped process events: the BPF ring buffer was "
				    "full; rescanning");
			core_lost_events(e->core, now);
			continue;
		}
		if (n < 0) {
			log_error("BPF ring buffer: %s", strerror(-n));
			break;
		}
		for (int k = 0; k < n; k++)
			core_event(e->core, &ev[k], now);
		got += (size_t)n;
		if (bpfexec_drained(e->bpf) || gateloop_waiting(e->gate))
			break;
	}
	return got;
}

/*
 * Every source, the EXEC's first (with BPF: the connector's FORK and
 * EXIT, then the execs): a uid or gid change made before an exec was
 * queued before it, so it is read in the same batch.  Then end the
 * batch.  Returns the events read before the credential changes.  pe
 * is read when it delivers some, or woke the loop (pe set).
 */
static size_t
drain(struct engine *e, double now, bool pe)
{
	size_t n = pe || e->pe_wanted ? drain_one(e, e->pe, now) : 0;

	n += drain_bpf(e, now);

	if (e->ids_wanted)
		(void)drain_one(e, e->ids, now);
	core_batch_done(e->core, now);
	return n;
}

/* A wake-up read execs: busy if the one before was recent. */
static void
note_execs(struct engine *e, double now)
{
	if ((e->ids_wanted || e->ids_bpf) && now - e->last_exec < BUSY_GAP) {
		if (e->ids_bpf) /* the BPF program's way of not watching them */
			bpfexec_hold_ids(e->bpf, true);
		if (ev_is_active(&e->ids_watcher))
			ev_io_stop(e->loop, &e->ids_watcher);
		e->ids_timer.repeat = BUSY_GAP;
		ev_timer_again(e->loop, &e->ids_timer);
	}
	e->last_exec = now;
}

static void
procev_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct engine *e = w->data;
	uint64_t classified = core_stats(e->core)->classified;

	if (e->bpf != NULL)
		bpfexec_awake(e->bpf, true);
	size_t execs = drain(e, ev_now(loop), w == &e->pe_watcher);

	if (core_stats(e->core)->classified == classified && core_waiting_exec(e->core)) {
		/* only uid/gid changes: give their exec a moment, once per wake-up */
		struct timespec hold = { .tv_sec = 0, .tv_nsec = HOLD_OFF_NS };
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &hold, &hold) == EINTR)
			;
		ev_now_update(loop);
		execs += drain(e, ev_now(loop), false);
	}
	if (e->bpf != NULL) {
		/* asleep from here: what came meanwhile wakes it, or is read now */
		bpfexec_awake(e->bpf, false);
		if (drain_bpf(e, ev_now(loop)) > 0) {
			core_batch_done(e->core, ev_now(loop));
			execs++;
		}
	}
	if (execs > 0)
		note_execs(e, ev_now(loop));
}

/* No exec for BUSY_GAP: read the credential changes, watch them again. */
static void
ids_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct engine *e = w->data;

	ev_timer_stop(loop, w);
	if (e->ids_bpf)
		bpfexec_hold_ids(e->bpf, false); /* then read what it held */
	(void)drain(e, ev_now(loop), false);
	if (e->ids_wanted)
		ev_io_start(loop, &e->ids_watcher);
}

/* Between two processes of a long piece of the core's work: held execs
 * first (core_env.between). */
static void
between_cb(void *arg)
{
	struct engine *e = arg;

	gateloop_between(e->gate);
}

/* The processes the core tracks: their execs pass the BPF filter. */
static void
track_bpf(struct engine *e, const struct procev_want *w)
{
	pid_t pids[2 * PROCEV_TRACK_MAX];
	size_t n = 0;
	int rc;

	if (w->ntrack == PROCEV_ALL || w->ngone == PROCEV_ALL ||
	    w->ntrack + w->ngone > sizeof(pids) / sizeof(pids[0])) {
		n = PROCEV_ALL;
	} else {
		memcpy(pids, w->track, w->ntrack * sizeof(pid_t));
		memcpy(pids + w->ntrack, w->gone, w->ngone * sizeof(pid_t));
		n = w->ntrack + w->ngone;
	}
	if ((rc = bpfexec_track(e->bpf, pids, n)) < 0)
		log_error("cannot tell the BPF program the tracked processes: %s (it passes "
			  "every exec)",
			  strerror(-rc));
}

/*
 * The kernel events the core needs: EXEC, FORK and EXIT on the first
 * socket, UID and GID on the other (which is not watched while there
 * are none to read).
 */
static void
want_events_cb(void *arg, const struct procev_want *w)
{
	struct engine *e = arg;
	struct procev_want execs = *w, ids = { .uid = w->uid, .gid = w->gid };
	int rc;

	execs.uid = execs.gid = false;
	if (e->bpf != NULL) { /* execs (and uid changes: ids_bpf) come from the BPF program */
		execs.exec = false;
		track_bpf(e, w);
		bpfexec_want_ids(e->bpf, w->uid, w->gid);
	}
	if ((rc = procev_want(e->pe, &execs)) < 0 ||
	    (!e->ids_bpf && (rc = procev_want(e->ids, &ids)) < 0))
		log_error("cannot filter process events: %s (more are read than needed)",
			  strerror(-rc));
	e->ids_wanted = !e->ids_bpf && (w->uid || w->gid);
	e->pe_wanted = rc < 0 || e->bpf == NULL || execs.forks || execs.ntrack > 0 ||
		       execs.ngone > 0;
	if (!e->ids_wanted && ev_is_active(&e->ids_watcher))
		ev_io_stop(e->loop, &e->ids_watcher);
	else if (e->ids_wanted && !ev_is_active(&e->ids_watcher) &&
		 !ev_is_active(&e->ids_timer))
		ev_io_start(e->loop, &e->ids_watcher);
}

static void
core_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct engine *e = w->data;

	core_timeout(e->core, ev_now(loop));
}

/* ---- the systemd backend's connection ------------------------------------------------- */

static void
sd_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct engine *e = w->data;

	sdplace_process(e->sd);
}

static void
sd_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct engine *e = w->data;

	sdplace_process(e->sd);
}

/* Before the loop waits: watch a bus connection's descriptor fd for
 * events (poll's) and wake up at its deadline at (monotonic us). */
static void
watch_bus(struct ev_loop *loop, ev_io *w, ev_timer *t, int fd, int events, uint64_t at)
{
	int want = (events & POLLIN ? EV_READ : 0) | (events & POLLOUT ? EV_WRITE : 0);

	if (fd != w->fd || want != (w->events & (EV_READ | EV_WRITE))) {
		ev_io_stop(loop, w);
		ev_io_set(w, fd, want ? want : EV_READ);
		if (fd >= 0)
			ev_io_start(loop, w);
	}
	ev_timer_stop(loop, t);
	if (at == UINT64_MAX)
		return;
	double wait = ((double)at - (double)(mono_ns() / 1000)) / 1e6;
	ev_timer_set(t, wait > 0 ? wait : 0, 0);
	ev_timer_start(loop, t);
}

/* Before the loop waits: send the slices noted, then watch the sd-bus
 * descriptor for what it needs and wake up at its deadline. */
static void
sd_prepare(struct engine *e, struct ev_loop *loop)
{
	if (e->sd == NULL)
		return;
	sdplace_flush(e->sd);
	watch_bus(loop, &e->sd_watcher, &e->sd_timer, sdplace_fd(e->sd), sdplace_events(e->sd),
		  sdplace_deadline(e->sd));
}

/* ---- the D-Bus door (dbus.c) ------------------------------------------------------------- */

static void
door_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct engine *e = w->data;

	dbus_process(e->door, ev_now(loop));
}

static void
door_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct engine *e = w->data;

	dbus_process(e->door, ev_now(loop));
}

static void
fg_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	foreground_process(&((struct engine *)w->data)->fg);
}

static void
fg_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	foreground_process(&((struct engine *)w->data)->fg);
}

static void
gnome_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct engine *e = w->data;

	gnomefg_process(e->gnome, ev_now(loop));
}

/* gnome-foreground: "no", "yes" (GNOMEFG_ROOT) or a directory; 0 or -1. */
static int
gnome_open(struct engine *e, const struct config *cfg)
{
	const char *root = strcmp(cfg->gnome_foreground, "yes") == 0 ? GNOMEFG_ROOT
								       : cfg->gnome_foreground;
	int rc;

	if (strcmp(root, "no") == 0)
		return 0;
	if (root[0] != '/') {
		log_error("gnome-foreground: \"%s\" is not \"yes\", \"no\" or a directory",
			  root);
		return -1;
	}
	if ((rc = gnomefg_new(&e->gnome, &e->fg, root)) < 0) {
		log_error("cannot watch GNOME's app scopes in %s: %s", root, strerror(-rc));
		return -1;
	}
	return 0;
}

static void
door_prepare(struct engine *e, struct ev_loop *loop)
{
	if (e->door != NULL)
		watch_bus(loop, &e->door_watcher, &e->door_timer, dbus_fd(e->door),
			  dbus_events(e->door), dbus_deadline(e->door));
	foreground_prepare(&e->fg);
	watch_bus(loop, &e->fg_watcher, &e->fg_timer, foreground_fd(&e->fg), POLLIN,
		  foreground_deadline(&e->fg));
}

static void
sd_done(void *arg, pid_t pid, int rc)
{
	struct engine *e = arg;

	core_move_done(e->core, pid, rc);
}

static void
sd_lost(void *arg)
{
	struct engine *e = arg;

	core_moves_lost(e->core, e->loop != NULL ? ev_now(e->loop) : 0);
}

static void
sd_made(void *arg, const char *path)
{
	struct engine *e = arg;

	core_group_made(e->core, path);
}

static void
sd_removed(void *arg, const char *path)
{
	struct engine *e = arg;

	core_group_removed(e->core, path);
}

/* The backend the policy asks for (core_env.backend): systemd's is
 * connected once, its root taken again at each reload. */
static int
backend_cb(void *arg, enum backend_kind kind, const char *root,
	   const struct backend **out)
{
	struct engine *e = arg;
	struct sdplace_hooks hooks = {
		.done = sd_done,
		.lost = sd_lost,
		.made = sd_made,
		.removed = sd_removed,
		.arg = e,
	};
	int rc;

	*out = NULL;
	if (kind != BACKEND_SYSTEMD)
		return 0;
	if (e->sd == NULL && (rc = sdplace_new(&e->sd, &hooks)) < 0) {
		log_error("cannot connect to systemd (PID 1): %s", strerror(-rc));
		return rc;
	}
	if ((rc = sdplace_configure(e->sd, root)) < 0)
		return rc;
	*out = sdplace_table(e->sd);
	return 0;
}

int
engine_layout_root(enum backend_kind kind, const char *configured, char *out, size_t len,
		   const char **why)
{
	return kind == BACKEND_SYSTEMD ? sdunit_layout_root(configured, out, len, why)
				       : 0;
}

/* Before the loop waits: one timer at the core's next deadline. */
static void
prepare_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct engine *e = w->data;

	core_sync_wants(e->core); /* the events needed now, before waiting for them */
	sd_prepare(e, loop);
	door_prepare(e, loop);
	gateloop_prepare(e->gate);
	double at = core_next_deadline(e->core, ev_now(loop));

	ev_timer_stop(loop, &e->core_timer);
	if (at < 0)
		return;
	double wait = at - ev_now(loop);
	ev_timer_set(&e->core_timer, wait > 0 ? wait : 0, 0);
	ev_timer_start(loop, &e->core_timer);
}

/* ---- the nftables ruleset, while the policy names sets ------------------------------ */

static bool
nft_ours(void *arg, const struct nftset_ref *r)
{
	return core_nft_names(arg, r);
}

static void
nft_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct engine *e = w->data;
	int rc = nftset_monitor_read(e->nft_fd, core_nft_self(e->core), nft_ours, e->core);

	if (rc > 0)
		core_nft_changed(e->core, ev_now(loop));
	else if (rc < 0)
		log_debug("reading nftables notifications: %s", strerror(-rc));
}

/* Watch the ruleset when the policy names sets, stop when it does not. */
static void
nft_watch(struct engine *e)
{
	bool want = core_nft_wanted(e->core);

	if (want && e->nft_fd < 0) {
		int fd = nftset_monitor_open();
		if (fd < 0) {
			log_warning("cannot watch the nftables ruleset: %s; nft sets are filled "
				    "again only at start and reload",
				    strerror(-fd));
			return;
		}
		e->nft_fd = fd;
		ev_io_init(&e->nft_watcher, nft_cb, fd, EV_READ);
		e->nft_watcher.data = e;
		ev_io_start(e->loop, &e->nft_watcher);
	} else if (!want && e->nft_fd >= 0) {
		ev_io_stop(e->loop, &e->nft_watcher);
		close(e->nft_fd);
		e->nft_fd = -1;
	}
}

/* The BPF program's filter: the keys of the policy now in force. */
static void
filter_bpf(struct engine *e)
{
	struct execkeys k;
	int rc;

	if (e->bpf == NULL)
		return;
	if ((rc = core_execkeys(e->core, &k)) < 0 || (rc = bpfexec_filter(e->bpf, &k)) < 0)
		log_error("cannot filter execs in the kernel: %s (every exec is read)",
			  strerror(-rc));
	else if (k.wide)
		log_info("BPF filter: every exec is read (%s)", k.why);
	else
		log_info("BPF filter: execs of %zu uids, %zu gids, %zu names%s%s", k.nuids,
			 k.ngids, k.nnames, k.scripts ? " and of interpreters" : "",
			 k.nanames > 0 ? " and by ananicy's rule names" : "");
	execkeys_free(&k);
}

/* The loop's side of a configuration, at start and after every reload
 * that succeeded (the core calls it: one path, whoever asked). */
static void
apply_cb(void *arg, const struct config *cfg)
{
	struct engine *e = arg;

	self_priority(cfg);
	nft_watch(e);
	filter_bpf(e);
	gateloop_update(&e->gate, e->core, e->loop); /* the binaries to hold */
}

/* Around every reload: tell systemd; after it, trim the heap. */
static void
reloading_cb(void *arg, bool begin)
{
	if (!begin)
		self_trim();
	notify_systemd(begin ? "RELOADING=1" : "READY=1");
}

static void
signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct engine *e = w->data;

	switch (w->signum) {
	case SIGHUP:
	case SIGUSR1: /* libcgroup's daemon reloads templates on it */
	case SIGUSR2:
		core_reload(e->core, ev_now(loop));
		break;
	default:
		log_notice("signal %d: exiting", w->signum);
		ev_break(loop, EVBREAK_ALL);
		break;
	}
}

/* systemd's watchdog (WatchdogSec=): a ping per half period, from the
 * loop, so a stopped or stuck daemon is killed and restarted. */
static void
watchdog_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	notify_systemd("WATCHDOG=1");
}

static void
start_systemd_watchdog(struct engine *e)
{
	double every = notify_watchdog_interval();

	if (every <= 0)
		return;
	ev_timer_init(&e->watchdog, watchdog_cb, every, every);
	e->watchdog.data = e;
	ev_timer_start(e->loop, &e->watchdog);
	log_info("pinging systemd's watchdog every %.1f s", every);
}

/* ---- life cycle ------------------------------------------------------------ */

static void
log_report(void *arg, const char *msg)
{
	log_error("%s", msg);
}

/* The ring buffer of bpf-buffer's size: a power of two, 64 KiB to
 * 64 MiB, rounded down. */
static size_t
ringbuf_size(long want)
{
	size_t size = 64 << 10;

	while (size < (64u << 20) && (long)size * 2 <= want)
		size *= 2;
	return size;
}

/*
 * The source of EXEC events (event-source), before anything is scanned,
 * as the connector: the BPF program where it loads (auto, bpf), else
 * the connector's socket.  One line says which and why.
 */
static int
open_source(struct engine *e, const struct config *cfg)
{
	const char *key = cfg->event_source == EVENT_SOURCE_AUTO ? "auto"
			  : cfg->event_source == EVENT_SOURCE_BPF ? "bpf"
								  : "netlink";
	int rc;

	if (cfg->event_source == EVENT_SOURCE_NETLINK) {
		log_notice("event source: netlink (event-source = netlink)");
		return 0;
	}
	rc = bpfexec_open(&e->bpf, ringbuf_size(cfg->bpf_buffer));
	const char *why = rc == -EOPNOTSUPP ? "this build has no BPF support"
			  : rc == -EPROTO ? "its loader, a child process, ended without handing it over"
					  : strerror(-rc);
	if (rc == 0) {
		core_set_event_source(e->core, "bpf");
		log_notice("event source: bpf (event-source = %s)", key);
		if ((rc = bpfexec_ids(e->bpf)) >= 0 && (rc = procev_filter_bpf(e->ids, rc)) == 0)
			log_notice("uid and gid changes: bpf");
		else
			log_notice("uid and gid changes: netlink (their BPF filter did not load: %s)",
				 strerror(-rc));
		e->ids_bpf = rc == 0;
		return 0;
	}
	if (cfg->event_source == EVENT_SOURCE_BPF) {
		log_error("event-source = bpf: cannot load the BPF program: %s", why);
		return rc;
	}
	log_notice("event source: netlink (event-source = auto; the BPF program did not load: %s)",
		   why);
	return 0;
}

struct engine *
engine_new(const struct engine_options *opts)
{
	struct engine *e = calloc(1, sizeof(*e));
	struct report rep = { .fn = log_report };
	struct core_options co = { .ov = opts->ov,
				   .dry_run = opts->dry_run,
				   .env = { .want_events = want_events_cb,
					    .apply = apply_cb,
					    .reloading = reloading_cb,
					    .backend = backend_cb,
					    .between = between_cb,
					    .loop_arg = e } };
	int rc;

	if (e == NULL)
		return NULL;
	e->opts = *opts;
	e->ready_fd = -1;
	e->nft_fd = -1;
	if ((rc = cgroupfs_new(&e->fs)) < 0) {
		log_error("cannot start: %s", strerror(-rc));
		goto fail;
	}
	co.env.cgfs = cgroupfs_table(e->fs);
	co.env.nft = cgroupfs_nft(e->fs);
	co.env.prio = backend_prio_kernel();
	if ((e->core = core_new(&co, &rep)) == NULL)
		goto fail;
	e->fg.core = e->core;
	const struct config *cfg = core_config(e->core);
	if ((e->pidfile = strdup(cfg->pidfile)) == NULL)
		goto fail;
	/* subscribe before anything is scanned, so no exec is missed */
	if ((rc = procev_open(&e->pe, (int)cfg->netlink_buffer)) < 0) {
		log_error("cannot subscribe to the kernel's process events: %s%s",
			  strerror(-rc), rc == -EPERM ? " (run as root)" : "");
		goto fail;
	}
	/* only what the core needs (Linux >= 6.6; older kernels send all) */
	if ((rc = procev_open(&e->ids, (int)cfg->netlink_buffer)) < 0) {
		log_error("cannot subscribe to the kernel's process events: %s", strerror(-rc));
		goto fail;
	}
	if (open_source(e, cfg) < 0)
		goto fail;
	/* both get every event until core_start() says what it needs */
	if (cfg->sticky_socket[0] != '\0' &&
	    (e->sticky = sticky_open(cfg->sticky_socket, e->core)) == NULL)
		goto fail;
	if (cfg->control_socket[0] != '\0' &&
	    (e->control = control_open(cfg->control_socket, e->core)) == NULL)
		goto fail;
	if (strcmp(cfg->dbus, "no") != 0 && (rc = dbus_new(&e->door, e->core, &e->fg, cfg->dbus)) < 0) {
		log_error("cannot start the D-Bus door: %s", strerror(-rc));
		goto fail;
	}
	if (gnome_open(e, cfg) < 0)
		goto fail;
	return e;
fail:
	engine_free(e);
	return NULL;
}

void
engine_set_ready_fd(struct engine *e, int fd)
{
	e->ready_fd = fd;
}

static void
start_watchers(struct engine *e)
{
	static const int nums[NSIGNALS] = { SIGHUP, SIGUSR1, SIGUSR2, SIGTERM, SIGINT };

	for (size_t i = 0; i < NSIGNALS; i++) {
		ev_signal_init(&e->sigs[i], signal_cb, nums[i]);
		e->sigs[i].data = e;
		ev_signal_start(e->loop, &e->sigs[i]);
	}
	ev_io_init(&e->pe_watcher, procev_cb, procev_fd(e->pe), EV_READ);
	e->pe_watcher.data = e;
	ev_io_start(e->loop, &e->pe_watcher);
	ev_io_init(&e->ids_watcher, procev_cb, procev_fd(e->ids), EV_READ);
	e->ids_watcher.data = e;
	e->ids_wanted = !e->ids_bpf; /* until the core says otherwise */
	e->pe_wanted = true;
	if (e->ids_wanted)
		ev_io_start(e->loop, &e->ids_watcher);
	if (e->bpf != NULL) {
		ev_io_init(&e->bpf_watcher, procev_cb, bpfexec_fd(e->bpf), EV_READ);
		e->bpf_watcher.data = e;
		ev_io_start(e->loop, &e->bpf_watcher);
	}
	ev_init(&e->ids_timer, ids_timer_cb);
	e->ids_timer.data = e;
	e->last_exec = -1;
	ev_init(&e->core_timer, core_timer_cb);
	e->core_timer.data = e;
	ev_prepare_init(&e->prepare, prepare_cb);
	e->prepare.data = e;
	ev_prepare_start(e->loop, &e->prepare);
	ev_io_init(&e->sd_watcher, sd_cb, -1, EV_READ);
	e->sd_watcher.data = e;
	ev_init(&e->sd_timer, sd_timer_cb);
	e->sd_timer.data = e;
	ev_io_init(&e->door_watcher, door_cb, -1, EV_READ);
	e->door_watcher.data = e;
	ev_init(&e->door_timer, door_timer_cb);
	e->door_timer.data = e;
	ev_io_init(&e->fg_watcher, fg_cb, -1, EV_READ);
	e->fg_watcher.data = e;
	ev_init(&e->fg_timer, fg_timer_cb);
	e->fg_timer.data = e;
	if (e->gnome != NULL) {
		ev_io_init(&e->gnome_watcher, gnome_cb, gnomefg_fd(e->gnome), EV_READ);
		e->gnome_watcher.data = e;
		ev_io_start(e->loop, &e->gnome_watcher);
	}
	if (e->sticky != NULL)
		sticky_start(e->sticky, e->loop);
	if (e->control != NULL)
		control_start(e->control, e->loop);
}

static void
tell_ready(struct engine *e)
{
	notify_systemd("READY=1");
	if (e->ready_fd >= 0) {
		if (write(e->ready_fd, "1", 1) != 1)
			log_debug("the starting parent has gone");
		close(e->ready_fd);
		e->ready_fd = -1;
	}
}

int
engine_run(struct engine *e)
{
	if ((e->loop = ev_default_loop(EVFLAG_AUTO)) == NULL) {
		log_error("cannot initialise the event loop");
		return 1;
	}
	if (pidfile_write(e->pidfile) < 0)
		return 1;
	start_watchers(e);
	start_systemd_watchdog(e);
	/* logs the policy, calls apply_cb (nice, the nftables watcher: before
	 * the sets are first filled, so no change is missed; the exec gate:
	 * its marks before the scan, as the proc connector), then scans */
	core_start(e->core, ev_now(e->loop));
	self_trim();
	if (e->gnome != NULL) /* the scopes there: is one focused already? */
		gnomefg_process(e->gnome, ev_now(e->loop));
	log_notice("ready: running processes classified (%llu moves)",
		   (unsigned long long)core_stats(e->core)->moves);
	tell_ready(e);
	ev_run(e->loop, 0);
	notify_systemd("STOPPING=1");
	gateloop_free(e->gate, e->loop); /* first: whatever it holds goes on */
	e->gate = NULL;
	core_stop(e->core);
	if (e->sticky != NULL)
		sticky_close(e->sticky, e->loop);
	e->sticky = NULL;
	control_close(e->control);
	e->control = NULL;
	dbus_free(e->door); /* its foreground grant ends: nobody watches its caller */
	e->door = NULL;
	gnomefg_free(e->gnome);
	e->gnome = NULL;
	foreground_end(&e->fg, 0, "the daemon stops");
	foreground_close(&e->fg, 2.0); /* the managers take the values restored */
	pidfile_remove(e->pidfile);
	log_notice("stopped");
	return 0;
}

const struct config *
engine_config(const struct engine *e)
{
	return core_config(e->core);
}

void
engine_free(struct engine *e)
{
	if (e == NULL)
		return;
	if (e->sticky != NULL)
		sticky_close(e->sticky, NULL);
	control_close(e->control);
	dbus_free(e->door);
	gnomefg_free(e->gnome);
	foreground_close(&e->fg, 0);
	gateloop_free(e->gate, e->loop);
	procev_close(e->pe);
	procev_close(e->ids);
	bpfexec_close(e->bpf);
	if (e->nft_fd >= 0)
		close(e->nft_fd);
	core_free(e->core);
	sdplace_free(e->sd); /* after the core: nothing calls the tables any more */
	cgroupfs_free(e->fs);
	free(e->pidfile);
	free(e);
}
