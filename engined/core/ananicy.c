/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy.c -- ananicy-cpp's rules in the core: read with the policy
 * (so a reload, whichever way it is asked, reads the directory again),
 * summed up for --check; with ananicy-cgroup-hierarchy its cgroups as
 * groups of that hierarchy (a CPUQuota written as group settings are,
 * when the group is made) and the processes its rules put there; with
 * ananicy-type-hierarchy its types as groups of a v2 hierarchy or
 * dimension (cpu.weight and io.weight from the type's nice and I/O
 * level) and each process of a type in its class.
 */
#include "core_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
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

/* One cgroup line as a group with settings (group_conf's strings point
 * into it). */
struct ananicy_group {
	struct group_conf conf;
	char path[RULES_DEST_MAX];
	char set[2][64];
	char *setv[2];
};

/* Does the v1 hierarchy h have the cpu controller? */
static bool
has_cpu(const struct hier *h)
{
	for (const char *s = h->name; *s; s += strcspn(s, ","), s += *s == ',')
		if (strcspn(s, ",") == 3 && strncmp(s, "cpu", 3) == 0)
			return true;
	return false;
}

/* The quota settings of cgroup line e as hierarchy k wants them: on v2
 * cpu.max, on a v1 hierarchy with cpu its CFS files, else none. */
static void
group_quota(struct policy *p, size_t k, const struct ananicy_entry *e, long ncpu,
	    struct ananicy_group *g)
{
	long long quota;
	long period;

	g->conf.set = g->setv;
	g->setv[0] = g->set[0];
	g->setv[1] = g->set[1];
	if (ananicy_cpu_quota(e->cpuquota, ncpu, &quota, &period) < 0)
		return; /* a cgroup line without CPUQuota: a group alone */
	if (p->virt[k] || p->managed[k]->version == HIER_V2) {
		snprintf(g->set[0], sizeof(g->set[0]), "cpu.max=%lld %ld", quota, period);
		g->conf.nset = 1;
	} else if (has_cpu(p->managed[k])) {
		snprintf(g->set[0], sizeof(g->set[0]), "cpu.cfs_period_us=%ld", period);
		snprintf(g->set[1], sizeof(g->set[1]), "cpu.cfs_quota_us=%lld", quota);
		g->conf.nset = 2;
	}
}

struct groups_fill {
	struct policy *p;
	long ncpu;
	size_t n, cap; /* groups filled, room in p->ananicy_groups */
};

static void
group_fill(void *arg, const struct ananicy_entry *e)
{
	struct groups_fill *f = arg;
	struct policy *p = f->p;
	struct ananicy_group *g = &p->ananicy_groups[f->n];

	if (f->n >= f->cap || strchr(e->key, '/') != NULL || strcmp(e->key, ".") == 0 ||
	    strcmp(e->key, "..") == 0 ||
	    (size_t)snprintf(g->path, sizeof(g->path), "/%s", e->key) >= sizeof(g->path))
		return; /* ananicy_cgroup_for() places nobody there either */
	g->conf.hier = p->cfg->ananicy_cgroup_hier;
	g->conf.path = g->path;
	group_quota(p, p->ananicy_hier, e, f->ncpu, g);
	/* after the group sections: the admin's settings for a path win */
	p->settings[p->nsettings].hier = p->ananicy_hier;
	p->settings[p->nsettings].conf = &g->conf;
	p->nsettings++;
	f->n++;
}

/* Room in p->settings for more entries after those there; 0 or -ENOMEM. */
static int
settings_room(struct policy *p, size_t more)
{
	void *s = realloc(p->settings, (p->nsettings + more + 1) * sizeof(*p->settings));

	if (s == NULL)
		return -ENOMEM;
	p->settings = s;
	return 0;
}

/* The index of the managed hierarchy or dimension that key's value spec
 * names; -1 after reporting. */
static int
key_index(const struct policy *p, const char *key, const char *spec, const struct report *rep)
{
	const struct hier *h = policy_find(p, spec);
	int k = h != NULL ? policy_index(p, h) : -1;

	if (k < 0)
		report_msg(rep, "%s: %s \"%s\": not a managed hierarchy or dimension",
			   p->cfg->file[0] ? p->cfg->file : "config", key, spec);
	return k;
}

