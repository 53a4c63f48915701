/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.c -- the daemon's configuration file, cgengined.conf, read
 * with libconfuse.  Every problem is reported as "file:line: message";
 * unknown keys are errors.
 */
#include "config_private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif
#ifndef LOCALSTATEDIR
#define LOCALSTATEDIR "/var"
#endif

void
report_msg(const struct report *r, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r != NULL && r->fn != NULL)
		r->fn(r->arg, msg);
	else
		log_error("%s", msg);
}

/* The report sink of the parse in progress (libconfuse has no user arg),
 * how many messages it got, and the line of unified-layout in it. */
static const struct report *current;
static unsigned reported;
static unsigned layout_line;

/* libconfuse's messages: its own printf formats, passed on */
static void confuse_error(cfg_t *cfg, const char *fmt, va_list ap)
	ATTR_PRINTF(2, 0);

static void
confuse_error(cfg_t *cfg, const char *fmt, va_list ap)
{
	char msg[768];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	reported++;
	if (cfg != NULL && cfg->filename != NULL && cfg->line > 0)
		report_msg(current, "%s:%d: %s", cfg->filename, cfg->line, msg);
	else if (cfg != NULL && cfg->filename != NULL)
		report_msg(current, "%s: %s", cfg->filename, msg);
	else
		report_msg(current, "%s", msg);
}

long
parse_duration(const char *s)
{
	char *end;
	long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || v < 0)
		return -1;
	long unit = 1;
	switch (*end) {
	case '\0':
	case 's':
		break;
	case 'm':
		unit = 60;
		break;
	case 'h':
		unit = 3600;
		break;
	case 'd':
		unit = 86400;
		break;
	default:
		return -1;
	}
	if (*end != '\0' && end[1] != '\0')
		return -1;
	if (v > 365L * 86400 / unit)
		return -1; /* more than a year is a typo */
	return v * unit;
}

void
format_duration(long secs, char *buf, size_t len)
{
	if (secs >= 3600)
		snprintf(buf, len, "%ldh%02ldm%02lds", secs / 3600, secs / 60 % 60, secs % 60);
	else if (secs >= 60)
		snprintf(buf, len, "%ldm%02lds", secs / 60, secs % 60);
	else
		snprintf(buf, len, "%lds", secs);
}

/* Report a bad value through libconfuse (so it carries file and line)
 * and refuse it: -1, as libconfuse's validation callbacks return. */
static int refuse(cfg_t *cfg, const char *fmt, ...) ATTR_PRINTF(2, 3);

static int
refuse(cfg_t *cfg, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg_error(cfg, "%s", msg);
	return -1;
}

static int
check_match(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = cfg_opt_getnstr(opt, 0);

	if (strcmp(v, "per-hierarchy") != 0 && strcmp(v, "first-match") != 0)
		return refuse(cfg, "match: expected \"per-hierarchy\" or \"first-match\", not \"%s\"",
			      v);
	return 0;
}

static int
check_level(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = cfg_opt_getnstr(opt, 0);

	if (log_level_parse(v) < 0)
		return refuse(cfg, "log-level: unknown level \"%s\"", v);
	return 0;
}

static int
check_duration(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = cfg_opt_getnstr(opt, 0);

	if (parse_duration(v) <= 0)
		return refuse(cfg, "%s: invalid duration \"%s\" (1s to 365d: 90s, 15m, 2h, 1d)",
			      cfg_opt_name(opt), v);
	return 0;
}

/* unified-layout: distinct dimension names, each a word. */
static int
check_layout(cfg_t *cfg, cfg_opt_t *opt)
{
	layout_line = (unsigned)cfg->line;
	for (unsigned i = 0; i < cfg_opt_size(opt); i++) {
		const char *d = cfg_opt_getnstr(opt, i);

		if (d[0] == '\0' || strcspn(d, ",/ \t*:") != strlen(d))
			return refuse(cfg, "unified-layout: \"%s\" is not a dimension name", d);
		for (unsigned j = 0; j < i; j++)
			if (strcmp(d, cfg_opt_getnstr(opt, j)) == 0)
				return refuse(cfg, "unified-layout: \"%s\" is listed twice", d);
	}
	return 0;
}

