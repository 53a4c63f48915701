/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * core_private.h -- inside the core (engined/core/): the policy
 * object, the unified layout, the name caches, the process table and
 * what the core's files say to each other.  Nothing here knows an event
 * loop; the daemon never includes it (struct policy is opaque there).
 */
#ifndef CGENGINE_CORE_PRIVATE_H
#define CGENGINE_CORE_PRIVATE_H

#include "core.h"
#include "lua/hooks.h"
#include "rules/ananicy.h"
#include "rules/prio.h"

#include <sys/queue.h>

/* ---- names.c: id -> name caches for the %u and %g templates ------------- */
struct name_table {
	struct map map; /* id -> struct name_entry */
};

#define NAMES_MAX 256 /* longer user or group names are refused unasked */

struct names_user {
	uid_t uid;
	gid_t gid; /* primary group */
	char name[NAMES_MAX];
};

/* The system's passwd/group databases; 0, -ENOENT or -ENAMETOOLONG. */
int names_user_by_name(const char *name, struct names_user *out) ATTR_WUR;
int names_user_by_uid(uid_t uid, struct names_user *out) ATTR_WUR;
int names_group_by_name(const char *name, gid_t *gid) ATTR_WUR;

const char *names_user(struct name_table *t, uid_t uid);
const char *names_group(struct name_table *t, gid_t gid);
void names_clear(struct name_table *t);

/* ---- policy.c: config + hierarchies + rules, built and swapped as one -- */

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
	/* those of them whose section names priorities (process = ...) */
	struct {
		size_t hier;
		const struct group_conf *conf;
	} * prio_groups;
	size_t nprio_groups;
	bool prio_any; /* some group or boost profile names priorities */
	/*
	 * The unified layout (layout.c): dimensions rules name that have no
	 * managed v1 hierarchy are "virtual"; their verdicts are composed
	 * into one group of the v2 tree per process:
	 * v2:<uroot>/<part of layout[0]>/<part of layout[1]>/...
	 * v2 is NULL when no dimension is virtual.
	 */
	const struct hier *v2;
	char *uroot;	/* delegated subtree relative to v2's root; "" = its root
			   (backend systemd: the root slice, /cgengine.slice) */
	enum backend_kind backend; /* resolved: BACKEND_CGROUPFS or BACKEND_SYSTEMD */
	bool uroot_own; /* uroot is the daemon's own group (or its leaf's parent) */
	size_t nlayout;
	size_t layout[RULES_MAX_HIERS];	   /* managed indexes, outer to inner */
	unsigned depth[RULES_MAX_HIERS];   /* levels of each virtual dimension */
	bool virt[RULES_MAX_HIERS];	   /* managed[i] is a virtual dimension */
	struct hier dims[RULES_MAX_HIERS]; /* their stand-ins (mount: v2's) */
	char controllers[128]; /* v2 controllers enabled along the paths: "cpu io" */
	bool need_names;	   /* some destination uses %u or %g */
	struct hooks *hooks;	   /* Lua hooks, or NULL */
	struct hooks *hooks_ask;   /* the same in a helper of its own, for requests */
	struct ananicy_set *ananicy; /* ananicy-dir's rules, or NULL (ananicy.c) */
	/* ananicy-cgroup-hierarchy: ananicy's cgroups are groups of managed
	 * hierarchy ananicy_hier, their settings in settings[] pointing into
	 * ananicy_groups (ananicy.c; one block, freed with the policy) */
	bool ananicy_place;
	size_t ananicy_hier;
	struct ananicy_group *ananicy_groups;
	/* ananicy-type-hierarchy: ananicy's types are groups of managed v2
	 * hierarchy or dimension type_hier, their weights in settings[]
	 * pointing into type_groups (the same) */
	bool type_place;
	size_t type_hier;
	struct ananicy_group *type_groups;
	struct name_table *users;  /* uid -> name cache */
	struct name_table *groups; /* gid -> name cache */
};

/*
 * Who places, as the backend key of c says: "auto" is systemd when PID
 * 1 is systemd and a unified layout composes groups in its tree, else
 * cgroupfs.  0, or -1 after reporting (systemd without a layout).
 */
int config_backend(const struct config *c, bool systemd_booted, enum backend_kind *kind,
		   const struct report *rep) ATTR_WUR;

