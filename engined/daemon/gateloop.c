/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gateloop.c -- the exec gate's watchers (see gateloop.h):
 *
 *   fanotify readable ──▶ every held exec waiting, read: its user's
 *                         (the process's real uid) while the user holds
 *                         fewer than GATE_USER_BUDGET, in a watchdog
 *                         slot and the user's queue (fairq.h); beyond
 *                         that, answered at once and placed after its
 *                         exec, counted as over budget
 *                     ──▶ the queues served one exec of each user in
 *                         turn: its binary by (device, inode),
 *                         core_gate_exec(), the answer (always
 *                         FAN_ALLOW); what came meanwhile read after
 *                         each, so one user's burst delays another's
 *                         exec by one placement at most
 *   inotify readable  ──▶ a name the rules hold made, renamed into
 *                         place or removed in a marked binary's
 *                         directory: marked again (dpkg installs
 *                         foo.dpkg-new and renames it over foo; the new
 *                         inode has no mark)
 *
 * The daemon's memory is locked while the gate is open: a page fault
 * waiting on the disk would hold every gated exec with it.  The daemon
 * and its Lua helper never exec anything (an exec of a gated binary
 * would wait on itself).
 *
 * Two test hooks, in the daemon's environment:
 *   CGENGINED_GATE_STALL_MS=N  the loop sleeps N ms after reading each
 *                              batch of held execs, as a loop stuck
 *                              elsewhere would (tests/daemon/exec-gate-t.sh)
 *   CGENGINED_GATE_BOUND_MS=N  the watchdog's bound is N ms (from
 *                              GATE_BOUND_MS to 10000): a test of what
 *                              the loop does, not of how fast this
 *                              machine's moves are (gate-fair-t.sh)
 */
#include "gateloop.h"
#include "daemon.h"
#include "fairq.h"
#include "kernel/kernel.h"

#include <errno.h>
#include <ev.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BATCH WATCHDOG_SLOTS
/* Held execs of one user at most; the others are answered at once. */
#define GATE_USER_BUDGET 16
/* Execs placed per callback, reading what came after each: then the
 * loop's other watchers get their turn (the queues are emptied first). */
#define SERVE_READING WATCHDOG_SLOTS
/* Seconds after held execs were read during which a long piece of other
 * work asks between any two of its items whether more wait (a poll()
 * each); otherwise at most once per GATE_QUIET_ASK_NS. */
#define GATE_BUSY_SPELL	  1.0
#define GATE_QUIET_ASK_NS 5000000u

/* A binary the rules name. */
struct mark {
	char *path;	  /* as the rules name it */
	const char *name; /* its last component, inside path */
	char *real;	  /* what /proc/PID/exe will show (links resolved) */
	int wd;		  /* its directory's watch, or -1 */
	bool marked;
	uint64_t dev, ino;
	uint64_t mnt_id; /* the mount its path reaches it through (set-id only) */
};

/* (device, inode) -> the mark. */
struct ino_entry {
	uint64_t dev, ino;
	size_t mark;
};

/* path -> nothing: the paths wanted, each once. */
struct path_entry {
	const char *path;
};

struct gateloop {
	struct core *core;
	struct ev_loop *loop;
	int gfd, ifd;
	ev_io gate_w, dirs_w;
	struct watchdog *wd;
	struct mark *marks;
	size_t n, cap;
	struct map byino;
	struct map bypath; /* while marks are made */
	struct gate_state state;
	long stall_ms; /* the test hook */
	double busy_until; /* loop time: held execs were read lately */
	uint64_t asked_ns; /* gateloop_between() last asked (mono_ns) */
	struct fairq queue;			  /* the held execs' slots, per user */
	struct execgate_event held[WATCHDOG_SLOTS]; /* by slot */
	char buf[BATCH * 32];
};

static bool
path_eq(const void *value, const void *probe)
{
	return strcmp(((const struct path_entry *)value)->path, probe) == 0;
}

static uint64_t
ino_hash(uint64_t dev, uint64_t ino)
{
	return ino * 0x9e3779b97f4a7c15ull ^ dev;
}

static bool
ino_eq(const void *value, const void *probe)
{
	const struct ino_entry *a = value, *b = probe;

	return a->dev == b->dev && a->ino == b->ino;
}

static struct mark *
mark_of(struct gateloop *g, uint64_t dev, uint64_t ino)
{
	struct ino_entry probe = { .dev = dev, .ino = ino };
	const struct ino_entry *e =
		map_find(&g->byino, ino_hash(dev, ino), ino_eq, &probe);

	return e != NULL ? &g->marks[e->mark] : NULL;
}

