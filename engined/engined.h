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
	long netlink_buffer; /* initial receive buffer of the proc connector */
	int nice;	     /* the daemon's scheduling priority, -20..19 */
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
			    const struct report *rep) ENGINED_WUR;
void policy_free(struct policy *p);
/* Cached names (NSS asked once per id per policy); NULL if unknown. */
const char *policy_user(struct policy *p, uid_t uid);
const char *policy_group(struct policy *p, gid_t gid);
/* The managed hierarchy named name (as in /proc/PID/cgroup), or NULL. */
const struct hier *policy_managed(const struct policy *p, const char *name);
/* Settings configured for group path in managed hierarchy h, or NULL. */
const struct group_conf *
policy_settings(const struct policy *p, size_t h, const char *path);

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
