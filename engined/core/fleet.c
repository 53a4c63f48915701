/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleet.c -- what the "metrics" verb adds to the status for a fleet of
 * hosts: moves and failed moves by hierarchy, the rules that fire most,
 * boosts by profile, the time of the last (re)load, and fingerprints of
 * the loaded configuration and rules, so that hosts running different
 * rules differ in one label.
 *
 * Every label set stays bounded: at most FLEET_HIERS hierarchies (the
 * rest count as "other"), the FLEET_TOP_RULES rules with the most hits
 * (the others' hits summed as one), boost profiles as configured.
 */
#include "core_private.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fingerprints' key: they tell equal from different, nothing secret. */
static const unsigned char fleet_key[SIPHASH_KEY_LEN] = "cgengine-fleet..";

uint64_t
fleet_digest(const void *data, size_t len)
{
	return siphash24(fleet_key, data, len);
}

/* A JSON string of s, "?" if s is not UTF-8 (a file name). */
static json_t *
text(const char *s)
{
	json_t *j = json_string(s);

	return j != NULL ? j : json_string("?");
}

/* The counts of hierarchy hier (its label), made if new; the last slot,
 * "other", takes what no slot is left for. */
static struct fleet_hier *
hier_slot(struct fleet *f, const char *hier)
{
	for (size_t i = 0; i < f->nhiers; i++)
		if (strcmp(f->hiers[i].name, hier) == 0)
			return &f->hiers[i];
	if (f->nhiers + 1 >= FLEET_HIERS || strlen(hier) >= sizeof(f->hiers[0].name))
		hier = "other";
	for (size_t i = 0; i < f->nhiers; i++)
		if (strcmp(f->hiers[i].name, hier) == 0)
			return &f->hiers[i];
	struct fleet_hier *s = &f->hiers[f->nhiers++];
	snprintf(s->name, sizeof(s->name), "%s", hier);
	return s;
}

void
fleet_count_move(struct core *c, const char *hier, bool moved)
{
	struct fleet_hier *s = hier_slot(&c->fleet, hier);

	if (moved)
		s->moves++;
	else
		s->failures++;
}

void
fleet_loaded(struct core *c)
{
	c->fleet.loaded = c->env.wall();
}

/* The rules' fingerprint: every rule as the parser read it, in order. */
static uint64_t
rules_digest(const struct rules_set *set)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return 0;
	for (size_t i = 0; i < rules_count(set); i++) {
		const struct rules_rule *r = rules_get(set, i);

		fprintf(f, "%s:%u %d %s %s %s %s %u %d\n", r->file, r->line, (int)r->kind,
			r->key ? r->key : "", r->process ? r->process : "",
			r->controllers ? r->controllers : "", r->dest ? r->dest : "",
			r->options, r->continuation);
	}
	uint64_t d = fclose(f) == 0 ? fleet_digest(text, len) : 0;
	free(text);
	return d;
}

static int
by_hits(const void *a, const void *b)
{
	const struct rules_rule *x = *(const struct rules_rule *const *)a;
	const struct rules_rule *y = *(const struct rules_rule *const *)b;

	return x->hits < y->hits ? 1 : x->hits > y->hits ? -1 : 0;
}

/* The FLEET_TOP_RULES rules with most hits (none without), and the sum
 * of the others' hits as "other". */
static json_t *
top_rules(const struct rules_set *set, json_t **other)
{
	size_t n = rules_count(set), top = 0;
	const struct rules_rule **v = calloc(n ? n : 1, sizeof(*v));
	json_t *list = json_array();
	uint64_t rest = 0;

	for (size_t i = 0; v != NULL && i < n; i++)
		v[i] = rules_get(set, i);
	if (v != NULL)
		qsort(v, n, sizeof(*v), by_hits);
	for (size_t i = 0; v != NULL && i < n; i++) {
		if (v[i]->hits == 0)
			break;
		if (top++ >= FLEET_TOP_RULES) {
			rest += v[i]->hits;
			continue;
		}
		json_array_append_new(list, json_pack("{s:o, s:I, s:I}", "file",
						      text(v[i]->file), "line",
						      (json_int_t)v[i]->line, "hits",
						      (json_int_t)v[i]->hits));
	}
	free(v);
	*other = json_integer((json_int_t)rest);
	return list;
}

/* Active boosts by profile ("" for those root gave without one). */
static json_t *
boosts_by_profile(const struct core *c)
{
	json_t *o = json_object();
	const struct boost *b;

	for (size_t i = 0; i < core_policy(c)->cfg->nprofiles; i++)
		json_object_set_new(o, core_policy(c)->cfg->profiles[i].name,
				    json_integer(0));
	json_object_set_new(o, "", json_integer(0));
	TAILQ_FOREACH (b, core_boosts(c), link) {
		const char *p = b->profile != NULL ? b->profile : "";
		json_t *n = json_object_get(o, p);

		if (n == NULL) /* a profile no longer configured */
			json_object_set_new(o, p, json_integer(1));
		else
			json_integer_set(n, json_integer_value(n) + 1);
	}
	return o;
}

json_t *
fleet_status(const struct core *c)
{
	const struct policy *p = core_policy(c);
	const struct fleet *f = &c->fleet;
	json_t *hiers = json_object(), *other;
	char cfg[17], rules[17];

	for (size_t i = 0; i < f->nhiers; i++)
		json_object_set_new(hiers, f->hiers[i].name,
				    json_pack("{s:I, s:I}", "moves",
					      (json_int_t)f->hiers[i].moves, "failures",
					      (json_int_t)f->hiers[i].failures));
	snprintf(cfg, sizeof(cfg), "%016llx", (unsigned long long)p->cfg->digest);
	snprintf(rules, sizeof(rules), "%016llx",
		 (unsigned long long)rules_digest(p->rules));
	json_t *top = top_rules(p->rules, &other);
	return json_pack("{s:o, s:o, s:o, s:o, s:I, s:s, s:s}", "moves_by_hierarchy",
			 hiers, "rule_hits", top, "rule_hits_other", other,
			 "boosts_by_profile", boosts_by_profile(c), "loaded",
			 (json_int_t)f->loaded, "config_hash", cfg, "rules_hash", rules);
}