static void
publish(struct gateloop *g)
{
	size_t marked = 0;

	for (size_t i = 0; i < g->n; i++)
		marked += g->marks[i].marked;
	g->state.marked = marked;
	g->state.wanted = g->n;
	core_gate_set_state(g->core, &g->state);
}

/* ---- held execs --------------------------------------------------------------------- */

static void
stall(const struct gateloop *g)
{
	struct timespec ts = { .tv_sec = g->stall_ms / 1000,
			       .tv_nsec = g->stall_ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Decide and move for one held exec (the caller answers it). */
static void
place(struct gateloop *g, const struct execgate_event *ev, double now)
{
	struct execgate_file f;
	const struct mark *m = NULL;

	if (execgate_stat(ev->fd, &f) == 0)
		m = mark_of(g, f.dev, f.ino);
	/* the kernel applies set-id bits only for a mount of the exec'ing
	 * process's namespace: one the daemon's path does not reach it
	 * through (another namespace's, by /proc/PID/root) may not be */
	if (m != NULL && (f.mode & (S_ISUID | S_ISGID)) &&
	    (f.mnt_id == 0 || f.mnt_id != m->mnt_id))
		f.foreign = true;
	struct gate_exec x = { .pid = ev->pid,
			       .path = m != NULL ? m->real : NULL,
			       .file = &f,
			       .pidfd = ev->pidfd };
	(void)core_gate_exec(g->core, &x, now);
}

/* Hold ev in a slot and its user's queue, or answer it at once when the
 * user holds its budget already (or every slot is taken): over budget. */
static bool
hold(struct gateloop *g, const struct execgate_event *ev)
{
	uid_t uid;
	int slot = -1;

	if (task_real_uid("/proc", ev->pid, &uid) < 0)
		uid = (uid_t)-1; /* gone, or unknown: a queue of their own */
	if (fairq_room(&g->queue, uid))
		slot = watchdog_hold(g->wd, ev->fd);
	if (slot < 0) {
		(void)execgate_allow(g->gfd, ev->fd);
		execgate_close(ev);
		return false;
	}
	g->held[slot] = *ev;
	(void)fairq_push(&g->queue, uid, slot); /* there is room */
	return true;
}

/* Read every held exec waiting into the queues; how many were read. */
static size_t
take_waiting(struct gateloop *g)
{
	struct execgate_event ev[BATCH];
	uint64_t over = 0;
	size_t got = 0;
	int n;

	while ((n = execgate_read(g->gfd, g->buf, sizeof(g->buf), ev, BATCH)) > 0) {
		watchdog_beat(g->wd); /* progress: the loop is not stuck */
		got += (size_t)n;
		for (int i = 0; i < n; i++)
			over += !hold(g, &ev[i]);
		if (g->stall_ms > 0)
			stall(g);
	}
	if (n < 0 && n != -EAGAIN)
		log_warning("exec gate: %s", strerror(-n));
	if (over > 0)
		core_gate_over_budget(g->core, over);
	return got;
}

/* Place the exec held in slot and answer it, unless the watchdog did;
 * false when it did (late). */
static bool
serve(struct gateloop *g, int slot, double now)
{
	const struct execgate_event *ev = &g->held[slot];
	bool answered;

	watchdog_beat(g->wd); /* progress: the loop is not stuck */
	if (!watchdog_answered(g->wd, slot))
		place(g, ev, now);
	/* a process placed now may fork as soon as its exec fails: FORK
	 * events are wanted before it goes on (gate.c's kin) */
	core_sync_wants(g->core);
	answered = watchdog_release(g->wd, slot);
	execgate_close(ev);
	return answered;
}

/* Read the held execs waiting, each user's into its queue (its budget;
 * the rest answered at once), and serve the queues in turn. */
static void
serve_all(struct gateloop *g, double now)
{
	uint64_t late = 0;
	int slot;

	if (g == NULL || g->wd == NULL)
		return;
	watchdog_beat(g->wd);
	if (take_waiting(g) > 0)
		g->busy_until = now + GATE_BUSY_SPELL;
	for (int served = 0; (slot = fairq_pop(&g->queue)) >= 0; served++) {
		late += !serve(g, slot, now);
		if (served < SERVE_READING)
			take_waiting(g); /* an exec that came meanwhile */
	}
	if (late > 0)
		core_gate_late(g->core, late);
}

static void
gate_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	serve_all(w->data, ev_now(loop));
}

void
gateloop_between(struct gateloop *g)
{
	if (g == NULL || g->wd == NULL)
		return;
	double now = ev_now(g->loop);
	if (now >= g->busy_until) { /* quiet: a poll() now and then */
		uint64_t t = mono_ns();
		if (t - g->asked_ns < GATE_QUIET_ASK_NS)
			return;
		g->asked_ns = t;
	}
	if (gateloop_waiting(g))
		serve_all(g, now);
}

bool
gateloop_waiting(const struct gateloop *g)
{
	struct pollfd p = { .fd = g != NULL ? g->gfd : -1, .events = POLLIN };

	return g != NULL && poll(&p, 1, 0) == 1;
}

void
gateloop_prepare(struct gateloop *g)
{
	uint64_t held, unread;

	if (g == NULL || g->wd == NULL)
		return;
	watchdog_take(g->wd, &held, &unread);
	if (held + unread > 0) {
		core_gate_watchdog(g->core, held, unread);
		log_warning(
			"exec gate: the watchdog let %llu exec%s go after %d ms, unplaced "
			"(%llu read by the loop, %llu not): the loop was busy; they are "
			"placed after their exec",
			(unsigned long long)(held + unread),
			held + unread == 1 ? "" : "s", g->state.bound_ms,
			(unsigned long long)held, (unsigned long long)unread);
	}
}

/* ---- marks ------------------------------------------------------------------------------ */

static void
forget_ino(struct gateloop *g, const struct mark *m)
{
	struct ino_entry probe = { .dev = m->dev, .ino = m->ino };
	struct ino_entry *e;

	if (!m->marked)
		return;
	e = map_find(&g->byino, ino_hash(m->dev, m->ino), ino_eq, &probe);
	if (e != NULL && &g->marks[e->mark] == m)
		map_remove(&g->byino, e);
}

/* Mark m's binary as its path names it now; log what changed. */
static void
remark(struct gateloop *g, struct mark *m, bool quiet)
{
	struct execgate_file f;
	char real[PATH_MAX];
	bool fresh;
	int rc = execgate_mark(g->gfd, m->path, &f);

	if (rc < 0) {
		if (m->marked || !quiet || rc != -ENOENT)
			log_info(
				"exec gate: %s: %s; its execs are not held until it can be "
				"marked",
				m->path, strerror(-rc));
		forget_ino(g, m);
		m->marked = false;
		return;
	}
	bool changed = !m->marked || f.dev != m->dev || f.ino != m->ino;
	m->mnt_id = f.mnt_id;
	if (!changed)
		return;
	forget_ino(g, m);
	if (!quiet)
		log_notice("exec gate: %s was replaced; the new binary is held", m->path);
	if (realpath(m->path, real) != NULL && strcmp(real, m->real) != 0) {
		char *r = strdup(real);
		if (r != NULL) {
			free(m->real);
			m->real = r;
		}
	}
	m->dev = f.dev;
	m->ino = f.ino;
	m->marked = true;
	struct ino_entry probe = { .dev = f.dev, .ino = f.ino };
	struct ino_entry *e =
		map_insert(&g->byino, ino_hash(f.dev, f.ino), ino_eq, &probe, &fresh);
	if (e != NULL)
		*e = (struct ino_entry){ f.dev, f.ino, (size_t)(m - g->marks) };
}

static void
marks_free(struct mark *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].real);
	}
	free(v);
}

