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
 *
 * This file is the table and the names; the queue of calls and its
 * rules are movequeue.c's (no sd-bus), the calls themselves sdbus.c's,
 * the exec gate's scopes made ahead sdgate.c's.
 */
#include "engined/backend/systemd/sdplace.h"
#include "engined/backend/systemd/movequeue.h"
#include "engined/backend/systemd/sdbus.h"
#include "engined/backend/systemd/sdgate.h"
#include "engined/backend/systemd/sdunit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sdplace {
	struct movequeue q;
	struct sdbus *bus; /* the queue's transport */
	struct backend table;
	char root[RULES_DEST_MAX]; /* the root slice's group, "/cgengine.slice" */
	char prefix[SDUNIT_NAME_MAX];
	char own[RULES_DEST_MAX]; /* the daemon's own unit's group */
	struct sdgate *gate; /* the exec gate's scopes made ahead, or NULL */
};

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

/* sdbus_describe_fn: the slice a start call's scope goes in, and its
 * unit's description. */
static int
describe(void *arg, const struct mq_call *k, char *slice, size_t slicelen, char *desc,
	 size_t desclen)
{
	const struct sdplace *s = arg;
	const char *rel = rel_of(s, k->path);
	int rc;

	if (rel == NULL) /* a former root's group (a reload changed unified-root) */
		return -EINVAL;
	sdunit_description(rel, k->unit, desc, desclen);
	if (k->op == MQ_SCOPE && (rc = parent_slice(s, k->path, slice, slicelen)) < 0)
		return rc;
	return 0;
}

/* sdbus_group_fn: the layout's group a unit's name stands for. */
static int
group_of(void *arg, const char *unit, char *path, size_t len)
{
	const struct sdplace *s = arg;
	char rel[RULES_DEST_MAX];
	int rc = s->prefix[0] != '\0' ? sdunit_group(s->prefix, unit, rel, sizeof(rel))
				      : -ENOENT;

	if (rc < 0)
		return rc;
	return snprintf(path, len, "%s%s", s->root, rel) >= (int)len ? -ENAMETOOLONG : 0;
}

/* The unit noted for group path (mkdir), or NULL. */
static struct mq_unit *
pending_of(struct sdplace *s, const char *path)
{
	return mq_unit_of(&s->q.pending, path);
}

/* ---- the table the core calls ------------------------------------------------------- */

static int
t_mkdir(void *arg, const struct hier *h, const char *path, bool *created)
{
	struct sdplace *s = arg;

	if (h->version == HIER_V1)
		return cgfs_mkdir(h, path, created);
	*created = false;
	if (rel_of(s, path) == NULL)
		return -EINVAL; /* not the layout's: never written */
	if (existing(s, h, path, NULL) != NULL || pending_of(s, path) != NULL ||
	    mq_starting(&s->q, path, MQ_SLICE) != NULL ||
	    mq_starting(&s->q, path, MQ_SCOPE) != NULL)
		return 0; /* there, noted, or asked for */
	int rc = mq_note(&s->q, path);
	if (rc < 0)
		return rc;
	*created = true; /* noted: asked for at the move, or before the loop waits */
	return 0;
}

