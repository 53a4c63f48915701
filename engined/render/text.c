/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text.c -- the control verbs' values as text for people: one renderer
 * per verb, each reading only the value the verb returned (the same
 * value "json VERB" writes), so the two forms can never disagree.
 * Missing keys read as "" or 0: a renderer never fails, it only writes.
 */
#include "render_private.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* A verb's text rendering. */
typedef void text_fn(const json_t *r, struct strbuf *out);

/* ---- status ------------------------------------------------------------------------- */

static void
t_gate(const json_t *r, struct strbuf *out)
{
	const json_t *g = json_object_get(r, "exec_gate");

	if (!json_is_object(g)) {
		strbuf_printf(out, "exec gate:    off\n");
		return;
	}
	if (!json_is_true(json_object_get(g, "running"))) {
		strbuf_printf(out, "exec gate:    NOT RUNNING (%s)\n", get_s(g, "error"));
		return;
	}
	long long ready = get_i(g, "ready_groups");
	strbuf_printf(out, "exec gate:    %lld of %lld binaries held%s%s\n", get_i(g, "held"),
		   get_i(g, "named"),
		   json_is_true(json_object_get(g, "memory_locked")) ? ""
								   : ", memory NOT locked",
		   json_is_true(json_object_get(g, "pidfds")) ? "" : ", no pidfds");
	strbuf_printf(out,
		   "              execs %llu, placed at the gate %llu, watchdog %llu, "
		   "over budget %llu, late %llu, moved back %llu\n",
		   counter(r, "gate_execs"), counter(r, "gate_moves"), counter(r, "gate_watchdog"),
		   counter(r, "gate_over_budget"), counter(r, "gate_late"),
		   counter(r, "gate_undone"));
	if (ready > 0)
		strbuf_printf(out, "              %lld group%s kept ready for the gate\n",
			      ready, ready == 1 ? "" : "s");
}

static void
t_status(const json_t *r, struct strbuf *out)
{
	char up[64];
	size_t i;
	json_t *h;
	const char *lua = json_string_value(json_object_get(r, "lua"));

	format_duration((long)get_i(r, "uptime"), up, sizeof(up));
	strbuf_printf(out, "cgengined %s, pid %lld, up %s%s\n", get_s(r, "version"),
		   get_i(r, "pid"), up,
		   json_is_true(json_object_get(r, "paused")) ? ", PAUSED (moves nothing)" : "");
	strbuf_printf(out, "rules:        %lld (%s)\n", get_i(r, "rules"), get_s(r, "match"));
	strbuf_printf(out, "hierarchies: ");
	json_array_foreach(json_object_get(r, "hierarchies"), i, h)
		strbuf_printf(out, " %s", json_string_value(h));
	strbuf_printf(out, "\nevents:       fork %llu, exec %llu, uid %llu, gid %llu, exit %llu\n",
		   counter(r, "fork"), counter(r, "exec"), counter(r, "uid"), counter(r, "gid"),
		   counter(r, "exit"));
	strbuf_printf(out, "classified:   %llu, moves %llu, failed moves %llu, exited first %llu\n",
		   counter(r, "classified"), counter(r, "moves"), counter(r, "failed_moves"),
		   counter(r, "vanished"));
	strbuf_printf(out, "lost events:  %llu, rescans %llu, reloads %llu (%llu failed)\n",
		   counter(r, "lost_events"), counter(r, "rescans"), counter(r, "reloads"),
		   counter(r, "failed_reloads"));
	strbuf_printf(out, "lua:          %s, calls %llu, errors %llu (timeouts %llu), restarts %llu\n",
		   lua ? lua : "none", counter(r, "lua_calls"), counter(r, "lua_errors"),
		   counter(r, "lua_timeouts"), counter(r, "lua_restarts"));
	strbuf_printf(out, "boosts:       %lld active\n", get_i(r, "boosts"));
	strbuf_printf(out, "priorities:   applied %llu, failed %llu\n",
		      counter(r, "priorities_applied"), counter(r, "priorities_failed"));
	t_gate(r, out);
	strbuf_printf(out, "event source: %s\n", get_s(r, "event_source"));
}

/* ---- explain, test ---------------------------------------------------------------- */

static void
t_rows(const json_t *rows, bool current, struct strbuf *out)
{
	size_t i;
	json_t *row;

	strbuf_printf(out, "%-20s %-24s %-24s %s\n", "HIERARCHY", current ? "CURRENT" : "",
		   "WANTED", "WHY");
	json_array_foreach(rows, i, row)
	{
		const char *cur = json_string_value(json_object_get(row, "current"));
		const char *want = json_string_value(json_object_get(row, "wanted"));

		strbuf_printf(out, "%-20s %-24s %-24s %s\n", get_s(row, "hierarchy"),
			   current ? (cur ? cur : "?") : "", want ? want : "(left alone)",
			   get_s(row, "why"));
	}
}

