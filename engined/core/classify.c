/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * classify.c -- the classification pipeline for one process:
 *
 *   snapshot (kernel/) → rules_match (rules/) → Lua hook (lua/)
 *     → boosts → verdicts (composed for a unified layout) → moves
 *     (groups.c)
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

/* ---- deciding ------------------------------------------------------------------ */

/* Callbacks through which the Lua hook reads a task. */
struct hook_view {
	struct core *c;
	const struct policy *pol;
	const char *const *parts; /* current parts of the virtual dimensions */
	const struct task *t;
	const struct task_cgroups *cg;
	const char *cmd; /* what-if: the command line given, NUL-separated */
	size_t cmdlen;
	bool ask;    /* a request (explain, test), not a classification */
	uid_t asker; /* who asked */
};

/*
 * The task's command line, or the checks of the files it names, did not
 * end in time (kernel/cmdline.c: its owner can make them block): it is
 * classified as if it had none.
 * Said at most once a second, with a count of the others.
 */
static void
cmdline_timedout(struct core *c, const struct task *t)
{
	static struct log_limit limit = LOG_LIMIT_INIT(1);
	unsigned long held;
	char uid[32] = "";

	if (!log_limit_pass(&limit, c->now, &held))
		return;
	if (t->uid != (uid_t)-1)
		snprintf(uid, sizeof(uid), " (uid %u)", (unsigned)t->uid);
	log_warning("pid %d%s classified without its command line: reading it or checking "
		    "the files it names is stuck or too slow (%lu more not reported)",
		    (int)t->pid, uid, held);
}

static int
hook_cmdline(void *arg, char *buf, size_t len)
{
	const struct hook_view *v = arg;
	int n;

	if (v->cmd == NULL && v->t->cmdline_timedout)
		return -ETIMEDOUT; /* given up on for the snapshot: not again */
	if (v->cmd == NULL) {
		if ((n = task_read_cmdline(v->c->env.procroot, v->t->pid, v->t->uid, buf,
					   len)) == -ETIMEDOUT)
			cmdline_timedout(v->c, v->t);
		return n;
	}
	size_t given = v->cmdlen < len ? v->cmdlen : len;
	memcpy(buf, v->cmd, given);
	return (int)given;
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

/* Append " (note)" to the reason of every verdict. */
static void
note_reasons(struct decision *d, const char *note)
{
	for (size_t i = 0; i < d->n; i++) {
		struct verdict *v = &d->verdicts[i];
		size_t n = strlen(v->reason);

		snprintf(v->reason + n, sizeof(v->reason) - n, " (%s)", note);
	}
}

/*
 * The hooks object a call uses: real classifications the policy's;
 * requests its clone, in a helper of their own, at most so often per
 * user (c->askrate: ASK_RATE a second, ASK_BURST at once).  NULL (and the reasons say why) when a request may
 * not run the hook now.
 */
static struct hooks *
hooks_for(struct core *c, const struct hook_view *view, struct decision *d)
{
	struct policy *p = c->pol;

	if (!view->ask)
		return p->hooks;
	if (p->hooks_ask == NULL) {
		note_reasons(d, "Lua hook not run: out of memory");
		return NULL;
	}
	if (!ratelimit_take(&c->askrate, view->asker, (double)c->env.wall(), NULL)) {
		note_reasons(d, "Lua hook not run: too many requests of this user, "
				"try again in a second");
		return NULL;
	}
	return p->hooks_ask;
}

/* Let the Lua hook revise the verdicts. */
static void
run_hook(struct core *c, const struct task *t, const struct hook_view *view,
	 struct decision *d)
{
	struct policy *p = c->pol;
	struct hooks *hk = hooks_for(c, view, d);

	if (hk == NULL)
		return;
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
		const struct verdict *v = &d->verdicts[i];
		struct hooks_slot *s = &d->slots[i];

		s->hier = p->labels[i]; /* "unified" for the v2 tree, as everywhere */
		s->set = v->move;
		snprintf(s->dest, sizeof(s->dest), "%s", v->move ? v->dest : "");
		s->why = v->rule != NULL ? v->reason : NULL;
	}
	/* the counters are the classifying helper's: requests' are logged */
	const struct hooks_stats *hs = hooks_stats(p->hooks);
	uint64_t timeouts = hs->timeouts, restarts = hs->restarts;
	c->stats.hook_calls += !view->ask;
	int rc = hooks_classify(hk, &ht, d->slots, p->n);
	c->stats.hook_timeouts += hs->timeouts - timeouts;
	c->stats.hook_restarts += hs->restarts - restarts;
	if (rc < 0) {
		c->stats.hook_errors += !view->ask;
		if (view->ask)
			note_reasons(d, "Lua hook failed, see the log; the rules decided");
		return; /* the rules' decision stands */
	}
	for (size_t i = 0; i < p->n; i++) {
		struct verdict *v = &d->verdicts[i];
		const struct hooks_slot *s = &d->slots[i];

		if (!s->changed)
			continue;
		c->stats.hook_changes++;
		v->move = s->set;
		v->rule = NULL;
		snprintf(v->dest, sizeof(v->dest), "%s", s->dest);
		snprintf(v->reason, sizeof(v->reason), "Lua hook %s", p->cfg->lua_script);
	}
}

