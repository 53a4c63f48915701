/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dbus.c -- the desktop's door (dbus.h, docs/dbus.md): the daemon's
 * D-Bus API on the system bus, sd-bus in the daemon's loop.
 *
 * A method call is a struct door_call that waits, never blocking the
 * loop, for the answers it needs, each asked asynchronously: the
 * caller's credentials from the bus broker (GetConnectionCredentials),
 * then -- as the decision table (dbusauth.c) says -- polkit's
 * CheckAuthorization for the caller's bus name, and logind's word that
 * the caller's user is active on its seat.  Then the core's verb runs
 * (core/verbs.c, as for the control socket: the boost profiles' grants
 * and the per-user caps apply) and the call is answered.  A process is
 * named by a pidfd (or a pid and its start time), held while the call
 * waits: a pid reused meanwhile is refused, never boosted.
 *
 * The foreground: one process at a time holds the foreground-profile's
 * grant (foreground.h), owned by the caller's uid; a new foreground ends
 * the previous one's, and so does the caller of SetForeground leaving
 * the bus (NameOwnerChanged).
 */
#include "dbus.h"
#include "foreground.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define CALLS_MAX	 256 /* calls waiting at once, every caller together */
#define CALLS_PER_SENDER 8   /* calls one bus connection may have waiting */
#define CALLS_PER_UID	 16  /* calls one uid but root may have waiting */
#define PROFILE_MAX	 128 /* the longest profile name taken */
#define ASK_US		 (25 * 1000000ULL)  /* broker, logind, polkit without a dialog */
#define ASK_DIALOG_US	 (120 * 1000000ULL) /* polkit asking the user for a password */
#define FG_RATE		 5.0 /* foreground changes a uid may make a second */
#define FG_BURST	 10.0
#define FG_USERS	 1024
#define TICK_US		 1000000ULL /* the boosts are looked at once a second */
#define SYSTEM_BUS	 "unix:path=/run/dbus/system_bus_socket"

enum call_stage { ASK_CREDS, ASK_POLKIT, ASK_USER, ASK_STATE };

struct door_call {
	TAILQ_ENTRY(door_call) link;
	struct door *d;
	sd_bus_message *m; /* the method call, referenced until answered */
	sd_bus_slot *slot; /* the question in flight on its behalf */
	enum door_method method;
	enum call_stage stage;
	char sender[256];
	bool known; /* uid and caller learnt from the broker */
	uid_t uid;
	pid_t caller;
	int pidfd; /* the process asked about (ours, -1: none) */
	pid_t pid;
	struct door_need need;
	bool s76; /* s76's SetForegroundProcess: its grant outlives its caller */
	char profile[PROFILE_MAX];
	uint32_t seconds, id;
};
TAILQ_HEAD(door_calls, door_call);

struct door {
	sd_bus *bus;
	struct core *core;
	char *address;
	double now;	   /* the loop's clock while dbus_process() runs */
	uint64_t retry_at; /* connect then (monotonic us; 0: connected) */
	struct backoff reconnect;
	struct door_calls calls;
	size_t ncalls;
	struct ratelimit fg_rate;
	struct log_limit denials;
	struct foreground *shared; /* the foreground, whoever set it (borrowed) */
	struct {
		char owner[256]; /* the caller's bus name */
		unsigned grant; /* its grant (foreground.h; 0: none, or not the door's) */
		sd_bus_slot *watch; /* NameOwnerChanged of owner */
	} fg;
	uint64_t seen; /* the boosts' fingerprint last told (BoostsChanged) */
};

/* ---- calls: made, answered, freed --------------------------------------------------- */

static void
call_free(struct door_call *c)
{
	TAILQ_REMOVE(&c->d->calls, c, link);
	c->d->ncalls--;
	sd_bus_slot_unref(c->slot);
	sd_bus_message_unref(c->m);
	if (c->pidfd >= 0)
		close(c->pidfd);
	free(c);
}

static void
deny_log(struct door *d, const struct door_call *c, const char *why)
{
	unsigned long held;

	if (!log_limit_pass(&d->denials, d->now, &held))
		return;
	if (held > 0)
		log_warning("dbus: %lu more denials not logged", held);
	log_warning("dbus: uid %u (%s) denied: %s", (unsigned)c->uid, c->sender, why);
}

