/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names.c -- a cache of user and group names for the %u and %g
 * templates, so the system's NSS is asked once per id, not once per
 * exec.  Cleared on reload.  Every look-up in the system's passwd and
 * group databases that engined/ makes goes through here, and from here
 * through util/nss.c, the project's one NSS wrapper (names bounded
 * before NSS sees them, buffers grown on ERANGE).
 * These calls can block (NSS may ask a network service); the daemon
 * makes them only for control requests and the first time an id is
 * seen, never per exec.
 */
#include "core_private.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cached name (the map's value); the map is keyed by the id. */
struct name_entry {
	char *name;
};

/* The cached name of id, or NULL. */
static const char *
cached(const struct name_table *t, uint32_t id)
{
	const struct name_entry *e = map_find(&t->map, id, NULL, NULL);

	return e != NULL ? e->name : NULL;
}

/* Remember name for id; the copy, or NULL when out of memory. */
static const char *
insert(struct name_table *t, uint32_t id, const char *name)
{
	bool fresh;

	if (t->map.slot == 0)
		map_init(&t->map, sizeof(struct name_entry));
	struct name_entry *e = map_insert(&t->map, id, NULL, NULL, &fresh);
	if (e == NULL)
		return NULL;
	if (fresh && (e->name = strdup(name)) == NULL) {
		map_remove(&t->map, e);
		return NULL;
	}
	return e->name;
}

/* ---- the system's databases: rules/nss.c, the one NSS wrapper -------------------- */

int
names_user_by_name(const char *name, struct names_user *out)
{
	int rc = nss_user(name, &out->uid, &out->gid);

	if (rc == 0)
		snprintf(out->name, sizeof(out->name), "%s", name);
	return rc;
}

int
names_user_by_uid(uid_t uid, struct names_user *out)
{
	out->uid = uid;
	return nss_user_name(uid, out->name, sizeof(out->name), &out->gid);
}

int
names_group_by_name(const char *name, gid_t *gid)
{
	return nss_group(name, gid, NULL, NULL);
}

/* ---- the caches ------------------------------------------------------------------- */

const char *
names_user(struct name_table *t, uid_t uid)
{
	const char *name = cached(t, uid);
	struct names_user u;

	if (name != NULL)
		return name;
	if (names_user_by_uid(uid, &u) < 0)
		return NULL;
	return insert(t, uid, u.name);
}

const char *
names_group(struct name_table *t, gid_t gid)
{
	const char *known = cached(t, gid);
	char name[NAMES_MAX];

	if (known != NULL)
		return known;
	if (nss_group_name(gid, name, sizeof(name)) < 0)
		return NULL;
	return insert(t, gid, name);
}

void
names_clear(struct name_table *t)
{
	size_t cursor = 0;
	struct name_entry *e;

	while ((e = map_next(&t->map, &cursor)) != NULL)
		free(e->name);
	map_free(&t->map);
}
