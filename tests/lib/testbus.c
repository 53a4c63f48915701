/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * testbus.c -- a private dbus-daemon for the unit tests (testbus.h).
 */
#include "testbus.h"
#include "tests/tap/tap.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void
testbus_die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(99);
}

void
testbus_start(struct testbus *b, const char *tag, uid_t as_user)
{
	bool drop = as_user != (uid_t)-1 && getuid() == 0;
	char conf[160], sock[160];
	FILE *f;

	snprintf(b->dir, sizeof(b->dir), "/tmp/cgetest-%s.XXXXXX", tag);
	if (mkdtemp(b->dir) == NULL || chmod(b->dir, 0755) < 0 ||
	    (drop && chown(b->dir, as_user, as_user) < 0))
		bail("mkdtemp");
	snprintf(conf, sizeof(conf), "%s/bus.conf", b->dir);
	snprintf(sock, sizeof(sock), "%s/bus", b->dir);
	snprintf(b->address, sizeof(b->address), "unix:path=%s", sock);
	if ((f = fopen(conf, "w")) == NULL)
		bail("fopen %s", conf);
	fprintf(f,
		"<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration "
		"1.0//EN\" \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
		"<busconfig><type>session</type><listen>%s</listen><auth>EXTERNAL</auth>"
		"<policy context=\"default\"><allow user=\"*\"/><allow own=\"*\"/>"
		"<allow send_destination=\"*\"/><allow receive_sender=\"*\"/></policy>"
		"</busconfig>\n",
		b->address);
	fclose(f);
	pid_t self = getpid();

	if ((b->pid = fork()) == 0) {
		testbus_die_with_parent(self);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		if (drop && (setgroups(0, NULL) < 0 || setgid(as_user) < 0 ||
			     setuid(as_user) < 0))
			_exit(98);
		execlp("dbus-daemon", "dbus-daemon", "--nofork", "--nopidfile",
		       "--nosyslog", "--config-file", conf, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500 && access(sock, F_OK) < 0; i++)
		usleep(10000);
	if (access(sock, F_OK) < 0)
		bail("dbus-daemon did not start");
}

void
testbus_stop(struct testbus *b)
{
	char path[128];

	kill(b->pid, SIGTERM);
	waitpid(b->pid, NULL, 0);
	snprintf(path, sizeof(path), "%s/bus.conf", b->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bus", b->dir);
	unlink(path);
	rmdir(b->dir);
}