/* Answer c with error name (message fmt) and free it. */
static void
fail(struct door_call *c, const char *name, const char *fmt, ...) ATTR_PRINTF(3, 4);

static void
fail(struct door_call *c, const char *name, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (strcmp(name, SD_BUS_ERROR_ACCESS_DENIED) == 0)
		deny_log(c->d, c, msg);
	if (sd_bus_reply_method_errorf(c->m, name, "%s", msg) < 0)
		log_debug("dbus: cannot answer %s", c->sender);
	call_free(c);
}

static int
limits(sd_bus_error *e, const char *what)
{
	return sd_bus_error_setf(e, SD_BUS_ERROR_LIMITS_EXCEEDED, "%s", what);
}

/*
 * A call for m; NULL with e set when a cap refuses it.  Its sender's
 * calls are counted here, its uid's once the broker has named it.
 */
static struct door_call *
call_new(struct door *d, sd_bus_message *m, enum door_method method, sd_bus_error *e)
{
	const char *sender = sd_bus_message_get_sender(m);
	struct door_call *c;
	size_t same = 0;

	if (sender == NULL || strlen(sender) >= sizeof(c->sender)) {
		sd_bus_error_set(e, SD_BUS_ERROR_ACCESS_DENIED, "no sender");
		return NULL;
	}
	TAILQ_FOREACH (c, &d->calls, link)
		same += strcmp(c->sender, sender) == 0;
	if (d->ncalls >= CALLS_MAX || same >= CALLS_PER_SENDER) {
		limits(e, "too many calls waiting, try again");
		return NULL;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		sd_bus_error_set_errno(e, ENOMEM);
		return NULL;
	}
	c->d = d;
	c->m = sd_bus_message_ref(m);
	c->method = method;
	c->pidfd = -1;
	memcpy(c->sender, sender, strlen(sender) + 1);
	TAILQ_INSERT_TAIL(&d->calls, c, link);
	d->ncalls++;
	return c;
}

/* ---- the boosts' changes -------------------------------------------------------------- */

void
dbus_boosts_changed(struct door *d)
{
	const struct boost *b;
	uint64_t h = 1469598103934665603ULL;

	if (d == NULL || d->bus == NULL)
		return;
	TAILQ_FOREACH (b, core_boosts(d->core), link)
		h = (h ^ ((uint64_t)b->id << 32 ^ (uint64_t)b->n)) * 1099511628211ULL;
	if (h == d->seen)
		return;
	d->seen = h;
	if (sd_bus_emit_signal(d->bus, DOOR_PATH, DOOR_INTERFACE, "BoostsChanged", "") <
	    0)
		log_debug("dbus: cannot send BoostsChanged");
}

/* ---- running the core's verb ------------------------------------------------------------- */

static void verb_fail(struct door_call *c, int rc, const char *err);

/* Run verb argv for c as uid; 0 with *out (the caller frees it), or
 * -errno after answering c (then freed). */
static int
verb(struct door_call *c, uid_t uid, int argc, char **argv, json_t **out)
{
	struct verbs_request rq = { .core = c->d->core,
				    .now = c->d->now,
				    .uid = uid,
				    .pid = c->caller,
				    .json = true };
	char err[512] = "";
	int rc = verbs_run(&rq, argc, argv, out, err, sizeof(err));

	if (rc < 0)
		verb_fail(c, rc, err);
	return rc;
}

/* Answer c with what the verb's rc and message err say. */
static void
verb_fail(struct door_call *c, int rc, const char *err)
{
	if (rc == -EPERM || strncmp(err, "permission denied", 17) == 0)
		fail(c, SD_BUS_ERROR_ACCESS_DENIED, "%s", err);
	else
		fail(c, DOOR_ERROR, "%s", err);
}

/* Answer c with the JSON text of v (a value to read, the verbs' own). */
static void
reply_json(struct door_call *c, json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT);

	if (s == NULL) {
		fail(c, DOOR_ERROR, "out of memory");
		return;
	}
	if (sd_bus_reply_method_return(c->m, "s", s) < 0)
		log_debug("dbus: cannot answer %s", c->sender);
	free(s);
	call_free(c);
}

static void fg_lost(struct door *d, const char *why);
static int fg_watch(struct door *d, const char *owner);

