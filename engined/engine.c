/*
 * engine.c -- the daemon's event loop and classification pipeline.
 *
 *   proc connector ──▶ batch of events ──▶ pending thread groups
 *        ──▶ classify(): snapshot, rules, act ──▶ cgroupfs
 *
 * Events are drained in batches; every thread group named by an EXEC,
 * UID or GID event of a batch is classified once, after the batch.
 * FORK and EXIT only update bookkeeping.  Lost events trigger a
 * rate-limited rescan of /proc.
 */
#include "engined.h"
#include "engined_private.h"

#include <errno.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <unistd.h>

#define BATCH_DATAGRAMS 64  /* datagrams read per wake-up */
#define EVENTS_PER_DGRAM 16
#define RESCAN_INTERVAL 1.0 /* seconds between two rescans at most */
#define CLEANUP_INTERVAL 2.0

/* A group the daemon made from a template, removed once empty. */
struct made_group {
	char *hier;  /* hierarchy name, as in /proc/PID/cgroup */
	char *path;
	LIST_ENTRY(made_group) link;
};

struct engine {
	struct ev_loop *loop;
	struct engine_options opts;
	struct policy *pol;
	struct procev *pe;
	struct tasktab *tasks;
	struct sticky_server *sticky;
	struct rules_decision *dec; /* RULES_MAX_HIERS of them */
	struct hooks_slot *slots;   /* the same, as the Lua hook sees them */
	bool *hooked;		    /* decision i was made by the hook */
	pid_t *pending;
	size_t npending, cap;
	ev_io pe_watcher;
	ev_signal sig_hup, sig_usr2, sig_term, sig_int;
	ev_timer rescan_timer, cleanup_timer;
	ev_tstamp last_rescan;
	LIST_HEAD(, made_group) made;
	struct engine_stats stats;
	int ready_fd;
};

/* ---- acting on decisions ------------------------------------------------ */

static const struct hier *
managed_by_name(const struct policy *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->names[i], name) == 0)
			return p->managed[i];
	return NULL;
}

static void
remember_made(struct engine *e, const struct hier *h, const char *path)
{
	struct made_group *g;

	LIST_FOREACH(g, &e->made, link)
		if (strcmp(g->hier, h->name) == 0 && strcmp(g->path, path) == 0)
			return;
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return;
	g->hier = strdup(h->name);
	g->path = strdup(path);
	if (g->hier == NULL || g->path == NULL) {
		free(g->hier);
		free(g->path);
		free(g);
		return;
	}
	LIST_INSERT_HEAD(&e->made, g, link);
	if (!ev_is_active(&e->cleanup_timer))
		ev_timer_again(e->loop, &e->cleanup_timer);
}

static void
apply_settings(const struct hier *h, const char *path,
	       const struct group_conf *g)
{
	for (size_t i = 0; g != NULL && i < g->nset; i++) {
		char key[256];
		const char *eq = strchr(g->set[i], '=');
		size_t klen = (size_t)(eq - g->set[i]);

		if (klen >= sizeof(key))
			continue;
		memcpy(key, g->set[i], klen);
		key[klen] = '\0';
		int rc = cgfs_set(h, path, key, eq + 1);
		if (rc < 0)
			log_warning("cannot set %s=%s on %s:%s: %s", key, eq + 1,
				    h->name, path, strerror(-rc));
		else
			log_info("set %s=%s on %s:%s", key, eq + 1, h->name, path);
	}
}

/* Create group path in managed hierarchy i, with its settings. */
static int
create_group(struct engine *e, size_t i, const char *path,
	     const struct rules_rule *rule)
{
	const struct policy *p = e->pol;
	const struct hier *h = p->managed[i];
	bool created;
	int rc = cgfs_mkdir(h, path, &created);

	if (rc < 0 || !created)
		return rc;
	e->stats.groups_created++;
	log_info("created group %s:%s", h->name, path);
	const struct group_conf *g = policy_settings(p, i, path);
	if (g == NULL && rule != NULL && rule->templated)
		g = policy_settings(p, i, rule->dest); /* settings for the template */
	apply_settings(h, path, g);
	if (rule != NULL && rule->templated && p->cfg->remove_empty)
		remember_made(e, h, path);
	return 0;
}

