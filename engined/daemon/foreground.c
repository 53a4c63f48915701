/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * foreground.c -- the desktop's foreground (foreground.h): one boost of
 * the foreground-profile at a time, run as the core's boost verb (as
 * the control socket's "boost --profile"), whoever names it.
 */
#include "foreground.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

int
foreground_set(struct foreground *f, double now, pid_t pid, uid_t uid, pid_t caller,
	       unsigned *id, char *err, size_t len)
{
	const char *profile = core_config(f->core)->foreground_profile;
	struct verbs_request rq = {
		.core = f->core, .now = now, .uid = uid, .pid = caller, .json = true
	};
	char spid[16];
	char *argv[] = { "boost", "--profile", (char *)profile, spid };
	json_t *r;

	if (profile[0] == '\0') {
		snprintf(err, len, "no foreground-profile is configured");
		return -EINVAL;
	}
	foreground_end(f, 0, "the foreground changed");
	snprintf(spid, sizeof(spid), "%d", (int)pid);
	int rc = verbs_run(&rq, 4, argv, &r, err, len);
	if (rc < 0)
		return rc;
	f->boost = (unsigned)json_integer_value(json_object_get(r, "id"));
	json_decref(r);
	*id = f->boost;
	return 0;
}

void
foreground_end(struct foreground *f, unsigned id, const char *why)
{
	if (f->boost == 0 || (id != 0 && id != f->boost))
		return;
	if (core_boost_find(f->core, f->boost) != NULL)
		(void)core_boost_end(f->core, f->boost, why);
	f->boost = 0;
}
