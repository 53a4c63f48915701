/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * testenv.c -- see testenv.h.
 */
#include "testenv.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
	testenv_umount(&h);
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

/* Remove the groups below path, deepest first. */
static void
remove_below(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char sub[4096];

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		remove_below(sub);
		for (int i = 0; i < 50 && rmdir(sub) < 0 && errno == EBUSY; i++)
			usleep(20000); /* a dying task may still be listed */
	}
	closedir(d);
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

/*
 * The kernel keeps a v1 hierarchy alive when a child group -- even one
 * just removed and still dying -- exists at unmount time.  So check it
 * is gone, and if not, mount it again, empty it and unmount again.
 */
void
testenv_umount(struct testhier *h)
{
	char opts[128];

	if (!h->mounted)
		return;
	snprintf(opts, sizeof(opts), "none,name=%s", h->name);
	for (int i = 0; i < 50; i++) {
		remove_below(h->dir);
		if (umount(h->dir) < 0)
			fprintf(stderr, "# umount %s: %s\n", h->dir, strerror(errno));
		usleep(100000);
		if (!hier_alive(h->name) || i == 49 ||
		    mount("cgroup", h->dir, "cgroup", 0, opts) < 0)
			break;
	}
	if (hier_alive(h->name))
		fprintf(stderr, "# hierarchy %s could not be released\n", h->name);
	rmdir(h->dir);
	h->mounted = false;
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

static int
run(const char *cmd)
{
	int rc = system(cmd);

	return rc == 0 ? 0 : -1;
}

int
testenv_user_add(const char *name, const char *extra)
{
	char cmd[512];

	testenv_user_del(name);
	snprintf(cmd, sizeof(cmd),
		 "useradd --system --no-create-home --user-group --shell /bin/sh %s%s %s",
		 extra ? "--groups " : "", extra ? extra : "", name);
	return run(cmd);
}

void
testenv_user_del(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "userdel %s >/dev/null 2>&1", name);
	(void)run(cmd);
	snprintf(cmd, sizeof(cmd), "groupdel %s >/dev/null 2>&1", name);
	(void)run(cmd);
}

int
testenv_group_add(const char *name)
{
	char cmd[256];

	testenv_group_del(name);
	snprintf(cmd, sizeof(cmd), "groupadd --system %s", name);
	return run(cmd);
}

void
testenv_group_del(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "groupdel %s >/dev/null 2>&1", name);
	(void)run(cmd);
}
