/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * testbus.h -- a private dbus-daemon for the unit tests that need a bus
 * (dbus-t, fgunit-t): its own directory under /tmp, a configuration that
 * lets anyone own, send and receive, and a broker that dies with the
 * test.  The functions bail (tap.h) on failure.
 */
#ifndef CGENGINE_TESTBUS_H
#define CGENGINE_TESTBUS_H

#include <sys/types.h>

struct testbus {
	char dir[64];	   /* /tmp/cgetest-TAG.XXXXXX */
	char address[192]; /* "unix:path=DIR/bus" */
	pid_t pid;	   /* the broker */
};

/* In a child: end with the test (parent), so that a test that crashes
 * (a sanitizer's abort) leaves no bus or caller holding its output open. */
void testbus_die_with_parent(pid_t parent);
/* Start a broker in /tmp/cgetest-TAG.XXXXXX; when as_user is not
 * (uid_t)-1 and the test runs as root, the directory is that user's and
 * the broker runs as that user.  Returns once its socket is there. */
void testbus_start(struct testbus *b, const char *tag, uid_t as_user);
/* Stop the broker, remove its socket, configuration and directory (which
 * must hold nothing else by then). */
void testbus_stop(struct testbus *b);

#endif
