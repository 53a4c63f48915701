/*
 * verbs.c -- what the control socket can be asked, and who may ask.
 *
 * Root may do everything.  Other users may ask for help, the version,
 * the status, a what-if "test", an "explain" of their own processes,
 * boost their own processes through a profile granted to them, and
 * list or end their own boosts.  Every denial is answered and logged.
 */
#include "control_private.h"

#include <errno.h>
#include <stddef.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int verb_fn(const struct request *rq, int argc, char **argv, struct buf *out,
		    char *err, size_t errlen);

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -1)

/* ---- helpers ------------------------------------------------------------- */

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
duration_text(long secs, char *buf, size_t len)
{
	if (secs >= 3600)
		snprintf(buf, len, "%ldh%02ldm%02lds", secs / 3600, secs / 60 % 60,
			 secs % 60);
	else if (secs >= 60)
		snprintf(buf, len, "%ldm%02lds", secs / 60, secs % 60);
	else
		snprintf(buf, len, "%lds", secs);
}

/* Does the task belong to uid (by real or effective uid)? */
static bool
owns(uid_t uid, const struct task *t)
{
	return uid == 0 || t->uid == uid || t->euid == uid;
}

/* ---- status, metrics ------------------------------------------------------- */

/* Every counter once: its JSON key, its Prometheus name, its help text. */
static const struct counter {
	const char *key;    /* in "json status": counters.KEY */
	const char *metric; /* cgengine_METRIC; NULL = an events_total type */
	const char *help;
	size_t offset; /* in struct core_stats */
} counters[] = {
/* clang-format off */
#define C(key, metric, help, field) { key, metric, help, offsetof(struct core_stats, field) }
	/* clang-format on */
	C("fork", NULL, NULL, ev_fork),
	C("exec", NULL, NULL, ev_exec),
	C("uid", NULL, NULL, ev_uid),
	C("gid", NULL, NULL, ev_gid),
	C("exit", NULL, NULL, ev_exit),
	C("classified", "classifications_total", "Processes classified.", classified),
	C("moves", "moves_total", "Processes moved into a group.", moves),
	C("failed_moves", "move_failures_total", "Moves that failed.", move_failures),
	C("vanished", "vanished_total",
	  "Processes that exited before they could be handled.", vanished),
	C("lost_events", "lost_events_total", "Times the kernel dropped process events.",
	  lost),
	C("rescans", "rescans_total", "Full scans of /proc.", rescans),
	C("reloads", "reloads_total", "Successful reloads.", reloads),
	C("failed_reloads", "reload_failures_total", "Reloads refused because of errors.",
	  reload_failures),
	C("lua_calls", "lua_calls_total", "Calls of the Lua classify hook.", hook_calls),
	C("lua_errors", "lua_errors_total", "Lua hook calls that failed.", hook_errors),
	C("groups_created", "groups_created_total", "Groups created.", groups_created),
	C("groups_removed", "groups_removed_total", "Empty template groups removed.",
	  groups_removed),
#undef C
};

#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))

static unsigned long long
value(const struct core *e, const struct counter *c)
{
	return (unsigned long long)*(const uint64_t *)((const char *)core_stats(e) +
						       c->offset);
}

/* by name, for the text status */
static unsigned long long
count(const struct core *e, const char *key)
{
	for (size_t i = 0; i < NCOUNTERS; i++)
		if (strcmp(counters[i].key, key) == 0)
			return value(e, &counters[i]);
	return 0;
}

static const char *
match_name(const struct core *e)
{
	return core_policy(e)->cfg->match == RULES_FIRST_MATCH ? "first-match" : "per-hierarchy";
}