/*
 * Build everything from the config file and rules, with the mounted
 * hierarchies read from mountinfo (NULL: /proc/self/mountinfo); NULL
 * on error.
 */
struct policy *policy_build(const struct overrides *o, const char *mountinfo,
			    const char *procroot, const struct report *rep) ATTR_WUR;
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

/* ---- ananicy.c: ananicy-cpp's rules after cgrules.conf ------------------- */

/*
 * Read the config's ananicy-dir into p->ananicy (nothing when the key is
 * empty).  Malformed lines are warnings (rep->warn): the rest loads, as
 * in ananicy-cpp; a directory that cannot be read is an error.  0, or
 * -1 after reporting.
 */
int ananicy_policy_load(struct policy *p, const struct report *rep) ATTR_WUR;
/* "; ananicy: N rules, N types, N cgroups, N lines skipped" for --check,
 * or "" without ananicy-dir. */
void ananicy_policy_summary(const struct policy *p, char *buf, size_t len);
/*
 * The priorities ananicy's rules give task t (read with TASK_ARGV0):
 * the rule for its name (rules/ananicy.h: ananicy_name), its fields
 * over its type's, into *out with the rule in *rule.  False (out->set
 * 0, *rule NULL) without ananicy-dir or a rule.
 */
bool ananicy_want(const struct policy *p, const struct task *t, struct prio *out,
		  const struct ananicy_entry **rule);
/*
 * After the rules and the Lua hook, before boosts: with
 * ananicy-cgroup-hierarchy, a task nothing placed in that hierarchy goes
 * to the cgroup its ananicy rule (or the rule's type) names; with
 * ananicy-type-hierarchy, one nothing placed in that one goes to the
 * class of its rule's type, "/TYPE".
 */
void ananicy_place(const struct core *c, const struct task *t, struct decision *d);
/* After priority_decide(): the fields of d->prio nothing named yet, from
 * the ananicy rule for task t, with the rule's file:line as reason. */
struct decision;
void ananicy_decide(const struct core *c, const struct task *t, struct decision *d);

/* ---- layout.c: composing dimensions into one v2 group ------------------- */

/* The leaf below unified-root the daemon moves itself into when the root
 * is its own group (the kernel keeps processes out of inner groups). */
#define LAYOUT_DAEMON_LEAF "daemon"

/* Add the virtual dimensions of the config's unified-layout to p and
 * find its root: the group o->layout_root names for the backend, or
 * the delegated subtree (procroot: where /proc/self/cgroup is);
 * 0 or -EINVAL after reporting.  Before rules are bound. */
int layout_build(struct policy *p, const struct overrides *o, const char *procroot,
		 const struct report *rep) ATTR_WUR;
/* The depth of each virtual dimension and the controllers to enable,
 * from the bound rules, group settings and boost profiles. */
void layout_finish(struct policy *p);
/* Enable v2 controller name ("cpu") along the composed paths too. */
void layout_want_controller(struct policy *p, const char *name);
/*
 * Can a composed group be longer than RULES_DEST_MAX - 1 bytes: uroot,
 * and for each dimension its longest part -- a destination of a rule
 * (not an ignore rule; a template's value taking its most,
 * rules_expand_max) or a boost profile, or the default segments alone,
 * padded to the dimension's depth?  0, or -EINVAL after reporting (with
 * the config's file and line, and the rule that gives the longest
 * part).  After layout_finish.  A Lua hook's destination and a current
 * part kept are not known before: compose says so when they do not fit.
 */
int layout_limit(const struct policy *p, const struct report *rep) ATTR_WUR;
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
		   char *out, size_t len, size_t *bad) ATTR_WUR;
/*
 * Does composed group path name a group the daemon reserves: its own
 * leaf (uroot/daemon, when uroot is the daemon's own group) or one
 * whose name starts with '.' (the service manager's: systemd's
 * .control; every walk of the tree skips them)?  The level (1 = the
 * first below uroot) of the reserved name, with why, or 0.  Pure.
 */
unsigned layout_reserved(const struct policy *p, const char *path, const char **why);
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
		      size_t vlen) ATTR_WUR;

/* The permission model's one ownership test: may asker (0 = root) act
 * on task t -- is it root, or t's real or effective uid? */
bool core_owns(uid_t asker, const struct task *t);

