/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * server.c -- the one socket server behind the control and the sticky
 * socket: a non-blocking accept loop, per-client buffers and deadlines,
 * framing by a protocol descriptor, connection caps with a reserve for
 * root, output back-pressure and rate-limited logging (see server.h).
 *
 * A client lives in one state machine, driven by client_run(): serve
 * the complete requests in its input buffer while its unsent output is
 * small, write what it can, then decide which watchers it needs or
 * whether it is finished.  Only client_run() and the deadline free a
 * client, so a request callback never sees its client vanish.
 */
#include "server.h"
#include "listener.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ACCEPT_BATCH  32	 /* clients accepted per wake-up: others get a turn */
#define OUT_KEEP      (64 << 10) /* a larger output buffer is freed once written */

struct server_client {
	struct server *srv;
	int fd;
	uid_t uid;
	pid_t pid;
	struct strbuf out; /* answers: out.p[out_sent..out.len) is unsent */
	size_t out_sent;
	size_t in_start, in_len; /* unread requests: in[in_start..in_start+in_len) */
	bool eof;		 /* the client sent end-of-file */
	bool closing;		 /* close once the answers are written */
	bool broken;		 /* close now: write error, out of memory */
	ev_io rio, wio;
	ev_timer deadline;
	LIST_ENTRY(server_client) link;
	char in[]; /* in_size() bytes */
};

struct server {
	const struct server_proto *proto;
	void *ctx;
	struct ev_loop *loop;
	struct listener lis;
	bool listening;
	ev_timer pause;		/* accepting again after a failure */
	struct backoff backoff; /* 0.1 s without accepting, doubled up to 1 s */
	unsigned nclients, nroot; /* connected clients, and those of root */
	LIST_HEAD(, server_client) clients;
	struct log_limit log_limit; /* SERVER_LOG_BURST lines a second */
	ev_timer log_report;	    /* says how many were held back */
};

static size_t
in_size(const struct server_proto *p)
{
	return p->record > 0 ? p->record : p->max_line;
}

static size_t
unsent(const struct server_client *c)
{
	return c->out.len - c->out_sent;
}

/* ---- logging ------------------------------------------------------------------ */

void
server_log(struct server *s, enum log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (level > log_get_level())
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (s->loop == NULL) {
		log_msg(level, "%s", msg);
		return;
	}
	ev_tstamp now = ev_now(s->loop);
	unsigned long held;
	if (log_limit_pass(&s->log_limit, now, &held)) {
		if (held > 0)
			log_warning("%s: %lu more messages suppressed", s->proto->name, held);
		log_msg(level, "%s", msg);
		return;
	}
	/* held back: say how many at the end of this second, if no line
	 * let through says it first */
	if (!ev_is_active(&s->log_report)) {
		ev_timer_set(&s->log_report, s->log_limit.window + 1.0 - now, 0.);
		ev_timer_start(s->loop, &s->log_report);
	}
}

static void
server_log_report_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server *s = w->data;
	unsigned long held = log_limit_take(&s->log_limit);

	if (held > 0)
		log_warning("%s: %lu more messages suppressed in the last second",
			    s->proto->name, held);
}

/* ---- answers ------------------------------------------------------------------- */

/* The answer is dropped, and the client closed, when memory runs out. */
static int
out_failed(struct server_client *c)
{
	server_log(c->srv, LOG_LEVEL_WARNING, "%s: out of memory for an answer to pid %d, dropped",
		   c->srv->proto->name, (int)c->pid);
	c->broken = true;
	return -ENOMEM;
}

int
server_send(struct server_client *c, const void *p, size_t n)
{
	if (c->broken)
		return -EPIPE;
	if (strbuf_add(&c->out, p, n) < 0)
		return out_failed(c);
	return 0;
}

int
server_printf(struct server_client *c, const char *fmt, ...)
{
	va_list ap;
	int rc;

	if (c->broken)
		return -EPIPE;
	va_start(ap, fmt);
	rc = strbuf_vprintf(&c->out, fmt, ap);
	va_end(ap);
	if (rc == -ENOMEM)
		return out_failed(c);
	return rc;
}

