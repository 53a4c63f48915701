/*
 * classify.c -- the classification pipeline for one process:
 *
 *   snapshot (kernel/) → rules_match (rules/) → Lua hook (lua/)
 *     → boosts → verdicts → cgfs_move (kernel/), creating groups
 *
 * classify_decide() only decides (so "cgenginectl explain" sees exactly
 * what the daemon would do); classify() decides and acts.
 */
#include "engined.h"
#include "engined_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct hier *
managed_by_name(const struct policy *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->names[i], name) == 0)
			return p->managed[i];
	return NULL;
}

void
made_free(struct made_group *g)
{
	free(g->hier);
	free(g->path);
	free(g);
}

/* ---- acting ------------------------------------------------------------------ */

static void
remember_made(struct engine *e, const struct hier *h, const char *path)
{
	struct made_group *g;

	LIST_FOREACH(g, &e->made, link)
	if (strcmp(g->hier, h->name) == 0 && strcmp(g->path, path) == 0)
		return;
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return;
	g->hier = strdup(h->name);
	g->path = strdup(path);
	if (g->hier == NULL || g->path == NULL) {
		made_free(g);
		return;
	}
	LIST_INSERT_HEAD(&e->made, g, link);
	if (!ev_is_active(&e->cleanup_timer))
		ev_timer_again(e->loop, &e->cleanup_timer);
}

static void
apply_settings(const struct hier *h, const char *path, const struct group_conf *g)
{
	for (size_t i = 0; g != NULL && i < g->nset; i++) {
		char key[256];
		const char *eq = strchr(g->set[i], '=');
		size_t klen = (size_t)(eq - g->set[i]);

		if (klen >= sizeof(key))
			continue;
		memcpy(key, g->set[i], klen);
		key[klen] = '\0';
		int rc = cgfs_set(h, path, key, eq + 1);
		if (rc < 0)
			log_warning("cannot set %s=%s on %s:%s: %s", key, eq + 1, h->name,
				    path, strerror(-rc));
		else
			log_info("set %s=%s on %s:%s", key, eq + 1, h->name, path);
	}
}

/* Create group path in managed hierarchy i, with its settings. */
static int
create_group(struct engine *e, size_t i, const char *path, const struct rules_rule *rule)
{
	const struct policy *p = e->pol;
	const struct hier *h = p->managed[i];
	bool created;
	int rc = cgfs_mkdir(h, path, &created);

	if (rc < 0 || !created)
		return rc;
	e->stats.groups_created++;
	log_info("created group %s:%s", h->name, path);
	const struct group_conf *g = policy_settings(p, i, path);
	if (g == NULL && rule != NULL && rule->templated)
		g = policy_settings(p, i, rule->dest); /* settings for the template */
	apply_settings(h, path, g);
	if (rule != NULL && rule->templated && p->cfg->remove_empty)
		remember_made(e, h, path);
	return 0;
}

static void
move(struct engine *e, size_t i, const struct task *t, const struct verdict *v)
{
	const struct hier *h = e->pol->managed[i];

	if (e->opts.dry_run) {
		log_info("would move pid %d (%s) to %s:%s (%s)", (int)t->pid, t->comm,
			 hier_label(h), v->dest, v->reason);
		return;
	}
	int rc = cgfs_move_cached(e->fds, h, v->dest, t->pid);
	/* first-match rules create only templated groups, as libcgroup */
	bool may_create = v->rule == NULL || e->dec[i].create;
	if (rc == -ENOENT && may_create &&
	    (rc = create_group(e, i, v->dest, v->rule)) == 0)
		rc = cgfs_move_cached(e->fds, h, v->dest, t->pid);
	if (rc == 0) {
		e->stats.moves++;
		log_info("moved pid %d (%s) to %s:%s (%s)", (int)t->pid, t->comm,
			 hier_label(h), v->dest, v->reason);
	} else if (rc == -ESRCH) {
		e->stats.vanished++;
	} else {
		e->stats.move_failures++;
		log_warning("cannot move pid %d (%s) to %s:%s: %s (%s%s/cgroup.procs)",
			    (int)t->pid, t->comm, h->name, v->dest, strerror(-rc),
			    h->mount, v->dest);
	}
}

/* ---- deciding ------------------------------------------------------------------ */