/* ananicy-cgroup-hierarchy: each cgroup line a group of that hierarchy,
 * its settings beside the group sections'; 0 or -1 after reporting. */
static int
ananicy_groups(struct policy *p, const struct report *rep)
{
	const char *spec = p->cfg->ananicy_cgroup_hier;
	struct ananicy_counts n;
	int k;

	if (spec[0] == '\0')
		return 0;
	if ((k = key_index(p, "ananicy-cgroup-hierarchy", spec, rep)) < 0)
		return -1;
	const struct hier *h = p->managed[k];
	ananicy_counts(p->ananicy, &n);
	if (settings_room(p, n.cgroups) < 0 ||
	    (p->ananicy_groups = calloc(n.cgroups + 1, sizeof(*p->ananicy_groups))) == NULL) {
		report_msg(rep, "%s: out of memory", spec);
		return -1;
	}
	p->ananicy_place = true;
	p->ananicy_hier = (size_t)k;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct groups_fill f = { p, ncpu > 0 ? ncpu : 1, 0, n.cgroups };
	ananicy_each(p->ananicy, ANANICY_CGROUPS, group_fill, &f);
	if (p->virt[k])
		layout_want_controller(p, "cpu");
	else if (h->version != HIER_V2 && !has_cpu(h) && n.cgroups > 0)
		log_notice("ananicy-cgroup-hierarchy %s has no cpu controller: ananicy's "
			   "cgroups place processes there without their CPUQuota",
			   spec);
	return 0;
}

/* One setting "key=value" more of group g. */
static void
group_add_set(struct ananicy_group *g, const char *key, int value)
{
	size_t i = g->conf.nset;

	snprintf(g->set[i], sizeof(g->set[i]), "%s=%d", key, value);
	g->setv[i] = g->set[i];
	g->conf.nset++;
}

struct types_fill {
	struct policy *p;
	size_t n, cap; /* groups filled, room in p->type_groups */
};

/* A type line as a class: the group /TYPE with the weights of its plan. */
static void
type_fill(void *arg, const struct ananicy_entry *e)
{
	struct types_fill *f = arg;
	struct policy *p = f->p;
	struct ananicy_group *g = &p->type_groups[f->n];
	struct ananicy_class cls;

	if (f->n >= f->cap || !ananicy_class_name_ok(e->key) ||
	    (size_t)snprintf(g->path, sizeof(g->path), "/%s", e->key) >= sizeof(g->path))
		return; /* ananicy_class_for() places nobody there either */
	g->conf.hier = p->cfg->ananicy_type_hier;
	g->conf.path = g->path;
	g->conf.set = g->setv;
	ananicy_class_plan(&e->v, &cls);
	if (cls.cpu_weight > 0)
		group_add_set(g, "cpu.weight", cls.cpu_weight);
	if (cls.io_weight > 0)
		group_add_set(g, "io.weight", cls.io_weight);
	/* after the group sections: the admin's settings for a path win */
	p->settings[p->nsettings].hier = p->type_hier;
	p->settings[p->nsettings].conf = &g->conf;
	p->nsettings++;
	f->n++;
}

/* ananicy-type-hierarchy: each type a group of that v2 hierarchy or
 * dimension, weighted as its nice and I/O level say; 0 or -1 after
 * reporting. */