/* Write what the socket takes now. */
static void
client_flush(struct server_client *c)
{
	while (!c->broken && unsent(c) > 0) {
		ssize_t n = send(c->fd, c->out.p + c->out_sent, unsent(c),
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			c->broken = true; /* the client went away */
			return;
		}
		c->out_sent += (size_t)n;
	}
	c->out_sent = 0;
	strbuf_reset(&c->out);
	if (c->out.cap > OUT_KEEP)
		strbuf_free(&c->out);
}

/* ---- requests ------------------------------------------------------------------ */

/* Length of the complete request at the head of the input (a line with
 * its newline, or a record), or 0 if there is none yet. */
static size_t
client_frame(const struct server_client *c)
{
	const struct server_proto *p = c->srv->proto;

	if (p->record > 0)
		return c->in_len >= p->record ? p->record : 0;
	const char *start = c->in + c->in_start;
	const char *nl = memchr(start, '\n', c->in_len);
	return nl != NULL ? (size_t)(nl - start) + 1 : 0;
}

/* The input ends without a complete request: too long, or ended early. */
static void
client_incomplete(struct server_client *c)
{
	const struct server_proto *p = c->srv->proto;

	if (p->record == 0 && c->in_len == p->max_line) {
		if (p->too_long != NULL)
			(void)server_send(c, p->too_long, strlen(p->too_long));
		server_log(c->srv, LOG_LEVEL_WARNING,
			   "%s: request of pid %d (uid %u) longer than %zu bytes, closed",
			   p->name, (int)c->pid, (unsigned)c->uid, p->max_line);
		c->closing = true;
	} else if (c->eof) {
		if (c->in_len > 0) {
			if (p->partial != NULL)
				(void)server_send(c, p->partial, strlen(p->partial));
			server_log(c->srv, LOG_LEVEL_DEBUG,
				   "%s: pid %d (uid %u) left inside a request", p->name,
				   (int)c->pid, (unsigned)c->uid);
		}
		c->closing = true;
	}
}

/* Serve the complete requests while the client reads its answers. */
static void
client_serve(struct server_client *c)
{
	const struct server_proto *p = c->srv->proto;
	size_t n;

	while (!c->closing && !c->broken && unsent(c) <= p->max_output &&
	       (n = client_frame(c)) > 0) {
		char *req = c->in + c->in_start;
		size_t len = p->record > 0 ? n : n - 1;

		if (p->record == 0)
			req[len] = '\0'; /* the newline */
		c->in_start += n;
		c->in_len -= n;
		switch (p->request(c, req, len)) {
		case SERVER_NEXT:
			ev_timer_again(c->srv->loop, &c->deadline);
			break;
		case SERVER_IGNORE:
			break;
		case SERVER_CLOSE:
			c->closing = true;
			break;
		}
	}
	if (c->in_len == 0)
		c->in_start = 0;
	if (!c->closing && !c->broken && client_frame(c) == 0)
		client_incomplete(c);
}

/* ---- clients ------------------------------------------------------------------- */

static void
client_free(struct server_client *c)
{
	struct server *s = c->srv;

	ev_io_stop(s->loop, &c->rio);
	ev_io_stop(s->loop, &c->wio);
	ev_timer_stop(s->loop, &c->deadline);
	close(c->fd);
	LIST_REMOVE(c, link);
	s->nclients--;
	s->nroot -= c->uid == 0;
	strbuf_free(&c->out);
	free(c);
}

static void
watch(struct ev_loop *loop, ev_io *w, bool on)
{
	if (on)
		ev_io_start(loop, w);
	else
		ev_io_stop(loop, w);
}

/* Serve, write, and then wait for what this client needs next. */
static void
client_run(struct server_client *c)
{
	const struct server_proto *p = c->srv->proto;

	do {
		client_serve(c);
		client_flush(c);
	} while (!c->closing && !c->broken && unsent(c) <= p->max_output &&
		 client_frame(c) > 0);
	if (c->broken || (c->closing && unsent(c) == 0)) {
		client_free(c);
		return;
	}
	watch(c->srv->loop, &c->rio,
	      !c->eof && !c->closing && unsent(c) <= p->max_output &&
		      c->in_len < in_size(p));
	watch(c->srv->loop, &c->wio, unsent(c) > 0);
}

