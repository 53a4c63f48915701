/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gnomefg.c -- GNOME's focused application (foreground.h, docs/dbus.md):
 * Mutter marks each app's cgroup with the xattr user.xdg.inactive-since,
 * "-1" for the focused one.  The directories from the root to the app
 * scopes (user-UID.slice, user@UID.service, app.slice, and what is
 * below it) are watched with inotify: a new directory is watched as it
 * appears (IN_CREATE), an app scope's xattr is read when its attributes
 * change (IN_ATTRIB), and a removed scope (IN_IGNORED) ends its grant.
 * A "-1" makes the scope's lowest pid the foreground, through the same
 * grant as the D-Bus door's SetForeground (foreground.c); another value
 * changes nothing (the next "-1" moves the foreground).
 */
#include "foreground.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/queue.h>
#include <sys/xattr.h>
#include <unistd.h>

#define DEPTH_APPS	 3 /* root/user-UID.slice/user@UID.service/app.slice */
#define DEPTH_MAX	 6 /* app.slice's sub-slices and scopes, not deeper */
#define WATCHES_MAX	 65536
#define WATCHES_PER_USER 4096 /* a user makes its own groups below user@UID.service */
#define GNOME_RATE	 5.0  /* foreground changes a uid may make a second */
#define GNOME_BURST	 10.0
#define GNOME_USERS	 1024

/* One watched directory. */
struct gwatch {
	LIST_ENTRY(gwatch) link;
	int wd;
	int depth; /* 0: the root */
	uid_t uid; /* from user-UID.slice (depth 1 and below) */
	char path[PATH_MAX];
};

struct gnomefg {
	struct foreground *fg; /* borrowed */
	char root[PATH_MAX];
	int fd;	    /* inotify */
	bool fresh; /* the scopes there have not been looked at */
	LIST_HEAD(, gwatch) watches;
	size_t nwatches;
	int fg_wd;	/* the scope holding the foreground's grant (-1: none) */
	unsigned fg_id; /* that grant */
	struct ratelimit rate;
	struct log_limit fails;
	double now;
	struct gcount *counts; /* each user's watches */
	size_t ncounts;
};

/* One user's watches (below user-UID.slice), WATCHES_PER_USER at most. */
struct gcount {
	uid_t uid;
	size_t watches;
	bool said; /* that it has no room: logged once */
};

/* uid's count, made at its first watch; NULL past GNOME_USERS users. */
static struct gcount *
count_of(struct gnomefg *g, uid_t uid)
{
	struct gcount *c;

	for (size_t i = 0; i < g->ncounts; i++)
		if (g->counts[i].uid == uid)
			return &g->counts[i];
	if (g->ncounts >= GNOME_USERS ||
	    (c = realloc(g->counts, (g->ncounts + 1) * sizeof(*c))) == NULL)
		return NULL;
	g->counts = c;
	g->counts[g->ncounts] = (struct gcount){ .uid = uid };
	return &g->counts[g->ncounts++];
}

/* May the user of n have one more watch? */
static bool
room(struct gcount *n)
{
	if (n->watches < WATCHES_PER_USER)
		return true;
	if (!n->said)
		log_warning("gnome: uid %u has %d groups watched: no more of its are",
			    (unsigned)n->uid, WATCHES_PER_USER);
	n->said = true;
	return false;
}

static struct gwatch *
find(struct gnomefg *g, int wd)
{
	struct gwatch *w;

	LIST_FOREACH (w, &g->watches, link)
		if (w->wd == wd)
			return w;
	return NULL;
}

/* The lowest pid in path's cgroup.procs, or 0. */
static pid_t
lowest_pid(const char *path)
{
	char file[PATH_MAX + 16];
	long v, low = 0;
	FILE *f;

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	if ((f = fopen(file, "re")) == NULL)
		return 0;
	while (fscanf(f, "%ld", &v) == 1)
		if (v > 0 && v <= INT_MAX && (low == 0 || v < low))
			low = v;
	fclose(f);
	return (pid_t)low;
}

/* Look at w's xattr: "-1" makes it the foreground. */
static void
check(struct gnomefg *g, const struct gwatch *w)
{
	char v[64], err[512] = "";
	unsigned id;
	bool first;
	ssize_t n = lgetxattr(w->path, GNOMEFG_XATTR, v, sizeof(v) - 1);

	if (n < 0 || (v[n] = '\0', strcmp(v, "-1") != 0))
		return; /* not focused: the foreground stays where it is */
	if (w->wd == g->fg_wd && g->fg_id != 0 && g->fg->grant == g->fg_id)
		return; /* already */
	pid_t pid = lowest_pid(w->path);
	if (pid == 0)
		return;
	if (!ratelimit_take(&g->rate, w->uid, g->now, &first)) {
		if (first)
			log_warning("gnome: uid %u changes the foreground too fast",
				    (unsigned)w->uid);
		return;
	}
	if (foreground_set(g->fg, g->now, pid, -1, w->uid, 0, &id, err, sizeof(err)) <
	    0) {
		unsigned long held;

		if (log_limit_pass(&g->fails, g->now, &held))
			log_warning("gnome: %s: pid %d: %s", w->path, (int)pid, err);
		return;
	}
	g->fg_wd = w->wd;
	g->fg_id = id;
	log_info("gnome: uid %u focused %s: pid %d is the foreground (grant #%u)",
		 (unsigned)w->uid, w->path, (int)pid, id);
}

static int watch(struct gnomefg *g, const char *path, int depth, uid_t uid);

