/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs.c -- what the control socket can be asked, and who may ask.
 *
 * Root may do everything.  Other users may ask for help, the version,
 * the status, a what-if "test", an "explain" of their own processes,
 * boost their own processes through a profile granted to them, and
 * list or end their own boosts.  Every denial is answered and logged.
 *
 * Each verb decides and returns its result as one JSON value (jansson);
 * it never prints.  verbs_run() hands that value to its caller, and
 * engined/render/ writes it either as JSON or as text for people -- one
 * result, two renderings, so the two can never disagree.  Strings from
 * the system (process names, paths) go through jstr(), which turns
 * bytes that are not UTF-8 into U+FFFD, so the JSON is always valid.
 */
#include "core_private.h"
#include "gate.h"

#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct verb_ctx {
	const struct verbs_request *rq;
	int argc;
	char **argv;
	char *err;
	size_t errlen;
};

/* A verb: its result (owned by the caller), or NULL with x->err set. */
typedef json_t *verb_fn(struct verb_ctx *x);

static json_t *
fail(struct verb_ctx *x, const char *fmt, ...) ATTR_PRINTF(2, 3);

static json_t *
fail(struct verb_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->err, x->errlen, fmt, ap);
	va_end(ap);
	return NULL;
}

static json_t *
deny(struct verb_ctx *x, const char *fmt, ...) ATTR_PRINTF(2, 3);

/*
 * Log a denial: at most DENY_BURST lines a second; the next line let
 * through says how many were not, so many hostile users together
 * cannot flood the log.
 */
#define DENY_BURST 5

static void
log_denial(const struct verbs_request *rq, const char *msg)
{
	static struct log_limit limit = LOG_LIMIT_INIT(DENY_BURST);
	unsigned long held;

	if (!log_limit_pass(&limit, rq->now, &held))
		return;
	if (held > 0)
		log_warning("control: %lu more denials not logged", held);
	log_warning("control: uid %u denied: %s", (unsigned)rq->uid, msg);
}

static json_t *
deny(struct verb_ctx *x, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_denial(x->rq, msg);
	return fail(x, "permission denied: %s", msg);
}


/* ---- JSON values ------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if invalid. */
static size_t
utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned min;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, min = 0x80, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, min = 0x800, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, min = 0x10000, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* A JSON string of s; bytes that are not UTF-8 become U+FFFD. */
static json_t *
jstr(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)p);
	char *fixed = malloc(len * 3 + 1);
	size_t o = 0;

	if (fixed == NULL)
		return NULL;
	while (*p) {
		size_t n = utf8_len(p);

		if (n == 0) {
			memcpy(fixed + o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
			continue;
		}
		memcpy(fixed + o, p, n);
		o += n;
		p += n;
	}
	json_t *v = json_stringn(fixed, o);
	free(fixed);
	return v;
}

static json_t *
jstr_or_null(const char *s)
{
	return s != NULL ? jstr(s) : json_null();
}

/* ---- helpers ------------------------------------------------------------------- */

static bool
parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0 || v > 0x3fffffff)
		return false;
	*pid = (pid_t)v;
	return true;
}

static void
log_pid_denial(struct verb_ctx *x, const char *verb, pid_t pid)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "%s of pid %d, not its own", verb, (int)pid);
	log_denial(x->rq, msg);
}

/*
 * A process the caller may not see: for a user, one answer whether it
 * is another user's or does not exist (no oracle past hidepid).
 */
static json_t *
no_process(struct verb_ctx *x, pid_t pid)
{
	if (x->rq->uid == 0)
		return fail(x, "no process %d", (int)pid);
	return fail(x, "no process %d of uid %u", (int)pid, (unsigned)x->rq->uid);
}

/* ---- status, metrics ------------------------------------------------------------- */

/* Every counter once: its JSON key and its field.  engined/render/metrics.c
 * names each in Prometheus' terms, in this order. */