static void
client_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct server_client *c = w->data;
	size_t room = in_size(c->srv->proto) - c->in_len;

	if (c->in_start > 0) {
		memmove(c->in, c->in + c->in_start, c->in_len);
		c->in_start = 0;
	}
	ssize_t n = recv(c->fd, c->in + c->in_len, room, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n < 0)
		c->broken = true; /* reset by the peer */
	else if (n == 0)
		c->eof = true;
	else
		c->in_len += (size_t)n;
	client_run(c);
}

static void
client_write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	client_run(w->data);
}

static void
client_deadline_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server_client *c = w->data;
	struct server *s = c->srv;
	const char *name = s->proto->name;

	if (unsent(c) > 0)
		server_log(s, LOG_LEVEL_WARNING,
			   "%s: pid %d (uid %u) reads too slowly, dropped", name,
			   (int)c->pid, (unsigned)c->uid);
	else if (c->in_len > 0)
		server_log(
			s, LOG_LEVEL_WARNING,
			"%s: pid %d (uid %u) too slow, no complete request within %g s, "
			"dropped",
			name, (int)c->pid, (unsigned)c->uid, s->proto->deadline);
	else
		server_log(s, LOG_LEVEL_DEBUG,
			   "%s: pid %d (uid %u) idle for %g s, closed", name, (int)c->pid,
			   (unsigned)c->uid, s->proto->deadline);
	client_free(c);
}

static unsigned
clients_of(const struct server *s, uid_t uid)
{
	const struct server_client *c;
	unsigned n = 0;

	LIST_FOREACH(c, &s->clients, link)
	n += c->uid == uid;
	return n;
}

/* Why a client of uid may not connect now, or NULL if it may. */
static const char *
over_cap(const struct server *s, uid_t uid, char *why, size_t len)
{
	const struct server_proto *p = s->proto;

	if (s->nclients >= p->max_clients)
		return "too many clients";
	if (uid == 0)
		return NULL;
	if (s->nclients - s->nroot >= p->max_clients - p->root_reserve)
		return "too many clients (the last slots are root's)";
	if (clients_of(s, uid) >= p->max_per_uid) {
		snprintf(why, len, "too many clients of uid %u (at most %u)",
			 (unsigned)uid, p->max_per_uid);
		return why;
	}
	return NULL;
}

/* A last word to a client that is turned away; it may have left already. */
static void
tell(int fd, const char *msg)
{
	ssize_t n = send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);

	(void)n;
}

int
server_adopt(struct server *s, int fd, uid_t uid, pid_t pid)
{
	const struct server_proto *p = s->proto;
	char buf[128];
	const char *why = over_cap(s, uid, buf, sizeof(buf));

	if (why != NULL) {
		if (p->refusal != NULL)
			tell(fd, p->refusal);
		close(fd);
		server_log(s, LOG_LEVEL_WARNING, "%s: %s, refused pid %d (uid %u)",
			   p->name, why, (int)pid, (unsigned)uid);
		return -EUSERS;
	}
	struct server_client *c = calloc(1, sizeof(*c) + in_size(p));
	if (c == NULL) {
		close(fd);
		server_log(s, LOG_LEVEL_WARNING, "%s: out of memory, refused pid %d",
			   p->name, (int)pid);
		return -ENOMEM;
	}
	*c = (struct server_client){ .srv = s, .fd = fd, .uid = uid, .pid = pid };
	ev_io_init(&c->rio, client_read_cb, fd, EV_READ);
	ev_io_init(&c->wio, client_write_cb, fd, EV_WRITE);
	ev_init(&c->deadline, client_deadline_cb);
	c->deadline.repeat = p->deadline;
	c->rio.data = c->wio.data = c->deadline.data = c;
	LIST_INSERT_HEAD(&s->clients, c, link);
	s->nclients++;
	s->nroot += uid == 0;
	ev_timer_again(s->loop, &c->deadline);
	if (p->greeting != NULL)
		(void)server_send(c, p->greeting, strlen(p->greeting));
	client_run(c);
	return 0;
}

