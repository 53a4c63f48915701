/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rules.h -- the cgrules.conf language: parse, index, match.
 *
 * This module is pure: besides reading rule files (and resolving user
 * and group names once, at load time, through an injectable resolver)
 * it does no I/O.  It knows nothing about netlink, libev or Lua.
 *
 * Life cycle:
 *   set = rules_load(&opts);          parse main file + rules directory
 *   rules_bind(set, hiers, n);        name the managed hierarchies
 *   rules_match(set, &task, out);     one decision per hierarchy
 *   rules_free(set);
 */
#ifndef CGENGINE_RULES_H
#define CGENGINE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/util.h"


/* Longest destination path after template expansion, NUL included. */
#define RULES_DEST_MAX 1024
/* Most hierarchies one rule set can be bound to. */
#define RULES_MAX_HIERS 64
/* Longest user or group name accepted, NUL excluded (as util/nss.c). */
#define RULES_NAME_MAX NSS_NAME_MAX

enum rules_semantics {
	RULES_PER_HIERARCHY, /* first rule naming a hierarchy decides it */
	RULES_FIRST_MATCH,   /* libcgroup: first matching rule decides all */
};

enum rules_severity {
	RULES_WARNING,
	RULES_ERROR,
};

enum rules_key_kind {
	RULES_KEY_USER,	 /* "alice" */
	RULES_KEY_GROUP, /* "@students" */
	RULES_KEY_ANY,	 /* "*" */
};

/*
 * Options.  A rule with either is an "ignore rule": it never moves a
 * task.  It leaves the task alone when the task already sits in the
 * destination (see cgrules.conf(5) for how each semantics compares),
 * and otherwise does not apply, so later rules decide.  "ignore" alone
 * applies to tasks that are not realtime, "ignore_rt" alone to
 * realtime (SCHED_FIFO, SCHED_RR) tasks, both together to every task.
 */
#define RULES_OPT_IGNORE    0x1u
#define RULES_OPT_IGNORE_RT 0x2u

/*
 * Resolves user and group names while a rule set loads.  Each function
 * returns 0 on success or -ENOENT.  group() hands back the uids of the
 * group's listed members in a malloc'd array the caller frees (may be
 * NULL when there are none).
 */
struct rules_names {
	int (*user)(void *arg, const char *name, uid_t *uid);
	int (*group)(void *arg, const char *name, gid_t *gid, uid_t **members,
		     size_t *nmembers);
	void *arg;
};

/* The resolver backed by the system's NSS (util/nss.c; names.c). */
extern const struct rules_names rules_nss_names;

struct rules_options {
	const char *file; /* main rules file; required */
	const char *dir;  /* rules directory; NULL or "" = none */
	enum rules_semantics semantics;
	const struct rules_names *names; /* NULL = rules_nss_names */
	/*
	 * Called once per problem with a complete "file:line: message"
	 * (warnings read "file:line: warning: ...").  May be NULL.
	 */
	void (*report)(void *arg, enum rules_severity sev, const char *msg);
	void *report_arg;
};

/* One rule as written; owned by its rule set. */
struct rules_rule {
	/* (in this order so that no padding is left: one per rule) */
	const char *file; /* file the rule came from */
	unsigned line;	  /* 1-based line number */
	enum rules_key_kind kind;
	const char *key;	 /* user or group name, or "*" */
	const char *process;	 /* process pattern, or NULL */
	const char *controllers; /* as written, e.g. "cpu,name=classes" */
	const char *dest;	 /* destination as written (escapes kept) */
	uint32_t id;		 /* uid or gid; 0 for "*" */
	unsigned options;	 /* RULES_OPT_* */
	uint64_t hits;		 /* decisions this rule made */
	bool continuation;	 /* written as "%" */
	bool templated;		 /* dest has %u %U %g %G %p %P */
	/* private to rules/ */
	uint8_t pmode; /* how the process field is matched */
	uint32_t head; /* index of the rule this one continues */
	uint64_t mask; /* bound hierarchies the rule names */
};

/*
 * What the matcher needs to know about a task.  Pointers are borrowed.
 * cgroups, when not NULL, has one entry per bound hierarchy: the task's
 * current group there (NULL = unknown).  user and group are the names
 * of euid and egid for %u and %g; NULL makes those expand to numbers.
 *
 * Which names a process field is compared with depends on the
 * semantics: first-match (libcgroup) uses invoked only, falling back to
 * exe, then comm; per-hierarchy uses exe, script and invoked (and comm
 * when there is no exe).
 */
struct rules_task {
	pid_t pid;
	uid_t uid, euid;
	gid_t gid, egid;
	const gid_t *groups; /* supplementary groups */
	size_t ngroups;
	const char *exe;    /* executable path, NULL if unknown */
	const char *comm;   /* kernel command name */
	const char *script; /* script run through an interpreter, or NULL */
	/*
	 * The path the process was started by, as libcgroup names it: a
	 * symlink to exe, or a script run through its #! line.  NULL = exe.
	 */
	const char *invoked;
	const char *user;
	const char *group;
	const char *const *cgroups;
	/*
	 * First-match ignore rules only: the task's group in each v1
	 * hierarchy /proc/PID/cgroup lists, bound or not ("name=systemd"
	 * too), nv1groups of them; NULL when unknown.  libcgroup consults
	 * them all.
	 */
	const char *const *v1groups;
	size_t nv1groups;
	bool realtime;
};

