/*
 * engined_private.h -- small helpers shared inside engined/.
 */
#ifndef CGENGINE_ENGINED_PRIVATE_H
#define CGENGINE_ENGINED_PRIVATE_H

#include "engined.h"

#include <ev.h>
#include <sys/queue.h>
#include <time.h>

/* names.c: id -> name caches for the %u and %g templates */
struct name_table {
	struct name_entry *v;
	size_t cap, n;
};

const char *names_user(struct name_table *t, uid_t uid);
const char *names_group(struct name_table *t, gid_t gid);
void names_clear(struct name_table *t);

/* notify.c: "READY=1", "RELOADING=1", "STOPPING=1" to $NOTIFY_SOCKET */
void notify_systemd(const char *state);

/* files.c */
/* Create the missing directories above path; 0 or -errno. */
int mkdir_parents(const char *path);
/*
 * A world-connectable Unix stream socket the loop accepts on; shared by
 * the control and the sticky socket (served by server.c).  listener_open
 * creates its directory, refuses (logging) if another process answers
 * at path or if path is a symbolic link or not a socket, replaces a
 * stale socket file, and has bind() create it 0666; 0 or -1.  listener_close stops, closes
 * and unlinks it (a zeroed listener is closed harmlessly).
 */
struct listener {
	int fd;
	char *path;
	ev_io io;
	struct ev_loop *loop;
};

int listener_open(struct listener *l, const char *path, int backlog, const char *what);
void listener_start(struct listener *l, struct ev_loop *loop,
		    void (*cb)(struct ev_loop *, ev_io *, int), void *data);
void listener_close(struct listener *l);

/* pidfile.c */
int pidfile_write(const char *path) ENGINED_WUR;
void pidfile_remove(const char *path);

/* ---- the engine (engine.c) and its parts ------------------------------ */

#define TASK_BOOSTED 0x4u /* member of at least one boost (tasktab flag) */

/* A thread group an event asked to classify. */
struct pending {
	pid_t tgid;  /* 0 = dropped (it exited) */
	bool exec;   /* an EXEC was seen, not only a uid/gid change */
	bool waited; /* a uid/gid-only entry already waited one batch */
};

/* A group the daemon made from a template, removed once empty. */
struct made_group {
	char *hier; /* hierarchy name, as in /proc/PID/cgroup */
	char *path;
	LIST_ENTRY(made_group) link;
};

/* A process (pid + start time: its identity) sharing a boost. */
struct boost_member {
	pid_t pid;
	uint64_t start;
};

struct boost {
	unsigned id;
	char *hier; /* hierarchy name, as in /proc/PID/cgroup */
	char *dest;
	time_t expires; /* wall clock, so it survives restarts */
	uid_t owner;	/* who asked for it */
	char *profile;	/* NULL for a boost root gave directly */
	struct boost_member *m;
	size_t n, cap;
	ev_timer timer; /* fires at expiry; data = the engine */
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

struct control_server;

struct engine {
	struct ev_loop *loop;
	struct engine_options opts;
	struct policy *pol;
	struct procev *pe;
	struct tasktab *tasks;
	struct sticky_server *sticky;
	struct control_server *control;
	struct rules_decision *dec; /* RULES_MAX_HIERS of them */
	struct hooks_slot *slots;   /* the same, as the Lua hook sees them */
	struct verdict *verdicts;   /* RULES_MAX_HIERS of them */
	struct cgfs_cache *fds;	    /* open cgroup.procs files */
	struct pending *pending;    /* thread groups to classify after a batch */
	size_t npending, cap;
	ev_timer defer_timer; /* flushes deferred uid/gid-only entries */
	ev_io pe_watcher;
	ev_signal sig_hup, sig_usr2, sig_term, sig_int;
	ev_timer rescan_timer, cleanup_timer;
	ev_tstamp last_rescan;
	LIST_HEAD(, made_group) made;
	struct boost_list boosts;
	unsigned next_boost;
	bool paused;
	time_t started;
	struct engine_stats stats;
	int ready_fd;
};

/* classify.c */
enum decide_result {
	DECIDE_OK,	/* verdicts filled in */
	DECIDE_GONE,	/* the process exited */
	DECIDE_KTHREAD, /* a kernel thread: never touched */
	DECIDE_STICKY,	/* sticky: never reclassified */
};
/* Work out e->verdicts for pid; t and cg receive the snapshot. */
enum decide_result
classify_decide(struct engine *e, pid_t pid, struct task *t, struct task_cgroups *cg);
/* Verdicts for a process that does not exist: rules and Lua hook only. */
void
classify_whatif(struct engine *e, const struct task *t, const char *cmd, size_t cmdlen);
/*
 * Decide and act for one process (thread group).  The current groups
 * are read first, so nothing is moved -- or logged as moved -- that is
 * already in place.
 */
void classify(struct engine *e, pid_t pid);
/* Is pid known to the task table and still the same process?  Forgets
 * it (and its boost memberships) when the pid was reused. */
bool classify_known(struct engine *e, pid_t pid);
const struct hier *managed_by_name(const struct policy *p, const char *name);
void made_free(struct made_group *g);
void engine_rescan(struct engine *e);
void engine_reload(struct engine *e);

/* boost.c */
struct boost_request {
	pid_t pid;
	const char *hier; /* as the user wrote it: "cpu", "name=x" */
	const char *dest;
	long seconds;
	uid_t owner;
	const char *profile; /* NULL for root's direct boosts */
};
/* Start a boost; its id, or -1 with a message in err. */
long
boost_start(struct engine *e, const struct boost_request *r, char *err, size_t errlen);
/* End boost id ("cancelled"); 0, or -ENOENT. */
int boost_end(struct engine *e, unsigned id, const char *why);
struct boost *boost_find(struct engine *e, unsigned id);
/* The boost of member pid on hierarchy hier, or NULL. */
const struct boost *boost_of(const struct engine *e, pid_t pid, const char *hier);
void boost_fork(struct engine *e, pid_t parent, pid_t child);
void boost_exit(struct engine *e, pid_t pid);
size_t boost_count(const struct engine *e);
/* Persist to / restore from the state file; restore drops boosts whose
 * processes are gone or which expired while the daemon was down. */
int boost_save(struct engine *e);
void boost_restore(struct engine *e);
void boost_free_all(struct engine *e);

/* control.c */
struct control_server *control_open(const char *path, struct engine *e);
void control_start(struct control_server *s, struct ev_loop *loop);
void control_close(struct control_server *s);

#endif