static void
status_json(struct core *e, long up, struct buf *out)
{
	buf_printf(out, "{\"version\":\"%s\",\"protocol\":%d,\"pid\":%d,\"uptime\":%ld,",
		   PACKAGE_VERSION, CONTROL_PROTOCOL, (int)getpid(), up);
	buf_printf(out, "\"paused\":%s,\"rules\":%zu,\"match\":\"%s\",\"boosts\":%zu,",
		   core_paused(e) ? "true" : "false", rules_count(core_policy(e)->rules),
		   match_name(e), core_boost_count(e));
	buf_printf(out, "\"hierarchies\":[");
	for (size_t i = 0; i < core_policy(e)->n; i++) {
		buf_printf(out, "%s", i ? "," : "");
		buf_json_str(out, core_policy(e)->labels[i]);
	}
	buf_printf(out, "],\"counters\":{");
	for (size_t i = 0; i < NCOUNTERS; i++)
		buf_printf(out, "%s\"%s\":%llu", i ? "," : "", counters[i].key,
			   value(e, &counters[i]));
	buf_printf(out, "}}\n");
}

static int
v_status(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	 size_t errlen)
{
	struct core *e = rq->core;
	long up = (long)difftime(time(NULL), core_started(e));
	char upt[64];

	if (rq->json) {
		status_json(e, up, out);
		return 0;
	}
	duration_text(up, upt, sizeof(upt));
	buf_printf(out, "cgengined %s, pid %d, up %s%s\n", PACKAGE_VERSION, (int)getpid(),
		   upt, core_paused(e) ? ", PAUSED (moves nothing)" : "");
	buf_printf(out, "rules:        %zu (%s)\n", rules_count(core_policy(e)->rules),
		   match_name(e));
	buf_printf(out, "hierarchies: ");
	for (size_t i = 0; i < core_policy(e)->n; i++)
		buf_printf(out, " %s", core_policy(e)->labels[i]);
	buf_printf(
		out,
		"\nevents:       fork %llu, exec %llu, uid %llu, gid %llu, exit %llu\n",
		count(e, "fork"), count(e, "exec"), count(e, "uid"), count(e, "gid"),
		count(e, "exit"));
	buf_printf(
		out,
		"classified:   %llu, moves %llu, failed moves %llu, exited first %llu\n",
		count(e, "classified"), count(e, "moves"), count(e, "failed_moves"),
		count(e, "vanished"));
	buf_printf(out, "lost events:  %llu, rescans %llu, reloads %llu (%llu failed)\n",
		   count(e, "lost_events"), count(e, "rescans"), count(e, "reloads"),
		   count(e, "failed_reloads"));
	buf_printf(out, "lua:          %s, calls %llu, errors %llu\n",
		   core_policy(e)->hooks ? core_policy(e)->cfg->lua_script : "none",
		   count(e, "lua_calls"), count(e, "lua_errors"));
	buf_printf(out, "boosts:       %zu active\n", core_boost_count(e));
	return 0;
}

static void
metric(struct buf *out, const char *name, const char *type, const char *help,
       unsigned long long v)
{
	buf_printf(out,
		   "# HELP cgengine_%s %s\n# TYPE cgengine_%s %s\ncgengine_%s %llu\n",
		   name, help, name, type, name, v);
}

static int
v_metrics(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	  size_t errlen)
{
	struct core *e = rq->core;

	if (rq->json)
		return v_status(rq, argc, argv, out, err, errlen);
	buf_printf(out, "# HELP cgengine_events_total Process events received, by type.\n"
			"# TYPE cgengine_events_total counter\n");
	for (size_t i = 0; i < NCOUNTERS; i++)
		if (counters[i].metric == NULL)
			buf_printf(out, "cgengine_events_total{type=\"%s\"} %llu\n",
				   counters[i].key, value(e, &counters[i]));
	for (size_t i = 0; i < NCOUNTERS; i++)
		if (counters[i].metric != NULL)
			metric(out, counters[i].metric, "counter", counters[i].help,
			       value(e, &counters[i]));
	metric(out, "boosts_active", "gauge", "Boosts in force.", core_boost_count(e));
	metric(out, "rules", "gauge", "Rules loaded.", rules_count(core_policy(e)->rules));
	metric(out, "paused", "gauge", "1 while paused.", core_paused(e));
	metric(out, "uptime_seconds", "gauge", "Seconds since start.",
	       (unsigned long long)difftime(time(NULL), core_started(e)));
	return 0;
}

