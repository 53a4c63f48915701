/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * boost.c -- temporary boosts: "put this process in HIER:PATH for two
 * hours, then back".  A boost protects its processes (the one it was
 * given for and every child forked while it lasts) from the rules on
 * its hierarchy; when it expires or is cancelled they are classified
 * by the rules again.  Processes are identified by pid and start time,
 * so a reused pid never inherits a boost.  Active boosts are kept in a
 * state file (booststate.c) and restored after a restart.
 *
 * The boosts are this file's and booststate.c's alone (struct boosts,
 * boost_private.h): a request enters by core_boost_start() or
 * core_boost_end(), which classify the processes concerned; expiry and
 * the state file's writes are due at boost_deadline(), done by
 * boost_timeout().
 */
#include "boost_private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int
boost_add_member(struct boost *b, struct procid id)
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
void
boost_update_flag(struct core *c, struct procid id)
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

void
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

struct boost *
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
const struct boost_profile *
boost_profile_of(const struct config *cfg, const char *name)
{
	for (size_t i = 0; name != NULL && i < cfg->nprofiles; i++)
		if (strcmp(cfg->profiles[i].name, name) == 0)
			return &cfg->profiles[i];
	return NULL;
}

int
core_profile_grant(const struct core *c, const char *name, uid_t uid,
		   const struct boost_profile **out, char *err, size_t len)
{
	const struct boost_profile *p = boost_profile_of(core_policy(c)->cfg, name);

	if (p == NULL) {
		snprintf(err, len, "no boost profile '%s'", name);
		return -ENOENT;
	}
	if (uid != 0 && !profile_granted(p, uid)) {
		snprintf(err, len, "permission denied: boost profile '%s' is not granted to uid %u",
			 p->name, (unsigned)uid);
		return -EPERM;
	}
	*out = p;
	return 0;
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
	const struct boost_profile *prof = boost_profile_of(cfg, r->profile);
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
	/* a boost is of processes: the kernel moves a thread's whole
	 * process, and reports its exit by the process's pid */
	if (t->tgid > 0 && t->tgid != r->pid)
		return refuse(-EINVAL, err, errlen,
			      "pid %d is a thread of process %d; boost the process",
			      (int)r->pid, (int)t->tgid);
	const struct proc *p = proc_known(c, r->pid);
	if (p != NULL && (p->flags & PROC_STICKY))
		return refuse(-EBUSY, err, errlen, "pid %d is sticky", (int)r->pid);
	const struct boost *old = boost_of(c, r->pid, (*h)->name);
	if (old != NULL)
		return refuse(-EEXIST, err, errlen, "pid %d already has boost #%u on %s",
			      (int)r->pid, old->id, (*h)->name);
	return check_limits(c, r, err, errlen);
}

/* Is some member of b still running? */
static bool
any_alive(const struct core *c, const struct boost *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (task_alive(c->env.procroot, b->m[i]))
			return true;
	return false;
}

/*
 * End the boosts counted against r's caps whose processes are all gone
 * though no exit said so (events lost, or a state file of a version
 * that let a thread be boosted): they must not hold the quota.  The
 * first live member ends the look at a boost.
 */
