/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * execproc.c -- what the exec gate's decisions ask about a held exec
 * without fanotify or inotify: is its process alive, the credentials
 * it will run with, does it run the binary yet.  See execgate.h.  A
 * file of its own so that the core, which asks these, links no
 * fanotify call (tests/engined/walls-t.sh checks).
 */
#include "kernel/execgate.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>

bool
execgate_alive(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	/* a pidfd becomes readable when its process exits */
	return pidfd < 0 || poll(&p, 1, 0) != 1;
}

void
execgate_creds(const struct execgate_file *f, bool no_new_privs, uid_t *euid, gid_t *egid)
{
	if (f->nosuid || no_new_privs || !S_ISREG(f->mode))
		return;
	if (f->mode & S_ISUID)
		*euid = f->uid;
	/* set-group-ID without group execute marks mandatory locking */
	if ((f->mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		*egid = f->gid;
}

int
execgate_runs(const char *procroot, pid_t pid, uint64_t dev, uint64_t ino)
{
	char path[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/exe", procroot, (int)pid) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return (uint64_t)st.st_dev == dev && (uint64_t)st.st_ino == ino;
}
