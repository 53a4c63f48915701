/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gate.c -- the exec gate in the core (see gate.h):
 *
 *   held exec ──▶ core_gate_exec(): snapshot from status (credentials
 *                 as the binary's set-id bits make them, when the
 *                 kernel is sure to apply them) and the binary's path,
 *                 decide (rules, boosts; no Lua hook), move now,
 *                 remember where the process was
 *   FORK event ──▶ gate_fork(): a child of a process in flight (or of
 *                 such a child) is its kin: it shares its fate
 *   EXEC event ──▶ gate_exec_seen(): an exec happened; settled now
 *   no EXEC within GATE_CONFIRM_SECONDS ──▶ gate_timeout(): settled (or later())
 *
 * Settling: the placement holds only if the process runs the binary
 * (device and inode of /proc/PID/exe) with the credentials it was
 * decided by (status); else the exec failed after the gate (ENOEXEC,
 * EFAULT, another listener's denial), another exec came after it, or
 * the kernel did not apply the set-id bits: the process and its kin go
 * back where they were before the gate, then are classified as they
 * are.  Kin stay only if they run the binary with those credentials:
 * a child another thread forked while the exec was held goes back, one
 * the new program forked stays, also when the program has exited.
 *
 * Until it is settled, a process the gate placed is not classified
 * (classify() asks gate_pending()): it would be by its old program.
 * All of it is in memory only while an exec is in flight, but for a
 * small table of recent placements that explain reports.
 */
#include "core_private.h"
#include "gate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FLIGHTS_MAX  4096 /* execs in flight remembered at most */
#define PLACED_SLOTS 1024 /* recent placements explain can report */
#define COMM_LEN     16	  /* the kernel's command name, NUL included */
/* FORK events stay wanted this long after the gate's last placement:
 * a storm of gated execs does not change the kernel's filter per exec */
#define FORKS_LINGER 2.0
#define KIN_FOUND_MAX 4096 /* a process and its kin at settling after lost events, at most */

/* A group the gate moved a process out of, in managed hierarchy idx
 * (-1: the unified layout's composed v2 group): from, as cgroupfs names
 * it, and to, where the gate put it (the composed group: the layout's
 * name, which a backend's logical gives back from a unit's group). */
struct back {
	int idx;
	char *from, *to;
};

/* An exec the gate answered, not yet settled. */
struct flight {
	struct procid id;
	double due, placed;
	uint64_t dev, ino; /* the binary */
	uid_t euid;	   /* the credentials it was decided by */
	gid_t egid;
	bool setid;	   /* the binary's set-id bits change them: check them */
	size_t n;
	struct back *v;
	size_t nkin;
	struct procid *kin; /* forked meanwhile, by it or its kin (malloc'd) */
	uint64_t lost;	    /* the core's count of lost events when placed */
};

/* A process in kin: whose. */
struct kin_entry {
	pid_t owner; /* the pid of the flight */
};

struct placed {
	struct procid id;
	time_t at;
};

struct gate {
	struct map flights; /* pid -> struct flight */
	struct map kin;	    /* pid -> struct kin_entry */
	bool forks;	    /* FORK events wanted (gate_fork) ... */
	double forks_until; /* ... at least until then */
	double next_due;    /* no flight is due before (0: none) */
	bool full_said;
	struct placed placed[PLACED_SLOTS]; /* by pid % PLACED_SLOTS */
	struct gate_state state;
};

static struct gate *
gate_get(struct core *c)
{
	if (c->gate == NULL && (c->gate = calloc(1, sizeof(*c->gate))) != NULL) {
		map_init(&c->gate->flights, sizeof(struct flight));
		map_init(&c->gate->kin, sizeof(struct kin_entry));
	}
	return c->gate;
}

static void
backs_free(struct back *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].from);
		free(v[i].to);
	}
	free(v);
}

static void settle_pid(struct core *c, pid_t pid);

void
gate_forget(struct core *c)
{
	struct gate *g = c->gate;
	struct flight *f;
	size_t cursor = 0;

	if (g == NULL)
		return;
	while ((f = map_next(&g->flights, &cursor)) != NULL) {
		backs_free(f->v, f->n);
		free(f->kin);
	}
	map_free(&g->flights);
	map_init(&g->flights, sizeof(struct flight));
	map_free(&g->kin);
	map_init(&g->kin, sizeof(struct kin_entry));
	g->next_due = 0;
}

