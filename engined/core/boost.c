/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * boost.c -- temporary boosts: "put this process in HIER:PATH for two
 * hours, then back".  A boost protects its processes (the one it was
 * given for and every child forked while it lasts) from the rules on
 * its hierarchy; when it expires or is cancelled they are classified
 * by the rules again.  Processes are identified by pid and start time,
 * so a reused pid never inherits a boost.  Active boosts are kept in a
 * state file, written atomically, and restored after a restart.
 *
 * The boosts and the writing of their state are this file's alone
 * (struct boosts): a request enters by core_boost_start() or
 * core_boost_end(), which classify the processes concerned; expiry and
 * the state file's writes are due at boost_deadline(), done by
 * boost_timeout().
 */
#include "core_private.h"
#include "statefile.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest a boost can last; a state file promising more is forged. */
#define BOOST_MAX_SECONDS (366L * 86400)
#define BOOST_MAX_ID	  STATEFILE_ID_MAX

#define BOOST_SAVE_INTERVAL    0.5  /* the state file is written at most this often */
#define BOOST_MEMBERS_INTERVAL 10.0 /* STATE.members at most this often */
#define BOOST_SAVE_RETRY_MAX   60.0 /* a failed write is retried at least this often */

/* The boosts and the writing of their state (c->boosts). */
struct boosts {
	struct boost_list list;
	struct expiry_heap expiries; /* the same boosts, by expiry */
	unsigned next_id;
	double save_at, last_save; /* the state file: write at save_at (0: nothing to) */
	bool state_dirty;	   /* the boosts changed: write durably, soon */
	bool members_dirty;	   /* only members changed: write lazily */
	struct backoff save_backoff; /* failed writes in a row: retried after 1, 2 ... 60 s */
	double save_retry_at, save_logged;
};

static void boost_changed(struct core *c);
static void boost_members_changed(struct core *c);

int
boost_init(struct core *c)
{
	struct boosts *bs = calloc(1, sizeof(*bs));

	if (bs == NULL)
		return -ENOMEM;
	TAILQ_INIT(&bs->list);
	bs->next_id = 1;
	bs->last_save = -BOOST_SAVE_INTERVAL;
	bs->save_backoff = (struct backoff){ .first = 1, .max = BOOST_SAVE_RETRY_MAX };
	c->boosts = bs;
	return 0;
}

static struct boost *
find(const struct core *c, unsigned id)
{
	struct boost *b;

	TAILQ_FOREACH(b, &c->boosts->list, link)
	if (b->id == id)
		return b;
	return NULL;
}

const struct boost *
core_boost_find(const struct core *c, unsigned id)
{
	return find(c, id);
}

const struct boost_list *
core_boosts(const struct core *c)
{
	return &c->boosts->list;
}

size_t
core_boost_count(const struct core *c)
{
	return expiry_count(&c->boosts->expiries);
}

static bool
has_member(const struct boost *b, struct procid id)
{
	for (size_t i = 0; i < b->n; i++)
		if (procid_eq(b->m[i], id))
			return true;
	return false;
}

const struct boost *
boost_of(const struct core *c, pid_t pid, const char *hier)
{
	const struct proc *p = proctab_get(c->procs, pid);
	const struct boost *b;

	if (p == NULL || !(p->flags & PROC_BOOSTED))
		return NULL;
	TAILQ_FOREACH(b, &c->boosts->list, link)
	if (strcmp(b->hier, hier) == 0 && has_member(b, p->id))
		return b;
	return NULL;
}

static int
add_member(struct boost *b, struct procid id)
{
	if (has_member(b, id))
		return 0;
	struct procid *m = array_room(b->m, b->n, &b->cap, sizeof(*m), 4);

	if (m == NULL)
		return -ENOMEM;
	b->m = m;
	b->m[b->n++] = id;
	return 0;
}

/* Set or clear the BOOSTED flag of id to match the boost list. */
static void
update_flag(struct core *c, struct procid id)
{
	const struct proc *p = proctab_get(c->procs, id.pid);
	const struct boost *b;
	bool member = false;

	unsigned flags = p != NULL ? p->flags & ~PROC_BOOSTED : 0;

	if (p != NULL && !procid_eq(p->id, id)) {
		if (!task_alive(c->env.procroot, id))
			return; /* id is gone; the entry is another process's */
		flags = 0;	/* the entry is a gone process's: replace it */
	}
	TAILQ_FOREACH(b, &c->boosts->list, link)
	member = member || has_member(b, id);
	proc_set_flags(c, id, flags | (member ? PROC_BOOSTED : 0));
}

static void
boost_free(struct boost *b)
{
	if (b == NULL)
		return;
	free(b->hier);
	free(b->dest);
	free(b->profile);
	free(b->m);
	free(b);
}

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

