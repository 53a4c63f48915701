/*
 * task.c -- snapshots of tasks from /proc/PID.
 *
 * A snapshot costs one read of status, one readlink of exe and, only
 * for interpreters, one read of cmdline.  ENOENT and ESRCH from /proc
 * mean the task exited meanwhile; both are reported as -ESRCH.
 */
#include "kernel_private.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t
read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

static int
gone(int rc)
{
	return rc == -ENOENT || rc == -ESRCH ? -ESRCH : rc;
}

/* Parse "Key:\tA\tB..." numbers into v (up to max); returns count. */
static size_t
parse_ids(const char *s, uint32_t *v, size_t max)
{
	size_t n = 0;

	while (n < max) {
		char *end;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!isdigit((unsigned char)*s))
			break;
		v[n++] = (uint32_t)strtoul(s, &end, 10);
		s = end;
	}
	return n;
}

static void
parse_status(char *text, struct task *t)
{
	bool have_kthread = false;
	uint32_t ids[4];

	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (strncmp(line, "Name:\t", 6) == 0) {
			snprintf(t->comm, sizeof(t->comm), "%s", line + 6);
		} else if (strncmp(line, "PPid:", 5) == 0) {
			t->ppid = (pid_t)strtol(line + 5, NULL, 10);
		} else if (strncmp(line, "Uid:", 4) == 0 &&
			   parse_ids(line + 4, ids, 4) >= 2) {
			t->uid = ids[0];
			t->euid = ids[1];
		} else if (strncmp(line, "Gid:", 4) == 0 &&
			   parse_ids(line + 4, ids, 4) >= 2) {
			t->gid = ids[0];
			t->egid = ids[1];
		} else if (strncmp(line, "Groups:", 7) == 0) {
			t->ngroups = parse_ids(line + 7, t->groups, TASK_GROUPS_MAX);
		} else if (strncmp(line, "Kthread:", 8) == 0) {
			have_kthread = true;
			t->kthread = strtol(line + 8, NULL, 10) == 1;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!have_kthread) /* older kernels: children of kthreadd */
		t->kthread = t->pid == 2 || t->ppid == 2;
}

static const char *const interpreters[] = {
	"sh",	  "bash", "dash", "zsh", "ksh",	 "mksh", "csh",	  "tcsh", "fish",
	"python", "perl", "ruby", "lua", "node", "php",	 "tclsh", "wish", NULL,
};

/* Is basename b an interpreter, allowing a version suffix (python3.11)? */
static bool
is_interpreter(const char *b)
{
	for (size_t i = 0; interpreters[i] != NULL; i++) {
		size_t n = strlen(interpreters[i]);

		if (strncmp(b, interpreters[i], n) != 0)
			continue;
		const char *rest = b + n;
		while (isdigit((unsigned char)*rest) || *rest == '.')
			rest++;
		if (*rest == '\0')
			return true;
	}
	return false;
}

void
task_script_from_cmdline(const char *exe, const char *cmdline, size_t len, char *out,
			 size_t outlen)
{
	const char *slash = strrchr(exe, '/');
	const char *end = cmdline + len;
	const char *arg = cmdline;

	out[0] = '\0';
	if (!is_interpreter(slash ? slash + 1 : exe))
		return;
	arg += strnlen(arg, (size_t)(end - arg)) + 1; /* skip argv[0] */
	while (arg < end && *arg != '\0') {
		size_t n = strnlen(arg, (size_t)(end - arg));

		if (strcmp(arg, "-c") == 0)
			return; /* a command string, not a script */
		if (strcmp(arg, "--") == 0) {
			arg += n + 1;
			break;
		}
		if (arg[0] != '-')
			break;
		arg += n + 1;
	}
	if (arg < end && *arg != '\0')
		snprintf(out, outlen, "%.*s", (int)strnlen(arg, (size_t)(end - arg)),
			 arg);
}

static void
read_script(const char *procroot, pid_t pid, struct task *t)
{
	char path[128], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/cmdline", procroot, (int)pid);
	if ((n = read_file(path, buf, sizeof(buf))) > 0)
		task_script_from_cmdline(t->exe, buf, (size_t)n, t->script,
					 sizeof(t->script));
}

static void
read_exe(const char *procroot, pid_t pid, struct task *t)
{
	static const char deleted[] = " (deleted)";
	char path[128];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/exe", procroot, (int)pid);
	n = readlink(path, t->exe, sizeof(t->exe) - 1);
	if (n < 0)
		n = 0; /* kernel thread, or a zombie */
	t->exe[n] = '\0';
	size_t dl = sizeof(deleted) - 1;
	if ((size_t)n > dl && strcmp(t->exe + n - dl, deleted) == 0)
		t->exe[n - dl] = '\0'; /* binary replaced by an upgrade */
}

