/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel.h -- everything cgengine says to the kernel.
 *
 *   hier_   hierarchy discovery from /proc/self/mountinfo
 *   task_   task snapshots from /proc/PID
 *   cgfs_   creating groups, applying settings, moving processes
 *   procev_ the proc connector (netlink) and its event decoder
 *   nftset_ nftables sets of cgroup ids (libnftnl, libmnl)
 *
 * No policy lives here.  Functions return 0 (or a count) on success
 * and -errno on failure; -ESRCH always means "the task is gone", which
 * callers treat as a normal outcome.
 */
#ifndef CGENGINE_KERNEL_H
#define CGENGINE_KERNEL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "rules/prio.h"
#include "util/util.h"


/* ---- hierarchies ------------------------------------------------------ */

enum hier_version {
	HIER_V1,
	HIER_V2,
};

struct hier {
	char *name;  /* as in /proc/PID/cgroup: "cpu,cpuacct", "name=x", "" */
	char *mount; /* mount point */
	enum hier_version version;
	bool named; /* a v1 hierarchy with name= */
};

struct hier_list {
	struct hier *v;
	size_t n;
};

/*
 * Read a mountinfo file (normally /proc/self/mountinfo) into out: one
 * entry per hierarchy (the first mount of each, preferring mounts of
 * the hierarchy's root).  Free with hier_list_free.
 */
int hier_discover(const char *mountinfo, struct hier_list *out) ATTR_WUR;
void hier_list_free(struct hier_list *l);

/*
 * Find a hierarchy by the name a config or rule uses: any one of its
 * controllers ("cpu" finds "cpu,cpuacct"), "name=x", or "unified" for
 * the v2 mount.  NULL if none.
 */
const struct hier *hier_find(const struct hier_list *l, const char *spec);

/* The name a config uses for h: its /proc name, or "unified" for v2. */
const char *hier_label(const struct hier *h);

/* ---- tasks ------------------------------------------------------------- */

#define TASK_GROUPS_MAX 256

#define TASK_EXE    0x1u /* readlink exe */
#define TASK_SCRIPT 0x2u /* script and invoked name (needs TASK_EXE) */
#define TASK_RT	    0x4u /* realtime scheduling policy */
#define TASK_NNP    0x8u /* no_new_privs (status read past Kthread:) */
/* argv[0] from cmdline (ananicy-cpp's rules match its last part); when
 * cmdline is empty, exe is read too */
#define TASK_ARGV0 0x20u

/*
 * What an event already says of a task, so that task_read_known() reads
 * only the rest from /proc.  `have` names the fields given (TASK_KNOW_*):
 *
 * - UIDS: uid and euid (the main thread's last UID event).  Alone, only
 *   comm is read (from /proc/PID/comm, a fraction of status's cost):
 *   gid and egid read as (gid_t)-1, no groups, ppid 0.  The caller
 *   passes it only when the decision needs no gid, groups or ppid.
 * - EXECED: the task exec'd since (an EXEC event): a user process, not a
 *   kernel thread.  Without UIDS or CREDS, only comm is read too, as for
 *   UIDS, and uid and euid read as (uid_t)-1: the caller passes it so
 *   only when no credential decides (the proc connector's exec of a
 *   process no UID event told of, for rules that name no user or group).
 * - CREDS: uid, euid, gid, egid and the supplementary groups: ngroups is
 *   the task's count, the first TASK_KNOWN_GROUPS of them in groups[].
 *   With COMM and PPID and no more groups than that, status is not read.
 *   With more, the list is not whole: the credentials count as UIDS.
 * - COMM, PPID; EXE: the executable's path (TASK_EXE then reads no
 *   link); RT: realtime (TASK_RT then makes no system call); CGROUP:
 *   cgroup_id, the v2 group's id (carried, not used by task_read_known);
 *   ARGV0: argv[0] at the exec (TASK_ARGV0 then reads no cmdline).
 * - v1[] (nv1 of them, whatever `have` says): the task's group in the v1
 *   hierarchies the BPF program was asked for (execkeys' hiers), by
 *   hierarchy id and group id; the core compares them with the ids of a
 *   move's destinations instead of reading /proc/PID/cgroup.
 *
 * Ignored with TASK_NNP, which needs status.  The BPF program's exec
 * records give all of them as they were at the exec (bpfexec_known()).
 */
