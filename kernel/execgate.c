/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * execgate.c -- fanotify exec permission events, their inode marks,
 * inotify on the marked binaries' directories.  See execgate.h; what
 * the core asks without fanotify (execgate_alive, _creds, _runs) is in
 * execproc.c, so a link of the core carries no fanotify call.
 *
 * Inode marks, not mount or filesystem marks: a mount mark misses the
 * same file seen through another mount namespace, a filesystem mark
 * would hold every exec of ld.so and of every interpreter.  An event
 * is matched by the (device, inode) of its descriptor, never by
 * /proc/PID/exe, which still shows the old program at this point.
 */
#include "kernel/execgate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdalign.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#ifndef FAN_REPORT_PIDFD
#define FAN_REPORT_PIDFD 0x00000080
#endif
#ifndef FAN_EVENT_INFO_TYPE_PIDFD
#define FAN_EVENT_INFO_TYPE_PIDFD 4
#endif

#define INIT_FLAGS  (FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK)
#define EVENT_FLAGS (O_RDONLY | O_LARGEFILE | O_CLOEXEC)

int
execgate_open(bool *pidfds)
{
	int fd = fanotify_init(INIT_FLAGS | FAN_REPORT_PIDFD, EVENT_FLAGS);

	*pidfds = fd >= 0;
	if (fd < 0 && errno == EINVAL) /* Linux < 5.15 */
		fd = fanotify_init(INIT_FLAGS, EVENT_FLAGS);
	if (fd < 0)
		return -errno;
	/* each event read opens a descriptor (two with pidfds): the table
	 * grown now for EXECGATE_FDS_AHEAD of them does not grow while
	 * execs are held (growing waits for an RCU grace period: 40 ms
	 * seen under a burst); EINVAL past RLIMIT_NOFILE is no matter */
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, EXECGATE_FDS_AHEAD);
	if (hi >= 0)
		close(hi);
	return fd;
}

static void
file_of(const struct stat *st, struct execgate_file *f)
{
	f->dev = (uint64_t)st->st_dev;
	f->ino = (uint64_t)st->st_ino;
	f->mode = st->st_mode;
	f->uid = st->st_uid;
	f->gid = st->st_gid;
	f->nosuid = f->foreign = false;
	f->mnt_id = 0;
}

/* The mount fd was reached through (Linux >= 5.8), or 0. */
static uint64_t
mount_of(int fd)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return 0;
	return sx.stx_mnt_id;
}

int
execgate_stat(int fd, struct execgate_file *f)
{
	struct stat st;
	struct statvfs sv;

	if (fstat(fd, &st) < 0)
		return -errno;
	file_of(&st, f);
	/* the mount's flags matter only for a set-id binary (one more call) */
	if ((st.st_mode & (S_ISUID | S_ISGID)) && fstatvfs(fd, &sv) == 0)
		f->nosuid = (sv.f_flag & ST_NOSUID) != 0;
	if (st.st_mode & (S_ISUID | S_ISGID))
		f->mnt_id = mount_of(fd);
	return 0;
}

int
execgate_mark(int gfd, const char *path, struct execgate_file *f)
{
	/* one descriptor for both, so the mark and the identity are of the
	 * same inode even if the name is replaced meanwhile (fanotify_mark
	 * refuses O_PATH descriptors; O_NONBLOCK: a FIFO does not wait) */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fanotify_mark(gfd, FAN_MARK_ADD, FAN_OPEN_EXEC_PERM, fd, NULL) < 0)
		rc = -errno;
	else
		rc = execgate_stat(fd, f);
	close(fd);
	return rc;
}

int
execgate_unmark(int gfd, const char *path)
{
	if (fanotify_mark(gfd, FAN_MARK_REMOVE, FAN_OPEN_EXEC_PERM, AT_FDCWD, path) < 0)
		return -errno;
	return 0;
}

