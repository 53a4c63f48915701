/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdbus.h -- the systemd backend's transport: the move queue's calls
 * (movequeue.h) as Manager method calls to PID 1 over sd-bus, their
 * answers and the start jobs' ends read back, the units of the layout
 * that systemd unloaded told to the loop, the connection kept
 * (reconnected with a back-off).  The only file of the daemon that
 * includes <systemd/sd-bus.h> is sdbus.c.
 */
#ifndef CGENGINE_SDBUS_H
#define CGENGINE_SDBUS_H

#include "engined/backend/systemd/movequeue.h"
#include "engined/backend/systemd/sdplace.h"

struct sdbus;

/* What a start call says besides its unit: the slice a scope goes in
 * and the unit's description; 0, or -EINVAL when path is no longer the
 * layout's (a reload changed unified-root). */
typedef int sdbus_describe_fn(void *arg, const struct mq_call *k, char *slice,
			      size_t slicelen, char *desc, size_t desclen);

/* The layout's group that unit stands for (UnitRemoved names units),
 * into path; 0, or -ENOENT when unit is none of the layout's. */
typedef int sdbus_group_fn(void *arg, const char *unit, char *path, size_t len);

/*
 * A transport for q (its send is sdbus_send with this transport as
 * argument): connects once to see that PID 1 can be reached, then
 * closes -- sd-bus refuses a connection made before the daemon forked;
 * the next call connects again.  hooks: lost, removed and the address
 * (the others are the queue's); describe and group_of are called with
 * arg.  0 or -errno.
 */
int sdbus_new(struct sdbus **out, struct movequeue *q, const struct sdplace_hooks *hooks,
	      sdbus_describe_fn *describe, sdbus_group_fn *group_of, void *arg) ATTR_WUR;
/* Close (what is queued and not sent is dropped: no flush could block). */
void sdbus_free(struct sdbus *b);
/* struct mq_env.send: send call k; 0 or -errno. */
int sdbus_send(void *arg, struct mq_call *k);

int sdbus_fd(const struct sdbus *b);
int sdbus_events(const struct sdbus *b);
uint64_t sdbus_deadline(const struct sdbus *b);
void sdbus_process(struct sdbus *b);

#endif