static void
move(struct engine *e, size_t i, const struct task *t, const char *dest,
     const struct rules_rule *rule, const char *why)
{
	const struct hier *h = e->pol->managed[i];
	char reason[512];

	if (rule != NULL)
		snprintf(reason, sizeof(reason), "%s:%u", rule->file, rule->line);
	else
		snprintf(reason, sizeof(reason), "%s", why);
	if (e->opts.dry_run) {
		log_info("would move pid %d (%s) to %s:%s (%s)", (int)t->pid,
			 t->comm, h->name, dest, reason);
		return;
	}
	int rc = cgfs_move(h, dest, t->pid);
	if (rc == -ENOENT && (rc = create_group(e, i, dest, rule)) == 0)
		rc = cgfs_move(h, dest, t->pid);
	if (rc == 0) {
		e->stats.moves++;
		log_info("moved pid %d (%s) to %s:%s (%s)", (int)t->pid, t->comm,
			 h->name, dest, reason);
	} else if (rc == -ESRCH) {
		e->stats.vanished++;
	} else {
		e->stats.move_failures++;
		log_warning("cannot move pid %d (%s) to %s:%s: %s (%s%s/cgroup.procs)",
			    (int)t->pid, t->comm, h->name, dest, strerror(-rc),
			    h->mount, dest);
	}
}

/* ---- classification ----------------------------------------------------- */

/* Is pid a sticky process (and still the same process)? */
static bool
is_sticky(struct engine *e, pid_t pid)
{
	uint64_t start;

	if (!(tasktab_flags(e->tasks, pid) & TASK_STICKY))
		return false;
	if (task_start_time("/proc", pid, &start) == 0 &&
	    start == tasktab_start(e->tasks, pid))
		return true;
	tasktab_forget(e->tasks, pid); /* exited; the pid was reused */
	return false;
}

/* Callbacks through which the Lua hook reads a task. */
struct hook_view {
	const struct task *t;
	const struct task_cgroups *cg;
};

static int
hook_cmdline(void *arg, char *buf, size_t len)
{
	const struct hook_view *v = arg;

	return task_read_cmdline("/proc", v->t->pid, buf, len);
}

static const char *
hook_cgroup(void *arg, const char *hier)
{
	const struct hook_view *v = arg;

	return task_cgroup_of(v->cg, hier);
}

/* Let the Lua hook revise e->dec; mark what it changed in e->hooked. */
static void
run_hook(struct engine *e, const struct task *t, const struct task_cgroups *cg)
{
	struct policy *p = e->pol;
	struct hook_view view = { .t = t, .cg = cg };
	static char why[RULES_MAX_HIERS][256];
	struct hooks_task ht = {
		.pid = t->pid, .ppid = t->ppid, .uid = t->uid, .euid = t->euid,
		.gid = t->gid, .egid = t->egid, .groups = t->groups,
		.ngroups = t->ngroups, .comm = t->comm, .exe = t->exe,
		.cmdline = hook_cmdline, .cgroup = hook_cgroup, .arg = &view,
	};

	for (size_t i = 0; i < p->n; i++) {
		const struct rules_decision *d = &e->dec[i];
		struct hooks_slot *s = &e->slots[i];

		s->hier = p->names[i];
		s->set = d->move;
		snprintf(s->dest, sizeof(s->dest), "%s", d->move ? d->dest : "");
		s->why = NULL;
		if (d->rule != NULL) {
			snprintf(why[i], sizeof(why[i]), "%s:%u", d->rule->file,
				 d->rule->line);
			s->why = why[i];
		}
	}
	e->stats.hook_calls++;
	if (hooks_classify(p->hooks, &ht, e->slots, p->n) < 0) {
		e->stats.hook_errors++;
		return; /* the rules' decision stands */
	}
	for (size_t i = 0; i < p->n; i++) {
		struct rules_decision *d = &e->dec[i];
		const struct hooks_slot *s = &e->slots[i];

		if (!s->changed)
			continue;
		e->stats.hook_changes++;
		e->hooked[i] = true;
		d->move = s->set;
		snprintf(d->dest, sizeof(d->dest), "%s", s->dest);
		log_debug("pid %d (%s): Lua hook %s %s:%s", (int)t->pid, t->comm,
			  s->set ? "chose" : "cleared", s->hier, s->set ? s->dest : "");
	}
}

