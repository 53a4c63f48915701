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
#include <unistd.h>

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
		const char *value = eq + 1;
		char k2[256], v2[256];
		if (h->version ==
		    HIER_V2) { /* v1 names mapped where they mean something */
			int mrc = layout_v2_setting(key, value, k2, sizeof(k2), v2,
						    sizeof(v2));
			if (mrc < 0) {
				log_warning(
					"setting %s=%s of group %s:%s %s in cgroup v2; "
					"not applied to %s",
					key, value, g->hier, g->path,
					mrc == -ENOTSUP ? "has no meaning" : "is invalid",
					path);
				continue;
			}
			snprintf(key, sizeof(key), "%s", k2);
			value = v2;
		}
		const char *hn = h->version == HIER_V2 ? "unified" : h->name;
		int rc = fs->set(fs->arg, h, path, key, value);
		if (rc < 0)
			log_warning("cannot set %s=%s on %s:%s: %s", key, value, hn, path,
				    strerror(-rc));
		else
			log_info("set %s=%s on %s:%s", key, value, hn, path);
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

/* ---- the unified layout: one composed v2 group per process ------------------------- */

/* Is controller tok (length n) in the space-separated list? */
static bool
in_list(const char *list, const char *tok, size_t n)
{
	for (const char *a = list; *a; a += strcspn(a, " "), a += *a == ' ')
		if (strcspn(a, " ") == n && strncmp(a, tok, n) == 0)
			return true;
	return false;
}

/* Enable the policy's controllers (those available, not yet enabled)
 * below v2 group path. */
static void
enable_below(struct core *c, const char *path)
{
	const struct policy *p = c->pol;
	const struct core_cgfs *fs = c->env.cgfs;
	char avail[512], on[512] = "", want[256] = "";
	size_t used = 0, n;

	if (fs->get == NULL || p->controllers[0] == '\0')
		return;
	int rc = fs->get(fs->arg, p->v2, path, "cgroup.controllers", avail, sizeof(avail));
	if (rc < 0) {
		log_warning("cannot read unified:%s/cgroup.controllers: %s", path,
			    strerror(-rc));
		return;
	}
	if (fs->get(fs->arg, p->v2, path, "cgroup.subtree_control", on, sizeof(on)) < 0)
		on[0] = '\0';
	for (const char *s = p->controllers; *s; s += n + (s[n] != '\0')) {
		n = strcspn(s, " ");
		if (!in_list(avail, s, n) || in_list(on, s, n))
			continue;
		used += (size_t)snprintf(want + used, sizeof(want) - used, "%s+%.*s",
					 used ? " " : "", (int)n, s);
		if (used >= sizeof(want))
			return;
	}
	if (want[0] == '\0')
		return;
	rc = fs->set(fs->arg, p->v2, path, "cgroup.subtree_control", want);
	if (rc < 0)
		log_warning("cannot enable %s below unified:%s: %s%s", want, path[0] ? path : "/",
			    strerror(-rc),
			    rc == -EBUSY ? " (processes in it: the kernel keeps inner groups "
					   "empty)"
					 : "");
	else
		log_info("enabled %s below unified:%s", want, path[0] ? path : "/");
}

/* Walking the composed tree: each inner group below a path. */
struct walk {
	struct core *c;
	const char *path;
	unsigned depth; /* of path below the root */
	bool enable;	/* true: enable top-down; false: disable bottom-up */
};

static void walk_inner(struct core *c, const char *path, unsigned depth, bool enable);

static int
walk_child(void *arg, const char *name)
{
	const struct walk *w = arg;
	char sub[RULES_DEST_MAX];

	if (name[0] == '.' || (w->depth == 0 && strcmp(name, LAYOUT_DAEMON_LEAF) == 0))
		return 0; /* the service manager's, or the daemon's leaf */
	if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", w->path, name) >= sizeof(sub))
		return 0;
	walk_inner(w->c, sub, w->depth + 1, w->enable);
	return 0;
}