#define TASK_KNOW_UIDS	   0x01u
#define TASK_KNOW_CREDS	   0x02u
#define TASK_KNOW_COMM	   0x04u
#define TASK_KNOW_PPID	   0x08u
#define TASK_KNOW_EXE	   0x10u
#define TASK_KNOW_RT	   0x20u
#define TASK_KNOW_CGROUP   0x40u
#define TASK_KNOW_EXECED   0x80u
#define TASK_KNOW_ARGV0	   0x100u
#define TASK_KNOWN_GROUPS  16
#define TASK_KNOWN_EXE_MAX 513
#define TASK_KNOWN_V1	   8
#define TASK_KNOWN_ARGV0_MAX 128
struct task_known { /* a new field: task_known_copy() copies it too */
	unsigned have;
	uint64_t ts_ns; /* when they held (the kernel's CLOCK_MONOTONIC); 0: unknown */
	pid_t ppid;
	uid_t uid, euid;
	gid_t gid, egid;
	size_t ngroups;
	gid_t groups[TASK_KNOWN_GROUPS];
	bool realtime;
	uint64_t cgroup_id;
	size_t nv1;
	struct {
		uint32_t hier; /* the first field of /proc/PID/cgroup */
		uint64_t id;   /* the group's (cgfs_id) */
	} v1[TASK_KNOWN_V1];
	char comm[16];
	char argv0[TASK_KNOWN_ARGV0_MAX]; /* with ARGV0; else "" */
	char exe[TASK_KNOWN_EXE_MAX];
};

/*
 * A task snapshot.  task_read() clears every field before groups and
 * the first byte of each string from comm on, so a reused struct never
 * carries a value over from the task read before; groups holds ngroups
 * gids, and what lies past them is left as it was (never read).
 */
struct task {
	pid_t pid, ppid;
	pid_t tgid; /* its thread group (pid for a process, not a thread); 0
		       when neither status was read nor CREDS known */
	uid_t uid, euid;
	gid_t gid, egid;
	bool kthread;
	bool realtime;
	bool no_new_privs; /* only with TASK_NNP */
	/* the cmdline read (TASK_SCRIPT, TASK_ARGV0), or with TASK_SCRIPT
	 * the checks of the files it names, was given up on (-ETIMEDOUT):
	 * script, invoked and argv0 are as for a task whose cmdline
	 * cannot be read */
	bool cmdline_timedout;
	size_t ngroups;
	gid_t groups[TASK_GROUPS_MAX];
	char comm[64];
	char exe[PATH_MAX]; /* "" when unknown (kernel threads) */
	/*
	 * The script an interpreter runs, or "": only when the interpreter
	 * really runs that file (it is its first argument, the interpreter
	 * holds it open, or the options before it are the file's own #!
	 * line's), so "sh -s /usr/sbin/nfsd" does not pass for nfsd.
	 */
	char script[PATH_MAX];
	/*
	 * The path the process was started by, as libcgroup's cgrulesengd
	 * finds it: exe, unless comm names another command-line argument
	 * that is a symlink (or hard link) to exe or a script the process
	 * runs; then that argument (made absolute).  "" when exe is "".
	 */
	char invoked[PATH_MAX];
	char argv0[PATH_MAX]; /* with TASK_ARGV0: the first word of cmdline, or "" */
};

/*
 * Snapshot thread group pid from procroot (normally "/proc"): one read
 * of status, plus what `what` asks for.  -ESRCH when the task is gone.
 */
