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

#define BATCH_READS	 16 /* recvmmsg() calls per wake-up */
#define EVENTS_PER_READ	 64
#define RESCAN_INTERVAL	 1.0 /* seconds between two rescans at most */
#define CLEANUP_INTERVAL 2.0

static int
classify_cb(void *arg, pid_t pid)
{
	classify(arg, pid);
	return 0;
}

void
engine_rescan(struct engine *e)
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
	engine_rescan(e);
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

#define DEFER_DELAY 0.002 /* how long a uid/gid-only entry may wait */

static void
add_pending(struct engine *e, pid_t tgid, bool exec)
{
	for (size_t i = 0; i < e->npending; i++)
		if (e->pending[i].tgid == tgid) {
			e->pending[i].exec |= exec;
			return;
		}
	if (e->npending == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 256;
		struct pending *v = realloc(e->pending, cap * sizeof(*v));

		if (v == NULL) {
			request_rescan(e); /* cannot remember: catch up later */
			return;
		}
		e->pending = v;
		e->cap = cap;
	}
	e->pending[e->npending++] = (struct pending){ .tgid = tgid, .exec = exec };
}

static void
drop_pending(struct engine *e, pid_t tgid)
{
	for (size_t i = 0; i < e->npending; i++)
		if (e->pending[i].tgid == tgid)
			e->pending[i].tgid = 0;
}

/*
 * Classify what the batch asked for.  A uid/gid change is usually
 * followed at once by an exec (su, sudo, login, setpriv): such entries
 * wait one batch (at most DEFER_DELAY) so the process is classified
 * once, after its exec, instead of twice.  `all` flushes everything.
 */
static void
run_pending(struct engine *e, bool all)
{
	size_t kept = 0;

	for (size_t i = 0; i < e->npending; i++) {
		struct pending *p = &e->pending[i];

		if (p->tgid == 0)
			continue;
		if (!all && !p->exec && !p->waited) {
			p->waited = true;
			e->pending[kept++] = *p;
			continue;
		}
		classify(e, p->tgid);
	}
	e->npending = kept;
	if (kept > 0 && !ev_is_active(&e->defer_timer)) {
		ev_timer_set(&e->defer_timer, DEFER_DELAY, 0);
		ev_timer_start(e->loop, &e->defer_timer);
	}
}

static void
defer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	run_pending(w->data, true);
}

static void
on_fork(struct engine *e, const struct procev_event *ev)
{
	uint64_t start;

	e->stats.ev_fork++;
	if (ev->pid != ev->tgid)
		return; /* a new thread, not a new process */
	unsigned pflags = tasktab_flags(e->tasks, ev->parent_tgid);
	if (pflags == 0)
		return; /* the common case: nothing to inherit */
	if (pflags & TASK_BOOSTED)
		boost_fork(e, ev->parent_tgid, ev->tgid);
	if (!(pflags & TASK_STICKY_CHILDREN))
		return;
	if (task_start_time("/proc", ev->tgid, &start) < 0)
		return;
	unsigned flags = tasktab_flags(e->tasks, ev->tgid);
	if (tasktab_set(e->tasks, ev->tgid, start,
			flags | TASK_STICKY | TASK_STICKY_CHILDREN) < 0)
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
		add_pending(e, ev->tgid, true);
		break;
	case PROCEV_UID:
		e->stats.ev_uid++;
		add_pending(e, ev->tgid, false);
		break;
	case PROCEV_GID:
		e->stats.ev_gid++;
		add_pending(e, ev->tgid, false);
		break;
	case PROCEV_EXIT:
		e->stats.ev_exit++;
		if (ev->pid == ev->tgid) {
			drop_pending(e, ev->tgid);
			if (tasktab_flags(e->tasks, ev->tgid) & TASK_BOOSTED)
				boost_exit(e, ev->tgid);
			tasktab_forget(e->tasks, ev->tgid);
		}
		break;
	}
}

