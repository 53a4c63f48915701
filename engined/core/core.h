/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * core.h -- the daemon's core: everything that decides, and nothing
 * that waits.  It builds as its own library (engined/core/libcore.a)
 * that links without libev or sockets; the daemon (engined/daemon/)
 * wraps a loop and two socket servers around it.
 *
 * The core owns the policy (config, hierarchies, rules, Lua hooks), the
 * process table (sticky flags, boost membership, keyed by struct
 * procid), the boosts, the groups it made, the counters and the
 * classification pipeline.  It knows no event loop and no socket: the
 * loop (engine.c) turns kernel events, signals and timers into calls
 * below, and asks core_next_deadline() when to call core_timeout().
 * Where /proc lives, where the mount table is read from, how cgroupfs
 * is written and what time it is are injected (struct core_env), so
 * unit tests drive the core over a fixture /proc tree and a fake
 * cgroupfs without root.
 *
 * Time: `now` arguments are monotonic seconds (the loop's clock);
 * boost expiry is wall-clock time (it survives restarts), read through
 * env.wall.
 */
#ifndef CGENGINE_CORE_H
#define CGENGINE_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>
#include <time.h>

#include "engined/backend/backend.h"
#include "kernel/kernel.h"
#include "rules/prio.h"
#include "rules/rules.h"
#include "util/util.h"


/* ---- log.c ---------------------------------------------------------- */

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARNING,
	LOG_LEVEL_NOTICE,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

/* target: "-" or "stderr", "syslog", or a file path.  0 or -errno. */
int log_open(const char *target, enum log_level level) ATTR_WUR;
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Parse "error", "warning", "notice", "info", "debug"; -1 if unknown. */
int log_level_parse(const char *s);
void log_close(void);
/* Copy in to out with control characters written as \xNN; its length. */
size_t log_escape(const char *in, char *out, size_t outlen);
void
log_msg(enum log_level level, const char *fmt, ...) ATTR_PRINTF(2, 3);

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
	unsigned line; /* where the section ends in the file, for messages */
	struct prio prio;    /* process = {...}: priorities of its processes */
	unsigned prio_line;  /* where process = is (0: none) */
};

struct boost_profile {
	char *name;
	char **allow; /* user names and @groups */
	size_t nallow;
	char *hier;
	char *dest;
	long max_seconds;
	long max_boosts; /* boosts of this profile at once, all users together */
	unsigned line; /* where the section ends in the file, for messages */
	struct prio prio;   /* process = {...}: priorities during the boost */
	unsigned prio_line; /* where process = is (0: none) */
};

/* The caps on boosts held at once (boosts-per-user, max-boosts). */
#define CONFIG_BOOSTS_PER_USER	32
#define CONFIG_MAX_BOOSTS	1024
#define CONFIG_BOOSTS_LIMIT_MAX 100000 /* what the state file keeps */

/*
 * The daemon runs at a raised priority by default, so that placing a
 * process is not queued behind the very load it classifies (the
 * systemd unit's Nice= says the same).
 */
#define CONFIG_NICE_DEFAULT (-10)

/* Who places processes in the unified layout's groups (backend key). */
enum backend_kind {
	BACKEND_AUTO,	  /* systemd when PID 1 is systemd and a unified-layout is set */
	BACKEND_CGROUPFS, /* the daemon writes cgroupfs (a subtree delegated to it) */
	BACKEND_SYSTEMD,  /* PID 1 places, in slices and scopes it owns */
};

/* Where the daemon learns of execs (event-source key). */
enum event_source {
	EVENT_SOURCE_AUTO,    /* BPF where it loads, else the proc connector */
	EVENT_SOURCE_BPF,     /* the BPF program on sched_process_exec */
	EVENT_SOURCE_NETLINK, /* the proc connector */
};

