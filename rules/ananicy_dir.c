/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy_dir.c -- reading an ananicy-cpp configuration directory: every
 * *.types, *.cgroups and *.rules file below it, depth first in sorted
 * order, so that which of two lines of one name wins does not depend on
 * the order the file system lists them in (ananicy-cpp takes that order).
 */
#include "ananicy_private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_DEPTH_MAX 16
#define FILE_SIZE_MAX (64u << 20)

static void
report_errno(ananicy_report_fn *fn, void *arg, const char *path, int err)
{
	char msg[PATH_MAX + 128];

	if (fn == NULL)
		return;
	snprintf(msg, sizeof(msg), "%s: %s", path, strerror(err));
	ananicy_report_line(fn, arg, RULES_ERROR, msg);
}

static bool
wanted(const char *name)
{
	static const char *const exts[] = {".types", ".cgroups", ".rules"};
	size_t n = strlen(name);

	for (size_t i = 0; i < 3; i++) {
		size_t k = strlen(exts[i]);
		if (n > k && strcmp(name + n - k, exts[i]) == 0)
			return true;
	}
	return false;
}

/* The whole of file path into a malloc'd buffer (the caller frees). */
static int
slurp(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	int rc = 0;

	*out = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	else if ((size_t)st.st_size > FILE_SIZE_MAX)
		rc = -EFBIG;
	else if ((*out = malloc((size_t)st.st_size + 1)) == NULL)
		rc = -ENOMEM;
	for (*len = 0; rc == 0 && *len < (size_t)st.st_size;) {
		ssize_t r = read(fd, *out + *len, (size_t)st.st_size - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			rc = -errno;
		if (r <= 0)
			break;
		*len += (size_t)r;
	}
	close(fd);
	if (rc < 0) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

static int
add_file(struct ananicy_set *s, const char *path, ananicy_report_fn *fn, void *arg)
{
	char *text;
	size_t len = 0;
	int rc = slurp(path, &text, &len);

	if (rc < 0) {
		report_errno(fn, arg, path, -rc);
		return rc;
	}
	rc = ananicy_add_buffer(s, path, text, len, fn, arg);
	free(text);
	return rc;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir (without . and ..), sorted; the caller frees each and *v. */
static int
list_dir(const char *dir, char ***v, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	*v = NULL;
	*n = 0;
	if (d == NULL)
		return -errno;
	while (rc == 0 && (errno = 0, de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			rc = strv_add(v, n, de->d_name);
	if (rc == 0 && errno != 0)
		rc = -errno;
	closedir(d);
	if (*n > 1)
		qsort(*v, *n, sizeof(**v), cmp_names);
	return rc;
}

static int walk(struct ananicy_set *s, const char *dir, unsigned depth,
		ananicy_report_fn *fn, void *arg);

/* One name of a directory: a directory to walk, a file to read, or neither. */
static int
walk_entry(struct ananicy_set *s, const char *path, unsigned depth, ananicy_report_fn *fn,
	   void *arg)
{
	struct stat st;
	const char *base = strrchr(path, '/') + 1;

	if (lstat(path, &st) < 0) {
		report_errno(fn, arg, path, errno);
		return -errno;
	}
	if (S_ISDIR(st.st_mode))
		return walk(s, path, depth + 1, fn, arg);
	if (!wanted(base))
		return 0;
	if (S_ISLNK(st.st_mode) && (stat(path, &st) < 0 || !S_ISREG(st.st_mode)))
		return 0; /* a link to a directory, or dangling: not followed */
	return add_file(s, path, fn, arg);
}

static int
walk(struct ananicy_set *s, const char *dir, unsigned depth, ananicy_report_fn *fn, void *arg)
{
	char **names, path[PATH_MAX];
	size_t n;
	int rc;

	if (depth > DIR_DEPTH_MAX) {
		report_errno(fn, arg, dir, ELOOP);
		return -ELOOP;
	}
	if ((rc = list_dir(dir, &names, &n)) < 0) {
		report_errno(fn, arg, dir, -rc);
		return rc;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= sizeof(path)) {
			report_errno(fn, arg, dir, ENAMETOOLONG);
			rc = -ENAMETOOLONG;
		} else
			rc = walk_entry(s, path, depth, fn, arg);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int
ananicy_add_dir(struct ananicy_set *s, const char *dir, ananicy_report_fn *fn, void *arg)
{
	char top[PATH_MAX];
	size_t n = strlen(dir);
	int rc;

	/* "/etc/ananicy.d/" reads as "/etc/ananicy.d" in messages */
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n >= sizeof(top)) {
		report_errno(fn, arg, dir, ENAMETOOLONG);
		return -ENAMETOOLONG;
	}
	memcpy(top, dir, n);
	top[n] = '\0';
	if ((rc = walk(s, top, 0, fn, arg)) == 0)
		ananicy_check(s, fn, arg);
	return rc;
}