int task_read(const char *procroot, pid_t pid, unsigned what, struct task *t) ATTR_WUR;
/*
 * As task_read, taking what k says (NULL: nothing) instead of reading
 * it: with all of the BPF program's facts and nothing more asked, no
 * /proc read at all -- nor then -ESRCH for a task that exited since.
 */
int task_read_known(const char *procroot, pid_t pid, unsigned what,
		    const struct task_known *k, struct task *t) ATTR_WUR;
/*
 * *dst = *src, but only the bytes that mean something: its groups,
 * v1 groups, argv0 and exe up to their counts and NULs (a whole copy is
 * some 900 bytes, most of them the unused ends of exe and argv0).
 */
void task_known_copy(struct task_known *dst, const struct task_known *src);

/*
 * Given the executable and the NUL-separated command line of a task,
 * find the script an interpreter runs: the first argument after argv[0]
 * that is not an option, when exe is a known interpreter.  Writes "" if
 * none.  Pure; exposed for tests.
 */
void task_script_from_cmdline(const char *exe, const char *cmdline, size_t len, char *out,
			      size_t outlen);

/* The real uid of thread group pid, from the first lines of its
 * status: 0 or -errno (-ESRCH: it is gone).  For the exec gate, whose
 * held execs wait in one queue per user. */
int task_real_uid(const char *procroot, pid_t pid, uid_t *uid) ATTR_WUR;

/* The run state of thread group pid (R, S, D ... as ps shows it), from
 * the first lines of its status: 0 or -errno (-ESRCH: it is gone).
 * The kernel writes status without the locks an exec in progress holds,
 * which stat and exe wait on (gate.c asks before reading those). */
int task_run_state(const char *procroot, pid_t pid, char *state) ATTR_WUR;

/*
 * The NUL-separated command line of pid into buf (at most
 * CMDLINE_READ_MAX - 1 bytes, NUL-terminated); bytes or -errno.
 * Reading it reads the process's memory, which its owner can make
 * block for ever: the read runs in one of CMDLINE_WORKERS worker
 * threads and is given up on after CMDLINE_WAIT_MS (kernel/cmdline.c
 * says why), -ETIMEDOUT -- at once when a worker is stuck on a read of
 * uid's (the process's real uid, which the caller knows; (uid_t)-1:
 * read from its status), or every worker is.  task_read() reads cmdline the same way, for TASK_SCRIPT
 * together with the checks of the files it names (one job, one wait),
 * and sets task.cmdline_timedout when it gives up.
 */
#define CMDLINE_READ_MAX 65536
#define CMDLINE_WAIT_MS	 50
#define CMDLINE_WORKERS	 4
int task_read_cmdline(const char *procroot, pid_t pid, uid_t uid, char *buf,
		      size_t len) ATTR_WUR;
/* End the idle cmdline workers (done at exit, by atexit): the number of
 * those left running, stuck in a read, which are never waited for. */
size_t cmdline_stop(void);

/*
 * Start time of pid (clock ticks since boot, field 22 of stat): with
 * the pid it identifies a process even after the pid is reused.
 */
int task_start_time(const char *procroot, pid_t pid, uint64_t *start) ATTR_WUR;

/*
 * A process's identity: its pid and its start time.  A pid is reused
 * once its process is gone; the pair never is.  This one type is what
 * the daemon remembers processes by (sticky flags, boosts).
 */
struct procid {
	pid_t pid;
	uint64_t start; /* clock ticks since boot, as task_start_time() */
};

/* The identity of the process pid is now; -ESRCH when there is none. */
int task_procid(const char *procroot, pid_t pid, struct procid *id) ATTR_WUR;
/* Same process? */
static inline bool
procid_eq(struct procid a, struct procid b)
{
	return a.pid == b.pid && a.start == b.start;
}
/* Is id still running (same pid, same start time)? */
bool task_alive(const char *procroot, struct procid id);
/*
 * Has the main thread of process id exited?  True when it is gone, its
 * pid is another process's now, or it is a zombie (which it is once the
 * kernel has reported its EXIT: other threads may run on).
 */
