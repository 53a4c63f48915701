/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdplace.c -- the systemd backend (see sdplace.h): the unified layout's
 * groups as slices and scopes PID 1 owns, every process moved by a call
 * to PID 1 over sd-bus, asynchronously.
 *
 * The core calls the table as it calls cgroupfs: mkdir() for each level
 * of a composed group it does not find, set() for the level's settings,
 * then move().  Here mkdir() and set() only note a unit to make and its
 * properties (the cgroupfs tells whether the unit's group exists: a
 * read, no call); move() turns the noted levels into StartTransientUnit
 * calls for slices, top down, and the leaf into a scope started with
 * the process (PIDs=), or attaches the process to the scope that exists
 * (AttachProcessesToUnit).  PID 1 handles one connection's calls in
 * order, so a slice exists before the scope in it starts.
 *
 * Retries, one clear rule: a scope that exists already is attached to,
 * a scope that has gone (it was emptied and collected) is started
 * again, a scope that is loaded but dead (its start failed) is reset
 * (ResetFailedUnit) and started again, at most MAX_TRIES calls per move;
 * from the second retry on, a move waits before it is sent again (0.1 s,
 * doubled each time: a scope being collected is neither startable nor
 * attachable until it has gone);
 * any other refusal is logged with systemd's error and the move given
 * up (the process is classified again at its next exec or rescan).
 * Moves of one process go one at a time, and attaches to a scope wait
 * until its start job has run: a scope's start job attaches its PIDs=
 * when it runs, after the call was answered (JobRemoved says when).  A
 * lost connection (PID 1 re-executing, a timeout) ends the moves in
 * flight; the backend reconnects with a back-off and the core rescans.
 */
#include "engined/backend/systemd/sdplace.h"
#include "engined/backend/systemd/sdunit.h"
#include "engined/backend/systemd/sdgate.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define CALL_TIMEOUT_US                                                                  \
	(10ull * 1000000) /* a call PID 1 has not answered by then is lost */
#define MAX_TRIES      8  /* calls per move (start, attach, reset, start ...) */
/* a retry is sent at once; from the second on, after 0.1 s, doubled for each next one */
static const struct backoff retry_pause = { .first = 0.1, .max = 6.4, .free = 1 };
#define PROPS_MAX      16 /* properties of one unit */
#define KNOWN_MAX      1024 /* scopes whose properties are remembered, at most */
#define CALLS_MAX      512 /* calls in flight or held, at most: a move beyond waits
			      for a rescan (a slow PID 1 must not grow the daemon) */
#define PRIVATE_SOCKET "unix:path=/run/systemd/private"

/* A unit mkdir() noted, not yet asked for. */
struct unitdef {
	char path[RULES_DEST_MAX]; /* the layout's group */
	struct sdprop props[PROPS_MAX];
	size_t nprops;
	TAILQ_ENTRY(unitdef) link;
};
TAILQ_HEAD(unitdef_head, unitdef);

enum op { OP_SLICE, OP_SCOPE, OP_ATTACH, OP_SET, OP_STOP, OP_RESET };

/* A call in flight. */
struct call {
	struct sdplace *s;
	enum op op;
	pid_t pid; /* OP_SCOPE, OP_ATTACH */
	unsigned tries;
	bool held;     /* an attach waiting for the scope's start call to be answered */
	uint64_t send_at; /* held until then: a retry while its unit changes state */
	uint64_t start;	  /* held: its process's start time (UINT64_MAX: gone), so
			     that a pid reused meanwhile is never moved */
	char job[128]; /* a start call answered: its job, until JobRemoved */
	uint64_t job_until;	   /* wait that long for it (monotonic us) */
	char path[RULES_DEST_MAX]; /* the layout's group it is about */
	char unit[SDUNIT_NAME_MAX];
	struct unitdef *def; /* OP_SLICE, OP_SCOPE, OP_SET: properties (owned) */
	LIST_ENTRY(call) link;
};

struct sdplace {
	sd_bus *bus;
	struct sdplace_hooks hooks;
	struct backend table;
	char root[RULES_DEST_MAX]; /* the root slice's group, "/cgengine.slice" */
	char prefix[SDUNIT_NAME_MAX];
	char own[RULES_DEST_MAX]; /* the daemon's own unit's group */
	struct unitdef_head pending;
	/* the properties of the scopes started, newest first: a scope
	 * collected and started again by a retry gets them too */
	struct unitdef_head known;
	size_t nknown;
	LIST_HEAD(, call) calls;
	size_t ncalls, nheld;
	bool full; /* a move was refused at CALLS_MAX: a rescan once below half */
	uint64_t retry_at; /* reconnect then (monotonic us; 0: connected) */
	bool direct;	   /* on PID 1's private socket (no broker, no sender names) */
	char pid1[64];	   /* on the system bus: PID 1's unique name, from its answers */
	struct backoff reconnect; /* 1, 2, 4 ... 30 s between reconnection attempts */
	bool lost; /* moves were lost: say so when connected again */
	struct sdgate *gate; /* the exec gate's scopes made ahead, or NULL */
};

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* ---- names of the layout's groups ------------------------------------------------- */

/* The part of layout group path below the root ("" for the root), or NULL. */
static const char *
rel_of(const struct sdplace *s, const char *path)
{
	size_t n = strlen(s->root);

	if (strncmp(path, s->root, n) != 0 || (path[n] != '\0' && path[n] != '/'))
		return NULL;
	return path + n;
}

/* The unit (kind "slice" or "scope") standing for group path. */
static int
unit_name(const struct sdplace *s, const char *path, const char *kind, char *out,
	  size_t len)
{
	const char *rel = rel_of(s, path);

	if (rel == NULL)
		return -EINVAL;
	if (rel[0] == '\0') { /* the root slice itself */
		const char *last = strrchr(s->root, '/') + 1;
		return snprintf(out, len, "%s", last) >= (int)len ? -ENAMETOOLONG : 0;
	}
	return sdunit_name(s->prefix, rel, kind, out, len);
}

/* The control group of that unit. */
static int
unit_cgroup(const struct sdplace *s, const char *path, const char *kind, char *out,
	    size_t len)
{
	const char *rel = rel_of(s, path);

	if (rel == NULL)
		return -EINVAL;
	if (rel[0] == '\0')
		return snprintf(out, len, "%s", s->root) >= (int)len ? -ENAMETOOLONG : 0;
	return sdunit_cgroup(s->root, s->prefix, rel, kind, out, len);
}

