/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * execproc.c -- what the exec gate's decisions ask about a held exec
 * without fanotify or inotify: is its process alive, the credentials
 * it will run with (and may the kernel refuse its set-id bits), does it
 * run the binary yet, with which credentials.  See execgate.h.  A
 * file of its own so that the core, which asks these, links no
 * fanotify call (tests/engined/walls-t.sh checks).
 */
#include "kernel/execgate.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/kcmp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

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
	if (f->nosuid || f->foreign || no_new_privs || !S_ISREG(f->mode))
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

/* The status of pid, open; NULL with errno set (ESRCH: gone). */
static FILE *
status_of(const char *procroot, pid_t pid)
{
	char path[PATH_MAX];
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/status", procroot, (int)pid) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if ((f = fopen(path, "re")) == NULL && errno == ENOENT)
		errno = ESRCH;
	return f;
}

/* The second number of a "Uid:" or "Gid:" line (after its tag). */
static bool
second_id(const char *s, unsigned long *out)
{
	char *end;

	(void)strtoul(s, &end, 10);
	if (end == s)
		return false;
	s = end;
	*out = strtoul(s, &end, 10);
	return end != s;
}

int
execgate_ids(const char *procroot, pid_t pid, uid_t *euid, gid_t *egid)
{
	char line[256];
	unsigned long u = 0, g = 0;
	int found = 0;
	FILE *f = status_of(procroot, pid);

	if (f == NULL)
		return -errno;
	while (found != 3 && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Uid:", 4) == 0 && second_id(line + 4, &u))
			found |= 1;
		else if (strncmp(line, "Gid:", 4) == 0 && second_id(line + 4, &g))
			found |= 2;
	fclose(f);
	if (found != 3)
		return -ENODATA;
	*euid = (uid_t)u;
	*egid = (gid_t)g;
	return 0;
}

/* ---- is set-user-ID sure to be applied? ------------------------------------ */

/* The number after "TracerPid:" in the status of pid, or -errno. */
static int
tracer_of(const char *procroot, pid_t pid)
{
	char line[256];
	int tracer = -ENODATA;
	FILE *f = status_of(procroot, pid);

	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "TracerPid:", 10) == 0) {
			tracer = (int)strtol(line + 10, NULL, 10);
			break;
		}
	fclose(f);
	return tracer;
}

/* Is pid in the daemon's own namespace of kind ns ("user", "mnt")?
 * 1, 0 or -errno. */
static int
own_ns(const char *procroot, pid_t pid, const char *ns)
{
	char path[PATH_MAX], self[64];
	struct stat a, b;

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/ns/%s", procroot, (int)pid, ns) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	snprintf(self, sizeof(self), "/proc/self/ns/%s", ns);
	if (stat(path, &a) < 0 || stat(self, &b) < 0)
		return -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Does kcmp leave a held exec alone (Linux >= 5.7)? */
static bool
kcmp_safe(void)
{
	static int safe = -1;
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (safe < 0)
		safe = uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
		       (major > 5 || (major == 5 && minor >= 7));
	return safe == 1;
}

/*
 * Does task tid share its fs_struct with pid?  1, 0 (no, gone, or not
 * to be inspected: see execgate_setid_sure), -errno.
 */
static int
fs_same(pid_t pid, pid_t tid)
{
	long r = syscall(SYS_kcmp, pid, tid, KCMP_FS, 0, 0);

	if (r == 0)
		return 1;
	if (r > 0 || errno == ESRCH || (tid != pid && (errno == EPERM || errno == EACCES)))
		return 0;
	return -errno;
}

/* Does a task of a thread group other than pid's share pid's fs_struct?
 * The tasks of procroot/N/task, or N alone where there is none.  1, 0,
 * or -errno. */
static int
fs_shared(const char *procroot, pid_t pid)
{
	char path[PATH_MAX];
	struct dirent *e, *t;
	int rc = 0;
	DIR *d = opendir(procroot);

	if (d == NULL)
		return -errno;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		pid_t n = (pid_t)strtol(e->d_name, NULL, 10);
		DIR *td;

		if (n <= 0 || n == pid)
			continue;
		snprintf(path, sizeof(path), "%s/%d/task", procroot, (int)n);
		if ((td = opendir(path)) == NULL) {
			rc = fs_same(pid, n);
			continue;
		}
		while (rc == 0 && (t = readdir(td)) != NULL) {
			pid_t tid = (pid_t)strtol(t->d_name, NULL, 10);
			if (tid > 0)
				rc = fs_same(pid, tid);
		}
		closedir(td);
	}
	closedir(d);
	return rc;
}

bool
execgate_setid_sure(const char *procroot, pid_t pid)
{
	/* kcmp of the process with itself: can it be asked at all? */
	return tracer_of(procroot, pid) == 0 && own_ns(procroot, pid, "user") == 1 &&
	       own_ns(procroot, pid, "mnt") == 1 &&
	       kcmp_safe() && fs_same(pid, pid) == 1 && fs_shared(procroot, pid) == 0;
}

/* ---- descendants ------------------------------------------------------------- */

static bool
has_pid(const pid_t *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

/* Append the pids listed in file path to v (n so far, up to max) that
 * it has not; the new count. */
static size_t
read_pids(const char *path, pid_t *v, size_t n, size_t max)
{
	FILE *f = fopen(path, "re");
	long pid;

	if (f == NULL)
		return n;
	while (n < max && fscanf(f, "%ld", &pid) == 1)
		if (pid > 0 && !has_pid(v, n, (pid_t)pid))
			v[n++] = (pid_t)pid;
	fclose(f);
	return n;
}

size_t
execgate_descendants(const char *procroot, pid_t *v, size_t n, size_t max)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	for (size_t i = 0; i < n && n < max; i++) { /* v grows: its children too */
		snprintf(path, sizeof(path), "%s/%d/task", procroot, (int)v[i]);
		if ((d = opendir(path)) == NULL)
			continue;
		while (n < max && (e = readdir(d)) != NULL) {
			pid_t tid = (pid_t)strtol(e->d_name, NULL, 10);

			if (tid <= 0)
				continue;
			snprintf(path, sizeof(path), "%s/%d/task/%d/children", procroot,
				 (int)v[i], (int)tid);
			n = read_pids(path, v, n, max);
		}
		closedir(d);
	}
	return n;
}
