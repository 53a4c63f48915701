/*
 * classify.c -- the classification pipeline for one process:
 *
 *   snapshot (kernel/) → rules_match (rules/) → Lua hook (lua/)
 *     → boosts → verdicts → cgfs_move (kernel/), creating groups
 *
 * classify_decide() only decides (so "cgenginectl explain" sees exactly
 * what the daemon would do); classify() decides and acts.
 */
#include "core_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLEANUP_INTERVAL 2.0 /* how often empty template groups are looked for */

/* ---- acting ------------------------------------------------------------------ */

static void
apply_settings(struct core *c, const struct hier *h, const char *path,
	       const struct group_conf *g)
{
	const struct core_cgfs *fs = c->env.cgfs;

	for (size_t i = 0; g != NULL && i < g->nset; i++) {
		char key[256];
		const char *eq = strchr(g->set[i], '=');
		size_t klen = (size_t)(eq - g->set[i]);

		if (klen >= sizeof(key))
			continue;
		memcpy(key, g->set[i], klen);
		key[klen] = '\0';
		int rc = fs->set(fs->arg, h, path, key, eq + 1);
		if (rc < 0)
			log_warning("cannot set %s=%s on %s:%s: %s", key, eq + 1, h->name,
				    path, strerror(-rc));
		else
			log_info("set %s=%s on %s:%s", key, eq + 1, h->name, path);
	}
}

/* Create group path in managed hierarchy i, with its settings. */
static int
create_group(struct core *c, size_t i, const char *path, const struct rules_rule *rule)
{
	const struct policy *p = c->pol;
	const struct hier *h = p->managed[i];
	const struct core_cgfs *fs = c->env.cgfs;
	bool created;
	int rc = fs->mkdir(fs->arg, h, path, &created);

	if (rc < 0 || !created)
		return rc;
	c->stats.groups_created++;
	log_info("created group %s:%s", h->name, path);
	const struct group_conf *g = policy_settings(p, i, path);
	if (g == NULL && rule != NULL && rule->templated)
		g = policy_settings(p, i, rule->dest); /* settings for the template */
	apply_settings(c, h, path, g);
	if (rule != NULL && rule->templated && p->cfg->remove_empty)
		classify_made(c, h, path);
	return 0;
}

static void
move(struct core *c, size_t i, const struct task *t, const struct verdict *v)
{
	const struct hier *h = c->pol->managed[i];
	const struct core_cgfs *fs = c->env.cgfs;

	if (c->dry_run) {
		log_info("would move pid %d (%s) to %s:%s (%s)", (int)t->pid, t->comm,
			 hier_label(h), v->dest, v->reason);
		return;
	}
	int rc = fs->move(fs->arg, h, v->dest, t->pid);
	/* first-match rules create only templated groups, as libcgroup */
	bool may_create = v->rule == NULL || c->dec[i].create;
	if (rc == -ENOENT && may_create && (rc = create_group(c, i, v->dest, v->rule)) == 0)
		rc = fs->move(fs->arg, h, v->dest, t->pid);
	if (rc == 0) {
		c->stats.moves++;
		log_info("moved pid %d (%s) to %s:%s (%s)", (int)t->pid, t->comm,
			 hier_label(h), v->dest, v->reason);
	} else if (rc == -ESRCH) {
		c->stats.vanished++;
	} else if (rc == -ESTALE) {
		c->stats.move_failures++;
		c->dropped[i] = true;
		log_error("hierarchy %s is no longer mounted at %s: it is left alone from now "
			  "on (mount it again and reload)",
			  hier_label(h), h->mount);
	} else {
		c->stats.move_failures++;
		if ((rc == -EMFILE || rc == -ENFILE) && c->rescan_at == 0)
			c->rescan_at = c->now + 1.0; /* try again when descriptors are back */
		log_warning("cannot move pid %d (%s) to %s:%s: %s (%s%s/cgroup.procs)",
			    (int)t->pid, t->comm, h->name, v->dest, strerror(-rc),
			    h->mount, v->dest);
	}
}

/* ---- groups made from templates ------------------------------------------------------- */

static void
made_free(struct made_group *g)
{
	free(g->hier);
	free(g->path);
	free(g);
}

void
classify_made(struct core *c, const struct hier *h, const char *path)
{
	struct made_group *g;

	LIST_FOREACH(g, &c->made, link)
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
	LIST_INSERT_HEAD(&c->made, g, link);
	if (c->cleanup_at == 0)
		c->cleanup_at = c->now + CLEANUP_INTERVAL;
}