static void
classify(struct engine *e, pid_t pid)
{
	struct policy *p = e->pol;
	static struct task t; /* 8 KiB: kept off the stack */
	struct task_cgroups cg;
	const char *current[RULES_MAX_HIERS] = { 0 };
	unsigned what = 0;

	if (is_sticky(e, pid))
		return;
	if (rules_need_process(p->rules))
		what |= TASK_EXE | TASK_SCRIPT;
	if (rules_need_realtime(p->rules))
		what |= TASK_RT;
	int rc = task_read("/proc", pid, what, &t);
	if (rc < 0) {
		if (rc == -ESRCH)
			e->stats.vanished++;
		else
			log_debug("cannot read /proc/%d: %s", (int)pid, strerror(-rc));
		return;
	}
	if (t.kthread)
		return;
	if ((rc = task_read_cgroups("/proc", pid, &cg)) < 0) {
		if (rc == -ESRCH)
			e->stats.vanished++;
		return;
	}
	for (size_t i = 0; i < p->n; i++)
		current[i] = task_cgroup_of(&cg, p->names[i]);
	e->stats.classified++;

	struct rules_task rt = {
		.pid = t.pid, .uid = t.uid, .euid = t.euid, .gid = t.gid,
		.egid = t.egid, .groups = t.groups, .ngroups = t.ngroups,
		.exe = t.exe[0] ? t.exe : NULL, .comm = t.comm,
		.script = t.script[0] ? t.script : NULL,
		.cgroups = current, .realtime = t.realtime,
	};
	if (p->need_names) {
		rt.user = policy_user(p, t.euid);
		rt.group = policy_group(p, t.egid);
	}
	rules_match(p->rules, &rt, e->dec);
	memset(e->hooked, 0, p->n * sizeof(*e->hooked));
	char hook_reason[512] = "";
	if (hooks_has_classify(p->hooks)) {
		run_hook(e, &t, &cg);
		snprintf(hook_reason, sizeof(hook_reason), "Lua hook %s",
			 p->cfg->lua_script);
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct rules_decision *d = &e->dec[i];

		if (!d->move)
			continue;
		if (current[i] != NULL && strcmp(current[i], d->dest) == 0) {
			log_debug("pid %d (%s) already in %s:%s", (int)pid, t.comm,
				  p->names[i], d->dest);
			continue;
		}
		move(e, i, &t, d->dest, e->hooked[i] ? NULL : d->rule, hook_reason);
	}
}

static int
classify_cb(void *arg, pid_t pid)
{
	classify(arg, pid);
	return 0;
}

static void
rescan(struct engine *e)
{
	e->last_rescan = ev_now(e->loop);
	e->stats.rescans++;
	int rc = task_foreach("/proc", classify_cb, e);
	if (rc < 0)
		log_error("cannot scan /proc: %s", strerror(-rc));
}

static void
rescan_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct engine *e = w->data;

	log_notice("rescanning /proc after lost events");
	rescan(e);
}

/* Schedule a rescan, at most one per RESCAN_INTERVAL. */
static void
request_rescan(struct engine *e)
{
	if (ev_is_active(&e->rescan_timer))
		return;
	ev_tstamp wait = e->last_rescan + RESCAN_INTERVAL - ev_now(e->loop);
	ev_timer_set(&e->rescan_timer, wait > 0 ? wait : 0, 0);
	ev_timer_start(e->loop, &e->rescan_timer);
}

/* ---- events -------------------------------------------------------------- */

static void
add_pending(struct engine *e, pid_t tgid)
{
	for (size_t i = 0; i < e->npending; i++)
		if (e->pending[i] == tgid)
			return;
	if (e->npending == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 256;
		pid_t *v = realloc(e->pending, cap * sizeof(*v));

		if (v == NULL) {
			request_rescan(e); /* cannot remember: catch up later */
			return;
		}
		e->pending = v;
		e->cap = cap;
	}
	e->pending[e->npending++] = tgid;
}

static void
drop_pending(struct engine *e, pid_t tgid)
{
	for (size_t i = 0; i < e->npending; i++)
		if (e->pending[i] == tgid)
			e->pending[i] = 0;
}

static void
on_fork(struct engine *e, const struct procev_event *ev)
{
	uint64_t start;

	e->stats.ev_fork++;
	if (ev->pid != ev->tgid)
		return; /* a new thread, not a new process */
	if (!(tasktab_flags(e->tasks, ev->parent_tgid) & TASK_STICKY_CHILDREN))
		return;
	if (task_start_time("/proc", ev->tgid, &start) < 0)
		return;
	if (tasktab_set(e->tasks, ev->tgid, start,
			TASK_STICKY | TASK_STICKY_CHILDREN) < 0)
		log_warning("out of memory: pid %d not marked sticky", (int)ev->tgid);
}