/* hierarchies: "all" (every v1 hierarchy, as without the key) stands
 * alone.  An empty list never reaches here (libconfuse validates no
 * empty list): config_load refuses it. */
static int
check_hierarchies(cfg_t *cfg, cfg_opt_t *opt)
{
	for (unsigned i = 0; i < cfg_opt_size(opt); i++)
		if (strcmp(cfg_opt_getnstr(opt, i), CONFIG_ALL_HIERARCHIES) == 0 &&
		    cfg_opt_size(opt) > 1)
			return refuse(cfg, "hierarchies: \"all\" cannot be listed with other "
					   "hierarchies");
	return 0;
}

static int
check_uroot(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = cfg_opt_getnstr(opt, 0);
	const char *why = v[0] ? rules_dest_problem(v) : NULL;

	if (why != NULL)
		return refuse(cfg, "unified-root: \"%s\" %s", v, why);
	return 0;
}

/* A group name: one path component, no control character. */
static bool
group_name(const char *v)
{
	if (v[0] == '\0' || strchr(v, '/') != NULL || strcmp(v, ".") == 0 ||
	    strcmp(v, "..") == 0)
		return false;
	for (const char *s = v; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static int
check_udefault(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = cfg_opt_getnstr(opt, 0);

	if (!group_name(v))
		return refuse(cfg, "unified-default: \"%s\" is not a group name", v);
	return 0;
}

static int
check_backend(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = cfg_opt_getnstr(opt, 0);

	if (strcmp(v, "auto") != 0 && strcmp(v, "cgroupfs") != 0 && strcmp(v, "systemd") != 0)
		return refuse(cfg,
			      "backend: expected \"auto\", \"cgroupfs\" or \"systemd\", not \"%s\"",
			      v);
	return 0;
}

static int
check_event_source(cfg_t *cfg, cfg_opt_t *opt)
{
	const char *v = cfg_opt_getnstr(opt, 0);

	if (strcmp(v, "auto") != 0 && strcmp(v, "bpf") != 0 && strcmp(v, "netlink") != 0)
		return refuse(cfg,
			      "event-source: expected \"auto\", \"bpf\" or \"netlink\", not \"%s\"",
			      v);
	return 0;
}

static cfg_opt_t group_opts[] = {
	CFG_STR_LIST("set", "{}", CFGF_NONE),
	CFG_STR_LIST("nft-set", "{}", CFGF_NONE),
	CFG_STR_LIST("process", "{}", CFGF_NONE),
	CFG_END(),
};

static cfg_opt_t profile_opts[] = {
	CFG_STR_LIST("allow", "{}", CFGF_NONE),
	CFG_STR("hierarchy", "", CFGF_NONE),
	CFG_STR("destination", "", CFGF_NONE),
	CFG_STR("max-duration", "1h", CFGF_NONE),
	CFG_INT_CB("max-boosts", CONFIG_MAX_BOOSTS, CFGF_NONE, config_parse_ranged),
	CFG_STR_LIST("process", "{}", CFGF_NONE),
	CFG_END(),
};

static cfg_opt_t opts[] = {
	CFG_STR("rules", SYSCONFDIR "/cgrules.conf", CFGF_NONE),
	CFG_STR("rules-dir", SYSCONFDIR "/cgrules.d", CFGF_NONE),
	CFG_STR("match", "per-hierarchy", CFGF_NONE),
	CFG_STR_LIST("hierarchies", NULL, CFGF_NODEFAULT),
	CFG_STR_LIST("unified-layout", NULL, CFGF_NODEFAULT),
	CFG_STR("unified-root", "", CFGF_NONE),
	CFG_STR("unified-default", "default", CFGF_NONE),
	CFG_STR("backend", "auto", CFGF_NONE),
	CFG_STR("control-socket", "/run/cgengine/control.sock", CFGF_NONE),
	CFG_STR("sticky-socket", "/var/run/cgred.socket", CFGF_NONE),
	CFG_STR("pidfile", "/run/cgengined.pid", CFGF_NONE),
	CFG_STR("state-file", LOCALSTATEDIR "/lib/cgengine/boosts.state", CFGF_NONE),
	CFG_STR("template-key", LOCALSTATEDIR "/lib/cgengine/template.key", CFGF_NONE),
	CFG_STR("log", "syslog", CFGF_NONE),
	CFG_STR("log-level", "info", CFGF_NONE),
	CFG_BOOL("remove-empty", cfg_true, CFGF_NONE),
	CFG_STR("lua-script", "", CFGF_NONE),
	/* counts and sizes: parsed and range-checked by config_check.c */
	CFG_INT_CB("lua-instructions", 1000000, CFGF_NONE, config_parse_ranged),
	CFG_INT_CB("lua-memory", 33554432, CFGF_NONE, config_parse_ranged),
	CFG_INT_CB("lua-timeout", 100, CFGF_NONE, config_parse_ranged),
	CFG_INT_CB("netlink-buffer", 4194304, CFGF_NONE, config_parse_ranged),
	CFG_INT_CB("bpf-buffer", 262144, CFGF_NONE, config_parse_ranged),
	CFG_INT_CB("nice", CONFIG_NICE_DEFAULT, CFGF_NONE, config_parse_ranged),
	CFG_INT_CB("realtime-priority", 0, CFGF_NONE, config_parse_ranged),
	CFG_BOOL("exec-gate", cfg_false, CFGF_NONE),
	CFG_STR("event-source", "auto", CFGF_NONE),
	CFG_STR("ananicy-dir", "", CFGF_NONE),
	CFG_STR("ananicy-cgroup-hierarchy", "", CFGF_NONE),
	CFG_STR("ananicy-type-hierarchy", "", CFGF_NONE),
	CFG_INT_CB("boosts-per-user", CONFIG_BOOSTS_PER_USER, CFGF_NONE, config_parse_ranged),
	CFG_STR("dbus", "no", CFGF_NONE),
	CFG_STR("foreground-profile", "", CFGF_NONE),
	CFG_BOOL("dbus-s76", cfg_false, CFGF_NONE),
	CFG_STR("gnome-foreground", "no", CFGF_NONE),
	CFG_STR("metrics-group", "cgengine-metrics", CFGF_NONE),
	/* no CFGF_NO_TITLE_DUPES: each section is taken out of libconfuse
	 * as it is parsed, titles are deduplicated in config_check.c */
	CFG_SEC("group", group_opts, CFGF_MULTI | CFGF_TITLE),
	CFG_SEC("boost-profile", profile_opts, CFGF_MULTI | CFGF_TITLE),
	CFG_END(),
};

static char *
xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

int
config_copy_list(cfg_t *sec, const char *name, char ***out, size_t *n)
{
	*n = cfg_size(sec, name);
	*out = calloc(*n + 1, sizeof(**out));
	if (*out == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < *n; i++)
		if (((*out)[i] = xstrdup(cfg_getnstr(sec, name, (unsigned)i))) == NULL)
			return -ENOMEM;
	return 0;
}

static void
free_list(char **v, size_t n)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		free(v[i]);
	free(v);
}

static int
copy_config(cfg_t *cfg, struct config *c)
{
	c->rules = xstrdup(cfg_getstr(cfg, "rules"));
	c->rules_dir = xstrdup(cfg_getstr(cfg, "rules-dir"));
	c->match = strcmp(cfg_getstr(cfg, "match"), "first-match") == 0
			   ? RULES_FIRST_MATCH
			   : RULES_PER_HIERARCHY;
	c->control_socket = xstrdup(cfg_getstr(cfg, "control-socket"));
	c->sticky_socket = xstrdup(cfg_getstr(cfg, "sticky-socket"));
	c->pidfile = xstrdup(cfg_getstr(cfg, "pidfile"));
	c->state_file = xstrdup(cfg_getstr(cfg, "state-file"));
	c->template_key = xstrdup(cfg_getstr(cfg, "template-key"));
	c->log = xstrdup(cfg_getstr(cfg, "log"));
	c->log_level = (enum log_level)log_level_parse(cfg_getstr(cfg, "log-level"));
	c->remove_empty = cfg_getbool(cfg, "remove-empty");
	c->lua_script = xstrdup(cfg_getstr(cfg, "lua-script"));
	c->lua_instructions = cfg_getint(cfg, "lua-instructions");
	c->lua_memory = cfg_getint(cfg, "lua-memory");
	c->lua_timeout = cfg_getint(cfg, "lua-timeout");
	c->netlink_buffer = cfg_getint(cfg, "netlink-buffer");
	c->bpf_buffer = cfg_getint(cfg, "bpf-buffer");
	c->nice = (int)cfg_getint(cfg, "nice");
	c->rt_priority = (int)cfg_getint(cfg, "realtime-priority");
	c->exec_gate = cfg_getbool(cfg, "exec-gate");
	const char *src = cfg_getstr(cfg, "event-source");
	c->event_source = strcmp(src, "bpf") == 0	  ? EVENT_SOURCE_BPF
			  : strcmp(src, "netlink") == 0 ? EVENT_SOURCE_NETLINK
							: EVENT_SOURCE_AUTO;
	c->boosts_per_user = cfg_getint(cfg, "boosts-per-user");
	c->dbus = xstrdup(cfg_getstr(cfg, "dbus"));
	c->foreground_profile = xstrdup(cfg_getstr(cfg, "foreground-profile"));
	c->dbus_s76 = cfg_getbool(cfg, "dbus-s76");
	c->gnome_foreground = xstrdup(cfg_getstr(cfg, "gnome-foreground"));
	if (!c->dbus || !c->foreground_profile || !c->gnome_foreground)
		return -ENOMEM;
	c->metrics_group = xstrdup(cfg_getstr(cfg, "metrics-group"));
	c->ananicy_dir = xstrdup(cfg_getstr(cfg, "ananicy-dir"));
	c->ananicy_cgroup_hier = xstrdup(cfg_getstr(cfg, "ananicy-cgroup-hierarchy"));
	c->ananicy_type_hier = xstrdup(cfg_getstr(cfg, "ananicy-type-hierarchy"));
	if (!c->ananicy_cgroup_hier || !c->ananicy_type_hier)
		return -ENOMEM;
	if (!c->rules || !c->rules_dir || !c->control_socket || !c->sticky_socket ||
	    !c->pidfile || !c->state_file || !c->template_key || !c->log ||
	    !c->lua_script || !c->metrics_group || !c->ananicy_dir)
		return -ENOMEM;
	/* {"all"}: as without the key (hierarchies NULL) */
	if (cfg_size(cfg, "hierarchies") > 0 &&
	    strcmp(cfg_getnstr(cfg, "hierarchies", 0), CONFIG_ALL_HIERARCHIES) != 0 &&
	    config_copy_list(cfg, "hierarchies", &c->hierarchies, &c->nhierarchies) < 0)
		return -ENOMEM;
	if (cfg_size(cfg, "unified-layout") > 0 &&
	    config_copy_list(cfg, "unified-layout", &c->layout, &c->nlayout) < 0)
		return -ENOMEM;
	c->layout_line = layout_line;
	c->unified_root = xstrdup(cfg_getstr(cfg, "unified-root"));
	c->unified_default = xstrdup(cfg_getstr(cfg, "unified-default"));
	const char *b = cfg_getstr(cfg, "backend");
	c->backend = strcmp(b, "systemd") == 0	  ? BACKEND_SYSTEMD
		     : strcmp(b, "cgroupfs") == 0 ? BACKEND_CGROUPFS
						  : BACKEND_AUTO;
	if (!c->unified_root || !c->unified_default)
		return -ENOMEM;
	return 0;
}

int
config_backend(const struct config *c, bool systemd_booted, enum backend_kind *kind,
	       const struct report *rep)
{
	*kind = c->backend;
	if (*kind == BACKEND_AUTO)
		*kind = systemd_booted && c->nlayout > 0 ? BACKEND_SYSTEMD
							 : BACKEND_CGROUPFS;
	if (*kind == BACKEND_SYSTEMD && c->nlayout == 0) {
		report_msg(
			rep,
			"%s: backend: \"systemd\" places the groups of a unified-layout; "
			"set unified-layout",
			c->file[0] ? c->file : "built-in config");
		return -1;
	}
	return 0;
}

static cfg_t *
new_parser(void)
{
	cfg_t *cfg = cfg_init(opts, CFGF_NONE);

	if (cfg == NULL)
		return NULL;
	cfg_set_error_function(cfg, confuse_error);
	cfg_set_validate_func(cfg, "match", check_match);
	cfg_set_validate_func(cfg, "log-level", check_level);
	cfg_set_validate_func(cfg, "group", config_take_group);
	cfg_set_validate_func(cfg, "hierarchies", check_hierarchies);
	cfg_set_validate_func(cfg, "unified-layout", check_layout);
	cfg_set_validate_func(cfg, "unified-root", check_uroot);
	cfg_set_validate_func(cfg, "unified-default", check_udefault);
	cfg_set_validate_func(cfg, "backend", check_backend);
	cfg_set_validate_func(cfg, "event-source", check_event_source);
	cfg_set_validate_func(cfg, "boost-profile", config_take_profile);
	cfg_set_validate_func(cfg, "boost-profile|max-duration", check_duration);
	cfg_set_validate_func(cfg, "group|process", config_check_process);
	cfg_set_validate_func(cfg, "boost-profile|process", config_check_process);
	return cfg;
}

/* The line of the first NUL byte in f, or 0: libconfuse stops at one
 * without a word (found by tests/fuzz/fuzz-config). */
static unsigned
nul_line(FILE *f)
{
	unsigned line = 1;
	int ch;

	while ((ch = getc(f)) != EOF) {
		if (ch == '\0')
			return line;
		if (ch == '\n')
			line++;
	}
	return 0;
}

/*
 * The line of the last assignment to key in f ("key =", "key +="), or
 * 0: libconfuse keeps no line of an option, and validates no empty list.
 */
static unsigned
key_line(FILE *f, const char *key)
{
	char buf[4096];
	unsigned line = 0, found = 0;
	size_t n = strlen(key);
	bool whole = true; /* buf starts a line */

	while (fgets(buf, sizeof(buf), f) != NULL) {
		const char *s = buf + strspn(buf, " \t");

		line += whole;
		if (whole && strncmp(s, key, n) == 0 && strchr(" \t=+", s[n]) != NULL &&
		    s[n] != '\0')
			found = line;
		whole = strchr(buf, '\n') != NULL;
	}
	return found;
}

/*
 * hierarchies = {}: once the same as no key, so it managed every v1
 * hierarchy of the machine; now that takes {"all"}.  -EINVAL after
 * reporting.
 */
static int
check_empty_hierarchies(cfg_t *cfg, const char *path)
{
	cfg_opt_t *opt = cfg_getopt(cfg, "hierarchies");
	FILE *f;

	if (opt == NULL || !(opt->flags & CFGF_MODIFIED) || cfg_opt_size(opt) > 0)
		return 0;
	unsigned line = (f = fopen(path, "re")) != NULL ? key_line(f, "hierarchies") : 0;
	if (f != NULL)
		fclose(f);
	char where[32] = "";
	if (line > 0)
		snprintf(where, sizeof(where), ":%u", line);
	reported++;
	report_msg(current,
		   "%s%s: hierarchies: the list is empty; write {\"all\"} to manage every "
		   "v1 hierarchy, or name them",
		   path, where);
	return -EINVAL;
}

/* The fingerprint of the configuration as parsed, defaults included. */
static uint64_t
digest(cfg_t *cfg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return 0;
	cfg_print(cfg, f);
	uint64_t d = fclose(f) == 0 ? fleet_digest(text, len) : 0;
	free(text);
	return d;
}

struct config *
config_load(const char *path, bool optional, const struct report *rep)
{
	struct config *c = calloc(1, sizeof(*c));
	cfg_t *cfg = new_parser();
	int rc = CFG_SUCCESS;

	if (c == NULL || cfg == NULL) {
		report_msg(rep, "%s: out of memory", path);
		goto fail;
	}
	current = rep;
	reported = 0;
	layout_line = 0;
	FILE *f = fopen(path, "re");
	if (f == NULL) {
		if (!(optional && errno == ENOENT)) {
			report_msg(rep, "%s: cannot open: %s", path, strerror(errno));
			goto fail;
		}
		c->file = xstrdup("");
	} else {
		unsigned nul = nul_line(f);

		fclose(f);
		if (nul > 0) {
			report_msg(rep, "%s:%u: contains a NUL byte", path, nul);
			goto fail;
		}
		config_sections_begin(c);
		rc = cfg_parse(cfg, path);
		config_sections_end();
		if (rc == CFG_SUCCESS && check_empty_hierarchies(cfg, path) < 0)
			rc = CFG_PARSE_ERROR;
		c->file = xstrdup(path);
	}
	current = NULL;
	if (rc != CFG_SUCCESS && reported == 0)
		report_msg(rep, "%s: cannot be parsed", path);
	if (rc != CFG_SUCCESS)
		goto fail;
	if (copy_config(cfg, c) < 0) {
		report_msg(rep, "%s: out of memory", path);
		goto fail;
	}
	c->digest = digest(cfg);
	cfg_free(cfg);
	return c;
fail:
	current = NULL;
	if (cfg != NULL)
		cfg_free(cfg);
	config_free(c);
	return NULL;
}

void
config_free(struct config *c)
{
	if (c == NULL)
		return;
	free(c->file);
	free(c->rules);
	free(c->rules_dir);
	free(c->ananicy_dir);
	free(c->ananicy_cgroup_hier);
	free(c->ananicy_type_hier);
	free_list(c->hierarchies, c->nhierarchies);
	free_list(c->layout, c->nlayout);
	free(c->unified_root);
	free(c->unified_default);
	free(c->control_socket);
	free(c->dbus);
	free(c->foreground_profile);
	free(c->gnome_foreground);
	free(c->sticky_socket);
	free(c->pidfile);
	free(c->state_file);
	free(c->template_key);
	free(c->log);
	free(c->lua_script);
	free(c->metrics_group);
	for (size_t i = 0; c->groups != NULL && i < c->ngroups; i++) {
		free(c->groups[i].hier);
		free(c->groups[i].path);
		free_list(c->groups[i].set, c->groups[i].nset);
		free_list(c->groups[i].nft, c->groups[i].nnft);
	}
	free(c->groups);
	for (size_t i = 0; c->profiles != NULL && i < c->nprofiles; i++) {
		struct boost_profile *p = &c->profiles[i];

		free(p->name);
		free_list(p->allow, p->nallow);
		free(p->hier);
		free(p->dest);
	}
	free(c->profiles);
	free(c);
}