bool
classify_known(struct engine *e, pid_t pid)
{
	uint64_t start;

	if (tasktab_flags(e->tasks, pid) == 0)
		return false;
	if (task_start_time("/proc", pid, &start) == 0 &&
	    start == tasktab_start(e->tasks, pid))
		return true;
	boost_exit(e, pid); /* it exited unseen; the pid was reused */
	tasktab_forget(e->tasks, pid);
	return false;
}

/* Callbacks through which the Lua hook reads a task. */
struct hook_view {
	const struct task *t;
	const struct task_cgroups *cg;
	const char *cmd; /* what-if: the command line given, NUL-separated */
	size_t cmdlen;
};

static int
hook_cmdline(void *arg, char *buf, size_t len)
{
	const struct hook_view *v = arg;

	if (v->cmd == NULL)
		return task_read_cmdline("/proc", v->t->pid, buf, len);
	size_t n = v->cmdlen < len ? v->cmdlen : len;
	memcpy(buf, v->cmd, n);
	return (int)n;
}

static const char *
hook_cgroup(void *arg, const char *hier)
{
	const struct hook_view *v = arg;

	return task_cgroup_of(v->cg, hier);
}

/* Let the Lua hook revise the verdicts. */
static void
run_hook(struct engine *e, const struct task *t, const struct hook_view *view)
{
	struct policy *p = e->pol;
	struct hooks_task ht = {
		.pid = t->pid,
		.ppid = t->ppid,
		.uid = t->uid,
		.euid = t->euid,
		.gid = t->gid,
		.egid = t->egid,
		.groups = t->groups,
		.ngroups = t->ngroups,
		.comm = t->comm,
		.exe = t->exe,
		.cmdline = hook_cmdline,
		.cgroup = hook_cgroup,
		.arg = (void *)view,
	};

	for (size_t i = 0; i < p->n; i++) {
		const struct verdict *v = &e->verdicts[i];
		struct hooks_slot *s = &e->slots[i];

		s->hier = p->names[i];
		s->set = v->move;
		snprintf(s->dest, sizeof(s->dest), "%s", v->move ? v->dest : "");
		s->why = v->rule != NULL ? v->reason : NULL;
	}
	e->stats.hook_calls++;
	if (hooks_classify(p->hooks, &ht, e->slots, p->n) < 0) {
		e->stats.hook_errors++;
		return; /* the rules' decision stands */
	}
	for (size_t i = 0; i < p->n; i++) {
		struct verdict *v = &e->verdicts[i];
		const struct hooks_slot *s = &e->slots[i];

		if (!s->changed)
			continue;
		e->stats.hook_changes++;
		v->move = s->set;
		v->rule = NULL;
		snprintf(v->dest, sizeof(v->dest), "%s", s->dest);
		snprintf(v->reason, sizeof(v->reason), "Lua hook %s", p->cfg->lua_script);
	}
}

static void decide_rules(struct engine *e, const struct task *t,
			 const char *const *current, const struct hook_view *view);

/* Verdicts from the rules' decisions. */
static void
from_rules(struct engine *e)
{
	for (size_t i = 0; i < e->pol->n; i++) {
		const struct rules_decision *d = &e->dec[i];
		struct verdict *v = &e->verdicts[i];

		v->move = d->move;
		v->rule = d->rule;
		snprintf(v->dest, sizeof(v->dest), "%s", d->move ? d->dest : "");
		if (d->rule != NULL)
			snprintf(v->reason, sizeof(v->reason), "%s:%u", d->rule->file,
				 d->rule->line);
		else
			snprintf(v->reason, sizeof(v->reason), "no rule");
	}
}

/* Boosts override everything else on their hierarchy. */
static void
apply_boosts(struct engine *e, pid_t pid)
{
	for (size_t i = 0; i < e->pol->n; i++) {
		const struct boost *b = boost_of(e, pid, e->pol->names[i]);
		struct verdict *v = &e->verdicts[i];

		if (b == NULL)
			continue;
		v->move = true;
		v->rule = NULL;
		snprintf(v->dest, sizeof(v->dest), "%s", b->dest);
		snprintf(v->reason, sizeof(v->reason), "boost #%u", b->id);
	}
}