/* The slice a group's unit goes in: its parent level's, or the root. */
static int
parent_slice(const struct sdplace *s, const char *path, char *out, size_t len)
{
	char up[RULES_DEST_MAX];
	const char *slash = strrchr(path, '/');

	if (slash == NULL || (size_t)(slash - path) >= sizeof(up))
		return -EINVAL;
	memcpy(up, path, (size_t)(slash - path));
	up[slash - path] = '\0';
	return unit_name(s, up, "slice", out, len);
}

/* Which unit of group path exists ("scope", "slice"), by its control
 * group (a read of cgroupfs, no call); NULL if neither. */
static const char *
existing(const struct sdplace *s, const struct hier *h, const char *path, bool *populated)
{
	static const char *const kinds[] = { "scope", "slice" };
	char real[4096], ev[64];

	for (size_t i = 0; i < 2; i++) {
		if (unit_cgroup(s, path, kinds[i], real, sizeof(real)) < 0 ||
		    cgfs_get(h, real, "cgroup.events", ev, sizeof(ev)) < 0)
			continue;
		if (populated != NULL)
			*populated = strcmp(ev, "populated 0") != 0;
		return kinds[i];
	}
	return NULL;
}

/* Is a call in flight about group path or a group below it? */
static bool
busy(const struct sdplace *s, const char *path)
{
	size_t n = strlen(path);
	const struct call *k;

	LIST_FOREACH (k, &s->calls, link)
		if (strncmp(k->path, path, n) == 0 &&
		    (k->path[n] == '\0' || k->path[n] == '/'))
			return true;
	return false;
}

/* The start call in flight for group path's unit (kind OP_SLICE or
 * OP_SCOPE), or NULL. */
static struct call *
starting(const struct sdplace *s, const char *path, enum op op)
{
	struct call *k;

	LIST_FOREACH (k, &s->calls, link)
		if (k->op == op && !k->held && strcmp(k->path, path) == 0)
			return k;
	return NULL;
}

static bool
is_move(const struct call *k)
{
	return k->op == OP_SCOPE || k->op == OP_ATTACH || k->op == OP_RESET;
}

/* Hold call k (sent later by release()), noting who its process is. */
static void
hold(struct call *k)
{
	if (!k->held)
		k->s->nheld++;
	k->held = true;
	if (is_move(k) && k->start == 0 && task_start_time("/proc", k->pid, &k->start) < 0)
		k->start = UINT64_MAX; /* gone already */
}

static void
unhold(struct call *k)
{
	if (k->held)
		k->s->nheld--;
	k->held = false;
	k->send_at = 0;
}

/* Is the process of held move k still the one it was held for? */
static bool
same_process(const struct call *k)
{
	uint64_t start;

	return !is_move(k) || k->start == 0 ||
	       (task_start_time("/proc", k->pid, &start) == 0 && start == k->start);
}

/*
 * Must move k wait?  While the scope it joins is being started (the
 * attach would find it inactive), and while an earlier move of the same
 * process is in flight (a scope's start job attaches its PIDs= when it
 * runs, after its call was answered: it would undo a later move).
 */
static bool
blocked(const struct sdplace *s, const struct call *k)
{
	const struct call *o;

	if (k->op == OP_ATTACH && starting(s, k->path, OP_SCOPE) != NULL)
		return true;
	LIST_FOREACH (o, &s->calls, link)
		if (o != k && !o->held && is_move(o) && o->pid == k->pid)
			return true;
	return false;
}

/* The unit of group path in list (pending or known), or NULL. */
static struct unitdef *
def_of(struct unitdef_head *list, const char *path)
{
	struct unitdef *d;

	TAILQ_FOREACH (d, list, link)
		if (strcmp(d->path, path) == 0)
			return d;
	return NULL;
}

static struct unitdef *
pending_of(struct sdplace *s, const char *path)
{
	return def_of(&s->pending, path);
}

static void
defs_free(struct unitdef_head *list)
{
	struct unitdef *d;

	while ((d = TAILQ_FIRST(list)) != NULL) {
		TAILQ_REMOVE(list, d, link);
		free(d);
	}
}

/* ---- the properties of the scopes started ----------------------------------------- */

/* Merge properties p[0..n-1] into what is known of the scope of path
 * (a new one replaces the one of the same name). */
static void
know(struct sdplace *s, const char *path, const struct sdprop *p, size_t n)
{
	struct unitdef *d = def_of(&s->known, path);

	if (d != NULL) {
		TAILQ_REMOVE(&s->known, d, link);
	} else {
		if ((d = calloc(1, sizeof(*d))) == NULL)
			return;
		snprintf(d->path, sizeof(d->path), "%s", path);
		s->nknown++;
	}
	TAILQ_INSERT_HEAD(&s->known, d, link);
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < d->nprops && strcmp(d->props[j].name, p[i].name) != 0)
			j++;
		if (j < PROPS_MAX)
			d->props[j] = p[i];
		if (j == d->nprops && j < PROPS_MAX)
			d->nprops++;
	}
	if (s->nknown > KNOWN_MAX) {
		struct unitdef *old = TAILQ_LAST(&s->known, unitdef_head);
		TAILQ_REMOVE(&s->known, old, link);
		free(old);
		s->nknown--;
	}
}

static void
forget_known(struct sdplace *s)
{
	defs_free(&s->known);
	s->nknown = 0;
}

/* Move k, which was an attach, starts its scope: with the properties
 * the scope had when it was started (or set since). */
static void
start_with_known(struct call *k)
{
	const struct unitdef *d = def_of(&k->s->known, k->path);

	k->op = OP_SCOPE;
	if (k->def == NULL && d != NULL && (k->def = malloc(sizeof(*k->def))) != NULL)
		*k->def = *d;
}

/* ---- calls ---------------------------------------------------------------------------- */

static int reply_cb(sd_bus_message *m, void *userdata, sd_bus_error *ret);
static int connect_bus(struct sdplace *s);
static double backoff(struct sdplace *s);

