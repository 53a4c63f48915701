/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config_check.c -- the checks of cgengined.conf's values: every count
 * and size within a documented range, and the group and boost-profile
 * sections, each checked and taken out of libconfuse as it is parsed
 * (see config_private.h), their titles deduplicated with a hash map.
 * Messages go through cfg_error(), so they read "file:line: message".
 */
#include "config_private.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ranges of numbers ------------------------------------------------------ */

static const struct range {
	const char *key;
	long min, max;
	const char *what; /* "VALUE is not <what>" */
} ranges[] = {
	{ "lua-instructions", 1000, 1000000000,
	  "a budget from 1000 to 1000000000 instructions" },
	{ "lua-memory", 65536, 17179869184L, "a size from 65536 to 17179869184 bytes" },
	{ "lua-timeout", 1, 10000, "a time from 1 to 10000 ms" },
	{ "netlink-buffer", 1, 268435456, "a size from 1 to 268435456 bytes" },
	{ "bpf-buffer", 1, 67108864, "a size from 1 to 67108864 bytes" },
	{ "nice", -20, 19, "a priority from -20 to 19" },
	{ "realtime-priority", 0, 99, "0 (off) or a priority from 1 to 99" },
	/* up to what the state file keeps */
	{ "boosts-per-user", 1, CONFIG_BOOSTS_LIMIT_MAX, "a number of boosts from 1 to 100000" },
	{ "max-boosts", 1, CONFIG_BOOSTS_LIMIT_MAX, "a number of boosts from 1 to 100000" },
};

_Static_assert(CONFIG_BOOSTS_LIMIT_MAX == 100000, "the boost ranges' text names 100000");

static const struct range *
range_of(const char *key)
{
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (strcmp(ranges[i].key, key) == 0)
			return &ranges[i];
	return NULL;
}

/* Decimal digits with an optional '-', saturated (never wrapped) far
 * beyond any range; false if s is not such a number. */
static bool
parse_decimal(const char *s, long *out)
{
	bool neg = *s == '-';
	int64_t v = 0;

	s += neg;
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if ((v = v * 10 + (*s - '0')) > INT64_MAX / 16)
			v = INT64_MAX / 16;
	}
	*out = (long)(neg ? -v : v);
	return true;
}

int
config_parse_ranged(cfg_t *cfg, cfg_opt_t *opt, const char *value, void *result)
{
	const struct range *r = range_of(cfg_opt_name(opt));
	long v;

	if (r == NULL || value == NULL)
		return -1;
	if (!parse_decimal(value, &v) || v < r->min || v > r->max) {
		cfg_error(cfg, "%s: %.40s%s is not %s", r->key, value,
			  strlen(value) > 40 ? "..." : "", r->what);
		return -1;
	}
	*(long *)result = v;
	return 0;
}

/* ---- titles: one hash map per kind of section ---------------------------------- */

struct title_probe {
	const char *title;
	bool group;
};

static struct {
	struct config *c;
	size_t gcap, pcap;
	struct map groups, profiles; /* values: size_t, the index in c */
} ld;

static bool
title_eq(const void *value, const void *probe)
{
	const struct title_probe *p = probe;
	size_t i = *(const size_t *)value;

	if (!p->group)
		return strcmp(ld.c->profiles[i].name, p->title) == 0;
	const struct group_conf *g = &ld.c->groups[i];
	size_t n = strlen(g->hier);
	return strncmp(p->title, g->hier, n) == 0 && p->title[n] == ':' &&
	       strcmp(p->title + n + 1, g->path) == 0;
}

void
config_sections_begin(struct config *c)
{
	ld.c = c;
	ld.gcap = ld.pcap = 0;
	map_init(&ld.groups, sizeof(size_t));
	map_init(&ld.profiles, sizeof(size_t));
}

void
config_sections_end(void)
{
	map_free(&ld.groups);
	map_free(&ld.profiles);
	ld.c = NULL;
}

/*
 * Claim the title for entry *n of its kind: 0, or -1 after reporting a
 * duplicate (line: the other's) or running out of memory.
 */