/* One decision per bound hierarchy. */
struct rules_decision {
	const struct rules_rule *rule; /* rule that decided, NULL = no rule */
	bool move;		       /* true: put the task in dest */
	/*
	 * When move: may the caller create dest if it does not exist?
	 * Always in per-hierarchy semantics; in first-match only when
	 * expanding changed the destination (a template or a '\' escape:
	 * libcgroup creates such groups, never a plain one -- the move
	 * fails and the task stays where it is).
	 */
	bool create;
	char dest[RULES_DEST_MAX]; /* expanded destination when move */
};

/*
 * Parse opts->file and then the *.conf files of opts->dir in sorted
 * order.  Returns a new set (free with rules_free) or NULL when any
 * error was reported (or memory ran out).
 */
struct rules_set *rules_load(const struct rules_options *opts) ATTR_WUR;

/* Parse rules from memory; name is used in messages.  As rules_load. */
struct rules_set *rules_parse_buffer(const char *name, const char *text, size_t len,
				     const struct rules_options *opts) ATTR_WUR;

void rules_free(struct rules_set *set);

/* Does some rule's destination hold a template (%u %U %g %G %p %P)? */
bool rules_templated(const struct rules_set *set);
/*
 * The installation's secret key (SIPHASH_KEY_LEN bytes, copied) for the
 * hash that encodes long and unsafe template values (rules_expand); a
 * new set has all zero bytes.
 */
void rules_set_key(struct rules_set *set, const unsigned char *key);

/*
 * Tell the set which hierarchies it decides for: names as the second
 * field of /proc/PID/cgroup shows them ("cpu,cpuacct", "name=classes").
 * A rule controller names a hierarchy when it equals one of the
 * hierarchy's comma-separated parts; "*" names them all.
 * Returns 0, or -E2BIG beyond RULES_MAX_HIERS.
 */
int rules_bind(struct rules_set *set, const char *const *hiers, size_t n) ATTR_WUR;

/*
 * Decide, for each bound hierarchy i, what to do with the task; fills
 * out[0..n-1] where n is the count given to rules_bind.  Counts hits.
 * Does no I/O and no name look-ups.  Correct for any number of groups
 * the task is in.  Not reentrant on one set (it keeps scratch space and
 * hit counts there).
 */
void rules_match(struct rules_set *set, const struct rules_task *task,
		 struct rules_decision *out);

size_t rules_count(const struct rules_set *set);
const struct rules_rule *rules_get(const struct rules_set *set, size_t i);
enum rules_semantics rules_semantics(const struct rules_set *set);
/* True when some rule uses ignore_rt (callers then fill task.realtime). */
bool rules_need_realtime(const struct rules_set *set);
/*
 * True when some rule has a process field or a destination with %p
 * (callers then fill exe, script and invoked): %p is the same name
 * whatever else the file holds.
 */
bool rules_need_process(const struct rules_set *set);
/*
 * True when some decision depends on the task's current groups (an
 * ignore rule); otherwise rules_match() never reads task.cgroups or
 * task.v1groups and callers may leave them NULL.
 */
bool rules_need_cgroups(const struct rules_set *set);
/*
 * Which of a task's credentials some decision depends on, so which of
 * their changes (the kernel's UID and GID events) can change one:
 * RULES_NEED_UID for a user rule, a group rule (its listed members are
 * matched by uid) and the templates %u %U; RULES_NEED_GID for a group
 * rule and %g %G.
 */
#define RULES_NEED_UID 0x1u
#define RULES_NEED_GID 0x2u
unsigned rules_need_ids(const struct rules_set *set);

/*
 * fn(arg, path) for each process field that is an absolute path without
 * wildcards, of the rules that may move a task in a bound hierarchy
 * (ignore rules excluded): the binaries the exec gate holds.  A path
 * named by several rules comes once per rule.
 */
void rules_paths(const struct rules_set *set, void (*fn)(void *arg, const char *path),
		 void *arg);

/*
 * The uids of the listed members of every @group rule's group (their
 * rules match them by uid too); *n of them, duplicates possible.  The
 * array is the set's.
 */
const uid_t *rules_members(const struct rules_set *set, size_t *n);
/* Is r's process field a glob pattern (not one exact name or path)? */
bool rules_pattern(const struct rules_rule *r);

/*
 * Expand a destination template for a task into buf: %u %U %g %G %p
 * %P and backslash escapes; a '%' before any other character is kept
 * with that character, as written.  Each value is one path component
 * of at most 48 bytes: '/' and control characters become '_'; a value
 * longer than that, empty, "." or "..", named like a cgroupfs control
 * file ("tasks", "cgroup.procs", "cpu.shares" ...) or ending like an
 * encoded one is encoded as its first bytes, '~' and 16 hex digits of
 * SipHash-2-4 under key (SIPHASH_KEY_LEN bytes; NULL = zeros), so that
 * no two values share a group (template.c says how).  Returns 0 or
 * -ENAMETOOLONG.
 */
int rules_expand(const char *tmpl, const struct rules_task *task, const unsigned char *key,
		 char *buf, size_t len) ATTR_WUR;

/*
 * The most bytes rules_expand() can write for tmpl, NUL excluded,
 * whatever the task: a value of %u %g %p at most 48, of %U %G %P at
 * most 11.  Pure.
 */
size_t rules_expand_max(const char *tmpl);

/*
 * What is wrong with a destination path, or NULL if nothing: it must be
 * absolute, shorter than RULES_DEST_MAX, free of ".." components and of
 * control characters (a newline would forge log lines, and cgroupfs
 * refuses it).
 * The answer completes "destination ...", e.g. "must not contain '..'".
 * Used for rules, boosts and Lua hook answers alike.
 */
const char *rules_dest_problem(const char *dest);


#endif
