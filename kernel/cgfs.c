/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
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
/* Append the string s at *p, below end (room for its NUL kept); false
 * when it does not fit. */
static bool
put(char **p, const char *end, const char *s, size_t n)
{
	if (n >= (size_t)(end - *p))
		return false;
	memcpy(*p, s, n);
	*p += n;
	**p = '\0';
	return true;
}

/* "mount/path/file" into buf, as snprintf would write it (path's leading
 * slashes dropped, an empty path or NULL file left out) but for a
 * fraction of its cost: it is made for every move. */
static int
join(char *buf, size_t len, const struct hier *h, const char *path, const char *file)
{
	const char *end = buf + len;
	char *p = buf;

	while (*path == '/')
		path++;
	if (len == 0 || !put(&p, end, h->mount, strlen(h->mount)) ||
	    (*path && (!put(&p, end, "/", 1) || !put(&p, end, path, strlen(path)))) ||
	    (file && (!put(&p, end, "/", 1) || !put(&p, end, file, strlen(file)))))
		return -ENAMETOOLONG;
	return 0;
}

static int
check_magic(const struct statfs *s)
{
	return s->f_type == CGROUP_SUPER_MAGIC || s->f_type == CGROUP2_SUPER_MAGIC ? 0
										  : -ESTALE;
}