/* Start c's boost of profile (seconds: 0 = the profile's longest) as
 * uid; its id, or 0 after answering c. */
static unsigned
boost(struct door_call *c, uid_t uid, const char *profile, uint32_t seconds)
{
	char pid[16], secs[16];
	char *argv[] = { "boost", "--profile", (char *)profile, pid, secs };
	json_t *r;

	snprintf(pid, sizeof(pid), "%d", (int)c->pid);
	snprintf(secs, sizeof(secs), "%" PRIu32 "s", seconds);
	if (verb(c, uid, seconds ? 5 : 4, argv, &r) < 0)
		return 0;
	unsigned id = (unsigned)json_integer_value(json_object_get(r, "id"));
	json_decref(r);
	return id;
}

/* The foreground is c's process now: the previous one's boost ends. */
static void
foreground(struct door_call *c)
{
	struct door *d = c->d;
	char err[512] = "";
	unsigned id;
	int rc;

	fg_lost(d, "the foreground changed");
	if ((rc = foreground_set(d->shared, d->now, c->pid, c->pidfd, c->uid, c->caller,
				 &id, err, sizeof(err))) < 0) {
		verb_fail(c, rc, err);
		return;
	}
	d->fg.grant = id;
	/* s76's callers are often one-shot (busctl from a window manager's
	 * hook): its grant lasts until replaced or expired, as there */
	if (!c->s76)
		str_copy(d->fg.owner, sizeof(d->fg.owner), c->sender);
	if (!c->s76 &&
	    fg_watch(d, c->sender) < 0) { /* unwatched, it could outlive its caller */
		fg_lost(d, "its caller cannot be watched");
		fail(c, DOOR_ERROR, "cannot watch the caller's name");
		return;
	}
	log_info("dbus: uid %u made pid %d the foreground (grant #%u)", (unsigned)c->uid,
		 (int)c->pid, id);
	sd_bus_reply_method_return(c->m, "");
	call_free(c);
}

/* Everything c needed is known and allowed: run it. */
static void
run(struct door_call *c)
{
	uid_t uid = c->need.as_root ? 0 : c->uid;
	char arg[32];
	char *argv[2] = { NULL, arg };
	json_t *r;
	unsigned id;

	if (c->pidfd >= 0 && !pidfd_running(c->pidfd)) {
		fail(c, DOOR_ERROR, "the process has exited");
		return;
	}
	switch (c->method) {
	case DOOR_STATUS:
	case DOOR_LIST:
	case DOOR_EXPLAIN:
		argv[0] = c->method == DOOR_STATUS ? "status"
			  : c->method == DOOR_LIST ? "boosts"
						   : "explain";
		snprintf(arg, sizeof(arg), "%d", (int)c->pid);
		if (verb(c, uid, c->method == DOOR_EXPLAIN ? 2 : 1, argv, &r) < 0)
			return;
		reply_json(c, r);
		json_decref(r);
		return;
	case DOOR_UNBOOST:
		argv[0] = "unboost";
		snprintf(arg, sizeof(arg), "#%" PRIu32, c->id);
		if (verb(c, uid, 2, argv, &r) < 0)
			return;
		json_decref(r);
		sd_bus_reply_method_return(c->m, "");
		call_free(c);
		return;
	case DOOR_BOOST:
		/* boost() answers and frees c when it returns 0 */
		if ((id = boost(c, uid, c->profile, c->seconds)) == 0)
			return;
		c->id = id;
		sd_bus_reply_method_return(c->m, "u", c->id);
		call_free(c);
		return;
	case DOOR_FOREGROUND:
		foreground(c);
		return;
	}
}

/* ---- the questions: broker, polkit, logind --------------------------------------------- */

static int creds_cb(sd_bus_message *m, void *userdata, sd_bus_error *e);
static int polkit_cb(sd_bus_message *m, void *userdata, sd_bus_error *e);
static int logind_cb(sd_bus_message *m, void *userdata, sd_bus_error *e);

