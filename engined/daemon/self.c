/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * self.c -- the daemon's own process: the priority it runs at (nice,
 * and the opt-in real-time priority) and the heap it gives back.
 */
#include "daemon.h"

#include <errno.h>
#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif
#include <sched.h>
#include <string.h>
#include <sys/resource.h>

/*
 * Opt-in real-time scheduling (realtime-priority): SCHED_RR, reset on
 * fork, so the Lua helper and anything else the daemon starts run as
 * ordinary tasks.  Back to normal scheduling when it is 0 again.
 */
static void
realtime(const struct config *cfg)
{
	int now = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
	struct sched_param sp = { .sched_priority = cfg->rt_priority };

	if (cfg->rt_priority == 0 && now != SCHED_RR && now != SCHED_FIFO)
		return;
	if (cfg->rt_priority > 0 &&
	    sched_setscheduler(0, SCHED_RR | SCHED_RESET_ON_FORK, &sp) < 0) {
		log_warning("cannot run at real-time priority %d: %s (nice %d instead)",
			    cfg->rt_priority, strerror(errno), cfg->nice);
		return;
	}
	if (cfg->rt_priority == 0 && sched_setscheduler(0, SCHED_OTHER, &sp) < 0) {
		log_warning("cannot leave real-time scheduling: %s", strerror(errno));
		return;
	}
	if (cfg->rt_priority > 0)
		log_notice("running at real-time priority %d (SCHED_RR)", cfg->rt_priority);
	else
		log_notice("real-time scheduling off");
}

void
self_priority(const struct config *cfg)
{
	realtime(cfg);
	errno = 0;
	int now = getpriority(PRIO_PROCESS, 0);
	if (errno == 0 && now == cfg->nice)
		return;
	if (setpriority(PRIO_PROCESS, 0, cfg->nice) < 0)
		log_warning("cannot set nice %d: %s (it stays %d)", cfg->nice,
			    strerror(errno), now);
	else
		log_info("running at nice %d", cfg->nice);
}

void
self_trim(void)
{
#ifdef HAVE_MALLOC_TRIM
	malloc_trim(0);
#endif
}