/*
 * The state is two files.  The state file itself holds every boost and
 * is written durably (fsync of file and directory) when a boost starts,
 * ends or is restored: at most twice a second, from requests and expiry,
 * never because a process forked or exited.  Member churn -- a boosted
 * process forks, a member exits -- only rewrites STATE.members, the same
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
	struct save_cursor cur = { .b = TAILQ_FIRST(&c->boosts->list) };
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
		rc = statefile_save(path, next_record, &cur, &rep, true);
	} else {
		rc = statefile_save(mpath, next_record, &cur, &rep, false);
	}
	free(mpath);
	return rc;
}

/* ---- starting and ending ---------------------------------------------------- */

/* A boost destination: a valid group path, without blanks or control
 * characters (the state file is blank-separated, logs line-based). */
static const char *
bad_dest(const char *d)
{
	for (const char *p = d; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return "must not contain blanks or control characters";
	return rules_dest_problem(d);
}

static struct boost *
boost_new(const char *hier, const char *dest, const char *profile)
{
	struct boost *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return NULL;
	b->hier = strdup(hier);
	b->dest = strdup(dest);
	b->profile = profile != NULL ? strdup(profile) : NULL;
	if (b->hier == NULL || b->dest == NULL || (profile != NULL && b->profile == NULL)) {
		boost_free(b);
		return NULL;
	}
	return b;
}

/* Say why a request is refused, into err; rc (a negative errno). */
static int
refuse(int rc, char *err, size_t errlen, const char *fmt, ...)
	ATTR_PRINTF(4, 5);

static int
refuse(int rc, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* The profile named name, or NULL. */
static const struct boost_profile *
profile_of(const struct config *cfg, const char *name)
{
	for (size_t i = 0; name != NULL && i < cfg->nprofiles; i++)
		if (strcmp(cfg->profiles[i].name, name) == 0)
			return &cfg->profiles[i];
	return NULL;
}

/*
 * The caps on boosts held at once: boosts-per-user for each user but
 * root, max-boosts for each profile; 0 or -EDQUOT.  Counting walks the
 * boosts, at request time only (requests are rate-limited, and the
 * caps bound the list).
 */
static int
check_limits(const struct core *c, const struct boost_request *r, char *err, size_t errlen)
{
	const struct config *cfg = c->pol->cfg;
	const struct boost_profile *prof = profile_of(cfg, r->profile);
	const struct boost *b;
	size_t mine = 0, same = 0;

	if (r->owner == 0)
		return 0; /* root is not limited */
	TAILQ_FOREACH(b, &c->boosts->list, link)
	{
		mine += b->owner == r->owner;
		same += prof != NULL && b->profile != NULL && strcmp(b->profile, prof->name) == 0;
	}
	if (mine >= (size_t)cfg->boosts_per_user)
		return refuse(-EDQUOT, err, errlen,
			      "uid %u has %zu boosts already, the most boosts-per-user "
			      "allows; end one first (unboost)",
			      (unsigned)r->owner, mine);
	if (prof != NULL && same >= (size_t)prof->max_boosts)
		return refuse(-EDQUOT, err, errlen,
			      "boost profile %s has %zu boosts already, the most its "
			      "max-boosts allows; try again later",
			      prof->name, same);
	return 0;
}

/* Why r cannot start, into err, and -errno; 0 if it can (id is the
 * process, t its snapshot). */
static int
check_request(struct core *c, const struct boost_request *r, const struct hier **h,
	      struct procid *id, struct task *t, char *err, size_t errlen)
{
	const char *why;

	*h = policy_find(c->pol, r->hier);
	if (*h == NULL)
		return refuse(-ENOENT, err, errlen, "hierarchy '%s' is not managed", r->hier);
	if ((why = bad_dest(r->dest)) != NULL)
		return refuse(-EINVAL, err, errlen, "destination '%s' %s", r->dest, why);
	int i = policy_index(c->pol, *h);
	if (!layout_fits(c->pol, (size_t)i, r->dest))
		return refuse(-EINVAL, err, errlen,
			      "destination '%s' is deeper than the %u level%s of %s in the "
			      "unified layout",
			      r->dest, c->pol->depth[i], c->pol->depth[i] == 1 ? "" : "s",
			      r->hier);
	if (r->seconds <= 0 || r->seconds > BOOST_MAX_SECONDS)
		return refuse(-EINVAL, err, errlen, "the duration must be between 1s and 366d");
	if (c->boosts->next_id > BOOST_MAX_ID)
		return refuse(-ENOSPC, err, errlen, "no boost ids left; restart the daemon");
	if (task_read(c->env.procroot, r->pid, 0, t) < 0 ||
	    task_procid(c->env.procroot, r->pid, id) < 0)
		return refuse(-ESRCH, err, errlen, "no process %d", (int)r->pid);
	if (t->kthread)
		return refuse(-EPERM, err, errlen, "pid %d is a kernel thread", (int)r->pid);
	const struct proc *p = proc_known(c, r->pid);
	if (p != NULL && (p->flags & PROC_STICKY))
		return refuse(-EBUSY, err, errlen, "pid %d is sticky", (int)r->pid);
	const struct boost *old = boost_of(c, r->pid, (*h)->name);
	if (old != NULL)
		return refuse(-EEXIST, err, errlen, "pid %d already has boost #%u on %s",
			      (int)r->pid, old->id, (*h)->name);
	return check_limits(c, r, err, errlen);
}

/* Check a request and start the boost (the caller then classifies the
 * process); 0 with info filled, or -errno with a message in err. */
static int
boost_start(struct core *c, const struct boost_request *r, struct boost_info *info,
	    char *err, size_t errlen)
{
	const struct hier *h;
	struct procid id;
	struct task t;
	int rc;

	if ((rc = check_request(c, r, &h, &id, &t, err, errlen)) < 0)
		return rc;
	struct boost *b = boost_new(h->name, r->dest, r->profile);
	if (b == NULL || add_member(b, id) < 0) {
		boost_free(b);
		return refuse(-ENOMEM, err, errlen, "out of memory");
	}
	b->id = c->boosts->next_id++;
	b->owner = r->owner;
	b->expires = c->env.wall() + r->seconds;
	if (expiry_add(&c->boosts->expiries, b) < 0) {
		boost_free(b);
		return refuse(-ENOMEM, err, errlen, "out of memory");
	}
	TAILQ_INSERT_TAIL(&c->boosts->list, b, link);
	update_flag(c, id);
	log_notice("boost #%u: pid %d (%s) to %s:%s for %lds, asked by uid %u%s%s", b->id,
		   (int)r->pid, t.comm, b->hier, b->dest, r->seconds,
		   (unsigned)r->owner, r->profile ? ", profile " : "",
		   r->profile ? r->profile : "");
	/* a copy: the boost may end before the caller answers */
	*info = (struct boost_info){ .id = b->id, .expires = b->expires };
	snprintf(info->hier, sizeof(info->hier), "%s", b->hier);
	snprintf(info->dest, sizeof(info->dest), "%s", b->dest);
	boost_changed(c);
	return 0;
}

/* Take boost id out of the list; the caller reclassifies its members
 * and frees it with boost_free.  NULL if there is none. */
static struct boost *
boost_take(struct core *c, unsigned id)
{
	struct boost *b = find(c, id);

	if (b == NULL)
		return NULL;
	TAILQ_REMOVE(&c->boosts->list, b, link);
	expiry_remove(&c->boosts->expiries, b);
	for (size_t i = 0; i < b->n; i++)
		update_flag(c, b->m[i]);
	boost_changed(c);
	return b;
}

int
core_boost_start(struct core *c, const struct boost_request *r, struct boost_info *info,
		 char *err, size_t errlen)
{
	int rc = boost_start(c, r, info, err, errlen);

	if (rc < 0)
		return rc;
	classify_alone(c, r->pid); /* the process may be gone by now: info is a copy */
	core_sync_wants(c);	   /* forks reported before the answer */
	return 0;
}

int
core_boost_end(struct core *c, unsigned id, const char *why)
{
	struct boost *b = boost_take(c, id);

	if (b == NULL)
		return -ENOENT;
	log_notice("boost #%u ended (%s); %zu process%s back to the rules", b->id, why, b->n,
		   b->n == 1 ? "" : "es");
	struct decision *d = decision_new(c->pol);
	for (size_t i = 0; i < b->n; i++)
		if (d != NULL && task_alive(c->env.procroot, b->m[i]))
			classify(c, b->m[i].pid, d);
	if (d == NULL) {
		log_warning("out of memory: the processes of boost #%u are classified at a "
			    "rescan",
			    b->id);
		rescan_request(c, NULL);
	}
	decision_free(d);
	/* a full boost's group may still hold children of the children it
	 * refused, forked before those were placed: a rescan finds them */
	if (b->full)
		rescan_request(c, "for the processes a full boost did not admit");
	boost_free(b);
	return 0;
}

/* The id of a boost whose time has come, or 0: the heap's root, in
 * constant time however many boosts there are. */
static unsigned
boost_expired(const struct core *c)
{
	const struct boost *b = expiry_first(&c->boosts->expiries);

	return b != NULL && b->expires <= c->env.wall() ? b->id : 0;
}

/* The most processes one boost holds: what the state file keeps. */
static size_t
members_max(const struct core *c)
{
	return c->env.boost_members > 0 ? c->env.boost_members : STATEFILE_MAX_MEMBERS;
}

bool
boost_fork(struct core *c, struct procid parent, struct procid child)
{
	struct boost *b;
	bool joined = false, refused = false;

	TAILQ_FOREACH(b, &c->boosts->list, link)
	{
		if (!has_member(b, parent))
			continue;
		if (b->n >= members_max(c) || add_member(b, child) < 0) {
			/* a fork bomb does not grow it */
			if (!b->full)
				log_warning("boost #%u holds %zu processes, the most it may: "
					    "children forked from now on are not boosted but "
					    "placed by the rules",
					    b->id, b->n);
			b->full = true;
			refused = true;
			continue;
		}
		joined = true;
	}
	if (joined) {
		update_flag(c, child);
		boost_members_changed(c);
	}
	return refused;
}

void
boost_exit(struct core *c, struct procid id)
{
	struct boost *b, *next;
	bool changed = false, ended = false;

	for (b = TAILQ_FIRST(&c->boosts->list); b != NULL; b = next) {
		next = TAILQ_NEXT(b, link);
		for (size_t i = 0; i < b->n; i++) {
			if (!procid_eq(b->m[i], id))
				continue;
			b->m[i] = b->m[--b->n];
			changed = true;
			break;
		}
		if (b->n == 0) {
			TAILQ_REMOVE(&c->boosts->list, b, link);
			expiry_remove(&c->boosts->expiries, b);
			log_notice("boost #%u ended: its processes exited", b->id);
			boost_free(b);
			ended = true;
		}
	}
	if (ended)
		boost_changed(c);
	else if (changed)
		boost_members_changed(c);
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
	struct map newer; /* of struct newer_members; empty when none */
};

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
	if (policy_managed(c->pol, r->hier) == NULL) {
		log_warning("boost #%u dropped: hierarchy %s is no longer managed", r->id,
			    r->hier[0] ? r->hier : "unified");
		return 0;
	}
	const struct boost_profile *prof = profile_of(c->pol->cfg, r->profile);
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
	for (size_t i = 0; i < n && b->n < members_max(c); i++) {
		struct procid id = { .pid = m[i].pid, .start = m[i].start };

		if (task_alive(c->env.procroot, id) && add_member(b, id) < 0)
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
		update_flag(c, b->m[i]);
	log_notice("boost #%u restored: %zu process%s in %s:%s for %.0fs more", b->id, b->n,
		   b->n == 1 ? "" : "es", b->hier, b->dest, difftime(b->expires, now));
	return 0;
}

/* Parse the file at path, each record to fn; false if it is unreadable
 * (missing, refused). */
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
 * the daemon was stopped, are dropped.
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
		boost_changed(c); /* without the dropped ones */
	}
	newer_free(&rs.newer);
}

