/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * core.c -- the core's life cycle, the events it is fed, and its
 * deadlines.
 *
 *   kernel event ──▶ core_event(): bookkeeping, pending thread groups
 *   end of batch ──▶ core_batch_done(): classify() each of them once
 *   deadline     ──▶ core_timeout(): each subsystem's own (deferred
 *                    entries, rescans, boosts, empty groups, nft sets,
 *                    the exec gate), each with its deadline
 *
 * The loop owns every watcher and timer; the core only says, through
 * core_next_deadline(), when it next wants to be called.
 */
#include "core_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the real clock ---------------------------------------------------------- */

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

/* ---- pending thread groups (pending.c) ------------------------------------------ */

void
core_batch_done(struct core *c, double now)
{
	c->now = now;
	pending_run(c);
}

/* ---- events ------------------------------------------------------------------------ */

static void
on_fork(struct core *c, const struct procev_event *ev)
{
	struct procid child;

	if (ev->pid != ev->tgid)
		return; /* a new thread, not a new process */
	if (c->gate != NULL)
		gate_fork(c, ev->parent_tgid, ev->tgid); /* its exec may not hold */
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
		pending_drop(c, ev->tgid);
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
			gate_exec_seen(c, ev->tgid); /* did a held exec hold? */
		pending_note_exec(c, pending_add(c, ev->tgid, true, ev->ts_ns), ev);
		break;
	case PROCEV_UID:
		c->stats.ev_uid++;
		pending_note_ids(c, pending_add(c, ev->tgid, false, 0), ev);
		break;
	case PROCEV_GID:
		c->stats.ev_gid++;
		pending_note_ids(c, pending_add(c, ev->tgid, false, 0), ev);
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
	pending_ids_lost(c); /* a UID event may be missing */
	rescan_request(c, "after lost events");
}

/* ---- deadlines ------------------------------------------------------------------------ */

/*
 * The subsystems that want to be called at times of their own: when
 * next (monotonic; 0 = nothing to do) and what to do then (each does
 * only what is due, so all are called), in this order.
 */
static const struct subsystem {
	double (*deadline)(const struct core *c, double now);
	void (*timeout)(struct core *c, double now);
} subsystems[] = {
	{ pending_deadline, pending_timeout }, /* deferred entries */
	{ rescan_deadline, rescan_timeout },
	{ boost_deadline, boost_timeout }, /* expiry, the state file */
	{ groups_deadline, groups_timeout }, /* empty template groups */
	{ nftsets_deadline, nftsets_timeout },
	{ gate_deadline, gate_timeout }, /* execs the gate let go that did not happen */
};
#define NSUBSYSTEMS (sizeof(subsystems) / sizeof(subsystems[0]))

double
core_next_deadline(const struct core *c, double now)
{
	double t = 0;

	for (size_t i = 0; i < NSUBSYSTEMS; i++) {
		double at = subsystems[i].deadline(c, now);

		if (at > 0 && (t <= 0 || at < t))
			t = at;
	}
	return t > 0 ? t : -1;
}

void
core_timeout(struct core *c, double now)
{
	c->now = now;
	for (size_t i = 0; i < NSUBSYSTEMS; i++)
		subsystems[i].timeout(c, now);
}

/* ---- reload ------------------------------------------------------------------------ */

/* Has backend b every slot of its placement part (backend.h)?  0, or
 * -1 after reporting to rep. */
static int
placement_complete(const struct backend *b, const struct report *rep)
{
	const struct backend_placement *pl = b != NULL ? &b->place : NULL;

	if (pl != NULL && pl->mkdir != NULL && pl->set != NULL && pl->move != NULL &&
	    pl->rmdir != NULL && pl->is_empty != NULL && pl->flush != NULL)
		return 0;
	report_msg(rep, "no placement backend: cannot place processes");
	return -1;
}