bool task_exited(const char *procroot, struct procid id);
/*
 * Threads of thread group pid still counted by the kernel (the
 * "Threads:" line of status); -ESRCH when it is gone.  When the main
 * thread exits with pthread_exit the process lives on and this stays
 * above 1.
 */
int task_threads(const char *procroot, pid_t pid) ATTR_WUR;

/*
 * A task's current groups, parsed from /proc/PID/cgroup.  Large enough
 * for a few hundred hierarchies; beyond that the last lines are
 * dropped (their groups read as unknown), never misparsed.
 */
#define TASK_CGROUPS_BUF 32768
#define TASK_CGROUPS_MAX 512
struct task_cgroups {
	char buf[TASK_CGROUPS_BUF];
	struct {
		const char *hier; /* second field: "cpu,cpuacct", "" for v2 */
		const char *path;
	} v[TASK_CGROUPS_MAX];
	size_t n;
};

int
task_read_cgroups(const char *procroot, pid_t pid, struct task_cgroups *out) ATTR_WUR;
/* Parse the text of a /proc/PID/cgroup file (copied into out). */
int task_parse_cgroups(const char *text, size_t len, struct task_cgroups *out) ATTR_WUR;
/* The path for hierarchy name hier, or NULL. */
const char *task_cgroup_of(const struct task_cgroups *cg, const char *hier);

/*
 * Call fn for every numeric entry of procroot (every thread group).
 * Stops early when fn returns non-zero and returns that value.
 */
int task_foreach(const char *procroot, int (*fn)(void *arg, pid_t pid), void *arg);

/*
 * Call fn for every thread of process pid (procroot/PID/task), main
 * thread included; stops early when fn returns non-zero and returns
 * that value; -ESRCH when pid is gone (prio.c).
 */
int task_foreach_thread(const char *procroot, pid_t pid, int (*fn)(void *arg, pid_t tid),
			void *arg);

/* ---- priorities (prio.c) ------------------------------------------------- */

/*
 * The priorities of thread tid of process pid, the groups of fields
 * what names: nice, sched and rtprio (one sched_getattr; latency_nice
 * too where the kernel has it -- out->set names PRIO_LATENCY only
 * then), ioclass and ionice (ioprio_get), oom_score_adj (the process's
 * procroot/PID/oom_score_adj, read only when tid is pid).  out->set
 * names what was read.  0 or -errno (-ESRCH: gone).
 */
int taskprio_get(const char *procroot, pid_t pid, pid_t tid, unsigned int what,
		 struct prio *out) ATTR_WUR;
/*
 * Write the fields todo names to thread tid of process pid: sched with
 * rtprio (sched_setscheduler, which keeps the nice value), nice
 * (setpriority), ioclass with ionice (ioprio_set), oom_score_adj (only
 * when tid is pid: it is the process's), latency_nice (sched_setattr;
 * -EOPNOTSUPP where the kernel has none).  Every field is tried; 0, or
 * the first -errno.
 */
int taskprio_set(const char *procroot, pid_t pid, pid_t tid, const struct prio *todo) ATTR_WUR;

/* ---- cgroupfs ------------------------------------------------------------ */

/*
 * Create group path (relative to h's root), parents first.  *created
 * tells whether the last component was made by this call.
 */
int cgfs_mkdir(const struct hier *h, const char *path, bool *created) ATTR_WUR;
/*
 * Is h's mount point still a cgroup file system?  0, or -ESTALE when it
 * was unmounted (the directory left behind is on another file system).
 * cgfs_mkdir, cgfs_set and cgfs_move check this first.
 */
int cgfs_check(const struct hier *h) ATTR_WUR;
/* Write value to the control file key of group path. */
int cgfs_set(const struct hier *h, const char *path, const char *key,
	     const char *value) ATTR_WUR;