/* Remove the template groups that are empty now. */
void
classify_cleanup(struct core *c)
{
	const struct core_cgfs *fs = c->env.cgfs;
	struct made_group *g, *next;

	for (g = LIST_FIRST(&c->made); g != NULL; g = next) {
		next = LIST_NEXT(g, link);
		const struct hier *h = policy_managed(c->pol, g->hier);
		int rc = -ENOENT;

		if (h != NULL) {
			if (!fs->is_empty(fs->arg, h, g->path))
				continue;
			fs->flush(fs->arg); /* no open file inside it */
			rc = fs->rmdir(fs->arg, h, g->path);
		}
		if (rc == -EBUSY)
			continue; /* has sub-groups, or a task just arrived */
		if (rc == 0) {
			c->stats.groups_removed++;
			log_info("removed empty group %s:%s", g->hier, g->path);
		}
		LIST_REMOVE(g, link);
		made_free(g);
	}
	c->cleanup_at = LIST_EMPTY(&c->made) ? 0 : c->now + CLEANUP_INTERVAL;
}

void
classify_forget_made(struct core *c)
{
	struct made_group *g;

	while ((g = LIST_FIRST(&c->made)) != NULL) {
		LIST_REMOVE(g, link);
		made_free(g);
	}
}

/* ---- deciding ------------------------------------------------------------------ */

/* Callbacks through which the Lua hook reads a task. */
struct hook_view {
	const char *procroot;
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
		return task_read_cmdline(v->procroot, v->t->pid, buf, len);
	size_t n = v->cmdlen < len ? v->cmdlen : len;
	memcpy(buf, v->cmd, n);
	return (int)n;
}

static const char *
hook_cgroup(void *arg, const char *hier)
{
	const struct hook_view *v = arg;

	/* the v2 tree is "unified" to people, "" in /proc/PID/cgroup */
	return task_cgroup_of(v->cg, strcmp(hier, "unified") == 0 ? "" : hier);
}

/* Let the Lua hook revise the verdicts. */
static void
run_hook(struct core *c, const struct task *t, const struct hook_view *view)
{
	struct policy *p = c->pol;
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
		const struct verdict *v = &c->verdicts[i];
		struct hooks_slot *s = &c->slots[i];

		s->hier = p->labels[i]; /* "unified" for the v2 tree, as everywhere */
		s->set = v->move;
		snprintf(s->dest, sizeof(s->dest), "%s", v->move ? v->dest : "");
		s->why = v->rule != NULL ? v->reason : NULL;
	}
	c->stats.hook_calls++;
	if (hooks_classify(p->hooks, &ht, c->slots, p->n) < 0) {
		c->stats.hook_errors++;
		return; /* the rules' decision stands */
	}
	for (size_t i = 0; i < p->n; i++) {
		struct verdict *v = &c->verdicts[i];
		const struct hooks_slot *s = &c->slots[i];

		if (!s->changed)
			continue;
		c->stats.hook_changes++;
		v->move = s->set;
		v->rule = NULL;
		snprintf(v->dest, sizeof(v->dest), "%s", s->dest);
		snprintf(v->reason, sizeof(v->reason), "Lua hook %s", p->cfg->lua_script);
	}
}

