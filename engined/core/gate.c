/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gate.c -- the exec gate in the core (see gate.h):
 *
 *   held exec ──▶ core_gate_exec(): snapshot from status (credentials
 *                 as the binary's set-id bits make them) and the
 *                 binary's path, decide (rules, boosts; no Lua hook),
 *                 move now, remember where the process was
 *   EXEC event ──▶ gate_exec_seen(): it happened, forget it
 *   no EXEC within GATE_CONFIRM_SECONDS ──▶ gate_timeout(): if the
 *                 process does not run the binary, the exec failed
 *                 after the gate (ENOEXEC, another listener's denial):
 *                 move it back, then classify it as it is
 *
 * Until its exec is seen, a process the gate placed is not classified
 * (classify() asks gate_pending()): it would be by its old program.
 * All of it is in memory only while an exec is in flight, but for a
 * small table of recent placements that explain reports.
 */
#include "core_private.h"
#include "gate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLIGHTS_MAX  4096 /* execs in flight remembered at most */
#define READY_MAX    64	  /* groups kept ready for a backend's move_now, at most */
#define CANDS_MAX    16	  /* destinations of one dimension combined, at most */
#define COMBOS_MAX   4096 /* combinations tried per gated rule, at most */
#define PLACED_SLOTS 1024 /* recent placements explain can report */
#define COMM_LEN     16	  /* the kernel's command name, NUL included */

/* A group the gate moved a process out of, in managed hierarchy idx
 * (-1: the unified layout's composed v2 group): from, as cgroupfs names
 * it, and to, where the gate put it (the composed group: the layout's
 * name, which a backend's logical gives back from a unit's group). */
struct back {
	int idx;
	char *from, *to;
};

/* An exec the gate answered, not yet seen to happen. */
struct flight {
	struct procid id;
	double due;
	uint64_t dev, ino; /* the binary */
	size_t n;
	struct back *v;
};

struct placed {
	struct procid id;
	time_t at;
};

struct gate {
	struct map flights; /* pid -> struct flight */
	double next_due;    /* no flight is due before (0: none) */
	bool full_said;
	struct placed placed[PLACED_SLOTS]; /* by pid % PLACED_SLOTS */
	struct gate_state state;
	char **ready;	 /* the groups the backend keeps ready (prepare) */
	size_t nready;
	bool ready_due;	 /* groups were added: hand them over (gate_timeout) */
	bool ready_full; /* READY_MAX reached, and said so */
};

static struct gate *
gate_get(struct core *c)
{
	if (c->gate == NULL && (c->gate = calloc(1, sizeof(*c->gate))) != NULL)
		map_init(&c->gate->flights, sizeof(struct flight));
	return c->gate;
}

static void
backs_free(struct back *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].from);
		free(v[i].to);
	}
	free(v);
}

static void
flight_drop(struct gate *g, struct flight *f)
{
	backs_free(f->v, f->n);
	map_remove(&g->flights, f);
}

void
gate_forget(struct core *c)
{
	struct gate *g = c->gate;
	struct flight *f;
	size_t cursor = 0;

	if (g == NULL)
		return;
	while ((f = map_next(&g->flights, &cursor)) != NULL)
		backs_free(f->v, f->n);
	map_free(&g->flights);
	map_init(&g->flights, sizeof(struct flight));
	g->next_due = 0;
}

static void
ready_clear(struct gate *g)
{
	for (size_t i = 0; i < g->nready; i++)
		free(g->ready[i]);
	free(g->ready);
	g->ready = NULL;
	g->nready = 0;
	g->ready_due = false;
}

void
gate_free(struct core *c)
{
	gate_forget(c);
	if (c->gate != NULL) {
		map_free(&c->gate->flights);
		ready_clear(c->gate);
	}
	free(c->gate);
	c->gate = NULL;
}

/* ---- deciding and moving while the exec is held ------------------------------- */

