/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engined_private.h -- small helpers shared inside engined/.
 */
#ifndef CGENGINE_ENGINED_PRIVATE_H
#define CGENGINE_ENGINED_PRIVATE_H

#include "engined.h"

#include <sys/queue.h>
#include <time.h>

/* names.c: id -> name caches for the %u and %g templates */
struct name_table {
	struct rules_map map; /* id -> struct name_entry */
};

#define NAMES_MAX 256 /* longer user or group names are refused unasked */

struct names_user {
	uid_t uid;
	gid_t gid; /* primary group */
	char name[NAMES_MAX];
};

/* The system's passwd/group databases; 0, -ENOENT or -ENAMETOOLONG. */
int names_user_by_name(const char *name, struct names_user *out) ENGINED_WUR;
int names_user_by_uid(uid_t uid, struct names_user *out) ENGINED_WUR;
int names_group_by_name(const char *name, gid_t *gid) ENGINED_WUR;
/* The groups of user (with gid) into groups; how many (at most max). */
size_t names_grouplist(const char *user, gid_t gid, gid_t *groups, size_t max);

const char *names_user(struct name_table *t, uid_t uid);
const char *names_group(struct name_table *t, gid_t gid);
void names_clear(struct name_table *t);

/* notify.c: "READY=1", "RELOADING=1", "STOPPING=1", "WATCHDOG=1" to
 * $NOTIFY_SOCKET */
void notify_systemd(const char *state);
/* Seconds between WATCHDOG=1 pings (half of the unit's WatchdogSec=),
 * or 0 when systemd asks for none. */
double notify_watchdog_interval(void);

/* files.c */
/* Create the missing directories above path; 0 or -errno. */
int mkdir_parents(const char *path);
/* pidfile.c */
int pidfile_write(const char *path) ENGINED_WUR;
void pidfile_remove(const char *path);

/* control.c */
struct control_server;
struct ev_loop;
struct core;
struct control_server *control_open(const char *path, struct core *core);
void control_start(struct control_server *s, struct ev_loop *loop);
void control_close(struct control_server *s);

#endif
