/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proc.c -- the core's queries of the process table (proctab.c): is an
 * entry still its process (a pid the kernel reused, or a process whose
 * exit was not seen, is forgotten with its boost memberships) and
 * and setting flags; the table's watch.
 */
#include "core_private.h"

struct proc *
proc_known(struct core *c, pid_t pid)
{
	struct proc *p = proctab_get(c->procs, pid);

	if (p == NULL || task_alive(c->env.procroot, p->id))
		return p;
	struct procid gone = p->id;
	boost_exit(c, gone); /* it exited unseen; the pid may be reused */
	proctab_forget(c->procs, pid);
	return NULL;
}

void
proc_set_flags(struct core *c, struct procid id, unsigned flags)
{
	if (proctab_set(c->procs, id, flags) < 0)
		log_warning("out of memory: pid %d not tracked", (int)id.pid);
}

void
proc_changed(void *arg, unsigned was, unsigned now)
{
	struct core *c = arg;

	wants_changed(c);
	if (((was | now) & PROC_STICKY) && c->boosts != NULL)
		boost_sticky_changed(c, false);
}