/*
 * Read the first line of control file key of group path into buf (its
 * newline removed); 0 or -errno.
 */
int cgfs_get(const struct hier *h, const char *path, const char *key, char *buf,
	     size_t len) ATTR_WUR;
/*
 * Move thread group tgid into group path: cgroup.procs, or for v1
 * kernels without it every thread through "tasks".
 */
int cgfs_move(const struct hier *h, const char *path, pid_t tgid) ATTR_WUR;
/*
 * A small cache of open cgroup.procs files, so moving a process costs
 * one write(2) instead of open, write and close.  A group removed
 * behind the cache's back is noticed (ENODEV) and reopened.
 */
struct cgfs_cache;
struct cgfs_cache *cgfs_cache_new(void);
/* Close every cached file (after a reload, or removing groups). */
void cgfs_cache_flush(struct cgfs_cache *c);
void cgfs_cache_free(struct cgfs_cache *c);
/* As cgfs_move, through the cache. */
int cgfs_move_cached(struct cgfs_cache *c, const struct hier *h, const char *path,
		     pid_t tgid) ATTR_WUR;

/* Remove an empty group; -EBUSY while it holds tasks or children. */
int cgfs_rmdir(const struct hier *h, const char *path) ATTR_WUR;
/* Call fn with the name of each child group of path (stopping when it
 * returns non-zero: that value); 0 or -errno. */
int cgfs_children(const struct hier *h, const char *path,
		  int (*fn)(void *arg, const char *name), void *arg) ATTR_WUR;
/* True when group path has no task (and so may be removed). */
bool cgfs_is_empty(const struct hier *h, const char *path);
/*
 * Has systemd delegated group path (Delegate=yes)?  It marks a delegated
 * unit's group with the extended attribute trusted.delegate (and newer
 * versions with user.delegate as well), a boolean ("1").  1, 0 (neither
 * attribute, or both false), or -errno (-ENOENT: no such group).
 */
int cgfs_delegated(const struct hier *h, const char *path) ATTR_WUR;

/* The id of v2 group path: its file handle (the inode of its directory
 * where handles are not supported); 0 or -errno. */
int cgfs_id(const struct hier *h, const char *path, uint64_t *id) ATTR_WUR;
/* Does a group with this id still exist in v2 hierarchy h?  1, 0, or
 * -errno (e.g. -EPERM without CAP_DAC_READ_SEARCH). */
int cgfs_id_live(const struct hier *h, uint64_t id) ATTR_WUR;

/* ---- the proc connector ---------------------------------------------------- */

enum procev_type {
	PROCEV_FORK,
	PROCEV_EXEC,
	PROCEV_UID,
	PROCEV_GID,
	PROCEV_EXIT,
};

struct procev_event {
	enum procev_type type;
	pid_t pid, tgid;	       /* the task concerned (child for FORK) */
	pid_t parent_pid, parent_tgid; /* FORK only */
	uint32_t rid, eid;	       /* UID/GID: real and effective id */
	uint32_t exit_code;	       /* EXIT only */
	uint64_t ts_ns;		       /* when, CLOCK_MONOTONIC (the kernel's) */
	/* EXEC from the BPF program: what it read of the task at the exec
	 * (its source's, valid until the next receive); NULL otherwise */
	const struct task_known *known;
};

/*
 * Decode one datagram received from sender port `sender` (0 = the
 * kernel).  Stores at most max events and returns how many, or -EPERM
 * when the datagram is not from the kernel, -EBADMSG when malformed.
 * Events the daemon has no use for (comm, sid, ptrace, ...) are skipped.
 */
int procev_decode(const void *buf, size_t len, uint32_t sender, struct procev_event *ev,
		  size_t max) ATTR_WUR;

struct procev;

