/*
 * sticky.c -- libcgroup's "sticky" socket, so that cgexec --sticky and
 * cgclassify --sticky work unchanged.  A client sends a native pid_t
 * and an int flag (0: this pid, 1: and its future children, 2: cancel)
 * and is answered "SUCCESS_STORE_PID\0".
 *
 * Clients are served from the event loop without blocking: each one
 * has a deadline, and their number is capped, so a stalled or hostile
 * client never delays event handling.  A user may only make its own
 * processes sticky; root may make any.
 */
#include "engined.h"
#include "engined_private.h"
#include "listener.h"

#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CLIENTS    64
#define CLIENT_TIMEOUT 2.0

static const char reply[] = "SUCCESS_STORE_PID"; /* sent with its NUL: 18 bytes */

struct sticky_client {
	struct sticky_server *srv;
	int fd;
	unsigned char buf[sizeof(pid_t) + sizeof(int)];
	size_t got;
	ev_io io;
	ev_timer deadline;
	LIST_ENTRY(sticky_client) link;
};

struct sticky_server {
	struct engine *engine;
	struct ev_loop *loop;
	struct listener lis;
	size_t nclients;
	LIST_HEAD(, sticky_client) clients;
};

static void
client_close(struct sticky_client *c)
{
	struct sticky_server *s = c->srv;

	if (s->loop != NULL) {
		ev_io_stop(s->loop, &c->io);
		ev_timer_stop(s->loop, &c->deadline);
	}
	close(c->fd);
	LIST_REMOVE(c, link);
	s->nclients--;
	free(c);
}

static void
client_done(struct sticky_client *c)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	pid_t pid;
	int flag;

	memcpy(&pid, c->buf, sizeof(pid));
	memcpy(&flag, c->buf + sizeof(pid), sizeof(flag));
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		log_warning("sticky socket: no peer credentials: %s", strerror(errno));
		return;
	}
	int rc = engine_make_sticky(c->srv->engine, pid, cred.uid, flag);
	if (rc < 0) {
		log_warning("sticky request for pid %d (flag %d) from uid %u denied: %s",
			    (int)pid, flag, (unsigned)cred.uid, strerror(-rc));
		return;
	}
	if (send(c->fd, reply, sizeof(reply), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		log_debug("sticky socket: client left before the answer");
}

static void
client_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct sticky_client *c = w->data;
	ssize_t n = recv(c->fd, c->buf + c->got, sizeof(c->buf) - c->got, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (n < 0 || c->got > 0)
			log_warning("sticky socket: incomplete request");
		client_close(c);
		return;
	}
	c->got += (size_t)n;
	if (c->got < sizeof(c->buf))
		return;
	client_done(c);
	client_close(c);
}

static void
client_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct sticky_client *c = w->data;

	log_warning("sticky socket: client too slow, dropped");
	client_close(c);
}

static void
accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct sticky_server *s = w->data;

	for (;;) {
		int fd = accept4(s->lis.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return; /* EAGAIN, or a client that gave up */
		if (s->nclients >= MAX_CLIENTS) {
			log_warning("sticky socket: too many clients, refusing one");
			close(fd);
			continue;
		}
		struct sticky_client *c = calloc(1, sizeof(*c));
		if (c == NULL) {
			close(fd);
			continue;
		}
		c->srv = s;
		c->fd = fd;
		ev_io_init(&c->io, client_read_cb, fd, EV_READ);
		c->io.data = c;
		ev_timer_init(&c->deadline, client_timeout_cb, CLIENT_TIMEOUT, 0);
		c->deadline.data = c;
		ev_io_start(loop, &c->io);
		ev_timer_start(loop, &c->deadline);
		LIST_INSERT_HEAD(&s->clients, c, link);
		s->nclients++;
	}
}

struct sticky_server *
sticky_open(const char *path, struct engine *e)
{
	struct sticky_server *s = calloc(1, sizeof(*s));

	if (s == NULL || listener_open(&s->lis, path, 16, "sticky socket") < 0) {
		free(s);
		return NULL;
	}
	s->engine = e;
	LIST_INIT(&s->clients);
	return s;
}

void
sticky_start(struct sticky_server *s, struct ev_loop *loop)
{
	s->loop = loop;
	listener_start(&s->lis, loop, accept_cb, s);
}

void
sticky_close(struct sticky_server *s, struct ev_loop *loop)
{
	if (s == NULL)
		return;
	while (!LIST_EMPTY(&s->clients))
		client_close(LIST_FIRST(&s->clients));
	listener_close(&s->lis);
	free(s);
}