/* "file:line" of rule r into buf, as snprintf("%s:%u") without its cost. */
static void
rule_reason(char *buf, size_t len, const struct rules_rule *r)
{
	char num[STR_UINT_MAX];
	size_t n = str_uint(num, r->line), f = strnlen(r->file, len - 1);

	if (f + 1 + n >= len) {
		snprintf(buf, len, "%s:%u", r->file, r->line); /* cut as it always was */
		return;
	}
	memcpy(buf, r->file, f);
	buf[f] = ':';
	memcpy(buf + f + 1, num + sizeof(num) - n, n);
	buf[f + 1 + n] = '\0';
}

/* Verdicts from the rules' decisions (every classification: no printf). */
static void
from_rules(struct decision *d)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct rules_decision *r = &d->rules[i];
		struct verdict *v = &d->verdicts[i];

		v->move = r->move;
		v->rule = r->rule;
		str_copy(v->dest, sizeof(v->dest), r->move ? r->dest : "");
		if (r->rule != NULL)
			rule_reason(v->reason, sizeof(v->reason), r->rule);
		else
			str_copy(v->reason, sizeof(v->reason), "no rule");
	}
}

/* Boosts override everything else on their hierarchy. */
static void
apply_boosts(struct core *c, pid_t pid, struct decision *d)
{
	for (size_t i = 0; i < c->pol->n; i++) {
		const struct boost *b = boost_of(c, pid, c->pol->names[i]);
		struct verdict *v = &d->verdicts[i];

		if (b == NULL)
			continue;
		v->move = true;
		v->rule = NULL;
		snprintf(v->dest, sizeof(v->dest), "%s", b->dest);
		snprintf(v->reason, sizeof(v->reason), "boost #%u", b->id);
	}
}

static void
all_sticky(struct decision *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct verdict *v = &d->verdicts[i];

		v->move = false;
		v->rule = NULL;
		v->dest[0] = '\0';
		snprintf(v->reason, sizeof(v->reason), "sticky");
	}
}

/*
 * The process's group in each v1 hierarchy, managed or not, into
 * v[0..max-1]: first-match ignore rules consult them all, as libcgroup.
 */
static size_t
v1_groups(const struct task_cgroups *cg, const char **v, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < cg->n && n < max; i++)
		if (cg->v[i].hier[0] != '\0')
			v[n++] = cg->v[i].path;
	return n;
}

/* Rules, then the Lua hook (unless hook is false: the exec gate), for
 * a snapshot. */
static void
decide_rules(struct core *c, const struct task *t, const char *const *current,
	     const struct hook_view *view, bool hook, struct decision *d)
{
	struct policy *p = c->pol;
	const char *v1[RULES_MAX_HIERS];
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
		.v1groups = v1,
		.realtime = t->realtime,
	};
	if (rules_semantics(p->rules) == RULES_FIRST_MATCH)
		rt.nv1groups = v1_groups(view->cg, v1, RULES_MAX_HIERS);
	if (p->need_names) {
		rt.user = policy_user(p, t->euid);
		rt.group = t->egid != (gid_t)-1 ? policy_group(p, t->egid) : NULL;
	}
	rules_match(p->rules, &rt, d->rules);
	from_rules(d);
	if (hook && hooks_has_classify(p->hooks))
		run_hook(c, t, view, d);
}

