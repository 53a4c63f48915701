/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel_private.h -- helpers shared by the files of kernel/ only.
 */
#ifndef CGENGINE_KERNEL_PRIVATE_H
#define CGENGINE_KERNEL_PRIVATE_H

#include "kernel.h"

#include <limits.h>
#include <stdbool.h>

/* the longest procroot a job takes, its NUL included */
#define TASK_JOB_ROOT_MAX 128

/* Read a whole small file into buf (NUL-terminated); bytes or -errno. */
ssize_t read_file(const char *path, char *buf, size_t len);
/* Write a string to an existing file in one write(2); 0 or -errno. */
int write_file(const char *path, const char *s);
/*
 * What a worker of cmdline.c reads of a task: its /proc/PID/cmdline
 * and, with `names`, the files it names -- the script an interpreter
 * runs and the name the task was started by (task.c's find_script and
 * find_invoked: stat, open, readdir and realpath through the task's
 * cwd, root, fd and exe).  The worker has its own copy: a job given up
 * on touches nothing of its caller's.
 */
struct task_job {
	/* in */
	char procroot[TASK_JOB_ROOT_MAX];
	pid_t pid;
	uid_t uid; /* the task's real uid: one stuck job per uid (cmdline.c) */
	bool names;
	char comm[64];	    /* with names */
	char exe[PATH_MAX]; /* with names */
	/* out, with names: "" and exe without a command line */
	char script[PATH_MAX];
	char invoked[PATH_MAX];
};
/* Do job j in the calling thread (task.c; a worker runs it): the
 * cmdline's bytes into buf (as read_file) or -errno, and with j->names
 * j->script and j->invoked.  Touches j and buf only. */
ssize_t task_job_run(struct task_job *j, char *buf, size_t len);
/* task_job_run() in a worker thread, waited for at most CMDLINE_WAIT_MS
 * (cmdline.c): j's in copied to the worker; when the job ends in time
 * and not with -errno, its out copied back and the cmdline's bytes (at
 * most CMDLINE_READ_MAX - 1) into buf unless it is NULL.  Returns those
 * bytes, -errno, or -ETIMEDOUT when the job did not end in time, or at
 * once when a worker is stuck on a job of j->uid or every worker is. */
ssize_t cmdline_run(struct task_job *j, char *buf, size_t len);

/*
 * The BPF object loaded and attached in a child process (bpfload.c,
 * built with HAVE_BPF): the descriptors the daemon keeps, in this order
 * in fd[] (-1: none -- BPFLOAD_IDS when that program did not load).
 */
enum {
	BPFLOAD_RING,	/* the ring buffer map (events) */
	BPFLOAD_UIDS,	/* the filter's key maps */
	BPFLOAD_GIDS,
	BPFLOAD_NAMES,
	BPFLOAD_ANAMES,
	BPFLOAD_PIDS,	/* the tracked thread groups */
	BPFLOAD_EXEC,	/* the exec program (its run count) */
	BPFLOAD_LINK,	/* its attachment: closing the last descriptor detaches it */
	BPFLOAD_BSS,	/* the program's globals, to map */
	BPFLOAD_DATA,
	BPFLOAD_IDS,	/* the socket filter on uid and gid changes */
	BPFLOAD_NFDS
};
struct bpfload {
	int fd[BPFLOAD_NFDS];
	int ids;		/* 0: BPFLOAD_IDS loaded; else -errno, why not */
	uint32_t cap[4];	/* max_entries of the uids, gids, names, anames maps */
	uint32_t ring_size;	/* the ring buffer's data, a power of two */
	uint32_t bss_size, data_size; /* the globals' maps' value sizes */
};
/* Load in a child, rbsize bytes of ring buffer, with ids the socket
 * filter too (else ids is -EPERM): 0 and *out set, or -errno why the
 * program did not load (-EPROTO: the child died without a word;
 * -EMFILE: the caller had no room for the descriptors it sent). */
int bpfload_run(struct bpfload *out, size_t rbsize, bool ids);
/* Close what *l holds. */
void bpfload_close(struct bpfload *l);

#endif
