/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * execgate.h -- the kernel side of the exec gate (part of kernel/).
 *
 *   execgate_open/mark   a fanotify group whose FAN_OPEN_EXEC_PERM
 *                        events hold an execve() of a marked binary
 *                        until it is answered; inode marks
 *   execgate_read/allow  the held execs, and the one answer given
 *   execgate_dirs_*      inotify on the binaries' directories: a package
 *                        upgrade replaces a binary by rename, and the
 *                        new inode carries no mark
 *   execgate_creds       the credentials an exec will run with
 *
 * Nothing here decides anything.  The gate never denies: every answer
 * is FAN_ALLOW.  Closing the fanotify descriptor (the daemon exiting,
 * or killed) allows every exec still held.  Functions return 0 (or a
 * count) or -errno.
 */
#ifndef CGENGINE_EXECGATE_H
#define CGENGINE_EXECGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/attr.h"

/* A binary, as an event's descriptor or a path identifies it. */
struct execgate_file {
	uint64_t dev, ino;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	bool nosuid; /* on a nosuid mount: its set-id bits do nothing (read
			only when it has some) */
	uint64_t mnt_id; /* the mount it was reached through (statx; read
			    only when it has set-id bits; 0: unknown) */
	bool foreign;	 /* reached through another mount than the daemon's
			    marked path: its set-id bits count only if that
			    mount is the exec'ing process's, which the
			    daemon cannot tell (the caller sets it) */
};

/*
 * A fanotify group for exec permission events (needs CAP_SYS_ADMIN),
 * non-blocking and close-on-exec, reporting a pidfd of the exec'ing
 * process with each event where the kernel can (Linux >= 5.15; *pidfds
 * says so).  The descriptor, or -errno (-EINVAL/-ENOSYS: no fanotify
 * or no FAN_OPEN_EXEC_PERM, Linux < 5.0).  The process's descriptor
 * table is grown for EXECGATE_FDS_AHEAD descriptors at once.
 */
int execgate_open(bool *pidfds) ATTR_WUR;
/* Descriptors a burst of held execs may open at once (a read of the
 * daemon's 128 events: 256 with pidfds), and the daemon's own. */
#define EXECGATE_FDS_AHEAD 512

/* Mark the inode path names (links followed) so that its execs wait
 * for an answer; its identity into f.  0 or -errno. */
int execgate_mark(int gfd, const char *path, struct execgate_file *f) ATTR_WUR;
/* Take the mark off the inode path names now; 0 or -errno. */
int execgate_unmark(int gfd, const char *path) ATTR_WUR;

/* One exec held by the kernel until it is answered. */
struct execgate_event {
	int fd;	   /* the binary, opened for the reader: answer by it */
	int pidfd; /* the exec'ing process, or -1 */
	pid_t pid; /* its thread group */
};

/*
 * Read the events waiting, into buf (len bytes, at least 4096) and ev
 * (up to max).  The count, -EAGAIN when none is waiting, or -errno.
 * Events of any other kind (none are asked for) are allowed and closed
 * here.  Each event returned must be answered (execgate_allow) and
 * closed (execgate_close).
 */
int execgate_read(int gfd, void *buf, size_t len, struct execgate_event *ev,
		  size_t max) ATTR_WUR;
/* The binary of an event's descriptor; 0 or -errno. */
int execgate_stat(int fd, struct execgate_file *f) ATTR_WUR;
/* Let the exec held by event descriptor fd go on.  0 or -errno. */
int execgate_allow(int gfd, int fd);
/* Close an event's descriptors. */
void execgate_close(const struct execgate_event *ev);
/* Is the process of pidfd still running (true when it cannot tell)? */
bool execgate_alive(int pidfd);
/*
 * Read every event waiting and allow it at once: for a watchdog thread
 * (no allocation, no logging, a 4 KiB stack buffer).  The number of
 * execs let go, or -errno.
 */
int execgate_allow_all(int gfd);

/*
 * The effective uid and gid an exec of binary f will run with, from
 * the exec'ing task's (the old ones): a set-user-ID bit gives the
 * file's owner, a set-group-ID bit with group execute the file's group
 * -- unless the mount is nosuid or the task has no_new_privs (or the
 * file is foreign: not known to apply).
 */
