/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * booststate.c -- the boosts' state file: what boost.c's boosts and the
 * process table's sticky processes become on disk (statefile.c does the
 * format and the I/O), when it is written, and how it is read back at
 * start.  A restart keeps every boost that has time left and a process
 * still running, and every sticky process still running, which
 * otherwise the scan at start would classify.
 */
#include "boost_private.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the state file (statefile.c does the format and the I/O) ------------- */

static void
report_warning(void *arg, const char *msg)
{
	log_warning("%s", msg);
}

#define SAVE_WHY_MAX 512

/* A failed save's message, kept for the rate-limited log line. */
static void
save_report(void *arg, const char *msg)
{
	snprintf(arg, SAVE_WHY_MAX, "%s", msg);
}

/* a boost's members are written as they are: the same layout */
_Static_assert(sizeof(struct procid) == sizeof(struct statefile_member) &&
		       offsetof(struct procid, pid) == offsetof(struct statefile_member, pid) &&
		       offsetof(struct procid, start) ==
			       offsetof(struct statefile_member, start),
	       "struct procid and struct statefile_member differ");

struct save_cursor {
	const struct boost *b;
	struct statefile_record rec;
	const struct proctab *procs; /* its sticky entries, from pcur on */
	size_t pcur;
	struct statefile_sticky st;
};

static const struct statefile_record *
next_record(void *arg)
{
	struct save_cursor *cur = arg;
	const struct boost *b = cur->b;

	if (b == NULL)
		return NULL;
	cur->b = TAILQ_NEXT(b, link);
	cur->rec = (struct statefile_record){ .id = b->id,
					      .owner = b->owner,
					      .expires = b->expires,
					      .hier = b->hier,
					      .dest = b->dest,
					      .profile = b->profile,
					      .m = (const struct statefile_member *)b->m,
					      .n = b->n };
	return &cur->rec;
}

static const struct statefile_sticky *
next_sticky(void *arg)
{
	struct save_cursor *cur = arg;
	const struct proc *p;

	while ((p = proctab_next(cur->procs, &cur->pcur)) != NULL) {
		if (!(p->flags & PROC_STICKY))
			continue;
		cur->st = (struct statefile_sticky){
			.who = { .pid = p->id.pid, .start = p->id.start },
			.flags = ((p->flags & PROC_STICKY_CHILDREN) ? STATEFILE_STICKY_CHILDREN
								     : 0) |
				 ((p->flags & PROC_ROOT_PIN) ? STATEFILE_STICKY_ROOT : 0)
		};
		return &cur->st;
	}
	return NULL;
}

/*
 * The state is two files.  The state file itself holds every boost and
 * is written durably (fsync of file and directory) when a boost starts,
 * ends or is restored, or a sticky request is answered: at most twice a
 * second, from requests and expiry, never because a process forked or
 * exited.  Churn -- a boosted or sticky process forks, a member or a
 * sticky process exits -- only rewrites STATE.members, the same
 * format without any fsync: after a crash it may be old, empty or
 * missing, and restoring then keeps the members the state file has
 * (boost_restore).  A durable write removes STATE.members first (the
 * directory's fsync makes both last), since it then holds everything.
 */
static char *
members_path(const char *path)
{
	size_t n = strlen(path);
	char *p = malloc(n + sizeof(".members"));

	if (p != NULL) {
		memcpy(p, path, n);
		memcpy(p + n, ".members", sizeof(".members"));
	}
	return p;
}

/* Write the boosts (durable: the state file, else STATE.members);
 * 0 or -errno, the reason in why. */
static int
boost_save(struct core *c, bool durable, char *why, size_t len)
{
	const char *path = c->pol->cfg->state_file;
	struct report rep = { .fn = save_report, .arg = why };
	struct save_cursor cur = { .b = TAILQ_FIRST(&c->boosts->list), .procs = c->procs };
	struct statefile_source src = { .boost = next_record, .sticky = next_sticky,
					.arg = &cur };
	char *mpath;
	int rc;

	why[0] = '\0';
	(void)len; /* save_report writes at most SAVE_WHY_MAX bytes */
	if (path[0] == '\0')
		return 0;
	if ((rc = mkdir_parents(path)) < 0) {
		snprintf(why, len, "%s: cannot create its directory: %s", path, strerror(-rc));
		return rc;
	}
	if ((mpath = members_path(path)) == NULL) {
		snprintf(why, len, "%s: out of memory", path);
		return -ENOMEM;
	}
	if (durable) {
		if (unlink(mpath) < 0 && errno != ENOENT)
			log_debug("%s: %s", mpath, strerror(errno));
		rc = statefile_save(path, &src, &rep, true);
	} else {
		rc = statefile_save(mpath, &src, &rep, false);
	}
	free(mpath);
	return rc;
}

