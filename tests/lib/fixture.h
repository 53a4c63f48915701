/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixture.h -- a world for the daemon's core without root: a /proc
 * look-alike the test fills with processes, a mount table naming one
 * fake hierarchy (name=cgecore) whose "cgroupfs" is a plain directory,
 * cgroupfs operations that record every move and rewrite the moved
 * process's /proc/PID/cgroup, a wall clock the test sets, and the
 * config and rules files.  Everything lives under one temporary
 * directory, removed by fixture_done().
 */
#ifndef CGENGINE_TESTS_FIXTURE_H
#define CGENGINE_TESTS_FIXTURE_H

#include "engined/core/core.h"

#define FIXTURE_HIER "name=cgecore"

struct fixture {
	char dir[64];	     /* the temporary directory */
	char proc[128];	     /* its /proc look-alike */
	char cg[128];	     /* the fake hierarchy's mount point */
	char v1name[64];     /* its name as /proc/PID/cgroup shows it */
	char mountinfo[128];
	char conf[128], rules[128], state[128];
	struct backend cgfs;
	time_t wall;	     /* what the core's clock says */
	pid_t vanish_on_wall; /* remove this pid when the clock is next read */
	int fail_move;	      /* -errno every move returns (0 = succeed) */
	/* the cgroup v2 tree (fixture_v2): */
	char cg2[128];	      /* its mount point ("" = none) */
	char sets[128][256];  /* "path key value" of every write, in order */
	size_t nsets;
	/* nftables sets: the test's stand-in (NULL: none, which a test
	 * without nft sets in its config never calls) */
	const struct backend_nft *nft;
	size_t boost_members; /* core_env.boost_members */
	/* core_env.want_events and .between, called with want_arg (NULL: none) */
	void (*want_events)(void *arg, const struct procev_want *w);
	void (*between)(void *arg);
	void *want_arg;
	/* core_env.prio: the test's stand-in (NULL: priorities never set) */
	const struct backend_prio *prio;
};

/*
 * The rules and boost profile most core tests use: root's processes to
 * /admins, nobody's fx-www to /www, nobody's others to /users/%u; the
 * profile "fast" lets nobody boost into /fast for up to 1h.
 */
extern const char fixture_rules[];
extern const char fixture_profile[];

/* The fixture being used (the wall clock callback needs it). */
extern struct fixture *fixture_current;

void fixture_init(struct fixture *f);
/* Write the daemon config (extra lines appended) and the rules file. */
void fixture_files(struct fixture *f, const char *extra_conf, const char *rules);
/* A core over the fixture; NULL (reported by diag) on failure. */
struct core *fixture_core(struct fixture *f);
/* A process: uid/gid (real = effective), exe, start time, group path. */
void fixture_proc(struct fixture *f, pid_t pid, uid_t uid, gid_t gid, const char *exe,
		  uint64_t start, const char *group);
/* Set the line "KEY:\tVALUE" of pid's status ("Tgid", "TracerPid",
 * "Kthread" ...): the line of that key replaced, or added at the end. */
void fixture_status(struct fixture *f, pid_t pid, const char *key, const char *value);
/* Make pid's cmdline a FIFO no one writes: a read of it waits (a
 * process whose command line cannot be read, as kernel/cmdline.c
 * fears). */
void fixture_stuck_cmdline(struct fixture *f, pid_t pid);
/* Change the "Threads:" line of pid. */
void fixture_threads(struct fixture *f, pid_t pid, int threads);
void fixture_gone(struct fixture *f, pid_t pid);
/* Make pid a zombie (state Z in its stat file): its main thread exited. */
void fixture_zombie(struct fixture *f, pid_t pid);
/* The group of pid in the fake hierarchy ("" if unknown). */
const char *fixture_group(struct fixture *f, pid_t pid);
void fixture_done(struct fixture *f);

/*
 * Give the fake hierarchy controllers too ("cpu": it is then
 * "cpu,name=cgecore" in mountinfo and /proc/PID/cgroup), right after
 * fixture_init (it rewrites the mount table).
 */
void fixture_v1_controllers(struct fixture *f, const char *controllers);
/* The content of a file in the fake hierarchy ("" if none). */
const char *fixture_v1_file(struct fixture *f, const char *group, const char *file);

/*
 * Add a cgroup2 mount (before fixture_files/fixture_core), whose root
 * offers controllers (e.g. "cpu io memory pids"), and give
 * /proc/self/cgroup the v2 group self ("0::self").  A group's
 * cgroup.controllers is what its parent enabled in
 * cgroup.subtree_control.
 */
void fixture_v2(struct fixture *f, const char *controllers, const char *self);
/* Put pid (made by fixture_proc) in v2 group path. */
void fixture_proc_v2(struct fixture *f, pid_t pid, const char *path);
/* The v2 group of pid ("" if none). */
const char *fixture_group_v2(struct fixture *f, pid_t pid);
/* The content of a file in the v2 tree ("" if none): "/a/b", "cpu.weight". */
const char *fixture_v2_file(struct fixture *f, const char *group, const char *file);
/* Write a file in the v2 tree as the kernel would show it (a test's "the
 * kernel reset it"). */
void fixture_v2_write(struct fixture *f, const char *group, const char *file, const char *value);

/* A kernel event, for core_event(). */
struct procev_event fixture_event(enum procev_type type, pid_t pid, pid_t parent);

#endif
