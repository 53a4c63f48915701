/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pidfile.c -- the pid file: refuse to start twice, write atomically.
 */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Is the pid in an existing pid file a running cgengined? */
static pid_t
running_pid(const char *path)
{
	char buf[32], comm[64], proc[64];
	FILE *f = fopen(path, "re");
	long pid = 0;

	if (f == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) != NULL)
		pid = strtol(buf, NULL, 10);
	fclose(f);
	if (pid <= 0 || pid == getpid() || kill((pid_t)pid, 0) < 0)
		return 0;
	snprintf(proc, sizeof(proc), "/proc/%ld/comm", pid);
	if ((f = fopen(proc, "re")) == NULL)
		return 0;
	bool ours = fgets(comm, sizeof(comm), f) != NULL &&
		    strncmp(comm, "cgengined", 9) == 0;
	fclose(f);
	return ours ? (pid_t)pid : 0;
}

int
pidfile_write(const char *path)
{
	char tmp[4096];
	pid_t other;
	FILE *f;

	if (path == NULL || *path == '\0')
		return 0;
	if ((other = running_pid(path)) > 0) {
		log_error("%s: cgengined is already running as pid %d", path, (int)other);
		return -EEXIST;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "we")) == NULL) {
		int e = errno;
		log_error("%s: cannot write: %s", tmp, strerror(e));
		return -e;
	}
	fprintf(f, "%d\n", (int)getpid());
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		int e = errno;
		log_error("%s: cannot write: %s", path, strerror(e));
		unlink(tmp);
		return -e;
	}
	return 0;
}

void
pidfile_remove(const char *path)
{
	if (path != NULL && *path != '\0')
		unlink(path);
}
