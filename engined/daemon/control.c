/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.c -- the control socket: a line protocol served by server.c,
 * authorised per request by the peer's credentials (SO_PEERCRED).
 *
 * Protocol, version 1 (see docs/protocol.md):
 *   server, on connect:  "CGENGINE 1\n"
 *   client:              ["json "] VERB [ARG...] "\n"     (at most 4096 bytes)
 *   server:              "OK <n>\n" and n bytes of body, or "ERR <message>\n"
 * A connection may carry several requests.  The limits (connections per
 * user, root's reserve, the request deadline, unsent output) are
 * server.c's, set by the descriptor below; the per-user request rate
 * is kept here.
 */
#include "daemon.h"
#include "server.h"
#include "engined/render/render.h"

#include <errno.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x)	     #x
#define STR(x)	     STR_(x)
#define REQUEST_MAX  4096
#define MAX_WORDS    64
#define RATE_PER_SEC 20.0 /* requests a non-root user may make per second */
#define RATE_BURST   40.0
#define RATE_USERS   4096

struct control_server {
	struct core *core;
	struct server *srv;
	struct ratelimit rate; /* requests per user (util.h) */
};


/* ---- requests ------------------------------------------------------------------- */

static void
answer(struct server_client *c, bool ok, const struct strbuf *body, const char *err)
{
	int rc;

	if (ok && !body->failed) {
		rc = server_printf(c, "OK %zu\n", body->len);
		if (rc == 0)
			rc = server_send(c, body->p ? body->p : "", body->len);
	} else {
		rc = server_printf(c, "ERR %s\n", ok ? "out of memory" : err);
	}
	(void)rc; /* on failure the server drops the client */
}

/* Token bucket per uid; root is never limited.  A refusal is logged
 * when a user starts being limited, not for every request refused nor
 * whenever a token trickles in; only once its bucket has filled again. */
static bool
rate_ok(struct control_server *s, uid_t uid)
{
	bool first;

	if (ratelimit_take(&s->rate, uid, ev_now(server_loop(s->srv)), &first))
		return true;
	if (first)
		server_log(s->srv, LOG_LEVEL_WARNING,
			   "control socket: uid %u over its rate limit (not logged "
			   "again until it slows down)",
			   (unsigned)uid);
	return false;
}

int
control_parse_line(char *line, char **argv, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		p += strspn(p, " \t\r");
		if (*p == '\0')
			return n;
		if (n == max)
			return -E2BIG;
		argv[n++] = p;
		p += strcspn(p, " \t\r");
		if (*p != '\0')
			*p++ = '\0';
	}
}

static enum server_verdict
control_request_cb(struct server_client *c, char *line, size_t len)
{
	struct control_server *s = server_ctx(server_of(c));
	char *argv[MAX_WORDS];
	char err[512] = "";
	struct strbuf body = { 0 };
	struct verbs_request rq = { .core = s->core,
			      .now = ev_now(server_loop(server_of(c))),
			      .uid = server_client_uid(c),
			      .pid = server_client_pid(c) };

	if (memchr(line, '\0', len) != NULL) {
		answer(c, false, NULL, "request contains a NUL byte");
		return SERVER_NEXT;
	}
	int argc = control_parse_line(line, argv, MAX_WORDS);
	if (argc == 0)
		return SERVER_IGNORE; /* blank lines are allowed, and ignored */
	if (!rate_ok(s, rq.uid)) {
		answer(c, false, NULL, "rate limit exceeded, slow down");
		return SERVER_NEXT;
	}
	if (argc < 0) {
		answer(c, false, NULL, "too many words (at most 64)");
		return SERVER_NEXT;
	}
	if (strcmp(argv[0], "json") == 0) {
		rq.json = true;
		argc--;
		memmove(argv, argv + 1, (size_t)argc * sizeof(*argv));
	}
	if (argc == 0) {
		answer(c, false, NULL, "empty request");
		return SERVER_NEXT;
	}
	gid_t groups[1024]; /* for "metrics" without root: metrics-group */
	size_t max = sizeof(groups) / sizeof(*groups);
	int ngroups = 0;
	if (strcmp(argv[0], "metrics") == 0 && rq.uid != 0)
		ngroups = server_client_groups(c, groups, max);
	rq.groups = groups;
	rq.ngroups = ngroups > 0 ? (size_t)ngroups : 0;
	int rc = render_answer(&rq, argc, argv, &body, err, sizeof(err));
	answer(c, rc == 0, &body, err);
	free(body.p);
	return SERVER_NEXT;
}

static const struct server_proto control_proto = {
	.name = "control socket",
	.max_line = REQUEST_MAX,
	.deadline = 10.0,
	.max_clients = 64,
	.root_reserve = 8,
	.max_per_uid = 16,
	.max_output = 64 << 10,
	.greeting = "CGENGINE " STR(CONTROL_PROTOCOL) "\n",
	.refusal = "ERR too many clients, try again\n",
	.too_long = "ERR request too long (at most 4096 bytes)\n",
	.partial = "ERR incomplete request (no newline)\n",
	.request = control_request_cb,
};

/* ---- the server ------------------------------------------------------------------- */

struct control_server *
control_open(const char *path, struct core *core)
{
	struct control_server *s = calloc(1, sizeof(*s));

	if (s == NULL || (s->srv = server_open(&control_proto, s, path, 64)) == NULL) {
		free(s);
		return NULL;
	}
	s->core = core;
	ratelimit_init(&s->rate, RATE_PER_SEC, RATE_BURST, RATE_USERS);
	return s;
}

void
control_start(struct control_server *s, struct ev_loop *loop)
{
	server_start(s->srv, loop);
}

void
control_close(struct control_server *s)
{
	if (s == NULL)
		return;
	server_free(s->srv);
	ratelimit_free(&s->rate);
	free(s);
}
