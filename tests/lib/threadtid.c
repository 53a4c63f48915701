/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threadtid.c -- test helper: a process with a second thread, which
 * prints its thread id (not the process's pid) and then sleeps.
 * Usage: threadtid SECONDS [THREAD]  (how long the process stays; how
 * long the second thread stays, SECONDS if not given)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *
second(void *arg)
{
	printf("%ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	sleep((unsigned)atoi(arg));
	return NULL; /* the thread exits, the process runs on */
}

int
main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: threadtid SECONDS [THREAD]\n");
		return 2;
	}
	if (pthread_create(&t, NULL, second, argv[argc - 1]) != 0)
		return 1;
	sleep((unsigned)atoi(argv[1]));
	return 0;
}