int
task_read(const char *procroot, pid_t pid, unsigned what, struct task *t)
{
	char path[128], buf[4096];
	ssize_t n;

	memset(t, 0, offsetof(struct task, exe));
	t->exe[0] = t->script[0] = '\0';
	t->pid = pid;
	snprintf(path, sizeof(path), "%s/%d/status", procroot, (int)pid);
	if ((n = read_file(path, buf, sizeof(buf))) < 0)
		return gone((int)n);
	parse_status(buf, t);
	if (t->kthread)
		return 0;
	if (what & TASK_EXE)
		read_exe(procroot, pid, t);
	if ((what & TASK_SCRIPT) && t->exe[0] != '\0')
		read_script(procroot, pid, t);
	if (what & TASK_RT) {
		int pol = sched_getscheduler(pid);

		t->realtime = pol == SCHED_FIFO || pol == SCHED_RR;
	}
	return 0;
}

int
task_read_cmdline(const char *procroot, pid_t pid, char *buf, size_t len)
{
	char path[128];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/cmdline", procroot, (int)pid);
	n = read_file(path, buf, len);
	return n < 0 ? gone((int)n) : (int)n;
}

int
task_start_time(const char *procroot, pid_t pid, uint64_t *start)
{
	char path[128], buf[1024];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/stat", procroot, (int)pid);
	if ((n = read_file(path, buf, sizeof(buf))) < 0)
		return gone((int)n);
	/* the command name may hold blanks and parentheses: skip past the last ')' */
	char *s = strrchr(buf, ')');
	if (s == NULL)
		return -EBADMSG;
	s++;
	for (int field = 3; field < 22; field++) {
		s = strchr(s + 1, ' ');
		if (s == NULL)
			return -EBADMSG;
	}
	*start = strtoull(s + 1, NULL, 10);
	return 0;
}

int
task_parse_cgroups(const char *text, size_t len, struct task_cgroups *out)
{
	if (len >= sizeof(out->buf))
		len = sizeof(out->buf) - 1;
	memmove(out->buf, text, len); /* text may be out->buf itself */
	out->buf[len] = '\0';
	out->n = 0;
	for (char *line = out->buf; line && *line;) {
		char *nl = strchr(line, '\n');
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (nl)
			*nl = '\0';
		if (nl == NULL && len == sizeof(out->buf) - 1)
			break; /* a line cut by the buffer's end: drop it */
		if (c2 == NULL || (nl && c2 > nl))
			return -EBADMSG;
		*c2 = '\0';
		if (out->n < sizeof(out->v) / sizeof(out->v[0])) {
			out->v[out->n].hier = c1 + 1;
			out->v[out->n].path = c2 + 1;
			out->n++;
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

int
task_read_cgroups(const char *procroot, pid_t pid, struct task_cgroups *out)
{
	char path[128];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/cgroup", procroot, (int)pid);
	if ((n = read_file(path, out->buf, sizeof(out->buf))) < 0)
		return gone((int)n);
	return task_parse_cgroups(out->buf, (size_t)n, out);
}

const char *
task_cgroup_of(const struct task_cgroups *cg, const char *hier)
{
	for (size_t i = 0; i < cg->n; i++)
		if (strcmp(cg->v[i].hier, hier) == 0)
			return cg->v[i].path;
	return NULL;
}

int
task_foreach(const char *procroot, int (*fn)(void *arg, pid_t pid), void *arg)
{
	DIR *d = opendir(procroot);
	struct dirent *e;
	int rc = 0;

	if (d == NULL)
		return -errno;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end == '\0' && pid > 0)
			rc = fn(arg, (pid_t)pid);
	}
	closedir(d);
	return rc;
}

/* ---- process identity ------------------------------------------------------ */

int
task_procid(const char *procroot, pid_t pid, struct procid *id)
{
	int rc = task_start_time(procroot, pid, &id->start);

	id->pid = pid;
	return rc;
}

bool
task_alive(const char *procroot, struct procid id)
{
	struct procid now;

	return task_procid(procroot, id.pid, &now) == 0 && procid_eq(now, id);
}

int
task_threads(const char *procroot, pid_t pid)
{
	char path[128], buf[16384];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/status", procroot, (int)pid);
	if ((n = read_file(path, buf, sizeof(buf))) < 0)
		return gone((int)n);
	const char *s = strstr(buf, "\nThreads:");
	if (s == NULL)
		return 1; /* not reported: take it as one */
	long v = strtol(s + 9, NULL, 10);
	return v > 0 ? (int)v : 1;
}
