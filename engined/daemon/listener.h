/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * listener.h -- a listening Unix socket inside the event loop; shared
 * by the control and the sticky socket (files.c).  Only the loop's
 * files include this (and so <ev.h>).
 */
#ifndef CGENGINE_LISTENER_H
#define CGENGINE_LISTENER_H

#include <ev.h>

/*
 * A world-connectable Unix stream socket the loop accepts on; shared by
 * the control and the sticky socket (served by server.c).  listener_open
 * creates its directory, refuses (logging) if another process answers
 * at path or if path is a symbolic link or not a socket, replaces a
 * stale socket file, and has bind() create it 0666; 0 or -errno.
 * listener_close stops, closes and unlinks it (a zeroed listener is
 * closed harmlessly).
 */
struct listener {
	int fd;
	char *path;
	ev_io io;
	struct ev_loop *loop;
};

int listener_open(struct listener *l, const char *path, int backlog, const char *what);
void listener_start(struct listener *l, struct ev_loop *loop,
		    void (*cb)(struct ev_loop *, ev_io *, int), void *data);
void listener_close(struct listener *l);

#endif
