/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * server.h -- one non-blocking Unix stream socket server, shared by the
 * control socket (control.c) and the sticky socket (sticky.c); engined/
 * only.  A protocol is a descriptor (struct server_proto): how requests
 * are framed, the limits, and one callback per complete request.  The
 * server owns everything else -- the listener, accepting with back-off
 * when file descriptors run out, per-client buffers, the request
 * deadline, connection caps, output back-pressure and rate-limited
 * logging of refusals.
 *
 * Limits (docs/protocol.md describes them for users):
 *  - at most max_clients connections; users other than root together
 *    hold at most max_clients - root_reserve of them (so root always
 *    gets in), and each such uid at most max_per_uid;
 *  - a request must be complete within `deadline` seconds of the
 *    connection or of the previous served request; bytes trickling in
 *    do not extend it;
 *  - while more than max_output bytes of answers are unsent, the
 *    client's further requests are not read (and when it still does not
 *    read its answers at the deadline, it is dropped, logged once);
 *  - lines: at most max_line bytes, newline included.
 */
#ifndef CGENGINE_SERVER_H
#define CGENGINE_SERVER_H

#include "daemon.h"

#include <stdarg.h>

struct server;
struct server_client;

/* What the server does after a request callback. */
enum server_verdict {
	SERVER_NEXT,   /* request served: its deadline starts again */
	SERVER_IGNORE, /* nothing was asked (a blank line): the deadline runs on */
	SERVER_CLOSE,  /* close the connection once the answers are written */
};

struct server_proto {
	const char *name;      /* in log lines: "control", "sticky socket" */
	size_t record;	       /* > 0: requests are records of this many bytes */
	size_t max_line;       /* record == 0: the longest line, newline included */
	double deadline;       /* seconds, see above */
	unsigned max_clients;  /* connections at once, root's reserve included */
	unsigned root_reserve; /* of max_clients, the slots only root may take */
	unsigned max_per_uid;  /* connections one uid other than root may hold */
	size_t max_output;     /* unsent bytes above which requests are not read */
	const char *greeting;  /* sent on connect, or NULL */
	const char *refusal;   /* sent to a client turned away by a cap, or NULL */
	const char *too_long;  /* sent before closing on an over-long line, or NULL */
	const char *partial;   /* sent when a client ends inside a request, or NULL */
	/*
	 * One complete request: a line without its newline (NUL-terminated
	 * in place; len excludes the terminator and the line may contain
	 * NUL bytes), or one record.  req may be modified.  The callback
	 * answers with server_send() and never closes the client itself.
	 */
	enum server_verdict (*request)(struct server_client *c, char *req, size_t len);
};

/* A server for proto (borrowed: it must outlive the server) with the
 * caller's ctx; NULL if out of memory.  Free with server_free. */
struct server *server_new(const struct server_proto *proto, void *ctx) ATTR_WUR;
/* Listen on the Unix socket path (see listener_open); 0 or -errno after logging. */
int server_listen(struct server *s, const char *path, int backlog) ATTR_WUR;
/* server_new and server_listen in one: NULL (after logging, if listening
 * failed) when either fails.  Free with server_free. */
struct server *server_open(const struct server_proto *proto, void *ctx, const char *path,
			   int backlog) ATTR_WUR;
/* Serve from loop: accept clients (if listening) and run the timers. */
void server_start(struct server *s, struct ev_loop *loop);
/* Close every client and the listener (unlinking its path).  NULL is fine. */
void server_free(struct server *s);

/*
 * Serve the connected socket fd, whose peer is uid/pid -- what accepting
 * does after reading SO_PEERCRED; tests call it directly on one end of a
 * socketpair, with any uid.  After server_start only.  The fd is the
 * server's in every case: 0, -EUSERS when a cap turned the client away
 * (the refusal was sent and logged), or -ENOMEM.
 */
int server_adopt(struct server *s, int fd, uid_t uid, pid_t pid) ATTR_WUR;

void *server_ctx(const struct server *s);
struct ev_loop *server_loop(const struct server *s);
unsigned server_clients(const struct server *s);
struct server *server_of(const struct server_client *c);
uid_t server_client_uid(const struct server_client *c);
pid_t server_client_pid(const struct server_client *c);
/* The peer's groups when it connected: its gid (SO_PEERCRED), then its
 * supplementary groups (SO_PEERGROUPS; left out when more than max - 1).
 * How many are in out[0..max), or -errno. */
int server_client_groups(const struct server_client *c, gid_t *out, size_t max) ATTR_WUR;

/* Queue an answer; it is written as the client reads.  0, or -ENOMEM
 * (the client is then closed once the callback returns) or -EPIPE (it
 * is already being closed: the answer is dropped). */
int server_send(struct server_client *c, const void *p, size_t n);
int server_printf(struct server_client *c, const char *fmt, ...)
	ATTR_PRINTF(2, 3);

/*
 * Log through the server's limiter: at most SERVER_LOG_BURST lines a
 * second, then one line a second counting the messages suppressed.
 * Messages below the log level neither print nor count.
 */
#define SERVER_LOG_BURST 5
void server_log(struct server *s, enum log_level level, const char *fmt, ...)
	ATTR_PRINTF(3, 4);

#endif
