/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdgate.h -- the exec gate on the systemd backend (sdgate.c): scopes
 * made ahead, each held by a keeper, so that a held exec is placed by
 * one write of cgroup.procs and never waits on PID 1.
 *
 *   prepare  a keeper forked per group the core wants ready (a child
 *            of the daemon that never execs: it waits on a pipe and
 *            exits when the daemon has gone); the core places it like
 *            any process (StartTransientUnit with PIDs=, Delegate=yes,
 *            or AttachProcessesToUnit when the scope exists)
 *   move     the group's keeper is in its scope: the pid written into
 *            the scope's cgroup.procs (systemd sees the process in the
 *            unit by its control group); else -EAGAIN, and the exec is
 *            placed after it through PID 1
 *
 * No sd-bus here; sdplace.c gives its table these two functions.
 */
#ifndef CGENGINE_SDGATE_H
#define CGENGINE_SDGATE_H

#include "engined/core/core.h"

struct sdgate;

/* The control group of the scope standing for the layout's group path
 * (sdplace.c names it); 0 or -errno. */
typedef int (*sdgate_scope_fn)(void *arg, const char *path, char *out, size_t len);

/* Is a move of pid on its way to PID 1 (sdplace.c knows)? */
typedef bool (*sdgate_busy_fn)(void *arg, pid_t pid);

/* 0 or -errno. */
int sdgate_new(struct sdgate **out, sdgate_scope_fn scope, sdgate_busy_fn busy, void *arg);
/* Every keeper goes (they exit when they read the end of their pipe). */
void sdgate_free(struct sdgate *g);
/* As backend.h's prepare: keepers for exactly paths[0..n-1]; a keeper
 * that has died is started again, and one that lives outside its scope
 * with no move of it on its way (PID 1 refused it, or the connection
 * was lost) is handed to the core to be placed again -- either at most
 * once a second per group. */
int sdgate_prepare(struct sdgate *g, const char *const *paths, size_t n,
		   void (*keeper)(void *karg, pid_t pid, const char *path), void *karg);
/* As backend.h's move_now for the layout's group path. */
int sdgate_move(struct sdgate *g, const struct hier *h, const char *path, pid_t tgid);

#endif
