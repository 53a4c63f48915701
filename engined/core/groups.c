/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * groups.c -- acting on cgroupfs for the core: moving a process into
 * the group of a verdict (creating it, with its settings), the groups
 * made from templates and their removal once empty, and the unified
 * layout's tree (the composed group of a process, made level by level
 * with controllers enabled on inner levels; the daemon's own leaf;
 * handing the tree back on exit); a backend that makes a group later
 * or loses one by itself (systemd) says so, for the nft sets.
 * Everything goes through the injected cgroupfs operations (struct
 * backend).
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
	const struct backend *fs = c->env.cgfs;

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
		const char *hn = hier_label(h);
		int rc = backend_set(fs, h, path, key, value);
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
	const struct backend *fs = c->env.cgfs;
	bool created;
	int rc = backend_mkdir(fs, h, path, &created);

	if (rc < 0 || !created)
		return rc;
	c->stats.groups_created++;
	log_info("created group %s:%s", hier_label(h), path);
	const struct group_conf *g = policy_settings(p, i, path);
	if (g == NULL && rule != NULL && rule->templated)
		g = policy_settings(p, i, rule->dest); /* settings for the template */
	apply_settings(c, h, path, g);
	nftsets_made(c, h, path);
	if (rule != NULL && rule->templated && p->cfg->remove_empty)
		groups_made(c, h, path);
	return 0;
}

/* Move pid into group path of h: while the exec gate holds an exec
 * (at_gate), through the backend's move_now (one that never waits on
 * PID 1). */
static int
move(struct core *c, bool at_gate, const struct hier *h, const char *path, pid_t pid)
{
	const struct backend *fs = c->env.cgfs;

	if (at_gate) /* the gate opens only with a move_now */
		return fs->gate.move_now != NULL ? backend_move_now(fs, h, path, pid) : -EAGAIN;
	return backend_move(fs, h, path, pid);
}

/* Is rc, a move's outcome, a move made or failed now (not queued, not a
 * process gone, not one the gate lets happen after the exec)? */
static bool
counted_move(int rc, const struct decision *d)
{
	return rc == 0 || (rc < 0 && rc != -ESRCH && !(rc == -EAGAIN && d->at_gate));
}