static int
append_props(sd_bus_message *m, const struct unitdef *d)
{
	int rc = 0;

	for (size_t i = 0; d != NULL && i < d->nprops && rc >= 0; i++) {
		const struct sdprop *p = &d->props[i];

		if (p->type == 't') {
			rc = sd_bus_message_append(m, "(sv)", p->name, "t", p->u);
			continue;
		}
		if ((rc = sd_bus_message_open_container(m, 'r', "sv")) < 0 ||
		    (rc = sd_bus_message_append(m, "s", p->name)) < 0 ||
		    (rc = sd_bus_message_open_container(m, 'v', "ay")) < 0 ||
		    (rc = sd_bus_message_append_array(m, 'y', p->mask, p->masklen)) < 0 ||
		    (rc = sd_bus_message_close_container(m)) < 0)
			break;
		rc = sd_bus_message_close_container(m);
	}
	return rc;
}

/* StartTransientUnit(name, "fail", properties, no auxiliary units). */
static int
msg_start(struct call *k, sd_bus_message *m)
{
	char slice[SDUNIT_NAME_MAX], desc[RULES_DEST_MAX + 32];
	const char *rel = rel_of(k->s, k->path);
	int rc;

	if (rel == NULL) /* a former root's group (a reload changed unified-root) */
		return -EINVAL;
	sdunit_description(rel, k->unit, desc, sizeof(desc));
	if ((rc = sd_bus_message_append(m, "ss", k->unit, "fail")) < 0 ||
	    (rc = sd_bus_message_open_container(m, 'a', "(sv)")) < 0 ||
	    (rc = sd_bus_message_append(m, "(sv)", "Description", "s", desc)) < 0)
		return rc;
	/* a slice's parent is implied by its name (systemd refuses Slice=
	 * for slices); a scope is put in its level's slice, delegated:
	 * systemd attaches processes (AttachProcessesToUnit) only to
	 * delegated units ("Process migration not available on
	 * non-delegated units"); nothing is ever made below the scope */
	if (k->op == OP_SCOPE &&
	    ((rc = parent_slice(k->s, k->path, slice, sizeof(slice))) < 0 ||
	     (rc = sd_bus_message_append(m, "(sv)", "Slice", "s", slice)) < 0 ||
	     (rc = sd_bus_message_append(m, "(sv)", "PIDs", "au", 1, (uint32_t)k->pid)) <
		     0 ||
	     (rc = sd_bus_message_append(m, "(sv)", "Delegate", "b", 1)) < 0))
		return rc;
	if ((rc = append_props(m, k->def)) < 0 ||
	    (rc = sd_bus_message_close_container(m)) < 0)
		return rc;
	return sd_bus_message_append(m, "a(sa(sv))", 0);
}

static int
msg_body(struct call *k, sd_bus_message *m)
{
	int rc;

	switch (k->op) {
	case OP_SLICE:
	case OP_SCOPE:
		return msg_start(k, m);
	case OP_ATTACH:
		return sd_bus_message_append(m, "ssau", k->unit, "", 1, (uint32_t)k->pid);
	case OP_SET:
		if ((rc = sd_bus_message_append(m, "sb", k->unit, 1)) < 0 ||
		    (rc = sd_bus_message_open_container(m, 'a', "(sv)")) < 0 ||
		    (rc = append_props(m, k->def)) < 0)
			return rc;
		return sd_bus_message_close_container(m);
	case OP_STOP:
		return sd_bus_message_append(m, "ss", k->unit, "fail");
	case OP_RESET:
		return sd_bus_message_append(m, "s", k->unit);
	}
	return -EINVAL;
}

static const char *const method[] = {
	[OP_SLICE] = "StartTransientUnit",
	[OP_SCOPE] = "StartTransientUnit",
	[OP_ATTACH] = "AttachProcessesToUnit",
	[OP_SET] = "SetUnitProperties",
	[OP_STOP] = "StopUnit",
	[OP_RESET] = "ResetFailedUnit",
};

/* Send call k (again); 0 or -errno (k is then still the caller's). */
static int
send_call(struct call *k)
{
	struct sdplace *s = k->s;
	sd_bus_message *m = NULL;
	int rc;

	if (s->bus == NULL && s->retry_at == 0 && (rc = connect_bus(s)) < 0) {
		log_warning("systemd: cannot connect: %s", strerror(-rc));
		backoff(s);
	}
	if (s->bus == NULL) {
		s->lost = true; /* classify again once connected */
		return -ENOTCONN;
	}
	rc = sd_bus_message_new_method_call(
		s->bus, &m, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
		"org.freedesktop.systemd1.Manager", method[k->op]);
	if (rc >= 0)
		rc = msg_body(k, m);
	if (rc >= 0)
		rc = sd_bus_call_async(s->bus, NULL, m, reply_cb, k, CALL_TIMEOUT_US);
	sd_bus_message_unref(m);
	if (rc < 0)
		return rc;
	k->tries++;
	return 0;
}

static void
call_free(struct call *k)
{
	unhold(k);
	k->s->ncalls--;
	LIST_REMOVE(k, link);
	free(k->def);
	free(k);
}

/*
 * A new move of pid supersedes the moves of it still held (not sent):
 * they would run after it and undo it (release() sends the newest
 * first, and a retried attach starts a collected scope again).  The one
 * in flight stays: the new move waits for it.
 */
static void
supersede(struct sdplace *s, pid_t pid)
{
	struct call *k, *next;

	for (k = LIST_FIRST(&s->calls); k != NULL; k = next) {
		next = LIST_NEXT(k, link);
		if (k->held && is_move(k) && k->pid == pid) {
			log_debug("systemd: the move of pid %d into %s is superseded",
				  (int)pid, k->unit);
			call_free(k);
		}
	}
}

/* A new call about group path, sent; 0 or -errno.  def is taken. */
static int
call(struct sdplace *s, enum op op, const char *path, const char *unit, pid_t pid,
     struct unitdef *def)
{
	struct call *k = calloc(1, sizeof(*k));

	if (k == NULL) {
		free(def);
		return -ENOMEM;
	}
	if (op == OP_SCOPE || op == OP_ATTACH)
		supersede(s, pid);
	k->s = s;
	k->op = op;
	k->pid = pid;
	k->def = def;
	snprintf(k->path, sizeof(k->path), "%s", path);
	snprintf(k->unit, sizeof(k->unit), "%s", unit);
	LIST_INSERT_HEAD(&s->calls, k, link);
	s->ncalls++;
	if (op == OP_SCOPE && def != NULL)
		know(s, path, def->props, def->nprops);
	if (is_move(k) && blocked(s, k)) {
		hold(k); /* sent by release() */
		return 0;
	}
	int rc = send_call(k);
	if (rc < 0) {
		log_warning("systemd: cannot send %s for %s: %s", method[op], unit,
			    strerror(-rc));
		call_free(k);
	}
	return rc;
}