/* Directory name below parent p: watch it if it leads to app scopes. */
static void
child(struct gnomefg *g, const struct gwatch *p, const char *name)
{
	char path[PATH_MAX], want[64];
	unsigned uid;
	uid_t u = p->uid;

	if (p->depth == 0) {
		if (sscanf(name, "user-%u.slice%1s", &uid, want) != 1)
			return;
		snprintf(want, sizeof(want), "user-%u.slice", uid);
		u = (uid_t)uid;
	} else if (p->depth == 1) {
		snprintf(want, sizeof(want), "user@%u.service", (unsigned)p->uid);
	} else if (p->depth == 2) {
		snprintf(want, sizeof(want), "app.slice");
	} else if (p->depth < DEPTH_MAX) {
		str_copy(want, sizeof(want), name);
	} else {
		return;
	}
	if (strcmp(name, want) != 0 ||
	    snprintf(path, sizeof(path), "%s/%s", p->path, name) >= (int)sizeof(path))
		return;
	(void)watch(g, path, p->depth + 1, u);
}

/* Watch path (and what below it leads to app scopes); 0 or -errno. */
static int
watch(struct gnomefg *g, const char *path, int depth, uid_t uid)
{
	uint32_t mask = IN_CREATE | IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW |
			(depth > DEPTH_APPS ? IN_ATTRIB : 0);
	struct gwatch *w;
	struct dirent *de;
	struct gcount *n = depth > 0 ? count_of(g, uid) : NULL;
	DIR *dir;
	int wd;

	if (g->nwatches >= WATCHES_MAX || (depth > 0 && (n == NULL || !room(n))))
		return -ENOSPC;
	if ((wd = inotify_add_watch(g->fd, path, mask)) < 0)
		return -errno;
	if ((w = find(g, wd)) == NULL) {
		if ((w = calloc(1, sizeof(*w))) == NULL)
			return -ENOMEM;
		w->wd = wd;
		w->depth = depth;
		w->uid = uid;
		str_copy(w->path, sizeof(w->path), path);
		LIST_INSERT_HEAD(&g->watches, w, link);
		g->nwatches++;
		if (n != NULL)
			n->watches++;
	}
	if ((dir = opendir(path)) == NULL)
		return 0; /* gone meanwhile: IN_IGNORED follows */
	while ((de = readdir(dir)) != NULL)
		if (de->d_type == DT_DIR && de->d_name[0] != '.')
			child(g, w, de->d_name);
	closedir(dir);
	if (!g->fresh && depth > DEPTH_APPS)
		check(g, w);
	return 0;
}

/* One event. */
static void
event(struct gnomefg *g, const struct inotify_event *ev)
{
	struct gwatch *w = find(g, ev->wd);

	if (w == NULL)
		return;
	if (ev->mask & IN_IGNORED) { /* removed (or unmounted) */
		if (w->wd == g->fg_wd) {
			log_info("gnome: %s was removed: the foreground grant #%u ends",
				 w->path, g->fg_id);
			foreground_end(g->fg, g->fg_id, "its scope was removed");
			g->fg_wd = -1;
			g->fg_id = 0;
		}
		struct gcount *n = w->depth > 0 ? count_of(g, w->uid) : NULL;
		if (n != NULL && n->watches > 0)
			n->watches--;
		LIST_REMOVE(w, link);
		g->nwatches--;
		free(w);
	} else if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) && (ev->mask & IN_ISDIR) &&
		   ev->len > 0) {
		child(g, w, ev->name);
	} else if ((ev->mask & IN_ATTRIB) && ev->len == 0) {
		check(g, w);
	}
}

void
gnomefg_process(struct gnomefg *g, double now)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct gwatch *w;
	ssize_t n;

	g->now = now;
	if (g->fresh) {
		g->fresh = false;
		LIST_FOREACH (w, &g->watches, link)
			if (w->depth > DEPTH_APPS)
				check(g, w);
	}
	for (int round = 0; round < 64 && (n = read(g->fd, buf, sizeof(buf))) > 0;
	     round++)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->mask & IN_Q_OVERFLOW) {
				log_warning(
					"gnome: events were lost: looking at the scopes again");
				g->fresh = true;
			} else {
				event(g, ev);
			}
			p += sizeof(*ev) + ev->len;
		}
	if (g->fresh) { /* after an overflow: every directory and xattr again */
		g->fresh = false;
		(void)watch(g, g->root, 0, (uid_t)-1);
	}
}

int
gnomefg_fd(const struct gnomefg *g)
{
	return g->fd;
}

int
gnomefg_new(struct gnomefg **out, struct foreground *fg, const char *root)
{
	struct gnomefg *g = calloc(1, sizeof(*g));
	int rc;

	if (g == NULL)
		return -ENOMEM;
	g->fg = fg;
	g->fg_wd = -1;
	g->fresh = true;
	LIST_INIT(&g->watches);
	g->fails = (struct log_limit)LOG_LIMIT_INIT(5);
	ratelimit_init(&g->rate, GNOME_RATE, GNOME_BURST, GNOME_USERS);
	str_copy(g->root, sizeof(g->root), root);
	if ((g->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		rc = -errno;
		gnomefg_free(g);
		return rc;
	}
	if ((rc = watch(g, root, 0, (uid_t)-1)) < 0) {
		gnomefg_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

void
gnomefg_free(struct gnomefg *g)
{
	struct gwatch *w;

	if (g == NULL)
		return;
	while ((w = LIST_FIRST(&g->watches)) != NULL) {
		LIST_REMOVE(w, link);
		free(w);
	}
	if (g->fd >= 0)
		close(g->fd);
	ratelimit_free(&g->rate);
	free(g->counts);
	free(g);
}
