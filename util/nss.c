/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nss.c -- the one wrapper around the system's passwd and group
 * databases: bounded names, ERANGE retried with a growing buffer.  The
 * rule parser uses it while a rule set loads, the daemon for names of
 * ids and for control requests.  Every call may block on NSS.
 */
#include "util/util.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSS_BUF_FIRST 4096
#define NSS_BUF_LAST  (4u << 20) /* a group of many thousand members */

/* One getpw*_r / getgr*_r call: fills the entry, returns its errno. */
typedef int (*nss_call)(const void *key, void *entry, char *buf, size_t len, void **res);

/*
 * Call fn with a buffer that grows on ERANGE.  On success *bufp is the
 * malloc'd buffer the entry points into (the caller frees it).
 */
static int
nss_lookup(nss_call fn, const void *key, void *entry, char **bufp)
{
	size_t size = NSS_BUF_FIRST;
	char *buf = NULL;
	void *res = NULL;
	int rc;

	for (;;) {
		char *nbuf = realloc(buf, size);

		if (nbuf == NULL) {
			free(buf);
			return -ENOMEM;
		}
		buf = nbuf;
		rc = fn(key, entry, buf, size, &res);
		if (rc != ERANGE || size >= NSS_BUF_LAST)
			break;
		size *= 2;
	}
	if (rc == 0 && res != NULL) {
		*bufp = buf;
		return 0;
	}
	free(buf);
	/* "not found" is 0 with no result, or one of these by POSIX's leave */
	if (rc == 0 || rc == ENOENT || rc == ESRCH || rc == EBADF || rc == EPERM)
		return -ENOENT;
	return rc == ENOMEM ? -ENOMEM : -EIO;
}

static int
pw_by_name(const void *key, void *entry, char *buf, size_t len, void **res)
{
	return getpwnam_r(key, entry, buf, len, (struct passwd **)res);
}

static int
pw_by_uid(const void *key, void *entry, char *buf, size_t len, void **res)
{
	return getpwuid_r(*(const uid_t *)key, entry, buf, len, (struct passwd **)res);
}

static int
gr_by_name(const void *key, void *entry, char *buf, size_t len, void **res)
{
	return getgrnam_r(key, entry, buf, len, (struct group **)res);
}

static int
gr_by_gid(const void *key, void *entry, char *buf, size_t len, void **res)
{
	return getgrgid_r(*(const gid_t *)key, entry, buf, len, (struct group **)res);
}

static bool
name_ok(const char *name)
{
	return strnlen(name, NSS_NAME_MAX + 1) <= NSS_NAME_MAX;
}

static int
copy_name(const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, name, n + 1);
	return 0;
}

int
nss_user(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd pw;
	char *buf;
	int rc;

	if (!name_ok(name))
		return -ENAMETOOLONG;
	if ((rc = nss_lookup(pw_by_name, name, &pw, &buf)) < 0)
		return rc;
	*uid = pw.pw_uid;
	if (gid != NULL)
		*gid = pw.pw_gid;
	free(buf);
	return 0;
}

int
nss_user_name(uid_t uid, char *out, size_t len, gid_t *gid)
{
	struct passwd pw;
	char *buf;
	int rc;

	if ((rc = nss_lookup(pw_by_uid, &uid, &pw, &buf)) < 0)
		return rc;
	rc = copy_name(pw.pw_name, out, len);
	if (rc == 0 && gid != NULL)
		*gid = pw.pw_gid;
	free(buf);
	return rc;
}

int
nss_group_name(gid_t gid, char *out, size_t len)
{
	struct group gr;
	char *buf;
	int rc;

	if ((rc = nss_lookup(gr_by_gid, &gid, &gr, &buf)) < 0)
		return rc;
	rc = copy_name(gr.gr_name, out, len);
	free(buf);
	return rc;
}

/* The uids of a group's listed members that resolve; 0 or -ENOMEM. */
static int
member_uids(char *const *mem, uid_t **out, size_t *nout)
{
	size_t n = 0, k = 0;

	*out = NULL;
	*nout = 0;
	while (mem[n] != NULL)
		n++;
	if (n == 0)
		return 0;

	uid_t *v = calloc(n, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int rc = nss_user(mem[i], &v[k], NULL);

		if (rc == 0)
			k++;
		else if (rc == -ENOMEM) {
			free(v);
			return rc;
		}
	}
	*out = v;
	*nout = k;
	return 0;
}

int
nss_group(const char *name, gid_t *gid, uid_t **members, size_t *nmembers)
{
	struct group gr;
	char *buf;
	int rc;

	if (members != NULL) {
		*members = NULL;
		*nmembers = 0;
	}
	if (!name_ok(name))
		return -ENAMETOOLONG;
	if ((rc = nss_lookup(gr_by_name, name, &gr, &buf)) < 0)
		return rc;
	*gid = gr.gr_gid;
	if (members != NULL)
		rc = member_uids(gr.gr_mem, members, nmembers);
	free(buf);
	return rc;
}

size_t
nss_grouplist(const char *user, gid_t gid, gid_t *groups, size_t max)
{
	int n = (int)max;

	if (getgrouplist(user, gid, groups, &n) < 0)
		return max; /* more than max: the first max of them */
	return (size_t)n;
}