/*
 * A process that exists but cannot be read (no descriptor left, no
 * memory): say so -- at most once a second, with a count of the others
 * -- and rescan soon, so it is not left unclassified.
 */
static void
cannot_read(struct core *c, pid_t pid, int rc)
{
	static struct log_limit limit = LOG_LIMIT_INIT(1);
	unsigned long held;

	rescan_soon(c, 1.0);
	if (log_limit_pass(&limit, c->now, &held))
		log_warning("cannot read %s/%d: %s; rescanning soon (%lu more not reported)",
			    c->env.procroot, (int)pid, strerror(-rc), held);
}

/*
 * The composed group names a group the daemon reserves (its own leaf,
 * a dot name) at level k: refuse the dimension that put the name there
 * for this process -- its verdict, or else the current part it would
 * keep.  Logged once (then at debug level): a template such as /%p
 * may expand to it for any process.  False when nothing is left to
 * refuse (the default segment itself is reserved).
 */
static bool
refuse_reserved(struct core *c, struct decision *d, unsigned k, const char *why,
		const char **want, const char **cur)
{
	const struct policy *p = c->pol;
	char dimpath[RULES_DEST_MAX];
	int i = layout_level(p, d->composed, k, dimpath, sizeof(dimpath));
	enum log_level level = c->reserved_logged ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARNING;

	log_msg(level,
		"pid %d (%s): unified:%s is %s; %s:%s refused for it%s", (int)d->task.pid,
		d->task.comm, d->composed, why, i >= 0 ? p->names[i] : "?", dimpath,
		c->reserved_logged ? "" : " (further refusals are logged at debug level)");
	c->reserved_logged = true;
	if (i < 0)
		return false;
	if (want[i] != NULL) {
		struct verdict *v = &d->verdicts[i];
		size_t n = strlen(v->reason);

		snprintf(v->reason + n, sizeof(v->reason) - n, " (refused: %s)", why);
		v->move = false;
		want[i] = NULL;
		return true;
	}
	if (cur[i] != NULL) {
		cur[i] = NULL;
		return true;
	}
	return false;
}

/*
 * The composed group would be longer than a group path may be: a Lua
 * hook's destination, or a current part kept (layout_limit refuses a
 * policy whose rules and profiles can compose one).  The process is
 * left alone, explain says why; logged at most once a second.
 */
static void
too_long(struct core *c, struct decision *d)
{
	static struct log_limit limit = LOG_LIMIT_INIT(1);
	unsigned long held;

	snprintf(d->refusal, sizeof(d->refusal),
		 "the composed group would be longer than %d bytes", RULES_DEST_MAX - 1);
	if (log_limit_pass(&limit, c->now, &held))
		log_warning("pid %d (%s) left alone in unified: %s (%lu more not reported)",
			    (int)d->task.pid, d->task.comm, d->refusal, held);
}

/* Compose the verdicts of the virtual dimensions into d->composed. */
static void
compose(struct core *c, pid_t pid, struct decision *d)
{
	const struct policy *p = c->pol;
	const char *want[RULES_MAX_HIERS], *cur[RULES_MAX_HIERS];
	size_t bad;
	int rc;

	d->composed[0] = '\0';
	if (p->v2 == NULL || (pid == getpid() && p->uroot_own))
		return; /* the daemon stays in its leaf */
	memset(want, 0, p->n * sizeof(*want));
	memcpy(cur, d->parts, p->n * sizeof(*cur));
	for (size_t k = 0; k < p->nlayout; k++) {
		size_t i = p->layout[k];

		want[i] = d->verdicts[i].move ? d->verdicts[i].dest : NULL;
	}
again:
	while ((rc = layout_compose(p, want, cur, d->composed, sizeof(d->composed),
				    &bad)) == -EMLINK) {
		struct verdict *v = &d->verdicts[bad];
		size_t n = strlen(v->reason);

		log_warning(
			"pid %d: %s:%s is deeper than the unified layout's %u level%s "
			"for %s; %s left alone",
			(int)d->task.pid, p->names[bad], v->dest, p->depth[bad],
			p->depth[bad] == 1 ? "" : "s", p->names[bad], p->names[bad]);
		snprintf(v->reason + n, sizeof(v->reason) - n,
			 " (too deep for the layout)");
		v->move = false;
		want[bad] = NULL;
	}
	const char *why;
	unsigned k = rc == 0 ? layout_reserved(p, d->composed, &why) : 0;
	if (k > 0 && refuse_reserved(c, d, k, why, want, cur))
		goto again;
	if (rc == -ENAMETOOLONG)
		too_long(c, d);
	if (rc != 0 || k > 0)
		d->composed[0] = '\0';
}