/* The policy in force (the core's own files and verbs.c). */
const struct policy *core_policy(const struct core *c);

/* ---- proctab.c: the process table ----------------------------------------- */

/* What the daemon remembers of a process; most processes have none. */
struct proc {
	struct procid id;
	unsigned flags; /* PROC_* */
};

struct proctab;

struct proctab *proctab_new(void);
void proctab_free(struct proctab *t);
/* The entry for pid, or NULL (whatever its start time). */
struct proc *proctab_get(const struct proctab *t, pid_t pid);
/* Set the flags of process id (replacing an entry of a reused pid);
 * flags 0 (or PROC_LEADER_GONE alone) removes it.  0 or -ENOMEM. */
int proctab_set(struct proctab *t, struct procid id, unsigned flags) ATTR_WUR;
void proctab_forget(struct proctab *t, pid_t pid);
size_t proctab_count(const struct proctab *t);
/* Call fn(arg, was, now) after every change of the table: an entry made
 * (was 0), removed (now 0), or given other flags or another identity. */
void proctab_watch(struct proctab *t, void (*fn)(void *arg, unsigned was, unsigned now),
		   void *arg);
/* How many entries have flag (one PROC_* flag). */
size_t proctab_count_flag(const struct proctab *t, unsigned flag);
/* The entry after *cursor (0 to start), or NULL at the end; the table
 * may not change between calls. */
const struct proc *proctab_next(const struct proctab *t, size_t *cursor);
/* Call fn for every entry; fn may not modify the table. */
void proctab_foreach(const struct proctab *t, void (*fn)(void *arg, const struct proc *p),
		     void *arg);

/* ---- proc.c: the core's queries of the process table ------------------------ */

/* Is pid in the table and still the same process?  A reused or
 * vanished pid is forgotten (with its boost memberships). */
struct proc *proc_known(struct core *c, pid_t pid);
/* The process table's watch: the events the core needs, and the state
 * file when a sticky process comes or goes. */
void proc_changed(void *arg, unsigned was, unsigned now);
/* Set flags for process id, logging when memory runs out. */
void proc_set_flags(struct core *c, struct procid id, unsigned flags);

/* ---- decision.c: what one classification reads and decides ------------------ */

/* The per-process priorities a decision wants, and where each field
 * was decided (priority.c). */
struct prio_want {
	struct prio prio;		/* the fields wanted (prio.set) */
	const char *file[PRIO_NFIELDS]; /* for each field named: the file ... */
	unsigned line[PRIO_NFIELDS];	/* ... and line that decided it */
};

/*
 * One classification, from the snapshot of the task to the groups it
 * is wanted in: decide() fills it, act() moves by it, explain and test
 * render it.  Its arrays hold one entry per managed hierarchy of the
 * policy it was made for (n); it is one block of memory, made once per
 * batch of events or per request and reused for each process of it,
 * and nothing in it is cleared between two uses: each step sets what
 * it reads (see decide() in classify.c).
 */
struct decision {
	size_t n;		      /* managed hierarchies: the arrays' length */
	struct verdict *verdicts;     /* what is wanted in each */
	struct rules_decision *rules; /* the rules' decisions, before hook and boosts */
	struct hooks_slot *slots;     /* the same, as the Lua hook sees them */
	const char **parts;	      /* current part of each virtual dimension, or NULL */
	bool cg_read;		      /* cg was read (else cg.n is 0) */
	bool placed;		      /* cg not read: the exec's record told, and */
	uint64_t in_place;	      /* bit i: it is in verdicts[i].dest (placed.c) */
	bool at_gate;		      /* acting while an exec is held (gate.c) */
	char composed[RULES_DEST_MAX]; /* the v2 group wanted, "" = none */
	char refusal[256];	       /* the backend leaves it alone: why ("" = no) */
	char v2cur[RULES_DEST_MAX];    /* the layout's group the task is in */
	char partbuf[2 * RULES_DEST_MAX]; /* where parts point */
	struct task task;	       /* the task as read */
	struct task_cgroups cg;	       /* its current groups */
	struct prio_want prio;	       /* its priorities (prio.set 0: none wanted) */
};

/* A decision for policy p (its parts NULL); NULL without memory.  Free
 * with decision_free. */
struct decision *decision_new(const struct policy *p) ATTR_WUR;

/* ---- the state of the core's subsystems (each file's own) ---------------------- */