/* ---- answers ------------------------------------------------------------------------- */

static bool
is_error(const sd_bus_error *e, const char *name)
{
	return sd_bus_error_has_name(e, name);
}

/* The connection, not PID 1, failed the call. */
static bool
transport_error(const sd_bus_error *e)
{
	int err = sd_bus_error_get_errno(e);

	return is_error(e, SD_BUS_ERROR_NO_REPLY) ||
	       is_error(e, SD_BUS_ERROR_DISCONNECTED) ||
	       is_error(e, SD_BUS_ERROR_TIMEOUT) || err == ECONNRESET ||
	       err == ENOTCONN || err == ETIMEDOUT;
}

/* Retry a move the way the rule says; true when it was sent again. */
static bool
retried(struct call *k, const sd_bus_error *e)
{
	if (k->tries >= MAX_TRIES)
		return false;
	if (k->op == OP_SCOPE && is_error(e, "org.freedesktop.systemd1.UnitExists"))
		k->op = OP_ATTACH; /* someone (a former run) made it: join it */
	else if (k->op == OP_ATTACH && is_error(e, "org.freedesktop.systemd1.NoSuchUnit"))
		start_with_known(k); /* emptied and collected meanwhile: start it again */
	else if (k->op == OP_ATTACH &&
		 (is_error(e, "org.freedesktop.systemd1.UnitInactive") ||
		  (is_error(e, SD_BUS_ERROR_INVALID_ARGS) && e->message != NULL &&
		   strstr(e->message, "not active") != NULL)))
		k->op = OP_RESET; /* loaded but dead (failed): forget it, then start it */
	else
		return false;
	log_debug("systemd: %s for pid %d: %s; trying %s", k->unit, (int)k->pid,
		  e->message, method[k->op]);
	if (k->tries >= 2) { /* its unit is changing state: sent by release() */
		hold(k);
		k->send_at = now_us() + (uint64_t)(backoff_delay(&retry_pause, k->tries) * 1e6);
		return true;
	}
	return send_call(k) == 0;
}

/* A call failed: log, retry or give up; true when k was sent again. */
static bool
failed(struct call *k, const sd_bus_error *e)
{
	struct sdplace *s = k->s;
	int err = sd_bus_error_get_errno(e);
	bool move = is_move(k);

	if (transport_error(e)) {
		if (move) {
			s->lost = true;
			s->hooks.done(s->hooks.arg, k->pid, -ETIMEDOUT);
		}
		log_warning("systemd: %s of %s got no answer (%s: %s)%s", method[k->op],
			    k->unit, e->name, e->message ? e->message : "",
			    move ? "; it is classified again later" : "");
		return false;
	}
	if (k->op == OP_SLICE && is_error(e, "org.freedesktop.systemd1.UnitExists")) {
		log_info("systemd: %s exists already; its properties stay as they are",
			 k->unit);
		return false;
	}
	if (move && err == ESRCH) {
		s->hooks.done(s->hooks.arg, k->pid, -ESRCH);
		return false;
	}
	if (move && retried(k, e))
		return true;
	if (move)
		log_warning(
			"systemd refused to move pid %d into %s: %s (%s); given up until "
			"its next exec or a rescan",
			(int)k->pid, k->unit, e->message ? e->message : "", e->name);
	else
		log_warning("systemd refused %s of %s: %s (%s)", method[k->op], k->unit,
			    e->message ? e->message : "", e->name);
	if (move)
		s->hooks.done(s->hooks.arg, k->pid, err > 0 ? -err : -EIO);
	return false;
}

static void
succeeded(struct call *k)
{
	struct sdplace *s = k->s;

	switch (k->op) {
	case OP_SCOPE:
	case OP_ATTACH:
		log_debug("systemd: pid %d in %s", (int)k->pid, k->unit);
		s->hooks.done(s->hooks.arg, k->pid, 0);
		break;
	case OP_SLICE:
		log_info("systemd: started %s", k->unit);
		break;
	case OP_SET:
		log_info("systemd: set properties of %s", k->unit);
		break;
	case OP_STOP:
		log_info("systemd: stopped the empty %s", k->unit);
		break;
	case OP_RESET:
		break;
	}
	if ((k->op == OP_SLICE || k->op == OP_SCOPE) && s->hooks.made != NULL)
		s->hooks.made(s->hooks.arg, k->path);
}

/* A call ended: send the moves that waited for it. */
static void
release(struct sdplace *s)
{
	struct call *k;
	uint64_t now = now_us();

	while (s->nheld > 0) {
		LIST_FOREACH (k, &s->calls, link)
			if (k->held && k->send_at <= now && !blocked(s, k))
				break;
		if (k == NULL)
			return;
		unhold(k);
		if (!same_process(k)) {
			log_debug("systemd: pid %d exited while its move into %s waited",
				  (int)k->pid, k->unit);
			s->hooks.done(s->hooks.arg, k->pid, -ESRCH);
			call_free(k);
			continue;
		}
		int rc = send_call(k);
		if (rc < 0) {
			s->hooks.done(s->hooks.arg, k->pid, rc);
			call_free(k);
		}
	}
}

/*
 * A start call was answered: the unit's start job is queued.  Whether
 * it worked (a scope's process is attached when the job runs) comes
 * with the job's JobRemoved signal; true when k waits for it.
 */
static bool
await_job(struct call *k, sd_bus_message *m)
{
	const char *job;

	if ((k->op != OP_SCOPE && k->op != OP_SLICE) ||
	    sd_bus_message_read(m, "o", &job) < 0 || strlen(job) >= sizeof(k->job))
		return false;
	memcpy(k->job, job, strlen(job) + 1);
	k->job_until = now_us() + CALL_TIMEOUT_US;
	const char *from = sd_bus_message_get_sender(m);
	if (!k->s->direct && from != NULL && strlen(from) < sizeof(k->s->pid1))
		memcpy(k->s->pid1, from, strlen(from) + 1); /* the broker's word */
	return true;
}