/* ---- restoring ------------------------------------------------------------------ */

/* A boost's members as STATE.members last had them (keyed by id). */
struct newer_members {
	unsigned id;
	uid_t owner;
	int64_t expires;
	char *hier, *dest;
	struct statefile_member *m;
	size_t n;
};

struct restore {
	struct core *c;
	unsigned max_id;
	size_t sticky, sticky_gone; /* sticky processes restored, and gone */
	struct map newer; /* of struct newer_members; empty when none */
	struct task *task; /* room to read a member (NULL: no memory) */
};

/* Is id still running, and a process?  A thread, which a daemon before
 * the state file's format 3 let be boosted, is dropped: its process
 * goes back to the rules. */
static bool
restorable(const struct restore *rs, struct procid id)
{
	const char *procroot = rs->c->env.procroot;

	if (!task_alive(procroot, id))
		return false;
	return rs->task == NULL || task_read(procroot, id.pid, 0, rs->task) < 0 ||
	       rs->task->tgid <= 0 || rs->task->tgid == id.pid;
}

/* Remember a record of STATE.members (its pointers are borrowed). */
static int
newer_record(void *arg, const struct statefile_record *r)
{
	struct restore *rs = arg;
	bool fresh;
	struct newer_members *nm = map_insert(&rs->newer, r->id, NULL, NULL, &fresh);

	if (nm == NULL)
		return -ENOMEM;
	if (!fresh)
		return 0; /* the parser refuses duplicate ids anyway */
	*nm = (struct newer_members){ .id = r->id, .owner = r->owner, .expires = r->expires };
	nm->hier = strdup(r->hier);
	nm->dest = strdup(r->dest);
	nm->m = malloc(r->n * sizeof(*nm->m));
	if (nm->hier == NULL || nm->dest == NULL || nm->m == NULL)
		return -ENOMEM; /* freed by newer_free */
	memcpy(nm->m, r->m, r->n * sizeof(*nm->m));
	nm->n = r->n;
	return 0;
}

static void
newer_free(struct map *m)
{
	struct newer_members *nm;

	for (size_t cur = 0; (nm = map_next(m, &cur)) != NULL;) {
		free(nm->hier);
		free(nm->dest);
		free(nm->m);
	}
	map_free(m);
}

/* The members STATE.members has for the boost of record r, if it names
 * the same boost; else r's own. */
static void
pick_members(const struct restore *rs, const struct statefile_record *r,
	     const struct statefile_member **m, size_t *n)
{
	const struct newer_members *nm =
		rs->newer.slot != 0 ? map_find(&rs->newer, r->id, NULL, NULL) : NULL;

	*m = r->m;
	*n = r->n;
	if (nm != NULL && nm->m != NULL && nm->owner == r->owner && nm->expires == r->expires &&
	    strcmp(nm->hier, r->hier) == 0 && strcmp(nm->dest, r->dest) == 0) {
		*m = nm->m;
		*n = nm->n;
	}
}

