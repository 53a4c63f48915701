/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exporter.c -- cgenginectl's two ways to hand the daemon's metrics to
 * Prometheus, so that cgengined itself never listens on the network:
 *
 *   metrics --http      one HTTP/1.x request on standard input, its
 *                       answer on standard output (inetd style, run by
 *                       cgengine-exporter.socket with Accept=yes);
 *   metrics --textfile  DIR/cgengine.prom for node_exporter's textfile
 *                       collector, written to a temporary file first
 *                       and renamed, so a scrape never reads half of it.
 *
 * The HTTP side reads at most REQUEST_MAX bytes of request head within
 * the timeout (10 s unless --timeout says otherwise), writes its answer
 * within the same time again, and answers every request it can read:
 * 200 for GET or HEAD /metrics, 404 for another path, 405 for another
 * method, 400 for what is not HTTP/1.x, 408 when the head did not come
 * in time, 414 or 431 when it is too long, 503 when the daemon did not
 * answer.  The control socket is asked only for a valid request.
 */
#include "ctl.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REQUEST_MAX	8192	  /* bytes of request line and headers */
#define DEFAULT_TIMEOUT 10.0	  /* seconds for the whole request head */
#define DRAIN_MAX	(1 << 20) /* bytes read and dropped after an error */
#define CONTENT_TYPE	"text/plain; version=0.0.4"
#define PROM_NAME	"cgengine.prom"

/* ---- time ------------------------------------------------------------------------- */

/* Wait until fd is ready for events or the deadline passes: 1, 0 (time
 * is up) or -errno. */
static int
wait_fd(int fd, short events, double deadline)
{
	for (;;) {
		double left = deadline - mono_s();
		struct pollfd p = { .fd = fd, .events = events };

		if (left <= 0)
			return 0;
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r >= 0 || errno != EINTR)
			return r < 0 ? -errno : r;
	}
}

/* ---- the request ------------------------------------------------------------------ */

/* Where the request head ends (just past its blank line), or NULL. */
static const char *
head_end(const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < n && buf[i + 1] == '\n')
			return buf + i + 2;
		if (i + 2 < n && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return buf + i + 3;
	}
	return NULL;
}

/*
 * Read the request head from fd into buf (REQUEST_MAX + 1 bytes, NUL
 * terminated) by the deadline: 0 when it ended (or the client stopped
 * sending), else the HTTP status to answer (408, 414, 431).
 */
static int
read_head(int fd, char *buf, double deadline)
{
	size_t n = 0;

	buf[0] = '\0';
	while (n < REQUEST_MAX) {
		int r = wait_fd(fd, POLLIN, deadline);
		if (r <= 0)
			return 408;
		ssize_t got = read(fd, buf + n, REQUEST_MAX - n);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			return 0; /* the end of what it sends: parse what came */
		n += (size_t)got;
		buf[n] = '\0';
		if (head_end(buf, n) != NULL)
			return 0;
	}
	return memchr(buf, '\n', n) == NULL ? 414 : 431;
}

/* Is s one HTTP token of upper-case letters (a method)? */
static bool
is_method(const char *s, size_t n)
{
	if (n == 0 || n > 16)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 'A' || s[i] > 'Z')
			return false;
	return true;
}

/*
 * The status the request line in head asks for: 200 for GET or HEAD
 * of /metrics (*head set for HEAD), else 400, 404 or 405.
 */
static int
judge(const char *head, bool *is_head)
{
	size_t len = strcspn(head, "\r\n");
	const char *sp1 = memchr(head, ' ', len);
	const char *sp2 =
		sp1 != NULL ? memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1 - head)) : NULL;

	if (sp1 == NULL || sp2 == NULL || !is_method(head, (size_t)(sp1 - head)))
		return 400;
	size_t vlen = len - (size_t)(sp2 + 1 - head);
	if (vlen != 8 || (strncmp(sp2 + 1, "HTTP/1.0", 8) != 0 &&
			  strncmp(sp2 + 1, "HTTP/1.1", 8) != 0))
		return 400;
	const char *path = sp1 + 1;
	size_t plen = (size_t)(sp2 - path);
	if (plen == 0 || path[0] != '/' || memchr(path, ' ', plen) != NULL)
		return 400;
	size_t mlen = (size_t)(sp1 - head);
	*is_head = mlen == 4 && strncmp(head, "HEAD", 4) == 0;
	if (!*is_head && !(mlen == 3 && strncmp(head, "GET", 3) == 0))
		return 405;
	size_t before_query = strcspn(path, "? ");
	if (before_query != 8 || strncmp(path, "/metrics", 8) != 0)
		return 404;
	return 200;
}

/* ---- the answer ------------------------------------------------------------------- */

/* Write all of buf to fd by the deadline: 0 or -errno (-ETIMEDOUT). */
static int
write_all(int fd, const char *buf, size_t n, double deadline)
{
	while (n > 0) {
		int r = wait_fd(fd, POLLOUT, deadline);
		if (r <= 0)
			return r < 0 ? r : -ETIMEDOUT;
		ssize_t w = write(fd, buf, n);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w < 0)
			return -errno;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static const char *
reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 414:
		return "URI Too Long";
	case 431:
		return "Request Header Fields Too Large";
	default:
		return "Service Unavailable";
	}
}

