/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * file.c -- small helpers for the daemon's own files.
 */
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int
mkdir_parents(const char *path)
{
	char dir[4096];

	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	strcpy(dir, path);
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return 0;
}

/* Read exactly len bytes of path; 0, -ENOENT, -EINVAL (another size) or -errno. */
static int
read_exact(const char *path, unsigned char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;

	if (fd < 0)
		return -errno;
	int rc = fstat(fd, &st) < 0 ? -errno : 0;
	if (rc == 0 && (!S_ISREG(st.st_mode) || (size_t)st.st_size != len))
		rc = -EINVAL;
	if (rc == 0 && (st.st_mode & 077) != 0)
		rc = -EPERM; /* a secret others may read is none */
	if (rc == 0 && read(fd, buf, len) != (ssize_t)len)
		rc = errno ? -errno : -EIO;
	close(fd);
	return rc;
}

/* Make path with len random bytes, mode 0600, durably and atomically
 * (another writer's file wins: then it is read). */
static int
make_secret(const char *path, unsigned char *buf, size_t len)
{
	char tmp[4096];
	int rc = mkdir_parents(path);

	if (rc < 0)
		return rc;
	if (getrandom(buf, len, 0) != (ssize_t)len)
		return -EIO;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = write(fd, buf, len) == (ssize_t)len && fsync(fd) == 0 ? 0 : -EIO;
	close(fd);
	if (rc == 0 && link(tmp, path) < 0) /* never over a file made meanwhile */
		rc = errno == EEXIST ? read_exact(path, buf, len) : -errno;
	unlink(tmp);
	return rc;
}

int
secret_file(const char *path, unsigned char *buf, size_t len, bool create)
{
	int rc = read_exact(path, buf, len);

	if (rc == -ENOENT && create)
		rc = make_secret(path, buf, len);
	return rc;
}
