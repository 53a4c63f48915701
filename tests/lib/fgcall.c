/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fgcall.c -- test helper: a desktop component's SetForeground, which
 * busctl cannot make (it sends no file descriptor).  Opens a pidfd of
 * PID, calls org.cgengine.Engine1.SetForeground(h) on the system bus,
 * prints "pid N" (its own) and "OK" or the error's name and message,
 * then stays on the bus, holding the grant, until it is killed.
 * Exit 1 when the call failed.
 * Usage: fgcall PID
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int
main(int argc, char **argv)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *r = NULL;
	sd_bus *bus = NULL;
	int fd, rc;

	if (argc != 2) {
		fprintf(stderr, "usage: fgcall PID\n");
		return 2;
	}
	printf("pid %d\n", (int)getpid());
	if ((fd = (int)syscall(SYS_pidfd_open, atoi(argv[1]), 0)) < 0) {
		printf("pidfd_open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if ((rc = sd_bus_open_system(&bus)) < 0) {
		printf("system bus: %s\n", strerror(-rc));
		return 1;
	}
	rc = sd_bus_call_method(bus, "org.cgengine.Engine1", "/org/cgengine/Engine1",
				"org.cgengine.Engine1", "SetForeground", &e, &r, "h", fd);
	if (rc < 0) {
		printf("%s: %s\n", e.name ? e.name : "error",
		       e.message ? e.message : strerror(-rc));
		return 1;
	}
	printf("OK\n");
	fflush(stdout);
	/* on the bus until killed: the grant lasts as long */
	while (sd_bus_wait(bus, UINT64_MAX) >= 0) {
		while ((rc = sd_bus_process(bus, NULL)) > 0)
			;
		if (rc < 0)
			break;
	}
	pause(); /* disconnected: wait to be killed all the same */
	return 0;
}