/* ---- explain, test ------------------------------------------------------------ */

static void
verdict_rows(struct core *e, bool json, const struct task_cgroups *cg, struct buf *out)
{
	if (!json)
		buf_printf(out, "%-20s %-24s %-24s %s\n", "HIERARCHY",
			   cg ? "CURRENT" : "", "WANTED", "WHY");
	for (size_t i = 0; i < core_policy(e)->n; i++) {
		const struct verdict *v = &core_verdicts(e)[i];
		const char *cur = cg ? task_cgroup_of(cg, core_policy(e)->names[i]) : NULL;

		if (json) {
			buf_printf(out, "%s{\"hierarchy\":", i ? "," : "");
			buf_json_str(out, core_policy(e)->labels[i]);
			if (cg != NULL) {
				buf_printf(out, ",\"current\":");
				if (cur)
					buf_json_str(out, cur);
				else
					buf_printf(out, "null");
			}
			buf_printf(out, ",\"wanted\":");
			if (v->move)
				buf_json_str(out, v->dest);
			else
				buf_printf(out, "null");
			buf_printf(out, ",\"why\":");
			buf_json_str(out, v->reason);
			buf_printf(out, "}");
		} else {
			buf_printf(out, "%-20s %-24s %-24s %s\n", core_policy(e)->labels[i],
				   cg ? (cur ? cur : "?") : "",
				   v->move ? v->dest : "(left alone)", v->reason);
		}
	}
}

static int
v_explain(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	  size_t errlen)
{
	struct core *e = rq->core;
	pid_t pid;

	if (argc != 2 || !parse_pid(argv[1], &pid))
		return ERR("usage: explain PID");
	enum decide_result r = core_explain(e, pid, rq->uid);
	if (r == DECIDE_GONE)
		return ERR("no process %d", (int)pid);
	if (r == DECIDE_KTHREAD)
		return ERR("pid %d is a kernel thread; cgengined never moves those",
			   (int)pid);
	if (r == DECIDE_DENIED) {
		log_warning("control: uid %u denied: explain of pid %d, not its own",
			    (unsigned)rq->uid, (int)pid);
		return ERR("permission denied: pid %d belongs to another user", (int)pid);
	}
	const struct task t = *core_snapshot(e);
	const struct task_cgroups *cg = core_snapshot_cgroups(e);
	const char *user = core_user_name(e, t.euid);
	if (rq->json) {
		buf_printf(out, "{\"pid\":%d,\"comm\":", (int)pid);
		buf_json_str(out, t.comm);
		buf_printf(out, ",\"exe\":");
		buf_json_str(out, t.exe);
		buf_printf(out, ",\"uid\":%u,\"user\":", (unsigned)t.euid);
		buf_json_str(out, user ? user : "");
		buf_printf(out, ",\"sticky\":%s,\"paused\":%s,\"hierarchies\":[",
			   r == DECIDE_STICKY ? "true" : "false",
			   core_paused(e) ? "true" : "false");
		verdict_rows(e, true, cg, out);
		buf_printf(out, "]}\n");
		return 0;
	}
	buf_printf(out, "pid %d (%s) %s, uid %u (%s), gid %u%s\n", (int)pid, t.comm,
		   t.exe[0] ? t.exe : "", (unsigned)t.euid, user ? user : "?",
		   (unsigned)t.egid, core_paused(e) ? "; the daemon is PAUSED" : "");
	verdict_rows(e, false, cg, out);
	return 0;
}

/* Resolve a user or group for "test"; false if unknown. */
static bool
lookup_user(const char *name, struct task *t)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	char *end;
	long id = strtol(name, &end, 10);

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) == 0 && res != NULL) {
		t->uid = t->euid = pw.pw_uid;
		t->gid = t->egid = pw.pw_gid;
		int n = TASK_GROUPS_MAX;
		if (getgrouplist(pw.pw_name, pw.pw_gid, t->groups, &n) < 0)
			n = 0;
		t->ngroups = (size_t)n;
		return true;
	}
	if (*end != '\0' || id < 0)
		return false;
	t->uid = t->euid = (uid_t)id;
	return true;
}