/* The start job of call k ended with result ("done", "failed", ...). */
static void
job_end(struct call *k, const char *result)
{
	struct sdplace *s = k->s;
	bool scope = k->op == OP_SCOPE;

	if (strcmp(result, "done") == 0) {
		succeeded(k);
	} else {
		log_warning("systemd: the start job of %s ended \"%s\"%s", k->unit,
			    result, scope ? "; its process was not moved" : "");
		if (scope)
			s->hooks.done(s->hooks.arg, k->pid, -EIO);
	}
	call_free(k);
	release(s);
}

static int
job_removed_cb(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct sdplace *s = userdata;
	const char *job, *unit, *result;
	uint32_t id;
	struct call *k;

	/* on the system bus anyone may send us a signal: only PID 1's counts
	 * (the broker names the sender; the match's well-known name is not
	 * checked for a signal sent to us directly) */
	const char *from = sd_bus_message_get_sender(m);
	if (!s->direct && (from == NULL || strcmp(from, s->pid1) != 0))
		return 0;
	if (sd_bus_message_read(m, "uoss", &id, &job, &unit, &result) < 0)
		return 0;
	LIST_FOREACH (k, &s->calls, link)
		if (k->job[0] != '\0' && strcmp(k->job, job) == 0) {
			job_end(k, result);
			break;
		}
	return 0;
}

/* Jobs whose end was not seen in time: taken as done. */
static void
jobs_expired(struct sdplace *s)
{
	uint64_t now = now_us();
	struct call *k;

	for (;;) {
		LIST_FOREACH (k, &s->calls, link)
			if (k->job[0] != '\0' && now >= k->job_until)
				break;
		if (k == NULL)
			return;
		log_debug("systemd: no end seen for %s of %s; taken as done", k->job,
			  k->unit);
		job_end(k, "done");
	}
}

static int
reply_cb(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct call *k = userdata;
	struct sdplace *s = k->s;
	const sd_bus_error *e = sd_bus_message_get_error(m);

	if (e == NULL && await_job(k, m))
		return 0;	 /* job_end() says the rest */
	if (k->op == OP_RESET) { /* whatever it said: start the scope again */
		start_with_known(k);
		if (k->tries < MAX_TRIES && send_call(k) == 0)
			return 0;
		s->hooks.done(s->hooks.arg, k->pid, -EIO);
		call_free(k);
		release(s);
		return 0;
	}
	if (e == NULL)
		succeeded(k);

	bool resent = e != NULL && failed(k, e);
	if (!resent)
		call_free(k);
	release(s);
	return 0;
}

/* ---- the table the core calls ------------------------------------------------------- */

static int
t_mkdir(void *arg, const struct hier *h, const char *path, bool *created)
{
	struct sdplace *s = arg;
	struct unitdef *d;

	if (h->version == HIER_V1)
		return cgfs_mkdir(h, path, created);
	*created = false;
	if (rel_of(s, path) == NULL)
		return -EINVAL; /* not the layout's: never written */
	if (existing(s, h, path, NULL) != NULL || pending_of(s, path) != NULL ||
	    starting(s, path, OP_SLICE) != NULL || starting(s, path, OP_SCOPE) != NULL)
		return 0; /* there, noted, or asked for */
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return -ENOMEM;
	snprintf(d->path, sizeof(d->path), "%s", path);
	TAILQ_INSERT_TAIL(&s->pending, d, link);
	*created = true; /* noted: asked for at the move, or before the loop waits */
	return 0;
}

static int
t_set(void *arg, const struct hier *h, const char *path, const char *key,
      const char *value)
{
	struct sdplace *s = arg;
	struct sdprop p[SDPROP_MAX];
	struct unitdef *d;
	int n;

	if (h->version == HIER_V1)
		return cgfs_set(h, path, key, value);
	if (strcmp(key, "cgroup.subtree_control") == 0)
		return 0; /* systemd enables controllers for the properties it sets */
	if ((n = sdunit_props(key, value, p)) < 0)
		return n;
	if ((d = pending_of(s, path)) != NULL) {
		for (int i = 0; i < n; i++)
			if (d->nprops < PROPS_MAX)
				d->props[d->nprops++] = p[i];
		return 0;
	}
	/* a unit that exists: a runtime property, as systemctl set-property --runtime */
	const char *kind = existing(s, h, path, NULL);
	char unit[SDUNIT_NAME_MAX];
	int rc = unit_name(s, path, kind != NULL ? kind : "slice", unit, sizeof(unit));
	if (rc < 0 || (d = calloc(1, sizeof(*d))) == NULL)
		return rc < 0 ? rc : -ENOMEM;
	for (int i = 0; i < n; i++)
		d->props[d->nprops++] = p[i];
	if (kind != NULL && strcmp(kind, "scope") == 0)
		know(s, path, p, (size_t)n);
	return call(s, OP_SET, path, unit, 0, d);
}

/* Ask for the slices noted so far (top down: the order they were noted). */
void
sdplace_flush(struct sdplace *s)
{
	struct unitdef *d;
	char unit[SDUNIT_NAME_MAX];

	while ((d = TAILQ_FIRST(&s->pending)) != NULL) {
		TAILQ_REMOVE(&s->pending, d, link);
		if (unit_name(s, d->path, "slice", unit, sizeof(unit)) < 0) {
			free(d);
			continue;
		}
		(void)call(s, OP_SLICE, d->path, unit, 0, d);
	}
}

static int
t_move(void *arg, const struct hier *h, const char *path, pid_t tgid)
{
	struct sdplace *s = arg;
	char unit[SDUNIT_NAME_MAX];
	struct unitdef *d;
	int rc;

	if (h->version == HIER_V1)
		return cgfs_move(h, path, tgid);
	if (s->ncalls >= CALLS_MAX) {
		if (!s->full)
			log_warning("systemd: %d calls to PID 1 in flight; further moves "
				    "wait for a rescan once half of them are answered",
				    CALLS_MAX);
		s->full = true;
		return -ENOBUFS;
	}
	if ((rc = unit_name(s, path, "scope", unit, sizeof(unit))) < 0)
		return rc;
	if ((d = pending_of(s, path)) != NULL) {
		TAILQ_REMOVE(&s->pending, d, link);
		sdplace_flush(s); /* the slices above it first */
		rc = call(s, OP_SCOPE, path, unit, tgid, d);
	} else if (existing(s, h, path, NULL) != NULL ||
		   starting(s, path, OP_SCOPE) != NULL) {
		rc = call(s, OP_ATTACH, path, unit, tgid,
			  NULL); /* held while it starts */
	} else {
		return -ENOENT; /* the core makes the levels, then moves again */
	}
	return rc < 0 ? rc : BACKEND_MOVE_QUEUED;
}