/*
 * The unified layout's group the task is in (d->cg read), as the
 * backend sees it: the same path for cgroupfs, the group a unit stands
 * for with systemd; NULL when it is in none of the layout's.
 */
static const char *
v2_current(struct core *c, struct decision *d)
{
	const struct backend *fs = c->env.cgfs;
	const char *real = task_cgroup_of(&d->cg, c->pol->v2->name);

	if (real == NULL || fs->look.logical == NULL)
		return real;
	if (backend_logical(fs, c->pol->v2, real, d->v2cur, sizeof(d->v2cur)) < 0)
		return NULL;
	return d->v2cur;
}

/* Does the backend refuse to move the task out of its v2 group (PID
 * 1's, a delegated subtree, ...)?  Then the composed group is dropped and
 * the reason kept for explain. */
static void
backend_refuses(struct core *c, struct decision *d)
{
	const struct backend *fs = c->env.cgfs;
	const struct policy *p = c->pol;
	const char *real;

	if (d->composed[0] == '\0' || fs->look.may_move == NULL ||
	    (real = task_cgroup_of(&d->cg, p->v2->name)) == NULL)
		return;
	if (backend_may_move(fs, p->v2, real, d->refusal, sizeof(d->refusal)) == 0) {
		d->refusal[0] = '\0';
		return;
	}
	log_debug("pid %d (%s) left in unified:%s: %s", (int)d->task.pid, d->task.comm, real,
		  d->refusal);
	d->composed[0] = '\0';
}

/*
 * Does deciding for a process read its current groups?  Only ignore
 * rules, the unified layout (the parts of the dimensions the rules do
 * not decide) and the Lua hook (task:cgroup()) look at them; otherwise
 * classify() reads them only when a verdict moves something, to leave
 * alone what is in place already.
 */
static bool
decision_needs_groups(const struct policy *p)
{
	return p->v2 != NULL || rules_need_cgroups(p->rules) ||
	       hooks_has_classify(p->hooks);
}

static enum decide_result decide_known(struct core *c, unsigned flags, uid_t asker,
				       bool lazy, bool groups, bool hook,
				       struct decision *d);

/*
 * May a snapshot take uid and euid from the kernel's events instead of
 * status?  When nothing else of status is looked at: no rule or
 * template about groups, no Lua hook (it sees every credential).
 */
static bool
ids_suffice(const struct policy *p)
{
	return !(rules_need_ids(p->rules) & RULES_NEED_GID) && !hooks_has_classify(p->hooks);
}

/*
 * May a snapshot of a process that exec'd do without any credential
 * (comm instead of status)?  When no rule or template names a user or
 * a group, no destination a user's or group's name, and no Lua hook
 * sees them.
 */
static bool
no_ids_needed(const struct policy *p)
{
	return rules_need_ids(p->rules) == 0 && !p->need_names && !hooks_has_classify(p->hooks);
}

/*
 * What of k the snapshot may take: all of it when its credentials are
 * whole (an exec record with no more groups than it holds), uid and
 * euid alone only when they suffice, the exec alone when no credential
 * is needed; else nothing (NULL).
 */
static const struct task_known *
usable(const struct policy *p, const struct task_known *k)
{
	if (k == NULL)
		return NULL;
	if ((k->have & TASK_KNOW_CREDS) && k->ngroups <= TASK_KNOWN_GROUPS)
		return k;
	if ((k->have & (TASK_KNOW_UIDS | TASK_KNOW_CREDS)) && ids_suffice(p))
		return k;
	if ((k->have & TASK_KNOW_EXECED) && no_ids_needed(p))
		return k;
	return NULL;
}

/*
 * Decide for pid into d: the task as read in d->task and, unless lazy
 * and the decision does not need them (then d->cg.n is 0 and
 * d->cg_read false), its current groups in d->cg.  known, when not
 * NULL: what the kernel's events said of it (see usable()).
 */