static int
restore_record(void *arg, const struct statefile_record *r)
{
	struct restore *rs = arg;
	struct core *c = rs->c;
	time_t now = c->env.wall();

	if (r->id > rs->max_id)
		rs->max_id = r->id;
	if (r->expires <= (int64_t)now) {
		log_notice("boost #%u expired while cgengined was stopped; its processes "
			   "return to the rules",
			   r->id);
		return 0;
	}
	/* a profile's boost follows its profile (boost_policy, after) */
	if (r->profile == NULL && policy_managed(c->pol, r->hier) == NULL) {
		log_warning("boost #%u dropped: hierarchy %s is no longer managed", r->id,
			    r->hier[0] ? r->hier : "unified");
		return 0;
	}
	const struct boost_profile *prof = boost_profile_of(c->pol->cfg, r->profile);
	if (r->profile != NULL && prof == NULL) {
		log_warning("boost #%u dropped: boost profile %s no longer exists", r->id,
			    r->profile);
		return 0;
	}
	struct boost *b = boost_new(r->hier, r->dest, r->profile);
	if (b == NULL)
		return -ENOMEM;
	b->id = r->id;
	b->owner = r->owner;
	b->expires = (time_t)r->expires;
	/* a profile's max-duration may have been lowered meanwhile */
	if (prof != NULL && difftime(b->expires, now) > (double)prof->max_seconds) {
		b->expires = now + prof->max_seconds;
		log_notice("boost #%u shortened to the %lds of profile %s", r->id,
			   prof->max_seconds, prof->name);
	}
	const struct statefile_member *m;
	size_t n;
	pick_members(rs, r, &m, &n);
	for (size_t i = 0; i < n && b->n < boost_members_max(c); i++) {
		struct procid id = { .pid = m[i].pid, .start = m[i].start };

		if (restorable(rs, id) && boost_add_member(b, id) < 0)
			break;
	}
	if (b->n == 0) {
		log_notice("boost #%u dropped: its processes are gone", r->id);
		boost_free(b);
		return 0;
	}
	if (expiry_add(&c->boosts->expiries, b) < 0) {
		boost_free(b);
		return -ENOMEM;
	}
	TAILQ_INSERT_TAIL(&c->boosts->list, b, link);
	for (size_t i = 0; i < b->n; i++)
		boost_update_flag(c, b->m[i]);
	log_notice("boost #%u restored: %zu process%s in %s:%s for %.0fs more", b->id, b->n,
		   b->n == 1 ? "" : "es", b->hier, b->dest, difftime(b->expires, now));
	return 0;
}

/*
 * A sticky process of a state file: sticky again if it is still the
 * same process.  STATE.members is read first: it is newer when it is
 * there (a request's durable write removes it), so an entry it made
 * stays as it is.
 */
static int
restore_sticky(void *arg, const struct statefile_sticky *st)
{
	struct restore *rs = arg;
	struct core *c = rs->c;
	struct procid id = { .pid = st->who.pid, .start = st->who.start };

	if (!task_alive(c->env.procroot, id)) {
		rs->sticky_gone++;
		return 0;
	}
	const struct proc *p = proctab_get(c->procs, id.pid);
	unsigned flags = p != NULL && procid_eq(p->id, id) ? p->flags : 0;
	if (flags & PROC_STICKY)
		return 0;
	flags |= PROC_STICKY;
	if (st->flags & STATEFILE_STICKY_CHILDREN)
		flags |= PROC_STICKY_CHILDREN;
	if (st->flags & STATEFILE_STICKY_ROOT)
		flags |= PROC_ROOT_PIN;
	proc_set_flags(c, id, flags);
	rs->sticky++;
	log_debug("pid %d is sticky again%s", (int)id.pid,
		  (flags & PROC_STICKY_CHILDREN) ? " with its children" : "");
	return 0;
}

/* Parse the file at path, each record to fn, each sticky process to
 * restore_sticky; false if it is unreadable (missing, refused). */
static bool
read_records(struct core *c, const char *path, int (*fn)(void *, const struct statefile_record *),
	     struct restore *rs)
{
	struct report rep = { .fn = report_warning };
	char *buf = NULL;
	size_t len = 0;

	if (statefile_read(path, &rep, &buf, &len) < 0)
		return false;
	struct statefile_parse_options o = { .name = path,
					     .now = c->env.wall(),
					     .max_seconds = BOOST_MAX_SECONDS,
					     .record = fn,
					     .sticky = restore_sticky,
					     .arg = rs,
					     .rep = &rep };
	if (statefile_parse(buf, len, &o) < 0)
		log_warning("%s: out of memory while restoring boosts", path);
	free(buf);
	return true;
}

/*
 * Read the state back: every field is checked by the parser as a
 * request would be (statefile.c), in time linear in the file's size.
 * The state file says which boosts there are; STATE.members, when it
 * names the same boost (id, owner, expiry, group), has its newer
 * members.  Boosts whose processes are gone, or which expired while
 * the daemon was stopped, are dropped; boosts of a profile follow it as
 * after a reload (boost_policy).  Sticky processes still running are
 * sticky again.
 */