/* Open a socket, subscribe to process events.  -EPERM without root. */
int procev_open(struct procev **out, int rcvbuf) ATTR_WUR;
void procev_close(struct procev *p);
/*
 * Which events a proc connector socket delivers; every other one is
 * dropped by the kernel before it is queued, so it never wakes the
 * reader.  Two filters do it: a classic-BPF socket filter, on any
 * kernel, which also looks inside events (a new thread is no new
 * process), and on Linux >= 6.6 the connector's own event-type filter
 * (the kinds alone), which saves the kernel a copy per event.
 *
 * EXIT events pass for the main thread of the ntrack thread groups in
 * track[] and for any thread of the ngone groups in gone[] (whose main
 * thread exited while others run on); PROCEV_ALL instead of a count
 * passes every one, and so does any count above PROCEV_TRACK_MAX.
 */
#define PROCEV_ALL	 ((size_t)-1)
#define PROCEV_TRACK_MAX 128
struct procev_want {
	bool exec;
	bool uid, gid; /* credential changes */
	bool forks;    /* FORK of a new process (never of a new thread) */
	const pid_t *track;
	size_t ntrack;
	const pid_t *gone;
	size_t ngone;
};

/*
 * Deliver only what w asks for from now on: the change takes effect
 * before this returns.  0, or -errno when a filter could not be set
 * (then more events than asked arrive: correct, only dearer).
 */
int procev_want(struct procev *p, const struct procev_want *w) ATTR_WUR;
/*
 * Hand p's UID and GID events to the eBPF socket filter prog_fd (the BPF
 * event source's, bpfexec_ids()) instead: p is asked for those two
 * kinds only (Linux >= 6.6; older kernels run the filter on every
 * event).  0, or -errno when it cannot be attached (then nothing
 * changed).
 */
int procev_filter_bpf(struct procev *p, int prog_fd) ATTR_WUR;
/*
 * The socket filter alone, attached to any socket fd whose datagrams
 * read as the proc connector's (netlink header, cn_msg, proc_event): for
 * tests, which run it on a socket pair.  0 or -errno.
 */
int procev_want_attach(int fd, const struct procev_want *w) ATTR_WUR;
/*
 * The program itself: up to max instructions into code (struct
 * sock_filter, <linux/filter.h>); the count, or -E2BIG.
 */
struct sock_filter;
int procev_filter_build(const struct procev_want *w, struct sock_filter *code,
			size_t max) ATTR_WUR;
int procev_fd(const struct procev *p);
/*
 * Receive and decode the datagrams waiting (up to 32, and up to max
 * events) with one system call.  Returns the number of events,
 * -EAGAIN when nothing is waiting, -ENOBUFS when the kernel dropped
 * events (the caller should rescan), another -errno on error (-ENOMEM:
 * the first receive allocates the datagrams' room, 36 KiB).
 * Datagrams not from the kernel yield 0 events.
 */
int procev_recv(struct procev *p, struct procev_event *ev, size_t max) ATTR_WUR;
/*
 * Did the last procev_recv() empty the socket (it got fewer datagrams
 * than it asked for)?  Then a caller woken by poll/epoll can wait again
 * instead of calling procev_recv() once more only to get -EAGAIN.
 */
bool procev_drained(const struct procev *p);
/* Double the receive buffer (up to a limit); the new size or -errno. */
int procev_grow(struct procev *p) ATTR_WUR;

/* ---- the eBPF event source ------------------------------------------------------- */

/*
 * The keys an exec must carry for some rule to decide it (the policy's,
 * engined/core/execkeys.c): uids (matched against uid and euid), gids
 * (gid, egid and supplementary groups) and names (comm, the file run,
 * a script's interpreter; each cut to EXECKEYS_NAME_LEN - 1 bytes, as
 * the kernel cuts comm).  wide: every exec may matter (no filter);
 * scripts: a rule may name a script, so every exec of an interpreter
 * matters.  Arrays are malloc'd, freed by execkeys_free.
 */