static enum decide_result
decide(struct core *c, pid_t pid, uid_t asker, bool lazy, const struct task_known *known,
       struct decision *d)
{
	struct policy *p = c->pol;
	struct task *t = &d->task;
	unsigned what = 0;
	const struct proc *proc = proc_known(c, pid);
	unsigned flags = proc != NULL ? proc->flags : 0;
	bool sticky = flags & PROC_STICKY;

	if (!sticky && (rules_need_process(p->rules) || hooks_has_classify(p->hooks)))
		what |= TASK_EXE | TASK_SCRIPT;
	if (!sticky && rules_need_realtime(p->rules))
		what |= TASK_RT;
	if (!sticky && p->ananicy != NULL)
		what |= TASK_ARGV0;
	d->cg.n = 0;
	d->cg_read = d->placed = false;
	d->prio.prio.set = 0;
	int rc = task_read_known(c->env.procroot, pid, what, usable(p, known), t);
	if (rc < 0) {
		if (rc != -ESRCH)
			cannot_read(c, pid, rc);
		return DECIDE_GONE;
	}
	if (t->cmdline_timedout)
		cmdline_timedout(c, t);
	/* first: a user learns nothing of others' processes, not even that
	 * one is a kernel thread (hidepid) */
	if (!core_owns(asker, t))
		return DECIDE_DENIED; /* nothing run, nothing counted */
	if (t->kthread)
		return DECIDE_KTHREAD;
	if (pid == 1)
		return DECIDE_INIT; /* its group is the service manager's business */
	return decide_known(c, flags, asker, lazy, !lazy || decision_needs_groups(p), true, d);
}

/*
 * The rest of decide() for the task in d->task, whose table flags are
 * flags: its current groups (when groups is set), the rules, the Lua
 * hook (when hook is set), boosts, the composed group.
 */
static enum decide_result
decide_known(struct core *c, unsigned flags, uid_t asker, bool lazy, bool groups, bool hook,
	     struct decision *d)
{
	struct policy *p = c->pol;
	struct task *t = &d->task;
	struct task_cgroups *cg = &d->cg;
	const char *current[RULES_MAX_HIERS]; /* the rules read p->n of them */
	pid_t pid = t->pid;

	if (groups) {
		if (task_read_cgroups(c->env.procroot, pid, cg) < 0)
			return DECIDE_GONE;
		d->cg_read = true;
	}
	d->composed[0] = '\0';
	d->refusal[0] = '\0';
	if (p->v2 != NULL)
		layout_split(p, v2_current(c, d), d->partbuf, sizeof(d->partbuf), d->parts);
	if (flags & PROC_STICKY) {
		all_sticky(d);
		return DECIDE_STICKY;
	}
	for (size_t i = 0; i < p->n; i++)
		current[i] = p->virt[i] ? d->parts[i] : task_cgroup_of(cg, p->names[i]);
	struct hook_view view = { .c = c,
				  .pol = p,
				  .parts = d->parts,
				  .t = t,
				  .cg = cg,
				  .ask = !lazy, /* explain */
				  .asker = asker };
	decide_rules(c, t, current, &view, hook, d);
	ananicy_place(c, t, d);
	if (flags & PROC_BOOSTED)
		apply_boosts(c, pid, d);
	compose(c, pid, d);
	backend_refuses(c, d);
	priority_decide(c, d, flags & PROC_BOOSTED);
	ananicy_decide(c, t, d);
	return DECIDE_OK;
}

enum decide_result
classify_decide(struct core *c, pid_t pid, uid_t asker, struct decision *d)
{
	return decide(c, pid, asker, false, NULL, d);
}

enum decide_result
classify_decide_snapshot(struct core *c, struct decision *d)
{
	const struct proc *known = proc_known(c, d->task.pid);

	d->cg.n = 0;
	d->cg_read = d->placed = false;
	d->prio.prio.set = 0;
	return decide_known(c, known != NULL ? known->flags : 0, 0, true, true, false, d);
}

