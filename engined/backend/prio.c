/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prio.c -- the daemon's table of per-process priorities: kernel/'s
 * calls on the real /proc (every backend shares it; see backend.h).
 */
#include "backend.h"

static int
k_threads(void *arg, pid_t pid, int (*fn)(void *fnarg, pid_t tid), void *fnarg)
{
	return task_foreach_thread(arg, pid, fn, fnarg);
}

static int
k_get(void *arg, pid_t pid, pid_t tid, unsigned int what, struct prio *out)
{
	return taskprio_get(arg, pid, tid, what, out);
}

static int
k_set(void *arg, pid_t pid, pid_t tid, const struct prio *todo)
{
	return taskprio_set(arg, pid, tid, todo);
}

static char procroot[] = "/proc";

static const struct backend_prio kernel_prio = {
	.threads = k_threads,
	.get = k_get,
	.set = k_set,
	.arg = procroot,
};

const struct backend_prio *
backend_prio_kernel(void)
{
	return &kernel_prio;
}