int
execgate_allow(int gfd, int fd)
{
	struct fanotify_response r = { .fd = fd, .response = FAN_ALLOW };

	for (;;) {
		if (write(gfd, &r, sizeof(r)) == (ssize_t)sizeof(r))
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

void
execgate_close(const struct execgate_event *ev)
{
	if (ev->fd >= 0)
		close(ev->fd);
	if (ev->pidfd >= 0)
		close(ev->pidfd);
}

/* The pidfd in the info records after the metadata, or -1. */
static int
event_pidfd(const struct fanotify_event_metadata *m)
{
	const char *p = (const char *)m + m->metadata_len;
	const char *end = (const char *)m + m->event_len;

	while (p + sizeof(struct fanotify_event_info_header) <= end) {
		struct fanotify_event_info_header h;
		memcpy(&h, p, sizeof(h));
		if (h.len < sizeof(h) || p + h.len > end)
			break;
		if (h.info_type == FAN_EVENT_INFO_TYPE_PIDFD &&
		    h.len >= sizeof(struct fanotify_event_info_pidfd)) {
			struct fanotify_event_info_pidfd pi;
			memcpy(&pi, p, sizeof(pi));
			return pi.pidfd >= 0 ? pi.pidfd : -1;
		}
		p += h.len;
	}
	return -1;
}

/* Read once into buf; bytes, or -errno (-EAGAIN when nothing waits). */
static ssize_t
read_events(int gfd, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(gfd, buf, len);

		if (n > 0)
			return n;
		if (n == 0)
			return -EAGAIN;
		if (errno != EINTR)
			return -errno;
	}
}

int
execgate_read(int gfd, void *buf, size_t len, struct execgate_event *ev, size_t max)
{
	size_t one = FAN_EVENT_METADATA_LEN + sizeof(struct fanotify_event_info_pidfd);
	/* never more events than ev has room for: the smallest is the bare
	 * metadata; room for at least one with its pidfd */
	size_t want = max * FAN_EVENT_METADATA_LEN;

	if (want < one)
		want = one;
	if (want > len)
		want = len;
	ssize_t n = read_events(gfd, buf, want);
	size_t count = 0;

	if (n < 0)
		return (int)n;
	size_t left = (size_t)n;
	for (const struct fanotify_event_metadata *m = buf; FAN_EVENT_OK(m, left);
	     m = FAN_EVENT_NEXT(m, left)) {
		struct execgate_event e = { .fd = m->fd,
					    .pidfd = event_pidfd(m),
					    .pid = (pid_t)m->pid };

		if (m->vers != FANOTIFY_METADATA_VERSION || m->fd < 0) {
			execgate_close(&e);
			continue;
		}
		if (!(m->mask & FAN_OPEN_EXEC_PERM) || count == max) {
			(void)execgate_allow(gfd, m->fd);
			execgate_close(&e);
			continue;
		}
		ev[count++] = e;
	}
	return (int)count;
}

int
execgate_allow_all(int gfd)
{
	alignas(struct fanotify_event_metadata) char buf[4096];
	int answered = 0;

	for (;;) {
		ssize_t n = read_events(gfd, buf, sizeof(buf));

		if (n == -EAGAIN)
			return answered;
		if (n < 0)
			return answered > 0 ? answered : (int)n;
		size_t left = (size_t)n;
		for (const struct fanotify_event_metadata *m = (const void *)buf;
		     FAN_EVENT_OK(m, left); m = FAN_EVENT_NEXT(m, left)) {
			struct execgate_event e = { .fd = m->fd,
						    .pidfd = event_pidfd(m) };

			if (m->fd >= 0 && execgate_allow(gfd, m->fd) == 0)
				answered++;
			execgate_close(&e);
		}
	}
}

/* ---- the directories (inotify) ---------------------------------------------- */

#define DIR_EVENTS                                                                       \
	(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE |              \
	 IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

int
execgate_dirs_open(void)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int
execgate_dir_watch(int ifd, const char *dir)
{
	int wd = inotify_add_watch(ifd, dir, DIR_EVENTS);

	return wd < 0 ? -errno : wd;
}

static enum execgate_dir_change
dir_change(uint32_t mask)
{
	if (mask & IN_Q_OVERFLOW)
		return EXECGATE_OVERFLOW;
	if (mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT))
		return EXECGATE_DIR_GONE;
	if (mask & (IN_DELETE | IN_MOVED_FROM))
		return EXECGATE_NAME_GONE;
	return EXECGATE_NAME_NEW;
}

int
execgate_dirs_read(int ifd,
		   void (*fn)(void *arg, int wd, enum execgate_dir_change change,
			      const char *name),
		   void *arg)
{
	alignas(struct inotify_event) char buf[4096 + NAME_MAX + 1];

	for (;;) {
		ssize_t n = read(ifd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		for (char *p = buf; p + sizeof(struct inotify_event) <= buf + n;) {
			const struct inotify_event *e = (const void *)p;
			enum execgate_dir_change ch = dir_change(e->mask);
			bool named = e->len > 0 && ch != EXECGATE_DIR_GONE &&
				     ch != EXECGATE_OVERFLOW;

			if (!(e->mask & IN_ISDIR) || ch == EXECGATE_DIR_GONE)
				fn(arg, ch == EXECGATE_OVERFLOW ? -1 : e->wd, ch,
				   named ? e->name : NULL);
			p += sizeof(*e) + e->len;
		}
	}
}