/* Disable every controller enabled below v2 group path. */
static void
disable_below(struct core *c, const char *path)
{
	const struct core_cgfs *fs = c->env.cgfs;
	char on[512], off[600] = "";
	size_t used = 0, n;

	if (fs->get(fs->arg, c->pol->v2, path, "cgroup.subtree_control", on, sizeof(on)) < 0)
		return;
	for (const char *s = on; *s; s += n + (s[n] != '\0')) {
		n = strcspn(s, " ");
		used += (size_t)snprintf(off + used, sizeof(off) - used, "%s-%.*s",
					 used ? " " : "", (int)n, s);
		if (used >= sizeof(off))
			return;
	}
	int rc = off[0] ? fs->set(fs->arg, c->pol->v2, path, "cgroup.subtree_control", off)
			: 0;
	if (rc < 0)
		log_warning("cannot disable %s below unified:%s: %s", off, path, strerror(-rc));
}

/* Enable (top-down) or disable (bottom-up) the controllers of every
 * inner group at or below path, which is depth levels below the root. */
static void
walk_inner(struct core *c, const char *path, unsigned depth, bool enable)
{
	const struct core_cgfs *fs = c->env.cgfs;
	struct walk w = { c, path, depth, enable };

	if (depth >= layout_levels(c->pol))
		return; /* a leaf */
	if (enable)
		enable_below(c, path);
	if (fs->children != NULL)
		(void)fs->children(fs->arg, c->pol->v2, path, walk_child, &w);
	if (!enable)
		disable_below(c, path);
}

void
classify_release(struct core *c)
{
	const struct policy *p = c->pol;

	if (p->v2 == NULL || !p->uroot_own || c->dry_run || c->env.cgfs->get == NULL)
		return;
	walk_inner(c, p->uroot, 0, false);
	log_notice("controllers below unified:%s disabled for a restart; classified "
		   "processes keep running where they are",
		   p->uroot);
}

void
classify_prepare(struct core *c)
{
	const struct policy *p = c->pol;
	const struct core_cgfs *fs = c->env.cgfs;
	char leaf[RULES_DEST_MAX];
	bool created;

	c->root_ready = false;
	if (p->v2 == NULL || c->dry_run)
		return;
	if (p->uroot_own) { /* keep the daemon out of the inner group it manages */
		snprintf(leaf, sizeof(leaf), "%s/%s", p->uroot, LAYOUT_DAEMON_LEAF);
		int rc = fs->mkdir(fs->arg, p->v2, leaf, &created);
		if (rc == 0)
			rc = fs->move(fs->arg, p->v2, leaf, getpid());
		if (rc < 0)
			log_warning("cannot move the daemon into unified:%s: %s", leaf,
				    strerror(-rc));
		else
			log_info("the daemon runs in unified:%s", leaf);
	}
	if (!p->uroot_own) { /* a root of the admin's choice: made if missing */
		int rc = fs->mkdir(fs->arg, p->v2, p->uroot, &created);
		if (rc < 0)
			log_warning("cannot create unified:%s: %s", p->uroot, strerror(-rc));
		else if (created)
			log_info("created group unified:%s", p->uroot);
	}
	walk_inner(c, p->uroot, 0, true); /* the root, and what a former run made */
	c->root_ready = true;
}

/* The dimension's rule template, cut to the depth of dimpath; NULL if
 * the verdict did not come from a templated rule. */
static const char *
template_prefix(const struct verdict *v, const char *dimpath, char *buf, size_t len)
{
	unsigned want = 0, have = 0;
	const char *s;

	if (v->rule == NULL || !v->rule->templated)
		return NULL;
	for (s = dimpath; *s; s++)
		want += *s == '/';
	for (s = v->rule->dest; *s; s++)
		if (*s == '/' && ++have > want)
			break;
	snprintf(buf, len, "%.*s", (int)(s - v->rule->dest), v->rule->dest);
	return buf;
}

/* Is level k of composed group path (or a level above it) made from a
 * template: removed once empty? */