#define EXECKEYS_NAME_LEN 16
#define EXECKEYS_HIERS	  8
struct execkeys {
	bool wide;
	char why[160]; /* when wide: what made it so, e.g. "FILE:LINE: ..." */
	bool scripts;
	uid_t *uids;
	size_t nuids;
	gid_t *gids;
	size_t ngids;
	char (*names)[EXECKEYS_NAME_LEN];
	size_t nnames;
	/* ananicy-cpp's rule names, whole (execkeys_hash of each): an exec
	 * passes whose argv[0] (as ananicy-cpp reads it), file name or comm
	 * is one of them */
	uint64_t *anames;
	size_t nanames;
	/* the v1 hierarchies (ids, as in /proc/PID/cgroup) whose groups an
	 * exec's record should tell (struct task_known's v1) */
	uint32_t hiers[EXECKEYS_HIERS];
	size_t nhiers;
	bool hiers_backward; /* they were made late: look for them newest first */
};

/* The filter's hash of a name of n bytes (64-bit FNV-1a, as the BPF
 * program computes it). */
uint64_t execkeys_hash(const char *s, size_t n);
/* How many ananicy names the filter holds at most; with more it is wide. */
#define EXECKEYS_ANAMES_MAX 32768

/*
 * The BPF program on sched_process_exec (kernel/bpfexec.c; built only
 * with libbpf, else every call fails with -EOPNOTSUPP).  It sends the
 * execs its filter passes as PROCEV_EXEC events through a ring buffer;
 * and, through its socket filter on a connector socket, the uid and gid
 * changes that pass the same filter as PROCEV_UID and PROCEV_GID events.
 */
struct bpfexec;

/* Load and attach it with a ring buffer of rbsize bytes (a power of
 * two, at least a page); 0 or -errno.  A child process loads it
 * (kernel/bpfload.c) and is waited for.  In the environment,
 * CGENGINED_TEST_BPF_FAIL=1 makes the child fail with -EPERM (=killed:
 * be killed before it says a word, which is -EPROTO), and
 * CGENGINED_TEST_BPF_NOIDS=1 leaves out the program on uid and gid
 * changes (tests). */
int bpfexec_open(struct bpfexec **out, size_t rbsize) ATTR_WUR;
/* Its socket filter on uid and gid changes (a descriptor, its own: for
 * procev_filter_bpf()), or -errno: why it did not load (then the proc
 * connector's events are read). */
int bpfexec_ids(const struct bpfexec *b) ATTR_WUR;
/* Send uid (gid) changes from now on only while uid (gid) is true. */
void bpfexec_want_ids(struct bpfexec *b, bool uid, bool gid);
/* While hold, a uid or gid change does not wake the reader: it is read
 * with the next exec, or once the reader clears hold (and reads). */
void bpfexec_hold_ids(struct bpfexec *b, bool hold);
void bpfexec_close(struct bpfexec *b);
/* The descriptor to poll for records. */
int bpfexec_fd(const struct bpfexec *b);
/*
 * Take up to max records as events, each with what its record says of
 * the task (ev->known, the source's memory, valid until the next call).
 * The count; -EAGAIN when none waits; -ENOBUFS once after the kernel
 * could not write records (the caller should rescan).
 */
int bpfexec_recv(struct bpfexec *b, struct procev_event *ev, size_t max) ATTR_WUR;
/* Did the last bpfexec_recv() empty the ring buffer? */
bool bpfexec_drained(const struct bpfexec *b);
/* While awake, the program writes records without waking the reader. */
void bpfexec_awake(struct bpfexec *b, bool awake);
/* Filter by k from now on (atomically: each exec sees the old or the
 * new keys, never a mix); 0 or -errno (then every exec passes). */
int bpfexec_filter(struct bpfexec *b, const struct execkeys *k) ATTR_WUR;
/* Also pass every exec of the thread groups in pids (PROCEV_ALL: all). */
int bpfexec_track(struct bpfexec *b, const pid_t *pids, size_t n) ATTR_WUR;
/*
 * What one of its records (rec, len bytes) says of the exec'd task,
 * into k (pure; built with or without libbpf).  0, or -EBADMSG when the
 * record is cut short.
 */
