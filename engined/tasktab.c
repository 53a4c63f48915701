/*
 * tasktab.c -- bookkeeping per process: an open-addressing hash from
 * pid to flags and start time.  Entries are few (sticky processes), so
 * the table stays small; deletion uses backward-shift so no tombstones
 * pile up under a fork storm.
 */
#include "engined.h"

#include <errno.h>
#include <stdlib.h>

struct entry {
	pid_t pid; /* 0 = empty */
	unsigned flags;
	uint64_t start;
};

struct tasktab {
	struct entry *v;
	size_t cap, n; /* cap is a power of two */
};

static size_t
slot_of(const struct tasktab *t, pid_t pid)
{
	return ((size_t)pid * 2654435761u) & (t->cap - 1);
}

static struct entry *
find(const struct tasktab *t, pid_t pid)
{
	for (size_t i = slot_of(t, pid);; i = (i + 1) & (t->cap - 1))
		if (t->v[i].pid == pid || t->v[i].pid == 0)
			return &t->v[i];
}

struct tasktab *
tasktab_new(void)
{
	struct tasktab *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->cap = 64;
	if ((t->v = calloc(t->cap, sizeof(*t->v))) == NULL) {
		free(t);
		return NULL;
	}
	return t;
}

void
tasktab_free(struct tasktab *t)
{
	if (t == NULL)
		return;
	free(t->v);
	free(t);
}

/* The entry of pid, or NULL. */
static const struct entry *
lookup(const struct tasktab *t, pid_t pid)
{
	const struct entry *e = pid > 0 ? find(t, pid) : NULL;

	return e != NULL && e->pid == pid ? e : NULL;
}

unsigned
tasktab_flags(const struct tasktab *t, pid_t pid)
{
	const struct entry *e = lookup(t, pid);

	return e ? e->flags : 0;
}

uint64_t
tasktab_start(const struct tasktab *t, pid_t pid)
{
	const struct entry *e = lookup(t, pid);

	return e ? e->start : 0;
}

static int
grow(struct tasktab *t)
{
	struct tasktab bigger = { .cap = t->cap * 2 };

	if ((bigger.v = calloc(bigger.cap, sizeof(*bigger.v))) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].pid != 0)
			*find(&bigger, t->v[i].pid) = t->v[i];
	free(t->v);
	t->v = bigger.v;
	t->cap = bigger.cap;
	return 0;
}

int
tasktab_set(struct tasktab *t, pid_t pid, uint64_t start, unsigned flags)
{
	if (pid <= 0)
		return -EINVAL;
	if (flags == 0) {
		tasktab_forget(t, pid);
		return 0;
	}
	if ((t->n + 1) * 2 > t->cap && grow(t) < 0)
		return -ENOMEM;
	struct entry *e = find(t, pid);
	if (e->pid == 0)
		t->n++;
	*e = (struct entry){ .pid = pid, .flags = flags, .start = start };
	return 0;
}

void
tasktab_forget(struct tasktab *t, pid_t pid)
{
	if (pid <= 0)
		return;
	struct entry *e = find(t, pid);
	if (e->pid == 0)
		return;
	size_t hole = (size_t)(e - t->v);
	t->v[hole] = (struct entry){ .pid = 0 };
	t->n--;
	/* backward-shift the entries of the cluster after the hole */
	for (size_t i = (hole + 1) & (t->cap - 1); t->v[i].pid != 0;
	     i = (i + 1) & (t->cap - 1)) {
		size_t home = slot_of(t, t->v[i].pid);
		bool movable = hole <= i ? (home <= hole || home > i)
					 : (home <= hole && home > i);
		if (movable) {
			t->v[hole] = t->v[i];
			t->v[i] = (struct entry){ .pid = 0 };
			hole = i;
		}
	}
}

size_t
tasktab_count(const struct tasktab *t)
{
	return t->n;
}

void
tasktab_foreach(const struct tasktab *t, void (*fn)(void *arg, pid_t pid, unsigned flags),
		void *arg)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].pid != 0)
			fn(arg, t->v[i].pid, t->v[i].flags);
}