/* The next question c's need asks, or run it. */
static void
next(struct door_call *c)
{
	struct door *d = c->d;
	sd_bus_message *q = NULL;
	int rc;

	if (c->stage < ASK_POLKIT && c->need.action != NULL) {
		c->stage = ASK_POLKIT;
		bool dialog =
			sd_bus_message_get_allow_interactive_authorization(c->m) > 0;
		rc = sd_bus_message_new_method_call(
			d->bus, &q, "org.freedesktop.PolicyKit1",
			"/org/freedesktop/PolicyKit1/Authority",
			"org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
		if (rc >= 0)
			rc = sd_bus_message_append(q, "(sa{sv})sa{ss}us",
						   "system-bus-name", 1, "name", "s",
						   c->sender, c->need.action, 0,
						   (uint32_t)(dialog ? 1 : 0), "");
		if (rc >= 0)
			rc = sd_bus_call_async(d->bus, &c->slot, q, polkit_cb, c,
					       dialog ? ASK_DIALOG_US : ASK_US);
		sd_bus_message_unref(q);
	} else if (c->stage < ASK_USER && c->need.session) {
		c->stage = ASK_USER;
		rc = sd_bus_call_method_async(d->bus, &c->slot, "org.freedesktop.login1",
					      "/org/freedesktop/login1",
					      "org.freedesktop.login1.Manager", "GetUser",
					      logind_cb, c, "u", (uint32_t)c->uid);
	} else {
		run(c);
		return;
	}
	if (rc < 0)
		fail(c, DOOR_ERROR, "cannot ask: %s", strerror(-rc));
}

/* Read the broker's credentials of the caller (a{sv}) into c. */
static int
read_creds(sd_bus_message *m, struct door_call *c)
{
	bool uid = false, pid = false;
	const char *key;
	int rc;

	if ((rc = sd_bus_message_enter_container(m, 'a', "{sv}")) < 0)
		return rc;
	while ((rc = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		uint32_t v;

		if ((rc = sd_bus_message_read(m, "s", &key)) < 0)
			return rc;
		if (strcmp(key, "UnixUserID") == 0 || strcmp(key, "ProcessID") == 0) {
			if ((rc = sd_bus_message_read(m, "v", "u", &v)) < 0)
				return rc;
			if (key[0] == 'U')
				c->uid = v, uid = true;
			else
				c->caller = (pid_t)v, pid = true;
		} else if ((rc = sd_bus_message_skip(m, "v")) < 0) {
			return rc;
		}
		if ((rc = sd_bus_message_exit_container(m)) < 0)
			return rc;
	}
	return rc < 0 ? rc : uid && pid ? 0 : -ENODATA;
}

/* The uid the process c asks about belongs to, for the table: the
 * caller's when the caller owns it (as the verbs say). */
static int
target_uid(struct door_call *c, uid_t *out)
{
	struct task t;

	if (c->pidfd < 0) {
		*out = c->uid;
		return 0;
	}
	if (core_read_task(c->d->core, c->pid, &t) < 0)
		return -ESRCH;
	*out = (t.uid == c->uid || t.euid == c->uid) ? c->uid : t.euid;
	return 0;
}

/* Has c's uid too many calls waiting? */
static bool
uid_full(const struct door_call *c)
{
	const struct door_call *o;
	size_t n = 0;

	TAILQ_FOREACH (o, &c->d->calls, link)
		n += o->known && o->uid == c->uid;
	return c->uid != 0 && n > CALLS_PER_UID;
}

static int
creds_cb(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct door_call *c = userdata;
	uid_t target;
	bool first;

	c->slot = sd_bus_slot_unref(c->slot);
	if (sd_bus_message_is_method_error(m, NULL) || read_creds(m, c) < 0) {
		fail(c, DOOR_ERROR, "the bus did not say who is calling");
		return 0;
	}
	c->known = true;
	if (uid_full(c)) {
		fail(c, SD_BUS_ERROR_LIMITS_EXCEEDED, "too many calls of uid %u waiting",
		     (unsigned)c->uid);
		return 0;
	}
	if (c->method == DOOR_FOREGROUND &&
	    !ratelimit_take(&c->d->fg_rate, c->uid, c->d->now, &first)) {
		fail(c, SD_BUS_ERROR_LIMITS_EXCEEDED,
		     "foreground changes too fast, slow down");
		return 0;
	}
	if (target_uid(c, &target) < 0) {
		fail(c, DOOR_ERROR, "no process %d of uid %u", (int)c->pid,
		     (unsigned)c->uid);
		return 0;
	}
	dbusauth_need(c->method, c->uid, target, &c->need);
	if (c->need.deny != NULL) {
		fail(c, SD_BUS_ERROR_ACCESS_DENIED, "%s", c->need.deny);
		return 0;
	}
	next(c);
	return 0;
}

static int
polkit_cb(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct door_call *c = userdata;
	enum door_polkit a = DOOR_POLKIT_ABSENT;
	int yes = 0, challenge = 0;

	c->slot = sd_bus_slot_unref(c->slot);
	if (!sd_bus_message_is_method_error(m, NULL) &&
	    sd_bus_message_enter_container(m, 'r', "bba{ss}") > 0 &&
	    sd_bus_message_read(m, "bb", &yes, &challenge) >= 0)
		a = yes ? DOOR_POLKIT_YES : DOOR_POLKIT_NO;
	const char *no = dbusauth_polkit(a);
	if (no != NULL) {
		fail(c, SD_BUS_ERROR_ACCESS_DENIED, "%s: %s", c->need.action, no);
		return 0;
	}
	next(c);
	return 0;
}

/* logind: GetUser(uid) named the user's object; then its State. */
static int
logind_cb(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct door_call *c = userdata;
	const char *s = NULL;
	int rc;

	c->slot = sd_bus_slot_unref(c->slot);
	if (sd_bus_message_is_method_error(m, NULL))
		rc = -EIO;
	else if (c->stage == ASK_USER)
		rc = sd_bus_message_read(m, "o", &s);
	else
		rc = sd_bus_message_read(m, "v", "s", &s);
	if (rc < 0) {
		fail(c, SD_BUS_ERROR_ACCESS_DENIED, "uid %u has no active session",
		     (unsigned)c->uid);
		return 0;
	}
	if (c->stage == ASK_STATE) {
		if (strcmp(s, "active") != 0) {
			fail(c, SD_BUS_ERROR_ACCESS_DENIED,
			     "uid %u has no active session (%s)", (unsigned)c->uid, s);
			return 0;
		}
		next(c);
		return 0;
	}
	c->stage = ASK_STATE;
	rc = sd_bus_call_method_async(c->d->bus, &c->slot, "org.freedesktop.login1", s,
				      "org.freedesktop.DBus.Properties", "Get", logind_cb,
				      c, "ss", "org.freedesktop.login1.User", "State");
	if (rc < 0)
		fail(c, DOOR_ERROR, "cannot ask logind: %s", strerror(-rc));
	return 0;
}

/* Ask the broker who sent c (the first question of every call). */
static int
ask_creds(struct door_call *c)
{
	c->stage = ASK_CREDS;
	return sd_bus_call_method_async(c->d->bus, &c->slot, "org.freedesktop.DBus",
					"/org/freedesktop/DBus", "org.freedesktop.DBus",
					"GetConnectionCredentials", creds_cb, c, "s",
					c->sender);
}

/* ---- the foreground's caller, watched ------------------------------------------------------ */

/* The door's foreground ends (its boost, if it is still the
 * foreground, and the watch of its caller). */
static void
fg_lost(struct door *d, const char *why)
{
	if (d->fg.grant != 0)
		foreground_end(d->shared, d->fg.grant, why);
	d->fg.grant = 0;
	d->fg.owner[0] = '\0';
	d->fg.watch = sd_bus_slot_unref(d->fg.watch);
}

/* NameOwnerChanged of the foreground's caller: it left the bus. */
static int
owner_cb(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct door *d = userdata;
	const char *name, *old, *new, *from = sd_bus_message_get_sender(m);

	if (from == NULL || strcmp(from, "org.freedesktop.DBus") != 0 ||
	    sd_bus_message_read(m, "sss", &name, &old, &new) < 0)
		return 0; /* only the broker's word counts */
	if (new[0] != '\0' || strcmp(name, d->fg.owner) != 0)
		return 0;
	log_info("dbus: %s left the bus: the foreground grant #%u ends", name,
		 d->fg.grant);
	fg_lost(d, "its caller left the bus");
	dbus_boosts_changed(d);
	return 0;
}

static int
fg_watch(struct door *d, const char *owner)
{
	char rule[512];

	snprintf(
		rule, sizeof(rule),
		"type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
		"interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='%s'",
		owner);
	return sd_bus_add_match_async(d->bus, &d->fg.watch, rule, owner_cb, NULL, d);
}

/* ---- the methods ----------------------------------------------------------------------------- */

static int
started(struct door_call *c, sd_bus_error *e)
{
	int rc = ask_creds(c);

	if (rc < 0) {
		call_free(c);
		return rc;
	}
	return 1; /* answered later */
}

/* c names the process of pidfd fd (the message's): c holds its own. */
static int
take_pidfd(struct door_call *c, int fd, sd_bus_error *e)
{
	int rc;

	if ((c->pidfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return sd_bus_error_set_errno(e, errno);
	if ((rc = pidfd_pid(c->pidfd, &c->pid)) == -EBADF)
		return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS, "not a pidfd");
	if (rc < 0)
		return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS,
					"the process has exited");
	return 0;
}

/* c names pid, whose start time (clock ticks since boot) must be start
 * (when start is not UINT64_MAX): held by a pidfd from now on. */
static int
take_pid(struct door_call *c, uint32_t pid, uint64_t start, sd_bus_error *e)
{
	uint64_t now;

	if (pid == 0 || pid > 0x3fffffff || (c->pidfd = pidfd_open_pid((pid_t)pid)) < 0)
		return sd_bus_error_setf(e, SD_BUS_ERROR_INVALID_ARGS,
					 "no process %" PRIu32, pid);
	c->pid = (pid_t)pid;
	/* read after the pidfd is held: a process that still runs then is
	 * the one of this start time */
	if (start != UINT64_MAX && (task_start_time("/proc", c->pid, &now) < 0 ||
				    now != start || !pidfd_running(c->pidfd)))
		return sd_bus_error_setf(e, SD_BUS_ERROR_INVALID_ARGS,
					 "pid %" PRIu32
					 " is not the process started at %" PRIu64,
					 pid, start);
	return 0;
}

/* A method whose arguments are read by fn into c: read, then started. */
static int
method(sd_bus_message *m, void *userdata, sd_bus_error *e, enum door_method kind,
       int (*fn)(sd_bus_message *m, struct door_call *c, sd_bus_error *e))
{
	struct door_call *c = call_new(userdata, m, kind, e);
	int rc;

	if (c == NULL)
		return -EBUSY; /* e is set */
	if (fn != NULL && (rc = fn(m, c, e)) < 0) {
		call_free(c);
		return rc;
	}
	return started(c, e);
}

static int
args_boost(sd_bus_message *m, struct door_call *c, sd_bus_error *e)
{
	const char *profile;
	int fd, rc;

	if ((rc = sd_bus_message_read(m, "hsu", &fd, &profile, &c->seconds)) < 0)
		return rc;
	if (strlen(profile) >= sizeof(c->profile))
		return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS,
					"profile name too long");
	str_copy(c->profile, sizeof(c->profile), profile);
	return take_pidfd(c, fd, e);
}

static int
args_boost_pid(sd_bus_message *m, struct door_call *c, sd_bus_error *e)
{
	const char *profile;
	uint32_t pid;
	uint64_t start;
	int rc;

	if ((rc = sd_bus_message_read(m, "utsu", &pid, &start, &profile, &c->seconds)) <
	    0)
		return rc;
	if (strlen(profile) >= sizeof(c->profile))
		return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS,
					"profile name too long");
	str_copy(c->profile, sizeof(c->profile), profile);
	return take_pid(c, pid, start, e);
}

