/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hooks.h -- embedded Lua 5.4 hooks for classification.
 *
 * One script per hooks object, loaded as text into a sandbox (base,
 * string, table, math, utf8; no io, os, package, debug, load, dofile,
 * loadfile, require, collectgarbage; no bytecode; no __gc metamethods).
 * Every call runs under an instruction budget and a memory cap; a hook
 * that fails leaves the rules' decision untouched.
 *
 * The Lua state lives in a helper process (privilege separation):
 * hooks_load() forks it, it drops to an unprivileged user and serves
 * one request at a time over a socketpair.  The caller waits for each
 * answer until the helper has used timeout_ms of CPU time, whatever the
 * hook does (Lua code, a slow C library function such as a pattern
 * match, a finalizer), and at most five times that of wall-clock time
 * (a starved helper); a helper that overruns is killed and started
 * again.  So hooks_load(), hooks_classify() and hooks_free() never
 * block for long.
 * The helper is untrusted: every answer is validated again here.
 *
 * The helper is followed through a pidfd, so a SIGCHLD handler
 * elsewhere that reaps every child (libev's default loop does) is
 * harmless.  A process that forks keeps no helper: the first call in
 * the child process starts its own (a daemon that forks into the
 * background after loading its hooks).  The caller must be single-
 * threaded (the helper is forked without exec).
 *
 * This module never touches /proc, cgroupfs or netlink: what it needs
 * about a task comes in through struct hooks_task and its callbacks,
 * which run in the caller's process while the helper waits.
 */
#ifndef CGENGINE_HOOKS_H
#define CGENGINE_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/util.h"

#define HOOKS_DEST_MAX		 1024 /* as RULES_DEST_MAX */
#define HOOKS_TIMEOUT_DEFAULT_MS 100  /* when hooks_options.timeout_ms is 0 */

enum hooks_level {
	HOOKS_ERROR,
	HOOKS_WARNING,
	HOOKS_NOTICE,
	HOOKS_INFO,
	HOOKS_DEBUG,
};

struct hooks_options {
	const char *script; /* path of the Lua file */
	long instructions;  /* budget per call (init and classify) */
	long memory;	    /* cap for the whole Lua state, bytes */
	/* where cgengine.log() and hook errors go; may be NULL */
	void (*log)(void *arg, enum hooks_level level, const char *msg);
	/* cgengine.user(uid) / cgengine.group(gid); may be NULL */
	const char *(*user_name)(void *arg, uid_t uid);
	const char *(*group_name)(void *arg, gid_t gid);
	void *arg;
	/* Limit of one classify() call, in ms of the helper's CPU time (0:
	 * the default), and five times that in wall-clock time.  Loading
	 * (main chunk and init()) gets ten times as long. */
	long timeout_ms;
	/* Run the helper as run_uid/run_gid without supplementary groups
	 * (needs root; engined passes "nobody").  When false the helper
	 * keeps the caller's ids (unit tests, a daemon not run as root). */
	bool drop_privileges;
	uid_t run_uid;
	gid_t run_gid;
};

/* A task as a hook sees it; valid only during hooks_classify(). */
struct hooks_task {
	pid_t pid, ppid;
	uid_t uid, euid;
	gid_t gid, egid;
	const gid_t *groups;
	size_t ngroups;
	const char *comm;
	const char *exe;  /* "" if unknown */
	const char *user; /* NULL: asked of user_name() when read */
	const char *group;
	/* NUL-separated command line into buf; bytes or -errno.  Called
	 * only if the hook reads task.cmdline. */
	int (*cmdline)(void *arg, char *buf, size_t len);
	/* current group in hierarchy hier, or NULL */
	const char *(*cgroup)(void *arg, const char *hier);
	void *arg;
};

/* One decision per hierarchy, in and out. */
struct hooks_slot {
	const char *hier;	   /* "cpu,cpuacct", "name=classes", ... */
	bool set;		   /* in/out: a destination is chosen */
	char dest[HOOKS_DEST_MAX]; /* in/out: the destination when set */
	const char *why;	   /* in: "cgrules.conf:12", or NULL */
	bool changed;		   /* out: the hook changed this slot */
};

struct hooks_stats {
	uint64_t calls;
	uint64_t errors;   /* errors, budget and memory aborts, timeouts */
	uint64_t timeouts; /* calls stopped by timeout_ms (in errors too) */
	uint64_t restarts; /* helpers started again after a failure */
};

/*
 * Read the script, start the helper, which compiles it and calls its
 * init() if it has one, all within ten times the limits of a call.  On failure
 * returns NULL and writes "file:line: message" (or "file: message")
 * into err.  Free with hooks_free.
 */
struct hooks *
hooks_load(const struct hooks_options *opts, char *err, size_t errlen) ATTR_WUR;
/* Kills and reaps the helper; never waits for Lua code. */
void hooks_free(struct hooks *h);

/*
 * A second hooks object running the same script (as loaded by h, not
 * read again) with the same limits, in a helper of its own, started at
 * its first call.  Its failures, timeouts and back-off are its own: the
 * daemon gives requests (what-if tests, explain) such a clone, so what
 * a user asks can never stop or back off the helper that classifies
 * real processes.  Each line it logs starts with tag (NULL: none).
 * NULL when out of memory (or h is NULL).  Free with hooks_free.
 */
struct hooks *hooks_clone(const struct hooks *h, const char *tag) ATTR_WUR;

/* Does the script define classify()? */
bool hooks_has_classify(const struct hooks *h);

/*
 * Call classify(task, decision, why).  On success (0) the slots hold
 * the hook's decision and `changed` marks what it changed.  On an error
 * (-errno) the slots are untouched, the error is logged (at most once a
 * second, with a count of those suppressed) and counted:
 *   -ECANCELED  the hook failed (raised an error, ran out of its
 *               instruction budget or memory, decided something invalid)
 *   -ETIMEDOUT  it overran timeout_ms of CPU time
 *   -ETIME      no answer within five times timeout_ms of wall-clock
 *               time (the helper got too little CPU time)
 *   -EPIPE      the helper died;  -EPROTO  it broke the protocol
 *   -EAGAIN     the helper is down, backing off (below)
 *   -EMSGSIZE   the task and slots do not fit in one message
 *   -ENOMEM, or the errno of starting a helper
 * Any error but -ECANCELED, -EMSGSIZE and -ENOMEM loses the helper: it
 * is killed and started again (at once the first time, then after 1 s,
 * 2 s, ... up to a minute while it keeps failing; meanwhile calls fail
 * at once with -EAGAIN).
 */
int hooks_classify(struct hooks *h, const struct hooks_task *task,
		   struct hooks_slot *slots, size_t n) ATTR_WUR;

const struct hooks_stats *hooks_stats(const struct hooks *h);

/* For tests: the Lua stack depth between calls (must stay constant),
 * asked of the helper; -ESRCH if there is none; -ETIMEDOUT, -ETIME,
 * -EPIPE or -EPROTO as hooks_classify() when it does not answer in time
 * or not as asked (then it is replaced, as after a failed call). */
int hooks_stack_depth(struct hooks *h);

/* The helper's pid, or -1 while there is none. */
pid_t hooks_helper_pid(const struct hooks *h);

/*
 * Validate one answer of the helper to a classify() request: buf/len
 * is the whole message as received, in[0..n) the slots as sent.  The
 * helper is untrusted, so this checks everything: size, type, slot
 * count, and each destination (absolute, no "..", no control
 * characters or NUL, shorter than HOOKS_DEST_MAX).
 *   0           out[0..n) = in[] with the hook's decision, `changed` set
 *   -ECANCELED  the helper reports that the hook failed; its message
 *               (control characters replaced by '?') is in err
 *   -EPROTO     malformed; err says why
 * out is written even on failure (scratch space); in is never written.
 * Pure: no I/O, no globals; meant for fuzzing.
 */
int
hooks_answer_parse(const void *buf, size_t len, const struct hooks_slot *in,
		   struct hooks_slot *out, size_t n, char *err, size_t errlen) ATTR_WUR;

#endif
