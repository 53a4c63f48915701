/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rawctl.c -- test helper: a raw control-socket client.  Sends standard
 * input as it is (nothing added), half-closes, and prints everything the
 * daemon answers until it closes or SECONDS pass.
 * Usage: rawctl SOCKET [SECONDS]
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char buf[65536];
	ssize_t n;

	if (argc < 2) {
		fprintf(stderr, "usage: rawctl SOCKET [SECONDS]\n");
		return 2;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", argv[1]);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("connect");
		return 1;
	}
	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n)
			break;
	shutdown(fd, SHUT_WR);
	int ms = (argc > 2 ? atoi(argv[2]) : 5) * 1000;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	while (poll(&p, 1, ms) > 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	return 0;
}