/* Verdicts from the rules' decisions. */
static void
from_rules(struct core *c)
{
	for (size_t i = 0; i < c->pol->n; i++) {
		const struct rules_decision *d = &c->dec[i];
		struct verdict *v = &c->verdicts[i];

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
apply_boosts(struct core *c, pid_t pid)
{
	for (size_t i = 0; i < c->pol->n; i++) {
		const struct boost *b = boost_of(c, pid, c->pol->names[i]);
		struct verdict *v = &c->verdicts[i];

		if (b == NULL)
			continue;
		v->move = true;
		v->rule = NULL;
		snprintf(v->dest, sizeof(v->dest), "%s", b->dest);
		snprintf(v->reason, sizeof(v->reason), "boost #%u", b->id);
	}
}

static void
all_sticky(struct core *c)
{
	for (size_t i = 0; i < c->pol->n; i++) {
		struct verdict *v = &c->verdicts[i];

		v->move = false;
		v->rule = NULL;
		v->dest[0] = '\0';
		snprintf(v->reason, sizeof(v->reason), "sticky");
	}
}

/* Rules, then the Lua hook, for a snapshot. */
static void
decide_rules(struct core *c, const struct task *t, const char *const *current,
	     const struct hook_view *view)
{
	struct policy *p = c->pol;
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
	rules_match(p->rules, &rt, c->dec);
	from_rules(c);
	if (hooks_has_classify(p->hooks))
		run_hook(c, t, view);
}

/*
 * A process that exists but cannot be read (no descriptor left, no
 * memory): say so -- at most once a second, with a count of the others
 * -- and rescan soon, so it is not left unclassified.
 */
static void
cannot_read(struct core *c, pid_t pid, int rc)
{
	static double last = -1e9;
	static unsigned long quiet;

	if (c->rescan_at == 0)
		c->rescan_at = c->now + 1.0;
	if (c->now - last < 1.0) {
		quiet++;
		return;
	}
	log_warning("cannot read %s/%d: %s; rescanning soon (%lu more not reported)",
		    c->env.procroot, (int)pid, strerror(-rc), quiet);
	last = c->now;
	quiet = 0;
}

static bool
owns(uid_t asker, const struct task *t)
{
	return asker == 0 || t->uid == asker || t->euid == asker;
}

enum decide_result
classify_decide(struct core *c, pid_t pid, uid_t asker)
{
	struct policy *p = c->pol;
	struct task *t = &c->snap;
	struct task_cgroups *cg = &c->snap_cg;
	const char *current[RULES_MAX_HIERS] = { 0 };
	unsigned what = 0;
	const struct proc *known = proc_known(c, pid);
	unsigned flags = known != NULL ? known->flags : 0;
	bool sticky = flags & PROC_STICKY;

	if (!sticky && (rules_need_process(p->rules) || hooks_has_classify(p->hooks)))
		what |= TASK_EXE | TASK_SCRIPT;
	if (!sticky && rules_need_realtime(p->rules))
		what |= TASK_RT;
	int rc = task_read(c->env.procroot, pid, what, t);
	if (rc < 0) {
		if (rc != -ESRCH)
			cannot_read(c, pid, rc);
		return DECIDE_GONE;
	}
	if (t->kthread)
		return DECIDE_KTHREAD;
	if (!owns(asker, t))
		return DECIDE_DENIED; /* nothing run, nothing counted */
	if (task_read_cgroups(c->env.procroot, pid, cg) < 0)
		return DECIDE_GONE;
	if (sticky) {
		all_sticky(c);
		return DECIDE_STICKY;
	}
	for (size_t i = 0; i < p->n; i++)
		current[i] = task_cgroup_of(cg, p->names[i]);
	struct hook_view view = { .procroot = c->env.procroot, .t = t, .cg = cg };
	decide_rules(c, t, current, &view);
	if (flags & PROC_BOOSTED)
		apply_boosts(c, pid);
	return DECIDE_OK;
}

void
classify_whatif(struct core *c, const struct task *t, const char *cmd, size_t cmdlen)
{
	static const struct task_cgroups none;
	const char *current[RULES_MAX_HIERS] = { 0 };
	struct hook_view view = { .procroot = c->env.procroot,
				  .t = t,
				  .cg = &none,
				  .cmd = cmd,
				  .cmdlen = cmdlen };

	decide_rules(c, t, current, &view);
}

void
classify(struct core *c, pid_t pid)
{
	if (c->paused)
		return;
	switch (classify_decide(c, pid, 0)) {
	case DECIDE_GONE:
		c->stats.vanished++;
		return;
	case DECIDE_KTHREAD:
	case DECIDE_STICKY:
	case DECIDE_DENIED:
		return;
	case DECIDE_OK:
		break;
	}
	c->stats.classified++;
	for (size_t i = 0; i < c->pol->n; i++) {
		const struct verdict *v = &c->verdicts[i];
		const char *now = task_cgroup_of(&c->snap_cg, c->pol->names[i]);

		if (!v->move || c->dropped[i])
			continue;
		if (now != NULL && strcmp(now, v->dest) == 0) {
			log_debug("pid %d (%s) already in %s:%s", (int)pid, c->snap.comm,
				  c->pol->names[i], v->dest);
			continue;
		}
		move(c, i, &c->snap, v);
	}
}

/* ---- the core's entry points for requests ---------------------------------------- */

enum decide_result
core_explain(struct core *c, pid_t pid, uid_t asker)
{
	return classify_decide(c, pid, asker);
}

const struct task *
core_snapshot(const struct core *c)
{
	return &c->snap;
}

const struct task_cgroups *
core_snapshot_cgroups(const struct core *c)
{
	return &c->snap_cg;
}

void
core_whatif(struct core *c, const struct task *t, const char *cmd, size_t cmdlen)
{
	classify_whatif(c, t, cmd, cmdlen);
}
