/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proctab.c -- what the daemon remembers per process: pid -> struct
 * proc (identity and flags), in the project's hash table (rules_map).
 * Entries are few (sticky and boosted processes).
 */
#include "core_private.h"

#include <errno.h>
#include <stdlib.h>

#define FLAG_BITS 8 /* PROC_* flags counted, from bit 0 */

struct proctab {
	struct map map; /* pid -> struct proc */
	size_t nflag[FLAG_BITS]; /* entries with each flag */
	void (*watch)(void *arg, unsigned was, unsigned now);
	void *arg;
};

/* Add (by +1) or remove (-1) an entry's flags from the counts. */
static void
count_flags(struct proctab *t, unsigned flags, int by)
{
	for (unsigned b = 0; b < FLAG_BITS; b++)
		if (flags & (1u << b))
			t->nflag[b] += (size_t)by;
}

/* An entry changed: its flags were was (0: new) and are now (0: gone). */
static void
changed(struct proctab *t, unsigned was, unsigned now)
{
	if (t->watch != NULL)
		t->watch(t->arg, was, now);
}

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
	if ((flags & ~PROC_LEADER_GONE) == 0) { /* nothing left to remember it for */
		proctab_forget(t, id.pid);
		return 0;
	}
	struct proc *p = map_insert(&t->map, (uint64_t)id.pid, NULL, NULL, &fresh);
	if (p == NULL)
		return -ENOMEM;
	if (!fresh && procid_eq(p->id, id) && p->flags == flags)
		return 0;
	unsigned was = fresh ? 0 : p->flags;
	if (!fresh)
		count_flags(t, p->flags, -1);
	*p = (struct proc){ .id = id, .flags = flags };
	count_flags(t, flags, +1);
	changed(t, was, flags);
	return 0;
}

void
proctab_forget(struct proctab *t, pid_t pid)
{
	struct proc *p = proctab_get(t, pid);

	if (p == NULL)
		return;
	unsigned was = p->flags;
	count_flags(t, p->flags, -1);
	map_remove(&t->map, p);
	changed(t, was, 0);
}

void
proctab_watch(struct proctab *t, void (*fn)(void *arg, unsigned was, unsigned now),
	      void *arg)
{
	t->watch = fn;
	t->arg = arg;
}

size_t
proctab_count_flag(const struct proctab *t, unsigned flag)
{
	for (unsigned b = 0; b < FLAG_BITS; b++)
		if (flag == 1u << b)
			return t->nflag[b];
	return 0;
}

size_t
proctab_count(const struct proctab *t)
{
	return map_count(&t->map);
}

const struct proc *
proctab_next(const struct proctab *t, size_t *cursor)
{
	return map_next(&t->map, cursor);
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