static int
claim_title(cfg_t *cfg, const char *kind, const char *title, bool group, size_t n)
{
	struct map *m = group ? &ld.groups : &ld.profiles;
	struct title_probe probe = { .title = title, .group = group };
	bool fresh;
	size_t *v = map_insert(m, map_hash_str(title), title_eq, &probe, &fresh);

	if (v == NULL) {
		cfg_error(cfg, "out of memory");
		return -1;
	}
	if (!fresh) {
		unsigned other = group ? ld.c->groups[*v].line : ld.c->profiles[*v].line;
		cfg_error(cfg, "%s \"%s\" is defined twice (also on line %u)", kind,
			  title, other);
		return -1;
	}
	*v = n;
	return 0;
}

/* Room for one more entry of size bytes in *v (n used, *cap); zeroed. */
static int
grow(void **v, size_t n, size_t *cap, size_t size)
{
	if (n + 1 < *cap)
		return 0;
	size_t ncap = *cap ? 2 * *cap : 16;
	void *p = realloc(*v, ncap * size);
	if (p == NULL)
		return -ENOMEM;
	memset((char *)p + *cap * size, 0, (ncap - *cap) * size);
	*v = p;
	*cap = ncap;
	return 0;
}

/*
 * Check the last section of opt and keep a copy of it (0), or report
 * (-1); either way take it out of libconfuse.  What config_take_group
 * and config_take_profile do, with the checks of their kind.
 */
static int
take_last(cfg_t *cfg, cfg_opt_t *opt, int (*check)(cfg_t *cfg, cfg_t *sec),
	  int (*keep)(cfg_t *cfg, cfg_t *sec))
{
	cfg_t *sec = cfg_opt_getnsec(opt, cfg_opt_size(opt) - 1);
	int rc =
		sec != NULL && ld.c != NULL && check(cfg, sec) == 0 && keep(cfg, sec) == 0
			? 0
			: -1;

	(void)cfg_opt_rmnsec(opt, cfg_opt_size(opt) - 1);
	return rc;
}

/* ---- process = {...}: per-process priorities, in groups and profiles ------------ */

static int
refuse_process(cfg_t *cfg, const char *kind, const char *err)
{
	const char *title = cfg_title(cfg);

	cfg_error(cfg, "%s \"%s\": process: %s", kind, title ? title : "", err);
	return -1;
}

/* The line of the last process = list checked (libconfuse keeps none),
 * taken by the section that holds it. */
static unsigned process_line;

/* Each item range-checked, then the fields together; -1 after
 * reporting "file:line: group "T": process: nice=-50: ...". */
int
config_check_process(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *kind = strcmp(cfg->name, "group") == 0 ? "group" : "boost-profile";
	struct prio p = { 0 };
	char err[256];

	process_line = (unsigned)cfg->line;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++)
		if (prio_parse_item(&p, cfg_opt_getnstr(opt, i), err, sizeof(err)) < 0)
			return refuse_process(cfg, kind, err);
	if (prio_check(&p, err, sizeof(err)) < 0)
		return refuse_process(cfg, kind, err);
	return 0;
}

/* The process = list of sec (checked already) into *p and *line. */
static void
keep_process(cfg_t *sec, struct prio *p, unsigned *line)
{
	char err[256];

	*p = (struct prio){ 0 };
	*line = 0;
	if (cfg_size(sec, "process") == 0)
		return;
	for (unsigned i = 0; i < cfg_size(sec, "process"); i++)
		if (prio_parse_item(p, cfg_getnstr(sec, "process", i), err, sizeof(err)) < 0)
			return; /* cannot be: checked by config_check_process */
	*line = process_line;
	process_line = 0;
}

/* ---- group sections ------------------------------------------------------------ */

/* A group's title, settings and sets; 0 or -1 after reporting. */
static int
check_group(cfg_t *cfg, cfg_t *sec)
{
	const char *title = cfg_title(sec);
	const char *colon = title ? strchr(title, ':') : NULL;
	const char *why;

	if (colon == NULL || colon == title || colon[1] != '/') {
		cfg_error(cfg, "group \"%s\": expected \"HIERARCHY:/PATH\"",
			  title ? title : "");
		return -1;
	}
	/* a destination like any other: never above its hierarchy's root
	 * (or unified-root), so no "..", no control characters */
	if ((why = rules_dest_problem(colon + 1)) != NULL) {
		cfg_error(cfg, "group \"%s\": the path %s", title, why);
		return -1;
	}
	for (unsigned i = 0; i < cfg_size(sec, "nft-set"); i++) {
		const char *spec = cfg_getnstr(sec, "nft-set", i);
		struct nftset_ref r;
		char msg[256];

		if (nftset_parse(spec, &r, msg, sizeof(msg)) < 0) {
			cfg_error(cfg, "group \"%s\": nft-set \"%s\": %s", title, spec,
				  msg);
			return -1;
		}
	}
	for (unsigned i = 0; i < cfg_size(sec, "set"); i++) {
		const char *kv = cfg_getnstr(sec, "set", i);
		const char *eq = strchr(kv, '=');

		if (eq == NULL || eq == kv || memchr(kv, '/', (size_t)(eq - kv))) {
			cfg_error(cfg, "group \"%s\": expected \"key=value\", not \"%s\"",
				  title, kv);
			return -1;
		}
	}
	return 0;
}