static void
all_sticky(struct engine *e)
{
	for (size_t i = 0; i < e->pol->n; i++) {
		struct verdict *v = &e->verdicts[i];

		v->move = false;
		v->rule = NULL;
		v->dest[0] = '\0';
		snprintf(v->reason, sizeof(v->reason), "sticky");
	}
}

enum decide_result
classify_decide(struct engine *e, pid_t pid, struct task *t, struct task_cgroups *cg)
{
	struct policy *p = e->pol;
	const char *current[RULES_MAX_HIERS] = { 0 };
	unsigned what = 0;
	bool known = classify_known(e, pid);

	if (known && (tasktab_flags(e->tasks, pid) & TASK_STICKY)) {
		all_sticky(e);
		return task_read("/proc", pid, 0, t) < 0 ||
				       task_read_cgroups("/proc", pid, cg) < 0
			       ? DECIDE_GONE
			       : DECIDE_STICKY;
	}
	if (rules_need_process(p->rules) || hooks_has_classify(p->hooks))
		what |= TASK_EXE | TASK_SCRIPT;
	if (rules_need_realtime(p->rules))
		what |= TASK_RT;
	int rc = task_read("/proc", pid, what, t);
	if (rc < 0) {
		if (rc != -ESRCH)
			log_debug("cannot read /proc/%d: %s", (int)pid, strerror(-rc));
		return DECIDE_GONE;
	}
	if (t->kthread)
		return DECIDE_KTHREAD;
	if (task_read_cgroups("/proc", pid, cg) < 0)
		return DECIDE_GONE;
	for (size_t i = 0; i < p->n; i++)
		current[i] = task_cgroup_of(cg, p->names[i]);
	struct hook_view view = { .t = t, .cg = cg };
	decide_rules(e, t, current, &view);
	if (known)
		apply_boosts(e, pid);
	return DECIDE_OK;
}

/* Rules, then the Lua hook, for a snapshot. */
static void
decide_rules(struct engine *e, const struct task *t, const char *const *current,
	     const struct hook_view *view)
{
	struct policy *p = e->pol;
	struct rules_task rt = {
		.pid = t->pid,
		.uid = t->uid,
		.euid = t->euid,
		.gid = t->gid,
		.egid = t->egid,
		.groups = t->groups,
		.ngroups = t->ngroups,
		.exe = t->exe[0] ? t->exe : NULL,
		.comm = t->comm,
		.script = t->script[0] ? t->script : NULL,
		.invoked = t->invoked[0] ? t->invoked : NULL,
		.cgroups = current,
		.realtime = t->realtime,
	};
	if (p->need_names) {
		rt.user = policy_user(p, t->euid);
		rt.group = policy_group(p, t->egid);
	}
	rules_match(p->rules, &rt, e->dec);
	from_rules(e);
	if (hooks_has_classify(p->hooks))
		run_hook(e, t, view);
}

void
classify_whatif(struct engine *e, const struct task *t, const char *cmd, size_t cmdlen)
{
	static const struct task_cgroups none;
	const char *current[RULES_MAX_HIERS] = { 0 };
	struct hook_view view = { .t = t, .cg = &none, .cmd = cmd, .cmdlen = cmdlen };

	decide_rules(e, t, current, &view);
}

void
classify(struct engine *e, pid_t pid)
{
	static struct task t;	       /* 8 KiB: kept off the stack */
	static struct task_cgroups cg; /* 40 KiB: likewise */

	if (e->paused)
		return;
	switch (classify_decide(e, pid, &t, &cg)) {
	case DECIDE_GONE:
		e->stats.vanished++;
		return;
	case DECIDE_KTHREAD:
	case DECIDE_STICKY:
		return;
	case DECIDE_OK:
		break;
	}
	e->stats.classified++;
	for (size_t i = 0; i < e->pol->n; i++) {
		const struct verdict *v = &e->verdicts[i];
		const char *now = task_cgroup_of(&cg, e->pol->names[i]);

		if (!v->move)
			continue;
		if (now != NULL && strcmp(now, v->dest) == 0) {
			log_debug("pid %d (%s) already in %s:%s", (int)pid, t.comm,
				  e->pol->names[i], v->dest);
			continue;
		}
		move(e, i, &t, v);
	}
}