int
cgfs_check(const struct hier *h)
{
	struct statfs s;

	if (statfs(h->mount, &s) < 0)
		return errno == ENOENT ? -ESTALE : -errno;
	return check_magic(&s);
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
	/* after a (lazy) unmount the mount point is a plain directory:
	 * never make groups there on the root file system */
	if ((rc = cgfs_check(h)) < 0)
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
cgfs_set(const struct hier *h, const char *path, const char *key, const char *value)
{
	char buf[PATH_MAX];
	int rc;

	if (strchr(key, '/') != NULL)
		return -EINVAL;
	if ((rc = join(buf, sizeof(buf), h, path, key)) < 0 || (rc = cgfs_check(h)) < 0)
		return rc;
	return write_file(buf, value);
}

int
cgfs_get(const struct hier *h, const char *path, const char *key, char *buf, size_t len)
{
	char file[PATH_MAX];
	ssize_t n;
	int rc, fd;

	if (len == 0 || strchr(key, '/') != NULL)
		return -EINVAL;
	if ((rc = join(file, sizeof(file), h, path, key)) < 0)
		return rc;
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	rc = n < 0 ? -errno : (int)n;
	close(fd);
	if (rc < 0)
		return rc;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
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

	if ((rc = join(file, sizeof(file), h, path, "cgroup.procs")) < 0 ||
	    (rc = cgfs_check(h)) < 0)
		return rc;
	snprintf(num, sizeof(num), "%d", (int)tgid);
	rc = write_file(file, num);
	if (rc == -ENOENT && h->version == HIER_V1 && access(file, F_OK) != 0) {
		/* either the group is missing or the kernel lacks cgroup.procs */
		char dir[PATH_MAX];

		if (join(dir, sizeof(dir), h, path, NULL) == 0 && access(dir, F_OK) == 0)
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

int
cgfs_children(const struct hier *h, const char *path,
	      int (*fn)(void *arg, const char *name), void *arg)
{
	char buf[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int rc;

	if ((rc = join(buf, sizeof(buf), h, path, NULL)) < 0)
		return rc;
	if ((d = opendir(buf)) == NULL)
		return -errno;
	rc = 0;
	while (rc == 0 && (e = readdir(d)) != NULL)
		if (e->d_type == DT_DIR && strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0)
			rc = fn(arg, e->d_name);
	closedir(d);
	return rc;
}

bool
cgfs_is_empty(const struct hier *h, const char *path)
{
	char file[PATH_MAX], buf[64];

	if (join(file, sizeof(file), h, path, "cgroup.procs") < 0)
		return false;
	return read_file(file, buf, sizeof(buf)) == 0;
}

/* Boolean extended attribute name of file: 1, 0 (absent or false), -errno. */
static int
xattr_bool(const char *file, const char *name)
{
	char v[16];
	ssize_t n = getxattr(file, name, v, sizeof(v) - 1);

	if (n < 0)
		return errno == ENODATA || errno == ENOTSUP || errno == ERANGE ? 0 : -errno;
	v[n] = '\0';
	/* systemd writes "1"; its parser would take yes, true, on too */
	return v[0] == '1' || v[0] == 'y' || v[0] == 't' || strcmp(v, "on") == 0;
}

int
cgfs_delegated(const struct hier *h, const char *path)
{
	static const char *const names[] = { "trusted.delegate", "user.delegate" };
	char dir[PATH_MAX];
	int rc = join(dir, sizeof(dir), h, path, NULL);

	for (size_t i = 0; rc == 0 && i < sizeof(names) / sizeof(names[0]); i++)
		rc = xattr_bool(dir, names[i]);
	return rc;
}

/* ---- the cache of open cgroup.procs files ------------------------------ */

#define CACHE_SLOTS 64

struct cgfs_cache {
	struct {
		char *file; /* full path of the cgroup.procs file; NULL = free */
		int fd;
		unsigned long used; /* for LRU eviction */
	} slot[CACHE_SLOTS];
	size_t nslots; /* in use: fewer when descriptors are scarce */
	unsigned long clock;
};

struct cgfs_cache *
cgfs_cache_new(void)
{
	struct cgfs_cache *c = calloc(1, sizeof(struct cgfs_cache));
	struct rlimit rl;

	if (c == NULL)
		return NULL;
	/* at most a quarter of the descriptors the process may open, so a
	 * low limit (ulimit -n 64) leaves room for /proc reads and clients */
	c->nslots = CACHE_SLOTS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 < CACHE_SLOTS)
		c->nslots = rl.rlim_cur / 4 > 1 ? (size_t)(rl.rlim_cur / 4) : 1;
	return c;
}

static void
drop(struct cgfs_cache *c, size_t i)
{
	close(c->slot[i].fd);
	free(c->slot[i].file);
	c->slot[i].file = NULL;
}

void
cgfs_cache_flush(struct cgfs_cache *c)
{
	for (size_t i = 0; c != NULL && i < CACHE_SLOTS; i++)
		if (c->slot[i].file != NULL)
			drop(c, i);
}

void
cgfs_cache_free(struct cgfs_cache *c)
{
	cgfs_cache_flush(c);
	free(c);
}

/* The slot holding an open fd for file, opening it if needed; -errno. */
static int
cached_fd(struct cgfs_cache *c, const char *file)
{
	size_t victim = 0;

	for (size_t i = 0; i < c->nslots; i++) {
		if (c->slot[i].file != NULL && strcmp(c->slot[i].file, file) == 0) {
			c->slot[i].used = ++c->clock;
			return (int)i;
		}
		if (c->slot[i].file == NULL || (c->slot[victim].file != NULL &&
						c->slot[i].used < c->slot[victim].used))
			victim = i;
	}
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	struct statfs s;
	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		cgfs_cache_flush(c); /* give our descriptors back, try once more */
		fd = open(file, O_WRONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &s) < 0 || check_magic(&s) < 0) {
		close(fd);
		return -ESTALE; /* not a cgroup file system (any more) */
	}
	char *copy = strdup(file);
	if (copy == NULL) {
		close(fd);
		return -ENOMEM;
	}
	if (c->slot[victim].file != NULL)
		drop(c, victim);
	c->slot[victim].file = copy;
	c->slot[victim].fd = fd;
	c->slot[victim].used = ++c->clock;
	return (int)victim;
}

int
cgfs_move_cached(struct cgfs_cache *c, const struct hier *h, const char *path, pid_t tgid)
{
	char file[PATH_MAX], num[STR_UINT_MAX];
	int rc, len;

	if (c == NULL)
		return cgfs_move(h, path, tgid);
	if ((rc = join(file, sizeof(file), h, path, "cgroup.procs")) < 0)
		return rc;
	len = (int)str_uint(num, (unsigned)tgid);
	const char *digits = num + STR_UINT_MAX - len;
	for (int attempt = 0; attempt < 2; attempt++) {
		int i = cached_fd(c, file);

		if (i < 0)
			return i == -ENOENT ? cgfs_move(h, path, tgid) : i;
		/* a cached file of a hierarchy unmounted meanwhile still
		 * works; the check below catches it on the next open */
		if (write(c->slot[i].fd, digits, (size_t)len) == len)
			return 0;
		int e = errno;
		if (e != ENODEV && e != ENOENT && e != EBADF)
			return -e;  /* ESRCH: the task exited; others are real */
		drop(c, (size_t)i); /* the group went away; try a fresh open */
	}
	return cgfs_move(h, path, tgid);
}