static const struct counter {
	const char *key; /* in "json status": counters.KEY */
	size_t offset;	 /* in struct core_stats */
} counters[] = {
/* clang-format off */
#define C(key, field) { key, offsetof(struct core_stats, field) }
	/* clang-format on */
	C("fork", ev_fork),
	C("exec", ev_exec),
	C("uid", ev_uid),
	C("gid", ev_gid),
	C("exit", ev_exit),
	C("classified", classified),
	C("moves", moves),
	C("failed_moves", move_failures),
	C("vanished", vanished),
	C("lost_events", lost),
	C("rescans", rescans),
	C("reloads", reloads),
	C("failed_reloads", reload_failures),
	C("lua_calls", hook_calls),
	C("lua_errors", hook_errors),
	C("lua_timeouts", hook_timeouts),
	C("lua_restarts", hook_restarts),
	C("groups_created", groups_created),
	C("groups_removed", groups_removed),
	C("state_saves", state_saves),
	C("failed_state_saves", state_save_failures),
	/* placement latency, from the kernel's time of the exec (buckets) */
	C("placed_0_50us", placed_in[0]),
	C("placed_50_100us", placed_in[1]),
	C("placed_100_250us", placed_in[2]),
	C("placed_250_500us", placed_in[3]),
	C("placed_500us_1ms", placed_in[4]),
	C("placed_1_10ms", placed_in[5]),
	C("placed_over_10ms", placed_in[6]),
	/* the exec gate */
	C("gate_execs", gate_execs),
	C("gate_moves", gate_moves),
	C("gate_watchdog", gate_watchdog),
	C("gate_late", gate_late),
	C("gate_over_budget", gate_over_budget),
	C("gate_undone", gate_undone),
	/* per-process priorities */
	C("priorities_applied", prio_applied),
	C("priorities_failed", prio_failed),
#undef C
};

#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))

static unsigned long long
value(const struct core *c, const struct counter *k)
{
	return (unsigned long long)*(const uint64_t *)((const char *)core_stats(c) +
						       k->offset);
}

/* The exec gate's state: null when exec-gate is off. */
static json_t *
gate_status(const struct core *c)
{
	const struct gate_state *g = core_gate_state(c);

	if (!g->on)
		return json_null();
	int bound = g->bound_ms > 0 ? (int)g->bound_ms : GATE_BOUND_MS; /* 0: not open */

	return json_pack("{s:b, s:b, s:b, s:I, s:I, s:i, s:I, s:o}", "running", g->running,
			 "pidfds", g->pidfds, "memory_locked", g->locked, "held",
			 (json_int_t)g->marked, "named", (json_int_t)g->wanted, "bound_ms", bound,
			 "ready_groups", (json_int_t)core_gate_ready(c), "error",
			 g->error[0] ? jstr(g->error) : json_null());
}

static json_t *
v_status(struct verb_ctx *x)
{
	struct core *c = x->rq->core;
	const struct policy *p = core_policy(c);
	json_t *hiers = json_array(), *counts = json_object();

	for (size_t i = 0; i < p->n; i++)
		json_array_append_new(hiers, jstr(p->labels[i]));
	for (size_t i = 0; i < NCOUNTERS; i++)
		json_object_set_new(counts, counters[i].key,
				    json_integer((json_int_t)value(c, &counters[i])));
	return json_pack("{s:s, s:i, s:i, s:I, s:b, s:I, s:s, s:I, s:o, s:o, s:o, s:o, s:s}",
			 "version",
			 PACKAGE_VERSION, "protocol", CONTROL_PROTOCOL, "pid", (int)getpid(),
			 "uptime", (json_int_t)difftime(time(NULL), core_started(c)),
			 "paused", core_paused(c), "rules", (json_int_t)rules_count(p->rules),
			 "match",
			 p->cfg->match == RULES_FIRST_MATCH ? "first-match" : "per-hierarchy",
			 "boosts", (json_int_t)core_boost_count(c), "hierarchies", hiers,
			 "counters", counts, "lua", jstr_or_null(p->hooks ? p->cfg->lua_script : NULL),
			 "exec_gate", gate_status(c), "event_source", core_event_source(c));
}

/* ---- explain, test ---------------------------------------------------------------- */

