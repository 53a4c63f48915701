/*
 * proctab.c -- what the daemon remembers per process: an
 * open-addressing hash from pid to struct proc (identity and flags).
 * Entries are few (sticky and boosted processes), so the table stays
 * small; deletion uses backward-shift so no tombstones pile up under a
 * fork storm.
 */
#include "core_private.h"

#include <errno.h>
#include <stdlib.h>

struct proctab {
	struct proc *v;
	size_t cap, n; /* cap is a power of two */
};

static size_t
slot_of(const struct proctab *t, pid_t pid)
{
	return ((size_t)pid * 2654435761u) & (t->cap - 1);
}

static struct proc *
find(const struct proctab *t, pid_t pid)
{
	for (size_t i = slot_of(t, pid);; i = (i + 1) & (t->cap - 1))
		if (t->v[i].id.pid == pid || t->v[i].id.pid == 0)
			return &t->v[i];
}

struct proctab *
proctab_new(void)
{
	struct proctab *t = calloc(1, sizeof(*t));

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
proctab_free(struct proctab *t)
{
	if (t == NULL)
		return;
	free(t->v);
	free(t);
}

struct proc *
proctab_get(const struct proctab *t, pid_t pid)
{
	struct proc *e = pid > 0 ? find(t, pid) : NULL;

	return e != NULL && e->id.pid == pid ? e : NULL;
}

static int
grow(struct proctab *t)
{
	struct proctab bigger = { .cap = t->cap * 2 };

	if ((bigger.v = calloc(bigger.cap, sizeof(*bigger.v))) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].id.pid != 0)
			*find(&bigger, t->v[i].id.pid) = t->v[i];
	free(t->v);
	t->v = bigger.v;
	t->cap = bigger.cap;
	return 0;
}

int
proctab_set(struct proctab *t, struct procid id, unsigned flags)
{
	if (id.pid <= 0)
		return -EINVAL;
	if (flags == 0) {
		proctab_forget(t, id.pid);
		return 0;
	}
	if ((t->n + 1) * 2 > t->cap && grow(t) < 0)
		return -ENOMEM;
	struct proc *e = find(t, id.pid);
	if (e->id.pid == 0)
		t->n++;
	*e = (struct proc){ .id = id, .flags = flags };
	return 0;
}

void
proctab_forget(struct proctab *t, pid_t pid)
{
	if (pid <= 0)
		return;
	struct proc *e = find(t, pid);
	if (e->id.pid == 0)
		return;
	size_t hole = (size_t)(e - t->v);
	t->v[hole] = (struct proc){ .id.pid = 0 };
	t->n--;
	/* backward-shift the entries of the cluster after the hole */
	for (size_t i = (hole + 1) & (t->cap - 1); t->v[i].id.pid != 0;
	     i = (i + 1) & (t->cap - 1)) {
		size_t home = slot_of(t, t->v[i].id.pid);
		bool movable = hole <= i ? (home <= hole || home > i)
					 : (home <= hole && home > i);
		if (movable) {
			t->v[hole] = t->v[i];
			t->v[i] = (struct proc){ .id.pid = 0 };
			hole = i;
		}
	}
}

size_t
proctab_count(const struct proctab *t)
{
	return t->n;
}

void
proctab_foreach(const struct proctab *t, void (*fn)(void *arg, const struct proc *p),
		void *arg)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].id.pid != 0)
			fn(arg, &t->v[i]);
}
