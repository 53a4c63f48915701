/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names.c -- the rule parser's default resolver: user and group names
 * through the system's databases (util/nss.c, the one NSS wrapper).
 */
#include "rules_private.h"

static int
names_user(void *arg, const char *name, uid_t *uid)
{
	(void)arg;
	return nss_user(name, uid, NULL);
}

static int
names_group(void *arg, const char *name, gid_t *gid, uid_t **members, size_t *nmembers)
{
	(void)arg;
	return nss_group(name, gid, members, nmembers);
}

const struct rules_names rules_nss_names = {
	.user = names_user,
	.group = names_group,
	.arg = NULL,
};