static bool
level_templated(struct core *c, const char *path, unsigned k)
{
	char dimpath[RULES_DEST_MAX], tmpl[RULES_DEST_MAX];
	int i = layout_level(c->pol, path, k, dimpath, sizeof(dimpath));

	if (i < 0 || !c->verdicts[i].move)
		return false;
	const char *t = template_prefix(&c->verdicts[i], dimpath, tmpl, sizeof(tmpl));
	return t != NULL && strchr(t, '%') != NULL;
}

/* Level k of the composed group was made: controllers below it (an
 * inner level), its settings, removal once empty (made). */
static void
level_made(struct core *c, const char *path, unsigned k, unsigned levels, bool made)
{
	const struct policy *p = c->pol;
	char dimpath[RULES_DEST_MAX], tmpl[RULES_DEST_MAX];
	int i = layout_level(p, path, k, dimpath, sizeof(dimpath));

	c->stats.groups_created++;
	log_info("created group unified:%s", path);
	if (k < levels)
		enable_below(c, path);
	if (i < 0)
		return;
	const struct verdict *v = &c->verdicts[i];
	const char *t = v->move ? template_prefix(v, dimpath, tmpl, sizeof(tmpl)) : NULL;
	const struct group_conf *g = policy_settings(p, (size_t)i, dimpath);
	if (g == NULL && t != NULL)
		g = policy_settings(p, (size_t)i, t); /* settings for the template */
	apply_settings(c, p->v2, path, g);
	if (made && p->cfg->remove_empty)
		classify_made(c, p->v2, path);
}

/* Make the composed group, level by level; 0 or -errno. */
static int
create_composed(struct core *c)
{
	const struct policy *p = c->pol;
	const struct core_cgfs *fs = c->env.cgfs;
	unsigned levels = layout_levels(p);
	char path[RULES_DEST_MAX];
	const char *s = c->composed + strlen(p->uroot);
	bool made = false;

	if (!c->root_ready)
		classify_prepare(c);
	for (unsigned k = 1; k <= levels && *s == '/'; k++) {
		bool created;

		s += 1 + strcspn(s + 1, "/");
		snprintf(path, sizeof(path), "%.*s", (int)(s - c->composed), c->composed);
		made = made || level_templated(c, path, k);
		int rc = fs->mkdir(fs->arg, p->v2, path, &created);
		if (rc < 0)
			return rc;
		if (created)
			level_made(c, path, k, levels, made);
	}
	return 0;
}

/* Why each virtual dimension is what it is: "cpu cgrules.conf:3, net_cls no rule". */
static void
composed_reason(const struct core *c, char *buf, size_t len)
{
	const struct policy *p = c->pol;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < p->nlayout && used < len; k++) {
		const struct verdict *v = &c->verdicts[p->layout[k]];

		used += (size_t)snprintf(buf + used, len - used, "%s%s %s", k ? ", " : "",
					 p->names[p->layout[k]],
					 v->move ? v->reason : "left alone");
	}
}

static void
move_composed(struct core *c, const struct task *t)
{
	const struct policy *p = c->pol;
	const struct core_cgfs *fs = c->env.cgfs;
	char why[1024];
	int rc;

	composed_reason(c, why, sizeof(why));
	if (c->dry_run) {
		log_info("would move pid %d (%s) to unified:%s (%s)", (int)t->pid,
			 t->comm, c->composed, why);
		return;
	}
	rc = fs->move(fs->arg, p->v2, c->composed, t->pid);
	if (rc == -ENOENT && (rc = create_composed(c)) == 0)
		rc = fs->move(fs->arg, p->v2, c->composed, t->pid);
	if (rc == 0) {
		c->stats.moves++;
		log_info("moved pid %d (%s) to unified:%s (%s)", (int)t->pid, t->comm,
			 c->composed, why);
	} else if (rc == -ESRCH) {
		c->stats.vanished++;
	} else {
		c->stats.move_failures++;
		log_warning(
			"cannot move pid %d (%s) to unified:%s: %s (%s%s/cgroup.procs)",
			(int)t->pid, t->comm, c->composed, strerror(-rc), p->v2->mount,
			c->composed);
	}
}