void
boost_free_all(struct core *c)
{
	struct boost *b;

	if (c->boosts == NULL)
		return;
	while ((b = TAILQ_FIRST(&c->boosts->list)) != NULL) {
		TAILQ_REMOVE(&c->boosts->list, b, link);
		boost_free(b);
	}
	expiry_free(&c->boosts->expiries);
	free(c->boosts);
	c->boosts = NULL;
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
static void
boost_changed(struct core *c)
{
	c->boosts->state_dirty = true;
	schedule(c, BOOST_SAVE_INTERVAL);
}

/* Only members changed (fork, exit): write STATE.members, without fsync,
 * at most every BOOST_MEMBERS_INTERVAL seconds. */
static void
boost_members_changed(struct core *c)
{
	c->boosts->members_dirty = true;
	schedule(c, BOOST_MEMBERS_INTERVAL);
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
static void
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

/* ---- the boosts' deadline -------------------------------------------------------- */

double
boost_deadline(const struct core *c, double now)
{
	const struct boost *b = expiry_first(&c->boosts->expiries);
	double t = c->boosts->save_at;

	if (b != NULL) {
		double left = difftime(b->expires, c->env.wall());
		double at = now + (left > 0 ? left : 0) + 1e-6;
		if (t <= 0 || at < t)
			t = at;
	}
	return t;
}

void
boost_timeout(struct core *c, double now)
{
	for (unsigned id; (id = boost_expired(c)) != 0;)
		(void)core_boost_end(c, id, "expired");
	if (c->boosts->save_at > 0 && now >= c->boosts->save_at)
		boost_save_now(c);
}

void
boost_stop(struct core *c)
{
	if (c->boosts->state_dirty || c->boosts->members_dirty) {
		c->boosts->state_dirty = true; /* the last write before exit is durable */
		boost_save_now(c);
	}
}
