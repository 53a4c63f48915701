/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gateprobe.c -- execs of a gated set-user-ID binary that the kernel
 * does not carry out as the exec gate would foresee
 * (tests/daemon/gate-escape-t.sh).  Each reports on one line where the
 * process was in hierarchy NAME ("name=x") at once.
 *
 *   gateprobe efault-exec BIN NAME PROG ARGS...
 *       execve(BIN) with an argv the kernel cannot read (EFAULT, after
 *       the gate), prints "GROUP", then execs PROG ARGS at once
 *   gateprobe efault-fork BIN NAME
 *       the same failed exec, then a fork: prints "GROUP CHILD"; both
 *       sleep 300 s
 *   gateprobe traceme BIN NAME ARG0 ARGS...
 *       a child asks to be traced by this process (unprivileged) and
 *       execs BIN as ARG0 ARGS: at the stop after its exec prints "GROUP EUID
 *       CHILD" of the child, lets it go on and exits
 *
 * Exit status 0 when it went so, 1 otherwise, 2 on bad usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The group of process pid in hierarchy name, into out. */
static void
group_of(pid_t pid, const char *name, char *out, size_t len)
{
	char line[4096], path[64];
	size_t n = strlen(name);
	FILE *f;

	snprintf(out, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *c1 = strchr(line, ':');

		if (c1 == NULL || strncmp(c1 + 1, name, n) != 0 || c1[1 + n] != ':')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(out, len, "%s", c1 + 2 + n);
		break;
	}
	fclose(f);
}

/* The effective uid of pid, or -1. */
static long
euid_of(pid_t pid)
{
	char line[256], path[64];
	long euid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Uid:\t%*u\t%ld", &euid) == 1)
			break;
	fclose(f);
	return euid;
}

/* execve(bin) with argv[1] at address 1: true when it failed with EFAULT. */
static int
exec_efault(const char *bin)
{
	char *argv[] = { "x", (char *)1, NULL };

	syscall(SYS_execve, bin, argv, NULL);
	return errno == EFAULT;
}

static void
doze(void)
{
	struct timespec ts = { 300, 0 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int
efault_exec(char **argv)
{
	char group[1024];
	int failed = exec_efault(argv[2]);

	group_of(getpid(), argv[3], group, sizeof(group));
	printf("%s\n", group);
	fflush(stdout);
	if (!failed)
		return 1;
	execv(argv[4], argv + 4);
	return 1;
}

static int
efault_fork(char **argv)
{
	char group[1024];
	int failed = exec_efault(argv[2]);

	group_of(getpid(), argv[3], group, sizeof(group));
	pid_t child = fork();
	if (child == 0) {
		doze();
		_exit(0);
	}
	printf("%s %d\n", group, (int)child);
	fflush(stdout);
	if (child < 0 || !failed)
		return 1;
	doze();
	return 0;
}

static int
traceme(char **argv)
{
	char group[1024];
	int status;
	pid_t child = fork();

	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(3);
		raise(SIGSTOP);
		execv(argv[2], argv + 4);
		_exit(4);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
		return 1;
	ptrace(PTRACE_CONT, child, NULL, NULL);
	/* the exec's SIGTRAP: it runs the binary now */
	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status) ||
	    WSTOPSIG(status) != SIGTRAP)
		return 1;
	group_of(child, argv[3], group, sizeof(group));
	printf("%s %ld %d\n", group, euid_of(child), (int)child);
	fflush(stdout);
	ptrace(PTRACE_DETACH, child, NULL, NULL);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "efault-exec") == 0)
		return efault_exec(argv);
	if (argc == 4 && strcmp(argv[1], "efault-fork") == 0)
		return efault_fork(argv);
	if (argc >= 5 && strcmp(argv[1], "traceme") == 0)
		return traceme(argv);
	return 2;
}
