/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon.h -- the daemon around the core (engined/daemon/): the libev
 * loop, the control and sticky socket servers, systemd notification,
 * the pid file and the command line.  Only these files include <ev.h>.
 *
 *   engine.c   the loop: kernel events, signals, timers -> core calls
 *   control.c  the control socket's protocol (requests: core/verbs.c)
 *   sticky.c   libcgroup's sticky socket (cgexec/cgclassify --sticky)
 *   server.c   the one socket server under both (server.h)
 *   dbus.c     the D-Bus door on the system bus, dbusauth.c its
 *              decision table (dbus.h, docs/dbus.md)
 *   files.c    listening sockets (listener.h)
 *   notify.c   READY=1 / RELOADING=1 / STOPPING=1 to systemd
 *   pidfile.c  the pid file
 *   self.c     the daemon's own priority and heap
 *   main.c     command line, --check, daemonizing, start-up
 */
#ifndef CGENGINE_DAEMON_H
#define CGENGINE_DAEMON_H

#include "engined/core/core.h"

/* ---- engine.c ---------------------------------------------------------- */

struct engine;

struct engine_options {
	struct overrides ov;
	bool dry_run;
};

/*
 * Set up: build the policy, open the proc connector, open the sticky
 * socket.  Errors are logged; NULL on failure.  No process is touched.
 */
struct engine *engine_new(const struct engine_options *opts) ATTR_WUR;
/* fd to write one byte to once classification has started (or -1). */
void engine_set_ready_fd(struct engine *e, int fd);
/* After a fork: write the pid file, scan /proc, run the loop until a
 * terminating signal.  Returns the exit status. */
int engine_run(struct engine *e);
void engine_free(struct engine *e);
/* The configuration in force. */
const struct config *engine_config(const struct engine *e);
/* The layout's root the daemon's backend of kind names (core.h's
 * overrides.layout_root): systemd's slice; 0 for cgroupfs. */
int engine_layout_root(enum backend_kind kind, const char *configured, char *out,
		       size_t len, const char **why);

/* ---- sticky.c ---------------------------------------------------------- */

struct server;
struct ev_loop;

/* Listen on path, served for core (borrowed: its server's context);
 * NULL after logging an error. */
struct core;
struct server *sticky_open(const char *path, struct core *core) ATTR_WUR;
void sticky_start(struct server *s, struct ev_loop *loop);
/* Close it (NULL is fine). */
void sticky_close(struct server *s, struct ev_loop *loop);

/* notify.c: "READY=1", "RELOADING=1", "STOPPING=1", "WATCHDOG=1" to
 * $NOTIFY_SOCKET */
void notify_systemd(const char *state);
/* Seconds between WATCHDOG=1 pings (half of the unit's WatchdogSec=),
 * or 0 when systemd asks for none. */
double notify_watchdog_interval(void);

/* self.c: run at cfg's nice and real-time priority (logged when they
 * change or cannot be had) */
void self_priority(const struct config *cfg);
/* Give the kernel back the heap a start or reload freed (libbpf's copy
 * of the kernel's BTF, the old rules' tables): malloc keeps it else. */
void self_trim(void);

/* pidfile.c */
int pidfile_write(const char *path) ATTR_WUR;
void pidfile_remove(const char *path);

/* control.c */
/*
 * Split a request line into words, in place: blanks (space, tab, CR)
 * separate them and are overwritten with NULs; argv[i] point into line.
 * The number of words (0 for a blank line), or -1 if there are more
 * than max: -E2BIG.  Pure: no state, no I/O (a fuzzer calls it directly).
 */
int control_parse_line(char *line, char **argv, int max);

struct control_server;
struct ev_loop;
struct core;
struct control_server *control_open(const char *path, struct core *core);
void control_start(struct control_server *s, struct ev_loop *loop);
void control_close(struct control_server *s);

#endif
