/*
 * hooks.h -- embedded Lua 5.4 hooks for classification.
 *
 * One script per hooks object, loaded as text into a sandbox (base,
 * string, table, math, utf8; no io, os, package, debug, load, dofile,
 * loadfile, require, collectgarbage; no bytecode).  Every call runs
 * under an instruction budget and a memory cap; a hook that fails
 * leaves the rules' decision untouched.
 *
 * This module never touches /proc, cgroupfs or netlink: what it needs
 * about a task comes in through struct hooks_task and its callbacks.
 */
#ifndef CGENGINE_HOOKS_H
#define CGENGINE_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HOOKS_WUR      __attribute__((warn_unused_result))
#define HOOKS_DEST_MAX 1024 /* as RULES_DEST_MAX */

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
	uint64_t errors; /* errors, budget and memory aborts */
};

/*
 * Load and compile the script, then call its init() if it has one.
 * On failure returns NULL and writes "file:line: message" (or
 * "file: message") into err.  Free with hooks_free.
 */
struct hooks *
hooks_load(const struct hooks_options *opts, char *err, size_t errlen) HOOKS_WUR;
void hooks_free(struct hooks *h);

/* Does the script define classify()? */
bool hooks_has_classify(const struct hooks *h);

/*
 * Call classify(task, decision, why).  On success (0) the slots hold
 * the hook's decision and `changed` marks what it changed.  On a hook
 * error (-1) the slots are untouched, the error is logged (at most
 * once a second, with a count of those suppressed) and counted.
 */
int hooks_classify(struct hooks *h, const struct hooks_task *task,
		   struct hooks_slot *slots, size_t n) HOOKS_WUR;

const struct hooks_stats *hooks_stats(const struct hooks *h);

/* For tests: the Lua stack depth between calls (must stay constant). */
int hooks_stack_depth(const struct hooks *h);

#endif
