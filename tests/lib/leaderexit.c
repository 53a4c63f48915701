/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * leaderexit.c -- test helper: a process whose main thread exits with
 * pthread_exit() after a delay while a second thread runs on.  The
 * kernel reports EXIT for pid == tgid then, though the process lives.
 * Usage: leaderexit DELAY SECONDS  (delay before the main thread
 * exits; how long the other thread stays)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *
linger(void *arg)
{
	sleep((unsigned)atoi(arg));
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 3) {
		fprintf(stderr, "usage: leaderexit DELAY SECONDS\n");
		return 2;
	}
	if (pthread_create(&t, NULL, linger, argv[2]) != 0)
		return 1;
	usleep((useconds_t)(atof(argv[1]) * 1e6));
	pthread_exit(NULL);
}