static int
args_pidfd(sd_bus_message *m, struct door_call *c, sd_bus_error *e)
{
	int fd, rc;

	if ((rc = sd_bus_message_read(m, "h", &fd)) < 0)
		return rc;
	return take_pidfd(c, fd, e);
}

static int
args_pid(sd_bus_message *m, struct door_call *c, sd_bus_error *e)
{
	uint32_t pid;
	int rc;

	if ((rc = sd_bus_message_read(m, "u", &pid)) < 0)
		return rc;
	c->s76 = true;
	return take_pid(c, pid, UINT64_MAX, e);
}

static int
args_id(sd_bus_message *m, struct door_call *c, sd_bus_error *e)
{
	return sd_bus_message_read(m, "u", &c->id);
}

static int
m_boost(sd_bus_message *m, void *d, sd_bus_error *e)
{
	return method(m, d, e, DOOR_BOOST, args_boost);
}

static int
m_boost_pid(sd_bus_message *m, void *d, sd_bus_error *e)
{
	return method(m, d, e, DOOR_BOOST, args_boost_pid);
}

static int
m_unboost(sd_bus_message *m, void *d, sd_bus_error *e)
{
	return method(m, d, e, DOOR_UNBOOST, args_id);
}

static int
m_list(sd_bus_message *m, void *d, sd_bus_error *e)
{
	return method(m, d, e, DOOR_LIST, NULL);
}

