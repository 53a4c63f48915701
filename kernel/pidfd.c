/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pidfd.c -- process file descriptors: the pid a pidfd stands for (its
 * fdinfo's "Pid:" line), and a pidfd of a pid.  A pidfd names one
 * process for as long as it is held: the pid read from it is that
 * process's while the pidfd says the process still runs.
 */
#include "kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

int
pidfd_open_pid(pid_t pid)
{
	long fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : (int)fd;
}

bool
pidfd_running(int fd)
{
	/* signal 0 checks, sends nothing; EPERM: running, not ours to signal */
	return syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0) == 0 || errno == EPERM;
}

int
pidfd_pid(int fd, pid_t *pid)
{
	char path[64], line[256];
	long v = 0;
	bool seen = false;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return errno == ENOENT ? -EBADF : -errno;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Pid:\t%ld", &v) == 1) {
			seen = true;
			break;
		}
	fclose(f);
	if (!seen)
		return -EBADF; /* not a pidfd */
	if (v <= 0 || v > 0x3fffffff)
		return -ESRCH; /* exited (-1), or in another pid namespace (0) */
	/* the pid was that process's when read: it still is while it runs */
	if (!pidfd_running(fd))
		return -ESRCH;
	*pid = (pid_t)v;
	return 0;
}