/* The unified layout's row: the v2 group the dimensions compose. */
static json_t *
composed_row(struct core *c, const struct decision *d, const struct task_cgroups *cg)
{
	const struct policy *p = core_policy(c);
	const char *want = decision_composed(d);
	char why[512] = "composed from";
	size_t used = strlen(why);

	for (size_t k = 0; k < p->nlayout && used < sizeof(why); k++)
		used += (size_t)snprintf(why + used, sizeof(why) - used, "%s %s",
					 k ? "," : "", p->names[p->layout[k]]);
	json_t *row =
		json_pack("{s:s, s:o, s:s, s:b}", "hierarchy", "unified", "wanted",
			  want[0] ? jstr(want) : json_null(), "why", why, "composed", 1);
	if (cg != NULL)
		json_object_set_new(row, "current",
				    jstr_or_null(task_cgroup_of(cg, p->v2->name)));
	char cur[256], wanted[256];
	if (cg != NULL && core_units(c, d, cur, sizeof(cur), wanted, sizeof(wanted)) == 0) {
		json_object_set_new(row, "unit", jstr(cur));
		json_object_set_new(row, "unit_wanted", wanted[0] ? jstr(wanted) : json_null());
	}
	if (decision_refusal(d) != NULL)
		json_object_set_new(row, "left_alone", jstr(decision_refusal(d)));
	return row;
}

/* One row per managed hierarchy of d; cg NULL for a what-if. */
static json_t *
verdict_rows(struct core *c, const struct decision *d, const struct task_cgroups *cg)
{
	const struct policy *p = core_policy(c);
	json_t *rows = json_array();

	for (size_t i = 0; i < p->n; i++) {
		const struct verdict *v = &decision_verdicts(d)[i];
		json_t *row = json_pack("{s:o, s:o, s:o}", "hierarchy", jstr(p->labels[i]),
					"wanted", v->move ? jstr(v->dest) : json_null(), "why",
					jstr(v->reason));

		if (cg != NULL)
			json_object_set_new(row, "current",
					    jstr_or_null(p->virt[i] ? decision_part(d, i)
								    : task_cgroup_of(cg, p->names[i])));
		json_array_append_new(rows, row);
	}
	if (p->v2 != NULL)
		json_array_append_new(rows, composed_row(c, d, cg));
	return rows;
}

static void
nft_row(void *arg, const struct nftset_ref *set, const char *group, unsigned level)
{
	json_array_append_new(arg, json_pack("{s:s, s:o, s:o, s:o, s:i}", "family",
					     nftset_family_name(set->family), "table",
					     jstr(set->table), "set", jstr(set->set), "group",
					     jstr(group), "level", (int)level));
}

/* The nft sets the process's v2 groups (wanted, or current when left
 * alone) are kept in. */
static json_t *
nft_rows(struct core *c, const struct decision *d, const struct task_cgroups *cg)
{
	const struct policy *p = core_policy(c);
	json_t *rows = json_array();

	if (!core_nft_wanted(c))
		return rows;
	if (p->v2 != NULL) {
		const char *want = decision_composed(d);
		const char *cur = cg != NULL ? task_cgroup_of(cg, p->v2->name) : NULL;
		const char *path = want[0] ? want : cur;
		if (path != NULL)
			core_nft_sets_of(c, path, nft_row, rows);
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct verdict *v = &decision_verdicts(d)[i];
		if (p->virt[i] || p->managed[i]->version != HIER_V2 || p->managed[i] == p->v2)
			continue;
		const char *path = v->move ? v->dest
				  : cg != NULL ? task_cgroup_of(cg, p->names[i])
					       : NULL;
		if (path != NULL)
			core_nft_sets_of(c, path, nft_row, rows);
	}
	return rows;
}

/* The answer of explain for pid, decided into d. */
static json_t *
explain(struct verb_ctx *x, pid_t pid, struct decision *d)
{
	struct core *c = x->rq->core;

	/* the request's time, not the last event's: the decision's
	 * once-a-second warnings (a command line given up on) count from
	 * it, and no event may have come for a while */
	if (x->rq->now > c->now)
		c->now = x->rq->now;
	enum decide_result r = core_explain(c, pid, x->rq->uid, d);

	if (r == DECIDE_DENIED)
		log_pid_denial(x, "explain", pid);
	if (r == DECIDE_GONE || r == DECIDE_DENIED)
		return no_process(x, pid);
	if (r == DECIDE_INIT)
		return fail(x, "pid 1 is the service manager; cgengined never moves it");
	if (r == DECIDE_KTHREAD)
		return fail(x, "pid %d is a kernel thread; cgengined never moves those",
			    (int)pid);
	const struct task *t = decision_task(d);
	time_t gated;
	json_t *gate = core_gate_placed(c, pid, &gated) ? json_integer((json_int_t)gated)
							: json_null();
	return json_pack("{s:i, s:o, s:o, s:I, s:o, s:I, s:b, s:b, s:o, s:o, s:o, s:o}", "pid",
			 (int)pid, "comm", jstr(t->comm), "exe", jstr(t->exe), "uid",
			 (json_int_t)t->euid, "user", jstr(core_user_name(c, t->euid)), "gid",
			 (json_int_t)t->egid, "sticky", r == DECIDE_STICKY, "paused",
			 core_paused(c), "hierarchies", verdict_rows(c, d, decision_cgroups(d)),
			 "nft_sets", nft_rows(c, d, decision_cgroups(d)), "placed_at_gate", gate,
			 "priorities", priority_rows(c, d, r == DECIDE_OK ? pid : 0));
}