static bool
lookup_group(const char *name, gid_t *gid)
{
	struct group gr, *res = NULL;
	char buf[16384];
	char *end;
	long id = strtol(name, &end, 10);

	if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) == 0 && res != NULL) {
		*gid = gr.gr_gid;
		return true;
	}
	if (*end != '\0' || id < 0)
		return false;
	*gid = (gid_t)id;
	return true;
}

static int
v_test(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
       size_t errlen)
{
	struct core *e = rq->core;
	static struct task t;
	char cmd[4096];
	size_t cmdlen = 0;
	bool have_user = false;

	memset(&t, 0, sizeof(t));
	t.pid = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--user") == 0 && i + 1 < argc) {
			if (!lookup_user(argv[++i], &t))
				return ERR("unknown user '%s'", argv[i]);
			have_user = true;
		} else if (strcmp(argv[i], "--group") == 0 && i + 1 < argc) {
			if (!lookup_group(argv[++i], &t.egid))
				return ERR("unknown group '%s'", argv[i]);
			t.gid = t.egid;
		} else if (strcmp(argv[i], "--exe") == 0 && i + 1 < argc) {
			snprintf(t.exe, sizeof(t.exe), "%s", argv[++i]);
		} else if (strcmp(argv[i], "--cmdline") == 0) {
			for (i++; i < argc; i++) {
				size_t n = strlen(argv[i]) + 1;
				if (cmdlen + n > sizeof(cmd))
					break;
				memcpy(cmd + cmdlen, argv[i], n);
				cmdlen += n;
			}
		} else {
			return ERR(
				"usage: test --user U [--group G] [--exe PATH] [--cmdline ARG...]");
		}
	}
	if (!have_user)
		return ERR(
			"usage: test --user U [--group G] [--exe PATH] [--cmdline ARG...]");
	const char *base = strrchr(t.exe, '/');
	snprintf(t.comm, sizeof(t.comm), "%.63s", base ? base + 1 : t.exe);
	if (cmdlen > 0 && t.exe[0] != '\0')
		task_script_from_cmdline(t.exe, cmd, cmdlen, t.script, sizeof(t.script));
	core_whatif(e, &t, cmdlen ? cmd : NULL, cmdlen);
	if (rq->json) {
		buf_printf(out, "{\"uid\":%u,\"gid\":%u,\"exe\":", (unsigned)t.euid,
			   (unsigned)t.egid);
		buf_json_str(out, t.exe);
		buf_printf(out, ",\"hierarchies\":[");
		verdict_rows(e, true, NULL, out);
		buf_printf(out, "]}\n");
		return 0;
	}
	buf_printf(out, "uid %u, gid %u, exe %s\n", (unsigned)t.euid, (unsigned)t.egid,
		   t.exe[0] ? t.exe : "(none)");
	verdict_rows(e, false, NULL, out);
	return 0;
}

/* ---- boosts -------------------------------------------------------------------- */

/* Is the boost profile granted to uid (by name or by @group)? */
static bool
granted(const struct boost_profile *p, uid_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	gid_t groups[256];
	int n = 256;

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0 || res == NULL)
		return false;
	if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) < 0)
		n = 0;
	for (size_t i = 0; i < p->nallow; i++) {
		const char *a = p->allow[i];
		gid_t gid;

		if (a[0] != '@') {
			if (strcmp(a, pw.pw_name) == 0)
				return true;
			continue;
		}
		if (!lookup_group(a + 1, &gid))
			continue;
		for (int k = 0; k < n; k++)
			if (groups[k] == gid)
				return true;
	}
	return false;
}

static const struct boost_profile *
find_profile(const struct config *c, const char *name)
{
	for (size_t i = 0; i < c->nprofiles; i++)
		if (strcmp(c->profiles[i].name, name) == 0)
			return &c->profiles[i];
	return NULL;
}

