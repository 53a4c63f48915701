/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy.c -- ananicy-cpp's rules in the core: read with the policy
 * (so a reload, whichever way it is asked, reads the directory again),
 * summed up for --check.
 */
#include "core_private.h"

#include <stdio.h>
#include <limits.h>
#include <string.h>

/* Malformed lines are skipped, not fatal: they go out as warnings. */
static void
ananicy_report(void *arg, enum rules_severity sev, const char *msg)
{
	const struct report *rep = arg;

	(void)sev;
	if (rep != NULL && rep->warn != NULL)
		rep->warn(rep->arg, msg);
	else
		log_warning("%s", msg);
}

int
ananicy_policy_load(struct policy *p, const struct report *rep)
{
	const char *dir = p->cfg->ananicy_dir;
	int rc;

	if (dir == NULL || dir[0] == '\0')
		return 0;
	if ((p->ananicy = ananicy_new()) == NULL) {
		report_msg(rep, "%s: out of memory", dir);
		return -1;
	}
	/* a file or directory that cannot be read is an error, not a line
	 * skipped: the reader said which as a warning, this fails the load */
	rc = ananicy_add_dir(p->ananicy, dir, ananicy_report, (void *)rep);
	if (rc < 0)
		report_msg(rep, "%s: ananicy-dir: %s", p->cfg->file[0] ? p->cfg->file : "config",
			   strerror(-rc));
	return rc < 0 ? -1 : 0;
}

void
ananicy_policy_summary(const struct policy *p, char *buf, size_t len)
{
	struct ananicy_counts n;

	buf[0] = '\0';
	if (p->ananicy == NULL)
		return;
	ananicy_counts(p->ananicy, &n);
	snprintf(buf, len, "; %s: %zu ananicy rules, %zu types, %zu cgroups, %zu lines skipped",
		 p->cfg->ananicy_dir, n.rules, n.types, n.cgroups, n.malformed);
}

_Static_assert(ANANICY_NICE == PRIO_NICE && ANANICY_IOCLASS == PRIO_IOCLASS &&
		       ANANICY_IONICE == PRIO_IONICE && ANANICY_SCHED == PRIO_SCHED &&
		       ANANICY_RTPRIO == PRIO_RTPRIO && ANANICY_OOM == PRIO_OOM &&
		       ANANICY_LATENCY == PRIO_LATENCY,
	       "ananicy's field bits are struct prio's");

bool
ananicy_want(const struct policy *p, const struct task *t, struct prio *out,
	     const struct ananicy_entry **rule)
{
	char name[PATH_MAX];
	struct ananicy_values v;

	out->set = 0;
	*rule = NULL;
	if (p->ananicy == NULL || t->kthread)
		return false;
	ananicy_name(t->argv0, t->exe, t->comm, name, sizeof(name));
	if (!ananicy_resolve(p->ananicy, name, &v, rule))
		return false;
	*out = (struct prio){ .set = v.set & PRIO_ALL,
			      .nice = v.nice,
			      .ioclass = v.ioclass,
			      .ionice = v.ionice,
			      .sched = v.sched,
			      .rtprio = v.rtprio,
			      .oom_score_adj = v.oom_score_adj,
			      .latency_nice = v.latency_nice };
	return true;
}

void
ananicy_decide(const struct core *c, const struct task *t, struct decision *d)
{
	const struct ananicy_entry *rule;
	struct prio want;

	if (ananicy_want(core_policy(c), t, &want, &rule))
		priority_want_add(&d->prio, &want, rule->file, rule->line);
}