static void
end_gone(struct core *c, const struct boost_request *r)
{
	struct boost *b, *next;

	if (r->owner == 0)
		return; /* root is not limited */
	for (b = TAILQ_FIRST(&c->boosts->list); b != NULL; b = next) {
		next = TAILQ_NEXT(b, link);
		bool counted = b->owner == r->owner ||
			       (r->profile != NULL && b->profile != NULL &&
				strcmp(b->profile, r->profile) == 0);
		if (counted && !any_alive(c, b))
			(void)core_boost_end(c, b->id, "its processes are gone");
	}
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

	end_gone(c, r);
	if ((rc = check_request(c, r, &h, &id, &t, err, errlen)) < 0)
		return rc;
	struct boost *b = boost_new(h->name, r->dest, r->profile);
	if (b == NULL || boost_add_member(b, id) < 0) {
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
	boost_update_flag(c, id);
	priority_boost_start(c, b, r->pid);
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
		boost_update_flag(c, b->m[i]);
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
		if (d != NULL && task_alive(c->env.procroot, b->m[i])) {
			d->prio.prio.set = 0; /* unless decided anew */
			classify(c, b->m[i].pid, d);
			priority_boost_end(c, b, b->m[i].pid, d);
		}
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

/* ---- a new policy: boosts follow their profiles ------------------------------------ */

/*
 * Where boost b belongs under the policy in force: a boost of a profile
 * goes where the profile says now (its hierarchy and destination may
 * have changed), root's own boost stays where it is.  NULL with h and
 * dest set, or why it cannot go on.
 */
static const char *
belongs(const struct core *c, const struct boost *b, const struct hier **h,
	const char **dest)
{
	const struct policy *p = c->pol;

	*dest = b->dest;
	if (b->profile != NULL) {
		const struct boost_profile *prof = boost_profile_of(p->cfg, b->profile);
		if (prof == NULL)
			return "its boost profile no longer exists";
		*h = policy_find(p, prof->hier);
		*dest = prof->dest;
	} else {
		*h = policy_managed(p, b->hier);
	}
	if (*h == NULL)
		return "its hierarchy is no longer managed";
	if (!layout_fits(p, (size_t)policy_index(p, *h), *dest))
		return "its destination is deeper than the unified layout now allows";
	return NULL;
}

/* Does a member of b have another boost on hierarchy hier? */
static bool
overlaps(const struct core *c, const struct boost *b, const char *hier)
{
	const struct boost *o;

	TAILQ_FOREACH(o, &c->boosts->list, link)
	{
		if (o == b || strcmp(o->hier, hier) != 0)
			continue;
		for (size_t i = 0; i < b->n; i++)
			if (has_member(o, b->m[i]))
				return true;
	}
	return false;
}

/* Move b to hier:dest (the caller classifies its members); 1 if it
 * moved, 0 if it was there already, -ENOMEM (b unchanged). */
static int
retarget(struct boost *b, const char *hier, const char *dest)
{
	if (strcmp(b->hier, hier) == 0 && strcmp(b->dest, dest) == 0)
		return 0;
	char *nh = strdup(hier), *nd = strdup(dest);
	if (nh == NULL || nd == NULL) {
		free(nh);
		free(nd);
		return -ENOMEM;
	}
	free(b->hier);
	free(b->dest);
	b->hier = nh;
	b->dest = nd;
	return 1;
}

/* A profile's max-duration may have been lowered: b ends by then. */
static void
shorten(struct core *c, struct boost *b)
{
	const struct boost_profile *prof = boost_profile_of(c->pol->cfg, b->profile);
	time_t now = c->env.wall();

	if (prof == NULL || difftime(b->expires, now) <= (double)prof->max_seconds)
		return;
	b->expires = now + prof->max_seconds;
	expiry_changed(&c->boosts->expiries, b);
	log_notice("boost #%u shortened to the %lds of profile %s", b->id, prof->max_seconds,
		   prof->name);
}

/*
 * After a reload: each running boost of a profile follows the profile
 * (re-targeted to its hierarchy and destination, shortened to its
 * max-duration); a boost that cannot go on -- its profile or
 * hierarchy gone, its destination too deep for the layout, or a member
 * boosted on the new hierarchy already -- ends, its processes back to
 * the rules.  The rescan that follows a reload moves the members.
 */
void
boost_policy(struct core *c)
{
	struct boost *b, *next;
	bool changed = false;

	for (b = TAILQ_FIRST(&c->boosts->list); b != NULL; b = next) {
		const struct hier *h = NULL;
		const char *dest, *why;
		char was[RULES_DEST_MAX + STATEFILE_NAME_MAX + 2];

		next = TAILQ_NEXT(b, link);
		why = belongs(c, b, &h, &dest);
		if (why == NULL && strcmp(h->name, b->hier) != 0 && overlaps(c, b, h->name))
			why = "a process of it has another boost on the profile's new hierarchy";
		snprintf(was, sizeof(was), "%s:%s", b->hier, b->dest);
		int rc = why != NULL ? 0 : retarget(b, h->name, dest);
		if (rc == -ENOMEM)
			why = "out of memory";
		if (why != NULL) {
			(void)core_boost_end(c, b->id, why);
			continue;
		}
		shorten(c, b);
		if (rc == 1) {
			log_notice("boost #%u re-targeted from %s to %s:%s: profile %s changed",
				   b->id, was, b->hier, b->dest, b->profile);
			changed = true;
		}
	}
	if (changed)
		boost_changed(c);
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
size_t
boost_members_max(const struct core *c)
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
		if (b->n >= boost_members_max(c) || boost_add_member(b, child) < 0) {
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
		boost_update_flag(c, child);
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
