/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gnomefg-t -- GNOME's focused app (engined/daemon/gnomefg.c) without
 * touching the host: the watcher looks at a tree of plain directories
 * the test makes (user-UID.slice/user@UID.service/app.slice/SCOPE, each
 * scope's processes named in its cgroup.procs), over a fixture core
 * whose processes are the fixture's /proc look-alike; the test sets
 * Mutter's xattr itself.  "-1" on A makes A the foreground, "-1" on B
 * moves it, another value on A alone changes nothing, a removed scope
 * ends its grant, and a scope there before the watcher is looked at.
 */
#include "engined/core/core_private.h"
#include "engined/daemon/foreground.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"
#include "util/util.h"

#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static struct fixture fx;
static struct core *core;
static struct foreground shared;
static struct gnomefg *g;
static char apps[256];
static const uid_t nobody = 65534;

static void
mkdir_or_bail(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		bail("mkdir %s: %s", path, strerror(errno));
}

/* Write pids into directory path's cgroup.procs. */
static void
write_procs(const char *path, const char *procs)
{
	char file[600];
	FILE *f;

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	if ((f = fopen(file, "w")) == NULL || fputs(procs, f) < 0 || fclose(f) != 0)
		bail("cannot write %s", file);
}

/* A scope under app.slice holding pids (its cgroup.procs); its path. */
static const char *
scope(const char *name, const char *procs)
{
	static char path[512];
	char file[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", apps, name);
	mkdir_or_bail(path);
	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	if ((f = fopen(file, "w")) == NULL || fputs(procs, f) < 0 || fclose(f) != 0)
		bail("cannot write %s", file);
	return path;
}

static void
mark(const char *name, const char *value)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", apps, name);
	if (setxattr(path, GNOMEFG_XATTR, value, strlen(value), 0) < 0)
		bail("setxattr %s: %s", path, strerror(errno));
}

/* Let the watcher read what its inotify descriptor has. */
static void
pump(void)
{
	struct pollfd p = { .fd = gnomefg_fd(g), .events = POLLIN };

	while (poll(&p, 1, 100) > 0)
		gnomefg_process(g, mono_s());
}

static void
remove_scope(const char *name)
{
	char path[512], file[600];

	snprintf(path, sizeof(path), "%s/%s", apps, name);
	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	if (unlink(file) < 0 || rmdir(path) < 0)
		bail("cannot remove %s", path);
}

int
main(void)
{
	char conf[512], root[200], dir[600];

	fixture_init(&fx);
	snprintf(root, sizeof(root), "%s/user.slice", fx.dir);
	mkdir_or_bail(root);
	if (setxattr(root, "user.cgetest", "1", 1, 0) < 0) {
		int err = errno;

		fixture_done(&fx);
		skip_all("the temporary directory has no user xattrs: %s", strerror(err));
	}
	plan(16);
	snprintf(conf, sizeof(conf),
		 "foreground-profile = \"fg\"\n"
		 "boost-profile \"fg\" { allow = {\"nobody\", \"%s\"} hierarchy = \"%s\" "
		 "destination = \"/fg\" max-duration = \"1d\" }\n",
		 getpwuid(1) != NULL ? getpwuid(1)->pw_name : "nobody", FIXTURE_HIER);
	fixture_files(&fx, conf, fixture_rules);
	if ((core = fixture_core(&fx)) == NULL)
		bail("no core");
	core_start(core, mono_s());
	shared.core = core;
	for (pid_t pid = 4001; pid <= 4004; pid++)
		fixture_proc(&fx, pid, nobody, nobody, "/usr/bin/app", 100, "/");
	fixture_proc(&fx, 4005, 1, 1, "/usr/bin/app", 100, "/");

	/* the user's tree, with scope A already focused before the watcher */
	snprintf(dir, sizeof(dir), "%s/user-%u.slice", root, (unsigned)nobody);
	mkdir_or_bail(dir);
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/user@%u.service",
		 (unsigned)nobody);
	mkdir_or_bail(dir);
	snprintf(apps, sizeof(apps), "%s/app.slice", dir);
	mkdir_or_bail(apps);
	scope("app-a.scope", "4002\n4001\n");
	mark("app-a.scope", "-1");
	ok(gnomefg_new(&g, &shared, root) == 0, "the watcher watches the tree");
	is_int(0, shared.boost, "nothing is looked at before the first round");
	gnomefg_process(g, mono_s());
	ok(shared.boost != 0, "a scope focused before the watcher is the foreground");
	is_string("/fg", fixture_group(&fx, 4001),
		  "its lowest pid gets the foreground profile");

	/* B appears (IN_CREATE), is focused: the foreground moves */
	scope("app-b.scope", "4003\n");
	pump();
	unsigned a = shared.boost;
	mark("app-a.scope", "1733460000000000");
	pump();
	is_int(a, shared.boost, "another value on A alone changes nothing");
	is_string("/fg", fixture_group(&fx, 4001), "A keeps the foreground");
	mark("app-b.scope", "-1");
	pump();
	ok(shared.boost != 0 && shared.boost != a, "\"-1\" on B moves the foreground");
	is_string("/fg", fixture_group(&fx, 4003),
		  "B's process gets the foreground profile");
	ok(core_boost_find(core, a) == NULL, "A's grant ended");
	is_string("/users/nobody", fixture_group(&fx, 4001),
		  "A's process is back in its group");

	/* B is focused again (Mutter may say it twice): the grant stays */
	unsigned b = shared.boost;
	mark("app-b.scope", "-1");
	pump();
	is_int(b, shared.boost, "\"-1\" again on the foreground changes nothing");

	/* a scope deeper under app.slice (a sub-slice) counts too */
	snprintf(dir, sizeof(dir), "%s/app-gnome.slice", apps);
	mkdir_or_bail(dir);
	scope("app-gnome.slice/app-c.scope", "4004\n");
	pump();
	mark("app-gnome.slice/app-c.scope", "-1");
	pump();
	is_string("/fg", fixture_group(&fx, 4004),
		  "a scope in a sub-slice becomes the foreground");

	/* the foreground's scope is removed: its grant ends */
	unsigned c = shared.boost;
	remove_scope("app-gnome.slice/app-c.scope");
	pump();
	is_int(0, shared.boost, "a removed scope ends the foreground");
	ok(core_boost_find(core, c) == NULL, "its boost ended");

	/* a user making groups in its own tree without end: past 4096 of
	 * them, its new ones are not watched; another user's still are */
	snprintf(dir, sizeof(dir), "%s/app-flood.slice", apps);
	mkdir_or_bail(dir);
	for (int i = 0; i < 4100; i++) {
		char sub[512];
		snprintf(sub, sizeof(sub), "%s/s%d.scope", dir, i);
		mkdir_or_bail(sub);
	}
	pump();
	scope("app-flood.slice/late.scope", "4001\n");
	mark("app-flood.slice/late.scope", "-1");
	pump();
	is_int(0, shared.grant,
	       "past 4096 groups of one user, its new ones are not watched");
	struct passwd *other = getpwuid(1);
	if (other == NULL) {
		skip(1, "uid 1 has no name");
	} else {
		snprintf(dir, sizeof(dir), "%s/user-1.slice", root);
		mkdir_or_bail(dir);
		strcat(dir, "/user@1.service");
		mkdir_or_bail(dir);
		strcat(dir, "/app.slice");
		mkdir_or_bail(dir);
		pump();
		strcat(dir, "/app-o.scope");
		mkdir_or_bail(dir);
		pump();
		write_procs(dir, "4005\n");
		if (setxattr(dir, GNOMEFG_XATTR, "-1", 2, 0) < 0)
			bail("setxattr %s: %s", dir, strerror(errno));
		pump();
		is_string(
			"/fg", fixture_group(&fx, 4005),
			"another user's new scope still is (its \"-1\" is the foreground)");
	}

	gnomefg_free(g);
	foreground_end(&shared, 0, "the test ends");
	core_free(core);
	fixture_done(&fx);
	return tap_done();
}
