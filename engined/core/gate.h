/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gate.h -- the exec gate, as the core sees it (gate.c): which binaries
 * to hold, the decision for a held exec and its moves, the check that
 * the exec really happened (else the moves are undone), and what
 * explain and status say about it.  No event loop and no fanotify here:
 * the loop's side is gateloop.h.
 *
 * A held exec is decided from what is known before it: the process's
 * credentials (the old ones, changed as the binary's set-user-ID and
 * set-group-ID bits will change them when the kernel is sure to) and
 * the binary's path.  The placement is provisional: undone, for the
 * process and what it forks meanwhile, unless the process is seen
 * running the binary with those credentials (gate.c).  The
 * command line, the new command name and a script run by an
 * interpreter are not known yet, and the Lua hook is not consulted:
 * the asynchronous classification after the exec, which runs for every
 * process as always, settles what the gate could not.
 */
#ifndef CGENGINE_GATE_H
#define CGENGINE_GATE_H

#include "engined/core/core.h"
#include "kernel/execgate.h"

/* How long an exec may be held at most: the watchdog thread answers
 * any exec the loop has not answered by then. */
#define GATE_BOUND_MS 100
/* How long after the gate's answer an exec is settled without its
 * EXEC event (the binary as /proc/PID/exe, the credentials). */
#define GATE_CONFIRM_SECONDS 0.5
/* ... unless its process may still be inside that exec, waiting for a
 * CPU (runnable or in the kernel): then it is given GATE_CONFIRM_SECONDS
 * more at a time, up to this long after the answer (gate.c's
 * later()), before it is settled all the same. */
#define GATE_CONFIRM_LIMIT 5.0

/* One held exec. */
struct gate_exec {
	pid_t pid;			  /* its thread group */
	const char *path;		  /* the binary, as the rules name it */
	const struct execgate_file *file; /* its identity and mode */
	int pidfd;			  /* the process, or -1 */
};

enum gate_result {
	GATE_PLACED,   /* moved into its groups now */
	GATE_IN_PLACE, /* already in them */
	GATE_LEFT,     /* nothing to do at the gate (no rule, sticky, paused,
			  a move that could not be made without waiting) */
	GATE_GONE,     /* the process is gone */
};

/*
 * Decide for a held exec and make its moves now, through the cgroupfs
 * operations' move_now (move when there is none).  Reads only
 * /proc/PID/{status,stat,cgroup} of the held process (others take
 * locks the exec holds on older kernels), and never waits on another
 * process.  The caller answers the exec afterwards, whatever this says.
 */
enum gate_result core_gate_exec(struct core *c, const struct gate_exec *x, double now);

/* Can the placement backend place a process without waiting on
 * another process (backend.h's move_now)?  Else the gate stays closed. */
bool core_gate_can_place(const struct core *c);

/*
 * Keep the groups ready that a backend's move_now needs made ahead
 * (backend.h's prepare; the systemd backend's scopes): those the gated
 * rules can compose, at most 64 (on), or none (off, the gate closed).
 * The loop calls it once the gate is open and its binaries marked, at
 * start and after every reload, and with off when it closes.  Groups a
 * gated exec wanted and did not find ready are added as it happens
 * (the exec is then placed after it: counted as late).  Nothing to do
 * for a backend without prepare.
 */
void core_gate_prepare(struct core *c, bool on);
/* How many groups are kept ready for the gate. */
size_t core_gate_ready(const struct core *c);

/* The binaries to hold: fn(arg, path) for each path a rule names (a
 * path may come more than once). */
void
core_gate_paths(const struct core *c, void (*fn)(void *arg, const char *path), void *arg);

/* What the loop's side tells the core, for status and metrics. */
struct gate_state {
	bool on;	   /* exec-gate is set */
	bool running;	   /* the fanotify group is open */
	bool pidfds;	   /* events carry pidfds */
	bool locked;	   /* the daemon's memory is locked */
	size_t marked;	   /* binaries marked */
	size_t wanted;	   /* binaries the rules name */
	unsigned bound_ms; /* the watchdog's: GATE_BOUND_MS (a test's, longer) */
	char error[128];   /* why it is not running, or "" */
};
void core_gate_set_state(struct core *c, const struct gate_state *s);
const struct gate_state *core_gate_state(const struct core *c);

/* The watchdog thread answered n execs the loop had read but not yet
 * answered (held) or not even read (unread): counted, and the loop's
 * late ones (found answered when it was done) placed by the
 * asynchronous path. */
void core_gate_watchdog(struct core *c, uint64_t held, uint64_t unread);
void core_gate_late(struct core *c, uint64_t n);
/* The loop answered n execs at once, unplaced, because their user held
 * its budget of execs already (gateloop.c): counted as held execs too,
 * and placed after their exec. */
void core_gate_over_budget(struct core *c, uint64_t n);

/* Was pid placed at the gate (the same process, recently)?  Then when,
 * wall clock, into *at. */
bool core_gate_placed(const struct core *c, pid_t pid, time_t *at);

#endif
