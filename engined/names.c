/*
 * names.c -- a cache of user and group names for the %u and %g
 * templates, so the system's NSS is asked once per id, not once per
 * exec.  Cleared on reload.
 */
#include "engined.h"
#include "engined_private.h"

#include <grp.h>
#include <pwd.h>
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

const char *
names_user(struct name_table *t, uid_t uid)
{
	struct name_entry *e = t->cap ? find(t, uid) : NULL;
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (e != NULL && e->name != NULL)
		return e->name;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0 || res == NULL)
		return NULL;
	insert(t, uid, pw.pw_name);
	return t->cap ? find(t, uid)->name : NULL;
}

const char *
names_group(struct name_table *t, gid_t gid)
{
	struct name_entry *e = t->cap ? find(t, gid) : NULL;
	struct group gr, *res = NULL;
	char buf[16384];

	if (e != NULL && e->name != NULL)
		return e->name;
	if (getgrgid_r(gid, &gr, buf, sizeof(buf), &res) != 0 || res == NULL)
		return NULL;
	insert(t, gid, gr.gr_name);
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
