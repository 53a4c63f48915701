/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mountinfo.c -- find cgroup hierarchies in /proc/self/mountinfo.
 *
 *   36 35 0:31 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu,cpuacct
 *   (1)(2) (3) (4)     (5)            (6)     (7) (8)   (9)      (10)
 *
 * For v1 the super options (10) list the controllers and name=, in the
 * same order as /proc/PID/cgroup prints them.
 */
#include "kernel_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Super options that are not controllers. */
static const char *const not_controllers[] = {
	"rw",
	"ro",
	"noprefix",
	"xattr",
	"clone_children",
	"cpuset_v2_mode",
	"favordynmods",
	"nofavordynmods",
	"none",
	NULL,
};

static bool
is_controller_opt(const char *o)
{
	if (strncmp(o, "release_agent=", 14) == 0)
		return false;
	for (size_t i = 0; not_controllers[i] != NULL; i++)
		if (strcmp(o, not_controllers[i]) == 0)
			return false;
	return *o != '\0';
}

/* Undo mountinfo's octal escapes (\040 for a blank) in place. */
static void
unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* Build the /proc-style name from v1 super options; malloc'd. */
static char *
v1_name(char *opts, bool *named)
{
	char *out = calloc(1, strlen(opts) + 1);
	char *name = NULL;

	if (out == NULL)
		return NULL;
	*named = false;
	for (char *tok = strtok(opts, ","); tok; tok = strtok(NULL, ",")) {
		if (strncmp(tok, "name=", 5) == 0) {
			name = tok;
			continue;
		}
		if (!is_controller_opt(tok))
			continue;
		if (*out)
			strcat(out, ",");
		strcat(out, tok);
	}
	if (name != NULL) {
		if (*out)
			strcat(out, ",");
		strcat(out, name);
		*named = true;
	}
	return out;
}

static int
add(struct hier_list *l, char *name, const char *mount, enum hier_version v, bool named)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0) {
			free(name);
			return 0;
		}
	struct hier *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	if (nv == NULL) {
		free(name);
		return -ENOMEM;
	}
	l->v = nv;
	nv[l->n] = (struct hier){
		.name = name, .mount = strdup(mount), .version = v, .named = named
	};
	if (nv[l->n].mount == NULL) {
		free(name);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

/* Parse one mountinfo line; 0 (also for non-cgroup lines) or -ENOMEM. */
static int
parse_line(struct hier_list *l, char *line, bool want_root)
{
	char *f[6], *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(line, " \n", &save); tok && n < 6;
	     tok = strtok_r(NULL, " \n", &save))
		f[n++] = tok;
	if (n < 6)
		return 0;
	while (tok && strcmp(tok, "-") != 0) /* skip optional fields */
		tok = strtok_r(NULL, " \n", &save);
	char *fstype = strtok_r(NULL, " \n", &save);
	char *source = strtok_r(NULL, " \n", &save);
	char *opts = strtok_r(NULL, " \n", &save);
	if (fstype == NULL || source == NULL || opts == NULL)
		return 0;
	if ((strcmp(f[3], "/") == 0) != want_root)
		return 0;
	unescape(f[4]);
	if (strcmp(fstype, "cgroup2") == 0) {
		char *name = strdup("");
		return name ? add(l, name, f[4], HIER_V2, false) : -ENOMEM;
	}
	if (strcmp(fstype, "cgroup") != 0)
		return 0;
	bool named;
	char *name = v1_name(opts, &named);
	return name ? add(l, name, f[4], HIER_V1, named) : -ENOMEM;
}

int
hier_discover(const char *mountinfo, struct hier_list *out)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	out->v = NULL;
	out->n = 0;
	/* two passes: mounts of a hierarchy's root win over bind mounts */
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		FILE *f = fopen(mountinfo, "re");

		if (f == NULL) {
			rc = -errno;
			break;
		}
		while (rc == 0 && getline(&line, &cap, f) >= 0)
			rc = parse_line(out, line, pass == 0);
		fclose(f);
	}
	free(line);
	if (rc < 0)
		hier_list_free(out);
	return rc;
}

void
hier_list_free(struct hier_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].mount);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

const struct hier *
hier_find(const struct hier_list *l, const char *spec)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct hier *h = &l->v[i];

		if (h->version == HIER_V2) {
			if (strcmp(spec, "unified") == 0)
				return h;
		} else if (strcmp(h->name, spec) == 0 ||
			   str_list_has(h->name, spec, strlen(spec))) {
			return h;
		}
	}
	return NULL;
}

const char *
hier_label(const struct hier *h)
{
	return h->version == HIER_V2 ? "unified" : h->name;
}
