/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dbus.h -- the desktop's door: the daemon's D-Bus API on the system
 * bus (docs/dbus.md), beside the control socket and over the same core
 * verbs (core/verbs.c), so that the boost profiles' grants and the
 * per-user caps apply to both.  engined/daemon/ only.
 *
 *   dbusauth.c  who may do what: the decision table, polkit's answers
 *               (pure: no bus, no I/O)
 *   dbus.c      the transport: sd-bus in the daemon's loop, every
 *               question to the bus broker, polkit and logind asked
 *               asynchronously; the foreground
 */
#ifndef CGENGINE_DBUS_H
#define CGENGINE_DBUS_H

#include "daemon.h"

#define DOOR_NAME      "org.cgengine.Engine1"
#define DOOR_PATH      "/org/cgengine/Engine1"
#define DOOR_INTERFACE "org.cgengine.Engine1"
#define DOOR_ERROR     "org.cgengine.Engine1.Error.Failed"
#define DOOR_S76_NAME  "com.system76.Scheduler"
#define DOOR_S76_PATH  "/com/system76/Scheduler"

/* polkit's actions (data/org.cgengine.Engine1.policy) */
#define DOOR_ACTION_BOOST_OWN  "org.cgengine.Engine1.boost-own"
#define DOOR_ACTION_BOOST_ANY  "org.cgengine.Engine1.boost-any"
#define DOOR_ACTION_FOREGROUND "org.cgengine.Engine1.set-foreground"

/* ---- dbusauth.c: the decision table ------------------------------------------ */

enum door_method {
	DOOR_STATUS,
	DOOR_LIST,
	DOOR_EXPLAIN,
	DOOR_UNBOOST,
	DOOR_BOOST,
	DOOR_FOREGROUND, /* SetForeground, and s76's SetForegroundProcess */
};

/* What polkit said: yes, no, or nothing (not on the bus, an error). */
enum door_polkit {
	DOOR_POLKIT_YES,
	DOOR_POLKIT_NO,
	DOOR_POLKIT_ABSENT,
};

/* What a call needs before the core runs it. */
struct door_need {
	const char *deny;   /* refused outright (AccessDenied), or NULL */
	const char *action; /* polkit's action to ask for, or NULL: none */
	bool session;	    /* the caller must be in an active logind session */
	bool as_root;	    /* the verb runs as root's (boosting anyone's) */
};

/*
 * What method m asked by uid caller about a process of uid target
 * (ignored for methods without a process) needs: root needs nothing;
 * reads and unboosting need nothing (the verbs check what is whose);
 * boosting one's own process asks polkit for boost-own, anyone else's
 * for boost-any (then it runs as root's); the foreground is only ever
 * one's own process, asks for set-foreground, and an active session.
 */
void dbusauth_need(enum door_method m, uid_t caller, uid_t target, struct door_need *out);
/* polkit's answer a: NULL (allowed), or why not -- fail closed: no
 * answer is no. */
const char *dbusauth_polkit(enum door_polkit a);

/* ---- dbus.c: the transport --------------------------------------------------- */

struct door;

struct foreground;

/*
 * A door for core (borrowed), setting the foreground fg (borrowed,
 * shared with whatever else sets it: foreground.h) on the bus address ("system": the system
 * bus), not connected yet: sd-bus refuses a connection made before the
 * daemon forked; dbus_process() connects.  With s76, owns
 * com.system76.Scheduler too.  0 or -errno.  Free with dbus_free.
 */
int dbus_new(struct door **out, struct core *core, struct foreground *fg,
	     const char *address) ATTR_WUR;
/* Close (the calls waiting go unanswered, the foreground's grant ends). */
void dbus_free(struct door *d);
/* Handle what came, at the loop's time now (seconds); connects (again,
 * after a back-off) when not connected. */
void dbus_process(struct door *d, double now);
/* Before the loop waits: what to watch (-1: nothing) and when to call
 * dbus_process() again (monotonic microseconds, UINT64_MAX: never). */
int dbus_fd(const struct door *d);
int dbus_events(const struct door *d);
uint64_t dbus_deadline(const struct door *d);
/* The boosts may have changed (a boost ended, expired, started over
 * the control socket): say BoostsChanged if they did. */
void dbus_boosts_changed(struct door *d);

#endif
