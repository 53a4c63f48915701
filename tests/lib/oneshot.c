/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oneshot.c -- test helper: a fake control socket that serves one
 * client and hangs up.  Listens on SOCKET, accepts one connection,
 * sends GREETING (as it is; may be empty), reads the request line,
 * sends ANSWER (as it is; may be absent) and closes.  SOCKET appears
 * only once it listens (bound under another name, then renamed), so a
 * client that sees it can connect.
 * Usage: oneshot SOCKET GREETING [ANSWER]
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void
put(int fd, const char *s)
{
	size_t n = strlen(s);

	if (n > 0 && send(fd, s, n, MSG_NOSIGNAL) != (ssize_t)n)
		perror("oneshot: send");
}

int
main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char c;

	if (argc < 3 || strlen(argv[1]) + 4 >= sizeof(a.sun_path)) {
		fprintf(stderr, "usage: oneshot SOCKET GREETING [ANSWER]\n");
		return 2;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s.new", argv[1]);
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 1) < 0 ||
	    rename(a.sun_path, argv[1]) < 0) {
		perror("oneshot: listen");
		return 1;
	}
	int fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		perror("oneshot: accept");
		return 1;
	}
	put(fd, argv[2]);
	while (argv[2][0] != '\0' && read(fd, &c, 1) == 1 && c != '\n')
		;
	if (argc > 3)
		put(fd, argv[3]);
	close(fd);
	close(lfd);
	unlink(argv[1]);
	return 0;
}
