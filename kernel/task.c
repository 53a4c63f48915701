/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * task.c -- snapshots of tasks from /proc/PID.
 *
 * A snapshot costs one read of status, one readlink of exe and, only
 * for interpreters and tasks whose command name is not their
 * executable's, one read of cmdline and the checks of the files it
 * names (together bounded in time: cmdline.c) -- less what the caller
 * already knows from an event (struct task_known: the BPF program's
 * exec records say all but the cmdline).  ENOENT and ESRCH from /proc
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
#include <sys/stat.h>
#include <unistd.h>

/*
 * Read file path into buf (NUL-terminated).  A short read ends it:
 * regular files, /proc/PID/cmdline and the one-record seq_files read
 * here (status, stat, cgroup) return less than asked only at their
 * end, so the read(2) that would return 0 is saved -- one system call
 * of every /proc read, several per classification.  (Multi-record
 * seq_files such as cgroup.procs may return short early: only their
 * emptiness is read this way.)
 */
ssize_t
read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		size_t want = len - 1 - got;
		ssize_t n = read(fd, buf + got, want);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			return -e;
		}
		got += (size_t)n;
		if ((size_t)n < want)
			break; /* the end (0 included) */
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

/*
 * "procroot/pid/leaf" into buf, as snprintf("%s/%d/%s") would write it
 * but for a fraction of its cost (several per classification).
 * -ENAMETOOLONG (buf "") when it does not fit.
 */
static int
pid_path(char *buf, size_t len, const char *procroot, pid_t pid, const char *leaf)
{
	char num[STR_UINT_MAX];
	size_t n = str_uint(num, (unsigned)pid), r = strlen(procroot), l = strlen(leaf);

	if (r + n + l + 3 > len) {
		if (len > 0)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(buf, procroot, r);
	buf[r] = '/';
	memcpy(buf + r + 1, num + sizeof(num) - n, n);
	buf[r + 1 + n] = '/';
	memcpy(buf + r + 2 + n, leaf, l + 1);
	return 0;
}

/* procroot/pid/leaf into buf (as read_file): its bytes, -ENAMETOOLONG,
 * -ESRCH if the process is gone, or another -errno. */
static ssize_t
read_pid_file(const char *procroot, pid_t pid, const char *leaf, char *buf, size_t len)
{
	char path[128];
	ssize_t n;

	if (pid_path(path, sizeof(path), procroot, pid, leaf) < 0)
		return -ENAMETOOLONG;
	n = read_file(path, buf, len);
	return n < 0 ? gone((int)n) : n;
}

/* Job j for pid of procroot, whose real uid is uid: its cmdline, and
 * when names is not NULL the files it names too, that task's exe and
 * comm copied in.  0 or -ENAMETOOLONG. */
static int
job_for(struct task_job *j, const char *procroot, pid_t pid, uid_t uid,
	const struct task *names)
{
	if (strlen(procroot) >= sizeof(j->procroot))
		return -ENAMETOOLONG;
	str_copy(j->procroot, sizeof(j->procroot), procroot);
	j->pid = pid;
	j->uid = uid;
	j->names = names != NULL;
	if (names != NULL) {
		str_copy(j->comm, sizeof(j->comm), names->comm);
		str_copy(j->exe, sizeof(j->exe), names->exe);
	}
	return 0;
}

/*
 * The real uid pid's jobs count under (cmdline.c: one stuck job per
 * uid): known, or when that is (uid_t)-1 (an event told none:
 * TASK_KNOW_EXECED alone), read from status -- (uid_t)-1 if it cannot
 * be.  A snapshot may hand off two jobs (its names, its argv[0]): status
 * is read for the first only.
 */
struct job_owner {
	const char *procroot;
	pid_t pid;
	uid_t uid; /* known, or as read once asked */
	bool asked;
};

static uid_t
job_uid(struct job_owner *o)
{
	uid_t uid;

	if (!o->asked && o->uid == (uid_t)-1)
		o->uid = task_real_uid(o->procroot, o->pid, &uid) == 0 ? uid : (uid_t)-1;
	o->asked = true;
	return o->uid;
}

/*
 * procroot/pid/cmdline into buf, as read_pid_file but bounded in time
 * (cmdline.c says why), pid's real uid being uid: -ETIMEDOUT when the
 * read was given up on, and then t->cmdline_timedout set (t may be
 * NULL).
 */
static ssize_t
read_cmdline(const char *procroot, pid_t pid, uid_t uid, char *buf, size_t len,
	     struct task *t)
{
	struct task_job j;
	ssize_t n;

	if (job_for(&j, procroot, pid, uid, NULL) < 0)
		return -ENAMETOOLONG;
	n = cmdline_run(&j, buf, len);
	if (n == -ETIMEDOUT && t != NULL)
		t->cmdline_timedout = true;
	return n < 0 ? gone((int)n) : n;
}

/*
 * Parse "Key:\tA\tB..." numbers into v (up to max); returns count.  A
 * number beyond 32 bits reads as 4294967295 (no id), never wrapped as a
 * cast of strtoul's value would be (4294967296 read as 0, root).
 */
static size_t
parse_ids(const char *s, uint32_t *v, size_t max)
{
	size_t n = 0;

	while (n < max) {
		uint64_t x = 0;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s < '0' || *s > '9')
			break;
		for (; *s >= '0' && *s <= '9'; s++)
			if ((x = x * 10 + (uint64_t)(*s - '0')) > UINT32_MAX)
				x = (uint64_t)UINT32_MAX + 1; /* saturate */
		v[n++] = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
	}
	return n;
}