void
gate_free(struct core *c)
{
	gate_forget(c);
	if (c->gate != NULL) {
		map_free(&c->gate->flights);
		map_free(&c->gate->kin);
	}
	free(c->gate);
	c->gate = NULL;
}

/* ---- deciding and moving while the exec is held ------------------------------- */

/*
 * The snapshot an exec of x will be, into t: credentials and names.
 * The credentials the binary's set-id bits give only when the kernel
 * is sure to apply them; else the process's own (its EXEC event
 * corrects it): never a class its credentials do not earn.
 */
static int
snapshot(struct core *c, const struct gate_exec *x, struct task *t)
{
	const char *base = strrchr(x->path, '/');
	int rc = task_read(c->env.procroot, x->pid, TASK_NNP, t);
	uid_t euid = t->euid;
	gid_t egid = t->egid;

	if (rc < 0)
		return rc;
	execgate_creds(x->file, t->no_new_privs, &euid, &egid);
	if (euid != t->euid || egid != t->egid) {
		if (execgate_setid_sure(c->env.procroot, x->pid)) {
			t->euid = euid;
			t->egid = egid;
		} else {
			log_info("exec gate: pid %d: the kernel may not apply the set-id "
				 "bits of %s (traced, another user namespace, or sharing "
				 "its filesystem information); decided by its own "
				 "credentials",
				 (int)x->pid, x->path);
		}
	}
	str_copy(t->exe, sizeof(t->exe), x->path);
	str_copy(t->comm, COMM_LEN, base != NULL ? base + 1 : x->path);
	t->script[0] = t->invoked[0] = '\0';
	return 0;
}