static int deny(const struct request *rq, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
deny(const struct request *rq, char *err, size_t errlen, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warning("control: uid %u denied: %s", (unsigned)rq->uid, msg);
	return ERR("permission denied: %s", msg);
}

static int
boost_answer(const struct request *rq, const struct boost_info *b, struct buf *out)
{
	char when[64];
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&b->expires, &tm));
	if (rq->json)
		buf_printf(out, "{\"id\":%u,\"expires\":%lld}\n", b->id,
			   (long long)b->expires);
	else
		buf_printf(out, "boost #%u: %s:%s until %s\n", b->id, b->hier, b->dest,
			   when);
	return 0;
}

/* boost --profile NAME PID [DURATION] */
static int
boost_profile(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	      size_t errlen)
{
	struct core *e = rq->core;
	struct task t;
	pid_t pid;

	if (argc < 4 || argc > 5 || !parse_pid(argv[3], &pid))
		return ERR("usage: boost --profile NAME PID [DURATION]");
	const struct boost_profile *p = find_profile(core_policy(e)->cfg, argv[2]);
	if (p == NULL)
		return ERR("no boost profile '%s'", argv[2]);
	long secs = argc == 5 ? parse_duration(argv[4]) : p->max_seconds;
	if (secs <= 0)
		return ERR("invalid duration '%s' (use 90s, 15m, 2h, 1d)", argv[4]);
	if (rq->uid != 0 && !granted(p, rq->uid))
		return deny(rq, err, errlen,
			    "boost profile '%s' is not granted to uid %u", p->name,
			    (unsigned)rq->uid);
	if (core_read_task(e, pid, &t) < 0)
		return ERR("no process %d", (int)pid);
	if (!owns(rq->uid, &t))
		return deny(rq, err, errlen, "pid %d belongs to another user", (int)pid);
	if (rq->uid != 0 && secs > p->max_seconds) {
		char a[32], b[32];
		duration_text(secs, a, sizeof(a));
		duration_text(p->max_seconds, b, sizeof(b));
		return deny(rq, err, errlen,
			    "%s exceeds the maximum of profile '%s' (%s)", a, p->name, b);
	}
	struct boost_request br = { .pid = pid,
				    .hier = p->hier,
				    .dest = p->dest,
				    .seconds = secs,
				    .owner = rq->uid,
				    .profile = p->name };
	struct boost_info info;
	if (core_boost_start(e, &br, &info, err, errlen) < 0)
		return -1;
	return boost_answer(rq, &info, out);
}

static int
v_boost(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	size_t errlen)
{
	pid_t pid;

	if (argc >= 2 && strcmp(argv[1], "--profile") == 0)
		return boost_profile(rq, argc, argv, out, err, errlen);
	if (rq->uid != 0)
		return deny(rq, err, errlen, "a boost without --profile needs root");
	char *colon = argc == 4 ? strchr(argv[2], ':') : NULL;
	if (colon == NULL || !parse_pid(argv[1], &pid))
		return ERR("usage: boost PID HIERARCHY:/PATH DURATION");
	*colon = '\0';
	long secs = parse_duration(argv[3]);
	if (secs <= 0)
		return ERR("invalid duration '%s' (use 90s, 15m, 2h, 1d)", argv[3]);
	struct boost_request br = { .pid = pid,
				    .hier = argv[2],
				    .dest = colon + 1,
				    .seconds = secs,
				    .owner = 0 };
	struct boost_info info;
	if (core_boost_start(rq->core, &br, &info, err, errlen) < 0)
		return -1;
	return boost_answer(rq, &info, out);
}

