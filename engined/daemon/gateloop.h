/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gateloop.h -- the exec gate in the daemon (the loop's side; the
 * core's is gate.h):
 *
 *   gateloop.c  the fanotify and inotify watchers, the marks on the
 *               binaries the rules name (marked again when a package
 *               upgrade renames a new binary into place), each held
 *               exec handed to core_gate_exec() and answered, the
 *               daemon's memory locked while the gate is on
 *   watchdog.c  the thread that answers every exec held longer than
 *               the bound, whatever the loop is doing
 */
#ifndef CGENGINE_GATELOOP_H
#define CGENGINE_GATELOOP_H

#include "engined/core/gate.h"

struct ev_loop;
struct gateloop;

/*
 * Open the gate when the configuration in force asks for it (and it is
 * not open), mark the binaries the rules name (again, after a reload),
 * or close it when it no longer asks: called at start and after every
 * reload.  Errors are logged and reported in the core's gate state;
 * the daemon then runs without the gate.  *gp is NULL while closed.
 */
void gateloop_update(struct gateloop **gp, struct core *core, struct ev_loop *loop);
/* Close the gate: every exec still held goes on. */
void gateloop_free(struct gateloop *g, struct ev_loop *loop);
/* Before the loop waits: the watchdog's counts into the core. */
void gateloop_prepare(struct gateloop *g);
/* Do held execs wait to be read (NULL: no gate)?  A batch of events
 * read asks, and stops early: the rest at the next wake-up. */
bool gateloop_waiting(const struct gateloop *g);
/* Between two items of a long piece of other work (the core's
 * core_env.between: a batch's classifications, a rescan): serve the
 * held execs waiting, as the fanotify watcher does.  It asks each time
 * for 1 s after held execs were read, otherwise at most once per 5 ms,
 * so the common path makes no system call per item.  NULL: no gate. */
void gateloop_between(struct gateloop *g);

/* ---- watchdog.c ------------------------------------------------------------ */

#define WATCHDOG_SLOTS 128 /* execs the loop holds at once at most */

struct watchdog;

/* Start the thread for fanotify descriptor gfd; 0 or -errno. */
int watchdog_start(struct watchdog **out, int gfd, unsigned bound_ms);
/* Stop it (it answers nothing afterwards); NULL is fine. */
void watchdog_stop(struct watchdog *w);
/* The loop came round (before it reads events, and per event). */
void watchdog_beat(struct watchdog *w);
/* The loop read the exec of event descriptor fd: its slot, or -1 when
 * none is free (the loop then answers it at once). */
int watchdog_hold(struct watchdog *w, int fd);
/* Has the thread answered the exec in slot already? */
bool watchdog_answered(struct watchdog *w, int slot);
/* The loop is done: answer the exec unless the thread did, free the
 * slot.  True when the loop answered. */
bool watchdog_release(struct watchdog *w, int slot);
/* The execs the thread answered since the last call: held by the loop,
 * and read by the thread itself. */
void watchdog_take(struct watchdog *w, uint64_t *held, uint64_t *unread);

#endif