void
classify_whatif(struct core *c, const struct task *t, const char *cmd, size_t cmdlen,
		uid_t asker, struct decision *d)
{
	static const struct task_cgroups none;
	const char *current[RULES_MAX_HIERS] = { 0 };
	struct hook_view view = { .c = c,
				  .pol = c->pol,
				  .parts = d->parts,
				  .t = t,
				  .cg = &none,
				  .cmd = cmd,
				  .cmdlen = cmdlen,
				  .ask = true,
				  .asker = asker };

	for (size_t i = 0; i < d->n; i++)
		d->parts[i] = NULL;
	d->refusal[0] = '\0';
	decide_rules(c, t, current, &view, true, d);
	ananicy_place(c, t, d);
	compose(c, t->pid, d);
	priority_decide(c, d, false);
	ananicy_decide(c, t, d); /* t: the what-if task, not d->task */
}

/* Will some verdict of d move the task in a managed v1 or v2 hierarchy? */
bool
classify_wants_move(const struct core *c, const struct decision *d)
{
	for (size_t i = 0; i < c->pol->n; i++)
		if (d->verdicts[i].move && !c->dropped[i] && !c->pol->virt[i])
			return true;
	return d->composed[0] != '\0';
}

void
classify(struct core *c, pid_t pid, struct decision *d)
{
	classify_known(c, pid, NULL, d);
}

void
classify_known(struct core *c, pid_t pid, const struct task_known *known, struct decision *d)
{
	if (c->paused)
		return;
	if (c->gate != NULL && gate_pending(c, pid))
		return; /* its exec is on its way: its EXEC event classifies it */
	switch (decide(c, pid, 0, true, known, d)) {
	case DECIDE_GONE:
		c->stats.vanished++;
		return;
	case DECIDE_KTHREAD:
	case DECIDE_INIT:
	case DECIDE_STICKY:
	case DECIDE_DENIED:
		return;
	case DECIDE_OK:
		break;
	}
	/* where it is now, so nothing already in place is moved or logged:
	 * from the exec's record where it tells; for an event's process
	 * moved by writes, not at all; else read */
	if (!d->cg_read && classify_wants_move(c, d) && !placed_known(c, known, d) &&
	    !placed_unread(c, known, d)) {
		if (task_read_cgroups(c->env.procroot, pid, &d->cg) < 0) {
			c->stats.vanished++;
			return;
		}
		d->cg_read = true;
	}
	c->stats.classified++;
	classify_act(c, d);
}

void
classify_alone(struct core *c, pid_t pid)
{
	struct decision *d = decision_new(c->pol);

	if (d == NULL) {
		log_warning("out of memory: pid %d is classified at a rescan", (int)pid);
		rescan_soon(c, 1.0);
		return;
	}
	classify(c, pid, d);
	decision_free(d);
}

void
classify_priorities(struct core *c, pid_t pid, struct decision *d)
{
	d->prio.prio.set = 0;
	if (!c->paused && decide(c, pid, 0, true, NULL, d) == DECIDE_OK)
		priority_act(c, d);
}

void
classify_act(struct core *c, struct decision *d)
{
	const struct task *t = &d->task;

	for (size_t i = 0; i < c->pol->n; i++) {
		const struct verdict *v = &d->verdicts[i];
		const char *now = task_cgroup_of(&d->cg, c->pol->names[i]);

		if (!v->move || c->dropped[i] || c->pol->virt[i])
			continue;
		bool there = d->placed ? (d->in_place >> i) & 1
				       : now != NULL && strcmp(now, v->dest) == 0;

		if (there) {
			log_debug("pid %d (%s) already in %s:%s", (int)t->pid, t->comm,
				  c->pol->names[i], v->dest);
			continue;
		}
		groups_move(c, i, d);
	}
	if (d->composed[0] != '\0') {
		const char *now = v2_current(c, d);

		if (now != NULL && strcmp(now, d->composed) == 0)
			log_debug("pid %d (%s) already in unified:%s", (int)t->pid, t->comm,
				  d->composed);
		else
			groups_move_composed(c, d);
	}
	priority_act(c, d); /* moves nothing: also where the backend refused */
}

/* ---- the core's entry points for requests ---------------------------------------- */

enum decide_result
core_explain(struct core *c, pid_t pid, uid_t asker, struct decision *d)
{
	return classify_decide(c, pid, asker, d);
}

void
core_whatif(struct core *c, const struct task *t, const char *cmd, size_t cmdlen,
	    uid_t asker, struct decision *d)
{
	classify_whatif(c, t, cmd, cmdlen, asker, d);
}