static int
v_unboost(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	  size_t errlen)
{
	struct core *e = rq->core;
	const char *arg = argc == 2 ? argv[1] : "";
	bool by_id = arg[0] == '#';
	pid_t n;
	char why[64];

	if (!parse_pid(by_id ? arg + 1 : arg, &n))
		return ERR("usage: unboost ID|PID  (an id may be written #ID)");
	snprintf(why, sizeof(why), "cancelled by uid %u", (unsigned)rq->uid);
	const struct boost *b = core_boost_find(e, (unsigned)n); /* an id wins over a pid */
	if (b != NULL) {
		if (rq->uid != 0 && b->owner != rq->uid)
			return deny(rq, err, errlen, "boost #%u is not yours", b->id);
		unsigned id = b->id;
		(void)core_boost_end(e, id, why);
		buf_printf(out, rq->json ? "{\"ended\":[%u]}\n" : "boost #%u ended\n",
			   id);
		return 0;
	}
	if (by_id)
		return ERR("no boost #%d", (int)n);
	/* a pid: end every boost it is a member of */
	unsigned ended[64];
	size_t count = 0;
	TAILQ_FOREACH(b, core_boosts(e), link)
	for (size_t i = 0; i < b->n && count < 64; i++)
		if (b->m[i].pid == n && (rq->uid == 0 || b->owner == rq->uid))
			ended[count++] = b->id;
	if (count == 0)
		return ERR("no boost #%d and no boost of yours for pid %d", (int)n,
			   (int)n);
	for (size_t i = 0; i < count; i++)
		(void)core_boost_end(e, ended[i], why);
	buf_printf(out, rq->json ? "{\"ended\":[" : "ended:");
	for (size_t i = 0; i < count; i++)
		buf_printf(out, rq->json ? "%s%u" : "%s#%u", i && rq->json ? "," : " ",
			   ended[i]);
	buf_printf(out, rq->json ? "]}\n" : "\n");
	return 0;
}

static int
v_boosts(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	 size_t errlen)
{
	struct core *e = rq->core;
	const struct boost *b;
	bool first = true;

	if (rq->json)
		buf_printf(out, "[");
	else
		buf_printf(out, "%-5s %-20s %-24s %-10s %-6s %-12s %s\n", "ID",
			   "HIERARCHY", "DESTINATION", "LEFT", "OWNER", "PROFILE",
			   "PIDS");
	TAILQ_FOREACH(b, core_boosts(e), link)
	{
		long left = (long)difftime(b->expires, time(NULL));
		char lt[32];

		if (rq->uid != 0 && b->owner != rq->uid)
			continue;
		duration_text(left > 0 ? left : 0, lt, sizeof(lt));
		if (rq->json) {
			buf_printf(out, "%s{\"id\":%u,\"hierarchy\":", first ? "" : ",",
				   b->id);
			buf_json_str(out, b->hier);
			buf_printf(out, ",\"destination\":");
			buf_json_str(out, b->dest);
			buf_printf(out, ",\"expires\":%lld,\"owner\":%u,\"profile\":",
				   (long long)b->expires, (unsigned)b->owner);
			if (b->profile)
				buf_json_str(out, b->profile);
			else
				buf_printf(out, "null");
			buf_printf(out, ",\"pids\":[");
			for (size_t i = 0; i < b->n; i++)
				buf_printf(out, "%s%d", i ? "," : "", (int)b->m[i].pid);
			buf_printf(out, "]}");
		} else {
			buf_printf(out, "#%-4u %-20s %-24s %-10s %-6u %-12s", b->id,
				   b->hier, b->dest, lt, (unsigned)b->owner,
				   b->profile ? b->profile : "-");
			for (size_t i = 0; i < b->n; i++)
				buf_printf(out, "%s%d", i ? "," : " ", (int)b->m[i].pid);
			buf_printf(out, "\n");
		}
		first = false;
	}
	if (rq->json)
		buf_printf(out, "]\n");
	return 0;
}

/* ---- administration ------------------------------------------------------------- */

static int
v_reload(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	 size_t errlen)
{
	if (core_reload(rq->core, rq->now) < 0)
		return ERR("reload failed; the previous configuration stays (see the log)");
	buf_printf(out,
		   rq->json ? "{\"reloaded\":true,\"rules\":%zu}\n" : "reloaded: %zu rules\n",
		   rules_count(core_policy(rq->core)->rules));
	return 0;
}

static int
v_pause(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	size_t errlen)
{
	core_set_paused(rq->core, true, rq->now);
	log_notice("paused by uid %u: processes are no longer moved", (unsigned)rq->uid);
	buf_printf(out, rq->json ? "{\"paused\":true}\n" : "paused\n");
	return 0;
}

