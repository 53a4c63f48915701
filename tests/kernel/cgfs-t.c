/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgfs-t.c -- integration tests for kernel/cgfs.c as root on a private
 * named hierarchy: create with parents, settings, moving a child the
 * test started, reading it back, removal rules.
 */
#include "kernel/kernel.h"
#include "tests/lib/testenv.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(void)
{
	const char *why = testenv_unavailable();
	struct testhier th;
	struct hier_list l;
	char key[96], buf[4096];
	bool created;

	if (why != NULL)
		skip_all("%s", why);
	plan(34);
	if (testenv_mount(&th, "cgfs") < 0)
		bail("mount failed");
	if (hier_discover("/proc/self/mountinfo", &l) < 0)
		bail("mountinfo");
	snprintf(key, sizeof(key), "name=%s", th.name);
	const struct hier *h = hier_find(&l, key);
	ok(h != NULL, "the private hierarchy is discovered");
	if (h == NULL)
		bail("not found");
	is_string(th.dir, h->mount, "at its mount point");

	is_int(0, cgfs_mkdir(h, "/a/b/c", &created), "mkdir with parents");
	ok(created, "the leaf was created");
	is_int(0, cgfs_mkdir(h, "/a/b/c", &created), "mkdir again");
	ok(!created, "second time nothing is created");
	is_int(0, cgfs_mkdir(h, "/", &created), "mkdir of the root is a no-op");

	is_int(0, cgfs_set(h, "/a/b/c", "notify_on_release", "1"), "write a setting");
	snprintf(buf, sizeof(buf), "%s/a/b/c/notify_on_release", th.dir);
	FILE *f = fopen(buf, "r");
	int v = -1;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -2;
		fclose(f);
	}
	is_int(1, v, "the setting reads back");
	is_int(-ENOENT, cgfs_set(h, "/a/b/c", "no.such.file", "1"),
	       "unknown setting: -ENOENT");
	is_int(-EINVAL, cgfs_set(h, "/a", "../x", "1"), "a key with '/' is refused");

	pid_t child = testenv_sleeper();
	ok(cgfs_is_empty(h, "/a/b/c"), "new group is empty");
	is_int(0, cgfs_move(h, "/a/b/c", child), "move our child");
	is_string("/a/b/c", testenv_cgroup_of(child, key, buf, sizeof(buf)),
		  "the kernel shows it in /a/b/c");
	ok(!cgfs_is_empty(h, "/a/b/c"), "group is no longer empty");
	is_int(-EBUSY, cgfs_rmdir(h, "/a/b/c"), "cannot remove a busy group");
	is_int(0, cgfs_move(h, "/", child), "move back to the root");
	is_int(0, cgfs_rmdir(h, "/a/b/c"), "remove the empty group");
	is_int(-ENOENT, cgfs_move(h, "/a/b/c", child),
	       "moving into a missing group: -ENOENT");
	/* the cached moves: the file's path is made for each of them */
	struct cgfs_cache *cache = cgfs_cache_new();
	if (cache == NULL)
		bail("cgfs_cache_new");
	is_int(0, cgfs_move_cached(cache, h, "//a/b", child), "a cached move (leading slashes)");
	is_string("/a/b", testenv_cgroup_of(child, key, buf, sizeof(buf)),
		  "the kernel shows it in /a/b");
	is_int(0, cgfs_move_cached(cache, h, "/", child), "a cached move to the root");
	is_string("/", testenv_cgroup_of(child, key, buf, sizeof(buf)),
		  "the kernel shows it in the root");
	char *deep = malloc(PATH_MAX);
	if (deep == NULL)
		bail("malloc");
	memset(deep, 'x', PATH_MAX - 1);
	deep[0] = '/';
	deep[PATH_MAX - 1] = '\0';
	is_int(-ENAMETOOLONG, cgfs_move_cached(cache, h, deep, child),
	       "a path too long for PATH_MAX: -ENAMETOOLONG");
	/* mount + path + "/cgroup.procs" and the NUL: PATH_MAX + 1 bytes */
	deep[PATH_MAX - strlen(h->mount) - strlen("/cgroup.procs")] = '\0';
	is_int(-ENAMETOOLONG, cgfs_move_cached(cache, h, deep, child),
	       "one byte short of room for the NUL: -ENAMETOOLONG");
	deep[PATH_MAX - strlen(h->mount) - strlen("/cgroup.procs") - 1] = '\0';
	is_int(-ENOENT, cgfs_move_cached(cache, h, deep, child),
	       "a path that just fits is tried: -ENOENT");
	free(deep);
	cgfs_cache_free(cache);
	testenv_stop(child);
	is_int(-ESRCH, cgfs_move(h, "/a", child), "moving a task that exited: -ESRCH");
	is_int(-EINVAL, cgfs_rmdir(h, "/"), "the root is never removed");

	is_int(0, cgfs_check(h), "the mount point is a cgroup file system");
	/* a hierarchy unmounted behind the daemon's back leaves a plain
	 * directory: nothing may be created or written there */
	char plain[] = "/tmp/cgetest-plain.XXXXXX", sub[64];
	if (mkdtemp(plain) == NULL)
		bail("mkdtemp");
	struct hier gone = { .name = "name=gone", .mount = plain, .version = HIER_V1 };
	is_int(-ESTALE, cgfs_check(&gone), "a plain directory is not a cgroup file system");
	is_int(-ESTALE, cgfs_mkdir(&gone, "/x", &created), "mkdir there: -ESTALE");
	snprintf(sub, sizeof(sub), "%s/x", plain);
	ok(access(sub, F_OK) != 0, "... and no directory was made on the root file system");
	is_int(-ESTALE, cgfs_move(&gone, "/", getpid()), "a move there: -ESTALE");
	rmdir(plain);

	hier_list_free(&l);
	is_int(0, testenv_umount(&th),
	       "teardown: the hierarchy is no longer in /proc/self/cgroup");
	return tap_done();
}