int bpfexec_known(const void *rec, size_t len, struct task_known *k) ATTR_WUR;
/*
 * A record of a uid or gid change (rec, len bytes) as the connector's
 * event, into ev (pure).  0, or -EBADMSG when rec is not one.
 */
int bpfexec_ids_event(const void *rec, size_t len, struct procev_event *ev) ATTR_WUR;
/* The program's counters: execs seen (counted while the sysctl
 * kernel.bpf_stats_enabled is 1), passed, records dropped. */
struct bpfexec_stats {
	uint64_t execs, passed, drops;
};
void bpfexec_stats(const struct bpfexec *b, struct bpfexec_stats *out);

/* ---- nftables sets of cgroup ids ----------------------------------------------- */

#define NFTSET_NAME_MAX 256 /* the kernel's limit for table and set names, with NUL */

/* A set as cgengined.conf names it: "inet filter www". */
struct nftset_ref {
	uint8_t family; /* NFPROTO_INET, ... */
	char table[NFTSET_NAME_MAX];
	char set[NFTSET_NAME_MAX];
};

/* Parse "FAMILY TABLE SET"; 0, or -EINVAL with the reason in err. */
int nftset_parse(const char *spec, struct nftset_ref *r, char *err, size_t errlen) ATTR_WUR;
/* "inet filter www" */
void nftset_format(const struct nftset_ref *r, char *buf, size_t len);
const char *nftset_family_name(uint8_t family);

/* A netlink socket for changing sets (needs CAP_NET_ADMIN). */
struct nftset_conn;
int nftset_open(struct nftset_conn **out) ATTR_WUR;
void nftset_close(struct nftset_conn *c);
/* Its port id: the notifications its changes cause carry it. */
uint32_t nftset_portid(const struct nftset_conn *c);
/* Add ids to the set (present ones are fine) / delete them (each must
 * be present); one transaction per 256.  0 or -errno: -ENOENT when the
 * table or set (or, deleting, an element) does not exist, -EINVAL when
 * the set's elements are not cgroup ids. */
int nftset_add(struct nftset_conn *c, const struct nftset_ref *r, const uint64_t *ids,
	       size_t n) ATTR_WUR;
int nftset_del(struct nftset_conn *c, const struct nftset_ref *r, const uint64_t *ids,
	       size_t n) ATTR_WUR;
/* The elements of the set, in a malloc'd array; 0, -ENOENT, or
 * -EPROTOTYPE when its elements are not 8 bytes (not cgroupsv2). */
int nftset_list(struct nftset_conn *c, const struct nftset_ref *r, uint64_t **ids,
		size_t *n) ATTR_WUR;

/*
 * Watching the ruleset: a non-blocking socket that receives nf_tables'
 * notifications, or -errno.  nftset_monitor_read() drains it: 1 when a
 * set was made or lost elements by the hand of someone other than port
 * self (e.g. "nft -f" reloading the firewall) and ours(arg, set) says
 * it is one of the caller's (ours NULL: any set), or when notifications
 * were lost; 0 otherwise; -errno on error.
 */
typedef bool nftset_ours_fn(void *arg, const struct nftset_ref *r);
int nftset_monitor_open(void) ATTR_WUR;
int nftset_monitor_read(int fd, uint32_t self, nftset_ours_fn *ours, void *arg) ATTR_WUR;

/* ---- pidfd.c: process file descriptors ---------------------------------- */

/* A pidfd of pid (close it), or -errno. */
int pidfd_open_pid(pid_t pid) ATTR_WUR;
/* Does the process of pidfd fd still run? */
bool pidfd_running(int fd);
/* The pid of the process pidfd fd stands for, which still runs: 0, or
 * -EBADF (fd is no pidfd) or -ESRCH (it exited, or is out of our pid
 * namespace). */
int pidfd_pid(int fd, pid_t *pid) ATTR_WUR;

#endif