static int
keep_group(cfg_t *cfg, cfg_t *sec)
{
	struct config *c = ld.c;
	const char *title = cfg_title(sec);
	const char *colon = strchr(title, ':');

	if (grow((void **)&c->groups, c->ngroups, &ld.gcap, sizeof(*c->groups)) < 0 ||
	    claim_title(cfg, "group", title, true, c->ngroups) < 0)
		return -1;
	/* counted at once: config_free() frees what was copied so far */
	struct group_conf *g = &c->groups[c->ngroups++];
	g->line = (unsigned)cfg->line;
	g->hier = strndup(title, (size_t)(colon - title));
	g->path = strdup(colon + 1);
	keep_process(sec, &g->prio, &g->prio_line);
	if (!g->hier || !g->path || config_copy_list(sec, "set", &g->set, &g->nset) < 0 ||
	    config_copy_list(sec, "nft-set", &g->nft, &g->nnft) < 0) {
		cfg_error(cfg, "out of memory");
		return -1;
	}
	return 0;
}

int
config_take_group(cfg_t *cfg, cfg_opt_t *opt)
{
	return take_last(cfg, opt, check_group, keep_group);
}

/* ---- boost-profile sections ----------------------------------------------------- */

/* A word for the control protocol and the state file. */
static bool
is_word(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

/* A profile's name, hierarchy and destination, as a boost checks them;
 * 0 or -1 after reporting.  (Whether the hierarchy is managed is the
 * policy's to say.) */
static int
check_profile(cfg_t *cfg, cfg_t *sec)
{
	const char *name = cfg_title(sec) ? cfg_title(sec) : "";
	const char *hier = cfg_getstr(sec, "hierarchy");
	const char *dest = cfg_getstr(sec, "destination");
	const char *why = rules_dest_problem(dest);

	if (!is_word(name, 255)) {
		cfg_error(
			cfg,
			"boost-profile \"%s\": the name must be one word of at most 255 "
			"bytes, without blanks or control characters",
			name);
		return -1;
	}
	if (!is_word(hier, 255)) {
		cfg_error(cfg, "boost-profile \"%s\": needs a hierarchy (one word)",
			  name);
		return -1;
	}
	if (why == NULL && !is_word(dest, RULES_DEST_MAX))
		why = "must not contain blanks or control characters";
	if (why != NULL) {
		cfg_error(cfg, "boost-profile \"%s\": destination \"%s\" %s", name, dest,
			  why);
		return -1;
	}
	return 0;
}

static int
keep_profile(cfg_t *cfg, cfg_t *sec)
{
	struct config *c = ld.c;
	const char *name = cfg_title(sec);

	if (grow((void **)&c->profiles, c->nprofiles, &ld.pcap, sizeof(*c->profiles)) <
		    0 ||
	    claim_title(cfg, "boost-profile", name, false, c->nprofiles) < 0)
		return -1;
	struct boost_profile *p = &c->profiles[c->nprofiles++];
	p->line = (unsigned)cfg->line;
	p->name = strdup(name);
	p->hier = strdup(cfg_getstr(sec, "hierarchy"));
	p->dest = strdup(cfg_getstr(sec, "destination"));
	p->max_seconds = parse_duration(cfg_getstr(sec, "max-duration"));
	p->max_boosts = cfg_getint(sec, "max-boosts");
	keep_process(sec, &p->prio, &p->prio_line);
	if (!p->name || !p->hier || !p->dest ||
	    config_copy_list(sec, "allow", &p->allow, &p->nallow) < 0) {
		cfg_error(cfg, "out of memory");
		return -1;
	}
	return 0;
}

int
config_take_profile(cfg_t *cfg, cfg_opt_t *opt)
{
	return take_last(cfg, opt, check_profile, keep_profile);
}
