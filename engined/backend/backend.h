/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backend.h -- how the core places processes: one table of functions
 * per backend, as systemd has one vtable per unit type.  The core calls
 * the table it is given and never asks which backend it has.
 *
 *   engined/backend/cgroupfs.c   the daemon writes cgroupfs itself (a
 *                                subtree delegated to it), and talks to
 *                                nf_tables for the sets of group ids
 *   engined/backend/systemd/     PID 1 places, in slices and scopes it
 *                                owns (a move queue, its sd-bus
 *                                transport, the exec gate's keepers)
 *   tests/lib/fakebackend.c      the unit tests' stand-in
 *
 * The table has four parts: placement (what every backend must do),
 * introspection (what the core may ask about groups), ids (group ids,
 * for the nftables sets) and the exec gate's part.  Every function
 * returns 0 or -errno unless it says otherwise; arg is the table's own
 * (the backend's state), passed back to every call.  Each optional
 * slot below says why a backend may leave it NULL and what the core
 * does then; the inline wrappers at the end are how the core calls the
 * table.
 *
 * The daemon (engined/daemon/engine.c) makes the backends and hands
 * them to the core (core_env.cgfs, core_env.nft, core_env.backend); the
 * core library links none of them, nor what they link (libmnl,
 * libnftnl, libsystemd).
 */
#ifndef CGENGINE_BACKEND_H
#define CGENGINE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/kernel.h"
#include "util/attr.h"

/* move(): asked for; the outcome comes later (core_move_done) */
#define BACKEND_MOVE_QUEUED 1

/*
 * Placement: making, setting up, filling and removing groups.  Every
 * slot is required (core_new refuses a table without them).
 */
struct backend_placement {
	int (*mkdir)(void *arg, const struct hier *h, const char *path, bool *created);
	int (*set)(void *arg, const struct hier *h, const char *path, const char *key,
		   const char *value);
	/* BACKEND_MOVE_QUEUED when the backend places later (it reports
	 * through core_move_done); -ENOBUFS: a queued move's backend is
	 * full, it asks for a rescan once it drained (core_moves_lost) */
	int (*move)(void *arg, const struct hier *h, const char *path, pid_t tgid);
	int (*rmdir)(void *arg, const struct hier *h, const char *path);
	bool (*is_empty)(void *arg, const struct hier *h, const char *path);
	void (*flush)(void *arg); /* forget cached open files */
};

/* Introspection: what the core may ask about groups and processes. */
struct backend_introspection {
	/* The first line of a control file.  NULL: the backend reads no
	 * control file (one whose groups are not in a tree the daemon may
	 * read); the core then leaves the v2 controllers below the unified
	 * root as they are and never hands them back at exit. */
	int (*get)(void *arg, const struct hier *h, const char *path, const char *key,
		   char *buf, size_t len);
	/* fn(fnarg, name) for each child group of path.  NULL: the backend
	 * cannot list groups; the core then finds no leftover groups of a
	 * former run and walks no tree for the nft sets (the groups it
	 * makes itself still go in). */
	int (*children)(void *arg, const struct hier *h, const char *path,
			int (*fn)(void *fnarg, const char *name), void *fnarg);
	/* The unified layout's group that the process's v2 group real
	 * stands for, into buf; -ENOENT when none.  NULL: the backend's
	 * groups are the layout's own paths, and the core reads real as
	 * it is. */
	int (*logical)(void *arg, const struct hier *h, const char *real, char *buf,
		       size_t len);
	/* May a process in v2 group real be moved by this backend?  0, or
	 * -EPERM with the reason in why.  NULL: the backend may move any
	 * process (the kernel's own checks apply), so the core asks
	 * nothing. */
	int (*may_move)(void *arg, const struct hier *h, const char *real, char *why,
			size_t len);
	/* The unit holding v2 group path (logical false: a process's real
	 * group) or standing for the layout's group path (true).  NULL:
	 * the backend has no units, and explain shows none. */
	int (*unit)(void *arg, const struct hier *h, const char *path, bool logical,
		    char *buf, size_t len);
};

/* Ids: the numbers nftables knows a v2 group by. */
struct backend_ids {
	/* The id of v2 group path; -EINPROGRESS while the backend is still
	 * making it (it says when it has made it: core_group_made).  NULL:
	 * the backend cannot tell a group's id, and the core keeps no nft
	 * sets (they are named by group, filled by id). */
	int (*id)(void *arg, const struct hier *h, const char *path, uint64_t *id);
	/* Does a v2 group with this id exist: 1, 0 or -errno.  NULL: the
	 * backend cannot tell, and a sync leaves ids of others in a set
	 * alone instead of dropping those of groups long gone. */
	int (*id_live)(void *arg, const struct hier *h, uint64_t id);
};

/* The exec gate's part (engined/core/gate.h). */
struct backend_gate {
	/*
	 * The exec gate's move: it runs while the exec'ing process waits,
	 * so it may not wait on another process (PID 1, a bus peer) -- a
	 * write of cgroup.procs into a group that exists, or made ahead
	 * for this.  -EAGAIN when it cannot place without waiting: the
	 * asynchronous path places the process after its exec.  NULL: the
	 * backend cannot place without waiting, and the exec gate stays
	 * closed.
	 */
	int (*move_now)(void *arg, const struct hier *h, const char *path, pid_t tgid);
	/*
	 * The groups a backend's move_now needs made ahead (the systemd
	 * backend: a delegated scope, held by a process of the daemon's
	 * own, a keeper): keep exactly the layout's groups paths[0..n-1]
	 * ready (n 0: none), release the others.  For each keeper started
	 * now, keeper(karg, pid, path): the core places it into path
	 * through move (asynchronously) and never classifies it.  A group
	 * becomes ready once its keeper is in it; until then move_now says
	 * -EAGAIN.  NULL: move_now needs nothing made ahead (a group it is
	 * given exists once mkdir made it), so the core keeps no groups
	 * ready and gives execs the short wait for their events.
	 */
	int (*prepare)(void *arg, const struct hier *h, const char *const *paths,
		       size_t n, void (*keeper)(void *karg, pid_t pid, const char *path),
		       void *karg);
	/*
	 * The undo when an exec failed after the gate: put tgid back into
	 * v2 group real, the group outside the layout (logical says
	 * -ENOENT) that the gate took it from a moment before.  A group of
	 * the layout goes back through move.  NULL: the backend's paths
	 * are cgroupfs's, so the core moves the process back with move and
	 * the path.
	 */
	int (*restore)(void *arg, const struct hier *h, const char *real, pid_t tgid);
};

/* One backend: its four parts and its state. */
struct backend {
	struct backend_placement place;
	struct backend_introspection look;
	struct backend_ids ids;
	struct backend_gate gate;
	void *arg;
};

/*
 * The ids' other half: the nftables sets they go in (as nftset_add,
 * nftset_del and nftset_list in kernel.h).  The core keeps which ids it
 * put where; this only writes and reads the kernel's sets.
 */
struct backend_nft {
	int (*add)(void *arg, const struct nftset_ref *s, const uint64_t *ids, size_t n);
	int (*del)(void *arg, const struct nftset_ref *s, const uint64_t *ids, size_t n);
	int (*list)(void *arg, const struct nftset_ref *s, uint64_t **ids, size_t *n);
	/* The netlink port the changes are sent from (0: none yet), so the
	 * loop can ignore the notifications they cause.  NULL: the sets
	 * are not the kernel's (a test's stand-in), and nothing needs
	 * ignoring. */
	uint32_t (*self)(void *arg);
	void *arg;
};

/*
 * Per-process priorities (rules/prio.h): how the core lists a
 * process's threads and reads and writes their priorities, as
 * kernel/prio.c does (taskprio_get, taskprio_set).  Placement has no
 * part in it: every backend -- v1, the v2 layout, systemd -- shares the
 * daemon's one table (backend_prio_kernel, engined/backend/prio.c);
 * the unit tests hand a stand-in.
 */
struct backend_prio {
	int (*threads)(void *arg, pid_t pid, int (*fn)(void *fnarg, pid_t tid), void *fnarg);
	int (*get)(void *arg, pid_t pid, pid_t tid, unsigned int what, struct prio *out);
	int (*set)(void *arg, pid_t pid, pid_t tid, const struct prio *todo);
	void *arg;
};

/* The kernel's: /proc and the scheduler's and I/O scheduler's calls. */
const struct backend_prio *backend_prio_kernel(void);

/* ---- how the core calls a table --------------------------------------------------- */

static inline int
backend_mkdir(const struct backend *b, const struct hier *h, const char *path,
	      bool *created)
{
	return b->place.mkdir(b->arg, h, path, created);
}

static inline int
backend_set(const struct backend *b, const struct hier *h, const char *path,
	    const char *key, const char *value)
{
	return b->place.set(b->arg, h, path, key, value);
}

static inline int
backend_move(const struct backend *b, const struct hier *h, const char *path, pid_t tgid)
{
	return b->place.move(b->arg, h, path, tgid);
}

static inline int
backend_rmdir(const struct backend *b, const struct hier *h, const char *path)
{
	return b->place.rmdir(b->arg, h, path);
}

static inline bool
backend_is_empty(const struct backend *b, const struct hier *h, const char *path)
{
	return b->place.is_empty(b->arg, h, path);
}

static inline void
backend_flush(const struct backend *b)
{
	b->place.flush(b->arg);
}

static inline int
backend_get(const struct backend *b, const struct hier *h, const char *path,
	    const char *key, char *buf, size_t len)
{
	return b->look.get(b->arg, h, path, key, buf, len);
}

static inline int
backend_children(const struct backend *b, const struct hier *h, const char *path,
		 int (*fn)(void *fnarg, const char *name), void *fnarg)
{
	return b->look.children(b->arg, h, path, fn, fnarg);
}

static inline int
backend_logical(const struct backend *b, const struct hier *h, const char *real,
		char *buf, size_t len)
{
	return b->look.logical(b->arg, h, real, buf, len);
}

static inline int
backend_may_move(const struct backend *b, const struct hier *h, const char *real,
		 char *why, size_t len)
{
	return b->look.may_move(b->arg, h, real, why, len);
}

static inline int
backend_unit(const struct backend *b, const struct hier *h, const char *path,
	     bool logical, char *buf, size_t len)
{
	return b->look.unit(b->arg, h, path, logical, buf, len);
}

static inline int
backend_id(const struct backend *b, const struct hier *h, const char *path, uint64_t *id)
{
	return b->ids.id(b->arg, h, path, id);
}

static inline int
backend_id_live(const struct backend *b, const struct hier *h, uint64_t id)
{
	return b->ids.id_live(b->arg, h, id);
}

static inline int
backend_move_now(const struct backend *b, const struct hier *h, const char *path,
		 pid_t tgid)
{
	return b->gate.move_now(b->arg, h, path, tgid);
}

static inline int
backend_prepare(const struct backend *b, const struct hier *h, const char *const *paths,
		size_t n, void (*keeper)(void *karg, pid_t pid, const char *path),
		void *karg)
{
	return b->gate.prepare(b->arg, h, paths, n, keeper, karg);
}

static inline int
backend_restore(const struct backend *b, const struct hier *h, const char *real,
		pid_t tgid)
{
	return b->gate.restore(b->arg, h, real, tgid);
}

/* ---- the cgroupfs backend (cgroupfs.c) ---------------------------------------------- */

/*
 * The daemon writes cgroupfs itself, through a cache of open
 * cgroup.procs files, and changes the kernel's nftables sets through
 * one netlink socket (libnftnl, libmnl), opened when first needed.
 * Every slot of its table is filled but those of units (logical,
 * may_move, unit, prepare, restore): its groups are the layout's own
 * paths and need nothing made ahead.  Free with cgroupfs_free, after
 * the core that calls it.
 */
struct cgroupfs;
int cgroupfs_new(struct cgroupfs **out) ATTR_WUR;
const struct backend *cgroupfs_table(const struct cgroupfs *fs);
const struct backend_nft *cgroupfs_nft(const struct cgroupfs *fs);
void cgroupfs_free(struct cgroupfs *fs);

#endif