static void
handle_event(struct engine *e, const struct procev_event *ev)
{
	switch (ev->type) {
	case PROCEV_FORK:
		on_fork(e, ev);
		break;
	case PROCEV_EXEC:
		e->stats.ev_exec++;
		add_pending(e, ev->tgid);
		break;
	case PROCEV_UID:
		e->stats.ev_uid++;
		add_pending(e, ev->tgid);
		break;
	case PROCEV_GID:
		e->stats.ev_gid++;
		add_pending(e, ev->tgid);
		break;
	case PROCEV_EXIT:
		e->stats.ev_exit++;
		if (ev->pid == ev->tgid) {
			drop_pending(e, ev->tgid);
			tasktab_forget(e->tasks, ev->tgid);
		}
		break;
	}
}

static void
procev_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct engine *e = w->data;
	struct procev_event ev[EVENTS_PER_DGRAM];

	for (int i = 0; i < BATCH_DATAGRAMS; i++) {
		int n = procev_recv(e->pe, ev, EVENTS_PER_DGRAM);

		if (n == -EAGAIN)
			break;
		if (n == -ENOBUFS) {
			e->stats.lost++;
			int size = procev_grow(e->pe);
			log_warning("kernel dropped process events; receive buffer now %d bytes, rescanning",
				    size);
			request_rescan(e);
			continue;
		}
		if (n < 0) {
			log_error("proc connector: %s", strerror(-n));
			break;
		}
		for (int k = 0; k < n; k++)
			handle_event(e, &ev[k]);
	}
	for (size_t i = 0; i < e->npending; i++)
		if (e->pending[i] != 0)
			classify(e, e->pending[i]);
	e->npending = 0;
}

/* ---- empty template groups ------------------------------------------------ */

static void
cleanup_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct engine *e = w->data;
	struct made_group *g, *next;

	for (g = LIST_FIRST(&e->made); g != NULL; g = next) {
		next = LIST_NEXT(g, link);
		const struct hier *h = managed_by_name(e->pol, g->hier);
		int rc = -ENOENT;

		if (h != NULL) {
			if (!cgfs_is_empty(h, g->path))
				continue;
			rc = cgfs_rmdir(h, g->path);
		}
		if (rc == -EBUSY)
			continue; /* has sub-groups, or a task just arrived */
		if (rc == 0) {
			e->stats.groups_removed++;
			log_info("removed empty group %s:%s", g->hier, g->path);
		}
		LIST_REMOVE(g, link);
		free(g->hier);
		free(g->path);
		free(g);
	}
	if (LIST_EMPTY(&e->made))
		ev_timer_stop(loop, w);
}

/* ---- signals and reload -------------------------------------------------- */

static void
log_report(void *arg, const char *msg)
{
	log_error("%s", msg);
}

static void
reload(struct engine *e)
{
	struct report rep = { .fn = log_report };
	struct policy *np;

	log_notice("reloading configuration and rules");
	if ((np = policy_build(&e->opts.ov, &rep)) == NULL) {
		e->stats.reload_failures++;
		log_error("reload failed; the previous configuration and rules stay in force");
		return;
	}
	struct policy *old = e->pol;
	e->pol = np;
	policy_free(old);
	log_set_level(np->cfg->log_level);
	e->stats.reloads++;
	log_notice("reloaded: %zu rules, %zu managed hierarchies",
		   rules_count(np->rules), np->n);
	rescan(e); /* apply the new rules to running processes */
}

static void
signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct engine *e = w->data;

	switch (w->signum) {
	case SIGHUP:
	case SIGUSR2:
		reload(e);
		break;
	default:
		log_notice("signal %d: exiting", w->signum);
		ev_break(loop, EVBREAK_ALL);
		break;
	}
}

/* ---- life cycle ------------------------------------------------------------ */

int
engine_make_sticky(struct engine *e, pid_t pid, uid_t peer, int flag)
{
	struct task t;
	uint64_t start;
	int rc;

	if (flag < 0 || flag > 2)
		return -EINVAL;
	if ((rc = task_read("/proc", pid, 0, &t)) < 0)
		return rc;
	if (peer != 0 && t.uid != peer && t.euid != peer)
		return -EPERM;
	if (flag == 2) {
		tasktab_forget(e->tasks, pid);
		log_info("pid %d (%s) is no longer sticky", (int)pid, t.comm);
		return 0;
	}
	if ((rc = task_start_time("/proc", pid, &start)) < 0)
		return rc;
	rc = tasktab_set(e->tasks, pid, start,
			 TASK_STICKY | (flag == 1 ? TASK_STICKY_CHILDREN : 0));
	if (rc == 0)
		log_info("pid %d (%s) is sticky%s (sticky)", (int)pid, t.comm,
			 flag == 1 ? " with its children" : "");
	return rc;
}