static json_t *
v_explain(struct verb_ctx *x)
{
	struct decision *d;
	pid_t pid;

	if (x->argc != 2 || !parse_pid(x->argv[1], &pid))
		return fail(x, "usage: explain PID");
	if ((d = core_decision_new(x->rq->core)) == NULL)
		return fail(x, "out of memory");
	json_t *r = explain(x, pid, d);
	decision_free(d);
	return r;
}

/*
 * A numeric user or group id: decimal digits, at most 4294967294
 * ((uid_t)-1 means "no id"); 0, -EINVAL if not a number, -ERANGE if
 * out of range (never cut to 32 bits: 4294967296 is not root).
 */
static int
parse_id(const char *s, uint32_t *id)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -EINVAL;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if ((v = v * 10 + (uint64_t)(*s - '0')) >= UINT32_MAX)
			v = UINT32_MAX; /* saturate: no wrap however long */
	}
	if (v >= UINT32_MAX)
		return -ERANGE;
	*id = (uint32_t)v;
	return 0;
}

#define ID_RANGE "out of range (0 to 4294967294)"

/* Resolve a user for "test" (NSS, bounded, else a number); 0 or -errno
 * (-ENOENT unknown, -ERANGE a number out of range). */
static int
lookup_user(const char *name, struct task *t)
{
	struct names_user u;
	uint32_t id;

	if (names_user_by_name(name, &u) == 0) {
		t->uid = t->euid = u.uid;
		t->gid = t->egid = u.gid;
		t->ngroups = nss_grouplist(u.name, u.gid, t->groups, TASK_GROUPS_MAX);
		return 0;
	}
	int rc = parse_id(name, &id);
	if (rc < 0)
		return rc == -ERANGE ? rc : -ENOENT;
	t->uid = t->euid = (uid_t)id;
	return 0;
}

/* Resolve a group, as lookup_user. */
static int
lookup_group(const char *name, gid_t *gid)
{
	uint32_t id;

	if (names_group_by_name(name, gid) == 0)
		return 0;
	int rc = parse_id(name, &id);
	if (rc < 0)
		return rc == -ERANGE ? rc : -ENOENT;
	*gid = (gid_t)id;
	return 0;
}

#define TEST_USAGE "usage: test --user U [--group G] [--exe PATH] [--cmdline ARG...]"