static int
v_resume(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	 size_t errlen)
{
	struct core *e = rq->core;

	if (core_paused(e))
		log_notice("resumed by uid %u; catching up", (unsigned)rq->uid);
	core_set_paused(e, false, rq->now);
	buf_printf(out, rq->json ? "{\"paused\":false}\n" : "resumed\n");
	return 0;
}

static int
v_rules(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	size_t errlen)
{
	const struct rules_set *set = core_policy(rq->core)->rules;

	buf_printf(out, rq->json ? "[" : "");
	for (size_t i = 0; i < rules_count(set); i++) {
		const struct rules_rule *r = rules_get(set, i);
		char key[512];

		snprintf(key, sizeof(key), "%s%s%s%s",
			 r->continuation	      ? "%"
			 : r->kind == RULES_KEY_GROUP ? "@"
						      : "",
			 r->continuation ? "" : r->key, r->process ? ":" : "",
			 r->process && !r->continuation ? r->process : "");
		if (rq->json) {
			char where[600];
			snprintf(where, sizeof(where), "%s:%u", r->file, r->line);
			buf_printf(out, "%s{\"where\":", i ? "," : "");
			buf_json_str(out, where);
			buf_printf(out, ",\"key\":");
			buf_json_str(out, key);
			buf_printf(out, ",\"controllers\":");
			buf_json_str(out, r->controllers);
			buf_printf(out, ",\"destination\":");
			buf_json_str(out, r->dest);
			buf_printf(out, ",\"hits\":%llu}", (unsigned long long)r->hits);
		} else {
			buf_printf(out, "%s:%u: %s %s %s%s%s  hits=%llu\n", r->file,
				   r->line, key, r->controllers, r->dest,
				   r->options & RULES_OPT_IGNORE ? " ignore" : "",
				   r->options & RULES_OPT_IGNORE_RT ? " ignore_rt" : "",
				   (unsigned long long)r->hits);
		}
	}
	buf_printf(out, rq->json ? "]\n" : "");
	return 0;
}

static int
v_version(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
	  size_t errlen)
{
	buf_printf(out,
		   rq->json ? "{\"version\":\"%s\",\"protocol\":%d}\n"
			    : "cgengined %s, protocol %d\n",
		   PACKAGE_VERSION, CONTROL_PROTOCOL);
	return 0;
}

static int v_help(const struct request *rq, int argc, char **argv, struct buf *out,
		  char *err, size_t errlen);

static const struct {
	const char *name;
	verb_fn *fn;
	bool root_only;
	const char *usage;
} verbs[] = {
	{ "status", v_status, false, "status" },
	{ "explain", v_explain, false, "explain PID" },
	{ "test", v_test, false,
	  "test --user U [--group G] [--exe PATH] [--cmdline ARG...]" },
	{ "boost", v_boost, false,
	  "boost PID HIER:PATH DURATION | boost --profile NAME PID [DURATION]" },
	{ "unboost", v_unboost, false, "unboost ID|PID" },
	{ "boosts", v_boosts, false, "boosts" },
	{ "reload", v_reload, true, "reload" },
	{ "pause", v_pause, true, "pause" },
	{ "resume", v_resume, true, "resume" },
	{ "rules", v_rules, true, "rules" },
	{ "metrics", v_metrics, true, "metrics" },
	{ "version", v_version, false, "version" },
	{ "help", v_help, false, "help" },
};

static int
v_help(const struct request *rq, int argc, char **argv, struct buf *out, char *err,
       size_t errlen)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		buf_printf(out, "%s%s\n", verbs[i].usage,
			   verbs[i].root_only ? "   (root)" : "");
	return 0;
}

int
control_dispatch(const struct request *rq, int argc, char **argv, struct buf *body,
		 char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (strcmp(argv[0], verbs[i].name) != 0)
			continue;
		if (verbs[i].root_only && rq->uid != 0)
			return deny(rq, err, errlen, "'%s' needs root", verbs[i].name);
		return verbs[i].fn(rq, argc, argv, body, err, errlen);
	}
	return ERR("unknown request '%s' (try 'help')", argv[0]);
}
