/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * setxattr.c -- test helper: set the extended attribute NAME of PATH to
 * VALUE (as GNOME's window manager marks an application's cgroup), for
 * hosts without setfattr(1).  Exit 0, or 1 with the reason on stderr.
 * Usage: setxattr PATH NAME VALUE
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

int
main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: setxattr PATH NAME VALUE\n");
		return 2;
	}
	if (setxattr(argv[1], argv[2], argv[3], strlen(argv[3]), 0) < 0) {
		fprintf(stderr, "setxattr: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
