/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sticky.c -- libcgroup's "sticky" socket, so that cgexec --sticky and
 * cgclassify --sticky work unchanged.  A client sends a native pid_t
 * and an int flag (0: this pid, 1: and its future children, 2: cancel)
 * and is answered "SUCCESS_STORE_PID\0".
 *
 * Served by server.c with a fixed-size record: each client has a
 * deadline that bytes trickling in do not extend, connections are
 * capped per user with a reserve for root, so a stalled or hostile
 * client never delays event handling.  A user may only make its own
 * processes sticky; root may make any.
 */
#include "daemon.h"
#include "server.h"

#include <stdlib.h>
#include <string.h>

static const char reply[] = "SUCCESS_STORE_PID"; /* sent with its NUL: 18 bytes */

static enum server_verdict
sticky_request_cb(struct server_client *c, char *req, size_t len)
{
	struct server *srv = server_of(c);
	struct core *core = server_ctx(srv);
	uid_t uid = server_client_uid(c);
	pid_t pid;
	int flag;

	memcpy(&pid, req, sizeof(pid));
	memcpy(&flag, req + sizeof(pid), sizeof(flag));
	int rc = core_make_sticky(core, pid, uid, flag);
	if (rc < 0)
		server_log(srv, LOG_LEVEL_WARNING,
			   "sticky request for pid %d (flag %d) from uid %u denied: %s",
			   (int)pid, flag, (unsigned)uid, strerror(-rc));
	else if (server_send(c, reply, sizeof(reply)) < 0)
		log_debug("sticky socket: no memory for the answer");
	return SERVER_CLOSE; /* one request per connection, as libcgroup does */
}

static const struct server_proto sticky_proto = {
	.name = "sticky socket",
	.record = sizeof(pid_t) + sizeof(int),
	.deadline = 2.0,
	.max_clients = 64,
	.root_reserve = 8,
	.max_per_uid = 16,
	.max_output = sizeof(reply),
	.request = sticky_request_cb,
};

struct server *
sticky_open(const char *path, struct core *core)
{
	return server_open(&sticky_proto, core, path, 16);
}

void
sticky_start(struct server *s, struct ev_loop *loop)
{
	server_start(s, loop);
}

void
sticky_close(struct server *s, struct ev_loop *loop)
{
	(void)loop; /* the server remembers the loop it was started on */
	server_free(s);
}