static int
t_rmdir(void *arg, const struct hier *h, const char *path)
{
	struct sdplace *s = arg;
	char unit[SDUNIT_NAME_MAX];
	bool populated = false;

	if (h->version == HIER_V1)
		return cgfs_rmdir(h, path);
	const char *kind = existing(s, h, path, &populated);
	if (kind == NULL)
		return -ENOENT;
	/* stopping a slice stops the units in it: only an empty one, with
	 * no move of ours on the way into it */
	if (populated || busy(s, path))
		return -EBUSY;
	if (strcmp(kind, "scope") == 0)
		return 0; /* systemd collects an empty scope by itself */
	int rc = unit_name(s, path, kind, unit, sizeof(unit));
	return rc < 0 ? rc : call(s, OP_STOP, path, unit, 0, NULL);
}

static bool
t_is_empty(void *arg, const struct hier *h, const char *path)
{
	struct sdplace *s = arg;
	bool populated = false;

	if (h->version == HIER_V1)
		return cgfs_is_empty(h, path);
	return (existing(s, h, path, &populated) == NULL || !populated) && !busy(s, path);
}

static void
t_flush(void *arg)
{
}

static int
t_get(void *arg, const struct hier *h, const char *path, const char *key, char *buf,
      size_t len)
{
	struct sdplace *s = arg;
	char real[4096];
	const char *kind;

	if (h->version == HIER_V1)
		return cgfs_get(h, path, key, buf, len);
	if (strcmp(key, "cgroup.controllers") == 0 ||
	    strcmp(key, "cgroup.subtree_control") == 0) {
		buf[0] = '\0'; /* systemd's to enable: none for the core to write */
		return 0;
	}
	if ((kind = existing(s, h, path, NULL)) == NULL)
		return -ENOENT;
	int rc = unit_cgroup(s, path, kind, real, sizeof(real));
	return rc < 0 ? rc : cgfs_get(h, real, key, buf, len);
}

/* ---- ids, children, delegation: nft sets and what is left alone ---------------------- */

/*
 * The id of the unit standing for group path (its scope or slice), for
 * the nft sets; -EINPROGRESS while it is noted or being started: the
 * loop hears when it is (sdplace_hooks.made).
 */
static int
t_id(void *arg, const struct hier *h, const char *path, uint64_t *id)
{
	struct sdplace *s = arg;
	char real[4096];
	const char *kind;

	if (h->version != HIER_V2)
		return -EINVAL;
	if ((kind = existing(s, h, path, NULL)) != NULL) {
		int rc = unit_cgroup(s, path, kind, real, sizeof(real));
		return rc < 0 ? rc : cgfs_id(h, real, id);
	}
	if (pending_of(s, path) != NULL || starting(s, path, OP_SLICE) != NULL ||
	    starting(s, path, OP_SCOPE) != NULL)
		return -EINPROGRESS;
	return -ENOENT;
}

static int
t_id_live(void *arg, const struct hier *h, uint64_t id)
{
	return cgfs_id_live(h, id);
}

/* A listing of the layout's group rel (its slice's group real). */
struct kids {
	const struct sdplace *s;
	const char *rel, *real;
	int (*fn)(void *fnarg, const char *name);
	void *fnarg;
};

/* A child directory of the slice: the next level's unit, or not ours. */
static int
kid(void *arg, const char *name)
{
	const struct kids *k = arg;
	char real[4096], rel[RULES_DEST_MAX];
	size_t n = strlen(k->rel);

	if ((size_t)snprintf(real, sizeof(real), "%s/%s", k->real, name) >= sizeof(real) ||
	    sdunit_logical(k->s->root, k->s->prefix, real, rel, sizeof(rel)) < 0 ||
	    strncmp(rel, k->rel, n) != 0 || rel[n] != '/' || strchr(rel + n + 1, '/'))
		return 0; /* another unit in the slice, or a group below a scope */
	return k->fn(k->fnarg, rel + n + 1);
}

/* The layout's groups below group path: the units in its slice, by the
 * names they stand for (the nft sets' walk, a former run's template
 * groups).  A scope (a leaf) has none. */
static int
t_children(void *arg, const struct hier *h, const char *path,
	   int (*fn)(void *fnarg, const char *name), void *fnarg)
{
	struct sdplace *s = arg;
	char real[4096];
	const char *rel = rel_of(s, path);

	if (h->version == HIER_V1)
		return cgfs_children(h, path, fn, fnarg);
	if (rel == NULL)
		return -EINVAL;
	int rc = unit_cgroup(s, path, "slice", real, sizeof(real));
	if (rc < 0)
		return rc;
	struct kids k = { s, rel, real, fn, fnarg };
	rc = cgfs_children(h, real, kid, &k);
	return rc == -ENOENT ? 0 : rc;
}

/* systemd's mark on a unit's group: delegated or not (cgfs_delegated). */
struct mark {
	const struct hier *h;
};

static int
delegated(void *arg, const char *group)
{
	const struct mark *m = arg;

	return cgfs_delegated(m->h, group);
}

static int
t_logical(void *arg, const struct hier *h, const char *real, char *buf, size_t len)
{
	struct sdplace *s = arg;
	char rel[RULES_DEST_MAX];
	int rc = sdunit_logical(s->root, s->prefix, real, rel, sizeof(rel));

	if (rc < 0)
		return rc;
	return snprintf(buf, len, "%s%s", s->root, rel) >= (int)len ? -ENAMETOOLONG : 0;
}

static int
t_may_move(void *arg, const struct hier *h, const char *real, char *why, size_t len)
{
	struct sdplace *s = arg;
	struct mark m = { h };
	const char *no = sdunit_refusal_delegated(real, s->own[0] ? s->own : NULL, s->root,
						  s->prefix, delegated, &m);

	if (no == NULL)
		return 0;
	snprintf(why, len, "%s", no);
	return -EPERM;
}

static int
t_unit(void *arg, const struct hier *h, const char *path, bool logical, char *buf,
       size_t len)
{
	struct sdplace *s = arg;

	if (!logical)
		return sdunit_unit_of(path, buf, len);
	return unit_name(s, path, "scope", buf, len);
}

/* ---- the exec gate: scopes made ahead (sdgate.c) ----------------------------------- */

static int
scope_cgroup(void *arg, const char *path, char *out, size_t len)
{
	return unit_cgroup(arg, path, "scope", out, len);
}