struct config {
	char *file; /* the file read, or "" for built-in defaults */
	char *rules;
	char *rules_dir;
	enum rules_semantics match;
	char **hierarchies; /* NULL = default selection (no key, or {"all"}) */
	size_t nhierarchies;
	char **layout; /* unified-layout: dimensions, outer to inner (NULL = none) */
	size_t nlayout;
	unsigned layout_line; /* where its list ends in file, for messages (0: unknown) */
	char *unified_root;    /* "" = the daemon's own v2 group */
	char *unified_default; /* the segment of a dimension the rules leave alone */
	enum backend_kind backend;
	char *control_socket;
	char *sticky_socket; /* "" disables */
	char *pidfile;
	char *state_file;
	char *template_key; /* the secret key of template values' hash (rules_set_key) */
	char *log;
	enum log_level log_level;
	bool remove_empty;
	char *lua_script; /* "" = no hooks */
	long lua_instructions;
	long lua_memory;
	long lua_timeout; /* milliseconds of the helper's CPU per hook call */
	long netlink_buffer; /* initial receive buffer of the proc connector */
	long bpf_buffer;     /* the BPF event source's ring buffer, read at start */
	int nice;	     /* the daemon's scheduling priority, -20..19 */
	int rt_priority;     /* realtime-priority: SCHED_RR at 1..99, 0 = off */
	bool exec_gate;	     /* exec-gate: place gated execs before they run */
	enum event_source event_source; /* read at start only */
	long boosts_per_user; /* boosts one user but root may hold at once */
	/* the D-Bus door (engined/daemon/dbus.c): "no", "system" or a bus
	 * address; the boost profile of the foreground app ("": none);
	 * own com.system76.Scheduler too */
	char *dbus;
	char *foreground_profile;
	bool dbus_s76;
	/* watch GNOME's app scopes (engined/daemon/gnomefg.c): "no",
	 * "yes" or the directory to watch instead of /sys/fs/cgroup/user.slice */
	char *gnome_foreground;
	char *metrics_group; /* members may ask for "metrics" ("" = root only) */
	uint64_t digest;     /* fingerprint of the parsed configuration (fleet.c) */
	char *ananicy_dir;    /* ananicy-cpp's rules to read, "" = none */
	char *ananicy_cgroup_hier; /* where ananicy's cgroups are made, "" = nowhere */
	char *ananicy_type_hier; /* where ananicy's types are classes, "" = nowhere */
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
	ATTR_PRINTF(2, 3);

/*
 * Read a daemon config.  A missing file is an error unless optional,
 * in which case built-in defaults are returned.  NULL after reporting
 * errors.  Free with config_free.
 */
struct config *
config_load(const char *path, bool optional, const struct report *rep) ATTR_WUR;
void config_free(struct config *c);
/* Parse "90s", "15m", "2h", "1d" (or plain seconds); -1 if invalid. */
long parse_duration(const char *s);
/* Write secs for people into buf: "45s", "15m00s", "2h30m00s". */
void format_duration(long secs, char *buf, size_t len);

/* Command-line values that override the config file (NULL = keep). */
struct overrides {
	const char *config;   /* config file (NULL = default path) */
	bool config_explicit; /* -c given: the file must exist */
	const char *rules;
	const char *pidfile;
	const char *control_socket;
	const char *log;
	int verbosity; /* -v minus -q */
	bool systemd_booted; /* PID 1 is systemd (backend "auto" asks) */
	bool check; /* --check: read what is there, make nothing on disk */
	/*
	 * The unified layout's root group for backend kind (resolved, not
	 * auto), from unified-root as configured ("": the backend's
	 * default): 1 with it in out; 0 when the layout is rooted in the
	 * daemon's own tree (cgroupfs: unified-root as it is, the daemon's
	 * own group when ""); -errno when configured cannot be one (*why,
	 * if set, says why).  The daemon knows its backends and answers;
	 * NULL: 0 for every kind.
	 */
	int (*layout_root)(enum backend_kind kind, const char *configured, char *out,
			   size_t len, const char **why);
};

/* The policy in force: config, hierarchies, rules, Lua hooks (opaque
 * outside the core; core_config() gives its configuration). */
struct policy;

/*
 * What the core is given.  The backends (engined/backend/backend.h)
 * are always given: the daemon passes the real ones, tests their
 * stand-ins; the core links none of them.  Other NULL members take the
 * real system's.
 */
struct core_env {
	const char *procroot;		/* "/proc" */
	const char *mountinfo;		/* "/proc/self/mountinfo" */
	/* how groups are made and processes placed: the cgroupfs backend,
	 * or another the backend callback below chooses (required) */
	const struct backend *cgfs;
	time_t (*wall)(void);		/* time(NULL) */
	/* the kernel's nftables sets (NULL: none can be changed, and a
	 * policy that names sets has each change fail with -EOPNOTSUPP) */
	const struct backend_nft *nft;
	/*
	 * Which kernel events the core needs (kernel.h's struct
	 * procev_want): EXEC always, UID and GID when a decision can
	 * depend on them, FORK while some process passes something on to
	 * its children, EXIT of the processes the table holds.  The core
	 * calls it from core_sync_wants() when that set changed; the loop
	 * applies it to its sockets before it returns (w and its lists are
	 * the core's, valid during the call).  NULL: nobody is told.
	 */
	void (*want_events)(void *arg, const struct procev_want *w);
	/*
	 * The loop's side of a configuration -- the daemon's nice and
	 * realtime-priority, watching the nftables ruleset while the policy
	 * names sets: core_start() calls it, and so does every reload that
	 * succeeds, once the new policy is in force and before running
	 * processes are rescanned and the sets filled (so no ruleset change
	 * is missed).  NULL: nothing to apply.
	 */
	void (*apply)(void *arg, const struct config *cfg);
	/*
	 * Around every reload, whoever asked for it (a signal, a control
	 * request): reloading(arg, true) before, (arg, false) when done
	 * (the loop tells systemd RELOADING=1, then READY=1).  NULL: nobody
	 * is told.
	 */
	void (*reloading)(void *arg, bool begin);
	/*
	 * The placement backend a policy asks for (its config's backend
	 * key, resolved: kind, and the layout's root group): called once
	 * the policy is built, at start and at each reload, before anything
	 * is placed.  0 with *out set (NULL: cgfs above), or -errno (start
	 * fails, a reload keeps the old policy).  NULL: cgfs always.
	 */
	int (*backend)(void *arg, enum backend_kind kind, const char *root,
		       const struct backend **out);
	/*
	 * Between any two processes of a long piece of the core's work (the
	 * classifications at the end of a batch of events, a rescan): the
	 * loop's turn to serve what cannot wait behind it (the exec gate's
	 * held execs, through core_gate_exec()).  The core is whole at each
	 * call; the callee must not read process events.  NULL: nothing.
	 */
	void (*between)(void *arg);
	void *loop_arg; /* the argument of want_events, apply, reloading, backend, between */
	/* the most processes one boost may hold (0: what the state file
	 * keeps, STATEFILE_MAX_MEMBERS; tests lower it) */
	size_t boost_members;
	/* how per-process priorities are read and written (backend.h;
	 * NULL: never, and explain shows none as current) */
	const struct backend_prio *prio;
};

struct core_options {
	struct overrides ov;
	bool dry_run; /* decide and log, never move */
	struct core_env env;
};

/*
 * Placement latency: from the kernel's time of a process's EXEC event
 * to the end of its classification, counted in buckets of at most 50,
 * 100, 250 and 500 us, 1 and 10 ms, and beyond.
 */
#define CORE_LATENCY_BUCKETS 7
extern const unsigned core_latency_us[CORE_LATENCY_BUCKETS - 1];

struct core_stats {
	uint64_t ev_fork, ev_exec, ev_uid, ev_gid, ev_exit;
	uint64_t classified, moves, move_failures, vanished;
	uint64_t lost, rescans, reloads, reload_failures;
	uint64_t groups_created, groups_removed;
	uint64_t hook_calls, hook_errors, hook_changes;
	uint64_t hook_timeouts, hook_restarts; /* Lua helper stopped, started again */
	uint64_t state_saves, state_save_failures;
	uint64_t placed_in[CORE_LATENCY_BUCKETS];
	/* the exec gate (gate.h) */
	uint64_t gate_execs;	/* execs held and answered */
	uint64_t gate_moves;	/* moves made while an exec was held */
	uint64_t gate_watchdog; /* execs the watchdog thread answered */
	uint64_t gate_late;	/* placed after the exec all the same: the watchdog
				   answered first, or the backend's group was not
				   ready (gate.h) */
	uint64_t gate_undone;	/* execs that failed after the gate: moved back */
	uint64_t gate_over_budget; /* answered at once: their user held its
				      budget of execs (gate.h) */
	/* per-process priorities (priority.c) */
	uint64_t prio_applied;	/* threads given priorities they did not have */
	uint64_t prio_failed;	/* threads (or processes) whose write failed */
};

/* Process table flags. */
#define PROC_STICKY	     0x1u /* never reclassify */
#define PROC_STICKY_CHILDREN 0x2u /* and children forked later */
#define PROC_BOOSTED	     0x4u /* member of at least one boost */
#define PROC_LEADER_GONE     0x8u /* main thread exited, others run on */
#define PROC_ROOT_PIN	     0x10u /* root made it sticky: only root may undo it */

/* A boost (read-only outside boost.c). */
struct boost {
	unsigned id;
	char *hier; /* hierarchy name, as in /proc/PID/cgroup */
	char *dest;
	time_t expires; /* wall clock, so it survives restarts */
	uid_t owner;	/* who asked for it */
	char *profile;	/* NULL for a boost root gave directly */
	struct procid *m; /* members: the process and its children */
	size_t n, cap;
	bool full;	  /* it reached the most members it may hold (said once) */
	/* the priorities its profile names, as its first process had them
	 * before (what it gets back when the boost ends; set 0: unknown) */
	struct prio before;
	size_t heap_at;	  /* its place in the core's expiry heap (expiry.c) */
	TAILQ_ENTRY(boost) link;
};
TAILQ_HEAD(boost_list, boost);

/* What the daemon wants for one managed hierarchy of a process. */
struct verdict {
	bool move; /* false: leave alone */
	char dest[RULES_DEST_MAX];
	const struct rules_rule *rule; /* the rule, when a rule decided */
	char reason[512];	       /* "file:line", "Lua hook F", "boost #N", ... */
};

struct core;

/* ---- life cycle ------------------------------------------------------------ */

/*
 * Build the policy and the tables.  Errors go to rep; NULL on failure.
 * Touches no process.  Free with core_free (which writes nothing).
 */
struct core *core_new(const struct core_options *o, const struct report *rep) ATTR_WUR;
void core_free(struct core *c);
/* Restore saved boosts, then classify every running process. */
void core_start(struct core *c, double now);
/* Before exit: write the boost state if it changed; with a unified
 * layout in the daemon's own group, disable the controllers below it
 * (bottom up) so that its service manager can start it there again. */
void core_stop(struct core *c);

/* ---- what the loop feeds in -------------------------------------------------- */

/* One kernel event.  EXEC/UID/GID queue the thread group. */
void core_event(struct core *c, const struct procev_event *ev, double now);
/*
 * Hand env.want_events the kernel events needed now, if that set changed
 * since it was last handed over (the process table or the policy
 * changed).  The loop calls it before it waits; the core itself before
 * it answers a sticky or boost request, at start and after a reload.
 */
void core_sync_wants(struct core *c);
/* A batch of events is done: classify what it queued (uid/gid-only
 * entries wait one batch, see core.c). */
void core_batch_done(struct core *c, double now);
/* Are uid/gid-only entries waiting for their exec (and nothing else)? */
bool core_waiting_exec(const struct core *c);
/* The kernel dropped events: count them and schedule a rescan. */
void core_lost_events(struct core *c, double now);
/* Classify every process now (and forget those that are gone). */
void core_rescan(struct core *c, double now);
/* The outcome of a move the backend queued (BACKEND_MOVE_QUEUED): 0,
 * -ESRCH (the process is gone) or another -errno (the backend logged
 * why).  Only counted. */
void core_move_done(struct core *c, pid_t pid, int rc);
/* The backend lost moves it had queued (its connection broke): classify
 * every process again soon. */
void core_moves_lost(struct core *c, double now);
/*
 * The one reload, whoever asks (SIGHUP, SIGUSR1, SIGUSR2, the control
 * socket's reload): build a new policy, swap it in on success, apply it
 * (env.apply), rescan.  0, or -EINVAL (the old one kept).
 */
int core_reload(struct core *c, double now);
/* Run whatever is due: deferred entries, a rescan, boost expiry,
 * removal of empty groups, writing the boost state. */
void core_timeout(struct core *c, double now);
/* When core_timeout() next has something to do (monotonic), or -1;
 * now is the loop's clock. */
double core_next_deadline(const struct core *c, double now);

/* ---- requests ----------------------------------------------------------------- */

/*
 * libcgroup's sticky request from peer: flag 0 = pid, 1 = pid and its
 * future children, 2 = cancel.  0 or -errno (-EPERM: not the peer's, or
 * pinned by root and the peer is not root; -EBUSY: the process is
 * boosted).
 */
int core_make_sticky(struct core *c, pid_t pid, uid_t peer, int flag) ATTR_WUR;

enum decide_result {
	DECIDE_OK,	/* verdicts filled in */
	DECIDE_GONE,	/* the process exited */
	DECIDE_KTHREAD, /* a kernel thread: never touched */
	DECIDE_INIT,	/* pid 1, the service manager: never touched */
	DECIDE_STICKY,	/* sticky: never reclassified */
	DECIDE_DENIED,	/* not the asker's process: nothing decided */
};

/*
 * What one classification reads and decides: the task as read, its
 * current groups, one verdict per managed hierarchy, the composed v2
 * group (decision.c).  Opaque; made for the policy in force, it serves
 * one request (or many, one after the other) until the next reload.
 */
struct decision;

/* A decision for the policy in force; NULL without memory. */
struct decision *core_decision_new(const struct core *c) ATTR_WUR;
void decision_free(struct decision *d);

/*
 * What the daemon would do with pid, asked by uid asker (0 = root),
 * into d: its verdicts, the task as read and its current groups.
 * Nothing is run (no hook, no counter) for a process the asker does
 * not own.
 */
enum decide_result core_explain(struct core *c, pid_t pid, uid_t asker, struct decision *d);
/*
 * Verdicts for a process that does not exist, into d: rules and Lua
 * hook, asked by uid asker.  Requests (this and core_explain) run the
 * hook in a helper of their own, at most a few times a second per user
 * but root; beyond that, or when that helper fails, the rules alone
 * decide and each verdict's reason says so.
 */
void core_whatif(struct core *c, const struct task *t, const char *cmd, size_t cmdlen,
		 uid_t asker, struct decision *d);
/* The process and its current groups as explain read them. */
const struct task *decision_task(const struct decision *d);
const struct task_cgroups *decision_cgroups(const struct decision *d);
/* The verdicts, one per managed hierarchy. */
const struct verdict *decision_verdicts(const struct decision *d);
/*
 * The unified layout (policy->v2 set): the v2 group composed ("" when
 * the process is left alone), and the current part of virtual
 * dimension i (NULL: not in a composed group).
 */
const char *decision_composed(const struct decision *d);
const char *decision_part(const struct decision *d, size_t i);
/* Why the process's v2 group is left alone although the layout wants
 * it elsewhere (the backend refused), or NULL. */
const char *decision_refusal(const struct decision *d);
/* The units of an explained process, when the backend has units: the
 * one it is in (cur) and the one standing for the composed group
 * (want, "" if none); 0 or -ENOTSUP. */
int core_units(const struct core *c, const struct decision *d, char *cur, size_t curlen,
	       char *want, size_t wantlen);

struct boost_request {
	pid_t pid;
	const char *hier; /* as the user wrote it: "cpu", "name=x" */
	const char *dest;
	long seconds;
	uid_t owner;
	const char *profile; /* NULL for root's direct boosts */
};

/* What a started boost became (copied: the boost may end at once). */
struct boost_info {
	unsigned id;
	char hier[256];
	char dest[RULES_DEST_MAX];
	time_t expires;
};

/* Boost profile name, if it is granted to uid (root: always): 0 with
 * *out (the policy's, valid until the next reload), or -ENOENT / -EPERM
 * with the boost verb's message in err (verbs.c). */
int core_profile_grant(const struct core *c, const char *name, uid_t uid,
		       const struct boost_profile **out, char *err, size_t len) ATTR_WUR;
/* Start a boost; 0 with info filled, or -errno with a message in err. */
int core_boost_start(struct core *c, const struct boost_request *r, struct boost_info *info,
		     char *err, size_t errlen) ATTR_WUR;
/* End boost id; 0, or -ENOENT. */
int core_boost_end(struct core *c, unsigned id, const char *why);
/*
 * The foreground's priorities in place (fgprio.c, docs/dbus.md): pid, a
 * process the daemon leaves where it is (an app in a unit of its user's
 * own manager), gets the process = {...} of boost profile name on every
 * thread, as a boost's member does, until core_fgprio_end(); what it
 * had of those fields is kept and set again then, as at a boost's end.
 * One process at a time: a new one ends the previous one first.  0
 * (also when the profile names no priorities), -ENOENT (no such
 * profile), -ESRCH (no such process) or -ENOMEM.
 */
int core_fgprio_start(struct core *c, pid_t pid, const char *name) ATTR_WUR;
/* The foreground's priorities end (why: in the log); nothing if none. */
void core_fgprio_end(struct core *c, const char *why);
/* The process holding them (0: none). */
pid_t core_fgprio_pid(const struct core *c);
const struct boost_list *core_boosts(const struct core *c);
const struct boost *core_boost_find(const struct core *c, unsigned id);
size_t core_boost_count(const struct core *c);

/* ---- nftables sets of group ids (nftsets.c) ------------------------------------- */

/*
 * A backend made v2 group path later than its mkdir() answered (the
 * systemd backend's units start asynchronously, and systemd makes a
 * collected scope again): its id goes into the group's sets now, and
 * the id it had before, if it changed, leaves them.
 */
void core_group_made(struct core *c, const char *path);
/*
 * A backend's group path went away by itself (systemd collected an
 * empty scope, or a unit was stopped by hand): its id leaves its sets
 * at once, unless the group is there again (then its new id replaces
 * the old one, as core_group_made does).
 */
void core_group_removed(struct core *c, const char *path);
/* Does the policy name nft sets (so the loop should watch the ruleset)? */
bool core_nft_wanted(const struct core *c);
/* The netlink port of the core's own set changes (0: none yet), so the
 * loop can ignore the notifications they cause. */
uint32_t core_nft_self(const struct core *c);
/* Is r one of the sets the core keeps? */
bool core_nft_names(const struct core *c, const struct nftset_ref *r);
/* The ruleset changed (or notifications were lost): synchronise the
 * sets shortly (core_next_deadline says when). */
void core_nft_changed(struct core *c, double now);
/* A sync of the sets is in progress (it runs in steps). */
bool core_nft_syncing(const struct core *c);
/* What the core keeps of one set (for cgenginectl nft-sets). */
struct core_nft_set_info {
	const struct nftset_ref *ref;
	size_t ids;	 /* ids the daemon put there */
	bool configured; /* named by the policy (else emptied at the next sync) */
	bool missing;	 /* not found in the ruleset when last changed */
};
void core_nft_each_set(const struct core *c,
		       void (*fn)(void *arg, const struct core_nft_set_info *s), void *arg);
/* fn(arg, group, id) for each group whose id the daemon put in set r,
 * in no particular order; 0, or -ENOENT if the core keeps no such set.
 * From the daemon's own bookkeeping: nf_tables is not asked. */
int core_nft_set_groups(const struct core *c, const struct nftset_ref *r,
			void (*fn)(void *arg, const char *group, uint64_t id), void *arg);
/* fn(arg, set, group, level) for each set v2 group path or a group
 * above it is kept in; level: the group's depth below the v2 root, as
 * "socket cgroupv2 level N" counts. */
void core_nft_sets_of(const struct core *c, const char *path,
		      void (*fn)(void *arg, const struct nftset_ref *set, const char *group,
				 unsigned level),
		      void *arg);

/* ---- what there is to see -------------------------------------------------------- */

/* The configuration in force (it changes at a reload). */
const struct config *core_config(const struct core *c);
/*
 * --check: build the whole policy from o as the daemon would, report
 * every problem to rep; 0 with a one-line summary in buf ("FILE: N
 * rules, N managed hierarchies"), or -EINVAL.
 */
int core_check(const struct overrides *o, const struct report *rep, char *buf,
	       size_t len) ATTR_WUR;

const struct core_stats *core_stats(const struct core *c);
/* Cached names for reports; NULL if unknown. */
const char *core_user_name(struct core *c, uid_t uid);
time_t core_started(const struct core *c);
/*
 * The eBPF event source's filter (execkeys.c): what of the policy
 * besides its rules decides at an exec, and the keys an exec must carry
 * for the policy to decide it.  Pure; 0 or -ENOMEM.  Free the keys with
 * execkeys_free.
 */
struct ananicy_set;
struct execkeys_policy {
	bool hooks;  /* Lua hooks */
	bool layout; /* a unified-layout */
	/* ananicy-dir's rules, matched by argv[0]'s last part, or NULL:
	 * the names of its rules are keys, whole (execkeys_hash) */
	const struct ananicy_set *ananicy;
};
int execkeys_build(const struct rules_set *rules, const struct execkeys_policy *pol,
		   struct execkeys *out) ATTR_WUR;
void execkeys_free(struct execkeys *k);
/* The keys of the policy in force; as execkeys_build. */
int core_execkeys(const struct core *c, struct execkeys *out) ATTR_WUR;

/* Which source of exec events the loop runs, for status and metrics:
 * "netlink" (the default) or "bpf"; name is static, kept as given. */
void core_set_event_source(struct core *c, const char *name);
const char *core_event_source(const struct core *c);
bool core_paused(const struct core *c);
/* Pause (moves nothing) or resume (and catch up with a rescan). */
void core_set_paused(struct core *c, bool paused, double now);
/* A snapshot of pid (status only) from the core's /proc; 0 or -errno. */
int core_read_task(const struct core *c, pid_t pid, struct task *t) ATTR_WUR;
/* pid's groups (/proc/PID/cgroup) from the core's /proc; 0 or -errno. */
int core_read_cgroups(const struct core *c, pid_t pid, struct task_cgroups *out) ATTR_WUR;
/* Flags of pid in the process table, if it is still that process. */
unsigned core_proc_flags(struct core *c, pid_t pid);
size_t core_proc_count(const struct core *c);

/* ---- control requests (verbs.c) ------------------------------------------------ */

#define CONTROL_PROTOCOL 1

struct verbs_request {
	struct core *core;
	double now; /* the loop's clock */
	uid_t uid; /* of the peer, from SO_PEERCRED */
	pid_t pid;
	bool json; /* the answer's form: read by the renderer, never by a verb */
	const gid_t *groups; /* the peer's groups at connect (SO_PEERCRED's gid and */
	size_t ngroups;	     /* SO_PEERGROUPS), borrowed; for metrics-group */
};

struct json_t; /* jansson's json_t */

/*
 * Run one control verb (argv[0]) for rq->uid: 0 with its value in
 * *result, which the caller frees (json_decref); or -EPERM (a root-only
 * verb asked by a user) or -EINVAL (an unknown verb, a bad or refused
 * request) with *result NULL and err set.  The verb decides, it never
 * prints: engined/render/ writes the value as text or JSON.  err must
 * be "" on entry.
 */
int verbs_run(const struct verbs_request *rq, int argc, char **argv, struct json_t **result,
	      char *err, size_t errlen);

#endif