static void
procev_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct engine *e = w->data;
	struct procev_event ev[EVENTS_PER_READ];

	for (int i = 0; i < BATCH_READS; i++) {
		int n = procev_recv(e->pe, ev, EVENTS_PER_READ);

		if (n == -EAGAIN)
			break;
		if (n == -ENOBUFS) {
			e->stats.lost++;
			int size = procev_grow(e->pe);
			log_warning(
				"kernel dropped process events; receive buffer now %d bytes, rescanning",
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
	run_pending(e, false);
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
			cgfs_cache_flush(e->fds); /* no open file inside it */
			rc = cgfs_rmdir(h, g->path);
		}
		if (rc == -EBUSY)
			continue; /* has sub-groups, or a task just arrived */
		if (rc == 0) {
			e->stats.groups_removed++;
			log_info("removed empty group %s:%s", g->hier, g->path);
		}
		LIST_REMOVE(g, link);
		made_free(g);
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

void
engine_reload(struct engine *e)
{
	struct report rep = { .fn = log_report };
	struct policy *np;

	log_notice("reloading configuration and rules");
	notify_systemd("RELOADING=1");
	if ((np = policy_build(&e->opts.ov, &rep)) == NULL) {
		e->stats.reload_failures++;
		log_error(
			"reload failed; the previous configuration and rules stay in force");
		notify_systemd("READY=1");
		return;
	}
	struct policy *old = e->pol;
	cgfs_cache_flush(e->fds); /* mounts may have changed */
	e->pol = np;
	policy_free(old);
	log_set_level(np->cfg->log_level);
	e->stats.reloads++;
	log_notice("reloaded: %zu rules, %zu managed hierarchies", rules_count(np->rules),
		   np->n);
	engine_rescan(e); /* apply the new rules to running processes */
	notify_systemd("READY=1");
}

static void
signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct engine *e = w->data;

	switch (w->signum) {
	case SIGHUP:
	case SIGUSR2:
		engine_reload(e);
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
	if ((rc = task_start_time("/proc", pid, &start)) < 0)
		return rc;
	unsigned flags = classify_known(e, pid) ? tasktab_flags(e->tasks, pid) : 0;
	flags &= ~(TASK_STICKY | TASK_STICKY_CHILDREN);
	if (flag == 2) {
		rc = tasktab_set(e->tasks, pid, start, flags);
		log_info("pid %d (%s) is no longer sticky", (int)pid, t.comm);
		return rc;
	}
	rc = tasktab_set(e->tasks, pid, start,
			 flags | TASK_STICKY | (flag == 1 ? TASK_STICKY_CHILDREN : 0));
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
	TAILQ_INIT(&e->boosts);
	e->next_boost = 1;
	e->started = time(NULL);
	e->tasks = tasktab_new();
	e->dec = calloc(RULES_MAX_HIERS, sizeof(*e->dec));
	e->slots = calloc(RULES_MAX_HIERS, sizeof(*e->slots));
	e->verdicts = calloc(RULES_MAX_HIERS, sizeof(*e->verdicts));
	e->fds = cgfs_cache_new();
	if (e->tasks == NULL || e->dec == NULL || e->slots == NULL ||
	    e->verdicts == NULL || e->fds == NULL)
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
	if (e->pol->cfg->control_socket[0] != '\0' &&
	    (e->control = control_open(e->pol->cfg->control_socket, e)) == NULL)
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
	ev_init(&e->defer_timer, defer_cb);
	e->defer_timer.data = e;
	ev_init(&e->cleanup_timer, cleanup_cb);
	e->cleanup_timer.repeat = CLEANUP_INTERVAL;
	e->cleanup_timer.data = e;
	if (e->sticky != NULL)
		sticky_start(e->sticky, e->loop);
	if (e->control != NULL)
		control_start(e->control, e->loop);
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
		log_info("managing %s at %s", e->pol->labels[i],
			 e->pol->managed[i]->mount);
	boost_restore(e); /* before the scan, which applies them */
	engine_rescan(e); /* every process already running */
	log_notice("ready: running processes classified (%llu moves)",
		   (unsigned long long)e->stats.moves);
	notify_systemd("READY=1");
	if (e->ready_fd >= 0) {
		if (write(e->ready_fd, "1", 1) != 1)
			log_debug("the starting parent has gone");
		close(e->ready_fd);
		e->ready_fd = -1;
	}
	ev_run(e->loop, 0);
	notify_systemd("STOPPING=1");
	if (e->sticky != NULL)
		sticky_close(e->sticky, e->loop);
	e->sticky = NULL;
	control_close(e->control);
	e->control = NULL;
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
	control_close(e->control);
	boost_free_all(e);
	procev_close(e->pe);
	policy_free(e->pol);
	tasktab_free(e->tasks);
	while ((g = LIST_FIRST(&e->made)) != NULL) {
		LIST_REMOVE(g, link);
		made_free(g);
	}
	free(e->dec);
	free(e->slots);
	free(e->verdicts);
	cgfs_cache_free(e->fds);
	free(e->pending);
	free(e);
}