/* Is a move of pid in flight or held? */
static bool
moving(void *arg, pid_t pid)
{
	const struct sdplace *s = arg;
	const struct call *k;

	LIST_FOREACH (k, &s->calls, link)
		if (is_move(k) && k->pid == pid)
			return true;
	return false;
}

static int
t_prepare(void *arg, const struct hier *h, const char *const *paths, size_t n,
	  void (*keeper)(void *karg, pid_t pid, const char *path), void *karg)
{
	struct sdplace *s = arg;
	int rc;

	if (s->gate == NULL && n == 0)
		return 0;
	if (s->gate == NULL && (rc = sdgate_new(&s->gate, scope_cgroup, moving, s)) < 0)
		return rc;
	return sdgate_prepare(s->gate, paths, n, keeper, karg);
}

/*
 * The gate has just placed pid in path's scope by a write: moves of pid
 * asked for before (decided by its old program, e.g. after a setuid
 * that came before its exec) would undo that when PID 1 makes them.
 * Those not sent yet are dropped.  After those PID 1 has, an attach to
 * path's scope is asked for, so that the last move is the gate's: at
 * once after attaches (PID 1 handles one connection's calls in order),
 * after the start job of a scope (whose PIDs= are attached when the job
 * runs) when it has ended.
 */
static void
gate_supersede(struct sdplace *s, pid_t pid, const char *path)
{
	struct call *k, *next, *n;
	bool sent = false, job = false;
	char unit[SDUNIT_NAME_MAX];

	for (k = LIST_FIRST(&s->calls); k != NULL; k = next) {
		next = LIST_NEXT(k, link);
		if (!is_move(k) || k->pid != pid)
			continue;
		if (k->held) {
			log_debug("systemd: the move of pid %d into %s is dropped: the exec "
				  "gate placed it",
				  (int)pid, k->unit);
			call_free(k);
			continue;
		}
		sent = true;
		job = job || k->op != OP_ATTACH;
	}
	if (!sent || unit_name(s, path, "scope", unit, sizeof(unit)) < 0 ||
	    (n = calloc(1, sizeof(*n))) == NULL)
		return;
	*n = (struct call){ .s = s, .op = OP_ATTACH, .pid = pid };
	snprintf(n->path, sizeof(n->path), "%s", path);
	snprintf(n->unit, sizeof(n->unit), "%s", unit);
	LIST_INSERT_HEAD(&s->calls, n, link);
	s->ncalls++;
	if (job)
		hold(n);
	log_debug("systemd: pid %d has a move in flight; %s is asked for after it", (int)pid,
		  unit);
	if (!job && send_call(n) < 0)
		call_free(n);
}

static int
t_move_now(void *arg, const struct hier *h, const char *path, pid_t tgid)
{
	struct sdplace *s = arg;

	if (h->version == HIER_V1)
		return cgfs_move(h, path, tgid);
	if (s->gate == NULL)
		return -EAGAIN;
	int rc = sdgate_move(s->gate, h, path, tgid);
	if (rc == 0)
		gate_supersede(s, tgid, path);
	return rc;
}

/*
 * The gate's undo of a failed exec, into a group outside the layout
 * (a session's scope, a service): PID 1 attaches processes only to
 * delegated units, so this one write goes to cgroupfs -- the process
 * returns to the unit systemd had it in a moment before, which systemd
 * still tracks by that group.  Only the gate's own move is undone so.
 */
static int
t_restore(void *arg, const struct hier *h, const char *real, pid_t tgid)
{
	return cgfs_move(h, real, tgid);
}

/* ---- connection ------------------------------------------------------------------------- */

/* Hear when jobs end (JobRemoved): PID 1 signals the connections that
 * subscribed (and every private one). */
static int
watch_jobs(struct sdplace *s)
{
	int rc = sd_bus_match_signal_async(
		s->bus, NULL, s->direct ? NULL : "org.freedesktop.systemd1",
		"/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
		"JobRemoved", job_removed_cb, NULL, s);

	if (rc >= 0)
		rc = sd_bus_call_method_async(s->bus, NULL, "org.freedesktop.systemd1",
					      "/org/freedesktop/systemd1",
					      "org.freedesktop.systemd1.Manager",
					      "Subscribe", NULL, NULL, NULL);
	if (rc < 0) {
		s->bus = sd_bus_close_unref(s->bus);
		return rc;
	}
	return 0;
}

/* Connect: PID 1's private socket (root; no broker between), else the
 * system bus.  sd_bus_start() only starts the handshake: calls queue
 * until it is done, in sdplace_process(). */
static int
connect_bus(struct sdplace *s)
{
	const char *address = s->hooks.address; /* a test's, or NULL */
	sd_bus *b = NULL;
	int rc;

	if ((rc = sd_bus_new(&b)) < 0)
		return rc;
	if (address != NULL && s->hooks.address_is_bus) { /* the system bus's stand-in */
		if ((rc = sd_bus_set_address(b, address)) < 0 ||
		    (rc = sd_bus_set_bus_client(b, 1)) < 0 || (rc = sd_bus_start(b)) < 0) {
			sd_bus_unref(b);
			return rc;
		}
		s->bus = b;
		s->direct = false;
		return watch_jobs(s);
	}
	if ((rc = sd_bus_set_address(b, address ? address : PRIVATE_SOCKET)) >= 0 &&
	    (rc = sd_bus_start(b)) >= 0) {
		s->bus = b;
		s->direct = true;
		return watch_jobs(s);
	}
	sd_bus_unref(b);
	if (address != NULL)
		return rc; /* a test's: no system bus */
	b = NULL;
	log_info("systemd: %s: %s; using the system bus", PRIVATE_SOCKET, strerror(-rc));
	if ((rc = sd_bus_open_system(&b)) < 0)
		return rc;
	s->bus = b;
	s->direct = false;
	return watch_jobs(s);
}

/* Try to connect again later: 1, 2, 4 ... 30 seconds; that pause. */
static double
backoff(struct sdplace *s)
{
	double pause = backoff_fail(&s->reconnect);

	s->retry_at = now_us() + (uint64_t)(pause * 1e6);
	s->lost = true;
	return pause;
}

/* The connection is gone: drop it (calls still unanswered are lost),
 * reconnect later. */
