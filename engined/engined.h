/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engined.h -- the daemon's internal interfaces (engined/ only).
 *
 *   log.c      logging to stderr, syslog or a file
 *   config.c   cgengined.conf (libconfuse)
 *   policy.c   config + hierarchies + rules, built and swapped as one
 *   engine.c   the libev loop, driving the core (core.h)
 *   sticky.c   libcgroup's sticky socket (cgexec/cgclassify --sticky)
 *   main.c     command line, daemonizing, start-up
 */
#ifndef CGENGINE_ENGINED_H
#define CGENGINE_ENGINED_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/kernel.h"
#include "lua/hooks.h"
#include "rules/rules.h"

#define ENGINED_WUR __attribute__((warn_unused_result))

/* ---- log.c ---------------------------------------------------------- */

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARNING,
	LOG_LEVEL_NOTICE,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

/* target: "-" or "stderr", "syslog", or a file path.  0 or -errno. */
int log_open(const char *target, enum log_level level) ENGINED_WUR;
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Parse "error", "warning", "notice", "info", "debug"; -1 if unknown. */
int log_level_parse(const char *s);
void log_close(void);
/* Copy in to out with control characters written as \xNN; its length. */
size_t log_escape(const char *in, char *out, size_t outlen);
void
log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The one rate limiter of log lines a hostile user could provoke
 * (refused requests, unreadable processes): at most burst lines in any
 * one second (windows start at the first line), the others held back
 * and counted.  The count is handed to the next line let through, or
 * taken by a caller that reports it by itself (log_limit_take).
 */
struct log_limit {
	unsigned burst;
	double window; /* start of the current second */
	unsigned lines; /* let through in it */
	unsigned long held;
};
#define LOG_LIMIT_INIT(n) { .burst = (n), .window = -1e18 }
/* May a line be logged at time now (seconds, any clock)?  When it may,
 * *held gets the count held back since the last one (then reset). */
bool log_limit_pass(struct log_limit *l, double now, unsigned long *held);
/* The count held back (then reset), for a caller's own summary line. */
unsigned long log_limit_take(struct log_limit *l);

#define log_error(...)	 log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_LEVEL_WARNING, __VA_ARGS__)
#define log_notice(...)	 log_msg(LOG_LEVEL_NOTICE, __VA_ARGS__)
#define log_info(...)	 log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...)	 log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

/* ---- config.c --------------------------------------------------------- */

/* Settings applied to a group when the daemon creates it. */
struct group_conf {
	char *hier; /* "cpu", "name=classes", ... */
	char *path; /* "/profs" */
	char **set; /* "cpu.shares=512", ... */
	size_t nset;
	char **nft; /* nftables sets of its cgroup id: "inet filter www", ... */
	size_t nnft;
};

struct boost_profile {
	char *name;
	char **allow; /* user names and @groups */
	size_t nallow;
	char *hier;
	char *dest;
	long max_seconds;
};

/*
 * The daemon runs at a raised priority by default, so that placing a
 * process is not queued behind the very load it classifies (the
 * systemd unit's Nice= says the same).
 */
#define CONFIG_NICE_DEFAULT (-10)

struct config {
	char *file; /* the file read, or "" for built-in defaults */
	char *rules;
	char *rules_dir;
	enum rules_semantics match;
	char **hierarchies; /* NULL = default selection */
	size_t nhierarchies;
	char **layout; /* unified-layout: dimensions, outer to inner (NULL = none) */
	size_t nlayout;
	char *unified_root;    /* "" = the daemon's own v2 group */
	char *unified_default; /* the segment of a dimension the rules leave alone */
	char *control_socket;
	char *sticky_socket; /* "" disables */
	char *pidfile;
	char *state_file;
	char *log;
	enum log_level log_level;
	bool remove_empty;
	char *lua_script; /* "" = no hooks */
	long lua_instructions;
	long lua_memory;
	long lua_timeout; /* milliseconds of the helper's CPU per hook call */
	long netlink_buffer; /* initial receive buffer of the proc connector */
	int nice;	     /* the daemon's scheduling priority, -20..19 */
	int rt_priority;     /* realtime-priority: SCHED_RR at 1..99, 0 = off */
	bool exec_gate;	     /* exec-gate: place gated execs before they run */
	struct group_conf *groups;
	size_t ngroups;
	struct boost_profile *profiles;
	size_t nprofiles;
};