static int
add_back(struct back **v, size_t *n, int idx, const char *from, const char *to)
{
	struct back *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (nv == NULL)
		return -ENOMEM;
	*v = nv;
	nv[*n] = (struct back){ .idx = idx, .from = strdup(from), .to = strdup(to) };
	if (nv[*n].from == NULL || nv[*n].to == NULL) {
		free(nv[*n].from);
		free(nv[*n].to);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

/*
 * The groups the verdicts of d move its task out of, into *v (NULL when
 * memory runs out: the moves are then not undone should the exec fail).
 * Each verdict that moves says it is the gate's.  The count of moves.
 */
static size_t
plan_moves(struct core *c, struct decision *d, struct back **v, size_t *n)
{
	const struct policy *p = c->pol;
	size_t moves = 0;
	bool keep = true;

	for (size_t i = 0; i < p->n; i++) {
		struct verdict *vd = &d->verdicts[i];
		const char *cur = task_cgroup_of(&d->cg, p->names[i]);

		if (!vd->move || c->dropped[i] || p->virt[i] ||
		    (cur != NULL && strcmp(cur, vd->dest) == 0))
			continue;
		moves++;
		size_t len = strlen(vd->reason);
		snprintf(vd->reason + len, sizeof(vd->reason) - len,
			 ", at the exec gate");
		keep = keep &&
		       (cur == NULL || add_back(v, n, (int)i, cur, vd->dest) == 0);
	}
	if (d->composed[0] != '\0') {
		const struct backend *fs = c->env.cgfs;
		const char *real = task_cgroup_of(&d->cg, p->v2->name), *cur = real;
		char logical[RULES_DEST_MAX];

		/* a backend whose groups stand for the layout's (systemd's
		 * units) compares the layout's */
		if (real != NULL && fs->look.logical != NULL)
			cur = backend_logical(fs, p->v2, real, logical, sizeof(logical)) == 0
				      ? logical
				      : NULL;
		if (cur == NULL || strcmp(cur, d->composed) != 0) {
			moves++;
			keep = keep &&
			       (real == NULL || add_back(v, n, -1, real, d->composed) == 0);
		}
	}
	if (!keep) {
		backs_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return moves;
}

/* Remember an exec whose moves are undone unless it is seen. */
static void
remember(struct core *c, const struct gate_exec *x, const struct task *t, struct procid id,
	 struct back *v, size_t n)
{
	struct gate *g = c->gate;
	bool setid = (x->file->mode & (S_ISUID | S_ISGID)) != 0;
	bool fresh;
	struct flight *f = NULL;

	if (map_count(&g->flights) < FLIGHTS_MAX)
		f = map_insert(&g->flights, (uint64_t)id.pid, NULL, NULL, &fresh);
	if (f == NULL) {
		if (!g->full_said)
			log_warning(
				"exec gate: too many execs in flight; a failed exec is not "
				"moved back");
		g->full_said = true;
		backs_free(v, n);
		return;
	}
	if (!fresh) { /* settled before (core_gate_exec): cannot be */
		backs_free(v, n);
		return;
	}
	*f = (struct flight){ .id = id,
			      .due = c->now + GATE_CONFIRM_SECONDS,
			      .placed = c->now,
			      .dev = x->file->dev,
			      .ino = x->file->ino,
			      .euid = t->euid,
			      .egid = t->egid,
			      .setid = setid,
			      .lost = c->stats.lost,
			      .n = n,
			      .v = v };
	if (g->next_due == 0)
		g->next_due = f->due;
	g->forks_until = c->now + FORKS_LINGER;
	if (!g->forks) {
		g->forks = true;
		wants_changed(c); /* its forks are wanted now (gate_fork) */
	}
}

/* Decide for the exec x of process id with d, and move now; how it went. */
static enum gate_result
place(struct core *c, const struct gate_exec *x, struct procid id, struct decision *d)
{
	struct gate *g = c->gate;
	struct back *v = NULL;
	size_t n = 0;

	if (d->task.kthread)
		return GATE_LEFT;
	enum decide_result r = classify_decide_snapshot(c, d);
	if (r != DECIDE_OK)
		return r == DECIDE_GONE ? GATE_GONE : GATE_LEFT;
	if (!classify_wants_move(c, d))
		return GATE_LEFT;
	if (plan_moves(c, d, &v, &n) == 0)
		return GATE_IN_PLACE;
	uint64_t before = c->stats.moves;
	d->at_gate = true;
	classify_act(c, d);
	uint64_t moved = c->stats.moves - before;
	c->stats.gate_moves += moved;
	if (!execgate_alive(x->pidfd))
		log_debug("pid %d exited while its exec was held", (int)x->pid);
	if (moved == 0) {
		backs_free(v, n);
		return GATE_LEFT;
	}
	remember(c, x, &d->task, id, v, n);
	g->placed[(size_t)id.pid % PLACED_SLOTS] = (struct placed){ id, c->env.wall() };
	return GATE_PLACED;
}

enum gate_result
core_gate_exec(struct core *c, const struct gate_exec *x, double now)
{
	struct gate *g = gate_get(c);
	struct decision *d;
	struct procid id;

	c->now = now;
	c->stats.gate_execs++;
	if (x->path == NULL || c->paused || x->pid <= 1 || g == NULL)
		return GATE_LEFT;
	settle_pid(c, x->pid); /* an exec of it held before: did it hold? */
	if ((d = decision_new(c->pol)) == NULL)
		return GATE_LEFT; /* placed after its exec, as without the gate */
	enum gate_result r = GATE_GONE;
	if (snapshot(c, x, &d->task) == 0 && task_procid(c->env.procroot, x->pid, &id) == 0)
		r = place(c, x, id, d);
	decision_free(d);
	return r;
}

/* ---- after the answer --------------------------------------------------------- */

void
gate_fork(struct core *c, pid_t parent, pid_t child)
{
	struct gate *g = c->gate;
	const struct kin_entry *k;
	struct flight *f;
	struct procid id;
	pid_t owner = parent;
	bool fresh;

	if (g == NULL || map_count(&g->flights) == 0)
		return;
	if ((k = map_find(&g->kin, (uint64_t)parent, NULL, NULL)) != NULL)
		owner = k->owner;
	if ((f = map_find(&g->flights, (uint64_t)owner, NULL, NULL)) == NULL)
		return;
	if (task_procid(c->env.procroot, child, &id) < 0)
		return; /* gone already */
	if ((f->nkin & (f->nkin - 1)) == 0) { /* 0, 1, 2, 4 ...: full */
		struct procid *v = realloc(f->kin, (f->nkin ? f->nkin * 2 : 4) * sizeof(*v));
		if (v == NULL) {
			log_warning("out of memory: pid %d, forked while the exec of pid %d "
				    "was on its way, stays where it is",
				    (int)child, (int)owner);
			return;
		}
		f->kin = v;
	}
	struct kin_entry *e = map_insert(&g->kin, (uint64_t)child, NULL, NULL, &fresh);
	if (e == NULL)
		return;
	e->owner = owner; /* a reused pid's older entry is another flight's no more */
	f->kin[f->nkin++] = id;
}

bool
gate_in_flight(const struct core *c)
{
	return c->gate->forks;
}

bool
gate_pending(const struct core *c, pid_t pid)
{
	const struct gate *g = c->gate;

	return map_count(&g->flights) > 0 &&
	       map_find(&g->flights, (uint64_t)pid, NULL, NULL) != NULL;
}

double
gate_deadline(const struct core *c, double now)
{
	const struct gate *g = c->gate;

	(void)now; /* "at once" is the time of the core's call */
	if (gate_ready_due(c))
		return c->now > 0 ? c->now : 1e-9; /* at once */
	if (g == NULL)
		return 0;
	if (g->forks && (g->next_due == 0 || g->forks_until < g->next_due))
		return g->forks_until;
	return g->next_due;
}

/*
 * Put pid back into the group b says the gate took it from.  The
 * composed v2 group of a backend whose groups stand for the layout's
 * (systemd's units): a unit of the layout by its layout name, through
 * move (PID 1), any other group through restore.  0, BACKEND_MOVE_QUEUED
 * or -errno.
 */
static int
put_back(struct core *c, const struct hier *h, const struct back *b, pid_t pid)
{
	const struct backend *fs = c->env.cgfs;
	char logical[RULES_DEST_MAX];

	if (b->idx >= 0 || fs->look.logical == NULL)
		return backend_move(fs, h, b->from, pid);
	if (backend_logical(fs, h, b->from, logical, sizeof(logical)) == 0)
		return backend_move(fs, h, logical, pid);
	return fs->gate.restore != NULL ? backend_restore(fs, h, b->from, pid) : -EOPNOTSUPP;
}

/* Move pid (the flight's process or its kin) back out of the groups
 * the gate put f's process in (those it is still in; its groups read
 * into cg), saying why; the count moved. */
static unsigned
move_back(struct core *c, const struct flight *f, pid_t pid, struct task_cgroups *cg,
	  const char *why)
{
	const struct policy *p = c->pol;
	const struct backend *fs = c->env.cgfs;
	unsigned moved = 0;

	if (task_read_cgroups(c->env.procroot, pid, cg) < 0)
		return 0;
	for (size_t k = 0; k < f->n; k++) {
		const struct back *b = &f->v[k];
		const struct hier *h = b->idx < 0 ? p->v2 : p->managed[b->idx];
		const char *cur = task_cgroup_of(cg, h->name);
		char logical[RULES_DEST_MAX];

		/* b->to of the composed group is the layout's name (remember) */
		if (cur != NULL && b->idx < 0 && fs->look.logical != NULL)
			cur = backend_logical(fs, h, cur, logical, sizeof(logical)) == 0
				      ? logical
				      : NULL;
		if (cur == NULL || strcmp(cur, b->to) != 0)
			continue; /* moved since, by someone else */
		int rc = c->dry_run ? 0 : put_back(c, h, b, pid);
		if (rc >= 0) {
			moved++;
			log_notice("pid %d %s; moved back to %s:%s", (int)pid, why,
				   hier_label(h), b->from);
		} else if (rc != -ESRCH) {
			log_warning("cannot move pid %d back to %s:%s: %s", (int)pid,
				    hier_label(h), b->from, strerror(-rc));
		}
	}
	return moved;
}

/* *dp, made when it is NULL; false when memory runs out. */
static bool
need(struct core *c, struct decision **dp)
{
	if (*dp == NULL && (*dp = decision_new(c->pol)) == NULL)
		log_warning("out of memory: an exec the gate held is not checked");
	return *dp != NULL;
}

/*
 * Does pid run f's binary, with the credentials f was decided by (only
 * when creds)?  NULL when it does, else why not; *gone when it is gone.
 */
static const char *
holds(const struct core *c, const struct flight *f, pid_t pid, bool creds, bool *gone)
{
	uid_t euid;
	gid_t egid;
	int rc = execgate_runs(c->env.procroot, pid, f->dev, f->ino);

	*gone = rc < 0;
	if (rc == 0)
		return "did not run the binary its exec was held for";
	if (rc < 0 || !creds || !f->setid)
		return NULL; /* without set-id bits it runs with its own */
	if (execgate_ids(c->env.procroot, pid, &euid, &egid) < 0) {
		*gone = true;
		return NULL;
	}
	if (euid != f->euid || egid != f->egid)
		return "runs the binary its exec was held for, but not with the "
		       "credentials the gate decided by";
	return NULL;
}

/* Forget f's records but for its moves and kin, now the caller's. */
static void
flight_unlink(struct core *c, struct flight *f, struct flight *out)
{
	struct gate *g = c->gate;

	*out = *f;
	for (size_t i = 0; i < f->nkin; i++) {
		struct kin_entry *k = map_find(&g->kin, (uint64_t)f->kin[i].pid, NULL, NULL);
		if (k != NULL && k->owner == f->id.pid)
			map_remove(&g->kin, k);
	}
	map_remove(&g->flights, f);
}

/* The kin of done go back unless they run its binary with the
 * credentials it was decided by (forked after the exec, also when the
 * process has exited since: a daemon's double fork), and are
 * classified as they are.  Any moved back? */
static bool
settle_kin(struct core *c, const struct flight *done, struct decision **dp)
{
	char why[128];
	bool any = false, gone;

	snprintf(why, sizeof(why), "was forked while the exec of pid %d was on its way",
		 (int)done->id.pid);
	for (size_t i = 0; i < done->nkin; i++) {
		pid_t pid = done->kin[i].pid;

		if (!task_alive(c->env.procroot, done->kin[i]))
			continue;
		if (holds(c, done, pid, true, &gone) == NULL)
			continue; /* holds, or gone */
		if (!need(c, dp))
			return any;
		any = move_back(c, done, pid, &(*dp)->cg, why) > 0 || any;
		classify(c, pid, *dp);
	}
	return any;
}

/* Events were lost while f was in flight (a fork storm can overflow
 * the socket): FORK events of its kin may be missing.  Its living
 * descendants and its kin's, from /proc, join its kin. */
static void
find_kin(struct core *c, struct flight *f)
{
	pid_t v[KIN_FOUND_MAX];
	size_t n = 1, was;
	struct procid id;

	v[0] = f->id.pid;
	for (size_t i = 0; i < f->nkin && n < KIN_FOUND_MAX; i++)
		v[n++] = f->kin[i].pid;
	was = n;
	n = execgate_descendants(c->env.procroot, v, n, KIN_FOUND_MAX);
	struct procid *nv = n > was ? realloc(f->kin, (f->nkin + n - was) * sizeof(*nv)) : NULL;
	if (nv == NULL)
		return;
	f->kin = nv;
	for (size_t i = was; i < n; i++)
		if (task_procid(c->env.procroot, v[i], &id) == 0)
			f->kin[f->nkin++] = id;
	log_info("exec gate: %zu processes forked while the exec of pid %d was on its way "
		 "looked for in /proc (events were lost)", n - was, (int)f->id.pid);
}

/* Did f's exec hold?  Its process and kin moved back if not; the
 * process classified here when timeout (no EXEC event came: else its
 * batch classifies it, or the gate decides another exec of it). */
static void
settle(struct core *c, struct flight *f, bool timeout, struct decision **dp)
{
	struct gate *g = c->gate;
	struct flight done;
	const char *why = NULL;
	bool gone = true, undone = false;
	pid_t pid = f->id.pid;

	flight_unlink(c, f, &done); /* before classify(), which asks gate_pending */
	if (c->stats.lost != done.lost)
		find_kin(c, &done);
	if (task_alive(c->env.procroot, done.id))
		why = holds(c, &done, pid, true, &gone);
	if (!gone && why != NULL && need(c, dp)) {
		undone = move_back(c, &done, pid, &(*dp)->cg, why) > 0;
		struct placed *pl = &g->placed[(size_t)pid % PLACED_SLOTS];
		if (undone && procid_eq(pl->id, done.id))
			*pl = (struct placed){ 0 }; /* explain: not the gate's doing */
	}
	/* classified now, as it is, held or not: its uid or gid may have
	 * changed meanwhile, or its EXEC event was lost */
	if (!gone && timeout && need(c, dp))
		classify(c, pid, *dp);
	undone = settle_kin(c, &done, dp) || undone;
	if (undone)
		c->stats.gate_undone++;
	free(done.kin);
	backs_free(done.v, done.n);
}

/* Settle the flight of pid now, if it has one (not timed out). */
static void
settle_pid(struct core *c, pid_t pid)
{
	struct gate *g = c->gate;
	struct decision *d = NULL;
	struct flight *f;

	if (g == NULL || map_count(&g->flights) == 0 ||
	    (f = map_find(&g->flights, (uint64_t)pid, NULL, NULL)) == NULL)
		return;
	settle(c, f, false, &d);
	decision_free(d);
}

void
gate_exec_seen(struct core *c, pid_t tgid)
{
	settle_pid(c, tgid);
}

/*
 * May f's process still be inside the exec the gate let go, waiting for a CPU
 * (R or D in its status, which needs none of the exec's locks)?  Then it is
 * settled later (up to GATE_CONFIRM_LIMIT): its stat and exe wait for the exec,
 * and so would this real-time daemon, with every exec held meanwhile (100 ms
 * and more under gate-fair-t's burst).  Not after lost events (no EXEC may come).
 */
static bool
later(const struct core *c, struct flight *f)
{
	char state = 0;

	if (c->stats.lost != f->lost || c->now >= f->placed + GATE_CONFIRM_LIMIT ||
	    task_run_state(c->env.procroot, f->id.pid, &state) < 0 ||
	    (state != 'R' && state != 'D'))
		return false;
	double again = c->now + GATE_CONFIRM_SECONDS, limit = f->placed + GATE_CONFIRM_LIMIT;
	f->due = again < limit ? again : limit;
	return true;
}

void
gate_timeout(struct core *c, double now)
{
	struct gate *g = c->gate;
	pid_t due[64];
	size_t ndue = 0, cursor = 0;
	double next = 0;
	struct flight *f;

	if (gate_ready_due(c))
		gate_ready_hand_over(c); /* groups learned at the gate */
	if (g != NULL && g->forks && map_count(&g->flights) == 0 &&
	    c->now >= g->forks_until) {
		g->forks = false;
		wants_changed(c); /* no fork is wanted for the gate now */
	}
	if (g == NULL || g->next_due == 0 || c->now < g->next_due)
		return;
	while ((f = map_next(&g->flights, &cursor)) != NULL) {
		if (f->due <= c->now && ndue < sizeof(due) / sizeof(due[0]))
			due[ndue++] = f->id.pid;
		else if (next == 0 || f->due < next)
			next = f->due;
	}
	struct decision *d = ndue > 0 ? decision_new(c->pol) : NULL;
	if (d == NULL && ndue > 0) { /* settled when there is memory */
		g->next_due = c->now + 1.0;
		return;
	}
	for (size_t i = 0; i < ndue; i++) {
		f = map_find(&g->flights, (uint64_t)due[i], NULL, NULL);
		if (f != NULL && !later(c, f))
			settle(c, f, true, &d);
		else if (f != NULL && (next == 0 || f->due < next))
			next = f->due; /* asked again then */
	}
	decision_free(d);
	g->next_due = map_count(&g->flights) == 0 ? 0 : next > 0 ? next : c->now;
}

/* ---- what the loop's side and the verbs see --------------------------------------- */

bool
core_gate_can_place(const struct core *c)
{
	return c->env.cgfs->gate.move_now != NULL;
}

void
core_gate_paths(const struct core *c, void (*fn)(void *arg, const char *path), void *arg)
{
	rules_paths(c->pol->rules, fn, arg);
}

void
core_gate_set_state(struct core *c, const struct gate_state *s)
{
	/* closed as it never opened: core_gate_state() says so without a
	 * gate (its 24 KiB of placements are made when first needed) */
	if (c->gate == NULL && !s->on && !s->running && !s->pidfds && !s->locked &&
	    s->marked == 0 && s->wanted == 0 && s->error[0] == '\0')
		return;
	struct gate *g = gate_get(c);

	if (g != NULL)
		g->state = *s;
}

const struct gate_state *
core_gate_state(const struct core *c)
{
	static const struct gate_state off;

	return c->gate != NULL ? &c->gate->state : &off;
}

void
core_gate_watchdog(struct core *c, uint64_t held, uint64_t unread)
{
	c->stats.gate_watchdog += held + unread;
	c->stats.gate_execs += unread; /* the loop never saw those */
}

void
core_gate_over_budget(struct core *c, uint64_t n)
{
	c->stats.gate_over_budget += n;
	c->stats.gate_execs += n; /* held, though not by the loop */
}

void
core_gate_late(struct core *c, uint64_t n)
{
	c->stats.gate_late += n;
}

bool
core_gate_placed(const struct core *c, pid_t pid, time_t *at)
{
	const struct placed *p;

	if (c->gate == NULL || pid <= 0)
		return false;
	p = &c->gate->placed[(size_t)pid % PLACED_SLOTS];
	if (p->id.pid != pid || !task_alive(c->env.procroot, p->id))
		return false;
	*at = p->at;
	return true;
}