void
groups_move(struct core *c, size_t i, const struct decision *d)
{
	const struct hier *h = c->pol->managed[i];
	const struct task *t = &d->task;
	const struct verdict *v = &d->verdicts[i];

	if (c->dry_run) {
		log_info("would move pid %d (%s) to %s:%s (%s)", (int)t->pid, t->comm,
			 hier_label(h), v->dest, v->reason);
		return;
	}
	int rc = move(c, d->at_gate, h, v->dest, t->pid);
	/* first-match rules create only templated groups, as libcgroup */
	bool may_create = v->rule == NULL || d->rules[i].create;
	if (rc == -ENOENT && may_create && (rc = create_group(c, i, v->dest, v->rule)) == 0)
		rc = move(c, d->at_gate, h, v->dest, t->pid);
	if (rc == BACKEND_MOVE_QUEUED) { /* counted when the backend reports back (core_move_done) */
		log_info("moving pid %d (%s) to %s:%s (%s)", (int)t->pid, t->comm,
			 hier_label(h), v->dest, v->reason);
	} else if (rc == 0) {
		c->stats.moves++;
		log_info("moved pid %d (%s) to %s:%s (%s)", (int)t->pid, t->comm,
			 hier_label(h), v->dest, v->reason);
	} else if (rc == -ESRCH) {
		c->stats.vanished++;
	} else if (rc == -EAGAIN && d->at_gate) {
		c->stats.gate_late++;
		log_debug("pid %d (%s): %s:%s is placed after its exec", (int)t->pid,
			  t->comm, hier_label(h), v->dest);
	} else if (rc == -ESTALE) {
		c->stats.move_failures++;
		c->dropped[i] = true;
		log_error("hierarchy %s is no longer mounted at %s: it is left alone from now "
			  "on (mount it again and reload)",
			  hier_label(h), h->mount);
	} else {
		c->stats.move_failures++;
		if (rc == -EMFILE || rc == -ENFILE)
			rescan_soon(c, 1.0); /* try again when descriptors are back */
		log_warning("cannot move pid %d (%s) to %s:%s: %s (%s%s/cgroup.procs)",
			    (int)t->pid, t->comm, hier_label(h), v->dest, strerror(-rc),
			    h->mount, v->dest);
	}
	if (counted_move(rc, d))
		fleet_count_move(c, hier_label(h), rc == 0);
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
 * below v2 group path; whether it enabled one (its children's files for
 * it are new then, holding the kernel's defaults). */
static bool
enable_below(struct core *c, const char *path)
{
	const struct policy *p = c->pol;
	const struct backend *fs = c->env.cgfs;
	char avail[512], on[512] = "", want[256] = "";
	size_t used = 0, n;

	if (fs->look.get == NULL || p->controllers[0] == '\0')
		return false;
	int rc = backend_get(fs, p->v2, path, "cgroup.controllers", avail, sizeof(avail));
	if (rc < 0) {
		log_warning("cannot read unified:%s/cgroup.controllers: %s", path,
			    strerror(-rc));
		return false;
	}
	if (backend_get(fs, p->v2, path, "cgroup.subtree_control", on, sizeof(on)) < 0)
		on[0] = '\0';
	for (const char *s = p->controllers; *s; s += n + (s[n] != '\0')) {
		n = strcspn(s, " ");
		if (!in_list(avail, s, n) || in_list(on, s, n))
			continue;
		used += (size_t)snprintf(want + used, sizeof(want) - used, "%s+%.*s",
					 used ? " " : "", (int)n, s);
		if (used >= sizeof(want))
			return false;
	}
	if (want[0] == '\0')
		return false;
	rc = backend_set(fs, p->v2, path, "cgroup.subtree_control", want);
	if (rc < 0)
		log_warning("cannot enable %s below unified:%s: %s%s", want, path[0] ? path : "/",
			    strerror(-rc),
			    rc == -EBUSY ? " (processes in it: the kernel keeps inner groups "
					   "empty)"
					 : "");
	else
		log_info("enabled %s below unified:%s", want, path[0] ? path : "/");
	return rc == 0;
}

/* Walking the composed tree: each inner group below a path. */
struct walk {
	struct core *c;
	const char *path;
	unsigned depth; /* of path below the root */
	bool enable;	/* true: enable top-down; false: disable bottom-up */
	bool fresh;	/* enabling: controllers were enabled below path just now */
};

static void walk_inner(struct core *c, const char *path, unsigned depth, bool enable);
static int level_settings(struct core *c, const struct verdict *vs, const char *path,
			  unsigned k);

static int
walk_child(void *arg, const char *name)
{
	const struct walk *w = arg;
	char sub[RULES_DEST_MAX];

	if (name[0] == '.' || (w->depth == 0 && strcmp(name, LAYOUT_DAEMON_LEAF) == 0))
		return 0; /* the service manager's, or the daemon's leaf */
	if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", w->path, name) >= sizeof(sub))
		return 0;
	/* a former run's group: disabling the controllers at its stop took
	 * their files, enabled again just now they hold the kernel's
	 * defaults.  Where they stayed on (a reload, a service manager's
	 * slices) the files are left as they are: an administrator's
	 * change wins. */
	if (w->enable && w->fresh)
		(void)level_settings(w->c, NULL, sub, w->depth + 1);
	walk_inner(w->c, sub, w->depth + 1, w->enable);
	return 0;
}

/* Disable every controller enabled below v2 group path. */
static void
disable_below(struct core *c, const char *path)
{
	const struct backend *fs = c->env.cgfs;
	char on[512], off[600] = "";
	size_t used = 0, n;

	if (backend_get(fs, c->pol->v2, path, "cgroup.subtree_control", on, sizeof(on)) < 0)
		return;
	for (const char *s = on; *s; s += n + (s[n] != '\0')) {
		n = strcspn(s, " ");
		used += (size_t)snprintf(off + used, sizeof(off) - used, "%s-%.*s",
					 used ? " " : "", (int)n, s);
		if (used >= sizeof(off))
			return;
	}
	int rc = off[0] ? backend_set(fs, c->pol->v2, path, "cgroup.subtree_control", off)
			: 0;
	if (rc < 0)
		log_warning("cannot disable %s below unified:%s: %s", off, path, strerror(-rc));
}

/* Enable (top-down) or disable (bottom-up) the controllers of every
 * inner group at or below path, which is depth levels below the root. */
static void
walk_inner(struct core *c, const char *path, unsigned depth, bool enable)
{
	const struct backend *fs = c->env.cgfs;
	struct walk w = { c, path, depth, enable, false };

	if (depth >= layout_levels(c->pol))
		return; /* a leaf */
	if (enable)
		w.fresh = enable_below(c, path);
	if (fs->look.children != NULL)
		(void)backend_children(fs, c->pol->v2, path, walk_child, &w);
	if (!enable)
		disable_below(c, path);
}

void
groups_release(struct core *c)
{
	const struct policy *p = c->pol;

	if (p->v2 == NULL || !p->uroot_own || c->dry_run || c->env.cgfs->look.get == NULL)
		return;
	walk_inner(c, p->uroot, 0, false);
	log_notice("controllers below unified:%s disabled for a restart; classified "
		   "processes keep running where they are",
		   p->uroot);
}

void
groups_prepare(struct core *c)
{
	const struct policy *p = c->pol;
	const struct backend *fs = c->env.cgfs;
	char leaf[RULES_DEST_MAX];
	bool created;

	c->root_ready = false;
	if (p->v2 == NULL || c->dry_run)
		return;
	if (p->uroot_own) { /* keep the daemon out of the inner group it manages */
		snprintf(leaf, sizeof(leaf), "%s/%s", p->uroot, LAYOUT_DAEMON_LEAF);
		int rc = backend_mkdir(fs, p->v2, leaf, &created);
		if (rc == 0)
			rc = backend_move(fs, p->v2, leaf, getpid());
		/* and our Lua helper, started before: it must not stay in
		 * the inner group either */
		pid_t helper = p->hooks != NULL ? hooks_helper_pid(p->hooks) : -1;
		int hrc = rc == 0 && helper > 0 ? backend_move(fs, p->v2, leaf, helper) : 0;
		if (rc < 0)
			log_warning("cannot move the daemon into unified:%s: %s", leaf,
				    strerror(-rc));
		else
			log_info("the daemon runs in unified:%s", leaf);
		if (hrc < 0 && hrc != -ESRCH)
			log_warning("cannot move the Lua helper into unified:%s: %s", leaf,
				    strerror(-hrc));
	}
	if (!p->uroot_own) { /* a root of the admin's choice: made if missing */
		int rc = backend_mkdir(fs, p->v2, p->uroot, &created);
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
 * template of verdicts vs (NULL: no verdict): removed once empty? */
static bool
level_templated(struct core *c, const struct verdict *vs, const char *path, unsigned k)
{
	char dimpath[RULES_DEST_MAX], tmpl[RULES_DEST_MAX];
	int i = layout_level(c->pol, path, k, dimpath, sizeof(dimpath));

	if (i < 0 || vs == NULL || !vs[i].move)
		return false;
	const char *t = template_prefix(&vs[i], dimpath, tmpl, sizeof(tmpl));
	return t != NULL && strchr(t, '%') != NULL;
}

/* Write the settings of level k of the composed group path, as its
 * dimension's group section (or, for a level its verdict in vs made
 * from a template, the template's) says; vs NULL: no verdict, so a
 * templated level gets only a section naming its own path.  The
 * level's dimension, or -1 when the level is none of the layout's. */
static int
level_settings(struct core *c, const struct verdict *vs, const char *path, unsigned k)
{
	const struct policy *p = c->pol;
	char dimpath[RULES_DEST_MAX], tmpl[RULES_DEST_MAX];
	int i = layout_level(p, path, k, dimpath, sizeof(dimpath));

	if (i < 0)
		return -1;
	const struct verdict *v = vs != NULL ? &vs[i] : NULL;
	const char *t = v != NULL && v->move ? template_prefix(v, dimpath, tmpl, sizeof(tmpl))
					     : NULL;
	const struct group_conf *g = policy_settings(p, (size_t)i, dimpath);
	if (g == NULL && t != NULL)
		g = policy_settings(p, (size_t)i, t); /* settings for the template */
	apply_settings(c, p->v2, path, g);
	return i;
}

/* Level k of the composed group was made: controllers below it (an
 * inner level), its settings, removal once empty (made). */
static void
level_made(struct core *c, const struct verdict *vs, const char *path, unsigned k,
	   unsigned levels, bool made)
{
	const struct policy *p = c->pol;

	c->stats.groups_created++;
	log_info("created group unified:%s", path);
	if (k < levels)
		(void)enable_below(c, path);
	if (level_settings(c, vs, path, k) < 0)
		return;
	nftsets_made(c, p->v2, path);
	if (made && p->cfg->remove_empty)
		groups_made(c, p->v2, path);
}

/* Make the composed group, level by level, as verdicts vs (NULL: none,
 * no level made from a template) compose it; 0 or -errno. */
static int
create_composed(struct core *c, const char *composed, const struct verdict *vs)
{
	const struct policy *p = c->pol;
	const struct backend *fs = c->env.cgfs;
	unsigned levels = layout_levels(p);
	char path[RULES_DEST_MAX];
	const char *s = composed + strlen(p->uroot);
	bool made = false;

	if (!c->root_ready)
		groups_prepare(c);
	for (unsigned k = 1; k <= levels && *s == '/'; k++) {
		bool created;

		s += 1 + strcspn(s + 1, "/");
		snprintf(path, sizeof(path), "%.*s", (int)(s - composed), composed);
		made = made || level_templated(c, vs, path, k);
		int rc = backend_mkdir(fs, p->v2, path, &created);
		if (rc < 0)
			return rc;
		if (created)
			level_made(c, vs, path, k, levels, made);
	}
	return 0;
}

/* Why each virtual dimension is what it is: "cpu cgrules.conf:3, net_cls no rule". */
static void
composed_reason(const struct core *c, const struct verdict *vs, char *buf, size_t len)
{
	const struct policy *p = c->pol;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < p->nlayout && used < len; k++) {
		const struct verdict *v = &vs[p->layout[k]];

		used += (size_t)snprintf(buf + used, len - used, "%s%s %s", k ? ", " : "",
					 p->names[p->layout[k]],
					 v->move ? v->reason : "left alone");
	}
}

void
groups_move_composed(struct core *c, const struct decision *d)
{
	const struct policy *p = c->pol;
	const struct task *t = &d->task;
	char why[1024];
	int rc;

	composed_reason(c, d->verdicts, why, sizeof(why));
	if (c->dry_run) {
		log_info("would move pid %d (%s) to unified:%s (%s)", (int)t->pid,
			 t->comm, d->composed, why);
		return;
	}
	rc = move(c, d->at_gate, p->v2, d->composed, t->pid);
	if (rc == -ENOENT && (rc = create_composed(c, d->composed, d->verdicts)) == 0)
		rc = move(c, d->at_gate, p->v2, d->composed, t->pid);
	if (rc == BACKEND_MOVE_QUEUED) { /* counted when the backend reports back (core_move_done) */
		log_info("moving pid %d (%s) to unified:%s (%s)", (int)t->pid, t->comm,
			 d->composed, why);
	} else if (rc == 0) {
		c->stats.moves++;
		log_info("moved pid %d (%s) to unified:%s (%s%s)", (int)t->pid, t->comm,
			 d->composed, why, d->at_gate ? ", at the exec gate" : "");
	} else if (rc == -ESRCH) {
		c->stats.vanished++;
	} else if (rc == -ENOBUFS) { /* the backend's queue is full: it asks for a
					rescan once it drains (core_moves_lost) */
		c->stats.move_failures++;
		log_debug("pid %d (%s): the backend is busy; unified:%s at a rescan",
			  (int)t->pid, t->comm, d->composed);
	} else if (rc == -EAGAIN && d->at_gate) {
		gate_unready(c, d); /* counted late; its group kept ready from now on */
		log_debug("pid %d (%s): unified:%s is not ready for the gate; placed after "
			  "its exec",
			  (int)t->pid, t->comm, d->composed);
	} else {
		c->stats.move_failures++;
		log_warning(
			"cannot move pid %d (%s) to unified:%s: %s (%s%s/cgroup.procs)",
			(int)t->pid, t->comm, d->composed, strerror(-rc), p->v2->mount,
			d->composed);
	}
	if (counted_move(rc, d))
		fleet_count_move(c, "unified", rc == 0);
}

void
groups_keep(struct core *c, pid_t pid, const char *path)
{
	const struct policy *p = c->pol;
	const struct backend *fs = c->env.cgfs;
	int rc;

	rc = backend_move(fs, p->v2, path, pid);
	/* no verdict: no template level made */
	if (rc == -ENOENT && (rc = create_composed(c, path, NULL)) == 0)
		rc = backend_move(fs, p->v2, path, pid);
	if (rc < 0)
		log_warning("exec gate: cannot place the keeper of unified:%s (pid %d): %s",
			    path, (int)pid, strerror(-rc));
	else
		log_info("exec gate: pid %d keeps unified:%s ready for the gate", (int)pid,
			 path);
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
groups_made(struct core *c, const struct hier *h, const char *path)
{
	struct made_group *g;

	LIST_FOREACH(g, &c->made.list, link)
	if (strcmp(g->hier, h->name) == 0 && strcmp(g->path, path) == 0)
		return;
	groups_adopt(c, h, path);
}

void
groups_adopt(struct core *c, const struct hier *h, const char *path)
{
	struct made_group *g;

	if ((g = calloc(1, sizeof(*g))) == NULL)
		return;
	g->hier = strdup(h->name);
	g->path = strdup(path);
	if (g->hier == NULL || g->path == NULL) {
		made_free(g);
		return;
	}
	LIST_INSERT_HEAD(&c->made.list, g, link);
	if (c->made.cleanup_at == 0)
		c->made.cleanup_at = c->now + CLEANUP_INTERVAL;
}

void
groups_cleanup(struct core *c)
{
	const struct backend *fs = c->env.cgfs;
	struct made_group *g, *next;

	for (g = LIST_FIRST(&c->made.list); g != NULL; g = next) {
		next = LIST_NEXT(g, link);
		const struct hier *h = policy_managed(c->pol, g->hier);
		int rc = -ENOENT;

		if (h == NULL && c->pol->v2 != NULL &&
		    strcmp(g->hier, c->pol->v2->name) == 0)
			h = c->pol->v2; /* a composed group */
		if (h != NULL) {
			if (!backend_is_empty(fs, h, g->path))
				continue;
			backend_flush(fs); /* no open file inside it */
			rc = backend_rmdir(fs, h, g->path);
		}
		if (rc == -EBUSY)
			continue; /* has sub-groups, or a task just arrived */
		if (rc == 0) {
			c->stats.groups_removed++;
			nftsets_removed(c, h, g->path);
			log_info("removed empty group %s:%s",
				 g->hier[0] ? g->hier : "unified", g->path);
		}
		LIST_REMOVE(g, link);
		made_free(g);
	}
	c->made.cleanup_at = LIST_EMPTY(&c->made.list) ? 0 : c->now + CLEANUP_INTERVAL;
}

double
groups_deadline(const struct core *c, double now)
{
	(void)now;
	return c->made.cleanup_at;
}

void
groups_timeout(struct core *c, double now)
{
	if (c->made.cleanup_at > 0 && now >= c->made.cleanup_at)
		groups_cleanup(c);
}

void
groups_forget_made(struct core *c)
{
	struct made_group *g;

	while ((g = LIST_FIRST(&c->made.list)) != NULL) {
		LIST_REMOVE(g, link);
		made_free(g);
	}
}

/* ---- groups a backend makes or loses later ------------------------------------------- */

void
core_group_made(struct core *c, const char *path)
{
	if (c->pol != NULL && c->pol->v2 != NULL)
		nftsets_made(c, c->pol->v2, path);
}

/*
 * The unit standing for group path went away by itself (systemd
 * collected a scope whose last process exited): its id leaves the nft
 * sets now, not at the next sync.  Unless the group is there (made
 * again meanwhile, or it outlived its unit): then it is as made, and
 * a new id replaces the old one.
 */
void
core_group_removed(struct core *c, const char *path)
{
	const struct backend *fs = c->env.cgfs;
	const struct hier *h = c->pol != NULL ? c->pol->v2 : NULL;
	uint64_t id;

	if (h == NULL)
		return;
	if (fs->ids.id != NULL && backend_id(fs, h, path, &id) == 0)
		nftsets_made(c, h, path);
	else
		nftsets_removed(c, h, path);
}