/* A thread group an event asked to classify (pending.c). */
struct pending {
	pid_t tgid;	  /* 0 = dropped (it exited) */
	bool exec;	  /* an EXEC was seen, not only a uid/gid change */
	double due;	  /* a uid/gid-only entry is classified by then anyway */
	uint64_t exec_ns; /* the kernel's time of its first EXEC (0: none) */
	/*
	 * Its uid and euid, from its main thread's last UID event: the
	 * kernel reports every change (an exec of a set-uid file too), so
	 * they are current -- unless a thread of its own changed ids (then
	 * /proc tells which thread's count) or events were lost.
	 */
	struct {
		uid_t uid, euid;
	} ids;
	uint64_t ids_ns;    /* that event's time (the kernel's) */
	unsigned ids_state; /* PENDING_IDS_* */
	/*
	 * 1 + the index in the set's recs of what its exec's record says
	 * (the BPF program's: credentials, comm, exe, parent, as at the
	 * exec), 0 when none.  A uid or gid change after that exec leaves
	 * the record's credentials for the change's word (pending_note_ids).
	 * Only entries with an exec have one, and they never outlive their
	 * batch, so the records are dropped at its end.
	 */
	size_t rec;
};
#define PENDING_IDS_SEEN 0x1u /* a UID event of the main thread, or an exec's record */
#define PENDING_IDS_BAD	 0x2u /* another thread's, or events were lost */

/* The thread groups to classify after a batch (pending.c's alone). */
struct pending_set {
	struct pending *v;
	size_t n, cap;
	double defer_at; /* classify deferred entries then (0 = nothing) */
	/* the last batch's decision, its memory kept for the next batch
	 * (NULL: none); nothing in it is read again */
	struct decision *spare;
	/* the exec records of this batch's entries (struct pending.rec),
	 * malloc'd for caprecs */
	struct task_known *recs;
	size_t nrecs, caprecs;
	/* what a UID event said, as classify_known takes it (only have,
	 * uid, euid and ts_ns are ever set: the rest stays zero) */
	struct task_known ids_known;
};

/* The rescans of /proc (rescan.c's alone). */
struct rescans {
	double at;	 /* the next (0 = none asked for) */
	double last;	 /* the last */
	const char *why; /* for the log: "after lost events", ... (or NULL) */
};

/* The kernel events the core needs (wants.c): lists sorted. */
struct core_wants {
	bool uid, gid, forks;
	bool all_track, all_gone; /* too many to list: every one */
	pid_t track[PROCEV_TRACK_MAX]; /* the table's processes */
	pid_t gone[PROCEV_TRACK_MAX];  /* those whose main thread exited */
	size_t ntrack, ngone;
};

/* What the loop was told of the events the core needs (wants.c's alone). */
struct wants_state {
	struct core_wants set[2]; /* the set handed to the loop, and a new one */
	int cur;		  /* which of them is the one handed over */
	bool applied;		  /* one was handed over */
	bool dirty;		  /* the table or the policy changed since */
};

/* A group the daemon made from a template, removed once empty. */
struct made_group {
	char *hier; /* hierarchy name, as in /proc/PID/cgroup */
	char *path;
	LIST_ENTRY(made_group) link;
};

/* The groups made from templates (groups.c's alone), looked at from
 * time to time while there are some. */
struct made_groups {
	LIST_HEAD(, made_group) list;
	double cleanup_at; /* when to look for empty ones (0 = none listed) */
};

struct boosts; /* boost.c's */

/*
 * How often one user's requests may run the Lua hook: "cgenginectl
 * test" and "explain" run it like a classification, but in a helper of
 * their own (policy.hooks_ask), so what a user asks can stall, kill or
 * back off only that helper.  A call still holds the loop while it runs
 * (up to lua-timeout of the helper's CPU), so each user but root may
 * have it run at most ASK_RATE times a second (ASK_BURST at once);
 * beyond that the rules alone answer, and the answer says so.
 */
#define ASK_RATE  1.0
#define ASK_BURST 4.0
#define ASK_USERS 4096 /* users remembered (util.h's ratelimit) */

/* ---- expiry.c: active boosts ordered by expiry (a binary heap) -------------- */

struct expiry_heap {
	struct boost **v;
	size_t n, cap;
};