static int
m_status(sd_bus_message *m, void *d, sd_bus_error *e)
{
	return method(m, d, e, DOOR_STATUS, NULL);
}

static int
m_explain(sd_bus_message *m, void *d, sd_bus_error *e)
{
	return method(m, d, e, DOOR_EXPLAIN, args_pidfd);
}

static int
m_foreground(sd_bus_message *m, void *d, sd_bus_error *e)
{
	return method(m, d, e, DOOR_FOREGROUND, args_pidfd);
}

/* s76's SetForegroundProcess(u pid): a pid, held from the call on. */
static int
m_s76(sd_bus_message *m, void *d, sd_bus_error *e)
{
	return method(m, d, e, DOOR_FOREGROUND, args_pid);
}

/* clang-format off */
#define ANYONE SD_BUS_VTABLE_UNPRIVILEGED /* the door decides, not sd-bus */
static const sd_bus_vtable door_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD_WITH_NAMES("Boost", "hsu", SD_BUS_PARAM(pidfd) SD_BUS_PARAM(profile)
				 SD_BUS_PARAM(seconds), "u", SD_BUS_PARAM(id), m_boost, ANYONE),
	SD_BUS_METHOD_WITH_NAMES("BoostPid", "utsu", SD_BUS_PARAM(pid) SD_BUS_PARAM(starttime)
				 SD_BUS_PARAM(profile) SD_BUS_PARAM(seconds), "u",
				 SD_BUS_PARAM(id), m_boost_pid, ANYONE),
	SD_BUS_METHOD_WITH_NAMES("Unboost", "u", SD_BUS_PARAM(id), "", , m_unboost, ANYONE),
	SD_BUS_METHOD_WITH_NAMES("ListBoosts", "", , "s", SD_BUS_PARAM(json), m_list, ANYONE),
	SD_BUS_METHOD_WITH_NAMES("Explain", "h", SD_BUS_PARAM(pidfd), "s", SD_BUS_PARAM(json),
				 m_explain, ANYONE),
	SD_BUS_METHOD_WITH_NAMES("Status", "", , "s", SD_BUS_PARAM(json), m_status, ANYONE),
	SD_BUS_METHOD_WITH_NAMES("SetForeground", "h", SD_BUS_PARAM(pidfd), "", , m_foreground,
				 ANYONE),
	SD_BUS_SIGNAL("BoostsChanged", "", 0),
	SD_BUS_VTABLE_END,
};

