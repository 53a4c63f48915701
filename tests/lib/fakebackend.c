/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fakebackend.c -- a stand-in for the systemd backend without root; see
 * fakebackend.h.
 */
#include "tests/lib/fakebackend.h"
#include "engined/backend/systemd/sdunit.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct fakebackend fakebackend = { .next_id = 100 };

void
fakebackend_reset(void)
{
	memset(&fakebackend, 0, sizeof(fakebackend));
	fakebackend.next_id = 100;
}

static void note(const char *fmt, ...) ATTR_PRINTF(1, 2);

static void
note(const char *fmt, ...)
{
	struct fakebackend *f = &fakebackend;
	va_list ap;

	if (f->ncalls == FAKEBACKEND_CALLS)
		return;
	va_start(ap, fmt);
	vsnprintf(f->calls[f->ncalls++], sizeof(f->calls[0]), fmt, ap);
	va_end(ap);
}

bool
fakebackend_called_since(size_t from, const char *what)
{
	for (size_t i = from; i < fakebackend.ncalls; i++)
		if (strcmp(fakebackend.calls[i], what) == 0)
			return true;
	return false;
}

bool
fakebackend_called(const char *what)
{
	return fakebackend_called_since(0, what);
}

struct fakebackend_unit *
fakebackend_unit(const char *path, bool make)
{
	struct fakebackend_unit *u = fakebackend.units;

	for (size_t i = 0; i < FAKEBACKEND_UNITS; i++)
		if (strcmp(u[i].path, path) == 0)
			return &u[i];
	for (size_t i = 0; make && i < FAKEBACKEND_UNITS; i++)
		if (u[i].path[0] == '\0') {
			snprintf(u[i].path, sizeof(u[i].path), "%s", path);
			return &u[i];
		}
	return NULL;
}

void
fakebackend_start_jobs(struct core *c)
{
	struct fakebackend_unit *u = fakebackend.units;

	for (size_t i = 0; i < FAKEBACKEND_UNITS; i++)
		if (u[i].noted) {
			u[i].noted = false;
			u[i].started = true;
			u[i].id = fakebackend.next_id++;
			core_group_made(c, u[i].path);
		}
}

void
fakebackend_collect(struct core *c, const char *path)
{
	struct fakebackend_unit *u = fakebackend_unit(path, false);

	if (u != NULL)
		u->started = u->noted = false;
	core_group_removed(c, path);
}

/* ---- placement ----------------------------------------------------------------- */

static int
b_mkdir(void *arg, const struct hier *h, const char *path, bool *created)
{
	struct fakebackend_unit *u = fakebackend_unit(path, true);

	if (u == NULL)
		return -ENOSPC;
	*created = !u->started && !u->noted;
	u->noted = !u->started;
	note("%s", path);
	return 0;
}

static int
b_set(void *arg, const struct hier *h, const char *path, const char *key,
      const char *value)
{
	struct sdprop p[SDPROP_MAX];
	int n = sdunit_props(key, value, p);

	if (n < 0)
		return n;
	note("%s %s", path, p[0].name);
	return 0;
}

static int
b_move(void *arg, const struct hier *h, const char *path, pid_t pid)
{
	struct fakebackend_unit *u = fakebackend_unit(path, false);

	if (u == NULL || (!u->noted && !u->started))
		return -ENOENT; /* as sdplace.c: the core makes the levels first */
	fakebackend.moves++;
	note("move %d %s", (int)pid, path);
	return BACKEND_MOVE_QUEUED;
}

static int
b_rmdir(void *arg, const struct hier *h, const char *path)
{
	return 0;
}

static bool
b_is_empty(void *arg, const struct hier *h, const char *path)
{
	return false;
}

static void
b_flush(void *arg)
{
}

/* ---- introspection ------------------------------------------------------------- */

static int
b_children(void *arg, const struct hier *h, const char *path,
	   int (*fn)(void *fnarg, const char *name), void *fnarg)
{
	const struct fakebackend_unit *u = fakebackend.units;
	size_t n = strlen(path);

	for (size_t i = 0; i < FAKEBACKEND_UNITS; i++) {
		const char *p = u[i].path;
		if (u[i].started && strncmp(p, path, n) == 0 && p[n] == '/' &&
		    strchr(p + n + 1, '/') == NULL)
			(void)fn(fnarg, p + n + 1);
	}
	return 0;
}

static int
b_logical(void *arg, const struct hier *h, const char *real, char *buf, size_t len)
{
	char rel[512];
	int rc = sdunit_logical(FAKEBACKEND_ROOT, "cgengine", real, rel, sizeof(rel));

	if (rc < 0)
		return rc;
	snprintf(buf, len, "%s%s", FAKEBACKEND_ROOT, rel);
	return 0;
}