struct engine *
engine_new(const struct engine_options *opts)
{
	struct engine *e = calloc(1, sizeof(*e));
	struct report rep = { .fn = log_report };
	int rc;

	if (e == NULL)
		return NULL;
	e->opts = *opts;
	e->ready_fd = -1;
	LIST_INIT(&e->made);
	e->tasks = tasktab_new();
	e->dec = calloc(RULES_MAX_HIERS, sizeof(*e->dec));
	e->slots = calloc(RULES_MAX_HIERS, sizeof(*e->slots));
	e->hooked = calloc(RULES_MAX_HIERS, sizeof(*e->hooked));
	if (e->tasks == NULL || e->dec == NULL || e->slots == NULL || e->hooked == NULL)
		goto fail;
	if ((e->pol = policy_build(&opts->ov, &rep)) == NULL)
		goto fail;
	/* subscribe before anything is scanned, so no exec is missed */
	if ((rc = procev_open(&e->pe, (int)e->pol->cfg->netlink_buffer)) < 0) {
		log_error("cannot subscribe to the kernel's process events: %s%s",
			  strerror(-rc), rc == -EPERM ? " (run as root)" : "");
		goto fail;
	}
	if (e->pol->cfg->sticky_socket[0] != '\0' &&
	    (e->sticky = sticky_open(e->pol->cfg->sticky_socket, e)) == NULL)
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
	ev_signal *sigs[] = { &e->sig_hup, &e->sig_usr2, &e->sig_term, &e->sig_int };
	int nums[] = { SIGHUP, SIGUSR2, SIGTERM, SIGINT };

	for (size_t i = 0; i < 4; i++) {
		ev_signal_init(sigs[i], signal_cb, nums[i]);
		sigs[i]->data = e;
		ev_signal_start(e->loop, sigs[i]);
	}
	ev_io_init(&e->pe_watcher, procev_cb, procev_fd(e->pe), EV_READ);
	e->pe_watcher.data = e;
	ev_io_start(e->loop, &e->pe_watcher);
	ev_init(&e->rescan_timer, rescan_timer_cb);
	e->rescan_timer.data = e;
	ev_init(&e->cleanup_timer, cleanup_cb);
	e->cleanup_timer.repeat = CLEANUP_INTERVAL;
	e->cleanup_timer.data = e;
	if (e->sticky != NULL)
		sticky_start(e->sticky, e->loop);
}

int
engine_run(struct engine *e)
{
	const char *pidfile = e->pol->cfg->pidfile;

	if ((e->loop = ev_default_loop(EVFLAG_AUTO)) == NULL) {
		log_error("cannot initialise the event loop");
		return 1;
	}
	if (pidfile_write(pidfile) < 0)
		return 1;
	start_watchers(e);
	log_notice("started: %zu rules, %zu managed hierarchies%s",
		   rules_count(e->pol->rules), e->pol->n,
		   e->opts.dry_run ? ", dry run" : "");
	for (size_t i = 0; i < e->pol->n; i++)
		log_info("managing %s at %s", e->pol->names[i], e->pol->managed[i]->mount);
	rescan(e); /* every process already running */
	log_notice("ready: running processes classified (%llu moves)",
		   (unsigned long long)e->stats.moves);
	if (e->ready_fd >= 0) {
		if (write(e->ready_fd, "1", 1) != 1)
			log_debug("the starting parent has gone");
		close(e->ready_fd);
		e->ready_fd = -1;
	}
	ev_run(e->loop, 0);
	if (e->sticky != NULL)
		sticky_close(e->sticky, e->loop);
	e->sticky = NULL;
	pidfile_remove(pidfile);
	log_notice("stopped");
	return 0;
}

const struct config *
engine_config(const struct engine *e)
{
	return e->pol->cfg;
}

const struct engine_stats *
engine_stats(const struct engine *e)
{
	return &e->stats;
}

void
engine_free(struct engine *e)
{
	struct made_group *g;

	if (e == NULL)
		return;
	if (e->sticky != NULL)
		sticky_close(e->sticky, NULL);
	procev_close(e->pe);
	policy_free(e->pol);
	tasktab_free(e->tasks);
	while ((g = LIST_FIRST(&e->made)) != NULL) {
		LIST_REMOVE(g, link);
		free(g->hier);
		free(g->path);
		free(g);
	}
	free(e->dec);
	free(e->slots);
	free(e->hooked);
	free(e->pending);
	free(e);
}
