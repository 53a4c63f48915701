/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * execfail.c -- try to exec a file that is not a program, then report
 * where this process is: "HIER_GROUP_AT_ONCE HIER_GROUP_LATER\n".
 *
 * Usage: execfail FILE NAME MS
 *   FILE  an executable file the kernel cannot run (ENOEXEC)
 *   NAME  a hierarchy as /proc/self/cgroup names it ("name=x")
 *   MS    how long to wait before the second look
 * Exit status 0 when the exec failed with ENOEXEC, 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The group of this process in hierarchy name, into out. */
static void
group_of(const char *name, char *out, size_t len)
{
	char line[4096];
	FILE *f = fopen("/proc/self/cgroup", "r");
	size_t n = strlen(name);

	snprintf(out, len, "?");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *c1 = strchr(line, ':');

		if (c1 == NULL || strncmp(c1 + 1, name, n) != 0 || c1[1 + n] != ':')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(out, len, "%s", c1 + 2 + n);
		break;
	}
	fclose(f);
}

int
main(int argc, char **argv)
{
	char first[1024], later[1024];

	if (argc != 4)
		return 2;
	char *args[] = { argv[1], NULL };
	execv(argv[1], args);
	int err = errno;
	group_of(argv[2], first, sizeof(first));
	long ms = atol(argv[3]);
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
	nanosleep(&ts, NULL);
	group_of(argv[2], later, sizeof(later));
	printf("%s %s\n", first, later);
	return err == ENOEXEC ? 0 : 1;
}
