/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * foreground.h -- the desktop's foreground, one application at a time
 * (docs/dbus.md): whoever names it (the D-Bus door's SetForeground in
 * dbus.c, GNOME's xattr watched by gnomefg.c) goes through here, so a
 * new foreground ends the previous one's boost whoever set it.
 * engined/daemon/ only.
 *
 *   foreground.c  the grant: one boost of the foreground-profile
 *   gnomefg.c     Mutter's user.xdg.inactive-since on the app scopes
 */
#ifndef CGENGINE_FOREGROUND_H
#define CGENGINE_FOREGROUND_H

#include "daemon.h"

#include <stdbool.h>

/* The foreground's grant: one boost, or none.  The engine owns it, the
 * door and the GNOME watcher borrow it. */
struct foreground {
	struct core *core; /* borrowed */
	unsigned boost;	   /* the foreground's boost (0: none) */
};

/*
 * The foreground is pid now, boosted through the foreground-profile as
 * uid's boost (so the profile's grants and the caps apply), asked by
 * process caller (0: the daemon itself), at the loop's time now: the
 * previous foreground's boost ends first.  0 with *id, or -errno with
 * the core's message in err (len bytes).
 */
int foreground_set(struct foreground *f, double now, pid_t pid, uid_t uid, pid_t caller,
		   unsigned *id, char *err, size_t len) ATTR_WUR;
/* The grant id ends (why: said in the log) if it is still the
 * foreground; id 0: whatever the foreground is. */
void foreground_end(struct foreground *f, unsigned id, const char *why);

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