static int
b_may_move(void *arg, const struct hier *h, const char *real, char *why, size_t len)
{
	const char *no = sdunit_refusal(real, FAKEBACKEND_OWN);

	if (no == NULL)
		return 0;
	snprintf(why, len, "%s", no);
	return -EPERM;
}

static int
b_unit(void *arg, const struct hier *h, const char *path, bool logical, char *buf,
       size_t len)
{
	if (!logical)
		return sdunit_unit_of(path, buf, len);
	return sdunit_name("cgengine", path + strlen(FAKEBACKEND_ROOT), "scope", buf,
			   len);
}

/* ---- ids ----------------------------------------------------------------------- */

static int
b_id(void *arg, const struct hier *h, const char *path, uint64_t *id)
{
	const struct fakebackend_unit *u = fakebackend_unit(path, false);

	if (u != NULL && u->started) {
		*id = u->id;
		return 0;
	}
	return u != NULL && u->noted ? -EINPROGRESS : -ENOENT;
}

static int
b_id_live(void *arg, const struct hier *h, uint64_t id)
{
	for (size_t i = 0; i < FAKEBACKEND_UNITS; i++)
		if (fakebackend.units[i].started && fakebackend.units[i].id == id)
			return 1;
	return 0;
}

/* ---- the exec gate ------------------------------------------------------------- */

/* The paths handed over, a keeper (fake pid KEEPER + i) for each new
 * one, ready once the core asked to move its keeper there. */
static int
b_prepare(void *arg, const struct hier *h, const char *const *paths, size_t n,
	  void (*keeper)(void *karg, pid_t pid, const char *path), void *karg)
{
	struct fakebackend *f = &fakebackend;
	char had[FAKEBACKEND_READY][300];
	size_t nhad = f->nready;

	memcpy(had, f->ready, sizeof(had));
	f->handed++;
	f->nready = 0;
	for (size_t i = 0; i < n && i < FAKEBACKEND_READY; i++) {
		bool kept = false;
		snprintf(f->ready[f->nready++], sizeof(f->ready[0]), "%s", paths[i]);
		for (size_t j = 0; j < nhad; j++)
			kept = kept || strcmp(had[j], paths[i]) == 0;
		if (!kept)
			keeper(karg, FAKEBACKEND_KEEPER + f->keepers++, paths[i]);
	}
	return 0;
}

static bool
is_ready(const char *path)
{
	const struct fakebackend *f = &fakebackend;
	char moved[400];

	for (size_t i = 0; i < f->nready; i++)
		if (strcmp(f->ready[i], path) == 0)
			for (pid_t k = FAKEBACKEND_KEEPER;
			     k < FAKEBACKEND_KEEPER + f->keepers; k++) {
				snprintf(moved, sizeof(moved), "move %d %s", (int)k,
					 path);
				if (fakebackend_called(moved))
					return true;
			}
	return false;
}

static int
b_move_now(void *arg, const struct hier *h, const char *path, pid_t pid)
{
	if (!is_ready(path))
		return -EAGAIN;
	note("now %d %s", (int)pid, path);
	return 0;
}

static int
b_restore(void *arg, const struct hier *h, const char *real, pid_t pid)
{
	note("restore %d %s", (int)pid, real);
	return 0;
}

const struct backend fakebackend_table = {
	.place = { .mkdir = b_mkdir,
		   .set = b_set,
		   .move = b_move,
		   .rmdir = b_rmdir,
		   .is_empty = b_is_empty,
		   .flush = b_flush },
	.look = { .children = b_children,
		  .logical = b_logical,
		  .may_move = b_may_move,
		  .unit = b_unit },
	.ids = { .id = b_id, .id_live = b_id_live },
	.gate = { .move_now = b_move_now, .prepare = b_prepare, .restore = b_restore },
};

int
fakebackend_choose(void *arg, enum backend_kind kind, const char *root,
		   const struct backend **out)
{
	fakebackend.asked++;
	*out = kind == BACKEND_SYSTEMD && strcmp(root, FAKEBACKEND_ROOT) == 0
		       ? &fakebackend_table
		       : NULL;
	return 0;
}

int
fakebackend_layout_root(enum backend_kind kind, const char *configured, char *out,
			size_t len, const char **why)
{
	return kind == BACKEND_SYSTEMD ? sdunit_layout_root(configured, out, len, why)
				       : 0;
}

static void
report_diag(void *arg, const char *msg)
{
	diag("%s", msg);
}

struct core *
fakebackend_core(struct fixture *f, const struct backend_nft *nft)
{
	struct report rep = { .fn = report_diag };
	struct core_options o = {
		.ov = { .config = f->conf,
			.config_explicit = true,
			.layout_root = fakebackend_layout_root },
		.env = { .procroot = f->proc,
			 .mountinfo = f->mountinfo,
			 .cgfs = &f->cgfs,
			 .nft = nft,
			 .backend = fakebackend_choose },
	};

	fixture_current = f;
	return core_new(&o, &rep);
}
