/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleet.c -- the fleet's part of "metrics" (the "fleet" object the core's
 * fleet.c adds to the status) in Prometheus' text format: the info
 * metric with the version and the fingerprints of the configuration and
 * rules, the time of the last (re)load, moves by hierarchy, the rules
 * that fire most, and boosts by profile.  docs/metrics.md lists them.
 */
#include "render_private.h"

#include <jansson.h>

/* s as a label value: backslash, double quote and newline escaped. */
static void
label(struct strbuf *out, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"')
			strbuf_printf(out, "\\%c", *s);
		else if (*s == '\n')
			strbuf_printf(out, "\\n");
		else
			strbuf_add(out, s, 1);
	}
}

static void
family(struct strbuf *out, const char *name, const char *type, const char *help)
{
	strbuf_printf(out, "# HELP cgengine_%s %s\n# TYPE cgengine_%s %s\n", name, help,
		      name, type);
}

static void
info(const json_t *status, const json_t *f, struct strbuf *out)
{
	family(out, "info", "gauge",
	       "The version and fingerprints of the loaded configuration and rules; always 1.");
	strbuf_printf(out, "cgengine_info{version=\"");
	label(out, get_s(status, "version"));
	strbuf_printf(out, "\",config_hash=\"%s\",rules_hash=\"%s\"} 1\n",
		      get_s(f, "config_hash"), get_s(f, "rules_hash"));
	family(out, "config_last_reload_success_timestamp_seconds", "gauge",
	       "When the configuration and rules in force were loaded (Unix time).");
	strbuf_printf(out, "cgengine_config_last_reload_success_timestamp_seconds %lld\n",
		      get_i(f, "loaded"));
}

static void
hierarchies(const json_t *f, struct strbuf *out)
{
	const json_t *h = json_object_get(f, "moves_by_hierarchy");
	static const char *const what[][3] = {
		{ "moves", "hierarchy_moves_total", "Processes moved, by hierarchy." },
		{ "failures", "hierarchy_move_failures_total",
		  "Moves that failed, by hierarchy." },
	};
	const char *name;
	const json_t *v;

	for (size_t k = 0; k < 2; k++) {
		family(out, what[k][1], "counter", what[k][2]);
		json_object_foreach ((json_t *)h, name, v) {
			strbuf_printf(out, "cgengine_%s{hierarchy=\"", what[k][1]);
			label(out, name);
			strbuf_printf(out, "\"} %lld\n", get_i(v, what[k][0]));
		}
	}
}

static void
rules(const json_t *f, struct strbuf *out)
{
	const json_t *top = json_object_get(f, "rule_hits");
	size_t i;
	const json_t *r;

	family(out, "rule_hits_total", "counter",
	       "Decisions made by a rule, for the rules with most hits; the others' sum "
	       "as file=\"other\".");
	json_array_foreach (top, i, r) {
		strbuf_printf(out, "cgengine_rule_hits_total{file=\"");
		label(out, get_s(r, "file"));
		strbuf_printf(out, "\",line=\"%lld\"} %lld\n", get_i(r, "line"),
			      get_i(r, "hits"));
	}
	strbuf_printf(out, "cgengine_rule_hits_total{file=\"other\",line=\"\"} %lld\n",
		      get_i(f, "rule_hits_other"));
}

static void
profiles(const json_t *f, struct strbuf *out)
{
	const json_t *b = json_object_get(f, "boosts_by_profile");
	const char *name;
	const json_t *v;

	family(out, "profile_boosts", "gauge",
	       "Boosts in force, by profile (profile=\"\": given by root without one).");
	json_object_foreach ((json_t *)b, name, v) {
		strbuf_printf(out, "cgengine_profile_boosts{profile=\"");
		label(out, name);
		strbuf_printf(out, "\"} %lld\n", (long long)json_integer_value(v));
	}
}

void
render_fleet(const json_t *status, struct strbuf *out)
{
	const json_t *f = json_object_get(status, "fleet");

	if (f == NULL) /* the status, not "metrics" */
		return;
	info(status, f, out);
	hierarchies(f, out);
	rules(f, out);
	profiles(f, out);
}
