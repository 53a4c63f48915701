/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fakebackend.h -- a stand-in for the systemd backend without root
 * (engined/backend/systemd/ needs PID 1), for the core's tests over a
 * backend that is not cgroupfs.  Like the real one it names units with
 * sdunit.c under the root slice FAKEBACKEND_ROOT, only notes a unit at
 * mkdir(), queues every move (BACKEND_MOVE_QUEUED: the test reports the
 * outcome with core_move_done), makes a unit's group -- with an id --
 * when the test runs the start jobs, loses it when the test has systemd
 * collect the unit, refuses what sdunit_refusal()
 * refuses, and keeps the exec gate's groups ready with a keeper each.
 * Every call is noted as a line of text the test looks for.
 */
#ifndef CGENGINE_TESTS_FAKEBACKEND_H
#define CGENGINE_TESTS_FAKEBACKEND_H

#include "engined/core/core.h"

#define FAKEBACKEND_ROOT   "/cgengine.slice"
#define FAKEBACKEND_OWN	   "/system.slice/cgengined.service" /* the daemon's own group */
#define FAKEBACKEND_KEEPER 900 /* the first keeper's (fake) pid */
#define FAKEBACKEND_CALLS  256
#define FAKEBACKEND_UNITS  32
#define FAKEBACKEND_READY  8

/* A unit standing for one group of the layout. */
struct fakebackend_unit {
	char path[128]; /* the layout's group */
	bool noted;	/* mkdir() noted it: started at the next start jobs */
	bool started;	/* its group exists, with id */
	uint64_t id;
};

/* What the stand-in was asked and what it holds; the test may read and
 * change it (fakebackend_reset starts again). */
struct fakebackend {
	/* "PATH" (mkdir), "PATH PROPERTY" (set), "move PID PATH",
	 * "now PID PATH" (move_now), "restore PID REAL", in order */
	char calls[FAKEBACKEND_CALLS][300];
	size_t ncalls;
	struct fakebackend_unit units[FAKEBACKEND_UNITS];
	uint64_t next_id;
	unsigned moves; /* moves asked for */
	int asked;	/* times the core asked for a backend */
	/* the exec gate's groups made ahead: the paths handed over last,
	 * how often they were, keepers started so far */
	char ready[FAKEBACKEND_READY][300];
	size_t nready, handed;
	pid_t keepers;
};
extern struct fakebackend fakebackend;

/* The table (its arg is unused: the state is the global above). */
extern const struct backend fakebackend_table;

void fakebackend_reset(void);
/* Was the stand-in asked for what (since call number from)? */
bool fakebackend_called(const char *what);
bool fakebackend_called_since(size_t from, const char *what);
/* The unit of path (made if make and new; NULL if none). */
struct fakebackend_unit *fakebackend_unit(const char *path, bool make);
/* The start jobs run: each noted unit's group is made, with a new id,
 * and the core is told (as sdplace's JobRemoved "done"). */
void fakebackend_start_jobs(struct core *c);
/* systemd collected the unit of path (its last process exited): its
 * group goes, and the core is told (as sdplace's UnitRemoved). */
void fakebackend_collect(struct core *c, const char *path);
/* core_env.backend: this table for backend "systemd" at the root slice,
 * cgroupfs (NULL) otherwise; counts the calls (fakebackend.asked). */
int fakebackend_choose(void *arg, enum backend_kind kind, const char *root,
		       const struct backend **out);
/* overrides.layout_root: for backend "systemd", the real one's slice. */
int fakebackend_layout_root(enum backend_kind kind, const char *configured, char *out,
			    size_t len, const char **why);

struct fixture;
/* A core over fixture f's config, /proc and cgroupfs that gets this
 * backend when its policy asks for "systemd", with nft as its nf_tables
 * (NULL: none); NULL after saying why (diag).  Free with core_free. */
struct core *fakebackend_core(struct fixture *f, const struct backend_nft *nft);

#endif
