/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * testenv.c -- see testenv.h.
 */
#include "testenv.h"
#include "util/util.h"
#include "tests/tap/tap.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *
testenv_unavailable(void)
{
	static char reason[128];
	struct testhier h;
	int rc;

	if (geteuid() != 0)
		return "needs root";
	if ((rc = testenv_mount(&h, "probe")) < 0) {
		snprintf(reason, sizeof(reason), "cannot mount a cgroup v1 hierarchy: %s",
			 strerror(-rc));
		return reason;
	}
	if (testenv_umount(&h) < 0)
		return "a probe hierarchy stayed in /proc/self/cgroup after unmount";
	return NULL;
}

int
testenv_mount(struct testhier *h, const char *tag)
{
	char opts[128];
	static int seq;

	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "cgetest_%d_%s%d", (int)getpid(), tag, seq++);
	snprintf(h->dir, sizeof(h->dir), "/tmp/%s.XXXXXX", h->name);
	if (mkdtemp(h->dir) == NULL)
		return -errno;
	snprintf(opts, sizeof(opts), "none,name=%s", h->name);
	if (mount("cgroup", h->dir, "cgroup", 0, opts) < 0) {
		int e = errno;
		rmdir(h->dir);
		return -e;
	}
	h->mounted = true;
	return 0;
}

/* Move the processes of the group at dir back to the root at root. */
static void
to_root(const char *root, const char *dir)
{
	char path[4200], pid[32];
	FILE *in, *out;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if ((in = fopen(path, "re")) == NULL)
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", root);
	while (fgets(pid, sizeof(pid), in) != NULL) {
		if ((out = fopen(path, "we")) == NULL)
			break;
		fputs(pid, out);
		fclose(out); /* a process that has just exited is refused: fine */
	}
	fclose(in);
}

/* Empty and remove the groups below dir, deepest first; how many are
 * left.  Counts the groups found in *seen. */
static int
remove_below(const char *root, const char *dir, int *seen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int left = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char sub[4096];

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		(*seen)++;
		left += remove_below(root, sub, seen);
		to_root(root, sub);
		if (rmdir(sub) < 0)
			left++;
	}
	closedir(d);
	return left;
}

/* Is a hierarchy called name still known to the kernel? */
static bool
hier_alive(const char *name)
{
	char line[4096], want[128];
	FILE *f = fopen("/proc/self/cgroup", "re");
	bool alive = false;

	if (f == NULL)
		return false;
	snprintf(want, sizeof(want), ":name=%s:", name);
	while (!alive && fgets(line, sizeof(line), f) != NULL)
		alive = strstr(line, want) != NULL;
	fclose(f);
	return alive;
}

/* Wait up to seconds for the hierarchy called name to leave the kernel. */
static bool
hier_gone(const char *name, double seconds)
{
	double end = mono_s() + seconds;

	while (hier_alive(name)) {
		if (mono_s() >= end)
			return false;
		usleep(20000);
	}
	return true;
}

/*
 * The kernel destroys a v1 hierarchy at unmount only if no child group
 * is left, and a removed group stays one while it is dying (usually
 * well under half a second after its rmdir, more on a loaded machine);
 * unmounted too early, the hierarchy lives on in every /proc/PID/cgroup.
 * Dying groups do not show while it is mounted: give them time, unmount,
 * and the hierarchy must leave /proc/self/cgroup within a moment (its
 * destruction is asynchronous); while it does not, mount it again (the
 * kernel hands back the same one), wait, and unmount again.
 * tests/lib/v1hier.sh does the same for the shell tests.
 */
int
testenv_umount(struct testhier *h)
{
	char opts[128];
	double end;
	int seen = 0;

	if (!h->mounted)
		return 0;
	end = mono_s() + 30;
	while (remove_below(h->dir, h->dir, &seen) > 0 && mono_s() < end)
		usleep(50000); /* tasks still exiting */
	if (seen > 0)
		usleep(500000); /* for the groups just removed to die */
	snprintf(opts, sizeof(opts), "none,name=%s", h->name);
	end = mono_s() + 60;
	for (;;) {
		if (umount(h->dir) < 0)
			fprintf(stderr, "# umount %s: %s\n", h->dir, strerror(errno));
		if (hier_gone(h->name, 2) || mono_s() >= end ||
		    mount("cgroup", h->dir, "cgroup", 0, opts) < 0)
			break;
		usleep(500000);
	}
	rmdir(h->dir);
	h->mounted = false;
	if (hier_alive(h->name)) {
		fprintf(stderr, "# hierarchy name=%s is still in /proc/self/cgroup\n", h->name);
		return -EBUSY;
	}
	return 0;
}

pid_t
testenv_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

void
testenv_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

const char *
testenv_cgroup_of(pid_t pid, const char *key, char *buf, size_t len)
{
	char path[64], line[4096];
	const char *found = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (c2 == NULL)
			continue;
		*c2 = '\0';
		if (strcmp(c1 + 1, key) == 0) {
			c2[strcspn(c2 + 1, "\n") + 1] = '\0';
			snprintf(buf, len, "%s", c2 + 1);
			found = buf;
			break;
		}
	}
	fclose(f);
	return found;
}

void
testenv_put_file(const char *root, const char *rel, const char *text, size_t len)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if ((f = fopen(path, "w")) == NULL || fwrite(text, 1, len, f) != len)
		bail("cannot write %s", path);
	fclose(f);
}

void
testenv_link(const char *root, const char *rel, const char *target)
{
	char from[8192], to[8192];

	snprintf(from, sizeof(from), "%s/%s", root, target);
	snprintf(to, sizeof(to), "%s/%s", root, rel);
	if (symlink(from, to) < 0)
		bail("symlink %s", to);
}

void
testenv_fake_task(const char *root, int pid, const char *status, const char *exe,
		  const char *cwd, const char *fs)
{
	char rel[128], fd[8192];

	snprintf(rel, sizeof(rel), "%d/status", pid);
	testenv_put_file(root, rel, status, strlen(status));
	snprintf(rel, sizeof(rel), "%d/exe", pid);
	testenv_link(root, rel, exe);
	snprintf(rel, sizeof(rel), "%d/cwd", pid);
	testenv_link(root, rel, cwd);
	snprintf(rel, sizeof(rel), "%d/root", pid);
	testenv_link(root, rel, fs);
	snprintf(fd, sizeof(fd), "%s/%d/fd", root, pid);
	if (mkdir(fd, 0755) < 0)
		bail("mkdir %s", fd);
}
