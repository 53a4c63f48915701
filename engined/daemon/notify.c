/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * notify.c -- tell systemd about our state (Type=notify) by writing
 * to $NOTIFY_SOCKET directly: no libsystemd dependency.  Without the
 * variable every call is a no-op.  With WatchdogSec= in the unit the
 * loop pings WATCHDOG=1 twice per period, so systemd kills a daemon
 * that stopped (SIGSTOP, a frozen group, a stuck loop) -- which also
 * lets every exec the exec gate held go on.
 */
#include "daemon.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

void
notify_systemd(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char msg[256];
	size_t len;

	if (path == NULL || (path[0] != '/' && path[0] != '@') ||
	    (len = strlen(path)) >= sizeof(a.sun_path))
		return;
	memcpy(a.sun_path, path, len);
	if (a.sun_path[0] == '@')
		a.sun_path[0] = '\0'; /* an abstract socket */
	if (strcmp(state, "RELOADING=1") == 0) {
		snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
			 (unsigned long long)(mono_ns() / 1000));
	} else {
		snprintf(msg, sizeof(msg), "%s", state);
	}
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&a,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		log_debug("NOTIFY_SOCKET %s: %m", path);
	close(fd);
}

double
notify_watchdog_interval(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	long long v = usec != NULL ? strtoll(usec, NULL, 10) : 0;

	/* WATCHDOG_PID names the process meant, when set */
	if (v <= 0 || (pid != NULL && strtol(pid, NULL, 10) != (long)getpid()))
		return 0;
	return (double)v / 2e6;
}