static json_t *
v_test(struct verb_ctx *x)
{
	static struct task t;
	char cmd[4096];
	size_t cmdlen = 0;
	bool have_user = false;

	memset(&t, 0, sizeof(t));
	for (int i = 1; i < x->argc; i++) {
		char **a = x->argv;

		if (strcmp(a[i], "--user") == 0 && i + 1 < x->argc) {
			int rc = lookup_user(a[++i], &t);
			if (rc == -ERANGE)
				return fail(x, "user id %s is " ID_RANGE, a[i]);
			if (rc < 0)
				return fail(x, "unknown user '%s'", a[i]);
			have_user = true;
		} else if (strcmp(a[i], "--group") == 0 && i + 1 < x->argc) {
			int rc = lookup_group(a[++i], &t.egid);
			if (rc == -ERANGE)
				return fail(x, "group id %s is " ID_RANGE, a[i]);
			if (rc < 0)
				return fail(x, "unknown group '%s'", a[i]);
			t.gid = t.egid;
		} else if (strcmp(a[i], "--exe") == 0 && i + 1 < x->argc) {
			snprintf(t.exe, sizeof(t.exe), "%s", a[++i]);
		} else if (strcmp(a[i], "--cmdline") == 0) {
			for (i++; i < x->argc; i++) {
				size_t n = strlen(a[i]) + 1;
				if (cmdlen + n > sizeof(cmd))
					break;
				memcpy(cmd + cmdlen, a[i], n);
				cmdlen += n;
			}
		} else {
			return fail(x, TEST_USAGE);
		}
	}
	if (!have_user)
		return fail(x, TEST_USAGE);
	const char *base = strrchr(t.exe, '/');
	snprintf(t.comm, sizeof(t.comm), "%.63s", base ? base + 1 : t.exe);
	if (cmdlen > 0 && t.exe[0] != '\0')
		task_script_from_cmdline(t.exe, cmd, cmdlen, t.script, sizeof(t.script));
	if (cmdlen > 0) /* ananicy's rules match argv[0]'s last part */
		str_copy(t.argv0, sizeof(t.argv0), cmd);
	struct decision *d = core_decision_new(x->rq->core);
	if (d == NULL)
		return fail(x, "out of memory");
	core_whatif(x->rq->core, &t, cmdlen ? cmd : NULL, cmdlen, x->rq->uid, d);
	json_t *r = json_pack("{s:I, s:I, s:o, s:o, s:o}", "uid", (json_int_t)t.euid, "gid",
			      (json_int_t)t.egid, "exe", jstr(t.exe), "hierarchies",
			      verdict_rows(x->rq->core, d, NULL), "priorities",
			      priority_rows(x->rq->core, d, 0));
	decision_free(d);
	return r;
}

/* ---- boosts ------------------------------------------------------------------------- */

bool
profile_granted(const struct boost_profile *p, uid_t uid)
{
	struct names_user u;
	gid_t groups[TASK_GROUPS_MAX];
	size_t n;

	if (names_user_by_uid(uid, &u) < 0)
		return false;
	const char *name = u.name;
	n = nss_grouplist(name, u.gid, groups, TASK_GROUPS_MAX);
	for (size_t i = 0; i < p->nallow; i++) {
		const char *a = p->allow[i];
		gid_t want;

		if (a[0] != '@') {
			if (strcmp(a, name) == 0)
				return true;
			continue;
		}
		if (lookup_group(a + 1, &want) < 0)
			continue;
		for (size_t k = 0; k < n; k++)
			if (groups[k] == want)
				return true;
	}
	return false;
}

static json_t *
start(struct verb_ctx *x, const struct boost_request *br)
{
	struct boost_info info;

	if (core_boost_start(x->rq->core, br, &info, x->err, x->errlen) < 0)
		return NULL;
	return json_pack("{s:I, s:I, s:o, s:o}", "id", (json_int_t)info.id, "expires",
			 (json_int_t)info.expires, "hierarchy", jstr(info.hier), "destination",
			 jstr(info.dest));
}

/* boost --profile NAME PID [DURATION] */
static json_t *
boost_profile(struct verb_ctx *x)
{
	struct core *c = x->rq->core;
	uid_t uid = x->rq->uid;
	struct task t;
	pid_t pid;

	if (x->argc < 4 || x->argc > 5 || !parse_pid(x->argv[3], &pid))
		return fail(x, "usage: boost --profile NAME PID [DURATION]");
	const struct boost_profile *p = boost_profile_of(core_policy(c)->cfg, x->argv[2]);
	if (p == NULL)
		return fail(x, "no boost profile '%s'", x->argv[2]);
	long secs = x->argc == 5 ? parse_duration(x->argv[4]) : p->max_seconds;
	if (secs <= 0)
		return fail(x, "invalid duration '%s' (use 90s, 15m, 2h, 1d)", x->argv[4]);
	if (uid != 0 && !profile_granted(p, uid))
		return deny(x, "boost profile '%s' is not granted to uid %u", p->name,
			    (unsigned)uid);
	bool seen = core_read_task(c, pid, &t) == 0;
	if (seen && !core_owns(uid, &t))
		log_pid_denial(x, "boost", pid);
	if (!seen || !core_owns(uid, &t))
		return no_process(x, pid);
	if (uid != 0 && secs > p->max_seconds) {
		char a[32], b[32];
		format_duration(secs, a, sizeof(a));
		format_duration(p->max_seconds, b, sizeof(b));
		return deny(x, "%s exceeds the maximum of profile '%s' (%s)", a, p->name, b);
	}
	struct boost_request br = { .pid = pid,
				    .hier = p->hier,
				    .dest = p->dest,
				    .seconds = secs,
				    .owner = uid,
				    .profile = p->name };
	return start(x, &br);
}

