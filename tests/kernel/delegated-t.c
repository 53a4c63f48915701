/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * delegated-t.c -- cgfs_delegated() (kernel/cgfs.c): whether systemd
 * marked a group delegated, by its extended attributes, on a temporary
 * directory standing for a group (a file system with extended
 * attributes: user.* as anyone, trusted.* as root).  Without root only
 * user.delegate is tested; without extended attributes at all, skipped.
 */
#include "kernel/kernel.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static char top[] = "/tmp/cgedelegXXXXXX";

static void
mark(const char *group, const char *name, const char *value)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s%s", top, group);
	if (setxattr(dir, name, value, strlen(value), 0) < 0)
		bail("setxattr %s %s: %s", dir, name, strerror(errno));
}

static void
group(const char *name)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s%s", top, name);
	if (mkdir(dir, 0755) < 0)
		bail("mkdir %s: %s", dir, strerror(errno));
}

static void
cleanup(void)
{
	static const char *const dirs[] = { "/plain", "/user", "/trusted", "/off", "" };
	char dir[256];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s%s", top, dirs[i]);
		rmdir(dir);
	}
}

int
main(void)
{
	bool root = geteuid() == 0;

	if (mkdtemp(top) == NULL)
		bail("mkdtemp: %s", strerror(errno));
	atexit(cleanup);
	if (setxattr(top, "user.cgetest", "1", 1, 0) < 0) {
		int err = errno;
		cleanup();
		skip_all("no user extended attributes in /tmp: %s", strerror(err));
	}
	plan(root ? 7 : 5);
	struct hier h = { .name = "", .mount = top, .version = HIER_V2 };
	group("/plain");
	group("/user");
	group("/off");
	mark("/user", "user.delegate", "1");
	mark("/off", "user.delegate", "0");

	is_int(0, cgfs_delegated(&h, "/plain"), "a group without the attributes: not delegated");
	is_int(1, cgfs_delegated(&h, "/user"), "user.delegate=1: delegated");
	is_int(0, cgfs_delegated(&h, "/off"), "user.delegate=0: not delegated");
	is_int(-ENOENT, cgfs_delegated(&h, "/gone"), "a group that is not there: -ENOENT");
	is_int(0, cgfs_delegated(&h, "/"), "an attribute of another name does not count");
	if (root) {
		group("/trusted");
		mark("/trusted", "trusted.delegate", "1");
		is_int(1, cgfs_delegated(&h, "/trusted"), "trusted.delegate=1: delegated");
		mark("/trusted", "trusted.delegate", "0");
		is_int(0, cgfs_delegated(&h, "/trusted"), "trusted.delegate=0: not delegated");
	}
	return tap_done();
}
