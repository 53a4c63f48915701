/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * placed.c -- where an exec's record says its process is: the BPF
 * program tells the task's group in each managed v1 hierarchy by id
 * (struct task_known's v1), and a classification that moves it compares
 * them with the ids of its destinations instead of reading
 * /proc/PID/cgroup.  A hierarchy is known by the id the kernel numbers
 * it with (the first field of /proc/self/cgroup), read at every
 * (re)load; a destination's id is asked of the backend once and kept
 * until the next reload (a destination not made yet has none: the
 * process is not in it).  A kept id outlives its group when a template
 * group is removed and made again: the record's id then differs, and
 * the process is moved where it already is -- a write too many, never
 * one missed (the kernel does not give a removed group's id again).
 *
 * What the record says held at the exec: a process moved by someone
 * else between its exec and its classification is found where it was
 * at the exec (with /proc the window is shorter, not closed).
 */
#include "core_private.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLACED_SLOTS 256 /* destinations' ids kept (a power of two) */

struct placed {
	bool known[RULES_MAX_HIERS]; /* hier[i] was found */
	uint32_t hier[RULES_MAX_HIERS];
	/* its line in /proc/self/cgroup, which lists the hierarchies
	 * newest first, of nlines */
	size_t line[RULES_MAX_HIERS], nlines;
	struct placed_slot {
		size_t i;   /* the managed hierarchy */
		char *path; /* the destination (malloc'd), NULL: empty */
		uint64_t id;
	} slot[PLACED_SLOTS];
	/* the slot each hierarchy's last destination was found in, looked
	 * at first: a storm's execs go to the same few groups, and the
	 * slot's hash costs more than comparing the path */
	struct placed_slot *last[RULES_MAX_HIERS];
};

static void
forget_ids(struct placed *pl)
{
	for (size_t s = 0; s < PLACED_SLOTS; s++) {
		free(pl->slot[s].path);
		pl->slot[s].path = NULL;
	}
}

void
placed_free(struct core *c)
{
	if (c->placed == NULL)
		return;
	forget_ids(c->placed);
	free(c->placed);
	c->placed = NULL;
}

/* Hierarchy i's id from the line "ID:NAME:PATH" of /proc/self/cgroup,
 * its n-th. */
static void
hier_line(struct core *c, const char *line, size_t n)
{
	const struct policy *p = c->pol;
	char *end;
	unsigned long id = strtoul(line, &end, 10);
	const char *name = end + 1, *colon;

	if (end == line || *end != ':' || (colon = strchr(name, ':')) == NULL || id == 0)
		return; /* 0: the v2 hierarchy, told apart by its own id */
	for (size_t i = 0; i < p->n; i++) {
		const struct hier *h = p->managed[i];

		if (p->virt[i] || h == NULL || h->version == HIER_V2 ||
		    strlen(h->name) != (size_t)(colon - name) ||
		    strncmp(h->name, name, (size_t)(colon - name)) != 0)
			continue;
		c->placed->known[i] = true;
		c->placed->hier[i] = (uint32_t)id;
		c->placed->line[i] = n;
	}
}

void
placed_policy(struct core *c)
{
	char file[PATH_MAX], line[4096];
	FILE *f;

	if (c->placed == NULL && (c->placed = calloc(1, sizeof(*c->placed))) == NULL)
		return; /* then every move reads /proc */
	forget_ids(c->placed);
	memset(c->placed->known, 0, sizeof(c->placed->known));
	snprintf(file, sizeof(file), "%s/self/cgroup", c->env.procroot);
	if ((f = fopen(file, "re")) == NULL)
		return;
	c->placed->nlines = 0;
	while (fgets(line, sizeof(line), f) != NULL)
		hier_line(c, line, c->placed->nlines++);
	fclose(f);
}

size_t
placed_hiers(const struct core *c, uint32_t *out, size_t max, bool *backward)
{
	size_t n = 0, first = SIZE_MAX, last = 0; /* lines: newest first */

	for (size_t i = 0; c->placed != NULL && i < c->pol->n && n < max; i++) {
		bool dup = false;

		if (!c->placed->known[i])
			continue;
		for (size_t k = 0; k < n; k++)
			dup = dup || out[k] == c->placed->hier[i];
		if (!dup)
			out[n++] = c->placed->hier[i];
		first = c->placed->line[i] < first ? c->placed->line[i] : first;
		last = c->placed->line[i] > last ? c->placed->line[i] : last;
	}
	/* steps newest first: last + 1; oldest first: nlines - first */
	*backward = n > 0 && last + 1 < c->placed->nlines - first;
	return n;
}

/* Does slot s keep group path of managed hierarchy i? */
static bool
keeps(const struct placed_slot *s, size_t i, const char *path)
{
	return s != NULL && s->path != NULL && s->i == i && strcmp(s->path, path) == 0;
}

/* The id of group path of managed hierarchy i: kept, or asked; 0 or -errno. */
static int
dest_id(struct core *c, size_t i, const char *path, uint64_t *id)
{
	struct placed_slot *s = c->placed->last[i];
	int rc;

	if (keeps(s, i, path)) {
		*id = s->id;
		return 0;
	}
	uint64_t h = fleet_digest(path, strlen(path)) ^ (uint64_t)i;
	s = &c->placed->slot[h & (PLACED_SLOTS - 1)];
	if (keeps(s, i, path)) {
		c->placed->last[i] = s;
		*id = s->id;
		return 0;
	}
	if ((rc = backend_id(c->env.cgfs, c->pol->managed[i], path, id)) < 0)
		return rc; /* not made yet, say */
	char *copy = strdup(path);
	if (copy != NULL) { /* else asked again next time */
		free(s->path);
		*s = (struct placed_slot){ .i = i, .path = copy, .id = *id };
		c->placed->last[i] = s;
	}
	return 0;
}

/* The record's group in hierarchy hier, if it tells it. */
static bool
record_id(const struct task_known *k, uint32_t hier, uint64_t *id)
{
	for (size_t n = 0; n < k->nv1 && n < TASK_KNOWN_V1; n++)
		if (k->v1[n].hier == hier) {
			*id = k->v1[n].id;
			return true;
		}
	return false;
}

bool
placed_known(struct core *c, const struct task_known *k, struct decision *d)
{
	const struct policy *p = c->pol;
	const struct backend *fs = c->env.cgfs;
	uint64_t in = 0;

	/* the unified layout's group and a backend's logical names are
	 * compared by path (read) */
	if (k == NULL || k->nv1 == 0 || c->placed == NULL || d->composed[0] != '\0' ||
	    fs->ids.id == NULL || fs->look.logical != NULL)
		return false;
	for (size_t i = 0; i < p->n && i < 64; i++) {
		const struct verdict *v = &d->verdicts[i];
		uint64_t now, want;
		int rc;

		if (!v->move || c->dropped[i] || p->virt[i])
			continue;
		if (!c->placed->known[i] || !record_id(k, c->placed->hier[i], &now))
			return false;
		if ((rc = dest_id(c, i, v->dest, &want)) == -ENOENT)
			continue; /* not made yet: it is not in it */
		if (rc < 0)
			return false;
		if (now == want)
			in |= UINT64_C(1) << i;
	}
	d->placed = true;
	d->in_place = in;
	return true;
}

/*
 * A process an event told of (k set: an exec, a change of its ids)
 * whose record does not say where it is, moved by the cgroupfs
 * backend's writes: where it is is not read.  The write of a process
 * already in its group is the kernel's no-op, and costs less than
 * reading /proc/PID/cgroup, which takes css_set_lock and prints every
 * hierarchy: a third of the daemon's CPU per exec on the proc
 * connector (bench/side.sh).  Such a process counts as moved.  Rescans
 * (k NULL) read, as do the unified layout (compared by path) and the
 * systemd backend (a move there is a call to PID 1).
 */
bool
placed_unread(const struct core *c, const struct task_known *k, struct decision *d)
{
	if (k == NULL || d->composed[0] != '\0' || c->env.cgfs->look.logical != NULL)
		return false;
	d->placed = true;
	d->in_place = 0;
	return true;
}