static json_t *
v_boost(struct verb_ctx *x)
{
	pid_t pid;

	if (x->argc >= 2 && strcmp(x->argv[1], "--profile") == 0)
		return boost_profile(x);
	if (x->rq->uid != 0)
		return deny(x, "a boost without --profile needs root");
	char *colon = x->argc == 4 ? strchr(x->argv[2], ':') : NULL;
	if (colon == NULL || !parse_pid(x->argv[1], &pid))
		return fail(x, "usage: boost PID HIERARCHY:/PATH DURATION");
	*colon = '\0';
	long secs = parse_duration(x->argv[3]);
	if (secs <= 0)
		return fail(x, "invalid duration '%s' (use 90s, 15m, 2h, 1d)", x->argv[3]);
	struct boost_request br = {
		.pid = pid, .hier = x->argv[2], .dest = colon + 1, .seconds = secs, .owner = 0
	};
	return start(x, &br);
}

static json_t *
v_unboost(struct verb_ctx *x)
{
	struct core *c = x->rq->core;
	uid_t uid = x->rq->uid;
	const char *arg = x->argc == 2 ? x->argv[1] : "";
	bool by_id = arg[0] == '#';
	const struct boost *b;
	unsigned ended[64];
	size_t count = 0;
	char why[64];
	pid_t n;

	if (!parse_pid(by_id ? arg + 1 : arg, &n))
		return fail(x, "usage: unboost ID|PID  (an id may be written #ID)");
	snprintf(why, sizeof(why), "cancelled by uid %u", (unsigned)uid);
	if ((b = core_boost_find(c, (unsigned)n)) != NULL) { /* an id wins over a pid */
		if (uid != 0 && b->owner != uid)
			return deny(x, "boost #%u is not yours", b->id);
		ended[count++] = b->id;
	} else if (by_id) {
		return fail(x, "no boost #%d", (int)n);
	} else { /* a pid: every boost it is a member of */
		TAILQ_FOREACH(b, core_boosts(c), link)
		for (size_t i = 0; i < b->n && count < 64; i++)
			if (b->m[i].pid == n && (uid == 0 || b->owner == uid))
				ended[count++] = b->id;
		if (count == 0)
			return fail(x, "no boost #%d and no boost of yours for pid %d", (int)n,
				    (int)n);
	}
	json_t *ids = json_array();
	for (size_t i = 0; i < count; i++) {
		(void)core_boost_end(c, ended[i], why);
		json_array_append_new(ids, json_integer(ended[i]));
	}
	return json_pack("{s:o}", "ended", ids);
}

static json_t *
v_boosts(struct verb_ctx *x)
{
	const struct boost *b;
	json_t *list = json_array();

	TAILQ_FOREACH(b, core_boosts(x->rq->core), link)
	{
		if (x->rq->uid != 0 && b->owner != x->rq->uid)
			continue;
		json_t *pids = json_array();
		for (size_t i = 0; i < b->n; i++)
			json_array_append_new(pids, json_integer(b->m[i].pid));
		json_array_append_new(
			list, json_pack("{s:I, s:o, s:o, s:I, s:I, s:I, s:o, s:o}", "id",
					(json_int_t)b->id, "hierarchy", jstr(b->hier),
					"destination", jstr(b->dest), "expires",
					(json_int_t)b->expires, "left",
					(json_int_t)difftime(b->expires, time(NULL)), "owner",
					(json_int_t)b->owner, "profile", jstr_or_null(b->profile),
					"pids", pids));
	}
	return list;
}

/* ---- nft sets: what the daemon put in them ---------------------------------------------- */

static void
nft_set_row(void *arg, const struct core_nft_set_info *s)
{
	const char *state = !s->configured ? "unnamed" : s->missing ? "missing" : "ok";

	json_array_append_new(arg, json_pack("{s:s, s:o, s:o, s:I, s:s}", "family",
					     nftset_family_name(s->ref->family), "table",
					     jstr(s->ref->table), "set", jstr(s->ref->set), "ids",
					     (json_int_t)s->ids, "state", state));
}

