/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * foreground.c -- the desktop's foreground (foreground.h): one grant at
 * a time, whoever names it.  A process in a unit of its user's own
 * manager (a systemd desktop's app: user@UID.service/app.slice/...)
 * stays there: the foreground-profile's unit properties go to that
 * unit through the user's manager (fgunit.c), its priorities to the
 * process in place (core_fgprio_start).  Any other process gets
 * a boost of the profile, run as the core's boost verb (as the control
 * socket's "boost --profile"), which moves it into the profile's group.
 */
#include "foreground.h"
#include "engined/backend/systemd/sdunit.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- where the process is --------------------------------------------------------- */

/* What systemd allows in a unit's name (a group the user made itself
 * may have any name: such a name is no unit of its manager's). */
#define UNIT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@"

/*
 * The unit of pid's user manager that holds it, when its v2 group is
 * /user.slice/user-U.slice/user@U.service/.../UNIT (not the manager's
 * own init.scope): 1 with U in *owner and UNIT in unit; 2 with U in
 * *owner when it is below user@U.service but in none of its units
 * (the manager itself, a group the user made); 0 when it is not below
 * a user's manager; -errno.
 */
static int
user_unit(const struct foreground *f, pid_t pid, uid_t *owner, char *unit, size_t len)
{
	struct task_cgroups *cg = malloc(sizeof(*cg));
	char want[128];
	unsigned u;
	int n = 0, rc;

	if (cg == NULL)
		return -ENOMEM;
	if ((rc = core_read_cgroups(f->core, pid, cg)) < 0) {
		free(cg);
		return rc;
	}
	const char *path = task_cgroup_of(cg, "");
	rc = 0;
	if (path != NULL && sscanf(path, "/user.slice/user-%u.slice/%n", &u, &n) == 1 &&
	    n > 0) {
		int k = snprintf(want, sizeof(want),
				 "/user.slice/user-%u.slice/user@%u.service/", u, u);
		if (strncmp(path, want, (size_t)k - 1) == 0 &&
		    (path[k - 1] == '\0' || path[k - 1] == '/')) {
			bool in_unit = path[k - 1] == '/' &&
				       sdunit_unit_of(path + k, unit, len) == 0 &&
				       strspn(unit, UNIT_CHARS) == strlen(unit) &&
				       strcmp(unit, "init.scope") != 0;
			*owner = (uid_t)u;
			rc = in_unit ? 1 : 2;
		}
	}
	free(cg);
	return rc;
}

/* The properties the profile p's group settings become (p's destination
 * in its hierarchy, as its group section says); their count. */
static size_t
profile_props(const struct config *cfg, const struct boost_profile *p, struct sdprop *out)
{
	struct sdprop one[SDPROP_MAX];
	size_t n = 0;

	for (size_t i = 0; i < cfg->ngroups; i++) {
		const struct group_conf *g = &cfg->groups[i];

		if (strcmp(g->hier, p->hier) != 0 || strcmp(g->path, p->dest) != 0)
			continue;
		for (size_t k = 0; k < g->nset; k++) {
			char key[128];
			const char *eq = strchr(g->set[k], '=');
			int got;

			if (eq == NULL || (size_t)(eq - g->set[k]) >= sizeof(key))
				continue;
			snprintf(key, sizeof(key), "%.*s", (int)(eq - g->set[k]),
				 g->set[k]);
			if ((got = sdunit_props(key, eq + 1, one)) < 0) {
				log_debug(
					"foreground: %s: no unit property stands for it",
					g->set[k]);
				continue;
			}
			for (int j = 0; j < got && n < FGUNIT_PROPS_MAX; j++)
				out[n++] = one[j];
		}
	}
	return n;
}

/* ---- the grants ---------------------------------------------------------------------- */

/* The foreground is unit of owner's manager: its properties. */
static int
unit_grant(struct foreground *f, pid_t pid, int pidfd, uid_t uid, uid_t owner,
	   const char *unit, char *err, size_t len)
{
	const char *name = core_config(f->core)->foreground_profile;
	const struct boost_profile *p;
	struct sdprop props[FGUNIT_PROPS_MAX];
	struct task t;
	int rc;

	if ((rc = core_profile_grant(f->core, name, uid, &p, err, len)) < 0)
		return rc;
	if (core_read_task(f->core, pid, &t) < 0 ||
	    (uid != 0 && t.uid != uid && t.euid != uid)) {
		snprintf(err, len, "no process %d of yours", (int)pid);
		return -ESRCH;
	}
	size_t n = profile_props(core_config(f->core), p, props);
	if (f->units == NULL &&
	    (rc = fgunit_new(&f->units, f->address ? f->address : FGUNIT_ADDRESS,
			     f->address_is_bus)) < 0) {
		snprintf(err, len, "%s", strerror(-rc));
		return rc;
	}
	unsigned id = f->next + 1;
	int fd = pidfd >= 0 ? fcntl(pidfd, F_DUPFD_CLOEXEC, 3) : pidfd_open_pid(pid);
	if ((rc = fgunit_set(f->units, id, owner, unit, fd, props, n)) < 0) {
		snprintf(err, len, "cannot reach the service manager of uid %u: %s",
			 (unsigned)owner, strerror(-rc));
		return rc;
	}
	f->grant = f->next = id;
	log_info("foreground: pid %d of %s is the foreground (grant #%u): %zu propert%s "
		 "through the manager of uid %u",
		 (int)pid, unit, id, n, n == 1 ? "y" : "ies", (unsigned)owner);
	/* and the profile's priorities, on the process where it is */
	if ((rc = core_fgprio_start(f->core, pid, name)) < 0)
		log_warning("foreground: pid %d: no priorities: %s", (int)pid,
			    strerror(-rc));
	return 0;
}

/* The foreground is pid: a boost of the profile, as uid's. */
static int
boost_grant(struct foreground *f, double now, pid_t pid, uid_t uid, pid_t caller,
	    char *err, size_t len)
{
	const char *profile = core_config(f->core)->foreground_profile;
	struct verbs_request rq = {
		.core = f->core, .now = now, .uid = uid, .pid = caller, .json = true
	};
	char spid[16];
	char *argv[] = { "boost", "--profile", (char *)profile, spid };
	json_t *r;

	snprintf(spid, sizeof(spid), "%d", (int)pid);
	int rc = verbs_run(&rq, 4, argv, &r, err, len);
	if (rc < 0)
		return rc;
	f->boost = (unsigned)json_integer_value(json_object_get(r, "id"));
	json_decref(r);
	f->grant = ++f->next;
	return 0;
}

int
foreground_set(struct foreground *f, double now, pid_t pid, int pidfd, uid_t uid,
	       pid_t caller, unsigned *id, char *err, size_t len)
{
	char unit[SDUNIT_NAME_MAX];
	uid_t owner;
	int rc;

	if (core_config(f->core)->foreground_profile[0] == '\0') {
		snprintf(err, len, "no foreground-profile is configured");
		return -EINVAL;
	}
	foreground_end(f, 0, "the foreground changed");
	if ((rc = user_unit(f, pid, &owner, unit, sizeof(unit))) > 0 && uid != 0 &&
	    uid != owner) {
		/* never moved out of a user's units, whoever's */
		snprintf(err, len, "pid %d runs in the service manager of uid %u",
			 (int)pid, (unsigned)owner);
		return -EPERM;
	}
	if (rc == 2) {
		snprintf(err, len,
			 "pid %d is in none of the units of uid %u's service manager",
			 (int)pid, (unsigned)owner);
		return -EPERM;
	}
	if (rc > 0)
		rc = unit_grant(f, pid, pidfd, uid, owner, unit, err, len);
	else
		rc = boost_grant(f, now, pid, uid, caller, err, len);
	if (rc < 0)
		return rc;
	*id = f->grant;
	return 0;
}

void
foreground_end(struct foreground *f, unsigned id, const char *why)
{
	if (f->grant == 0 || (id != 0 && id != f->grant))
		return;
	if (f->boost != 0 && core_boost_find(f->core, f->boost) != NULL)
		(void)core_boost_end(f->core, f->boost, why);
	if (f->units != NULL && fgunit_grant(f->units) == f->grant)
		fgunit_end(f->units, why);
	core_fgprio_end(f->core, why); /* a unit's grant's priorities */
	f->boost = 0;
	f->grant = 0;
}

/* ---- the loop ---------------------------------------------------------------------- */

int
foreground_fd(const struct foreground *f)
{
	return f->units != NULL ? fgunit_fd(f->units) : -1;
}

uint64_t
foreground_deadline(const struct foreground *f)
{
	return f->units != NULL ? fgunit_deadline(f->units) : UINT64_MAX;
}

void
foreground_prepare(struct foreground *f)
{
	if (f->units != NULL)
		fgunit_prepare(f->units);
}

void
foreground_process(struct foreground *f)
{
	if (f->units == NULL)
		return;
	fgunit_process(f->units);
	/* a unit's grant ends by itself: its process exited, the unit is
	 * gone, its manager refused or went away */
	if (f->grant != 0 && f->boost == 0 && fgunit_grant(f->units) != f->grant) {
		log_info("foreground: grant #%u is over", f->grant);
		core_fgprio_end(f->core, "its grant is over");
		f->grant = 0;
	}
}

void
foreground_close(struct foreground *f, double seconds)
{
	if (f->units == NULL)
		return;
	/* bounded: the loop is over, a manager that does not answer is left */
	for (double end = mono_s() + seconds;
	     fgunit_pending(f->units) > 0 && mono_s() < end;) {
		struct pollfd p = { .fd = fgunit_fd(f->units), .events = POLLIN };

		fgunit_prepare(f->units);
		(void)poll(&p, 1, 50);
		fgunit_process(f->units);
	}
	fgunit_free(f->units);
	f->units = NULL;
}