/* The priorities wanted (and current, for explain); nothing if none. */
static void
t_prio(const json_t *rows, bool current, struct strbuf *out)
{
	size_t i;
	json_t *row;

	if (json_array_size(rows) == 0)
		return;
	strbuf_printf(out, "%-20s %-24s %-24s %s\n", "PRIORITY", current ? "CURRENT" : "",
		      "WANTED", "WHY");
	json_array_foreach(rows, i, row)
	{
		const char *cur = json_string_value(json_object_get(row, "current"));

		strbuf_printf(out, "%-20s %-24s %-24s %s\n", get_s(row, "priority"),
			      current ? (cur ? cur : "?") : "", get_s(row, "wanted"),
			      get_s(row, "why"));
	}
}

static void
t_explain(const json_t *r, struct strbuf *out)
{
	const char *user = get_s(r, "user");

	strbuf_printf(out, "pid %lld (%s) %s, uid %lld (%s), gid %lld%s\n", get_i(r, "pid"),
		   get_s(r, "comm"), get_s(r, "exe"), get_i(r, "uid"), user[0] ? user : "?",
		   get_i(r, "gid"),
		   json_is_true(json_object_get(r, "paused")) ? "; the daemon is PAUSED" : "");
	t_rows(json_object_get(r, "hierarchies"), true, out);
	t_prio(json_object_get(r, "priorities"), true, out);
	const json_t *gated = json_object_get(r, "placed_at_gate");
	if (json_is_integer(gated)) {
		char when[64];
		time_t at = (time_t)json_integer_value(gated);
		struct tm tm;
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&at, &tm));
		strbuf_printf(out, "placed at the exec gate at %s, before its first instruction\n",
			   when);
	}
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(r, "hierarchies"), i, row)
	{
		const char *unit = json_string_value(json_object_get(row, "unit"));
		const char *want = json_string_value(json_object_get(row, "unit_wanted"));
		const char *why = json_string_value(json_object_get(row, "left_alone"));

		if (unit != NULL)
			strbuf_printf(out, "unit: %s, wanted: %s\n", unit,
				   want != NULL ? want : "(left alone)");
		if (why != NULL)
			strbuf_printf(out, "left alone: %s\n", why);
	}
	json_array_foreach(json_object_get(r, "nft_sets"), i, row)
	{
		strbuf_printf(out, "nft sets: %s %s %s (level %lld, unified:%s)\n",
			   get_s(row, "family"), get_s(row, "table"), get_s(row, "set"),
			   get_i(row, "level"), get_s(row, "group"));
	}
}

static void
t_test(const json_t *r, struct strbuf *out)
{
	const char *exe = get_s(r, "exe");

	strbuf_printf(out, "uid %lld, gid %lld, exe %s\n", get_i(r, "uid"), get_i(r, "gid"),
		   exe[0] ? exe : "(none)");
	t_rows(json_object_get(r, "hierarchies"), false, out);
	t_prio(json_object_get(r, "priorities"), false, out);
}

/* ---- boosts ------------------------------------------------------------------------- */

static void
t_boost(const json_t *r, struct strbuf *out)
{
	char when[64];
	struct tm tm;
	time_t t = (time_t)get_i(r, "expires");

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
	strbuf_printf(out, "boost #%lld: %s:%s until %s\n", get_i(r, "id"), get_s(r, "hierarchy"),
		   get_s(r, "destination"), when);
}

static void
t_unboost(const json_t *r, struct strbuf *out)
{
	size_t i;
	json_t *id;

	strbuf_printf(out, "ended:");
	json_array_foreach(json_object_get(r, "ended"), i, id)
		strbuf_printf(out, " #%lld", (long long)json_integer_value(id));
	strbuf_printf(out, "\n");
}

static void
t_boosts(const json_t *r, struct strbuf *out)
{
	size_t i, k;
	json_t *b, *pid;

	strbuf_printf(out, "%-5s %-20s %-24s %-10s %-6s %-12s %s\n", "ID", "HIERARCHY",
		   "DESTINATION", "LEFT", "OWNER", "PROFILE", "PIDS");
	json_array_foreach(r, i, b)
	{
		char left[32];
		const char *prof = json_string_value(json_object_get(b, "profile"));
		long l = (long)get_i(b, "left");

		format_duration(l > 0 ? l : 0, left, sizeof(left));
		strbuf_printf(out, "#%-4lld %-20s %-24s %-10s %-6lld %-12s", get_i(b, "id"),
			   get_s(b, "hierarchy"), get_s(b, "destination"), left,
			   get_i(b, "owner"), prof ? prof : "-");
		json_array_foreach(json_object_get(b, "pids"), k, pid)
			strbuf_printf(out, "%s%lld", k ? "," : " ",
				   (long long)json_integer_value(pid));
		strbuf_printf(out, "\n");
	}
}

