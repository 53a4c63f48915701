/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nss-t.c -- tests for rules/nss.c against the machine's own user and
 * group databases (every Linux system has root, uid 0 and gid 0).
 */
#include "util/util.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char name[NSS_NAME_MAX + 2], buf[64];
	uid_t uid = 99, *members = (uid_t *)&uid;
	gid_t gid = 99;
	size_t n = 1;

	plan(14);
	is_int(0, nss_user("root", &uid, &gid), "user root");
	is_int(0, uid, "root's uid");
	is_int(0, gid, "root's primary gid");
	is_int(-ENOENT, nss_user("cgetest-no-such-user", &uid, NULL),
	       "an unknown user: -ENOENT");

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	is_int(-ENAMETOOLONG, nss_user(name, &uid, NULL),
	       "a name over NSS_NAME_MAX is refused");
	is_int(-ENAMETOOLONG, nss_group(name, &gid, NULL, NULL),
	       "a group name too");

	is_int(0, nss_user_name(0, buf, sizeof(buf), NULL), "uid 0 has a name");
	is_string("root", buf, "and it is root");
	is_int(-ENAMETOOLONG, nss_user_name(0, buf, 3, NULL),
	       "a buffer too small: -ENAMETOOLONG");

	is_int(0, nss_group_name(0, buf, sizeof(buf)), "gid 0 has a name");
	is_string("root", buf, "and it is root");
	is_int(0, nss_group("root", &gid, &members, &n), "group root");
	is_int(0, gid, "root's gid");
	ok(n == 0 || members != NULL, "members come as an array (%zu)", n);
	free(members);
	return tap_done();
}
