/*
 * cgfs.c -- groups on cgroupfs: create, configure, move into, remove.
 */
#include "kernel_private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(s);
	ssize_t n;

	if (fd < 0)
		return -errno;
	do
		n = write(fd, s, len);
	while (n < 0 && errno == EINTR);
	int e = n < 0 ? errno : 0;
	close(fd);
	if (n < 0)
		return -e;
	return (size_t)n == len ? 0 : -EIO;
}

/* mount + "/" + path (+ "/" + file); -ENAMETOOLONG if it does not fit. */
static int
join(char *buf, size_t len, const struct hier *h, const char *path,
     const char *file)
{
	while (*path == '/')
		path++;
	int n = snprintf(buf, len, "%s%s%s%s%s", h->mount, *path ? "/" : "",
			 path, file ? "/" : "", file ? file : "");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int
cgfs_mkdir(const struct hier *h, const char *path, bool *created)
{
	char buf[PATH_MAX];
	size_t base;
	int rc;

	*created = false;
	if ((rc = join(buf, sizeof(buf), h, path, NULL)) < 0)
		return rc;
	base = strlen(h->mount);
	for (char *s = buf + base + 1; s <= buf + strlen(buf); s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char saved = *s;
		*s = '\0';
		if (mkdir(buf, 0755) == 0) {
			*created = saved == '\0';
		} else if (errno != EEXIST) {
			return -errno;
		}
		*s = saved;
		if (saved == '\0')
			break;
	}
	return 0;
}

int
cgfs_set(const struct hier *h, const char *path, const char *key,
	 const char *value)
{
	char buf[PATH_MAX];
	int rc;

	if (strchr(key, '/') != NULL)
		return -EINVAL;
	if ((rc = join(buf, sizeof(buf), h, path, key)) < 0)
		return rc;
	return write_file(buf, value);
}

/* v1 fallback: move each thread of tgid through "tasks". */
static int
move_threads(const struct hier *h, const char *path, pid_t tgid)
{
	char dir[64], file[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int rc, moved = 0;

	if ((rc = join(file, sizeof(file), h, path, "tasks")) < 0)
		return rc;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)tgid);
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? -ESRCH : -errno;
	rc = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		int r = write_file(file, e->d_name);
		if (r == 0)
			moved++;
		else if (r != -ESRCH && rc == 0)
			rc = r;
	}
	closedir(d);
	return moved > 0 || rc != 0 ? rc : -ESRCH;
}

int
cgfs_move(const struct hier *h, const char *path, pid_t tgid)
{
	char file[PATH_MAX], num[24];
	int rc;

	if ((rc = join(file, sizeof(file), h, path, "cgroup.procs")) < 0)
		return rc;
	snprintf(num, sizeof(num), "%d", (int)tgid);
	rc = write_file(file, num);
	if (rc == -ENOENT && h->version == HIER_V1 && access(file, F_OK) != 0) {
		/* either the group is missing or the kernel lacks cgroup.procs */
		char dir[PATH_MAX];

		if (join(dir, sizeof(dir), h, path, NULL) == 0 &&
		    access(dir, F_OK) == 0)
			return move_threads(h, path, tgid);
	}
	return rc;
}

int
cgfs_rmdir(const struct hier *h, const char *path)
{
	char buf[PATH_MAX];
	int rc;

	if ((rc = join(buf, sizeof(buf), h, path, NULL)) < 0)
		return rc;
	while (*path == '/')
		path++;
	if (*path == '\0')
		return -EINVAL; /* never the root */
	return rmdir(buf) == 0 ? 0 : -errno;
}

bool
cgfs_is_empty(const struct hier *h, const char *path)
{
	char file[PATH_MAX], buf[64];

	if (join(file, sizeof(file), h, path, "cgroup.procs") < 0)
		return false;
	return read_file(file, buf, sizeof(buf)) == 0;
}