/* ---- nft sets, administration ---------------------------------------------------- */

static void
t_nftsets(const json_t *r, struct strbuf *out)
{
	static const struct {
		const char *state, *text;
	} says[] = {
		{ "ok", "ok" },
		{ "missing", "missing: filled once the firewall makes it" },
		{ "unnamed", "no longer configured: emptied at the next sync" },
	};
	size_t i;
	json_t *row;

	if (json_object_get(r, "groups") != NULL) {
		strbuf_printf(out, "nft set %s %s %s: %lld group id%s put there by cgengined\n",
			   get_s(r, "family"), get_s(r, "table"), get_s(r, "set"),
			   get_i(r, "ids"), get_i(r, "ids") == 1 ? "" : "s");
		strbuf_printf(out, "%-6s %-20s %s\n", "LEVEL", "ID", "GROUP");
		json_array_foreach(json_object_get(r, "groups"), i, row)
			strbuf_printf(out, "%-6lld %-20lld %s\n", get_i(row, "level"),
				   get_i(row, "id"), get_s(row, "group"));
		return;
	}
	strbuf_printf(out, "%-40s %8s  %s\n", "SET", "IDS", "STATE");
	json_array_foreach(json_object_get(r, "sets"), i, row)
	{
		char name[3 * NFTSET_NAME_MAX + 4];
		const char *state = get_s(row, "state");

		for (size_t k = 0; k < sizeof(says) / sizeof(says[0]); k++)
			if (strcmp(says[k].state, state) == 0)
				state = says[k].text;
		snprintf(name, sizeof(name), "%s %s %s", get_s(row, "family"), get_s(row, "table"),
			 get_s(row, "set"));
		strbuf_printf(out, "%-40s %8lld  %s\n", name, get_i(row, "ids"), state);
	}
	if (json_is_true(json_object_get(r, "syncing")))
		strbuf_printf(out, "(a sync with the firewall's sets is in progress)\n");
}

static void
t_reload(const json_t *r, struct strbuf *out)
{
	strbuf_printf(out, "reloaded: %lld rules\n", get_i(r, "rules"));
}

static void
t_paused(const json_t *r, struct strbuf *out)
{
	strbuf_printf(out, "%s\n", json_is_true(json_object_get(r, "paused")) ? "paused" : "resumed");
}

static void
t_rules(const json_t *r, struct strbuf *out)
{
	size_t i;
	json_t *rule;

	json_array_foreach(r, i, rule)
		strbuf_printf(out, "%s: %s %s %s%s%s  hits=%lld\n", get_s(rule, "where"),
			   get_s(rule, "key"), get_s(rule, "controllers"),
			   get_s(rule, "destination"),
			   json_is_true(json_object_get(rule, "ignore")) ? " ignore" : "",
			   json_is_true(json_object_get(rule, "ignore_rt")) ? " ignore_rt" : "",
			   get_i(rule, "hits"));
}

static void
t_version(const json_t *r, struct strbuf *out)
{
	strbuf_printf(out, "cgengined %s, protocol %lld\n", get_s(r, "version"),
		   get_i(r, "protocol"));
}

static void
t_help(const json_t *r, struct strbuf *out)
{
	size_t i;
	json_t *v;

	json_array_foreach(r, i, v)
		strbuf_printf(out, "%s%s\n", get_s(v, "usage"),
			   json_is_true(json_object_get(v, "root")) ? "   (root)" : "");
}

/* Each verb's renderer; "metrics" writes the status in Prometheus' format. */
static const struct {
	const char *verb;
	text_fn *text;
} texts[] = {
	{ "status", t_status },
	{ "explain", t_explain },
	{ "test", t_test },
	{ "boost", t_boost },
	{ "unboost", t_unboost },
	{ "boosts", t_boosts },
	{ "reload", t_reload },
	{ "pause", t_paused },
	{ "resume", t_paused },
	{ "rules", t_rules },
	{ "nft-sets", t_nftsets },
	{ "metrics", render_metrics },
	{ "version", t_version },
	{ "help", t_help },
};

int
render_text(const char *verb, const json_t *value, struct strbuf *out)
{
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		if (strcmp(verb, texts[i].verb) == 0) {
			texts[i].text(value, out);
			return 0;
		}
	}
	return -ENOENT;
}
