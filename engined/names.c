/*
 * names.c -- a cache of user and group names for the %u and %g
 * templates, so the system's NSS is asked once per id, not once per
 * exec.  Cleared on reload.  Every look-up in the system's passwd and
 * group databases that engined/ makes goes through the wrappers here:
 * names are bounded before NSS sees them, and buffers grow on ERANGE.
 * These calls can block (NSS may ask a network service); the daemon
 * makes them only for control requests and the first time an id is
 * seen, never per exec.
 */
#include "engined.h"
#include "engined_private.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct name_entry {
	uint32_t id;
	char *name; /* NULL = empty slot */
};

static struct name_entry *
find(struct name_table *t, uint32_t id)
{
	for (size_t i = (id * 2654435761u) & (t->cap - 1);; i = (i + 1) & (t->cap - 1))
		if (t->v[i].name == NULL || t->v[i].id == id)
			return &t->v[i];
}

static void
insert(struct name_table *t, uint32_t id, const char *name)
{
	if ((t->n + 1) * 2 > t->cap) {
		struct name_table bigger = { .cap = t->cap ? t->cap * 2 : 64 };

		if ((bigger.v = calloc(bigger.cap, sizeof(*bigger.v))) == NULL)
			return;
		for (size_t i = 0; i < t->cap; i++)
			if (t->v[i].name != NULL)
				*find(&bigger, t->v[i].id) = t->v[i];
		free(t->v);
		t->v = bigger.v;
		t->cap = bigger.cap;
	}
	struct name_entry *e = find(t, id);
	if (e->name == NULL && (e->name = strdup(name)) != NULL) {
		e->id = id;
		t->n++;
	}
}

/* ---- the system's databases: every NSS call of engined/ is here ----------------- */

#define NSS_BUF_MAX (1u << 22) /* give up beyond 4 MiB of entry */

/*
 * Call fn with a buffer that grows while NSS answers ERANGE (a group
 * with many members needs more than any fixed size).  0, or -ENOENT.
 */
static int
with_buffer(int (*fn)(void *arg, char *buf, size_t len), void *arg)
{
	size_t len = 4096;
	char *buf = NULL;
	int rc;

	for (;;) {
		char *nbuf = realloc(buf, len);

		if (nbuf == NULL) {
			free(buf);
			return -ENOMEM;
		}
		buf = nbuf;
		rc = fn(arg, buf, len);
		if (rc != ERANGE || len >= NSS_BUF_MAX)
			break;
		len *= 2;
	}
	free(buf);
	return rc == 0 ? 0 : rc == ERANGE ? -ENOMEM : -ENOENT;
}

struct pw_query {
	const char *name; /* by name, or */
	uid_t uid;	  /* by uid */
	struct names_user *out;
};

static int
pw_lookup(void *arg, char *buf, size_t len)
{
	struct pw_query *q = arg;
	struct passwd pw, *res = NULL;
	int rc = q->name != NULL ? getpwnam_r(q->name, &pw, buf, len, &res)
				 : getpwuid_r(q->uid, &pw, buf, len, &res);

	if (rc != 0)
		return rc;
	if (res == NULL || strlen(pw.pw_name) >= sizeof(q->out->name))
		return ENOENT;
	q->out->uid = pw.pw_uid;
	q->out->gid = pw.pw_gid;
	snprintf(q->out->name, sizeof(q->out->name), "%s", pw.pw_name);
	return 0;
}

int
names_user_by_name(const char *name, struct names_user *out)
{
	struct pw_query q = { .name = name, .out = out };

	if (strlen(name) >= sizeof(out->name))
		return -ENAMETOOLONG; /* never handed to NSS */
	return with_buffer(pw_lookup, &q);
}

int
names_user_by_uid(uid_t uid, struct names_user *out)
{
	struct pw_query q = { .uid = uid, .out = out };

	return with_buffer(pw_lookup, &q);
}

struct gr_query {
	const char *name; /* by name, or */
	gid_t gid;	  /* by gid */
	gid_t *out_gid;
	char *out_name;
	size_t out_len;
};

static int
gr_lookup(void *arg, char *buf, size_t len)
{
	struct gr_query *q = arg;
	struct group gr, *res = NULL;
	int rc = q->name != NULL ? getgrnam_r(q->name, &gr, buf, len, &res)
				 : getgrgid_r(q->gid, &gr, buf, len, &res);

	if (rc != 0)
		return rc;
	if (res == NULL)
		return ENOENT;
	if (q->out_gid != NULL)
		*q->out_gid = gr.gr_gid;
	if (q->out_name != NULL) {
		if (strlen(gr.gr_name) >= q->out_len)
			return ENOENT;
		snprintf(q->out_name, q->out_len, "%s", gr.gr_name);
	}
	return 0;
}

int
names_group_by_name(const char *name, gid_t *gid)
{
	struct gr_query q = { .name = name, .out_gid = gid };

	if (strlen(name) >= NAMES_MAX)
		return -ENAMETOOLONG;
	return with_buffer(gr_lookup, &q);
}

size_t
names_grouplist(const char *user, gid_t gid, gid_t *groups, size_t max)
{
	int n = (int)max;

	if (getgrouplist(user, gid, groups, &n) < 0)
		return max; /* more than max: the first max of them */
	return (size_t)n;
}

/* ---- the caches ------------------------------------------------------------------- */

const char *
names_user(struct name_table *t, uid_t uid)
{
	struct name_entry *e = t->cap ? find(t, uid) : NULL;
	struct names_user u;

	if (e != NULL && e->name != NULL)
		return e->name;
	if (names_user_by_uid(uid, &u) < 0)
		return NULL;
	insert(t, uid, u.name);
	return t->cap ? find(t, uid)->name : NULL;
}

const char *
names_group(struct name_table *t, gid_t gid)
{
	struct name_entry *e = t->cap ? find(t, gid) : NULL;
	struct gr_query q = { .gid = gid, .out_name = NULL };
	char name[NAMES_MAX];

	if (e != NULL && e->name != NULL)
		return e->name;
	q.out_name = name;
	q.out_len = sizeof(name);
	if (with_buffer(gr_lookup, &q) < 0)
		return NULL;
	insert(t, gid, name);
	return t->cap ? find(t, gid)->name : NULL;
}

void
names_clear(struct name_table *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i].name);
	free(t->v);
	*t = (struct name_table){ 0 };
}
