/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * core.c -- the core's life cycle, the events it is fed, and its
 * deadlines.
 *
 *   kernel event ──▶ core_event(): bookkeeping, pending thread groups
 *   end of batch ──▶ core_batch_done(): classify() each of them once
 *   deadline     ──▶ core_timeout(): deferred entries, rescans, boost
 *                    expiry, empty groups, the boost state file
 *
 * The loop owns every watcher and timer; the core only says, through
 * core_next_deadline(), when it next wants to be called.
 */
#include "core_private.h"
#include "gate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESCAN_INTERVAL	 1.0   /* seconds between two rescans at most */
#define DEFER_DELAY	 0.002 /* how long a uid/gid-only entry may wait */
/* ... with the exec gate on a backend that makes groups ahead (PID 1
 * places): a move decided before the exec would be made by PID 1 after
 * the gate's placement, so the exec is given longer to come (PID 1's
 * placements take longer than that anyway) */
#define DEFER_DELAY_GATE 0.050

/* ---- the real cgroupfs, through a cache of open cgroup.procs files ----------- */

static int
real_mkdir(void *arg, const struct hier *h, const char *path, bool *created)
{
	return cgfs_mkdir(h, path, created);
}

static int
real_set(void *arg, const struct hier *h, const char *path, const char *key,
	 const char *value)
{
	return cgfs_set(h, path, key, value);
}

static int
real_move(void *arg, const struct hier *h, const char *path, pid_t tgid)
{
	return cgfs_move_cached(arg, h, path, tgid);
}

static int
real_rmdir(void *arg, const struct hier *h, const char *path)
{
	return cgfs_rmdir(h, path);
}

static bool
real_is_empty(void *arg, const struct hier *h, const char *path)
{
	return cgfs_is_empty(h, path);
}

static void
real_flush(void *arg)
{
	cgfs_cache_flush(arg);
}

static int
real_get(void *arg, const struct hier *h, const char *path, const char *key, char *buf,
	 size_t len)
{
	return cgfs_get(h, path, key, buf, len);
}

static int
real_children(void *arg, const struct hier *h, const char *path,
	      int (*fn)(void *fnarg, const char *name), void *fnarg)
{
	return cgfs_children(h, path, fn, fnarg);
}

static int
real_id(void *arg, const struct hier *h, const char *path, uint64_t *id)
{
	return cgfs_id(h, path, id);
}

static int
real_id_live(void *arg, const struct hier *h, uint64_t id)
{
	return cgfs_id_live(h, id);
}

static time_t
real_wall(void)
{
	return time(NULL);
}

/* ---- the process table ---------------------------------------------------------- */

unsigned
core_proc_flags(struct core *c, pid_t pid)
{
	const struct proc *p = proc_known(c, pid);

	return p != NULL ? p->flags : 0;
}

size_t
core_proc_count(const struct core *c)
{
	return proctab_count(c->procs);
}

/* ---- pending thread groups ----------------------------------------------------- */

static void
request_rescan(struct core *c)
{
	if (c->rescan_at > 0)
		return;
	double at = c->last_rescan + RESCAN_INTERVAL;
	c->rescan_at = at > c->now ? at : c->now;
}

/* How long a uid/gid-only entry waits for its exec. */
static double
defer_delay(const struct core *c)
{
	return c->env.cgfs->prepare != NULL && core_gate_state(c)->running ? DEFER_DELAY_GATE
									   : DEFER_DELAY;
}

/* The pending entry of tgid, made if new; NULL without memory. */
static struct pending *
add_pending(struct core *c, pid_t tgid, bool exec, uint64_t ts)
{
	for (size_t i = 0; i < c->npending; i++)
		if (c->pending[i].tgid == tgid) {
			c->pending[i].exec |= exec;
			if (exec && c->pending[i].exec_ns == 0)
				c->pending[i].exec_ns = ts;
			return &c->pending[i];
		}
	if (c->npending == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct pending *v = realloc(c->pending, cap * sizeof(*v));

		if (v == NULL) {
			request_rescan(c); /* cannot remember: catch up later */
			return NULL;
		}
		c->pending = v;
		c->cap = cap;
	}
	c->pending[c->npending] = (struct pending){ .tgid = tgid,
						    .exec = exec,
						    .due = c->now + defer_delay(c),
						    .exec_ns = exec ? ts : 0 };
	return &c->pending[c->npending++];
}

