/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdplace.h -- the systemd backend: the daemon decides, PID 1 places.
 *
 * It is a struct backend like the real cgroupfs, over the unified
 * layout's groups: each level a slice systemd owns (transient units made
 * with StartTransientUnit, with the group's settings as unit
 * properties), each leaf a scope under them; a process moves by
 * StartTransientUnit with PIDs= (the scope's first process) or
 * AttachProcessesToUnit (the others).  Every call is asynchronous
 * (sd-bus, on systemd's private socket /run/systemd/private, else the
 * system bus); the loop (engine.c) waits on sdplace_fd() and calls
 * sdplace_process().  v1 hierarchies, if any are managed, are still
 * written directly.  Made by the daemon only (its transport, sdbus.c,
 * links libsystemd): the core knows it as a table of functions
 * (engined/backend/backend.h).  sdplace.c holds the table and the
 * names; the queue of calls is movequeue.c's, the calls sdbus.c's.
 */
#ifndef CGENGINE_SDPLACE_H
#define CGENGINE_SDPLACE_H

#include "engined/core/core.h"

#include <stdint.h>

struct sdplace;

/* What the backend tells the loop, which tells the core. */
struct sdplace_hooks {
	/* a queued move ended: 0, -ESRCH (process gone) or -errno (logged) */
	void (*done)(void *arg, pid_t pid, int rc);
	/* the connection broke with moves in flight, or came back: the
	 * processes must be classified again */
	void (*lost)(void *arg);
	/* the unit standing for the layout's group path was started (its
	 * group exists now: its id goes into its nft sets); NULL: nobody
	 * is told */
	void (*made)(void *arg, const char *path);
	/* systemd unloaded the unit standing for the layout's group path
	 * (a scope collected once its last process exited, a unit stopped
	 * by hand): its id leaves its nft sets; NULL: nobody is told */
	void (*removed)(void *arg, const char *path);
	void *arg;
	/* PID 1's socket as a D-Bus address; NULL: its private socket,
	 * else the system bus (tests give a stand-in's) */
	const char *address;
	bool address_is_bus; /* address is a message bus's (as the system bus) */
};

/* Connect to PID 1 (asynchronously); 0 or -errno.  Free with
 * sdplace_free (what is queued and not sent yet is dropped). */
int sdplace_new(struct sdplace **out, const struct sdplace_hooks *hooks) ATTR_WUR;
void sdplace_free(struct sdplace *s);
/* Take root as the layout's root slice's group; 0 or -EINVAL. */
int sdplace_configure(struct sdplace *s, const char *root) ATTR_WUR;
/* The table the core calls (valid until sdplace_free). */
const struct backend *sdplace_table(struct sdplace *s);

/* ---- for the loop ------------------------------------------------------------- */

/* Send the slices made since the last call (before the loop waits). */
void sdplace_flush(struct sdplace *s);
/* The descriptor to watch (-1 while disconnected) and for what
 * (POLLIN, POLLOUT); when to call sdplace_process() at the latest
 * (CLOCK_MONOTONIC microseconds, UINT64_MAX: no deadline). */
int sdplace_fd(const struct sdplace *s);
int sdplace_events(const struct sdplace *s);
uint64_t sdplace_deadline(const struct sdplace *s);
/* Process what arrived, reconnect when due. */
void sdplace_process(struct sdplace *s);

#endif