/* The snapshot an exec of x will be, into t: credentials and names. */
static int
snapshot(struct core *c, const struct gate_exec *x, struct task *t)
{
	const char *base = strrchr(x->path, '/');
	int rc = task_read(c->env.procroot, x->pid, TASK_NNP, t);

	if (rc < 0)
		return rc;
	execgate_creds(x->file, t->no_new_privs, &t->euid, &t->egid);
	str_copy(t->exe, sizeof(t->exe), x->path);
	str_copy(t->comm, COMM_LEN, base != NULL ? base + 1 : x->path);
	t->script[0] = t->invoked[0] = '\0';
	return 0;
}

static int
add_back(struct back **v, size_t *n, int idx, const char *from, const char *to)
{
	struct back *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (nv == NULL)
		return -ENOMEM;
	*v = nv;
	nv[*n] = (struct back){ .idx = idx, .from = strdup(from), .to = strdup(to) };
	if (nv[*n].from == NULL || nv[*n].to == NULL) {
		free(nv[*n].from);
		free(nv[*n].to);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

/*
 * The groups the verdicts of d move its task out of, into *v (NULL when
 * memory runs out: the moves are then not undone should the exec fail).
 * Each verdict that moves says it is the gate's.  The count of moves.
 */
static size_t
plan_moves(struct core *c, struct decision *d, struct back **v, size_t *n)
{
	const struct policy *p = c->pol;
	size_t moves = 0;
	bool keep = true;

	for (size_t i = 0; i < p->n; i++) {
		struct verdict *vd = &d->verdicts[i];
		const char *cur = task_cgroup_of(&d->cg, p->names[i]);

		if (!vd->move || c->dropped[i] || p->virt[i] ||
		    (cur != NULL && strcmp(cur, vd->dest) == 0))
			continue;
		moves++;
		size_t len = strlen(vd->reason);
		snprintf(vd->reason + len, sizeof(vd->reason) - len,
			 ", at the exec gate");
		keep = keep &&
		       (cur == NULL || add_back(v, n, (int)i, cur, vd->dest) == 0);
	}
	if (d->composed[0] != '\0') {
		const struct backend *fs = c->env.cgfs;
		const char *real = task_cgroup_of(&d->cg, p->v2->name), *cur = real;
		char logical[RULES_DEST_MAX];

		/* a backend whose groups stand for the layout's (systemd's
		 * units) compares the layout's */
		if (real != NULL && fs->look.logical != NULL)
			cur = backend_logical(fs, p->v2, real, logical, sizeof(logical)) == 0
				      ? logical
				      : NULL;
		if (cur == NULL || strcmp(cur, d->composed) != 0) {
			moves++;
			keep = keep &&
			       (real == NULL || add_back(v, n, -1, real, d->composed) == 0);
		}
	}
	if (!keep) {
		backs_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return moves;
}

/* Remember an exec whose moves are undone unless it is seen. */
static void
remember(struct core *c, const struct gate_exec *x, struct procid id, struct back *v,
	 size_t n)
{
	struct gate *g = c->gate;
	bool fresh;
	struct flight *f = NULL;

	if (map_count(&g->flights) < FLIGHTS_MAX)
		f = map_insert(&g->flights, (uint64_t)id.pid, NULL, NULL, &fresh);
	if (f == NULL) {
		if (!g->full_said)
			log_warning(
				"exec gate: too many execs in flight; a failed exec is not "
				"moved back");
		g->full_said = true;
		backs_free(v, n);
		return;
	}
	if (!fresh)
		backs_free(f->v, f->n); /* an older exec of the same process */
	*f = (struct flight){ .id = id,
			      .due = c->now + GATE_CONFIRM_SECONDS,
			      .dev = x->file->dev,
			      .ino = x->file->ino,
			      .n = n,
			      .v = v };
	if (g->next_due == 0)
		g->next_due = f->due;
}

/* Decide for the exec x of process id with d, and move now; how it went. */
static enum gate_result
place(struct core *c, const struct gate_exec *x, struct procid id, struct decision *d)
{
	struct gate *g = c->gate;
	struct back *v = NULL;
	size_t n = 0;

	if (d->task.kthread)
		return GATE_LEFT;
	enum decide_result r = classify_decide_snapshot(c, d);
	if (r != DECIDE_OK)
		return r == DECIDE_GONE ? GATE_GONE : GATE_LEFT;
	if (!classify_wants_move(c, d))
		return GATE_LEFT;
	if (plan_moves(c, d, &v, &n) == 0)
		return GATE_IN_PLACE;
	uint64_t before = c->stats.moves;
	d->at_gate = true;
	classify_act(c, d);
	uint64_t moved = c->stats.moves - before;
	c->stats.gate_moves += moved;
	if (!execgate_alive(x->pidfd))
		log_debug("pid %d exited while its exec was held", (int)x->pid);
	if (moved == 0) {
		backs_free(v, n);
		return GATE_LEFT;
	}
	remember(c, x, id, v, n);
	g->placed[(size_t)id.pid % PLACED_SLOTS] = (struct placed){ id, c->env.wall() };
	return GATE_PLACED;
}

enum gate_result
core_gate_exec(struct core *c, const struct gate_exec *x, double now)
{
	struct gate *g = gate_get(c);
	struct decision *d;
	struct procid id;

	c->now = now;
	c->stats.gate_execs++;
	if (x->path == NULL || c->paused || x->pid <= 1 || g == NULL)
		return GATE_LEFT;
	if ((d = decision_new(c->pol)) == NULL)
		return GATE_LEFT; /* placed after its exec, as without the gate */
	enum gate_result r = GATE_GONE;
	if (snapshot(c, x, &d->task) == 0 && task_procid(c->env.procroot, x->pid, &id) == 0)
		r = place(c, x, id, d);
	decision_free(d);
	return r;
}

/* ---- groups made ahead for a backend's move_now (core_cgfs.prepare) ----------------
 *
 * The systemd backend's move_now writes cgroup.procs of a scope made
 * ahead, held by a keeper process.  Which composed groups: those a
 * gated rule (a binary named by path) can compose, made at start and
 * after each reload -- the rule's own destinations, each other
 * dimension at its default or at any fixed destination some rule gives
 * it (at most CANDS_MAX of them, at most READY_MAX groups in all) --
 * and any other group a gated exec wanted and did not find ready
 * (learned: that exec is placed after it, as a late move; the next
 * finds the group ready).  Template destinations (%u ...) are not made
 * ahead nor learned: one keeper per user would pile up. */

static bool
ready_has(const struct gate *g, const char *path)
{
	for (size_t i = 0; i < g->nready; i++)
		if (strcmp(g->ready[i], path) == 0)
			return true;
	return false;
}

static int
ready_add(struct gate *g, const char *path)
{
	if (ready_has(g, path))
		return 0;
	if (g->nready == READY_MAX) {
		if (!g->ready_full)
			log_warning("exec gate: %d groups are kept ready for the gate, the "
				    "most there may be; execs into others are placed after "
				    "their exec",
				    READY_MAX);
		g->ready_full = true;
		return 0;
	}
	char **v = realloc(g->ready, (g->nready + 1) * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	g->ready = v;
	if ((v[g->nready] = strdup(path)) == NULL)
		return -ENOMEM;
	g->nready++;
	return 1;
}

/* A destination written without templates or escapes: it is as written. */
static bool
fixed(const struct rules_rule *r)
{
	return !r->templated && strchr(r->dest, '\\') == NULL;
}

/* Is rule h (a first line) one the gate holds execs for? */
static bool
gated_rule(const struct rules_rule *h)
{
	return !h->continuation && h->options == 0 && h->process != NULL &&
	       h->process[0] == '/' && strpbrk(h->process, "*?[") == NULL;
}

struct cands {
	const char *v[CANDS_MAX]; /* v[0]: NULL, the default */
	size_t n;
};

/* The fixed destinations the rules give each virtual dimension. */
static void
other_parts(const struct policy *p, struct cands *other)
{
	size_t nr = rules_count(p->rules);

	for (size_t k = 0; k < p->nlayout; k++)
		other[p->layout[k]] = (struct cands){ .n = 1 };
	for (size_t r = 0; r < nr; r++) {
		const struct rules_rule *l = rules_get(p->rules, r);
		const struct rules_rule *h = rules_get(p->rules, l->head);

		if (h->options != 0 || !fixed(l))
			continue;
		for (size_t k = 0; k < p->nlayout; k++) {
			struct cands *o = &other[p->layout[k]];
			size_t j = 1;

			if (!(l->mask & (1ull << p->layout[k])))
				continue;
			while (j < o->n && strcmp(o->v[j], l->dest) != 0)
				j++;
			if (j == o->n && o->n < CANDS_MAX)
				o->v[o->n++] = l->dest;
		}
	}
}

/* Every group want (the gated rule's parts) composes with the others'. */
static void
combine(struct core *c, const char *const *want, const struct cands *other)
{
	const struct policy *p = c->pol;
	size_t at[RULES_MAX_HIERS] = { 0 }, bad;
	const char *w[RULES_MAX_HIERS] = { 0 }, *cur[RULES_MAX_HIERS] = { 0 };
	char out[RULES_DEST_MAX];

	for (unsigned step = 0; step < COMBOS_MAX && c->gate->nready < READY_MAX; step++) {
		size_t k;

		for (k = 0; k < p->nlayout; k++) {
			size_t i = p->layout[k];
			w[i] = want[i] != NULL ? want[i] : other[i].v[at[i]];
		}
		if (layout_compose(p, w, cur, out, sizeof(out), &bad) == 0 &&
		    ready_add(c->gate, out) < 0)
			return;
		for (k = 0; k < p->nlayout; k++) { /* the next combination */
			size_t i = p->layout[k];
			if (want[i] != NULL)
				continue;
			if (++at[i] < other[i].n)
				break;
			at[i] = 0;
		}
		if (k == p->nlayout)
			return;
	}
}

/* The groups the gated rules can compose, into c->gate->ready. */
static void
ready_from_rules(struct core *c)
{
	const struct policy *p = c->pol;
	struct cands other[RULES_MAX_HIERS];
	size_t nr = rules_count(p->rules);

	other_parts(p, other);
	for (size_t r = 0; r < nr; r++) {
		const char *want[RULES_MAX_HIERS] = { 0 };
		bool usable = true, any = false;

		if (!gated_rule(rules_get(p->rules, r)))
			continue;
		for (size_t j = r; j < nr; j++) { /* the rule's line and its % lines */
			const struct rules_rule *l = rules_get(p->rules, j);

			if (j > r && !l->continuation)
				break;
			for (size_t k = 0; k < p->nlayout; k++) {
				size_t i = p->layout[k];
				if (!(l->mask & (1ull << i)))
					continue;
				usable = usable && fixed(l);
				want[i] = l->dest;
				any = true;
			}
		}
		if (usable && any)
			combine(c, want, other);
	}
}

/* The backend placed keeper pid for group path: never classified
 * (sticky, pinned by root), placed there as any process would be. */
static void
keeper_started(void *karg, pid_t pid, const char *path)
{
	struct core *c = karg;

	if (core_make_sticky(c, pid, 0, 0) < 0)
		log_warning("exec gate: cannot exempt keeper pid %d from classification",
			    (int)pid);
	groups_keep(c, pid, path);
}

static void
ready_hand_over(struct core *c)
{
	const struct backend *fs = c->env.cgfs;
	struct gate *g = c->gate;

	g->ready_due = false;
	int rc = backend_prepare(fs, c->pol->v2, (const char *const *)g->ready, g->nready,
			     keeper_started, c);
	if (rc < 0)
		log_warning("exec gate: cannot keep groups ready for the gate: %s; gated "
			    "execs are placed after their exec",
			    strerror(-rc));
}

void
core_gate_prepare(struct core *c, bool on)
{
	const struct backend *fs = c->env.cgfs;
	struct gate *g = gate_get(c);

	if (fs->gate.prepare == NULL || c->pol->v2 == NULL || g == NULL)
		return;
	ready_clear(g);
	g->ready_full = false;
	if (on && !c->dry_run)
		ready_from_rules(c);
	if (on && g->nready > 0)
		log_notice("exec gate: %zu group%s kept ready for the gate", g->nready,
			   g->nready == 1 ? "" : "s");
	ready_hand_over(c);
}

size_t
core_gate_ready(const struct core *c)
{
	return c->gate != NULL ? c->gate->nready : 0;
}

void
gate_unready(struct core *c, const struct decision *d)
{
	const struct policy *p = c->pol;
	struct gate *g = c->gate;

	c->stats.gate_late++;
	if (c->env.cgfs->gate.prepare == NULL || g == NULL || d->composed[0] == '\0')
		return;
	for (size_t k = 0; k < p->nlayout; k++) {
		const struct verdict *v = &d->verdicts[p->layout[k]];
		if (v->move && v->rule != NULL && !fixed(v->rule))
			return; /* a template's: not kept */
	}
	int rc = ready_add(g, d->composed);
	if (rc > 0)
		log_info("exec gate: unified:%s is kept ready for the gate from now on",
			 d->composed);
	/* handed over again even when it was there: a keeper that has gone
	 * (its scope stopped by hand) is started again */
	if (rc > 0 || (rc == 0 && ready_has(g, d->composed)))
		g->ready_due = true;
}

/* ---- after the answer --------------------------------------------------------- */

void
gate_exec_seen(struct core *c, pid_t tgid)
{
	struct gate *g = c->gate;
	struct flight *f;

	if (g == NULL || map_count(&g->flights) == 0)
		return;
	if ((f = map_find(&g->flights, (uint64_t)tgid, NULL, NULL)) != NULL)
		flight_drop(g, f);
}

bool
gate_pending(const struct core *c, pid_t pid)
{
	const struct gate *g = c->gate;

	return map_count(&g->flights) > 0 &&
	       map_find(&g->flights, (uint64_t)pid, NULL, NULL) != NULL;
}

double
gate_deadline(const struct core *c, double now)
{
	(void)now; /* "at once" is the time of the core's call */
	if (c->gate != NULL && c->gate->ready_due)
		return c->now > 0 ? c->now : 1e-9; /* at once */
	return c->gate != NULL ? c->gate->next_due : 0;
}

/*
 * Put pid back into the group b says the gate took it from.  The
 * composed v2 group of a backend whose groups stand for the layout's
 * (systemd's units): a unit of the layout by its layout name, through
 * move (PID 1), any other group through restore.  0, BACKEND_MOVE_QUEUED
 * or -errno.
 */
static int
put_back(struct core *c, const struct hier *h, const struct back *b, pid_t pid)
{
	const struct backend *fs = c->env.cgfs;
	char logical[RULES_DEST_MAX];

	if (b->idx >= 0 || fs->look.logical == NULL)
		return backend_move(fs, h, b->from, pid);
	if (backend_logical(fs, h, b->from, logical, sizeof(logical)) == 0)
		return backend_move(fs, h, logical, pid);
	return fs->gate.restore != NULL ? backend_restore(fs, h, b->from, pid) : -EOPNOTSUPP;
}

/* Move pid back out of the groups the gate put it in (those it is
 * still in; its groups read into cg); the count moved. */
static unsigned
move_back(struct core *c, const struct flight *f, struct task_cgroups *cg)
{
	const struct policy *p = c->pol;
	const struct backend *fs = c->env.cgfs;
	pid_t pid = f->id.pid;
	unsigned moved = 0;

	if (task_read_cgroups(c->env.procroot, pid, cg) < 0)
		return 0;
	for (size_t k = 0; k < f->n; k++) {
		const struct back *b = &f->v[k];
		const struct hier *h = b->idx < 0 ? p->v2 : p->managed[b->idx];
		const char *cur = task_cgroup_of(cg, h->name);
		char logical[RULES_DEST_MAX];

		/* b->to of the composed group is the layout's name (remember) */
		if (cur != NULL && b->idx < 0 && fs->look.logical != NULL)
			cur = backend_logical(fs, h, cur, logical, sizeof(logical)) == 0
				      ? logical
				      : NULL;
		if (cur == NULL || strcmp(cur, b->to) != 0)
			continue; /* moved since, by someone else */
		int rc = c->dry_run ? 0 : put_back(c, h, b, pid);
		if (rc >= 0) {
			moved++;
			log_notice("pid %d did not run the binary its exec was held for; "
				   "moved back to %s:%s",
				   (int)pid, hier_label(h), b->from);
		} else if (rc != -ESRCH) {
			log_warning("cannot move pid %d back to %s:%s: %s", (int)pid,
				    hier_label(h), b->from, strerror(-rc));
		}
	}
	return moved;
}

/* A flight that is due: did its exec happen?  d: for its classification. */
static void
settle(struct core *c, struct flight *f, struct decision *d)
{
	struct flight done = *f;

	f->v = NULL;
	f->n = 0;
	flight_drop(c->gate, f); /* before classify(), which asks gate_pending */
	if (task_alive(c->env.procroot, done.id)) {
		int runs =
			execgate_runs(c->env.procroot, done.id.pid, done.dev, done.ino);
		if (runs == 0 && move_back(c, &done, &d->cg) > 0)
			c->stats.gate_undone++;
		/* either way it is classified now, as it is: its uid or gid
		 * may have changed meanwhile, or its EXEC event was lost */
		if (runs >= 0)
			classify(c, done.id.pid, d);
	}
	backs_free(done.v, done.n);
}

void
gate_timeout(struct core *c, double now)
{
	struct gate *g = c->gate;
	pid_t due[64];
	size_t ndue = 0, cursor = 0;
	double next = 0;
	struct flight *f;

	if (g != NULL && g->ready_due)
		ready_hand_over(c); /* groups learned at the gate */
	if (g == NULL || g->next_due == 0 || c->now < g->next_due)
		return;
	while ((f = map_next(&g->flights, &cursor)) != NULL) {
		if (f->due <= c->now && ndue < sizeof(due) / sizeof(due[0]))
			due[ndue++] = f->id.pid;
		else if (next == 0 || f->due < next)
			next = f->due;
	}
	struct decision *d = ndue > 0 ? decision_new(c->pol) : NULL;
	if (d == NULL && ndue > 0) { /* settled when there is memory */
		g->next_due = c->now + 1.0;
		return;
	}
	for (size_t i = 0; i < ndue; i++)
		if ((f = map_find(&g->flights, (uint64_t)due[i], NULL, NULL)) != NULL)
			settle(c, f, d);
	decision_free(d);
	g->next_due = map_count(&g->flights) == 0 ? 0 : next > 0 ? next : c->now;
}

/* ---- what the loop's side and the verbs see --------------------------------------- */

bool
core_gate_can_place(const struct core *c)
{
	return c->env.cgfs->gate.move_now != NULL;
}

void
core_gate_paths(const struct core *c, void (*fn)(void *arg, const char *path), void *arg)
{
	rules_paths(c->pol->rules, fn, arg);
}

void
core_gate_set_state(struct core *c, const struct gate_state *s)
{
	struct gate *g = gate_get(c);

	if (g != NULL)
		g->state = *s;
}

const struct gate_state *
core_gate_state(const struct core *c)
{
	static const struct gate_state off;

	return c->gate != NULL ? &c->gate->state : &off;
}

void
core_gate_watchdog(struct core *c, uint64_t held, uint64_t unread)
{
	c->stats.gate_watchdog += held + unread;
	c->stats.gate_execs += unread; /* the loop never saw those */
}

void
core_gate_over_budget(struct core *c, uint64_t n)
{
	c->stats.gate_over_budget += n;
	c->stats.gate_execs += n; /* held, though not by the loop */
}

void
core_gate_late(struct core *c, uint64_t n)
{
	c->stats.gate_late += n;
}

bool
core_gate_placed(const struct core *c, pid_t pid, time_t *at)
{
	const struct placed *p;

	if (c->gate == NULL || pid <= 0)
		return false;
	p = &c->gate->placed[(size_t)pid % PLACED_SLOTS];
	if (p->id.pid != pid || !task_alive(c->env.procroot, p->id))
		return false;
	*at = p->at;
	return true;
}