/* A UID event: the ids it reports, if its main thread's. */
static void
note_ids(struct pending *p, const struct procev_event *ev)
{
	if (p == NULL)
		return;
	if (ev->pid != ev->tgid) {
		p->ids_state |= PENDING_IDS_BAD;
		return;
	}
	p->ids = (struct task_ids){ .uid = ev->rid, .euid = ev->eid };
	p->ids_state |= PENDING_IDS_SEEN;
}

const unsigned core_latency_us[CORE_LATENCY_BUCKETS - 1] = {
	50, 100, 250, 500, 1000, 10000,
};

/* Count how long after its exec a process was classified. */
static void
count_latency(struct core *c, uint64_t exec_ns)
{
	struct timespec ts;

	if (exec_ns == 0 || clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return;
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	uint64_t us = now > exec_ns ? (now - exec_ns) / 1000 : 0;
	size_t i = 0;

	while (i < CORE_LATENCY_BUCKETS - 1 && us > core_latency_us[i])
		i++;
	c->stats.placed_in[i]++;
}

static void
drop_pending(struct core *c, pid_t tgid)
{
	for (size_t i = 0; i < c->npending; i++)
		if (c->pending[i].tgid == tgid)
			c->pending[i].tgid = 0;
}

/*
 * Classify what the batch asked for.  A uid/gid change is usually
 * followed at once by an exec (su, sudo, login, setpriv, a spawner
 * dropping privileges: setresgid, setresuid, execve -- often one
 * wake-up each): such entries wait until their exec, at most
 * DEFER_DELAY, so the process is classified once, after its exec,
 * instead of once per event.
 */
static void
run_pending(struct core *c)
{
	struct decision *d = NULL; /* one for the batch, made at its first process */
	size_t kept = 0;
	double next = 0;

	for (size_t i = 0; i < c->npending; i++) {
		struct pending *p = &c->pending[i];

		if (p->tgid == 0)
			continue;
		if (!p->exec && p->due > c->now) {
			if (next == 0 || p->due < next)
				next = p->due;
			c->pending[kept++] = *p;
			continue;
		}
		if (d == NULL && (d = decision_new(c->pol)) == NULL) {
			log_warning("out of memory: %zu processes are classified at a rescan",
				    c->npending - i);
			request_rescan(c);
			break;
		}
		uint64_t before = c->stats.classified;
		classify_ids(c, p->tgid, p->ids_state == PENDING_IDS_SEEN ? &p->ids : NULL, d);
		if (c->stats.classified != before)
			count_latency(c, p->exec_ns);
	}
	decision_free(d);
	c->npending = kept;
	c->defer_at = next;
}

bool
core_waiting_exec(const struct core *c)
{
	for (size_t i = 0; i < c->npending; i++)
		if (c->pending[i].tgid != 0 && !c->pending[i].exec)
			return true;
	return false;
}

void
core_batch_done(struct core *c, double now)
{
	c->now = now;
	run_pending(c);
}

/* ---- events ------------------------------------------------------------------------ */

static void
on_fork(struct core *c, const struct procev_event *ev)
{
	struct procid child;

	if (ev->pid != ev->tgid)
		return; /* a new thread, not a new process */
	if (proctab_get(c->procs, ev->parent_tgid) == NULL)
		return; /* the common case: nothing to inherit */
	/* the parent's entry counts only if it is still that process
	 * (an exit event may have been lost and the pid reused) */
	const struct proc *parent = proc_known(c, ev->parent_tgid);
	if (parent == NULL)
		return;
	struct procid pid = parent->id;
	unsigned pflags = parent->flags;
	if (task_procid(c->env.procroot, ev->tgid, &child) < 0)
		return; /* already gone */
	/* a child a full boost did not admit sits in the boost's group
	 * (the kernel put it next to its parent): out with it, at once */
	if ((pflags & PROC_BOOSTED) && boost_fork(c, pid, child)) {
		classify_alone(c, child.pid);
		return;
	}
	if (!(pflags & PROC_STICKY_CHILDREN))
		return;
	const struct proc *old = proctab_get(c->procs, child.pid);
	unsigned flags = old != NULL && procid_eq(old->id, child) ? old->flags : 0;
	proc_set_flags(c, child,
		       flags | PROC_STICKY | PROC_STICKY_CHILDREN | (pflags & PROC_ROOT_PIN));
}

/*
 * The kernel reports EXIT with pid == tgid when the main thread exits,
 * even if other threads run on (pthread_exit in main): such a process
 * keeps its flags and boosts until its last thread is gone.
 */
static void
on_exit_event(struct core *c, const struct procev_event *ev)
{
	struct proc *p = proctab_get(c->procs, ev->tgid);

	if (ev->pid == ev->tgid)
		drop_pending(c, ev->tgid);
	if (p == NULL)
		return;
	if (ev->pid != ev->tgid && !(p->flags & PROC_LEADER_GONE))
		return; /* one thread of many */
	if (task_alive(c->env.procroot, p->id) && task_threads(c->env.procroot, ev->tgid) > 1) {
		proc_set_flags(c, p->id, p->flags | PROC_LEADER_GONE);
		return;
	}
	struct procid id = p->id;
	if (p->flags & PROC_BOOSTED)
		boost_exit(c, id);
	proctab_forget(c->procs, id.pid);
}

void
core_exit(struct core *c, pid_t pid, pid_t tgid)
{
	struct procev_event ev = { .type = PROCEV_EXIT, .pid = pid, .tgid = tgid };

	on_exit_event(c, &ev);
}

void
core_event(struct core *c, const struct procev_event *ev, double now)
{
	c->now = now;
	switch (ev->type) {
	case PROCEV_FORK:
		c->stats.ev_fork++;
		on_fork(c, ev);
		break;
	case PROCEV_EXEC:
		c->stats.ev_exec++;
		if (c->gate != NULL)
			gate_exec_seen(c, ev->tgid); /* a held exec did happen */
		(void)add_pending(c, ev->tgid, true, ev->ts_ns);
		break;
	case PROCEV_UID:
		c->stats.ev_uid++;
		note_ids(add_pending(c, ev->tgid, false, 0), ev);
		break;
	case PROCEV_GID:
		c->stats.ev_gid++;
		(void)add_pending(c, ev->tgid, false, 0);
		break;
	case PROCEV_EXIT:
		c->stats.ev_exit++;
		on_exit_event(c, ev);
		break;
	}
}

void
core_lost_events(struct core *c, double now)
{
	c->now = now;
	c->stats.lost++;
	for (size_t i = 0; i < c->npending; i++) /* a UID event may be missing */
		c->pending[i].ids_state |= PENDING_IDS_BAD;
	request_rescan(c);
	c->rescan_why = "after lost events";
}

/* ---- rescans ----------------------------------------------------------------------- */

struct rescan {
	struct core *c;
	struct decision *d; /* one for the whole scan */
};

static int
classify_cb(void *arg, pid_t pid)
{
	struct rescan *r = arg;

	classify(r->c, pid, r->d);
	return 0;
}

static void
collect_pid(void *arg, const struct proc *p)
{
	pid_t **cursor = arg;

	*(*cursor)++ = p->id.pid;
}

/* Forget every table entry whose process is gone (its exit unseen). */
static void
prune_procs(struct core *c)
{
	size_t n = proctab_count(c->procs);
	pid_t *pids = n ? calloc(n, sizeof(*pids)) : NULL;
	pid_t *cursor = pids;

	if (pids == NULL)
		return;
	proctab_foreach(c->procs, collect_pid, &cursor);
	for (size_t i = 0; i < n; i++)
		(void)proc_known(c, pids[i]); /* forgets it if gone */
	free(pids);
}

void
core_rescan(struct core *c, double now)
{
	c->now = now;
	c->last_rescan = now;
	c->rescan_at = 0;
	c->rescan_why = NULL;
	c->stats.rescans++;
	prune_procs(c);
	struct rescan r = { .c = c, .d = decision_new(c->pol) };
	if (r.d == NULL) {
		log_error("cannot scan %s: out of memory; trying again soon", c->env.procroot);
		core_rescan_soon(c, RESCAN_INTERVAL);
		return;
	}
	int rc = task_foreach(c->env.procroot, classify_cb, &r);
	if (rc < 0)
		log_error("cannot scan %s: %s", c->env.procroot, strerror(-rc));
	decision_free(r.d);
}

/* ---- deadlines ------------------------------------------------------------------------ */

static double
earliest(double a, double b)
{
	if (a <= 0)
		return b;
	if (b <= 0)
		return a;
	return a < b ? a : b;
}

double
core_next_deadline(const struct core *c, double now)
{
	double t = earliest(c->defer_at, c->rescan_at);

	t = earliest(t, c->cleanup_at);
	t = earliest(t, c->save_at);
	t = earliest(t, nftsets_deadline(c));
	t = earliest(t, gate_deadline(c));
	time_t exp = boost_next_expiry(c);
	if (exp != 0) {
		double left = difftime(exp, c->env.wall());
		t = earliest(t, now + (left > 0 ? left : 0) + 1e-6);
	}
	return t > 0 ? t : -1;
}

void
core_timeout(struct core *c, double now)
{
	c->now = now;
	if (c->defer_at > 0 && now >= c->defer_at)
		run_pending(c);
	if (c->rescan_at > 0 && now >= c->rescan_at) {
		log_notice("rescanning %s %s", c->env.procroot,
			   c->rescan_why ? c->rescan_why : "for processes not placed yet");
		core_rescan(c, now);
	}
	for (unsigned id; (id = boost_expired(c)) != 0;)
		(void)core_boost_end(c, id, "expired");
	if (c->cleanup_at > 0 && now >= c->cleanup_at)
		groups_cleanup(c);
	if (c->save_at > 0 && now >= c->save_at)
		boost_save_now(c);
	double sync = nftsets_deadline(c);
	if (sync > 0 && now >= sync)
		nftsets_timeout(c, now);
	gate_timeout(c); /* execs the gate let go that did not happen */
}

/* ---- reload ------------------------------------------------------------------------ */

/* Ask the loop for the placement backend policy p names; 0 or -1. */
static int
choose_backend(struct core *c, const struct policy *p, const struct report *rep)
{
	const struct core_cgfs *b = NULL;

	if (c->env.backend == NULL)
		return 0;
	int rc = c->env.backend(c->env.loop_arg, p->backend, p->uroot, &b);
	if (rc < 0) {
		report_msg(rep, "%s: backend: cannot place processes: %s",
			   p->cfg->file[0] ? p->cfg->file : "built-in config", strerror(-rc));
		return -1;
	}
	if (b != NULL)
		c->env.cgfs = b;
	else if (c->fds != NULL)
		c->env.cgfs = &c->real_cgfs;
	return 0;
}


static void
log_report(void *arg, const char *msg)
{
	log_error("%s", msg);
}

static struct policy *
build_policy(const struct core *c, const struct report *rep)
{
	return policy_build(&c->ov, c->env.mountinfo, c->env.procroot, rep);
}

int
core_reload(struct core *c, double now)
{
	struct report rep = { .fn = log_report };
	struct policy *np;

	c->now = now;
	if (c->env.reloading != NULL)
		c->env.reloading(c->env.loop_arg, true);
	log_notice("reloading configuration and rules");
	if ((np = build_policy(c, &rep)) == NULL) {
		c->stats.reload_failures++;
		log_error("reload failed; the previous configuration and rules stay in force");
		if (c->env.reloading != NULL)
			c->env.reloading(c->env.loop_arg, false);
		return -EINVAL;
	}
	struct policy *old = c->pol;
	if (np->backend != old->backend || choose_backend(c, np, &rep) < 0) {
		if (np->backend != old->backend)
			log_error("%s: backend: changes only at a restart",
				  np->cfg->file[0] ? np->cfg->file : "built-in config");
		log_error("reload failed; the previous configuration and rules stay in force");
		c->stats.reload_failures++;
		policy_free(np);
		if (c->env.reloading != NULL)
			c->env.reloading(c->env.loop_arg, false);
		return -EINVAL;
	}
	gate_forget(c); /* its records name the old policy's hierarchies */
	c->env.cgfs->flush(c->env.cgfs->arg); /* mounts may have changed */
	memset(c->dropped, 0, sizeof(c->dropped));
	c->pol = np;
	policy_free(old);
	if (nftsets_policy(c) < 0)
		log_error("nft sets are not kept until the next reload");
	groups_prepare(c);
	log_set_level(np->cfg->log_level);
	c->stats.reloads++;
	log_notice("reloaded: %zu rules, %zu managed hierarchies", rules_count(np->rules),
		   np->n);
	if (c->env.apply != NULL)
		c->env.apply(c->env.loop_arg, np->cfg);
	c->wants_dirty = true; /* the rules may need other credentials */
	core_sync_wants(c);
	core_rescan(c, now); /* apply the new rules to running processes */
	nftsets_sync(c);     /* sets added, sets no longer named emptied */
	if (c->env.reloading != NULL)
		c->env.reloading(c->env.loop_arg, false);
	return 0;
}

/* ---- boosts ------------------------------------------------------------------------ */

int
core_boost_start(struct core *c, const struct boost_request *r, struct boost_info *info,
		 char *err, size_t errlen)
{
	int rc = boost_start(c, r, info, err, errlen);

	if (rc < 0)
		return rc;
	classify_alone(c, r->pid); /* the process may be gone by now: info is a copy */
	core_sync_wants(c);  /* forks reported before the answer */
	return 0;
}

int
core_boost_end(struct core *c, unsigned id, const char *why)
{
	struct boost *b = boost_take(c, id);

	if (b == NULL)
		return -ENOENT;
	log_notice("boost #%u ended (%s); %zu process%s back to the rules", b->id, why, b->n,
		   b->n == 1 ? "" : "es");
	struct decision *d = decision_new(c->pol);
	for (size_t i = 0; i < b->n; i++)
		if (d != NULL && task_alive(c->env.procroot, b->m[i]))
			classify(c, b->m[i].pid, d);
	if (d == NULL) {
		log_warning("out of memory: the processes of boost #%u are classified at a "
			    "rescan",
			    b->id);
		request_rescan(c);
	}
	decision_free(d);
	/* a full boost's group may still hold children of the children it
	 * refused, forked before those were placed: a rescan finds them */
	if (b->full) {
		request_rescan(c);
		c->rescan_why = "for the processes a full boost did not admit";
	}
	boost_free(b);
	return 0;
}

/* ---- sticky requests ------------------------------------------------------------------ */

bool
core_owns(uid_t asker, const struct task *t)
{
	return asker == 0 || t->uid == asker || t->euid == asker;
}

int
core_make_sticky(struct core *c, pid_t pid, uid_t peer, int flag)
{
	struct task task, *t = &task;
	struct procid id;
	int rc;

	if (flag < 0 || flag > 2)
		return -EINVAL;
	if ((rc = task_read(c->env.procroot, pid, 0, t)) < 0)
		return rc;
	if (!core_owns(peer, t))
		return -EPERM;
	if ((rc = task_procid(c->env.procroot, pid, &id)) < 0)
		return rc;
	const struct proc *p = proc_known(c, pid);
	unsigned flags = p != NULL ? p->flags : 0;
	/* an administrator's pin is policy: its owner cannot undo it */
	if ((flags & PROC_ROOT_PIN) && peer != 0) {
		log_warning("sticky request of uid %u for pid %d (%s) refused: root pinned it",
			    (unsigned)peer, (int)pid, t->comm);
		return -EPERM;
	}
	flags &= ~(PROC_STICKY | PROC_STICKY_CHILDREN | PROC_ROOT_PIN);
	if (flag == 2) {
		if ((rc = proctab_set(c->procs, id, flags)) == 0)
			log_info("pid %d (%s) is no longer sticky", (int)pid, t->comm);
		return rc;
	}
	/* a boost must end by itself: pinning would make it permanent */
	if (flags & PROC_BOOSTED) {
		log_warning("sticky request for pid %d (%s) refused: it is boosted", (int)pid,
			    t->comm);
		return -EBUSY;
	}
	rc = proctab_set(c->procs, id,
			 flags | PROC_STICKY | (flag == 1 ? PROC_STICKY_CHILDREN : 0) |
				 (peer == 0 ? PROC_ROOT_PIN : 0));
	if (rc == 0)
		log_info("pid %d (%s) is sticky%s (sticky)", (int)pid, t->comm,
			 flag == 1 ? " with its children" : "");
	core_sync_wants(c); /* forks reported before the answer */
	return rc;
}

/* ---- life cycle ------------------------------------------------------------------------- */

struct core *
core_new(const struct core_options *o, const struct report *rep)
{
	struct core *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->env = o->env;
	c->ov = o->ov;
	c->dry_run = o->dry_run;
	if (c->env.procroot == NULL)
		c->env.procroot = "/proc";
	if (c->env.mountinfo == NULL)
		c->env.mountinfo = "/proc/self/mountinfo";
	if (c->env.wall == NULL)
		c->env.wall = real_wall;
	LIST_INIT(&c->made);
	TAILQ_INIT(&c->boosts);
	ratelimit_init(&c->askrate, ASK_RATE, ASK_BURST, ASK_USERS);
	c->save_backoff = (struct backoff){ .first = 1, .max = BOOST_SAVE_RETRY_MAX };
	c->next_boost = 1;
	c->started = c->env.wall();
	c->last_rescan = -RESCAN_INTERVAL;
	c->last_save = -BOOST_SAVE_INTERVAL;
	c->procs = proctab_new();
	if (c->env.cgfs == NULL) {
		c->fds = cgfs_cache_new();
		c->real_cgfs = (struct core_cgfs){ .mkdir = real_mkdir,
						   .set = real_set,
						   .move = real_move,
						   .rmdir = real_rmdir,
						   .is_empty = real_is_empty,
						   .flush = real_flush,
						   .arg = c->fds,
						   .get = real_get,
						   .children = real_children,
						   .id = real_id,
						   .id_live = real_id_live,
						   .move_now = real_move };
		c->env.cgfs = &c->real_cgfs;
	}
	if (c->procs != NULL)
		proctab_watch(c->procs, wants_changed, c);
	c->wants_dirty = true; /* the first set is handed over at start */
	if (c->procs == NULL || (c->env.cgfs == &c->real_cgfs && c->fds == NULL) ||
	    nftsets_new(c) < 0)
		goto fail;
	if ((c->pol = build_policy(c, rep)) == NULL || choose_backend(c, c->pol, rep) < 0 ||
	    nftsets_policy(c) < 0)
		goto fail;
	return c;
fail:
	core_free(c);
	return NULL;
}

void
core_start(struct core *c, double now)
{
	const struct policy *p = c->pol;

	c->now = now;
	log_notice("started: %zu rules, %zu managed hierarchies%s", rules_count(p->rules), p->n,
		   c->dry_run ? ", dry run" : "");
	for (size_t i = 0; i < p->n; i++)
		if (!p->virt[i])
			log_info("managing %s at %s", p->labels[i], p->managed[i]->mount);
	for (size_t k = 0; k < p->nlayout; k++)
		log_info("composing %s (%u level%s) into unified:%s/... at %s",
			 p->names[p->layout[k]], p->depth[p->layout[k]],
			 p->depth[p->layout[k]] == 1 ? "" : "s", p->uroot, p->v2->mount);
	if (c->env.apply != NULL)
		c->env.apply(c->env.loop_arg, p->cfg);
	boost_restore(c); /* before the scan, which applies them */
	core_sync_wants(c); /* the events the policy and the boosts need */
	groups_prepare(c);
	groups_leftovers(c); /* a former run's template groups: empty ones go */
	core_rescan(c, now); /* every process already running */
	nftsets_sync(c);     /* and the sets hold every group of theirs */
}

void
core_stop(struct core *c)
{
	groups_release(c);
	if (c->state_dirty || c->members_dirty) {
		c->state_dirty = true; /* the last write before exit is durable */
		boost_save_now(c);
	}
}

void
core_free(struct core *c)
{
	if (c == NULL)
		return;
	boost_free_all(c);
	nftsets_free(c);
	gate_free(c);
	policy_free(c->pol);
	proctab_free(c->procs);
	groups_forget_made(c);
	ratelimit_free(&c->askrate);
	cgfs_cache_free(c->fds);
	free(c->pending);
	free(c);
}

/* ---- what there is to see --------------------------------------------------------------- */

const struct core_stats *
core_stats(const struct core *c)
{
	return &c->stats;
}

const struct policy *
core_policy(const struct core *c)
{
	return c->pol;
}

const struct config *
core_config(const struct core *c)
{
	return c->pol->cfg;
}

int
core_check(const struct overrides *o, const struct report *rep, char *buf, size_t len)
{
	struct policy *p = policy_build(o, NULL, NULL, rep);

	if (p == NULL)
		return -EINVAL;
	snprintf(buf, len, "%s: %zu rules, %zu managed hierarchies", p->cfg->rules,
		 rules_count(p->rules), p->n);
	policy_free(p);
	return 0;
}

const char *
core_user_name(struct core *c, uid_t uid)
{
	return policy_user(c->pol, uid);
}

time_t
core_started(const struct core *c)
{
	return c->started;
}

bool
core_paused(const struct core *c)
{
	return c->paused;
}

void
core_set_paused(struct core *c, bool paused, double now)
{
	bool was = c->paused;

	c->paused = paused;
	if (was && !paused)
		core_rescan(c, now); /* catch up */
}

int
core_read_task(const struct core *c, pid_t pid, struct task *t)
{
	return task_read(c->env.procroot, pid, 0, t);
}

void
core_move_done(struct core *c, pid_t pid, int rc)
{
	if (rc == 0)
		c->stats.moves++;
	else if (rc == -ESRCH)
		c->stats.vanished++;
	else
		c->stats.move_failures++;
}

void
core_moves_lost(struct core *c, double now)
{
	c->now = now;
	request_rescan(c);
}
