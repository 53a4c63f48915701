/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fake.c -- see fake.h.
 */
#include "fake.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	uid_t id;
} users[] = {
	{ "root", 0 },	   { "alice", 1000 }, { "bob", 1001 },
	{ "carol", 1002 }, { "dave", 1003 },  { "prof", 2000 },
};

static int
user(void *arg, const char *name, uid_t *uid)
{
	if (strcmp(name, "ioerr") == 0)
		return -EIO; /* NSS failing, not "no such user" */
	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++)
		if (strcmp(users[i].name, name) == 0) {
			*uid = users[i].id;
			return 0;
		}
	return -ENOENT;
}

static int
group(void *arg, const char *name, gid_t *gid, uid_t **members, size_t *n)
{
	*members = NULL;
	*n = 0;
	if (strcmp(name, "students") == 0) {
		*gid = 500;
		*members = malloc(sizeof(uid_t));
		(*members)[0] = 1002;
		*n = 1;
		return 0;
	}
	if (strcmp(name, "profs") == 0) {
		*gid = 600;
		return 0;
	}
	if (strcmp(name, "staff") == 0) {
		*gid = 700;
		return 0;
	}
	if (strcmp(name, "root") == 0) {
		*gid = 0;
		return 0;
	}
	return -ENOENT;
}

const struct rules_names fake_names = { .user = user, .group = group };

void
fake_report(void *arg, enum rules_severity sev, const char *msg)
{
	struct fake_log *log = arg;

	if (log == NULL || log->n >= FAKE_MAX_MSGS)
		return;
	snprintf(log->msg[log->n++], sizeof(log->msg[0]), "%s", msg);
}

struct rules_set *
fake_load(const char *text, enum rules_semantics sem, struct fake_log *log)
{
	struct rules_options o = {
		.file = "t.conf",
		.semantics = sem,
		.names = &fake_names,
		.report = fake_report,
		.report_arg = log,
	};
	if (log != NULL)
		log->n = 0;
	return rules_parse_buffer("t.conf", text, strlen(text), &o);
}