static const sd_bus_vtable s76_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD_WITH_NAMES("SetForegroundProcess", "u", SD_BUS_PARAM(pid), "", , m_s76,
				 ANYONE),
	SD_BUS_VTABLE_END,
};
/* clang-format on */

/* ---- the connection -------------------------------------------------------------------------- */

static int
named_cb(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	const sd_bus_error *err = sd_bus_message_get_error(m);

	if (err != NULL)
		log_warning("dbus: cannot own %s: %s (is its D-Bus policy installed?)",
			    (const char *)userdata,
			    err->message ? err->message : err->name);
	else
		log_info("dbus: owning %s", (const char *)userdata);
	return 0;
}

static int
serve(struct door *d, const char *path, const char *iface, const sd_bus_vtable *vt,
      const char *name)
{
	int rc = sd_bus_add_object_vtable(d->bus, NULL, path, iface, vt, d);

	if (rc >= 0)
		rc = sd_bus_request_name_async(d->bus, NULL, name, 0, named_cb,
					       (void *)name);
	return rc;
}

/* Connect and offer the methods; calls queue until the handshake is
 * done, in dbus_process(). */
static int
door_connect(struct door *d)
{
	const char *address = d->address;
	sd_bus *bus = NULL;
	int rc;

	if (strcmp(address, "system") == 0)
		address = getenv("DBUS_SYSTEM_BUS_ADDRESS")
				  ? getenv("DBUS_SYSTEM_BUS_ADDRESS")
				  : SYSTEM_BUS;
	if ((rc = sd_bus_new(&bus)) < 0)
		return rc;
	if ((rc = sd_bus_set_address(bus, address)) < 0 ||
	    (rc = sd_bus_set_bus_client(bus, 1)) < 0 ||
	    (rc = sd_bus_negotiate_fds(bus, 1)) < 0 || (rc = sd_bus_start(bus)) < 0) {
		sd_bus_unref(bus);
		return rc;
	}
	d->bus = bus;
	rc = serve(d, DOOR_PATH, DOOR_INTERFACE, door_vtable, DOOR_NAME);
	if (rc >= 0 && core_config(d->core)->dbus_s76)
		rc = serve(d, DOOR_S76_PATH, DOOR_S76_NAME, s76_vtable, DOOR_S76_NAME);
	if (rc < 0)
		d->bus = sd_bus_close_unref(d->bus);
	return rc;
}