/* ---- accepting ----------------------------------------------------------------- */

/* Accepting failed (no file descriptors, no memory): stop for a while
 * rather than spin on a listener that stays readable. */
static void
server_pause(struct server *s, int err)
{
	double pause = backoff_fail(&s->backoff);

	ev_io_stop(s->loop, &s->lis.io);
	ev_timer_set(&s->pause, pause, 0.);
	ev_timer_start(s->loop, &s->pause);
	server_log(s, LOG_LEVEL_WARNING, "%s: cannot accept clients: %s; pausing %.1f s",
		   s->proto->name, strerror(err), pause);
}

static void
server_pause_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server *s = w->data;

	ev_io_start(loop, &s->lis.io);
}

static void
server_accepted(struct server *s, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		server_log(s, LOG_LEVEL_WARNING, "%s: no peer credentials: %s",
			   s->proto->name, strerror(errno));
		close(fd);
		return;
	}
	int rc = server_adopt(s, fd, cred.uid, cred.pid);
	(void)rc; /* refusals are logged by server_adopt */
}

static void
server_accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct server *s = w->data;

	for (int i = 0; i < ACCEPT_BATCH; i++) {
		int fd = accept4(s->lis.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			backoff_reset(&s->backoff);
			return;
		}
		if (fd < 0) {
			server_pause(s, errno); /* EMFILE, ENFILE, ENOBUFS, ENOMEM */
			return;
		}
		backoff_reset(&s->backoff);
		server_accepted(s, fd);
	}
}

/* ---- the server ----------------------------------------------------------------- */

struct server *
server_new(const struct server_proto *proto, void *ctx)
{
	struct server *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->proto = proto;
	s->log_limit = (struct log_limit)LOG_LIMIT_INIT(SERVER_LOG_BURST);
	s->backoff = (struct backoff){ .first = 0.1, .max = 1.0 };
	s->ctx = ctx;
	s->lis.fd = -1;
	LIST_INIT(&s->clients);
	ev_init(&s->pause, server_pause_cb);
	s->pause.data = s;
	ev_init(&s->log_report, server_log_report_cb);
	s->log_report.data = s;
	return s;
}

int
server_listen(struct server *s, const char *path, int backlog)
{
	int rc = listener_open(&s->lis, path, backlog, s->proto->name);

	if (rc < 0)
		return rc;
	s->listening = true;
	return 0;
}

struct server *
server_open(const struct server_proto *proto, void *ctx, const char *path, int backlog)
{
	struct server *s = server_new(proto, ctx);

	if (s != NULL && server_listen(s, path, backlog) < 0) {
		server_free(s);
		return NULL;
	}
	return s;
}

void
server_start(struct server *s, struct ev_loop *loop)
{
	s->loop = loop;
	if (s->listening)
		listener_start(&s->lis, loop, server_accept_cb, s);
}

void
server_free(struct server *s)
{
	if (s == NULL)
		return;
	while (!LIST_EMPTY(&s->clients))
		client_free(LIST_FIRST(&s->clients));
	if (s->loop != NULL) {
		ev_timer_stop(s->loop, &s->pause);
		ev_timer_stop(s->loop, &s->log_report);
	}
	if (s->listening)
		listener_close(&s->lis);
	free(s);
}

void *
server_ctx(const struct server *s)
{
	return s->ctx;
}

struct ev_loop *
server_loop(const struct server *s)
{
	return s->loop;
}

unsigned
server_clients(const struct server *s)
{
	return s->nclients;
}

struct server *
server_of(const struct server_client *c)
{
	return c->srv;
}

uid_t
server_client_uid(const struct server_client *c)
{
	return c->uid;
}

pid_t
server_client_pid(const struct server_client *c)
{
	return c->pid;
}

int
server_client_groups(const struct server_client *c, gid_t *out, size_t max)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (max == 0)
		return -EINVAL;
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	out[0] = cred.gid;
	len = (socklen_t)((max - 1) * sizeof(gid_t));
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERGROUPS, out + 1, &len) < 0)
		return errno == ERANGE ? 1 : -errno;
	return 1 + (int)(len / sizeof(gid_t));
}