static int
t_set(void *arg, const struct hier *h, const char *path, const char *key,
      const char *value)
{
	struct sdplace *s = arg;
	struct sdprop p[SDPROP_MAX];
	struct mq_unit *d;
	int n;

	if (h->version == HIER_V1)
		return cgfs_set(h, path, key, value);
	if (strcmp(key, "cgroup.subtree_control") == 0)
		return 0; /* systemd enables controllers for the properties it sets */
	if ((n = sdunit_props(key, value, p)) < 0)
		return n;
	if ((d = pending_of(s, path)) != NULL) {
		for (int i = 0; i < n; i++)
			if (d->nprops < MQ_PROPS_MAX)
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
		mq_know(&s->q, path, p, (size_t)n);
	return mq_call(&s->q, MQ_SET, path, unit, 0, d);
}

/* Ask for the slices noted so far (top down: the order they were noted). */
void
sdplace_flush(struct sdplace *s)
{
	struct mq_unit *d;
	char unit[SDUNIT_NAME_MAX];

	while ((d = TAILQ_FIRST(&s->q.pending)) != NULL) {
		TAILQ_REMOVE(&s->q.pending, d, link);
		if (unit_name(s, d->path, "slice", unit, sizeof(unit)) < 0) {
			free(d);
			continue;
		}
		(void)mq_call(&s->q, MQ_SLICE, d->path, unit, 0, d);
	}
}

static int
t_move(void *arg, const struct hier *h, const char *path, pid_t tgid)
{
	struct sdplace *s = arg;
	char unit[SDUNIT_NAME_MAX];
	struct mq_unit *d;
	int rc;

	if (h->version == HIER_V1)
		return cgfs_move(h, path, tgid);
	if ((rc = mq_room(&s->q)) < 0)
		return rc;
	if ((rc = unit_name(s, path, "scope", unit, sizeof(unit))) < 0)
		return rc;
	if ((d = pending_of(s, path)) != NULL) {
		TAILQ_REMOVE(&s->q.pending, d, link);
		sdplace_flush(s); /* the slices above it first */
		rc = mq_call(&s->q, MQ_SCOPE, path, unit, tgid, d);
	} else if (existing(s, h, path, NULL) != NULL ||
		   mq_starting(&s->q, path, MQ_SCOPE) != NULL) {
		rc = mq_call(&s->q, MQ_ATTACH, path, unit, tgid, NULL); /* held while it starts */
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
	if (populated || mq_busy(&s->q, path))
		return -EBUSY;
	if (strcmp(kind, "scope") == 0)
		return 0; /* systemd collects an empty scope by itself */
	int rc = unit_name(s, path, kind, unit, sizeof(unit));
	return rc < 0 ? rc : mq_call(&s->q, MQ_STOP, path, unit, 0, NULL);
}

static bool
t_is_empty(void *arg, const struct hier *h, const char *path)
{
	struct sdplace *s = arg;
	bool populated = false;

	if (h->version == HIER_V1)
		return cgfs_is_empty(h, path);
	return (existing(s, h, path, &populated) == NULL || !populated) &&
	       !mq_busy(&s->q, path);
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
	if (pending_of(s, path) != NULL || mq_starting(&s->q, path, MQ_SLICE) != NULL ||
	    mq_starting(&s->q, path, MQ_SCOPE) != NULL)
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

	return mq_moving(&s->q, pid);
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

/* The gate has just placed pid in path's scope by a write: the moves
 * asked for before must not undo that (mq_gate_placed). */
static void
gate_supersede(struct sdplace *s, pid_t pid, const char *path)
{
	char unit[SDUNIT_NAME_MAX];
	bool named = unit_name(s, path, "scope", unit, sizeof(unit)) == 0;

	mq_gate_placed(&s->q, pid, path, named ? unit : NULL);
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

/* ---- for the loop: the transport's ----------------------------------------------- */

void
sdplace_process(struct sdplace *s)
{
	sdbus_process(s->bus);
}

int
sdplace_fd(const struct sdplace *s)
{
	return sdbus_fd(s->bus);
}

int
sdplace_events(const struct sdplace *s)
{
	return sdbus_events(s->bus);
}

uint64_t
sdplace_deadline(const struct sdplace *s)
{
	return sdbus_deadline(s->bus);
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
	mq_init(&s->q, &(struct mq_env){ .send = sdbus_send,
					 .done = hooks->done,
					 .made = hooks->made,
					 .arg = hooks->arg });
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
	if ((rc = sdbus_new(&s->bus, &s->q, hooks, describe, group_of, s)) < 0) {
		free(s);
		return rc;
	}
	s->q.env.send_arg = s->bus;
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
		mq_forget_known(&s->q);
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
	if (s == NULL)
		return;
	/* what is queued is dropped: flushing could block on a PID 1 that
	 * does not read, and nothing is lost -- a process whose move was
	 * not made stays where it is and the next start classifies it */
	sdbus_free(s->bus);
	mq_clear(&s->q);
	sdgate_free(s->gate); /* the keepers exit; scopes with processes stay */
	free(s);
}