/* Add boost b (its heap_at is kept up to date); 0 or -ENOMEM. */
int expiry_add(struct expiry_heap *h, struct boost *b) ATTR_WUR;
/* Take b out (nothing if it is not in). */
void expiry_remove(struct expiry_heap *h, struct boost *b);
/* b's expiry changed: its place follows (nothing if it is not in). */
void expiry_changed(struct expiry_heap *h, struct boost *b);
/* The boost that expires first (by id among equals), or NULL: O(1). */
struct boost *expiry_first(const struct expiry_heap *h);
size_t expiry_count(const struct expiry_heap *h);
/* Free the heap, not the boosts. */
void expiry_free(struct expiry_heap *h);

/* fleet.c: what "metrics" adds to the status for fleets */
#define FLEET_HIERS	16 /* hierarchies counted by name, "other" included */
#define FLEET_TOP_RULES 20 /* rules with hits labelled by file and line */
struct fleet {
	struct fleet_hier {
		char name[64]; /* the hierarchy's label, or "other" */
		uint64_t moves, failures;
	} hiers[FLEET_HIERS]; /* kept across reloads: counters never go back */
	size_t nhiers;
	time_t loaded; /* wall clock of the last successful (re)load */
};

/* A fingerprint of len bytes (not a secret: equal or different). */
uint64_t fleet_digest(const void *data, size_t len);
/* A move into a group of hierarchy hier (its label) was made or failed. */
void fleet_count_move(struct core *c, const char *hier, bool moved);
/* The policy was (re)loaded now. */
void fleet_loaded(struct core *c);
/* The fleet's part of "metrics" (the caller frees it). */
struct json_t *fleet_status(const struct core *c);

struct core {
	struct core_env env;
	struct overrides ov;
	bool dry_run;
	const struct backend *base; /* env.cgfs as given: when the policy chooses none */
	struct policy *pol;
	struct proctab *procs;
	double now;		      /* monotonic time of the current call */
	/* the subsystems, each with its state and its deadline: */
	struct pending_set pending;   /* thread groups to classify (pending.c) */
	struct rescans rescan;	      /* rescans of /proc (rescan.c) */
	struct made_groups made;      /* groups made from templates (groups.c) */
	struct boosts *boosts;	      /* boosts and their state file (boost.c) */
	bool paused;
	bool dropped[RULES_MAX_HIERS]; /* hierarchy unmounted: left alone until a reload */
	time_t started;
	struct core_stats stats;
	bool root_ready;	       /* controllers enabled at the root (this policy) */
	bool reserved_logged;	       /* a reserved group was refused and said so */
	struct ratelimit askrate;      /* Lua hook runs of requests, per user */
	struct nftsets *nft;	       /* nft sets of group ids (nftsets.c) */
	struct wants_state wants;      /* the kernel events asked for (wants.c) */
	struct gate *gate;	       /* the exec gate's records (gate.c), or NULL */
	struct gate_ready *ready;      /* groups kept ready for it (gateready.c), or NULL */
	const char *event_source;      /* "netlink" or "bpf" (core_set_event_source) */
	struct fleet fleet;	       /* counts for "metrics" (fleet.c) */
	struct fgprio *fgprio;	       /* the foreground's priorities (fgprio.c), or NULL */
	struct placed *placed;	       /* hierarchies' and groups' ids (placed.c) */
};

/* Between two processes of a long piece of work: the loop's turn
 * (core_env.between). */
static inline void
core_between(struct core *c)
{
	if (c->env.between != NULL)
		c->env.between(c->env.loop_arg);
}

/* ---- placed.c: where an exec's record says a process is ------------------------- */

/* The policy is new: the managed v1 hierarchies' ids read again, the
 * destinations' ids forgotten. */
void placed_policy(struct core *c);
void placed_free(struct core *c);
/* The v1 hierarchies (their ids) a record should tell the groups in:
 * up to max into out; the count.  *backward: fewer hierarchies were
 * made after them than before (the program looks newest first). */
size_t placed_hiers(const struct core *c, uint32_t *out, size_t max, bool *backward);
/*
 * Does the record k tell, for every group d's verdicts move the task
 * into, whether it is there already?  Then true, with d->placed set and
 * bit i of d->in_place for each hierarchy i it is in place in; false
 * when its groups must be read (d unchanged).
 */
