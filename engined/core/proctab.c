/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proctab.c -- what the daemon remembers per process: pid -> struct
 * proc (identity and flags), in the project's hash table (rules_map).
 * Entries are few (sticky and boosted processes).
 */
#include "core_private.h"

#include <errno.h>
#include <stdlib.h>

struct proctab {
	struct map map; /* pid -> struct proc */
	void (*watch)(void *arg, bool any);
	void *arg;
};

struct proctab *
proctab_new(void)
{
	struct proctab *t = calloc(1, sizeof(*t));

	if (t != NULL)
		map_init(&t->map, sizeof(struct proc));
	return t;
}

void
proctab_free(struct proctab *t)
{
	if (t == NULL)
		return;
	map_free(&t->map);
	free(t);
}

struct proc *
proctab_get(const struct proctab *t, pid_t pid)
{
	return pid > 0 ? map_find(&t->map, (uint64_t)pid, NULL, NULL) : NULL;
}

int
proctab_set(struct proctab *t, struct procid id, unsigned flags)
{
	bool fresh;

	if (id.pid <= 0)
		return -EINVAL;
	if (flags == 0) {
		proctab_forget(t, id.pid);
		return 0;
	}
	struct proc *p = map_insert(&t->map, (uint64_t)id.pid, NULL, NULL, &fresh);
	if (p == NULL)
		return -ENOMEM;
	*p = (struct proc){ .id = id, .flags = flags };
	if (fresh && map_count(&t->map) == 1 && t->watch != NULL)
		t->watch(t->arg, true);
	return 0;
}

void
proctab_forget(struct proctab *t, pid_t pid)
{
	struct proc *p = proctab_get(t, pid);

	if (p == NULL)
		return;
	map_remove(&t->map, p);
	if (map_count(&t->map) == 0 && t->watch != NULL)
		t->watch(t->arg, false);
}

void
proctab_watch(struct proctab *t, void (*fn)(void *arg, bool any), void *arg)
{
	t->watch = fn;
	t->arg = arg;
}

size_t
proctab_count(const struct proctab *t)
{
	return map_count(&t->map);
}

void
proctab_foreach(const struct proctab *t, void (*fn)(void *arg, const struct proc *p),
		void *arg)
{
	size_t cursor = 0;
	const struct proc *p;

	while ((p = map_next(&t->map, &cursor)) != NULL)
		fn(arg, p);
}
