/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * file.c -- small helpers for the daemon's own files.
 */
#include "util/util.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int
mkdir_parents(const char *path)
{
	char dir[4096];

	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	strcpy(dir, path);
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return 0;
}