bool placed_known(struct core *c, const struct task_known *k, struct decision *d);
/* Else, for a process an event told of (k set) that the cgroupfs
 * backend moves by writes: true, with d->placed set and no bit of
 * d->in_place -- it is moved without reading where it is (placed.c says
 * why); false when its groups must be read. */
bool placed_unread(const struct core *c, const struct task_known *k, struct decision *d);


/* ---- wants.c --------------------------------------------------------------------- */

/* The process table or the policy changed (a proctab watch). */
void wants_changed(void *arg);

/* ---- pending.c: thread groups to classify ------------------------------------------ */

/* The entry of tgid, made if new (an EXEC event: exec set, with the
 * kernel's time ts); NULL without memory (a rescan is asked for). */
struct pending *pending_add(struct core *c, pid_t tgid, bool exec, uint64_t ts);
/* A UID or GID event: the ids it reports, if its main thread's (p may
 * be NULL). */
void pending_note_ids(struct core *c, struct pending *p, const struct procev_event *ev);
/* An EXEC event: what its record says of the task, if any (p may be NULL). */
void pending_note_exec(struct core *c, struct pending *p, const struct procev_event *ev);
/* tgid exited: not classified. */
void pending_drop(struct core *c, pid_t tgid);
/* Events were lost: no entry's ids can be trusted. */
void pending_ids_lost(struct core *c);
/* Classify what is pending (uid/gid-only entries wait for their exec
 * until their due time), with one decision for them all. */
void pending_run(struct core *c);
/* When deferred entries are due (monotonic; 0 = nothing), and their run. */
double pending_deadline(const struct core *c, double now);
void pending_timeout(struct core *c, double now);
void pending_free(struct core *c);

/* ---- rescan.c ---------------------------------------------------------------------- */

void rescan_init(struct core *c);
/* Rescan soon, at most RESCAN_INTERVAL after the last (events or moves
 * were lost, memory ran out); why, if not NULL, is logged. */
void rescan_request(struct core *c, const char *why);
/* Rescan /proc in delay seconds, unless a rescan is due already (a
 * process could not be read or moved for want of descriptors). */
void rescan_soon(struct core *c, double delay);
/* When the next rescan is due (monotonic; 0 = none), and the rescan. */
double rescan_deadline(const struct core *c, double now);
void rescan_timeout(struct core *c, double now);

/* ---- core.c: events ---------------------------------------------------------------- */

/* Handle the exit of thread pid of group tgid as its EXIT event would
 * be (pid == tgid: the main thread). */
void core_exit(struct core *c, pid_t pid, pid_t tgid);

/* ---- classify.c ------------------------------------------------------------------ */

/*
 * Decide and act for one process (thread group), into d (a decision for
 * the policy in force, made by the caller for a batch of processes).
 */
void classify(struct core *c, pid_t pid, struct decision *d);
/* The same, with what the kernel's events said of it (NULL: nothing):
 * then /proc is read only for the rest (task_read_known); uid and euid
 * alone are taken only when the policy needs no other credential. */
void classify_known(struct core *c, pid_t pid, const struct task_known *known,
		  struct decision *d);
/* The same for one process, with a decision of its own (a request, a
 * child a full boost refused). */
void classify_alone(struct core *c, pid_t pid);
/* Decide for pid into d and give it the priorities decided, moving
 * nothing (the foreground's, fgprio.c); nothing while paused. */
void classify_priorities(struct core *c, pid_t pid, struct decision *d);
/* Decide only: the task as read and its verdicts into d. */
enum decide_result classify_decide(struct core *c, pid_t pid, uid_t asker,
				   struct decision *d);
/* Decide for the task already in d->task (the exec gate makes it): its
 * current groups read, the rules and boosts, no Lua hook. */
enum decide_result classify_decide_snapshot(struct core *c, struct decision *d);
/* Will some verdict of d move the task (in a hierarchy not dropped)? */
bool classify_wants_move(const struct core *c, const struct decision *d);
/* Make the moves d's verdicts ask for (d->cg read). */
void classify_act(struct core *c, struct decision *d);
void classify_whatif(struct core *c, const struct task *t, const char *cmd, size_t cmdlen,
		     uid_t asker, struct decision *d);

/* ---- groups.c: acting on cgroupfs -------------------------------------------------- */

/* Move d's task into the group of its verdict in managed hierarchy i
 * (creating it). */