void
boost_restore(struct core *c)
{
	const char *path = c->pol->cfg->state_file;
	struct restore rs = { .c = c };
	char *mpath;

	if (path[0] == '\0')
		return;
	map_init(&rs.newer, sizeof(struct newer_members));
	rs.task = malloc(sizeof(*rs.task));
	if ((mpath = members_path(path)) != NULL) {
		struct stat st;
		/* a missing STATE.members is the normal case: no message */
		if (lstat(mpath, &st) == 0)
			(void)read_records(c, mpath, newer_record, &rs);
		free(mpath);
	}
	if (read_records(c, path, restore_record, &rs)) {
		if (rs.max_id >= c->boosts->next_id)
			c->boosts->next_id = rs.max_id + 1;
		boost_policy(c);  /* profiles changed while stopped */
		boost_changed(c); /* without the dropped ones */
	}
	if (rs.sticky > 0 || rs.sticky_gone > 0)
		log_notice("%zu sticky process%s restored (%zu gone meanwhile)", rs.sticky,
			   rs.sticky == 1 ? "" : "es", rs.sticky_gone);
	newer_free(&rs.newer);
	free(rs.task);
}

/* ---- when to write the state file ------------------------------------------------ */

/* Write at last_save + interval at the earliest, unless a write is due
 * sooner already or a failed one waits for its retry. */
static void
schedule(struct core *c, double interval)
{
	double at = c->boosts->last_save + interval;

	if (at < c->now)
		at = c->now;
	if (c->boosts->save_retry_at > at)
		at = c->boosts->save_retry_at;
	if (c->boosts->save_at == 0 || at < c->boosts->save_at)
		c->boosts->save_at = at;
}

/* A boost started, ended or was restored: write the state file durably
 * soon (at most twice a second). */
void
boost_changed(struct core *c)
{
	c->boosts->state_dirty = true;
	schedule(c, BOOST_SAVE_INTERVAL);
}

/* Only members changed (fork, exit): write STATE.members, without fsync,
 * at most every BOOST_MEMBERS_INTERVAL seconds. */
void
boost_members_changed(struct core *c)
{
	c->boosts->members_dirty = true;
	schedule(c, BOOST_MEMBERS_INTERVAL);
}

void
boost_sticky_changed(struct core *c, bool durable)
{
	if (durable)
		boost_changed(c);
	else
		boost_members_changed(c);
}

/*
 * A failed write (ENOSPC, EROFS, ...) keeps the state dirty and is tried
 * again after 1 s, 2 s, ... up to a minute; it is logged when the
 * failures start and then at most once a minute, and the recovery once.
 */
static void
save_failed(struct core *c, int rc, const char *why)
{
	c->stats.state_save_failures++;
	double pause = backoff_fail(&c->boosts->save_backoff);
	unsigned n = c->boosts->save_backoff.failures;

	c->boosts->save_retry_at = c->now + pause;
	c->boosts->save_at = c->boosts->save_retry_at;
	if (n == 1 || c->now >= c->boosts->save_logged + BOOST_SAVE_RETRY_MAX) {
		log_warning("%s (%u failed write%s; the boosts are kept and written again "
			    "in %.0f s)",
			    why[0] ? why : strerror(-rc), n, n == 1 ? "" : "s in a row", pause);
		c->boosts->save_logged = c->now;
	}
}

/* Write what changed, now (a failure is retried later). */
void
boost_save_now(struct core *c)
{
	char why[SAVE_WHY_MAX];

	c->boosts->save_at = 0;
	if (!c->boosts->state_dirty && !c->boosts->members_dirty)
		return;
	bool durable = c->boosts->state_dirty;
	c->stats.state_saves++;
	c->boosts->last_save = c->now;
	int rc = boost_save(c, durable, why, sizeof(why));
	if (rc < 0) {
		save_failed(c, rc, why);
		return;
	}
	unsigned n = c->boosts->save_backoff.failures;
	if (n > 0)
		log_notice("%s: the boost state is written again (after %u failed write%s)",
			   c->pol->cfg->state_file, n, n == 1 ? "" : "s");
	backoff_reset(&c->boosts->save_backoff);
	c->boosts->save_retry_at = 0;
	c->boosts->members_dirty = false;
	if (durable)
		c->boosts->state_dirty = false;
}

void
boost_stop(struct core *c)
{
	if (c->boosts->state_dirty || c->boosts->members_dirty) {
		c->boosts->state_dirty = true; /* the last write before exit is durable */
		boost_save_now(c);
	}
}