/* The connection is gone (or never came): every call waiting ends
 * unanswered, the foreground with them; connect again later. */
static void
disconnected(struct door *d, int err)
{
	while (!TAILQ_EMPTY(&d->calls))
		call_free(TAILQ_FIRST(&d->calls));
	fg_lost(d, "the bus connection was lost");
	d->bus = sd_bus_close_unref(d->bus);
	double pause = backoff_fail(&d->reconnect);
	d->retry_at = (mono_ns() / 1000) + (uint64_t)(pause * 1e6);
	log_warning("dbus: %s: %s; connecting again in %.0f s", d->address,
		    strerror(-err), pause);
}

void
dbus_process(struct door *d, double now)
{
	int rc = 0;

	d->now = now;
	if (d->bus == NULL) {
		if ((mono_ns() / 1000) < d->retry_at)
			return;
		if ((rc = door_connect(d)) < 0) {
			disconnected(d, rc);
			return;
		}
		d->retry_at = 0;
		d->seen = 0;
	}
	/* bounded: each round handles one message */
	for (int i = 0; i < 256 && (rc = sd_bus_process(d->bus, NULL)) > 0; i++)
		;
	if (rc < 0 || !sd_bus_is_open(d->bus)) {
		disconnected(d, rc < 0 ? rc : -ECONNRESET);
		return;
	}
	if (sd_bus_is_ready(d->bus) > 0)
		backoff_reset(&d->reconnect);
	dbus_boosts_changed(d);
}

int
dbus_fd(const struct door *d)
{
	return d->bus != NULL ? sd_bus_get_fd(d->bus) : -1;
}

int
dbus_events(const struct door *d)
{
	int ev = d->bus != NULL ? sd_bus_get_events(d->bus) : 0;

	return ev < 0 ? 0 : ev;
}

uint64_t
dbus_deadline(const struct door *d)
{
	uint64_t t = UINT64_MAX, tick = (mono_ns() / 1000) + TICK_US;

	if (d->bus == NULL)
		return d->retry_at;
	if (sd_bus_get_timeout(d->bus, &t) < 0)
		t = UINT64_MAX;
	return t < tick ? t : tick;
}

/* ---- life cycle ----------------------------------------------------------------------------- */

int
dbus_new(struct door **out, struct core *core, struct foreground *fg, const char *address)
{
	struct door *d = calloc(1, sizeof(*d));

	if (d == NULL || (d->address = strdup(address)) == NULL) {
		free(d);
		return -ENOMEM;
	}
	d->core = core;
	d->shared = fg;
	TAILQ_INIT(&d->calls);
	d->reconnect = (struct backoff){ .first = 1, .max = 30 };
	d->denials = (struct log_limit)LOG_LIMIT_INIT(5);
	ratelimit_init(&d->fg_rate, FG_RATE, FG_BURST, FG_USERS);
	*out = d;
	return 0;
}

void
dbus_free(struct door *d)
{
	if (d == NULL)
		return;
	while (!TAILQ_EMPTY(&d->calls))
		call_free(TAILQ_FIRST(&d->calls));
	fg_lost(d, "the daemon stops");
	d->bus = sd_bus_close_unref(d->bus);
	ratelimit_free(&d->fg_rate);
	free(d->address);
	free(d);
}
