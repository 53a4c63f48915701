/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fgprio.c -- the foreground's priorities in place (core.h,
 * docs/dbus.md): an app of a systemd desktop, which the daemon never
 * moves out of its user's units, gets the foreground-profile's
 * process = {...} where it is.  It is treated as a boost's member is
 * (priority.c): what it has of the profile's fields is kept when it
 * gets them, the profile's priorities come before those of its class
 * whenever it is decided again (an exec, a rescan) while it holds
 * them, and when they end it is decided again and the fields its class
 * does not name get the values kept.  Only its own threads: nothing is
 * moved, no child is followed (a child forked meanwhile has inherited
 * what its parent had then, as the kernel does).
 */
#include "core_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The one process holding the foreground's priorities. */
struct fgprio {
	struct procid id;   /* that process, not a later one of its pid */
	char *profile;	    /* the profile's name (owned): followed across reloads */
	struct prio before; /* what it had of the profile's fields */
};

static void
fgprio_drop(struct fgprio *f)
{
	if (f != NULL)
		free(f->profile);
	free(f);
}

/* Decide pid again and give it what it is decided (the foreground's
 * profile first while it holds it), moving nothing; then, if before is
 * not NULL, set back what before names and the class does not. */
static void
decide_again(struct core *c, pid_t pid, const struct prio *before)
{
	struct decision *d = decision_new(c->pol);

	if (d == NULL) {
		log_warning("out of memory: the priorities of pid %d are set at a rescan",
			    (int)pid);
		rescan_request(c, NULL);
		return;
	}
	classify_priorities(c, pid, d);
	if (before != NULL)
		priority_restore(c, before, pid, d);
	decision_free(d);
}

int
core_fgprio_start(struct core *c, pid_t pid, const char *name)
{
	const struct boost_profile *prof = boost_profile_of(c->pol->cfg, name);
	struct fgprio *f;

	core_fgprio_end(c, "another process is the foreground");
	if (prof == NULL)
		return -ENOENT;
	if (prof->prio.set == 0)
		return 0; /* nothing to give */
	if ((f = calloc(1, sizeof(*f))) == NULL || (f->profile = strdup(name)) == NULL) {
		free(f);
		return -ENOMEM;
	}
	if (task_procid(c->env.procroot, pid, &f->id) < 0) {
		fgprio_drop(f);
		return -ESRCH;
	}
	priority_keep(c, &prof->prio, pid, &f->before);
	c->fgprio = f;
	log_info("foreground: pid %d gets the priorities of boost profile '%s' in place",
		 (int)pid, name);
	decide_again(c, pid, NULL);
	return 0;
}

void
core_fgprio_end(struct core *c, const char *why)
{
	struct fgprio *f = c->fgprio;

	if (f == NULL)
		return;
	c->fgprio = NULL; /* decided again without them */
	if (task_alive(c->env.procroot, f->id)) {
		log_info("foreground: pid %d loses the priorities of boost profile '%s' "
			 "(%s)",
			 (int)f->id.pid, f->profile, why);
		decide_again(c, f->id.pid, &f->before);
	}
	fgprio_drop(f);
}

pid_t
core_fgprio_pid(const struct core *c)
{
	return c->fgprio != NULL ? c->fgprio->id.pid : 0;
}

void
fgprio_decide(struct core *c, struct decision *d)
{
	const struct fgprio *f = c->fgprio;
	const struct config *cfg = c->pol->cfg;

	if (f == NULL || f->id.pid != d->task.pid || !task_alive(c->env.procroot, f->id))
		return;
	const struct boost_profile *prof = boost_profile_of(cfg, f->profile);
	if (prof != NULL && prof->prio.set != 0)
		priority_want_add(&d->prio, &prof->prio, cfg->file, prof->prio_line);
}

void
fgprio_free(struct core *c)
{
	fgprio_drop(c->fgprio);
	c->fgprio = NULL;
}
