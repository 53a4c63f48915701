/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * notifyrecv.c -- test helper: stands in for systemd's NOTIFY_SOCKET.
 * Binds a Unix datagram socket at PATH and prints every message it
 * receives on one line (newlines inside a message become blanks).
 * Usage: notifyrecv PATH
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char buf[4096];

	if (argc != 2)
		return 2;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", argv[1]);
	unlink(argv[1]);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("bind");
		return 1;
	}
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		for (char *p = buf; *p; p++)
			if (*p == '\n')
				*p = ' ';
		printf("%s\n", buf);
		fflush(stdout);
	}
}