/*
 * The fields wanted, from the text of /proc/PID/status.  They all come
 * before "Kthread:" (recent kernels), where parsing stops: the ~40 lines
 * after it (memory, signals, capabilities, cpusets) are skipped -- but
 * for "NoNewPrivs:", when nnp asks for it (the exec gate).
 */
static void
parse_status(char *text, struct task *t, bool nnp)
{
	bool have_kthread = false;
	uint32_t ids[4];

	for (char *line = text; line && *line && (!have_kthread || nnp);) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		switch (line[0]) {
		case 'P':
			if (strncmp(line, "PPid:", 5) == 0)
				t->ppid = (pid_t)strtol(line + 5, NULL, 10);
			break;
		case 'T':
			if (strncmp(line, "Tgid:", 5) == 0)
				t->tgid = (pid_t)strtol(line + 5, NULL, 10);
			break;
		case 'U':
			if (strncmp(line, "Uid:", 4) == 0 &&
			    parse_ids(line + 4, ids, 4) >= 2) {
				t->uid = ids[0];
				t->euid = ids[1];
			}
			break;
		case 'G':
			if (strncmp(line, "Gid:", 4) == 0 &&
			    parse_ids(line + 4, ids, 4) >= 2) {
				t->gid = ids[0];
				t->egid = ids[1];
			} else if (strncmp(line, "Groups:", 7) == 0) {
				t->ngroups =
					parse_ids(line + 7, t->groups, TASK_GROUPS_MAX);
			}
			break;
		case 'N':
			if (strncmp(line, "Name:\t", 6) == 0)
				str_copy(t->comm, sizeof(t->comm), line + 6);
			else if (nnp && strncmp(line, "NoNewPrivs:", 11) == 0) {
				t->no_new_privs = strtol(line + 11, NULL, 10) == 1;
				nnp = false; /* the last line wanted */
			}
			break;
		case 'K':
			if (strncmp(line, "Kthread:", 8) == 0) {
				have_kthread = true;
				t->kthread = strtol(line + 8, NULL, 10) == 1;
			}
			break;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!have_kthread) /* older kernels: children of kthreadd */
		t->kthread = t->pid == 2 || t->ppid == 2;
}

/* in one block of 136 bytes, no pointers to follow: it is looked
 * through at every exec whose name is checked */