static void
want_path(void *arg, const char *path)
{
	struct gateloop *g = arg;

	if (map_find(&g->bypath, map_hash_str(path), path_eq, path) != NULL)
		return;
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 16;
		struct mark *v = realloc(g->marks, cap * sizeof(*v));
		if (v == NULL)
			return;
		g->marks = v;
		g->cap = cap;
	}
	struct mark *m = &g->marks[g->n];
	*m = (struct mark){ .path = strdup(path), .real = strdup(path), .wd = -1 };
	if (m->path == NULL || m->real == NULL) {
		free(m->path);
		free(m->real);
		return;
	}
	m->name = strrchr(m->path, '/') + 1;
	bool fresh;
	struct path_entry *e =
		map_insert(&g->bypath, map_hash_str(path), path_eq, path, &fresh);
	if (e != NULL)
		e->path = m->path;
	g->n++;
}

/* The directories that cannot be watched: counted, the first few named
 * (rules naming 100,000 missing binaries once logged a line each). */
struct unwatched {
	size_t n;
	char first[768];
};
#define UNWATCHED_NAMED 3

/* Watch the directory of m. */
static void
watch_dir(struct gateloop *g, struct mark *m, struct unwatched *u)
{
	char dir[PATH_MAX];
	size_t len = (size_t)(m->name - m->path), used = strlen(u->first);

	snprintf(dir, sizeof(dir), "%.*s", (int)(len > 1 ? len - 1 : len), m->path);
	m->wd = g->ifd >= 0 ? execgate_dir_watch(g->ifd, dir) : -1;
	if (m->wd >= 0 || g->ifd < 0)
		return; /* no inotify at all: said once, when the gate opened */
	log_debug("exec gate: cannot watch %s: %s; %s is not held again if it is replaced",
		  dir, strerror(-m->wd), m->path);
	if (u->n++ < UNWATCHED_NAMED)
		snprintf(u->first + used, sizeof(u->first) - used, "%s%.160s (%s)",
			 used ? ", " : "", dir, strerror(-m->wd));
}

