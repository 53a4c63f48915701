/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.c -- "metrics": the status value (the core's v_status) in
 * Prometheus' text format.  Every counter of the status (the table of
 * counters in verbs.c, which gives the key and the value) has one line
 * in the table below, in the same order, which gives its metric's name
 * and help text; verbs-t checks that the two tables agree.
 */
#include "render_private.h"

#include <jansson.h>
#include <stddef.h>
#include <string.h>

static const struct metric {
	const char *key;    /* in the status value: counters.KEY */
	const char *metric; /* cgengine_METRIC; NULL = an events_total type */
	const char *help;
} metrics[] = {
/* clang-format off */
#define M(key, metric, help) { key, metric, help }
	/* clang-format on */
	M("fork", NULL, NULL),
	M("exec", NULL, NULL),
	M("uid", NULL, NULL),
	M("gid", NULL, NULL),
	M("exit", NULL, NULL),
	M("classified", "classifications_total", "Processes classified."),
	M("moves", "moves_total", "Processes moved into a group."),
	M("failed_moves", "move_failures_total", "Moves that failed."),
	M("vanished", "vanished_total",
	  "Processes that exited before they could be handled."),
	M("lost_events", "lost_events_total",
	  "Times the kernel dropped process events, by source."),
	M("rescans", "rescans_total", "Full scans of /proc."),
	M("reloads", "reloads_total", "Successful reloads."),
	M("failed_reloads", "reload_failures_total", "Reloads refused because of errors."),
	M("lua_calls", "lua_calls_total", "Calls of the Lua classify hook."),
	M("lua_errors", "lua_errors_total", "Lua hook calls that failed."),
	M("lua_timeouts", "lua_timeouts_total", "Lua hook calls stopped by lua-timeout."),
	M("lua_restarts", "lua_restarts_total", "Lua helper processes started again."),
	M("groups_created", "groups_created_total", "Groups created."),
	M("groups_removed", "groups_removed_total", "Empty template groups removed."),
	M("state_saves", "state_saves_total", "Writes of the boost state file."),
	M("failed_state_saves", "state_save_failures_total",
	  "Writes of the boost state file that failed."),
	/* placement latency, from the kernel's time of the exec (buckets) */
	M("placed_0_50us", "placed_0_50us_total",
	  "Processes classified 0-50 us after their exec."),
	M("placed_50_100us", "placed_50_100us_total",
	  "Processes classified 50-100 us after their exec."),
	M("placed_100_250us", "placed_100_250us_total",
	  "Processes classified 100-250 us after their exec."),
	M("placed_250_500us", "placed_250_500us_total",
	  "Processes classified 250-500 us after their exec."),
	M("placed_500us_1ms", "placed_500us_1ms_total",
	  "Processes classified 0.5-1 ms after their exec."),
	M("placed_1_10ms", "placed_1_10ms_total",
	  "Processes classified 1-10 ms after their exec."),
	M("placed_over_10ms", "placed_over_10ms_total",
	  "Processes classified more than 10 ms after their exec."),
	/* the exec gate */
	M("gate_execs", "gate_execs_total", "Execs the exec gate held and let go."),
	M("gate_moves", "gate_moves_total",
	  "Moves made at the exec gate, before the program's first instruction."),
	M("gate_watchdog", "gate_watchdog_total",
	  "Gated execs the watchdog thread let go because the loop had not answered."),
	M("gate_late", "gate_late_total",
	  "Gated execs placed after the exec all the same: the watchdog answered first, or "
	  "the backend's group was not ready for the gate."),
	M("gate_over_budget", "gate_over_budget_total",
	  "Gated execs let go at once, unplaced, because their user had its budget of "
	  "held execs waiting already; placed after their exec."),
	M("gate_undone", "gate_undone_total",
	  "Processes moved back because their exec failed after the gate."),
	/* per-process priorities */
	M("priorities_applied", "priorities_applied_total",
	  "Threads given the priorities of their class (only what differed)."),
	M("priorities_failed", "priorities_failed_total",
	  "Threads or processes whose priorities could not be set."),
#undef M
};

#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

/* Where exec events come from: "bpf" when the BPF program runs, the proc
 * connector otherwise.  Forks, exits and uid/gid changes always come from
 * the connector; lost events count the losses of both. */
static const char *
exec_source(const json_t *r)
{
	const json_t *src = json_object_get(r, "event_source");

	return json_is_string(src) && strcmp(json_string_value(src), "bpf") == 0
		       ? "bpf" : "proc_connector";
}

/* One metric: its help, its type and its value. */
static void
metric(struct strbuf *out, const char *name, const char *type, const char *help,
       unsigned long long v, const char *source)
{
	strbuf_printf(out, "# HELP cgengine_%s %s\n# TYPE cgengine_%s %s\ncgengine_%s", name,
		      help, name, type, name);
	if (source != NULL)
		strbuf_printf(out, "{source=\"%s\"}", source);
	strbuf_printf(out, " %llu\n", v);
}

void
render_metrics(const json_t *r, struct strbuf *out)
{
	strbuf_printf(out, "# HELP cgengine_events_total Process events received, by source "
			"and type.\n"
			"# TYPE cgengine_events_total counter\n");
	for (size_t i = 0; i < NMETRICS; i++)
		if (metrics[i].metric == NULL)
			strbuf_printf(out, "cgengine_events_total{source=\"%s\",type=\"%s\"} %llu\n",
				      strcmp(metrics[i].key, "exec") == 0 ? exec_source(r)
									   : "proc_connector",
				      metrics[i].key, counter(r, metrics[i].key));
	for (size_t i = 0; i < NMETRICS; i++)
		if (metrics[i].metric != NULL)
			metric(out, metrics[i].metric, "counter", metrics[i].help,
			       counter(r, metrics[i].key),
			       strcmp(metrics[i].metric, "lost_events_total") == 0 ? exec_source(r)
										 : NULL);
	metric(out, "boosts_active", "gauge", "Boosts in force.",
	       (unsigned long long)get_i(r, "boosts"), NULL);
	metric(out, "rules", "gauge", "Rules loaded.", (unsigned long long)get_i(r, "rules"), NULL);
	metric(out, "paused", "gauge", "1 while paused.",
	       json_is_true(json_object_get(r, "paused")), NULL);
	metric(out, "uptime_seconds", "gauge", "Seconds since start.",
	       (unsigned long long)get_i(r, "uptime"), NULL);
	const json_t *g = json_object_get(r, "exec_gate");
	metric(out, "gate_open", "gauge", "1 while the exec gate holds execs.",
	       json_is_true(json_object_get(g, "running")), NULL);
	metric(out, "gate_binaries", "gauge", "Binaries the exec gate holds.",
	       (unsigned long long)get_i(g, "held"), NULL);
	const json_t *src = json_object_get(r, "event_source");
	strbuf_printf(out, "# HELP cgengine_event_source The source of exec events (label).\n"
			   "# TYPE cgengine_event_source gauge\n"
			   "cgengine_event_source{source=\"%s\"} 1\n",
		      json_is_string(src) ? json_string_value(src) : "netlink");
	render_fleet(r, out);
}
