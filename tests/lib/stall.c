/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stall.c -- test helper: a hostile sticky-socket client.  Connects to
 * a Unix socket, writes BYTES bytes of a request, then sleeps SECONDS
 * without finishing it.  Usage: stall SOCKET BYTES SECONDS [COUNT]
 * With COUNT, opens that many such connections.
 */
#include <signal.h>
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
	int count = argc > 4 ? atoi(argv[4]) : 1, opened = 0;
	char junk[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	if (argc < 4) {
		fprintf(stderr, "usage: stall SOCKET BYTES SECONDS [COUNT]\n");
		return 2;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", argv[1]);
	signal(SIGPIPE, SIG_IGN); /* refused connections are closed under us */
	for (int i = 0; i < count; i++) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			continue;
		opened++;
		size_t n = (size_t)atoi(argv[2]);
		if (n > 0 && write(fd, junk, n > sizeof(junk) ? sizeof(junk) : n) < 0)
			continue;
	}
	printf("%d\n", opened);
	fflush(stdout);
	sleep((unsigned)atoi(argv[3]));
	return 0;
}