struct nft_groups {
	struct {
		const char *group; /* borrowed from the core, valid during the verb */
		uint64_t id;
	} *v;
	size_t n, cap;
	bool failed;
};

static void
nft_group(void *arg, const char *group, uint64_t id)
{
	struct nft_groups *g = arg;

	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		void *v = realloc(g->v, cap * sizeof(*g->v));
		if (v == NULL) {
			g->failed = true;
			return;
		}
		g->v = v;
		g->cap = cap;
	}
	g->v[g->n].group = group;
	g->v[g->n++].id = id;
}

static int
by_group(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Depth of a v2 group below the root: "socket cgroupv2 level N". */
static unsigned
level_of(const char *path)
{
	unsigned n = 0;

	for (const char *s = path; *s; s++)
		n += *s != '/' && (s == path || s[-1] == '/');
	return n;
}

/* The groups whose ids the daemon put in one set, sorted by path. */
static json_t *
nft_set_groups(struct verb_ctx *x, const struct nftset_ref *r)
{
	struct nft_groups g = { 0 };

	if (core_nft_set_groups(x->rq->core, r, nft_group, &g) < 0)
		return fail(x, "nft set %s %s %s is not one cgengined keeps",
			    nftset_family_name(r->family), r->table, r->set);
	if (g.failed) {
		free(g.v);
		return fail(x, "out of memory");
	}
	qsort(g.v, g.n, sizeof(*g.v), by_group);
	json_t *rows = json_array();
	for (size_t i = 0; i < g.n; i++)
		json_array_append_new(rows, json_pack("{s:o, s:I, s:i}", "group",
						      jstr(g.v[i].group), "id",
						      (json_int_t)g.v[i].id, "level",
						      (int)level_of(g.v[i].group)));
	free(g.v);
	return json_pack("{s:s, s:o, s:o, s:I, s:o}", "family",
			 nftset_family_name(r->family), "table", jstr(r->table), "set",
			 jstr(r->set), "ids", (json_int_t)json_array_size(rows), "groups", rows);
}

/*
 * nft-sets: every set with the number of ids the daemon put there;
 * nft-sets FAMILY TABLE SET: that set's groups and ids.  From the
 * daemon's own bookkeeping, so it costs the same for 10 groups as for
 * 10,000 (nft list set resolves each id to a path, which takes long).
 */
static json_t *
v_nftsets(struct verb_ctx *x)
{
	if (x->argc == 4) {
		char spec[3 * NFTSET_NAME_MAX + 4], why[256];
		struct nftset_ref r;

		snprintf(spec, sizeof(spec), "%s %s %s", x->argv[1], x->argv[2], x->argv[3]);
		if (nftset_parse(spec, &r, why, sizeof(why)) < 0)
			return fail(x, "nft-sets: %s", why);
		return nft_set_groups(x, &r);
	}
	if (x->argc != 1)
		return fail(x, "usage: nft-sets [FAMILY TABLE SET]");
	json_t *sets = json_array();
	core_nft_each_set(x->rq->core, nft_set_row, sets);
	return json_pack("{s:b, s:o}", "syncing", core_nft_syncing(x->rq->core), "sets",
			 sets);
}

/* ---- administration ------------------------------------------------------------------ */

static json_t *
v_reload(struct verb_ctx *x)
{
	if (core_reload(x->rq->core, x->rq->now) < 0)
		return fail(x, "reload failed; the previous configuration stays (see the log)");
	return json_pack("{s:b, s:I}", "reloaded", 1, "rules",
			 (json_int_t)rules_count(core_policy(x->rq->core)->rules));
}

static json_t *
v_pause(struct verb_ctx *x)
{
	core_set_paused(x->rq->core, true, x->rq->now);
	log_notice("paused by uid %u: processes are no longer moved", (unsigned)x->rq->uid);
	return json_pack("{s:b}", "paused", 1);
}

static json_t *
v_resume(struct verb_ctx *x)
{
	if (core_paused(x->rq->core))
		log_notice("resumed by uid %u; catching up", (unsigned)x->rq->uid);
	core_set_paused(x->rq->core, false, x->rq->now);
	return json_pack("{s:b}", "paused", 0);
}

static json_t *
v_rules(struct verb_ctx *x)
{
	const struct rules_set *set = core_policy(x->rq->core)->rules;
	json_t *list = json_array();

	for (size_t i = 0; i < rules_count(set); i++) {
		const struct rules_rule *r = rules_get(set, i);
		char key[512], where[600];

		snprintf(key, sizeof(key), "%s%s%s%s",
			 r->continuation	      ? "%"
			 : r->kind == RULES_KEY_GROUP ? "@"
						      : "",
			 r->continuation ? "" : r->key, r->process ? ":" : "",
			 r->process && !r->continuation ? r->process : "");
		snprintf(where, sizeof(where), "%s:%u", r->file, r->line);
		json_array_append_new(
			list, json_pack("{s:o, s:o, s:o, s:o, s:b, s:b, s:I}", "where",
					jstr(where), "key", jstr(key), "controllers",
					jstr(r->controllers), "destination", jstr(r->dest),
					"ignore", (r->options & RULES_OPT_IGNORE) != 0,
					"ignore_rt", (r->options & RULES_OPT_IGNORE_RT) != 0,
					"hits", (json_int_t)r->hits));
	}
	return list;
}

static json_t *
v_version(struct verb_ctx *x)
{
	return json_pack("{s:s, s:i}", "version", PACKAGE_VERSION, "protocol",
			 CONTROL_PROTOCOL);
}

/* The status and the fleet's part (fleet.c): what Prometheus reads. */
static json_t *
v_metrics(struct verb_ctx *x)
{
	json_t *r = v_status(x);

	json_object_set_new(r, "fleet", fleet_status(x->rq->core));
	return r;
}

/* May the peer ask for "metrics" without root: is it of metrics-group? */
static bool
metrics_granted(const struct verbs_request *rq)
{
	const char *name = core_policy(rq->core)->cfg->metrics_group;
	gid_t want;

	if (name[0] == '\0' || lookup_group(name, &want) < 0)
		return false;
	for (size_t i = 0; i < rq->ngroups; i++)
		if (rq->groups[i] == want)
			return true;
	return false;
}

static json_t *v_help(struct verb_ctx *x);

static const struct {
	const char *name;
	verb_fn *fn;
	bool root_only;
	const char *usage;
} verbs[] = {
	{ "status", v_status, false, "status" },
	{ "explain", v_explain, false, "explain PID" },
	{ "test", v_test, false, "test --user U [--group G] [--exe PATH] [--cmdline ARG...]" },
	{ "boost", v_boost, false,
	  "boost PID HIER:PATH DURATION | boost --profile NAME PID [DURATION]" },
	{ "unboost", v_unboost, false, "unboost ID|PID" },
	{ "boosts", v_boosts, false, "boosts" },
	{ "reload", v_reload, true, "reload" },
	{ "pause", v_pause, true, "pause" },
	{ "resume", v_resume, true, "resume" },
	{ "rules", v_rules, true, "rules" },
	{ "nft-sets", v_nftsets, true, "nft-sets [FAMILY TABLE SET]" },
	{ "metrics", v_metrics, true, "metrics" }, /* also metrics-group's; Prometheus */
	{ "version", v_version, false, "version" },
	{ "help", v_help, false, "help" },
};

#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static json_t *
v_help(struct verb_ctx *x)
{
	json_t *list = json_array();

	for (size_t i = 0; i < NVERBS; i++)
		json_array_append_new(list, json_pack("{s:s, s:s, s:b}", "verb", verbs[i].name,
						      "usage", verbs[i].usage, "root",
						      verbs[i].root_only));
	return list;
}

int
verbs_run(const struct verbs_request *rq, int argc, char **argv, json_t **result, char *err,
	  size_t errlen)
{
	struct verb_ctx x = { rq, argc, argv, err, errlen };

	*result = NULL;
	for (size_t i = 0; i < NVERBS; i++) {
		if (strcmp(argv[0], verbs[i].name) != 0)
			continue;
		if (verbs[i].root_only && rq->uid != 0 &&
		    !(verbs[i].fn == v_metrics && metrics_granted(rq))) {
			deny(&x, "'%s' needs root", verbs[i].name);
			return -EPERM;
		}
		if ((*result = verbs[i].fn(&x)) == NULL) {
			if (err[0] == '\0')
				snprintf(err, errlen, "out of memory");
			return -EINVAL;
		}
		return 0;
	}
	snprintf(err, errlen, "unknown request '%s' (try 'help')", argv[0]);
	return -EINVAL;
}