static int
ananicy_types(struct policy *p, const struct report *rep)
{
	const char *spec = p->cfg->ananicy_type_hier;
	const char *where = p->cfg->file[0] ? p->cfg->file : "config";
	struct ananicy_counts n;
	int k;

	if (spec[0] == '\0')
		return 0;
	if ((k = key_index(p, "ananicy-type-hierarchy", spec, rep)) < 0)
		return -1;
	if (!p->virt[k] && p->managed[k]->version != HIER_V2) {
		report_msg(rep, "%s: ananicy-type-hierarchy \"%s\": a cgroup v1 hierarchy; "
				"cpu.weight and io.weight need cgroup v2 (\"unified\" or a "
				"dimension of unified-layout)",
			   where, spec);
		return -1;
	}
	if (p->ananicy_place && p->ananicy_hier == (size_t)k) {
		report_msg(rep, "%s: ananicy-type-hierarchy \"%s\": ananicy-cgroup-hierarchy "
				"names it too; give each a hierarchy of its own",
			   where, spec);
		return -1;
	}
	ananicy_counts(p->ananicy, &n);
	if (settings_room(p, n.types) < 0 ||
	    (p->type_groups = calloc(n.types + 1, sizeof(*p->type_groups))) == NULL) {
		report_msg(rep, "%s: out of memory", spec);
		return -1;
	}
	p->type_place = true;
	p->type_hier = (size_t)k;
	struct types_fill f = { p, 0, n.types };
	ananicy_each(p->ananicy, ANANICY_TYPE, type_fill, &f);
	if (p->virt[k]) {
		layout_want_controller(p, "cpu");
		layout_want_controller(p, "io");
	}
	return 0;
}

int
ananicy_policy_load(struct policy *p, const struct report *rep)
{
	const char *dir = p->cfg->ananicy_dir;
	int rc;

	if (dir == NULL || dir[0] == '\0') {
		if (p->cfg->ananicy_cgroup_hier[0] != '\0')
			log_warning("ananicy-cgroup-hierarchy without ananicy-dir: unused");
		if (p->cfg->ananicy_type_hier[0] != '\0')
			log_warning("ananicy-type-hierarchy without ananicy-dir: unused");
		return 0;
	}
	if ((p->ananicy = ananicy_new()) == NULL) {
		report_msg(rep, "%s: out of memory", dir);
		return -1;
	}
	/* a file or directory that cannot be read is an error, not a line
	 * skipped: the reader said which as a warning, this fails the load */
	rc = ananicy_add_dir(p->ananicy, dir, ananicy_report, (void *)rep);
	if (rc < 0) {
		report_msg(rep, "%s: ananicy-dir: %s", p->cfg->file[0] ? p->cfg->file : "config",
			   strerror(-rc));
		return -1;
	}
	return ananicy_groups(p, rep) < 0 ? -1 : ananicy_types(p, rep);
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

/* Into verdict v: the cgroup ananicy's rule for name names, unless
 * something placed the process in that hierarchy already. */
static void
place_cgroup(const struct policy *p, const char *name, struct verdict *v)
{
	const struct ananicy_entry *rule;
	char dest[RULES_DEST_MAX];

	if (!ananicy_cgroup_for(p->ananicy, name, v->move, dest, sizeof(dest), &rule))
		return;
	v->move = true;
	v->rule = NULL; /* a group of ananicy's is made when missing */
	snprintf(v->dest, sizeof(v->dest), "%s", dest);
	snprintf(v->reason, sizeof(v->reason), "%s:%u", rule->file, rule->line);
}

/* Into verdict v: the class of the type of ananicy's rule for name, the
 * same way. */
static void
place_class(const struct policy *p, const char *name, struct verdict *v)
{
	const struct ananicy_entry *rule, *type;
	char dest[RULES_DEST_MAX];

	if (!ananicy_class_for(p->ananicy, name, v->move, dest, sizeof(dest), &rule, &type))
		return;
	v->move = true;
	v->rule = NULL;
	snprintf(v->dest, sizeof(v->dest), "%s", dest);
	snprintf(v->reason, sizeof(v->reason), "%s:%u, the class of type %s (%s:%u)",
		 rule->file, rule->line, type->key, type->file, type->line);
}

void
ananicy_place(const struct core *c, const struct task *t, struct decision *d)
{
	const struct policy *p = core_policy(c);
	char name[PATH_MAX];

	if ((!p->ananicy_place && !p->type_place) || p->ananicy == NULL || t->kthread)
		return;
	ananicy_name(t->argv0, t->exe, t->comm, name, sizeof(name));
	if (p->ananicy_place)
		place_cgroup(p, name, &d->verdicts[p->ananicy_hier]);
	if (p->type_place)
		place_class(p, name, &d->verdicts[p->type_hier]);
}
