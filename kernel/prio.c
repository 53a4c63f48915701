/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prio.c -- a thread's priorities, read and written: nice, policy and
 * realtime priority (sched_getattr, setpriority, sched_setscheduler),
 * the I/O priority (ioprio_get, ioprio_set), oom_score_adj (the
 * process's /proc file) and latency_nice (sched_attr's field where the
 * kernel has one), and the threads of a process.
 */
#include "kernel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sched_attr with latency_nice after util_max, as
 * the latency-nice patches define it (SCHED_ATTR_SIZE_VER2). */
struct kattr {
	uint32_t size;
	uint32_t policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
	int32_t latency_nice;
};
#define KATTR_SIZE_VER1	   56 /* without latency_nice */
#define KATTR_SIZE_VER2	   60
#define KATTR_KEEP_POLICY  0x08
#define KATTR_KEEP_PARAMS  0x10
#define KATTR_LATENCY_NICE 0x80

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_SHIFT 13

static int
get_attr(pid_t tid, struct kattr *a)
{
	memset(a, 0, sizeof(*a));
	if (syscall(SYS_sched_getattr, tid, a, KATTR_SIZE_VER2, 0) < 0)
		return -errno;
	return 0;
}

/* The process's oom_score_adj file, opened for reading or writing. */
static int
open_oom(const char *procroot, pid_t pid, int flags)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%d/oom_score_adj", procroot, (int)pid);
	int fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? (errno == ENOENT ? -ESRCH : -errno) : fd;
}

static int
get_oom(const char *procroot, pid_t pid, int *out)
{
	char buf[32];
	int fd = open_oom(procroot, pid, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf) - 1);
	int err = errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? -err : -ESRCH;
	buf[n] = '\0';
	*out = (int)strtol(buf, NULL, 10);
	return 0;
}

int
taskprio_get(const char *procroot, pid_t pid, pid_t tid, unsigned int what, struct prio *out)
{
	struct kattr a;
	int rc;

	memset(out, 0, sizeof(*out));
	if (what & (PRIO_NICE | PRIO_SCHED | PRIO_RTPRIO | PRIO_LATENCY)) {
		if ((rc = get_attr(tid, &a)) < 0)
			return rc;
		out->nice = a.nice;
		out->sched = (int)a.policy;
		out->rtprio = (int)a.priority;
		out->set |= PRIO_NICE | PRIO_SCHED | PRIO_RTPRIO;
		if (a.size >= KATTR_SIZE_VER2) {
			out->latency_nice = a.latency_nice;
			out->set |= PRIO_LATENCY;
		}
	}
	if (what & (PRIO_IOCLASS | PRIO_IONICE)) {
		long v = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, tid);

		if (v < 0)
			return -errno;
		out->ioclass = (int)(v >> IOPRIO_CLASS_SHIFT);
		out->ionice = (int)(v & 7);
		out->set |= PRIO_IOCLASS | PRIO_IONICE;
	}
	if ((what & PRIO_OOM) && tid == pid) {
		if ((rc = get_oom(procroot, pid, &out->oom_score_adj)) < 0)
			return rc;
		out->set |= PRIO_OOM;
	}
	return 0;
}

static int
set_oom(const char *procroot, pid_t pid, int v)
{
	char buf[16];
	int fd = open_oom(procroot, pid, O_WRONLY);
	int n = snprintf(buf, sizeof(buf), "%d\n", v);

	if (fd < 0)
		return fd;
	ssize_t w = write(fd, buf, (size_t)n);
	int err = errno;
	close(fd);
	return w == n ? 0 : w < 0 ? -err : -EIO;
}

static int
set_latency(pid_t tid, int v)
{
	struct kattr a;
	int rc = get_attr(tid, &a);

	if (rc < 0)
		return rc;
	if (a.size < KATTR_SIZE_VER2)
		return -EOPNOTSUPP;
	a.size = KATTR_SIZE_VER2;
	a.flags = KATTR_KEEP_POLICY | KATTR_KEEP_PARAMS | KATTR_LATENCY_NICE;
	a.latency_nice = v;
	if (syscall(SYS_sched_setattr, tid, &a, 0) < 0)
		return -errno;
	return 0;
}

/* The first error of a write, kept. */
static void
keep(int *first, int rc)
{
	if (rc < 0 && *first == 0)
		*first = rc;
}

int
taskprio_set(const char *procroot, pid_t pid, pid_t tid, const struct prio *todo)
{
	int first = 0;

	if (todo->set & (PRIO_SCHED | PRIO_RTPRIO)) {
		struct sched_param sp = { .sched_priority = todo->rtprio };

		keep(&first, sched_setscheduler(tid, todo->sched, &sp) < 0 ? -errno : 0);
	}
	if (todo->set & PRIO_NICE)
		keep(&first, setpriority(PRIO_PROCESS, (id_t)tid, todo->nice) < 0 ? -errno : 0);
	if (todo->set & (PRIO_IOCLASS | PRIO_IONICE)) {
		long v = ((long)todo->ioclass << IOPRIO_CLASS_SHIFT) | todo->ionice;

		keep(&first,
		     syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, tid, v) < 0 ? -errno : 0);
	}
	if ((todo->set & PRIO_OOM) && tid == pid)
		keep(&first, set_oom(procroot, pid, todo->oom_score_adj));
	if (todo->set & PRIO_LATENCY)
		keep(&first, set_latency(tid, todo->latency_nice));
	return first;
}

int
task_foreach_thread(const char *procroot, pid_t pid, int (*fn)(void *arg, pid_t tid),
		    void *arg)
{
	char path[128];
	struct dirent *e;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%d/task", procroot, (int)pid);
	DIR *d = opendir(path);
	if (d == NULL)
		return errno == ENOENT ? -ESRCH : -errno;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);

		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && *end == '\0')
			rc = fn(arg, (pid_t)tid);
	}
	closedir(d);
	return rc;
}
