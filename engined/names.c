/*
 * names.c -- a cache of user and group names for the %u and %g
 * templates, so the system's NSS is asked once per id, not once per
 * exec.  Cleared on reload.  Every look-up in the system's passwd and
 * group databases that engined/ makes goes through here, and from here
 * through rules/nss.c, the project's one NSS wrapper (names bounded
 * before NSS sees them, buffers grown on ERANGE).
 * These calls can block (NSS may ask a network service); the daemon
 * makes them only for control requests and the first time an id is
 * seen, never per exec.
 */
#include "engined.h"
#include "engined_private.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct name_entry {
	uint32_t id;
	char *name; /* NULL = empty slot */
};

static struct name_entry *
find(struct name_table *t, uint32_t id)
{
	for (size_t i = (id * 2654435761u) & (t->cap - 1);; i = (i + 1) & (t->cap - 1))
		if (t->v[i].name == NULL || t->v[i].id == id)
			return &t->v[i];
}

static void
insert(struct name_table *t, uint32_t id, const char *name)
{
	if ((t->n + 1) * 2 > t->cap) {
		struct name_table bigger = { .cap = t->cap ? t->cap * 2 : 64 };

		if ((bigger.v = calloc(bigger.cap, sizeof(*bigger.v))) == NULL)
			return;
		for (size_t i = 0; i < t->cap; i++)
			if (t->v[i].name != NULL)
				*find(&bigger, t->v[i].id) = t->v[i];
		free(t->v);
		t->v = bigger.v;
		t->cap = bigger.cap;
	}
	struct name_entry *e = find(t, id);
	if (e->name == NULL && (e->name = strdup(name)) != NULL) {
		e->id = id;
		t->n++;
	}
}

/* ---- the system's databases: rules/nss.c, the one NSS wrapper -------------------- */

int
names_user_by_name(const char *name, struct names_user *out)
{
	int rc = rules_nss_user(name, &out->uid, &out->gid);

	if (rc == 0)
		snprintf(out->name, sizeof(out->name), "%s", name);
	return rc;
}

int
names_user_by_uid(uid_t uid, struct names_user *out)
{
	out->uid = uid;
	return rules_nss_user_name(uid, out->name, sizeof(out->name), &out->gid);
}

int
names_group_by_name(const char *name, gid_t *gid)
{
	return rules_nss_group(name, gid, NULL, NULL);
}

size_t
names_grouplist(const char *user, gid_t gid, gid_t *groups, size_t max)
{
	int n = (int)max;

	if (getgrouplist(user, gid, groups, &n) < 0)
		return max; /* more than max: the first max of them */
	return (size_t)n;
}

/* ---- the caches ------------------------------------------------------------------- */

const char *
names_user(struct name_table *t, uid_t uid)
{
	struct name_entry *e = t->cap ? find(t, uid) : NULL;
	struct names_user u;

	if (e != NULL && e->name != NULL)
		return e->name;
	if (names_user_by_uid(uid, &u) < 0)
		return NULL;
	insert(t, uid, u.name);
	return t->cap ? find(t, uid)->name : NULL;
}

const char *
names_group(struct name_table *t, gid_t gid)
{
	struct name_entry *e = t->cap ? find(t, gid) : NULL;
	char name[NAMES_MAX];

	if (e != NULL && e->name != NULL)
		return e->name;
	if (rules_nss_group_name(gid, name, sizeof(name)) < 0)
		return NULL;
	insert(t, gid, name);
	return t->cap ? find(t, gid)->name : NULL;
}

void
names_clear(struct name_table *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i].name);
	free(t->v);
	*t = (struct name_table){ 0 };
}
