/*
 * nss.c -- the default name resolver: the system's passwd and group
 * databases, consulted only while a rule set loads.
 */
#include "rules_private.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

static int
nss_user(void *arg, const char *name, uid_t *uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) != 0 || res == NULL)
		return -ENOENT;
	*uid = pw.pw_uid;
	return 0;
}

static int
nss_group(void *arg, const char *name, gid_t *gid, uid_t **members, size_t *nmembers)
{
	struct group gr, *res = NULL;
	size_t size = 16384;
	char *buf = NULL;
	int rc;

	*members = NULL;
	*nmembers = 0;
	for (;;) {
		char *nbuf = realloc(buf, size);

		if (nbuf == NULL) {
			free(buf);
			return -ENOMEM;
		}
		buf = nbuf;
		rc = getgrnam_r(name, &gr, buf, size, &res);
		if (rc != ERANGE || size > (1u << 22))
			break;
		size *= 2;
	}
	if (rc != 0 || res == NULL) {
		free(buf);
		return -ENOENT;
	}
	*gid = gr.gr_gid;

	size_t n = 0;
	while (gr.gr_mem[n] != NULL)
		n++;
	if (n > 0) {
		uid_t *v = calloc(n, sizeof(*v));
		size_t k = 0;

		if (v == NULL) {
			free(buf);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n; i++)
			if (nss_user(NULL, gr.gr_mem[i], &v[k]) == 0)
				k++;
		*members = v;
		*nmembers = k;
	}
	free(buf);
	return 0;
}

const struct rules_names rules_nss_names = {
	.user = nss_user,
	.group = nss_group,
	.arg = NULL,
};
