/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgenginectl.c -- the command-line client of cgengined's control
 * socket.  It sends one request and prints the answer; all the work
 * (and all permission checks) happen in the daemon.
 *
 * Exit status: 0 success, 1 the daemon refused or failed the request,
 * 2 usage error, 3 the daemon could not be reached.
 */
#include "ctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define DEFAULT_SOCKET	"/run/cgengine/control.sock"
#define TIMEOUT_SECONDS 60
#define STR_(x)		#x
#define STR(x)		STR_(x)

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: cgenginectl [-s SOCKET] [--json] VERB [ARG...]\n"
		"Talk to cgengined through its control socket (default %s).\n"
		"\n"
		"  status                      counters, boosts, rules\n"
		"  explain PID                 where PID is, where it should be, and why\n"
		"  test --user U [--group G] [--exe PATH] [--cmdline ARG...]\n"
		"                              what-if classification without a process\n"
		"  boost PID HIER:PATH DURATION          (root)\n"
		"  boost --profile NAME PID [DURATION]   (users granted the profile)\n"
		"  unboost ID|PID              end a boost (#ID, or every boost of PID)\n"
		"  boosts                      list active boosts\n"
		"  reload | pause | resume     (root)\n"
		"  rules                       rules with their hit counts (root)\n"
		"  nft-sets [FAMILY TABLE SET] nft sets and the group ids put there (root)\n"
		"  metrics                     Prometheus text exposition (root, or the\n"
		"                              metrics group)\n"
		"  metrics --http [--timeout SECONDS]\n"
		"                              answer one HTTP request on stdin\n"
		"  metrics --textfile DIR      write DIR/cgengine.prom atomically\n"
		"\n"
		"Durations: 90s, 15m, 2h, 1d.  --json prints JSON for scripts.\n",
		DEFAULT_SOCKET);
}

/* A connected socket to the daemon, or -errno after a message. */
static int
connect_to(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = TIMEOUT_SECONDS };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "cgenginectl: socket path too long: %s\n", path);
		return -ENAMETOOLONG;
	}
	strcpy(a.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int err = errno;

		fprintf(stderr,
			"cgenginectl: cannot connect to %s: %s (is cgengined running?)\n",
			path, strerror(err));
		if (fd >= 0)
			close(fd);
		return -err;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

/*
 * Read one line (without its newline) into buf.  NULL on success, else
 * why not, for people: the daemon closed the connection, did not answer
 * in time, sent a line too long, or the read failed.
 */
static const char *
read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		ssize_t r = read(fd, buf + n, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return "the daemon closed the connection without answering";
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return "no answer within " STR(TIMEOUT_SECONDS) " seconds";
		if (r < 0)
			return strerror(errno);
		if (buf[n] == '\n') {
			buf[n] = '\0';
			return NULL;
		}
		n++;
	}
	buf[n] = '\0';
	return "answer line too long";
}

/* Copy exactly n bytes of body to out; NULL, or why not. */
static const char *
copy_body(int fd, size_t n, FILE *out)
{
	char buf[65536];

	while (n > 0) {
		ssize_t r = read(fd, buf, n < sizeof(buf) ? n : sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return "the daemon closed the connection in the middle of the answer";
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return "the rest of the answer did not come within " STR(
				TIMEOUT_SECONDS) " seconds";
		if (r < 0)
			return strerror(errno);
		if (fwrite(buf, 1, (size_t)r, out) != (size_t)r)
			return "cannot write the answer";
		n -= (size_t)r;
	}
	return fflush(out) == 0 ? NULL : "cannot write the answer";
}

static const struct option longopts[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

int
main(int argc, char **argv)
{
	const char *path = DEFAULT_SOCKET;
	bool json = false;
	char line[8192];
	int ch;

	while ((ch = getopt_long(argc, argv, "+s:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			path = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("cgenginectl %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	/* the exporter's two forms: they ask "metrics" themselves */
	if (strcmp(argv[optind], "metrics") == 0 && optind + 1 < argc &&
	    (strcmp(argv[optind + 1], "--http") == 0 ||
	     strcmp(argv[optind + 1], "--textfile") == 0))
		return ctl_export(path, argc - optind - 1, argv + optind + 1);
	size_t len = (size_t)snprintf(line, sizeof(line), "%s", json ? "json" : "");
	for (int i = optind; i < argc; i++) {
		if (argv[i][0] == '\0' || strpbrk(argv[i], " \t\r\n") != NULL) {
			fprintf(stderr,
				"cgenginectl: arguments may not be empty or contain blanks: '%s'\n",
				argv[i]);
			return 2;
		}
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s",
					len ? " " : "", argv[i]);
		if (len >= sizeof(line) - 2) {
			fprintf(stderr, "cgenginectl: request too long\n");
			return 2;
		}
	}
	line[len++] = '\n';
	return ctl_ask(path, line, len, stdout);
}

int
ctl_ask(const char *path, const char *line, size_t len, FILE *out)
{
	int fd = connect_to(path);
	if (fd < 0)
		return 3;
	char reply[4200];
	const char *why = read_line(fd, reply, sizeof(reply));
	if (why != NULL) {
		fprintf(stderr, "cgenginectl: no greeting from %s: %s\n", path, why);
		close(fd);
		return 3;
	}
	if (strncmp(reply, "ERR ", 4) == 0) { /* e.g. too many clients */
		fprintf(stderr, "cgenginectl: %s\n", reply + 4);
		close(fd);
		return 1;
	}
	if (strcmp(reply, "CGENGINE 1") != 0) {
		fprintf(stderr, "cgenginectl: %s does not speak protocol 1 (got '%s')\n",
			path, reply);
		close(fd);
		return 3;
	}
	ssize_t w = send(fd, line, len, MSG_NOSIGNAL);
	if (w < 0 && (errno == EPIPE || errno == ECONNRESET))
		why = "the daemon closed the connection";
	else if (w != (ssize_t)len)
		why = w < 0 ? strerror(errno) : "short write";
	else
		why = read_line(fd, reply, sizeof(reply));
	if (why != NULL) {
		fprintf(stderr, "cgenginectl: no answer from %s: %s\n", path, why);
		close(fd);
		return 3;
	}
	int rc = 1;
	if (strncmp(reply, "OK ", 3) == 0) {
		rc = 0;
		if ((why = copy_body(fd, strtoul(reply + 3, NULL, 10), out)) != NULL) {
			fprintf(stderr, "cgenginectl: %s: %s\n", path, why);
			rc = 3;
		}
	} else if (strncmp(reply, "ERR ", 4) == 0) {
		fprintf(stderr, "cgenginectl: %s\n", reply + 4);
	} else {
		fprintf(stderr, "cgenginectl: unexpected answer '%s'\n", reply);
		rc = 3;
	}
	close(fd);
	return rc;
}
