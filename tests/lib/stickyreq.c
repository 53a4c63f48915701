/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stickyreq.c -- test helper: one well-formed sticky request, the way
 * libcgroup sends it (a native pid_t, then an int flag).  Prints the
 * daemon's answer, or "(none)" if it closed without one.
 * Usage: stickyreq SOCKET PID FLAG
 */
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
	char answer[64];

	if (argc != 4) {
		fprintf(stderr, "usage: stickyreq SOCKET PID FLAG\n");
		return 2;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", argv[1]);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("connect");
		return 1;
	}
	pid_t pid = (pid_t)atoi(argv[2]);
	int flag = atoi(argv[3]);
	if (write(fd, &pid, sizeof(pid)) != sizeof(pid) ||
	    write(fd, &flag, sizeof(flag)) != sizeof(flag))
		return 1;
	ssize_t n = read(fd, answer, sizeof(answer) - 1);
	if (n <= 0) {
		printf("(none)\n");
		return 1;
	}
	printf("%.*s (%zd bytes)\n", (int)strnlen(answer, (size_t)n), answer, n);
	return 0;
}
