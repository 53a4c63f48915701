/*
 * control.c -- the control socket: a line protocol served from the
 * event loop without blocking, authorised per request by the peer's
 * credentials (SO_PEERCRED).
 *
 * Protocol, version 1 (see docs/protocol.md):
 *   server, on connect:  "CGENGINE 1\n"
 *   client:              ["json "] VERB [ARG...] "\n"     (at most 4096 bytes)
 *   server:              "OK <n>\n" and n bytes of body, or "ERR <message>\n"
 * A connection may carry several requests; it is closed after 10
 * seconds of silence, on a request that is too long, or when the
 * client reads too slowly.
 */
#include "engined.h"
#include "engined_private.h"
#include "listener.h"
#include "control_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CLIENTS  64
#define REQUEST_MAX  4096
#define IDLE_TIMEOUT 10.0
#define OUTPUT_MAX   (16 << 20)
#define RATE_PER_SEC 20.0 /* requests a non-root user may make per second */
#define RATE_BURST   40.0
#define RATE_SLOTS   64

struct client {
	struct control_server *srv;
	int fd;
	uid_t uid;
	pid_t pid;
	char in[REQUEST_MAX + 1];
	size_t inlen;
	struct buf out;
	size_t sent;
	bool closing; /* close once the output is written */
	ev_io rio, wio;
	ev_timer idle;
	LIST_ENTRY(client) link;
};

struct rate {
	uid_t uid;
	double tokens;
	ev_tstamp last;
};

struct control_server {
	struct engine *engine;
	struct ev_loop *loop;
	struct listener lis;
	size_t nclients;
	LIST_HEAD(, client) clients;
	struct rate rates[RATE_SLOTS];
};

/* ---- output buffers --------------------------------------------------------- */

void
buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (p == NULL) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	char small[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		buf_add(b, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (big == NULL) {
		b->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	buf_add(b, big, (size_t)n);
	free(big);
}

void
buf_json_str(struct buf *b, const char *s)
{
	buf_add(b, "\"", 1);
	for (; s != NULL && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			buf_printf(b, "\\u%04x", c);
		else
			buf_add(b, (const char *)&c, 1);
	}
	buf_add(b, "\"", 1);
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->p != NULL)
		b->p[0] = '\0';
}

/* ---- clients ------------------------------------------------------------------- */

static void
client_close(struct client *c)
{
	struct control_server *s = c->srv;

	if (s->loop != NULL) {
		ev_io_stop(s->loop, &c->rio);
		ev_io_stop(s->loop, &c->wio);
		ev_timer_stop(s->loop, &c->idle);
	}
	close(c->fd);
	LIST_REMOVE(c, link);
	s->nclients--;
	free(c->out.p);
	free(c);
}

/* Write what is pending; false if the client was closed. */
static bool
flush(struct client *c)
{
	while (c->sent < c->out.len) {
		ssize_t n = send(c->fd, c->out.p + c->sent, c->out.len - c->sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			ev_io_start(c->srv->loop, &c->wio);
			return true;
		}
		if (n <= 0) {
			client_close(c);
			return false;
		}
		c->sent += (size_t)n;
	}
	ev_io_stop(c->srv->loop, &c->wio);
	buf_reset(&c->out);
	c->sent = 0;
	if (c->closing) {
		client_close(c);
		return false;
	}
	return true;
}

static void
write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)flush(w->data);
}

/* Queue a complete answer. */
static void
answer(struct client *c, bool ok, const struct buf *body, const char *err)
{
	if (c->out.len - c->sent > OUTPUT_MAX) {
		log_warning("control: client pid %d reads too slowly, dropped",
			    (int)c->pid);
		c->closing = true;
		return;
	}
	if (ok && !body->failed) {
		buf_printf(&c->out, "OK %zu\n", body->len);
		buf_add(&c->out, body->p ? body->p : "", body->len);
	} else {
		buf_printf(&c->out, "ERR %s\n", ok ? "out of memory" : err);
	}
}

/* Token bucket per uid; root is never limited. */
static bool
rate_ok(struct control_server *s, uid_t uid)
{
	ev_tstamp now = ev_now(s->loop);
	struct rate *r = NULL, *oldest = &s->rates[0];

	if (uid == 0)
		return true;
	for (size_t i = 0; i < RATE_SLOTS && r == NULL; i++) {
		if (s->rates[i].last != 0 && s->rates[i].uid == uid)
			r = &s->rates[i];
		else if (s->rates[i].last < oldest->last)
			oldest = &s->rates[i];
	}
	if (r == NULL) {
		r = oldest;
		*r = (struct rate){ .uid = uid, .tokens = RATE_BURST, .last = now };
	}
	r->tokens += (now - r->last) * RATE_PER_SEC;
	if (r->tokens > RATE_BURST)
		r->tokens = RATE_BURST;
	r->last = now;
	if (r->tokens < 1.0)
		return false;
	r->tokens -= 1.0;
	return true;
}