/*
 * The binaries the rules in force name: marks taken off those no longer
 * named, every directory watched again, every binary marked again.
 */
static void
sync_marks(struct gateloop *g)
{
	struct mark *old = g->marks;
	size_t nold = g->n;

	g->marks = NULL;
	g->n = g->cap = 0;
	map_init(&g->bypath, sizeof(struct path_entry));
	core_gate_paths(g->core, want_path, g);
	for (size_t i = 0; i < nold; i++)
		if (old[i].marked && map_find(&g->bypath, map_hash_str(old[i].path),
					      path_eq, old[i].path) == NULL)
			if (execgate_unmark(g->gfd, old[i].path) < 0)
				log_debug("exec gate: %s was not marked any more",
					  old[i].path);
	map_free(&g->bypath);
	marks_free(old, nold);
	map_free(&g->byino);
	map_init(&g->byino, sizeof(struct ino_entry));
	struct unwatched u = { 0 };
	for (size_t i = 0; i < g->n; i++) {
		watch_dir(g, &g->marks[i], &u); /* first: a rename after it is seen */
		remark(g, &g->marks[i], true);
	}
	if (u.n > 0)
		log_warning("exec gate: cannot watch the directories of %zu binar%s the rules "
			    "name: %s%s; they are not held again if replaced (each at debug level)",
			    u.n, u.n == 1 ? "y" : "ies", u.first,
			    u.n > UNWATCHED_NAMED ? ", ..." : "");
	publish(g);
	log_notice("exec gate: %zu of %zu binar%s the rules name held", g->state.marked,
		   g->n, g->n == 1 ? "y" : "ies");
}

/* ---- the binaries' directories ---------------------------------------------------------- */

static void
dir_change(void *arg, int wd, enum execgate_dir_change change, const char *name)
{
	struct gateloop *g = arg;

	for (size_t i = 0; i < g->n; i++) {
		struct mark *m = &g->marks[i];

		if (change == EXECGATE_OVERFLOW) {
			remark(g, m, false);
		} else if (m->wd != wd) {
			continue;
		} else if (change == EXECGATE_DIR_GONE) {
			log_warning(
				"exec gate: the directory of %s went away; reload to hold it "
				"again",
				m->path);
			m->wd = -1;
		} else if (name != NULL && strcmp(name, m->name) == 0) {
			remark(g, m, false);
		}
	}
}

static void
dirs_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct gateloop *g = w->data;
	int rc = execgate_dirs_read(g->ifd, dir_change, g);

	if (rc < 0)
		log_warning("exec gate: watching directories: %s", strerror(-rc));
	publish(g);
}

/* ---- opening and closing ----------------------------------------------------------------- */

/* May the daemon lock all its memory, present and future, without its
 * allocations failing once they pass RLIMIT_MEMLOCK? */
static bool
may_lock_all(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY)
		return true;
	return syscall(SYS_capget, &h, d) == 0 && (d[0].effective & (1u << CAP_IPC_LOCK));
}

static void
lock_memory(struct gateloop *g)
{
	const char *why = "it needs CAP_IPC_LOCK";

	if (may_lock_all() && mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
		g->state.locked = true;
		return;
	}
	if (may_lock_all())
		why = strerror(errno);
	log_warning("exec gate: the daemon's memory is not locked (%s); a page fault may "
		    "hold gated execs up to the watchdog's %d ms",
		    why, g->state.bound_ms);
}

/* The watchdog's bound: GATE_BOUND_MS, or the test hook's. */
static unsigned
test_bound(void)
{
	const char *s = getenv("CGENGINED_GATE_BOUND_MS");
	long ms = s != NULL ? strtol(s, NULL, 10) : 0;

	return ms > GATE_BOUND_MS && ms <= 10000 ? (unsigned)ms : GATE_BOUND_MS;
}

