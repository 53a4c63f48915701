/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * setid.c -- test helper: sleep, change ids without exec, sleep.
 * Usage: setid UID|- GID|- DELAY SECONDS [IGNORED...]
 * Produces proc connector UID/GID events (and no EXEC) for its pid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
nap(const char *s)
{
	usleep((useconds_t)(atof(s) * 1e6));
}

int
main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: setid UID|- GID|- DELAY SECONDS\n");
		return 2;
	}
	nap(argv[3]);
	if (strcmp(argv[2], "-") != 0 &&
	    setresgid(atoi(argv[2]), atoi(argv[2]), atoi(argv[2])) < 0)
		return 3;
	if (strcmp(argv[1], "-") != 0 &&
	    setresuid(atoi(argv[1]), atoi(argv[1]), atoi(argv[1])) < 0)
		return 4;
	nap(argv[4]);
	return 0;
}
