/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * files.c -- small helpers for the daemon's own files and sockets.
 */
#include "daemon.h"
#include "listener.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/*
 * May a socket be created at path?  Only a stale socket may be there
 * (it is removed); anything else -- a symbolic link, a file -- is
 * refused, so a wrong path never unlinks or chmods what it names.
 */
static int
clear_path(const char *path, const char *what)
{
	struct stat st;

	int err;

	if (lstat(path, &st) < 0) {
		if ((err = errno) == ENOENT)
			return 0;
		log_error("%s: %s path: %s", path, what, strerror(err));
		return -err;
	}
	if (S_ISLNK(st.st_mode)) {
		log_error("%s: %s path is a symbolic link, refusing it", path, what);
		return -ELOOP;
	}
	if (!S_ISSOCK(st.st_mode)) {
		log_error("%s: %s path exists and is not a socket, refusing it", path,
			  what);
		return -EEXIST;
	}
	if (unlink(path) < 0 && (err = errno) != ENOENT) {
		log_error("%s: cannot remove the stale %s: %s", path, what, strerror(err));
		return -err;
	}
	return 0;
}

/*
 * A non-blocking listening fd at path, or -errno after logging.  The
 * socket file is created world-connectable (0666) by bind itself, under
 * a umask that clears only the execute bits: no chmod by path
 * afterwards, which a symbolic link swapped in meanwhile could redirect.
 */
static int
unix_listen(const char *path, int backlog, const char *what)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, rc = 0;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		log_error("%s: %s path too long", path, what);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, path);
	/* something answering there is another daemon; anything else is stale */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0 &&
	    connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0) {
		close(fd);
		log_error(
			"%s: %s already in use (is cgrulesengd or another cgengined running?)",
			path, what);
		return -EADDRINUSE;
	}
	if (fd >= 0)
		close(fd);
	if ((rc = mkdir_parents(path)) < 0) {
		log_error("%s: cannot create its directory: %s", path, strerror(-rc));
		return rc;
	}
	if ((rc = clear_path(path, what)) < 0)
		return rc;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		mode_t old = umask(S_IXUSR | S_IXGRP | S_IXOTH);
		rc = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
		umask(old);
	}
	if (fd < 0 || rc < 0 || listen(fd, backlog) < 0) {
		int err = errno;

		log_error("%s: cannot listen on the %s: %s", path, what, strerror(err));
		if (fd >= 0)
			close(fd);
		return -err;
	}
	return fd;
}

int
listener_open(struct listener *l, const char *path, int backlog, const char *what)
{
	*l = (struct listener){ .fd = -1 };
	if ((l->path = strdup(path)) == NULL)
		return -ENOMEM;
	if ((l->fd = unix_listen(path, backlog, what)) < 0) {
		int rc = l->fd;

		free(l->path);
		*l = (struct listener){ .fd = -1 };
		return rc;
	}
	return 0;
}

void
listener_start(struct listener *l, struct ev_loop *loop,
	       void (*cb)(struct ev_loop *, ev_io *, int), void *data)
{
	l->loop = loop;
	ev_io_init(&l->io, cb, l->fd, EV_READ);
	l->io.data = data;
	ev_io_start(loop, &l->io);
}

void
listener_close(struct listener *l)
{
	if (l->loop != NULL)
		ev_io_stop(l->loop, &l->io);
	if (l->path != NULL) {
		close(l->fd);
		unlink(l->path);
		free(l->path);
	}
	*l = (struct listener){ .fd = -1 };
}