/* Split a request line into words (in place); the count. */
static int
split(char *line, char **argv, int max)
{
	int n = 0;

	for (char *tok = strtok(line, " \t\r"); tok && n < max;
	     tok = strtok(NULL, " \t\r"))
		argv[n++] = tok;
	return n;
}

static void
handle_line(struct client *c, char *line)
{
	char *argv[64];
	char err[512] = "";
	struct buf body = { 0 };
	struct request rq = { .core = engine_core(c->srv->engine),
			      .now = engine_now(c->srv->engine),
			      .uid = c->uid,
			      .pid = c->pid };
	int argc = split(line, argv, 64);

	if (argc == 0)
		return; /* blank lines are allowed, and ignored */
	if (!rate_ok(c->srv, c->uid)) {
		answer(c, false, NULL, "rate limit exceeded, slow down");
		log_warning("control: uid %u over its rate limit", (unsigned)c->uid);
		return;
	}
	if (strcmp(argv[0], "json") == 0) {
		rq.json = true;
		argc--;
		memmove(argv, argv + 1, (size_t)argc * sizeof(*argv));
	}
	if (argc == 0) {
		answer(c, false, NULL, "empty request");
		return;
	}
	int rc = control_dispatch(&rq, argc, argv, &body, err, sizeof(err));
	answer(c, rc == 0, &body, err);
	free(body.p);
}

static void
read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct client *c = w->data;
	ssize_t n = recv(c->fd, c->in + c->inlen, REQUEST_MAX - c->inlen, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (c->inlen > 0)
			answer(c, false, NULL, "incomplete request (no newline)");
		c->closing = true;
		ev_io_stop(loop, &c->rio);
		(void)flush(c);
		return;
	}
	ev_timer_again(loop, &c->idle);
	c->inlen += (size_t)n;
	char *start = c->in, *nl;
	while ((nl = memchr(start, '\n', c->inlen - (size_t)(start - c->in))) != NULL) {
		*nl = '\0';
		if (memchr(start, '\0', (size_t)(nl - start)) != NULL)
			answer(c, false, NULL, "request contains a NUL byte");
		else
			handle_line(c, start);
		start = nl + 1;
	}
	c->inlen -= (size_t)(start - c->in);
	memmove(c->in, start, c->inlen);
	if (c->inlen == REQUEST_MAX) {
		answer(c, false, NULL, "request too long (at most 4096 bytes)");
		c->closing = true;
		ev_io_stop(loop, &c->rio);
	}
	(void)flush(c);
}

static void
idle_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct client *c = w->data;

	log_debug("control: client pid %d idle, closed", (int)c->pid);
	client_close(c);
}

static void
accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct control_server *s = w->data;

	for (;;) {
		int fd = accept4(s->lis.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct ucred cred;
		socklen_t len = sizeof(cred);

		if (fd < 0)
			return;
		if (s->nclients >= MAX_CLIENTS) {
			static const char full[] = "ERR too many clients, try again\n";
			if (send(fd, full, sizeof(full) - 1,
				 MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				log_debug("control: refused client left early");
			close(fd);
			continue;
		}
		struct client *c = calloc(1, sizeof(*c));
		if (c == NULL ||
		    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
			free(c);
			close(fd);
			continue;
		}
		c->srv = s;
		c->fd = fd;
		c->uid = cred.uid;
		c->pid = cred.pid;
		ev_io_init(&c->rio, read_cb, fd, EV_READ);
		ev_io_init(&c->wio, write_cb, fd, EV_WRITE);
		ev_init(&c->idle, idle_cb);
		c->idle.repeat = IDLE_TIMEOUT;
		c->rio.data = c->wio.data = c->idle.data = c;
		LIST_INSERT_HEAD(&s->clients, c, link);
		s->nclients++;
		ev_io_start(loop, &c->rio);
		ev_timer_again(loop, &c->idle);
		buf_printf(&c->out, "CGENGINE %d\n", CONTROL_PROTOCOL);
		(void)flush(c);
	}
}

/* ---- the server ------------------------------------------------------------------- */

struct control_server *
control_open(const char *path, struct engine *e)
{
	struct control_server *s = calloc(1, sizeof(*s));

	if (s == NULL || listener_open(&s->lis, path, 64, "control socket") < 0) {
		free(s);
		return NULL;
	}
	s->engine = e;
	LIST_INIT(&s->clients);
	return s;
}

void
control_start(struct control_server *s, struct ev_loop *loop)
{
	s->loop = loop;
	listener_start(&s->lis, loop, accept_cb, s);
}

void
control_close(struct control_server *s)
{
	if (s == NULL)
		return;
	while (!LIST_EMPTY(&s->clients))
		client_close(LIST_FIRST(&s->clients));
	listener_close(&s->lis);
	free(s);
}