/* Ask the loop for the placement backend policy p names; 0 or -1. */
static int
choose_backend(struct core *c, const struct policy *p, const struct report *rep)
{
	const struct backend *b = NULL;

	if (c->env.backend == NULL)
		return 0;
	int rc = c->env.backend(c->env.loop_arg, p->backend, p->uroot, &b);
	if (rc < 0) {
		report_msg(rep, "%s: backend: cannot place processes: %s",
			   p->cfg->file[0] ? p->cfg->file : "built-in config", strerror(-rc));
		return -1;
	}
	if (b != NULL && placement_complete(b, rep) < 0)
		return -1;
	c->env.cgfs = b != NULL ? b : c->base;
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
	backend_flush(c->env.cgfs); /* mounts may have changed */
	memset(c->dropped, 0, sizeof(c->dropped));
	c->pol = np;
	policy_free(old);
	if (nftsets_policy(c) < 0)
		log_error("nft sets are not kept until the next reload");
	groups_prepare(c);
	placed_policy(c);
	boost_policy(c); /* boosts follow their profiles; the rescan moves them */
	log_set_level(np->cfg->log_level);
	c->stats.reloads++;
	fleet_loaded(c);
	log_notice("reloaded: %zu rules, %zu managed hierarchies", rules_count(np->rules),
		   np->n);
	if (c->env.apply != NULL)
		c->env.apply(c->env.loop_arg, np->cfg);
	wants_changed(c); /* the rules may need other credentials */
	core_sync_wants(c);
	core_rescan(c, now); /* apply the new rules to running processes */
	nftsets_sync(c);     /* sets added, sets no longer named emptied */
	if (c->env.reloading != NULL)
		c->env.reloading(c->env.loop_arg, false);
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
		if ((rc = proctab_set(c->procs, id, flags)) == 0) {
			log_info("pid %d (%s) is no longer sticky", (int)pid, t->comm);
			boost_sticky_changed(c, true);
		}
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
	if (rc == 0) {
		log_info("pid %d (%s) is sticky%s (sticky)", (int)pid, t->comm,
			 flag == 1 ? " with its children" : "");
		boost_sticky_changed(c, true); /* kept across a restart */
	}
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
	LIST_INIT(&c->made.list);
	rescan_init(c);
	ratelimit_init(&c->askrate, ASK_RATE, ASK_BURST, ASK_USERS);
	c->started = c->env.wall();
	fleet_loaded(c);
	c->procs = proctab_new();
	c->base = c->env.cgfs;
	if (c->procs != NULL)
		proctab_watch(c->procs, proc_changed, c);
	wants_changed(c); /* the first set is handed over at start */
	if (c->procs == NULL || placement_complete(c->base, rep) < 0 || boost_init(c) < 0 ||
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
	placed_policy(c); /* before apply: the BPF filter asks which hierarchies */
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
	boost_stop(c);
}

void
core_free(struct core *c)
{
	if (c == NULL)
		return;
	boost_free_all(c);
	fgprio_free(c);
	nftsets_free(c);
	gate_free(c);
	gate_ready_free(c);
	policy_free(c->pol);
	proctab_free(c->procs);
	groups_forget_made(c);
	placed_free(c);
	ratelimit_free(&c->askrate);
	pending_free(c);
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
	char ananicy[256];

	if (p == NULL)
		return -EINVAL;
	ananicy_policy_summary(p, ananicy, sizeof(ananicy));
	snprintf(buf, len, "%s: %zu rules, %zu managed hierarchies%s", p->cfg->rules,
		 rules_count(p->rules), p->n, ananicy);
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

int
core_execkeys(const struct core *c, struct execkeys *out)
{
	struct execkeys_policy pol = { .hooks = c->pol->hooks != NULL,
				       .layout = c->pol->nlayout > 0,
				       .ananicy = c->pol->ananicy };

	int rc = execkeys_build(c->pol->rules, &pol, out);

	if (rc == 0)
		out->nhiers = placed_hiers(c, out->hiers, EXECKEYS_HIERS, &out->hiers_backward);
	return rc;
}

void
core_set_event_source(struct core *c, const char *name)
{
	c->event_source = name;
}

const char *
core_event_source(const struct core *c)
{
	return c->event_source != NULL ? c->event_source : "netlink";
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

int
core_read_cgroups(const struct core *c, pid_t pid, struct task_cgroups *out)
{
	return task_read_cgroups(c->env.procroot, pid, out);
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
	if (rc != -ESRCH) /* queued moves are the systemd backend's: unified */
		fleet_count_move(c, "unified", rc == 0);
}

void
core_moves_lost(struct core *c, double now)
{
	c->now = now;
	rescan_request(c, NULL);
}