static const char interpreters[][8] = {
	"sh",	  "bash", "dash", "zsh", "ksh",	 "mksh", "csh",	  "tcsh", "fish",
	"python", "perl", "ruby", "lua", "node", "php",	 "tclsh", "wish",
};

/* Is basename b an interpreter, allowing a version suffix (python3.11)? */
static bool
is_interpreter(const char *b)
{
	for (size_t i = 0; i < sizeof(interpreters) / sizeof(interpreters[0]); i++) {
		if (b[0] != interpreters[i][0])
			continue; /* (most names: no strlen below) */
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

/*
 * The argument an interpreter would run as its script: the first after
 * argv[0] that is not an option.  Returns it (inside cmdline) and its
 * index, or NULL.
 */
static const char *
script_arg(const char *exe, const char *cmdline, size_t len, int *index)
{
	const char *slash = strrchr(exe, '/');
	const char *end = cmdline + len;
	const char *arg = cmdline;
	int i = 1;

	if (!is_interpreter(slash ? slash + 1 : exe))
		return NULL;
	arg += strnlen(arg, (size_t)(end - arg)) + 1; /* skip argv[0] */
	for (; arg < end && *arg != '\0'; i++) {
		size_t n = strnlen(arg, (size_t)(end - arg));

		if (strcmp(arg, "-c") == 0)
			return NULL; /* a command string, not a script */
		if (strcmp(arg, "--") == 0) {
			arg += n + 1;
			i++;
			break;
		}
		if (arg[0] != '-')
			break;
		arg += n + 1;
	}
	if (arg >= end || *arg == '\0' ||
	    strnlen(arg, (size_t)(end - arg)) == (size_t)(end - arg))
		return NULL; /* none, or cut short by the buffer */
	*index = i;
	return arg;
}

void
task_script_from_cmdline(const char *exe, const char *cmdline, size_t len, char *out,
			 size_t outlen)
{
	int i;
	const char *arg = script_arg(exe, cmdline, len, &i);

	snprintf(out, outlen, "%s", arg ? arg : "");
}

/* Argument i of a NUL-separated command line, or NULL. */
static const char *
nth_arg(const char *cmdline, size_t len, int i)
{
	const char *end = cmdline + len, *arg = cmdline;

	for (; i > 0 && arg < end; i--)
		arg += strnlen(arg, (size_t)(end - arg)) + 1;
	return arg < end && strnlen(arg, (size_t)(end - arg)) < (size_t)(end - arg)
		       ? arg
		       : NULL;
}

/*
 * File f as the task sees it: under its root when absolute, under its
 * working directory when relative.
 */
static int
task_view(const char *procroot, pid_t pid, const char *f, char *out, size_t len)
{
	int n = snprintf(out, len, "%s/%d/%s/%s", procroot, (int)pid,
			 f[0] == '/' ? "root" : "cwd", f[0] == '/' ? f + 1 : f);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Does the task hold the file st open?  Looks at its first 1024 fds. */
static bool
holds_open(const char *procroot, pid_t pid, const struct stat *st)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat fst;
	bool found = false;
	int seen = 0;

	snprintf(path, sizeof(path), "%s/%d/fd", procroot, (int)pid);
	DIR *d = opendir(path);
	if (d == NULL)
		return false;
	while (!found && seen < 1024 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		seen++;
		snprintf(path, sizeof(path), "%s/%d/fd/%s", procroot, (int)pid,
			 e->d_name);
		found = stat(path, &fst) == 0 && same_file(&fst, st);
	}
	closedir(d);
	return found;
}

/*
 * The optional argument of the #! line of file path into arg ("" if
 * none), as the kernel splits it.  False if the file has no #! line.
 */
static bool
shebang_arg(const char *path, char *arg, size_t len)
{
	char line[256];
	ssize_t n = read_file(path, line, sizeof(line));

	if (n < 2 || line[0] != '#' || line[1] != '!')
		return false;
	line[strcspn(line, "\n")] = '\0';
	char *s = line + 2;
	s += strspn(s, " \t");
	s += strcspn(s, " \t"); /* the interpreter */
	s += strspn(s, " \t");
	size_t end = strlen(s);
	while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	snprintf(arg, len, "%.*s", (int)end, s);
	return true;
}

/*
 * Does the task run file `arg`, argument `index` of its command line?
 * Yes when it holds the file open, or when the file starts with a #!
 * line and the command line is the one the kernel builds for it
 * (script first, or after the #! line's own option).  With first set,
 * any existing file given as the first argument counts too (what an
 * interpreter is given first, it runs).
 */
static bool
runs_file(const char *procroot, pid_t pid, const char *cmdline, size_t len,
	  const char *arg, int index, bool first)
{
	char path[PATH_MAX], opt[256];
	struct stat st;

	if (task_view(procroot, pid, arg, path, sizeof(path)) < 0 ||
	    stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	if (index == 1 && first)
		return true;
	if (holds_open(procroot, pid, &st))
		return true;
	if (!shebang_arg(path, opt, sizeof(opt)))
		return false;
	if (index == 1)
		return true;
	const char *a1 = nth_arg(cmdline, len, 1);
	return index == 2 && opt[0] != '\0' && a1 != NULL && strcmp(a1, opt) == 0;
}

static void
find_script(struct task_job *j, const char *cmdline, size_t len)
{
	int index;
	const char *arg = script_arg(j->exe, cmdline, len, &index);

	if (arg != NULL && runs_file(j->procroot, j->pid, cmdline, len, arg, index, true))
		snprintf(j->script, sizeof(j->script), "%s", arg);
}

#define COMM_CMP 15 /* the kernel keeps 15 bytes of a command name */

/* Is arg, named by comm, a link to exe or a script the task runs? */
static bool
believe_invoked(const struct task_job *j, const char *cmdline, size_t len,
		const char *arg, int index)
{
	char path[PATH_MAX];
	struct stat st, est;

	if (j->script[0] != '\0' && strcmp(arg, j->script) == 0)
		return true;
	if (pid_path(path, sizeof(path), j->procroot, j->pid, "exe") == 0 &&
	    stat(path, &est) == 0 &&
	    task_view(j->procroot, j->pid, arg, path, sizeof(path)) == 0 &&
	    stat(path, &st) == 0 && same_file(&st, &est))
		return true;
	return runs_file(j->procroot, j->pid, cmdline, len, arg, index, false);
}

/*
 * libcgroup's process name: exe when comm is its basename; otherwise the
 * first argument whose basename comm is, if it is believed (absolute as
 * given, or resolved from the task's working directory); otherwise exe.
 */
static void
find_invoked(struct task_job *j, const char *cmdline, size_t len)
{
	const char *slash = strrchr(j->exe, '/');
	const char *arg = NULL;
	char path[PATH_MAX], real[PATH_MAX];
	int index = 0;

	snprintf(j->invoked, sizeof(j->invoked), "%s", j->exe);
	if (strncmp(j->comm, slash ? slash + 1 : j->exe, COMM_CMP) == 0)
		return;
	for (const char *a; (a = nth_arg(cmdline, len, index)) != NULL; index++) {
		const char *b = strrchr(a, '/');

		if (a[0] != '\0' && strncmp(j->comm, b ? b + 1 : a, COMM_CMP) == 0) {
			arg = a;
			break;
		}
	}
	if (arg == NULL || !believe_invoked(j, cmdline, len, arg, index))
		return;
	if (arg[0] == '/')
		snprintf(j->invoked, sizeof(j->invoked), "%s", arg);
	else if (task_view(j->procroot, j->pid, arg, path, sizeof(path)) == 0 &&
		 realpath(path, real) != NULL)
		snprintf(j->invoked, sizeof(j->invoked), "%s", real);
}

ssize_t
task_job_run(struct task_job *j, char *buf, size_t len)
{
	char path[128];
	ssize_t n;

	if (j->names) { /* as for a task without a command line */
		j->script[0] = '\0';
		str_copy(j->invoked, sizeof(j->invoked), j->exe);
	}
	if (pid_path(path, sizeof(path), j->procroot, j->pid, "cmdline") < 0)
		return -ENAMETOOLONG;
	if ((n = read_file(path, buf, len)) <= 0 || !j->names)
		return n;
	find_script(j, buf, (size_t)n);
	find_invoked(j, buf, (size_t)n);
	return n;
}

/*
 * Script and invoked name of owner's task (its procroot and pid), when
 * either needs the command line: its read and the checks of the files
 * it names, all of which the task's owner can make block (a FUSE server
 * that never answers, a lease on the script), are one job for a worker
 * (cmdline.c).  Without them (unreadable, or given up on: then
 * t->cmdline_timedout) no script, invoked = exe.
 */
static void
read_names(struct job_owner *owner, struct task *t)
{
	const char *slash = strrchr(t->exe, '/');
	const char *b = slash ? slash + 1 : t->exe;
	struct task_job j;
	ssize_t n;

	str_copy(t->invoked, sizeof(t->invoked), t->exe);
	if (!is_interpreter(b) && strncmp(t->comm, b, COMM_CMP) == 0)
		return;
	if (job_for(&j, owner->procroot, owner->pid, job_uid(owner), t) < 0)
		return;
	/* the cmdline's first 4 KiB, as ever: no argument past them is looked at */
	if ((n = cmdline_run(&j, NULL, 4096)) == -ETIMEDOUT)
		t->cmdline_timedout = true;
	if (n <= 0)
		return;
	str_copy(t->script, sizeof(t->script), j.script);
	str_copy(t->invoked, sizeof(t->invoked), j.invoked);
}

static void
read_exe(const char *procroot, pid_t pid, struct task *t)
{
	static const char deleted[] = " (deleted)";
	char path[128];
	ssize_t n;

	n = pid_path(path, sizeof(path), procroot, pid, "exe") < 0
		    ? -1
		    : readlink(path, t->exe, sizeof(t->exe) - 1);
	if (n < 0)
		n = 0; /* kernel thread, or a zombie */
	t->exe[n] = '\0';
	size_t dl = sizeof(deleted) - 1;
	if ((size_t)n > dl && strcmp(t->exe + n - dl, deleted) == 0)
		t->exe[n - dl] = '\0'; /* binary replaced by an upgrade */
}

/* String src of an array of slen bytes into dst (dlen bytes). */
static void
copy_known(char *dst, size_t dlen, const char *src, size_t slen)
{
	size_t n = strnlen(src, slen);

	if (n >= dlen)
		n = dlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void
task_known_copy(struct task_known *dst, const struct task_known *src)
{
	size_t ng = src->ngroups < TASK_KNOWN_GROUPS ? src->ngroups : TASK_KNOWN_GROUPS;
	size_t nv1 = src->nv1 < TASK_KNOWN_V1 ? src->nv1 : TASK_KNOWN_V1;

	memcpy(dst, src, offsetof(struct task_known, groups));
	memcpy(dst->groups, src->groups, ng * sizeof(src->groups[0]));
	dst->realtime = src->realtime;
	dst->cgroup_id = src->cgroup_id;
	dst->nv1 = src->nv1;
	memcpy(dst->v1, src->v1, nv1 * sizeof(src->v1[0]));
	memcpy(dst->comm, src->comm, sizeof(src->comm));
	copy_known(dst->argv0, sizeof(dst->argv0), src->argv0, sizeof(src->argv0));
	copy_known(dst->exe, sizeof(dst->exe), src->exe, sizeof(src->exe));
}

/* The exe link, or the path k gives. */
static void
get_exe(const char *procroot, pid_t pid, const struct task_known *k, struct task *t)
{
	if (k != NULL && (k->have & TASK_KNOW_EXE))
		copy_known(t->exe, sizeof(t->exe), k->exe, sizeof(k->exe));
	else
		read_exe(procroot, pid, t);
}

/* Credentials, comm and ppid from k, when k gives them all (and the
 * whole group list): then status need not be read.  True if it did. */
static bool
from_known(const struct task_known *k, pid_t pid, struct task *t)
{
	unsigned all = TASK_KNOW_CREDS | TASK_KNOW_COMM | TASK_KNOW_PPID;

	if ((k->have & all) != all || k->ngroups > TASK_KNOWN_GROUPS)
		return false;
	t->tgid = pid;
	t->ppid = k->ppid;
	t->uid = k->uid;
	t->euid = k->euid;
	t->gid = k->gid;
	t->egid = k->egid;
	t->ngroups = k->ngroups;
	memcpy(t->groups, k->groups, k->ngroups * sizeof(t->groups[0]));
	copy_known(t->comm, sizeof(t->comm), k->comm, sizeof(k->comm));
	return true;
}

/* uid and euid from k (TASK_KNOW_UIDS; none with TASK_KNOW_EXECED
 * alone), comm from k or the comm file. */
static int
from_known_ids(const char *procroot, pid_t pid, const struct task_known *k, struct task *t)
{
	bool ids = k->have & (TASK_KNOW_UIDS | TASK_KNOW_CREDS);
	ssize_t n;

	if (k->have & TASK_KNOW_COMM) {
		copy_known(t->comm, sizeof(t->comm), k->comm, sizeof(k->comm));
	} else {
		if ((n = read_pid_file(procroot, pid, "comm", t->comm, sizeof(t->comm))) < 0)
			return (int)n;
		t->comm[strcspn(t->comm, "\n")] = '\0';
	}
	t->uid = ids ? k->uid : (uid_t)-1;
	t->euid = ids ? k->euid : (uid_t)-1;
	t->gid = t->egid = (gid_t)-1;
	return 0;
}

/* The credentials, comm, ppid and kernel thread flag: from k when it
 * has them all, else from status -- or comm when k has uid and euid
 * alone (or credentials with a list of groups cut short), or says the
 * task exec'd and no credential is wanted (TASK_KNOW_EXECED). */
static int
read_creds(const char *procroot, pid_t pid, unsigned what, const struct task_known *k,
	   struct task *t)
{
	char buf[4096];
	ssize_t n;

	if (k != NULL && !(what & TASK_NNP)) {
		bool whole = (k->have & TASK_KNOW_CREDS) && k->ngroups <= TASK_KNOWN_GROUPS;

		if (from_known(k, pid, t))
			return 0;
		if (!whole && (k->have & (TASK_KNOW_UIDS | TASK_KNOW_CREDS | TASK_KNOW_EXECED)))
			return from_known_ids(procroot, pid, k, t);
	}
	if ((n = read_pid_file(procroot, pid, "status", buf, sizeof(buf))) < 0)
		return (int)n;
	parse_status(buf, t, what & TASK_NNP);
	return 0;
}

int
task_read(const char *procroot, pid_t pid, unsigned what, struct task *t)
{
	return task_read_known(procroot, pid, what, NULL, t);
}

int
task_read_known(const char *procroot, pid_t pid, unsigned what, const struct task_known *k,
		struct task *t)
{
	int rc;

	memset(t, 0, offsetof(struct task, groups)); /* not the 1 KiB of groups past ngroups */
	t->comm[0] = t->exe[0] = t->script[0] = t->invoked[0] = t->argv0[0] = '\0';
	t->pid = pid;
	if ((rc = read_creds(procroot, pid, what, k, t)) < 0)
		return rc;
	if (t->kthread)
		return 0;
	struct job_owner owner = { .procroot = procroot, .pid = pid, .uid = t->uid };

	if (what & TASK_EXE)
		get_exe(procroot, pid, k, t);
	if ((what & TASK_SCRIPT) && t->exe[0] != '\0')
		read_names(&owner, t);
	/* from k when it tells it; not read again when the read for the
	 * script was given up on */
	if ((what & TASK_ARGV0) && k != NULL && (k->have & TASK_KNOW_ARGV0))
		copy_known(t->argv0, sizeof(t->argv0), k->argv0, sizeof(k->argv0));
	else if ((what & TASK_ARGV0) &&
		 (t->cmdline_timedout ||
		  read_cmdline(procroot, pid, job_uid(&owner), t->argv0, sizeof(t->argv0), t) <= 0))
		t->argv0[0] = '\0';
	if ((what & TASK_ARGV0) && t->argv0[0] == '\0' && !(what & TASK_EXE))
		get_exe(procroot, pid, k, t);
	if ((what & TASK_RT) && k != NULL && (k->have & TASK_KNOW_RT)) {
		t->realtime = k->realtime;
	} else if (what & TASK_RT) {
		int pol = sched_getscheduler(pid);

		t->realtime = pol == SCHED_FIFO || pol == SCHED_RR;
	}
	return 0;
}

int
task_real_uid(const char *procroot, pid_t pid, uid_t *uid)
{
	char path[128], buf[512]; /* "Uid:" is the ninth line */
	uint32_t id;
	int rc = pid_path(path, sizeof(path), procroot, pid, "status");
	ssize_t n = rc < 0 ? rc : read_file(path, buf, sizeof(buf));
	const char *line = n < 0 ? NULL : strstr(buf, "\nUid:");

	if (n < 0)
		return gone((int)n);
	if (line == NULL || parse_ids(line + 5, &id, 1) != 1)
		return -EIO;
	*uid = (uid_t)id;
	return 0;
}

int
task_run_state(const char *procroot, pid_t pid, char *state)
{
	char path[128], buf[512]; /* "State:" is the third line */
	int rc = pid_path(path, sizeof(path), procroot, pid, "status");
	ssize_t n = rc < 0 ? rc : read_file(path, buf, sizeof(buf));
	const char *line = n < 0 ? NULL : strstr(buf, "\nState:");

	if (n < 0)
		return gone((int)n);
	line = line != NULL ? line + strspn(line + 7, " \t") + 7 : NULL;
	if (line == NULL || *line == '\0' || *line == '\n')
		return -EIO;
	*state = *line;
	return 0;
}

int
task_read_cmdline(const char *procroot, pid_t pid, uid_t uid, char *buf, size_t len)
{
	struct job_owner owner = { .procroot = procroot, .pid = pid, .uid = uid };

	return (int)read_cmdline(procroot, pid, job_uid(&owner), buf, len, NULL);
}

/* State (field 3) and start time (field 22) of pid from its stat file. */
static int
read_stat(const char *procroot, pid_t pid, char *state, uint64_t *start)
{
	char buf[1024];
	ssize_t n = read_pid_file(procroot, pid, "stat", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	/* the command name may hold blanks and parentheses: skip past the last ')' */
	char *s = strrchr(buf, ')');
	if (s == NULL || s[1] != ' ' || s[2] == '\0')
		return -EBADMSG;
	*state = s[2];
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
task_start_time(const char *procroot, pid_t pid, uint64_t *start)
{
	char state;

	return read_stat(procroot, pid, &state, start);
}

bool
task_exited(const char *procroot, struct procid id)
{
	char state;
	uint64_t start;

	if (read_stat(procroot, id.pid, &state, &start) < 0 || start != id.start)
		return true;
	return state == 'Z' || state == 'X' || state == 'x';
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
	ssize_t n = read_pid_file(procroot, pid, "cgroup", out->buf, sizeof(out->buf));

	if (n < 0)
		return (int)n;
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
	char buf[16384];
	ssize_t n = read_pid_file(procroot, pid, "status", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	const char *s = strstr(buf, "\nThreads:");
	if (s == NULL)
		return 1; /* not reported: take it as one */
	long v = strtol(s + 9, NULL, 10);
	return v > 0 ? (int)v : 1;
}