/* Answer status with body (n bytes; without it for HEAD): 0 or -errno. */
static int
answer(int status, const char *body, size_t n, bool is_head, double deadline)
{
	char head[512];
	int len = snprintf(head, sizeof(head),
			   "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			   "%sConnection: close\r\n\r\n",
			   status, reason(status),
			   status == 200 ? CONTENT_TYPE : "text/plain", n,
			   status == 405 ? "Allow: GET, HEAD\r\n" : "");
	int rc = write_all(STDOUT_FILENO, head, (size_t)len, deadline);

	if (rc == 0 && !is_head)
		rc = write_all(STDOUT_FILENO, body, n, deadline);
	return rc;
}

/*
 * After an error answer: say the answer is complete and read what the
 * client still sends (a bounded time and amount), so that a socket is
 * not reset under the answer before the client reads it.
 */
static void
drain(double deadline)
{
	char buf[8192];
	size_t dropped = 0;

	shutdown(STDOUT_FILENO, SHUT_WR); /* ENOTSOCK for a pipe: nothing to do */
	while (dropped < DRAIN_MAX && wait_fd(STDIN_FILENO, POLLIN, deadline) > 0) {
		ssize_t r = read(STDIN_FILENO, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		dropped += (size_t)r;
	}
}

/* The metrics, asked from the daemon, as an answer: the exit status. */
static int
serve_metrics(const char *path, bool is_head, double deadline)
{
	char *body = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&body, &n);
	int rc = mem != NULL ? ctl_ask(path, "metrics\n", 8, mem) : 3;

	if (mem != NULL && fclose(mem) != 0 && rc == 0)
		rc = 3;
	if (rc == 0 && answer(200, body, n, is_head, deadline) < 0)
		rc = 3;
	else if (rc != 0) {
		static const char msg[] =
			"cgengined did not answer; see the exporter's log\n";

		answer(503, msg, sizeof(msg) - 1, is_head, deadline);
	}
	free(body);
	return rc;
}

static int
http(const char *path, double timeout)
{
	char head[REQUEST_MAX + 1];
	double deadline = mono_s() + timeout;
	bool is_head = false;
	int status = read_head(STDIN_FILENO, head, deadline);

	if (status == 0)
		status = judge(head, &is_head);
	deadline = mono_s() + timeout; /* the answer has a bound of its own */
	if (status == 200)
		return serve_metrics(path, is_head, deadline);
	char body[64];
	int n = snprintf(body, sizeof(body), "%d %s\n", status, reason(status));
	answer(status, body, (size_t)n, is_head, deadline);
	if (status != 408)
		drain(deadline);
	return 1;
}

/* ---- the text file ---------------------------------------------------------------- */

/* Write the metrics to dir/PROM_NAME through a renamed temporary file. */
static int
textfile(const char *path, const char *dir)
{
	char tmp[4096], dest[4096];
	int rc = 3;

	if ((size_t)snprintf(dest, sizeof(dest), "%s/" PROM_NAME, dir) >= sizeof(dest) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/." PROM_NAME ".XXXXXX", dir) >=
		    sizeof(tmp)) {
		fprintf(stderr, "cgenginectl: directory name too long: %s\n", dir);
		return 2;
	}
	int fd = mkostemp(tmp, O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f == NULL) {
		fprintf(stderr, "cgenginectl: cannot write in %s: %s\n", dir,
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return 1;
	}
	rc = ctl_ask(path, "metrics\n", 8, f);
	if (rc == 0 && (fflush(f) != 0 || fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		rc = -errno;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, dest) < 0)
		rc = -errno;
	if (rc < 0)
		fprintf(stderr, "cgenginectl: cannot write %s: %s\n", dest,
			strerror(-rc));
	if (rc != 0)
		unlink(tmp);
	return rc < 0 ? 1 : rc;
}

/* ---- the command line ------------------------------------------------------------- */

int
ctl_export(const char *path, int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN); /* a client gone is an error of write() */
	if (strcmp(argv[0], "--textfile") == 0) {
		if (argc != 2 || argv[1][0] == '\0') {
			fprintf(stderr, "cgenginectl: usage: metrics --textfile DIR\n");
			return 2;
		}
		return textfile(path, argv[1]);
	}
	double timeout = DEFAULT_TIMEOUT;
	if (argc == 3 && strcmp(argv[1], "--timeout") == 0) {
		char *end;

		timeout = strtod(argv[2], &end);
		if (*end != '\0' || end == argv[2] || !(timeout > 0 && timeout <= 3600)) {
			fprintf(stderr,
				"cgenginectl: --timeout wants seconds, 0 to 3600: '%s'\n",
				argv[2]);
			return 2;
		}
	} else if (argc != 1) {
		fprintf(stderr,
			"cgenginectl: usage: metrics --http [--timeout SECONDS]\n");
		return 2;
	}
	return http(path, timeout);
}