/* Compose the verdicts of the virtual dimensions into c->composed. */
static void
compose(struct core *c, pid_t pid)
{
	const struct policy *p = c->pol;
	const char *want[RULES_MAX_HIERS] = { 0 };
	size_t bad;
	int rc;

	c->composed[0] = '\0';
	if (p->v2 == NULL || (pid == getpid() && p->uroot_own))
		return; /* the daemon stays in its leaf */
	for (size_t k = 0; k < p->nlayout; k++) {
		size_t i = p->layout[k];

		want[i] = c->verdicts[i].move ? c->verdicts[i].dest : NULL;
	}
	while ((rc = layout_compose(p, want, c->parts, c->composed, sizeof(c->composed),
				    &bad)) == -EMLINK) {
		struct verdict *v = &c->verdicts[bad];
		size_t n = strlen(v->reason);

		log_warning(
			"pid %d: %s:%s is deeper than the unified layout's %u level%s "
			"for %s; %s left alone",
			(int)c->snap.pid, p->names[bad], v->dest, p->depth[bad],
			p->depth[bad] == 1 ? "" : "s", p->names[bad], p->names[bad]);
		snprintf(v->reason + n, sizeof(v->reason) - n,
			 " (too deep for the layout)");
		v->move = false;
		want[bad] = NULL;
	}
	if (rc != 0)
		c->composed[0] = '\0';
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

		if (h == NULL && c->pol->v2 != NULL &&
		    strcmp(g->hier, c->pol->v2->name) == 0)
			h = c->pol->v2; /* a composed group */
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
			log_info("removed empty group %s:%s",
				 g->hier[0] ? g->hier : "unified", g->path);
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
	const struct policy *pol;
	const char *const *parts; /* current parts of the virtual dimensions */
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

	/* a virtual dimension: the part of the process's composed group */
	for (size_t i = 0; v->parts != NULL && i < v->pol->n; i++)
		if (v->pol->virt[i] && strcmp(v->pol->names[i], hier) == 0)
			return v->parts[i];
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
	c->composed[0] = '\0';
	if (p->v2 != NULL)
		layout_split(p, task_cgroup_of(cg, p->v2->name), c->partbuf,
			     sizeof(c->partbuf), c->parts);
	if (sticky) {
		all_sticky(c);
		return DECIDE_STICKY;
	}
	for (size_t i = 0; i < p->n; i++)
		current[i] = p->virt[i] ? c->parts[i] : task_cgroup_of(cg, p->names[i]);
	struct hook_view view = {
		.pol = p, .parts = c->parts, .procroot = c->env.procroot, .t = t, .cg = cg
	};
	decide_rules(c, t, current, &view);
	if (flags & PROC_BOOSTED)
		apply_boosts(c, pid);
	compose(c, pid);
	return DECIDE_OK;
}

void
classify_whatif(struct core *c, const struct task *t, const char *cmd, size_t cmdlen)
{
	static const struct task_cgroups none;
	const char *current[RULES_MAX_HIERS] = { 0 };
	struct hook_view view = { .pol = c->pol,
				  .parts = c->parts,
				  .procroot = c->env.procroot,
				  .t = t,
				  .cg = &none,
				  .cmd = cmd,
				  .cmdlen = cmdlen };

	for (size_t i = 0; i < RULES_MAX_HIERS; i++)
		c->parts[i] = NULL;
	decide_rules(c, t, current, &view);
	compose(c, t->pid);
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

		if (!v->move || c->dropped[i] || c->pol->virt[i])
			continue;
		if (now != NULL && strcmp(now, v->dest) == 0) {
			log_debug("pid %d (%s) already in %s:%s", (int)pid, c->snap.comm,
				  c->pol->names[i], v->dest);
			continue;
		}
		move(c, i, &c->snap, v);
	}
	if (c->composed[0] != '\0') {
		const char *now = task_cgroup_of(&c->snap_cg, c->pol->v2->name);

		if (now != NULL && strcmp(now, c->composed) == 0)
			log_debug("pid %d (%s) already in unified:%s", (int)pid,
				  c->snap.comm, c->composed);
		else
			move_composed(c, &c->snap);
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