static void
disconnected(struct sdplace *s, int err)
{
	struct call *k;
	size_t moves = 0;

	/* no callback runs after this; nothing is flushed (a write to a
	 * peer that does not read would block the loop) */
	s->bus = sd_bus_close_unref(s->bus);
	s->pid1[0] = '\0';
	while ((k = LIST_FIRST(&s->calls)) != NULL) {
		if (is_move(k)) {
			s->hooks.done(s->hooks.arg, k->pid, -ETIMEDOUT);
			moves++;
		}
		call_free(k);
	}
	double pause = backoff(s);
	log_warning("systemd: connection lost (%s); %zu more move%s lost, every process "
		    "classified again once connected; reconnecting in %.0f s",
		    strerror(-err), moves, moves == 1 ? "" : "s", pause);
}

static void
reconnect(struct sdplace *s)
{
	int rc = connect_bus(s);

	if (rc < 0) {
		disconnected(s, rc);
		return;
	}
	s->retry_at = 0;
	log_notice("systemd: connected again");
}

void
sdplace_process(struct sdplace *s)
{
	int rc = 0;

	if (s->bus == NULL) {
		if (s->retry_at != 0 && now_us() >= s->retry_at)
			reconnect(s);
		return;
	}
	/* bounded: each round handles one message (or one lost call) */
	for (int i = 0; i < 256 && (rc = sd_bus_process(s->bus, NULL)) > 0; i++)
		;
	if (rc < 0 || !sd_bus_is_open(s->bus)) {
		/* the answers to calls in flight came as NoReply errors */
		disconnected(s, rc < 0 ? rc : -ECONNRESET);
		return;
	}
	jobs_expired(s);
	release(s); /* the retries whose pause is over */
	if (s->full && s->ncalls < CALLS_MAX / 2) {
		s->full = false; /* the moves refused meanwhile: a rescan */
		s->lost = true;
	}
	if (s->lost && !s->full && sd_bus_is_ready(s->bus) > 0) {
		s->lost = false;
		backoff_reset(&s->reconnect);
		s->hooks.lost(s->hooks.arg);
	}
}

int
sdplace_fd(const struct sdplace *s)
{
	return s->bus != NULL ? sd_bus_get_fd(s->bus) : -1;
}

int
sdplace_events(const struct sdplace *s)
{
	int ev = s->bus != NULL ? sd_bus_get_events(s->bus) : 0;

	return ev < 0 ? 0 : ev;
}

uint64_t
sdplace_deadline(const struct sdplace *s)
{
	uint64_t t = UINT64_MAX;

	if (s->bus == NULL)
		return s->retry_at ? s->retry_at : UINT64_MAX;
	const struct call *k;

	if (sd_bus_get_timeout(s->bus, &t) < 0)
		t = UINT64_MAX;
	LIST_FOREACH (k, &s->calls, link) {
		if (k->job[0] != '\0' && k->job_until < t)
			t = k->job_until;
		if (k->held && k->send_at != 0 && k->send_at < t)
			t = k->send_at;
	}
	return t;
}

/* ---- life cycle ----------------------------------------------------------------------------- */

/* The daemon's own unit's group, from /proc/self/cgroup (cut after its
 * first .service or .scope component: its delegated leaf is its too). */
static void
find_own(struct sdplace *s)
{
	char line[4096], unit[SDUNIT_NAME_MAX];
	FILE *f = fopen("/proc/self/cgroup", "re");

	s->own[0] = '\0';
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (char *c = line + 3; *c == '/'; c += 1 + strcspn(c + 1, "/")) {
			size_t n = strcspn(c + 1, "/");
			snprintf(unit, sizeof(unit), "%.*s", (int)n, c + 1);
			if (n > 8 && (strcmp(unit + n - 8, ".service") == 0 ||
				      strcmp(unit + n - 6, ".scope") == 0)) {
				snprintf(s->own, sizeof(s->own), "%.*s",
					 (int)(c + 1 + n - (line + 3)), line + 3);
				break;
			}
		}
	}
	if (f != NULL)
		fclose(f);
}

int
sdplace_new(struct sdplace **out, const struct sdplace_hooks *hooks)
{
	struct sdplace *s = calloc(1, sizeof(*s));
	int rc;

	if (s == NULL)
		return -ENOMEM;
	s->hooks = *hooks;
	s->reconnect = (struct backoff){ .first = 1, .max = 30 };
	TAILQ_INIT(&s->pending);
	TAILQ_INIT(&s->known);
	LIST_INIT(&s->calls);
	s->table = (struct backend){
		.place = { .mkdir = t_mkdir,
			   .set = t_set,
			   .move = t_move,
			   .rmdir = t_rmdir,
			   .is_empty = t_is_empty,
			   .flush = t_flush },
		.look = { .get = t_get,
			  .children = t_children,
			  .logical = t_logical,
			  .may_move = t_may_move,
			  .unit = t_unit },
		.ids = { .id = t_id, .id_live = t_id_live },
		.gate = { .move_now = t_move_now, .prepare = t_prepare, .restore = t_restore },
		.arg = s,
	};
	find_own(s);
	/* reachable?  The connection itself is made at first use: sd-bus
	 * refuses a connection made before the daemon forked */
	if ((rc = connect_bus(s)) < 0) {
		free(s);
		return rc;
	}
	s->bus = sd_bus_close_unref(s->bus);
	*out = s;
	return 0;
}

int
sdplace_configure(struct sdplace *s, const char *root)
{
	if (root == NULL || sdunit_root_prefix(root, s->prefix, sizeof(s->prefix)) < 0)
		return -EINVAL;
	sdplace_flush(s); /* what the old root's levels noted */
	if (strcmp(s->root, root) != 0)
		forget_known(s);
	snprintf(s->root, sizeof(s->root), "%s", root);
	return 0;
}

const struct backend *
sdplace_table(struct sdplace *s)
{
	return &s->table;
}

void
sdplace_free(struct sdplace *s)
{
	struct call *k;

	if (s == NULL)
		return;
	/* what is queued is dropped: flushing could block on a PID 1 that
	 * does not read, and nothing is lost -- a process whose move was
	 * not made stays where it is and the next start classifies it */
	s->bus = sd_bus_close_unref(s->bus);
	defs_free(&s->pending);
	while ((k = LIST_FIRST(&s->calls)) != NULL)
		call_free(k);
	forget_known(s);
	sdgate_free(s->gate); /* the keepers exit; scopes with processes stay */
	free(s);
}