static int
gate_open(struct gateloop *g)
{
	int rc = execgate_open(&g->state.pidfds);

	if (rc < 0)
		return rc;
	g->gfd = rc;
	if ((rc = execgate_dirs_open()) < 0)
		log_warning("exec gate: cannot watch directories: %s", strerror(-rc));
	g->ifd = rc;
	g->state.bound_ms = test_bound();
	if ((rc = watchdog_start(&g->wd, g->gfd, g->state.bound_ms)) < 0)
		return rc;
	fairq_init(&g->queue, GATE_USER_BUDGET);
	ev_io_init(&g->gate_w, gate_cb, g->gfd, EV_READ);
	g->gate_w.data = g;
	ev_set_priority(&g->gate_w, EV_MAXPRI); /* held execs first */
	ev_io_start(g->loop, &g->gate_w);
	if (g->ifd >= 0) {
		ev_io_init(&g->dirs_w, dirs_cb, g->ifd, EV_READ);
		g->dirs_w.data = g;
		ev_io_start(g->loop, &g->dirs_w);
	}
	lock_memory(g);
	const char *stall = getenv("CGENGINED_GATE_STALL_MS");
	g->stall_ms = stall != NULL ? strtol(stall, NULL, 10) : 0;
	g->state.running = true;
	return 0;
}

void
gateloop_free(struct gateloop *g, struct ev_loop *loop)
{
	if (g == NULL)
		return;
	if (g->state.running && loop != NULL) {
		ev_io_stop(loop, &g->gate_w);
		if (g->ifd >= 0)
			ev_io_stop(loop, &g->dirs_w);
	}
	watchdog_stop(g->wd);
	if (g->gfd >= 0)
		close(g->gfd); /* every exec still held goes on */
	if (g->ifd >= 0)
		close(g->ifd);
	if (g->state.locked)
		munlockall();
	marks_free(g->marks, g->n);
	map_free(&g->byino);
	free(g);
}

static const char *
why_not(int rc)
{
	switch (rc) {
	case -EPERM:
		return " (it needs CAP_SYS_ADMIN; see cgengined.conf(5))";
	case -EINVAL:
	case -ENOSYS:
		return " (the kernel has no fanotify exec permission events: Linux >= 5.0 "
		       "with CONFIG_FANOTIFY_ACCESS_PERMISSIONS)";
	default:
		return "";
	}
}

void
gateloop_update(struct gateloop **gp, struct core *core, struct ev_loop *loop)
{
	struct gateloop *g = *gp;
	bool on = core_config(core)->exec_gate;
	struct gate_state off = { .on = on };

	if (on && !core_gate_can_place(core)) {
		log_error("exec-gate: the placement backend cannot place a process without "
			  "waiting for another; the exec gate stays closed");
		snprintf(off.error, sizeof(off.error), "the backend cannot place at the gate");
		on = false;
	}
	if (!on) {
		if (g != NULL)
			log_notice("exec gate closed");
		gateloop_free(g, loop);
		*gp = NULL;
		core_gate_set_state(core, &off);
		core_gate_prepare(core, false); /* the backend's groups made ahead go */
		return;
	}
	if (g == NULL) {
		if ((g = calloc(1, sizeof(*g))) == NULL) {
			snprintf(off.error, sizeof(off.error), "%s", strerror(ENOMEM));
			core_gate_set_state(core, &off);
			return;
		}
		*g = (struct gateloop){
			.core = core, .loop = loop, .gfd = -1, .ifd = -1
		};
		map_init(&g->byino, sizeof(struct ino_entry));
		g->state.on = true;
		int rc = gate_open(g);
		if (rc < 0) {
			log_error(
				"cannot open the exec gate: %s%s; processes are placed after "
				"their exec only",
				strerror(-rc), why_not(rc));
			snprintf(off.error, sizeof(off.error), "%s", strerror(-rc));
			gateloop_free(g, loop);
			core_gate_set_state(core, &off);
			core_gate_prepare(core, false);
			return;
		}
		log_notice(
			"exec gate open (pidfds %s, memory %slocked, watchdog after %d ms)",
			g->state.pidfds ? "on" : "off", g->state.locked ? "" : "not ",
			g->state.bound_ms);
		*gp = g;
	}
	sync_marks(g);
	core_gate_prepare(core, true); /* the groups its moves need made ahead */
}