void groups_move(struct core *c, size_t i, const struct decision *d);
/* Move d's task into d->composed in the v2 tree (creating its levels). */
void groups_move_composed(struct core *c, const struct decision *d);
/* Place a backend's keeper pid into composed group path (made with its
 * settings if missing), with no verdict of its own (gate.c). */
void groups_keep(struct core *c, pid_t pid, const char *path);
/* Remember a group made from a template, for removal once empty;
 * remove those that are empty now; forget them all. */
void groups_made(struct core *c, const struct hier *h, const char *path);
/* The same, for a path known not to be listed (found at start). */
void groups_adopt(struct core *c, const struct hier *h, const char *path);
/* leftovers.c: at start, the template groups a former run made in the
 * unified layout's tree: removed if empty, else remembered like made. */
void groups_leftovers(struct core *c);
/* Remove the template groups that are empty now. */
void groups_cleanup(struct core *c);
/* When the empty template groups are next looked for (monotonic; 0 =
 * none), and the look. */
double groups_deadline(const struct core *c, double now);
void groups_timeout(struct core *c, double now);
void groups_forget_made(struct core *c);
/* The unified layout: the daemon into its leaf, controllers enabled at
 * the root and along the existing tree (at start and after a reload). */
void groups_prepare(struct core *c);
/* Before exit: hand the daemon's own group back (controllers below it
 * disabled, bottom up), so the service manager can restart it there. */
void groups_release(struct core *c);

/* ---- nftsets.c: nftables sets of group ids ------------------------------------------ */

int nftsets_new(struct core *c) ATTR_WUR;
/* A new policy: its sets and the groups they hold (before the sync). */
int nftsets_policy(struct core *c) ATTR_WUR;
void nftsets_free(struct core *c);
/* A v2 group was made (or found made again) / removed by the daemon. */
void nftsets_made(struct core *c, const struct hier *h, const char *path);
void nftsets_removed(struct core *c, const struct hier *h, const char *path);
/* Start a sync: find the groups of every set, bring each set in line.
 * The first step runs at once; a sync of many groups goes on in later
 * steps (nftsets_deadline is then now), so the loop runs between them. */
void nftsets_sync(struct core *c);
/* Run the next step of a sync, or start one that is due. */
void nftsets_timeout(struct core *c, double now);
/* A group with this id was removed before the sets were synced (at
 * start, a former run's): the next sync deletes the id where it finds it. */
void nftsets_gone(struct core *c, uint64_t id);
/* When nftsets_timeout has something to do (monotonic; 0 = nothing). */
double nftsets_deadline(const struct core *c, double now);

/* ---- gate.c: the exec gate's records ------------------------------------------------ */

/* An EXEC event for tgid: an exec the gate held for it is settled
 * (did it run the binary, with the credentials decided by?). */
void gate_exec_seen(struct core *c, pid_t tgid);
/* A FORK event: a child of a process whose exec the gate placed, not
 * settled yet, shares its fate. */
void gate_fork(struct core *c, pid_t parent, pid_t child);
/* Does the gate want FORK events: a placement not settled, or one made
 * in the last two seconds? */
bool gate_in_flight(const struct core *c);
/* Is an exec of pid held or on its way (answered, not yet seen)?  Then
 * it is not classified before its EXEC event: it would be by its old
 * program. */
bool gate_pending(const struct core *c, pid_t pid);
/* When gate_timeout() has something to do (monotonic; 0 = no). */
double gate_deadline(const struct core *c, double now);
/* Undo the moves of execs that never happened. */
void gate_timeout(struct core *c, double now);
/* A move at the gate of d's task found the backend's group not ready
 * (-EAGAIN): a late move; the composed group is kept ready from now on
 * unless a template made it. */
void gate_unready(struct core *c, const struct decision *d);
/* A new policy: the records name the old one's hierarchies. */
void gate_forget(struct core *c);
void gate_free(struct core *c);

/* ---- gateready.c: the groups kept ready for a backend's move_now ------------------ */

/* Groups were learned at the gate: gate_ready_hand_over() is due. */
bool gate_ready_due(const struct core *c);
/* Give the backend the groups to keep ready. */
void gate_ready_hand_over(struct core *c);
void gate_ready_free(struct core *c);

/* ---- priority.c: per-process priorities ----------------------------------------------- */