void execgate_creds(const struct execgate_file *f, bool no_new_privs, uid_t *euid,
		    gid_t *egid);

/*
 * Will the kernel surely apply the set-id bits of a binary that process
 * pid (under procroot) execs now, mount and no_new_privs aside
 * (execgate_creds)?  It refuses them when the process is traced by a
 * tracer without CAP_SYS_PTRACE, when the file's owner or group has no
 * mapping in the process's user namespace, and when the process shares
 * its filesystem information (CLONE_FS) with another process, or for a
 * file on a mount of another mount namespace than its own.  true only
 * when none can be: no tracer (TracerPid of status), the user and
 * mount namespaces of the daemon itself (ns/user, ns/mnt: the caller
 * marks a file reached through another mount than the daemon's path
 * as foreign), and no other task of
 * procroot sharing it (kcmp KCMP_FS with each).  false when any of it
 * cannot be read, or kcmp may not inspect the process itself (the
 * daemon without CAP_SYS_PTRACE).  A task kcmp may not inspect while it
 * may the process is taken as not sharing: a task sharing it is its
 * kin, in its user namespace (unshare and setns of a user namespace
 * refuse a shared fs_struct), with no more privilege than its own (a
 * set-id exec with it shared is refused too).  No
 * lock a held exec holds is taken: status, a link's stat, and kcmp,
 * which takes only exec_update_lock since Linux 5.7 (an exec takes it
 * after it is answered); before, kcmp took cred_guard_mutex, which a
 * held exec holds there, and is not called: false.  Costs a directory
 * read of procroot and of each process's task/, and a kcmp per task.
 */
bool execgate_setid_sure(const char *procroot, pid_t pid);

/*
 * Does process pid (under procroot) run binary (dev, ino) now, as its
 * /proc/PID/exe shows?  1, 0, or -errno (-ESRCH: it is gone).  Not
 * while its exec is held: the link takes no lock, but shows the old
 * program until the exec is done.
 */
int
execgate_runs(const char *procroot, pid_t pid, uint64_t dev, uint64_t ino) ATTR_WUR;

/* The effective uid and gid process pid (under procroot) runs with now,
 * from its status; 0 or -errno (-ESRCH: it is gone). */
int execgate_ids(const char *procroot, pid_t pid, uid_t *euid, gid_t *egid) ATTR_WUR;

/*
 * The living descendants of the n processes in v (under procroot), as
 * their threads' task/TID/children list them, appended to v (up to max
 * in all) unless v has them already.  The new count.  None without the
 * lists (CONFIG_PROC_CHILDREN off); one whose parent has exited
 * (reparented) is not found.
 */
size_t execgate_descendants(const char *procroot, pid_t *v, size_t n, size_t max);

/* ---- the directories of the marked binaries (inotify) -------------------- */

/* An inotify descriptor (non-blocking, close-on-exec), or -errno. */
int execgate_dirs_open(void) ATTR_WUR;
/* Watch directory dir for names made, renamed into place or removed;
 * the watch descriptor or -errno. */
int execgate_dir_watch(int ifd, const char *dir) ATTR_WUR;

/* What happened to a name in a watched directory. */
enum execgate_dir_change {
	EXECGATE_NAME_NEW,  /* made, renamed into place, or its file changed */
	EXECGATE_NAME_GONE, /* removed or renamed away */
	EXECGATE_DIR_GONE,  /* the watch ended (directory removed, unmounted) */
	EXECGATE_OVERFLOW,  /* events were lost: look at every name again */
};

/*
 * Read the directory events waiting: fn(arg, wd, change, name) for
 * each (name NULL for EXECGATE_DIR_GONE and EXECGATE_OVERFLOW, wd -1
 * for the latter).  0 when drained, or -errno.
 */
int execgate_dirs_read(int ifd,
		       void (*fn)(void *arg, int wd, enum execgate_dir_change change,
				  const char *name),
		       void *arg) ATTR_WUR;

#endif