/* Called with one complete "file:line: message" per problem. */
struct name_table;

struct report {
	void (*fn)(void *arg, const char *msg);
	void (*warn)(void *arg, const char *msg); /* NULL: log a warning */
	void *arg;
};

void report_msg(const struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Read a daemon config.  A missing file is an error unless optional,
 * in which case built-in defaults are returned.  NULL after reporting
 * errors.  Free with config_free.
 */
struct config *
config_load(const char *path, bool optional, const struct report *rep) ENGINED_WUR;
void config_free(struct config *c);
/* Parse "90s", "15m", "2h", "1d" (or plain seconds); -1 if invalid. */
long parse_duration(const char *s);

/* ---- policy.c ---------------------------------------------------------- */

/* Command-line values that override the config file (NULL = keep). */
struct overrides {
	const char *config;   /* config file (NULL = default path) */
	bool config_explicit; /* -c given: the file must exist */
	const char *rules;
	const char *pidfile;
	const char *control_socket;
	const char *log;
	int verbosity; /* -v minus -q */
};

struct policy {
	struct config *cfg;
	struct rules_set *rules;
	struct hier_list all; /* every mounted hierarchy */
	const struct hier *managed[RULES_MAX_HIERS];
	const char *names[RULES_MAX_HIERS];  /* managed[i]->name: as /proc shows it */
	const char *labels[RULES_MAX_HIERS]; /* as rules and people name it
						("unified" for the v2 tree) */
	size_t n;
	/* group settings resolved to a managed hierarchy index */
	struct {
		size_t hier;
		const struct group_conf *conf;
	} * settings;
	size_t nsettings;
	/*
	 * The unified layout (layout.c): dimensions rules name that have no
	 * managed v1 hierarchy are "virtual"; their verdicts are composed
	 * into one group of the v2 tree per process:
	 * v2:<uroot>/<part of layout[0]>/<part of layout[1]>/...
	 * v2 is NULL when no dimension is virtual.
	 */
	const struct hier *v2;
	char *uroot;	/* delegated subtree relative to v2's root; "" = its root */
	bool uroot_own; /* uroot is the daemon's own group (or its leaf's parent) */
	size_t nlayout;
	size_t layout[RULES_MAX_HIERS];	   /* managed indexes, outer to inner */
	unsigned depth[RULES_MAX_HIERS];   /* levels of each virtual dimension */
	bool virt[RULES_MAX_HIERS];	   /* managed[i] is a virtual dimension */
	struct hier dims[RULES_MAX_HIERS]; /* their stand-ins (mount: v2's) */
	char controllers[128]; /* v2 controllers enabled along the paths: "cpu io" */
	bool need_names;	   /* some destination uses %u or %g */
	struct hooks *hooks;	   /* Lua hooks, or NULL */
	struct name_table *users;  /* uid -> name cache */
	struct name_table *groups; /* gid -> name cache */
};

/*
 * Build everything from the config file and rules, with the mounted
 * hierarchies read from mountinfo (NULL: /proc/self/mountinfo); NULL
 * on error.
 */
struct policy *policy_build(const struct overrides *o, const char *mountinfo,
			    const char *procroot, const struct report *rep) ENGINED_WUR;
void policy_free(struct policy *p);
/* Cached names (NSS asked once per id per policy); NULL if unknown. */
const char *policy_user(struct policy *p, uid_t uid);
const char *policy_group(struct policy *p, gid_t gid);
/* The managed hierarchy named name (as in /proc/PID/cgroup), or NULL. */
const struct hier *policy_managed(const struct policy *p, const char *name);
/* The managed hierarchy or virtual dimension a config, rule or request
 * names ("cpu", "name=x", "unified", a dimension), or NULL. */
const struct hier *policy_find(const struct policy *p, const char *spec);
/* Its index in managed[], or -1. */
int policy_index(const struct policy *p, const struct hier *h);
/* Settings configured for group path in managed hierarchy h, or NULL. */
const struct group_conf *
policy_settings(const struct policy *p, size_t h, const char *path);

/* ---- layout.c: composing dimensions into one v2 group ------------------- */

/* The leaf below unified-root the daemon moves itself into when the root
 * is its own group (the kernel keeps processes out of inner groups). */
#define LAYOUT_DAEMON_LEAF "daemon"

/* Add the virtual dimensions of the config's unified-layout to p and
 * find the delegated subtree (procroot: where /proc/self/cgroup is);
 * 0 or -1 after reporting.  Before rules are bound. */
int layout_build(struct policy *p, const char *procroot, const struct report *rep) ENGINED_WUR;
/* The depth of each virtual dimension and the controllers to enable,
 * from the bound rules, group settings and boost profiles. */
void layout_finish(struct policy *p);
/* Does dest fit managed index i (always, unless i is virtual and dest
 * deeper than its dimension)? */
bool layout_fits(const struct policy *p, size_t i, const char *dest);
/* Levels below uroot of a composed group. */
unsigned layout_levels(const struct policy *p);
/*
 * Split the v2 group cur of a process into the part of each virtual
 * dimension ("/students/default"), into buf; parts[i] NULL for each
 * virtual i when cur is not a composed group of the layout.
 */
void layout_split(const struct policy *p, const char *cur, char *buf, size_t len,
		  const char **parts);
/*
 * Compose the v2 group for want[i] (the destination wanted for each
 * virtual dimension i, or NULL: left alone) over cur[i] (layout_split):
 * a dimension left alone keeps its current part, or gets the default
 * one; a shorter part is padded with the default segment.  0 with the
 * path in out; 1 when no dimension wants anything (nothing to do);
 * -EMLINK when want[*bad] is deeper than its dimension (the caller says
 * so; it is then left alone); -ENAMETOOLONG.
 */
int layout_compose(const struct policy *p, const char *const *want, const char *const *cur,
		   char *out, size_t len, size_t *bad) ENGINED_WUR;
/*
 * Which dimension level k (1 = the first below uroot) of composed group
 * path belongs to: its managed index, and the dimension's path down to
 * that level in dimpath ("/students").  -1 if out of range.
 */
int layout_level(const struct policy *p, const char *path, unsigned k, char *dimpath,
		 size_t len);
/*
 * A setting written for a v1 controller, in v2 terms: cpu.shares ->
 * cpu.weight, memory.limit_in_bytes -> memory.max, blkio.weight ->
 * io.weight (values converted); other keys unchanged.  0, or -ENOTSUP
 * for v1 files that have no meaning in v2 (net_cls.*, net_prio.*, ...).
 */
int layout_v2_setting(const char *key, const char *value, char *k2, size_t klen, char *v2,
		      size_t vlen) ENGINED_WUR;

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
struct engine *engine_new(const struct engine_options *opts) ENGINED_WUR;
/* fd to write one byte to once classification has started (or -1). */
void engine_set_ready_fd(struct engine *e, int fd);
/* After a fork: write the pid file, scan /proc, run the loop until a
 * terminating signal.  Returns the exit status. */
int engine_run(struct engine *e);
void engine_free(struct engine *e);
/* The configuration in force. */
const struct config *engine_config(const struct engine *e);
/* Reload, telling systemd (RELOADING=1 ... READY=1). */
void engine_reload(struct engine *e);

/* ---- sticky.c ---------------------------------------------------------- */

struct sticky_server;
struct ev_loop;

/* Listen on path; NULL after logging an error. */
struct core;
struct sticky_server *sticky_open(const char *path, struct core *core) ENGINED_WUR;
void sticky_start(struct sticky_server *s, struct ev_loop *loop);
void sticky_close(struct sticky_server *s, struct ev_loop *loop);

#endif