/* Add the fields of p that w does not want yet, decided by file:line
 * (borrowed: the policy's, living as long as it). */
void priority_want_add(struct prio_want *w, const struct prio *p, const char *file,
		       unsigned line);
/*
 * The priorities d's task is wanted to have, into d->prio, after its
 * verdicts are made (boosted: it is a member of some boost): a boost's
 * profile first, then the group section of each verdict's group in the
 * order of the managed hierarchies -- the first to name a field decides
 * it.
 */
void priority_decide(struct core *c, struct decision *d, bool boosted);
/* Give d's task (every thread of it) the priorities d wants, writing
 * only what differs; nothing at the exec gate (its EXEC event does). */
void priority_act(struct core *c, const struct decision *d);
/* The current priorities of pid's main thread, the fields what names;
 * 0, -ENOTSUP (no way to read them) or -errno. */
int priority_current(struct core *c, pid_t pid, unsigned int what, struct prio *cur);
/*
 * For explain and test: one JSON row per field d wants -- "priority",
 * "wanted", "why" (file:line) and, when pid > 0, "current" (pid's main
 * thread; null when it cannot be read).  A new array the caller owns.
 */
struct json_t *priority_rows(struct core *c, const struct decision *d, pid_t pid);
/* What pid has of the fields named names, kept in *before (the fields
 * written together -- sched with rtprio, ioclass with ionice -- kept
 * together); before->set 0 when nothing could be read. */
void priority_keep(struct core *c, const struct prio *named, pid_t pid,
		   struct prio *before);
/* pid was decided again into d (its class's priorities given): the
 * fields kept in before that the class does not name, set back. */
void priority_restore(struct core *c, const struct prio *before, pid_t pid,
		      const struct decision *d);
/* Boost b starts with process pid: what pid has of the fields its
 * profile names, kept in b->before. */
void priority_boost_start(struct core *c, struct boost *b, pid_t pid);
/* Boost b ended and member pid was classified again into d: the fields
 * b->before names that the class (d) does not, restored. */
void priority_boost_end(struct core *c, const struct boost *b, pid_t pid,
			const struct decision *d);

/* ---- fgprio.c: the foreground's priorities (core_fgprio_start) --------------------- */

/* In priority_decide(), after the boosts' profiles: the foreground's
 * profile's priorities, when d's task is the foreground's process. */
void fgprio_decide(struct core *c, struct decision *d);
/* At core_free(): the record goes, nothing is restored. */
void fgprio_free(struct core *c);

/* ---- boost.c: boosts ---------------------------------------------------------------- */

/* Is boost profile p granted to uid, by name or by @group (verbs.c)? */
bool profile_granted(const struct boost_profile *p, uid_t uid);
/* The boost profile named name, or NULL (name NULL too). */
const struct boost_profile *boost_profile_of(const struct config *cfg, const char *name);

/* The boosts (c->boosts) made; 0 or -ENOMEM. */
int boost_init(struct core *c) ATTR_WUR;
/* The boost of member pid on hierarchy hier, or NULL. */
const struct boost *boost_of(const struct core *c, pid_t pid, const char *hier);
/* A boosted parent forked: the child joins its boosts.  True when a
 * boost was full and refused it: the child, which the kernel put in the
 * boost's group with its parent, must then be placed by the rules. */
bool boost_fork(struct core *c, struct procid parent, struct procid child);
/* Process id is gone: it leaves its boosts (a boost left empty ends). */
void boost_exit(struct core *c, struct procid id);
void boost_restore(struct core *c);
/* A new policy: boosts of a profile follow it (re-targeted, shortened);
 * those that cannot go on end.  Before the rescan that moves them. */
void boost_policy(struct core *c);
/* When boost_timeout has something to do (monotonic; 0 = nothing): the
 * earliest expiry (wall clock, seen from now) or the state file's write. */
double boost_deadline(const struct core *c, double now);
/* End the boosts that expired, write the state file if it is time. */
void boost_timeout(struct core *c, double now);
/* Before exit: write the state, durably, if it changed. */
void boost_stop(struct core *c);
/* The sticky processes changed: write the state file soon, durably for
 * a request (durable), else lazily (forks, exits). */
void boost_sticky_changed(struct core *c, bool durable);
void boost_free_all(struct core *c);

#endif
