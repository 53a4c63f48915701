/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * foreground.h -- the desktop's foreground, one application at a time
 * (docs/dbus.md): whoever names it (the D-Bus door's SetForeground in
 * dbus.c, GNOME's xattr watched by gnomefg.c) goes through here, so a
 * new foreground ends the previous one's grant whoever set it.
 * engined/daemon/ only.
 *
 *   foreground.c  the grant: an app of a systemd desktop (in a unit of
 *                 its user's own manager, user@UID.service) gets the
 *                 foreground-profile's unit properties there, nothing
 *                 moved; any other process a boost of that profile
 *   fgunit.c      the users' managers: properties set and restored
 *                 over sd-bus, never blocking the loop
 *   gnomefg.c     Mutter's user.xdg.inactive-since on the app scopes
 */
#ifndef CGENGINE_FOREGROUND_H
#define CGENGINE_FOREGROUND_H

#include "daemon.h"

#include <stdbool.h>

struct fgunit;

/* The foreground's grant: one boost, one unit's properties, or none.
 * The engine owns it, the door and the GNOME watcher borrow it. */
struct foreground {
	struct core *core;    /* borrowed */
	unsigned grant;	      /* the foreground's grant (0: none) */
	unsigned next;	      /* the last grant's number */
	unsigned boost;	      /* its boost (0: none: not a boost) */
	struct fgunit *units; /* the users' managers (NULL: made at first use) */
	const char *address;  /* a test's manager address (fgunit_new), or NULL */
	bool address_is_bus;
};

/*
 * The foreground is pid now (pidfd: the caller's pidfd of it, or -1),
 * as uid's grant (so the profile's grants and the caps apply), asked by
 * process caller (0: the daemon itself), at the loop's time now; the
 * previous foreground's grant ends first.  A process in a unit of its
 * user's own manager (/user.slice/user-U.slice/user@U.service/...,
 * uid U or root asking) keeps its place: the foreground-profile's unit
 * properties (its destination group's settings, as sdunit_props()
 * reads them) are set on that unit by U's manager, and the profile's
 * priorities (process = {...}) on the process and its threads
 * (core_fgprio_start), both restored when the grant ends.  Any other
 * process gets a boost of the profile.  0 with the grant's number in
 * *id, or -errno with the message in err (len bytes).
 */
int foreground_set(struct foreground *f, double now, pid_t pid, int pidfd, uid_t uid,
		   pid_t caller, unsigned *id, char *err, size_t len) ATTR_WUR;
/* The grant id ends (why: said in the log) if it is still the
 * foreground; id 0: whatever the foreground is. */
void foreground_end(struct foreground *f, unsigned id, const char *why);
/* The loop: the descriptor to watch for reading (-1: none), when to
 * call foreground_process() again (monotonic us, UINT64_MAX: never);
 * foreground_prepare() before each wait. */
int foreground_fd(const struct foreground *f);
uint64_t foreground_deadline(const struct foreground *f);
void foreground_prepare(struct foreground *f);
void foreground_process(struct foreground *f);
/* At the daemon's end, after foreground_end(): wait at most seconds
 * for the managers to take the restored values, then close. */
void foreground_close(struct foreground *f, double seconds);

/* ---- fgunit.c: the users' managers ------------------------------------------------ */

#define FGUNIT_ADDRESS	 "unix:path=/run/user/%u/systemd/private"
#define FGUNIT_PROPS_MAX 16

struct sdprop;

/* The users' managers at address (a printf format of the uid:
 * FGUNIT_ADDRESS; a test's may be a bus, then is_bus).  0 or -errno;
 * free with fgunit_free (the calls unanswered are dropped). */
int fgunit_new(struct fgunit **out, const char *address, bool is_bus) ATTR_WUR;
void fgunit_free(struct fgunit *u);
/*
 * Grant id: uid's manager sets props (n, copied) on unit, at run time,
 * once it has said what the unit had (kept, set back by fgunit_end);
 * no properties (n 0): no manager is asked, the grant only watches.
 * pidfd (taken: closed with the grant; -1: none) is the process whose
 * exit ends it.  The previous grant must have ended.  0 or -errno (no
 * connection could be made, the manager is not uid's).
 */
int fgunit_set(struct fgunit *u, unsigned id, uid_t uid, const char *unit, int pidfd,
	       const struct sdprop *props, size_t n) ATTR_WUR;
/* The grant ends: the values kept are set again (why: in the log). */
void fgunit_end(struct fgunit *u, const char *why);
/* The grant in force (0: none; it ends by itself when its process
 * exits, the unit is gone or the manager fails it). */
unsigned fgunit_grant(const struct fgunit *u);
int fgunit_fd(const struct fgunit *u);
uint64_t fgunit_deadline(const struct fgunit *u);
void fgunit_prepare(struct fgunit *u);
void fgunit_process(struct fgunit *u);
/* Calls still unanswered. */
size_t fgunit_pending(const struct fgunit *u);

/* ---- gnomefg.c: GNOME's focused app, told by Mutter's xattr -------------------- */

#define GNOMEFG_XATTR "user.xdg.inactive-since"
#define GNOMEFG_ROOT  "/sys/fs/cgroup/user.slice"

struct gnomefg;

/*
 * Watch the app scopes under root (GNOMEFG_ROOT, or a test's tree:
 * user-UID.slice/user@UID.service/app.slice/...) with inotify; a scope
 * whose GNOMEFG_XATTR says "-1" becomes fg's (borrowed) foreground, its
 * lowest pid boosted as UID's.  0 or -errno.  Free with gnomefg_free
 * (the grant stays: fg's owner ends it).
 */
int gnomefg_new(struct gnomefg **out, struct foreground *fg, const char *root) ATTR_WUR;
void gnomefg_free(struct gnomefg *g);
/* The inotify descriptor to watch for reading; gnomefg_process() reads
 * what came (never blocks), the first call also the scopes there at
 * gnomefg_new(). */
int gnomefg_fd(const struct gnomefg *g);
void gnomefg_process(struct gnomefg *g, double now);

#endif
