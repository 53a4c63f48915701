/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dbus-t.c -- the D-Bus door (engined/daemon/dbus.c) against stand-ins:
 * a private dbus-daemon the test starts (nothing of the host's buses),
 * a stand-in polkit authority and logind on it (one connection of this
 * process owning org.freedesktop.PolicyKit1 and org.freedesktop.login1,
 * answering as each case says), the door over a fixture core (a /proc
 * look-alike and a fake cgroupfs: nothing of the host is moved), and
 * callers forked as users: as root, nobody (65534) and 65533; without
 * root, the test's own uid, and the cases of other users are skipped.
 *
 * Covered: the decision table (root, own process, anyone's, polkit
 * yes/no/absent, profile grants on top), the foreground's state
 * machine (set, replaced, ended when its caller leaves the bus, only
 * one's own process, only with an active session, rate-limited), the
 * s76 method, and hostile callers: no pidfd, a pid with the wrong
 * start time, a huge string, a name one byte over the limit and one at
 * it, a string that is no UTF-8 (the bus hangs up on its sender; the
 * door goes on), many calls on one name and on many names, another
 * user's handle.
 */
#include "engined/core/core_private.h"
#include "engined/daemon/dbus.h"
#include "engined/daemon/foreground.h"
#include "tests/lib/fixture.h"
#include "tests/lib/testbus.h"
#include "tests/tap/tap.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

static struct fixture fx;
static struct core *core;
static struct door *door;
static struct foreground shared;
static sd_bus *desk; /* the stand-ins' connection (polkit, logind) */
static struct testbus bus; /* the private bus (tests/lib/testbus.c) */

static uid_t user = 65534, other = 1; /* the callers (nobody, daemon) */
static bool rooted;

/* ---- the stand-ins -------------------------------------------------------------------- */

enum answer { YES, NO, HOLD };
static enum answer polkit = YES;
static char asked_action[128], asked_name[128];
static unsigned polkit_calls;
static sd_bus_message *held[64];
static size_t nheld;
static const char *user_state = "active";
static unsigned changed; /* BoostsChanged signals seen */
/* HOLD: answer the held no once hold_until are held and the caller has
 * reported hold_refused refusals (in reading, its answers so far) */
static size_t hold_until;
static int hold_refused;
static const char *reading = "";
static int lines_with(const char *out, const char *what);

static int
check_cb(sd_bus_message *m, void *ud, sd_bus_error *e)
{
	const char *kind, *key, *name, *action;

	polkit_calls++;
	if (sd_bus_message_read(m, "(sa{sv})s", &kind, 1, &key, "s", &name, &action) < 0)
		return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS, "bad subject");
	snprintf(asked_action, sizeof(asked_action), "%s", action);
	snprintf(asked_name, sizeof(asked_name), "%s %s=%s", kind, key, name);
	if (polkit == HOLD && nheld < 64) {
		held[nheld++] = sd_bus_message_ref(m);
		return 1;
	}
	return sd_bus_reply_method_return(m, "(bba{ss})", polkit == YES, 0, 0);
}

static int
get_user_cb(sd_bus_message *m, void *ud, sd_bus_error *e)
{
	uint32_t uid;
	char path[64];

	if (sd_bus_message_read(m, "u", &uid) < 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/org/freedesktop/login1/user/_%u", uid);
	return sd_bus_reply_method_return(m, "o", path);
}

static int
state_cb(sd_bus *b, const char *path, const char *iface, const char *prop,
	 sd_bus_message *reply, void *ud, sd_bus_error *e)
{
	return sd_bus_message_append(reply, "s", user_state);
}

static int
changed_cb(sd_bus_message *m, void *ud, sd_bus_error *e)
{
	changed++;
	return 0;
}

static const sd_bus_vtable polkit_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("CheckAuthorization", "(sa{sv})sa{ss}us", "(bba{ss})", check_cb, 0),
	SD_BUS_VTABLE_END,
};
static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("GetUser", "u", "o", get_user_cb, 0),
	SD_BUS_VTABLE_END,
};
static const sd_bus_vtable user_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("State", "s", state_cb, 0, 0),
	SD_BUS_VTABLE_END,
};

/* Let the held polkit questions go, answered no. */
static void
release_held(void)
{
	for (size_t i = 0; i < nheld; i++) {
		(void)sd_bus_reply_method_return(held[i], "(bba{ss})", 0, 0, 0);
		sd_bus_message_unref(held[i]);
	}
	nheld = 0;
}

static void
polkit_present(bool on)
{
	if (on && sd_bus_request_name(desk, "org.freedesktop.PolicyKit1", 0) < 0)
		bail("cannot own polkit's name");
	if (!on && sd_bus_release_name(desk, "org.freedesktop.PolicyKit1") < 0)
		bail("cannot release polkit's name");
}

/* ---- the bus and the door ----------------------------------------------------------- */

static sd_bus *
connect_to(const char *addr)
{
	sd_bus *b = NULL;

	if (sd_bus_new(&b) < 0 || sd_bus_set_address(b, addr) < 0 ||
	    sd_bus_set_bus_client(b, 1) < 0 || sd_bus_negotiate_fds(b, 1) < 0 ||
	    sd_bus_start(b) < 0)
		return NULL;
	return b;
}

static void
start_desk(void)
{
	if ((desk = connect_to(bus.address)) == NULL ||
	    sd_bus_add_object_vtable(desk, NULL, "/org/freedesktop/PolicyKit1/Authority",
				     "org.freedesktop.PolicyKit1.Authority",
				     polkit_vtable, NULL) < 0 ||
	    sd_bus_add_object_vtable(desk, NULL, "/org/freedesktop/login1",
				     "org.freedesktop.login1.Manager", manager_vtable,
				     NULL) < 0 ||
	    sd_bus_add_fallback_vtable(desk, NULL, "/org/freedesktop/login1/user",
				       "org.freedesktop.login1.User", user_vtable, NULL,
				       NULL) < 0 ||
	    sd_bus_request_name(desk, "org.freedesktop.login1", 0) < 0 ||
	    sd_bus_match_signal(desk, NULL, NULL, DOOR_PATH, DOOR_INTERFACE,
				"BoostsChanged", changed_cb, NULL) < 0)
		bail("cannot set up the stand-ins");
	polkit_present(true);
}

static double frozen = -1; /* the door's clock, when the test stops it */

/* Run the door and the stand-ins until fd (a caller's report) ends,
 * or until done() says so when fd is -1; at most 30 s. */
static void
pump(int fd, bool (*done)(void))
{
	for (double end = mono_s() + 30; mono_s() < end;) {
		dbus_process(door, frozen >= 0 ? frozen : mono_s());
		while (sd_bus_process(desk, NULL) > 0)
			;
		if (polkit == HOLD && nheld > 0 && nheld >= hold_until &&
		    lines_with(reading, "LimitsExceeded") >= hold_refused)
			release_held();
		if (fd < 0 && done != NULL && done())
			return;
		struct pollfd p[3] = {
			{ .fd = dbus_fd(door), .events = (short)dbus_events(door) },
			{ .fd = sd_bus_get_fd(desk),
			  .events = (short)sd_bus_get_events(desk) },
			{ .fd = fd, .events = POLLIN },
		};
		if (poll(p, 3, 20) > 0 && p[2].revents != 0)
			return;
	}
	diag("pump: gave up after 30 s");
}

/* ---- callers ------------------------------------------------------------------------------ */

struct call {
	const char *method;  /* the door's, or "s76" */
	pid_t pid;	     /* the process it names (by pidfd, or pid) */
	const char *profile; /* Boost's */
	uint32_t n;	     /* Boost's seconds, Unboost's id, BoostPid's start + n */
	int repeat;	     /* made this many times (async, on one connection) */
	bool serial;	     /* ... each after the answer to the one before */
	int names;	     /* ... or once on each of this many connections */
	bool raw;	     /* Boost's profile written as is: sd-bus checks no UTF-8 */
};

/* In the caller: the call c's message on b. */
static sd_bus_message *
message(sd_bus *b, const struct call *c)
{
	sd_bus_message *m = NULL;
	bool s76 = strcmp(c->method, "s76") == 0;
	int fd = -1, rc;

	rc = sd_bus_message_new_method_call(b, &m, s76 ? DOOR_S76_NAME : DOOR_NAME,
					    s76 ? DOOR_S76_PATH : DOOR_PATH,
					    s76 ? DOOR_S76_NAME : DOOR_INTERFACE,
					    s76 ? "SetForegroundProcess" : c->method);
	if (c->pid > 0)
		fd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (c->pid < 0) { /* not a pidfd: a pipe's end */
		int p[2];
		if (pipe(p) == 0)
			fd = p[0];
	}
	if (rc < 0)
		return NULL;
	if (s76)
		rc = sd_bus_message_append(m, "u", (uint32_t)c->pid);
	else if (strcmp(c->method, "Boost") == 0 && c->raw) {
		char *at;
		if ((rc = sd_bus_message_append(m, "h", fd)) >= 0 &&
		    (rc = sd_bus_message_append_string_space(m, strlen(c->profile),
							     &at)) >= 0)
			memcpy(at, c->profile, strlen(c->profile));
		if (rc >= 0)
			rc = sd_bus_message_append(m, "u", c->n);
	} else if (strcmp(c->method, "Boost") == 0)
		rc = sd_bus_message_append(m, "hsu", fd, c->profile, c->n);
	else if (strcmp(c->method, "BoostPid") == 0) {
		uint64_t start = 0;
		if (task_start_time("/proc", c->pid, &start) < 0)
			return NULL;
		rc = sd_bus_message_append(m, "utsu", (uint32_t)c->pid, start + c->n,
					   c->profile, (uint32_t)60);
	} else if (strcmp(c->method, "Unboost") == 0)
		rc = sd_bus_message_append(m, "u", c->n);
	else if (strcmp(c->method, "Explain") == 0 ||
		 strcmp(c->method, "SetForeground") == 0)
		rc = sd_bus_message_append(m, "h", fd);
	return rc < 0 ? NULL : m;
}

/* In the caller: one line for reply r of c. */
static void
describe(sd_bus_message *r, const struct call *c, char *out, size_t len)
{
	const sd_bus_error *e = sd_bus_message_get_error(r);
	const char *s;
	uint32_t u;

	if (e != NULL)
		snprintf(out, len, "%s: %s", e->name, e->message);
	else if (sd_bus_message_read(r, "u", &u) > 0)
		snprintf(out, len, "OK %u", u);
	else if (sd_bus_message_read(r, "s", &s) > 0)
		snprintf(out, len, "OK %.60s", s);
	else
		snprintf(out, len, "OK");
}

static int report_fd = -1; /* the caller's: where answers go */
static int answered;

static int
answer_cb(sd_bus_message *r, void *ud, sd_bus_error *e)
{
	char line[512];

	describe(r, ud, line, sizeof(line));
	dprintf(report_fd, "%s\n", line);
	answered++;
	return 0;
}

/* In the caller: make c (repeat times on one connection, or once on
 * each of names connections), write a line per answer to fd. */
static int
caller(const struct call *c, int fd)
{
	int n = c->names > 0 ? c->names : c->repeat > 0 ? c->repeat : 1;
	int nb = c->names > 0 ? c->names : 1;
	sd_bus *b[64] = { NULL };

	report_fd = fd;
	for (int i = 0; i < nb && i < 64; i++)
		if ((b[i] = connect_to(bus.address)) == NULL)
			return 2;
	for (int i = 0; i < n && i < 64; i++) {
		sd_bus *on = b[c->names > 0 ? i : 0];
		sd_bus_message *m = message(on, c);
		if (m == NULL || sd_bus_call_async(on, NULL, m, answer_cb, (void *)c,
						   30 * 1000000ULL) < 0)
			return 3;
		sd_bus_message_unref(m);
		while (c->serial && answered <= i) {
			while (sd_bus_process(b[0], NULL) > 0)
				;
			if (answered <= i && sd_bus_wait(b[0], 10000) < 0)
				return 4;
		}
	}
	while (answered < n) {
		for (int i = 0; i < nb; i++)
			while (sd_bus_process(b[i], NULL) > 0)
				;
		if (answered < n && sd_bus_wait(b[0], 10000) < 0)
			return 4;
	}
	return 0;
}

/* A caller still on the bus, waiting for its go. */
struct lingerer {
	pid_t pid;
	int go;
};
static struct lingerer *leaving;

static bool
left(void)
{
	return waitpid(leaving->pid, NULL, WNOHANG) == leaving->pid;
}

/*
 * Fork a caller as uid that makes c and reports; the door runs
 * meanwhile.  The answers (one line each) into out.  With l, the
 * caller stays on the bus until finish(l).
 */
static void
call_as(uid_t uid, const struct call *c, struct lingerer *l, char *out, size_t len)
{
	int rep[2], go[2];

	if (pipe(rep) < 0 || pipe(go) < 0)
		bail("pipe");
	pid_t self = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		for (int fd = 3; fd < 1024; fd++) /* not another caller's go */
			if (fd != rep[1] && fd != go[0])
				close(fd);
		if (uid != getuid() && setuid(uid) < 0)
			_exit(9);
		testbus_die_with_parent(self); /* after setuid(), which clears it */
		int rc = caller(c, rep[1]);
		close(rep[1]);
		if (l != NULL)
			(void)read(go[0], &rc, 1);
		_exit(rc);
	}
	close(rep[1]);
	close(go[0]);
	size_t used = 0;
	out[0] = '\0';
	reading = out;
	for (;;) {
		pump(rep[0], NULL);
		ssize_t n = read(rep[0], out + used, len - 1 - used);
		if (n <= 0)
			break;
		used += (size_t)n;
		out[used] = '\0';
	}
	close(rep[0]);
	reading = "";
	if (used > 0 && out[used - 1] == '\n')
		out[used - 1] = '\0';
	if (l != NULL) {
		*l = (struct lingerer){ .pid = pid, .go = go[1] };
		return;
	}
	close(go[1]);
	int st;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		diag("caller ended with status %d", st);
}

static const char *ask(uid_t uid, const struct call *c);

/* The lingering caller l leaves the bus. */
static void
finish(struct lingerer *l)
{
	close(l->go);
	leaving = l;
	pump(-1, left);
	/* a barrier: the broker told the door of the caller's leaving
	 * before it passes on a later call */
	(void)ask(user, &(struct call){ .method = "Status" });
}

static const char *
ask(uid_t uid, const struct call *c)
{
	static char out[4096];

	call_as(uid, c, NULL, out, sizeof(out));
	return out;
}

/* How many boosts of profile the core holds; the id of the last. */
static size_t
boosts_of(const char *profile, unsigned *id)
{
	const struct boost *b;
	size_t n = 0;

	TAILQ_FOREACH (b, core_boosts(core), link)
		if (b->profile != NULL && strcmp(b->profile, profile) == 0) {
			n++;
			if (id != NULL)
				*id = b->id;
		}
	return n;
}

static void
end_all(void)
{
	while (!TAILQ_EMPTY(core_boosts(core)))
		(void)core_boost_end(core, TAILQ_FIRST(core_boosts(core))->id, "test");
}

static pid_t
target(uid_t uid)
{
	pid_t self = getpid();
	pid_t pid = fork();

	if (pid == 0) {
		testbus_die_with_parent(self);
		pause();
		_exit(0);
	}
	fixture_proc(&fx, pid, uid, uid, "/usr/bin/app", 100, "/");
	return pid;
}

/* How many lines of out contain what. */
static int
lines_with(const char *out, const char *what)
{
	int n = 0;

	for (const char *p = out; (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

#define DENIED	"org.freedesktop.DBus.Error.AccessDenied: "
#define BADARGS "org.freedesktop.DBus.Error.InvalidArgs: "
#define LIMITS	"org.freedesktop.DBus.Error.LimitsExceeded: "
#define FAILED	"org.cgengine.Engine1.Error.Failed: "

/* ---- the cases --------------------------------------------------------------------------- */

static void
test_table(void)
{
	struct door_need n;

	dbusauth_need(DOOR_BOOST, 0, 1000, &n);
	ok(n.action == NULL && n.deny == NULL && !n.session, "root needs nothing");
	dbusauth_need(DOOR_BOOST, 1000, 1000, &n);
	is_string(DOOR_ACTION_BOOST_OWN, n.action, "one's own process: boost-own");
	dbusauth_need(DOOR_BOOST, 1000, 0, &n);
	ok(n.as_root && strcmp(n.action, DOOR_ACTION_BOOST_ANY) == 0,
	   "another's: boost-any, run as root's");
	dbusauth_need(DOOR_FOREGROUND, 1000, 1001, &n);
	is_string("the foreground is only ever the caller's own process", n.deny,
		  "the foreground of another's process: refused outright");
	dbusauth_need(DOOR_FOREGROUND, 1000, 1000, &n);
	ok(n.session && strcmp(n.action, DOOR_ACTION_FOREGROUND) == 0,
	   "one's own foreground: set-foreground and an active session");
	dbusauth_need(DOOR_LIST, 1000, 0, &n);
	ok(n.action == NULL && n.deny == NULL, "reads need no polkit");
	ok(dbusauth_polkit(DOOR_POLKIT_YES) == NULL, "polkit's yes allows");
	is_string("polkit did not answer (refused)", dbusauth_polkit(DOOR_POLKIT_ABSENT),
		  "no answer refuses (fail closed)");
}

static void
test_boost(pid_t mine, pid_t roots)
{
	char want[512];
	const char *out;
	unsigned id = 0;

	out = ask(user, &(struct call){ .method = "Status" });
	ok(strncmp(out, "OK {", 4) == 0 && strstr(out, "\"version\"") != NULL,
	   "Status answers the status's JSON (%s)", out);
	polkit = YES;
	out = ask(user,
		  &(struct call){
			  .method = "Boost", .pid = mine, .profile = "fast", .n = 60 });
	ok(strncmp(out, "OK ", 3) == 0 && boosts_of("fast", &id) == 1,
	   "polkit yes: a user boosts its own process (%s)", out);
	is_string(DOOR_ACTION_BOOST_OWN, asked_action, "polkit was asked for boost-own");
	ok(strncmp(asked_name, "system-bus-name name=:", 22) == 0,
	   "about the caller's unique bus name (%s)", asked_name);
	snprintf(want, sizeof(want), "OK %u", id);
	is_string(want, out, "the answer is the boost's id");
	out = ask(user, &(struct call){ .method = "Explain", .pid = mine });
	ok(strncmp(out, "OK {\"pid\":", 10) == 0, "Explain answers JSON (%s)", out);
	out = ask(user, &(struct call){ .method = "ListBoosts" });
	ok(strncmp(out, "OK [{\"id\":", 10) == 0, "ListBoosts answers JSON (%s)", out);
	polkit = NO;
	out = ask(user,
		  &(struct call){
			  .method = "Boost", .pid = mine, .profile = "fast", .n = 60 });
	is_string(DENIED "org.cgengine.Engine1.boost-own: not authorized by polkit", out,
		  "polkit no: AccessDenied");
	polkit_present(false);
	out = ask(user,
		  &(struct call){
			  .method = "Boost", .pid = mine, .profile = "fast", .n = 60 });
	is_string(DENIED
		  "org.cgengine.Engine1.boost-own: polkit did not answer (refused)",
		  out, "no polkit on the bus: refused");
	polkit_present(true);
	polkit = YES;
	snprintf(want, sizeof(want),
		 DENIED
		 "permission denied: boost profile 'slow' is not granted to uid %u",
		 (unsigned)user);
	out = ask(user,
		  &(struct call){
			  .method = "Boost", .pid = mine, .profile = "slow", .n = 60 });
	is_string(want, out, "polkit yes, but the profile's grant still applies");
	polkit = NO;
	out = ask(user,
		  &(struct call){
			  .method = "Boost", .pid = roots, .profile = "fast", .n = 60 });
	is_string(DENIED "org.cgengine.Engine1.boost-any: not authorized by polkit", out,
		  "another user's process: boost-any asked, polkit no");
	polkit = YES;
	out = ask(user,
		  &(struct call){
			  .method = "Boost", .pid = roots, .profile = "fast", .n = 60 });
	ok(strncmp(out, "OK ", 3) == 0 && boosts_of("fast", &id) == 2 &&
		   core_boost_find(core, id)->owner == 0,
	   "boost-any granted: boosted as root's (%s)", out);
	(void)core_boost_end(core, id, "test");
	end_all(); /* the tests after this one start with no boost */
	if (!rooted) {
		skip(1, "root's calls need root");
	} else {
		polkit_present(false);
		out = ask(0, &(struct call){ .method = "Boost",
					     .pid = mine,
					     .profile = "fast",
					     .n = 60 });
		ok(strncmp(out, "OK ", 3) == 0, "root needs no polkit (%s)", out);
		polkit_present(true);
		boosts_of("fast", &id);
		(void)core_boost_end(core, id, "test");
	}
}

/* A string that is no UTF-8: the bus itself refuses it, by hanging up
 * on its sender; the door never sees it and goes on. */
static void
test_not_utf8(pid_t mine)
{
	size_t before = boosts_of("fast", NULL);
	const char *out;

	out = ask(user, &(struct call){ .method = "Boost",
					.pid = mine,
					.profile = "fast\xff\xfe",
					.n = 60,
					.raw = true });
	is_string("org.freedesktop.DBus.Error.NoReply: Connection terminated", out,
		  "a profile name that is no UTF-8: the bus hangs up on its caller");
	ok(boosts_of("fast", NULL) == before, "nothing was boosted");
	out = ask(user, &(struct call){ .method = "Boost",
					.pid = mine,
					.profile = "fast",
					.n = 60,
					.raw = true });
	ok(strncmp(out, "OK ", 3) == 0 && boosts_of("fast", NULL) == before + 1,
	   "the door goes on: the same call with \"fast\" boosts (%s)", out);
	end_all();
}

static void
test_hostile(pid_t mine)
{
	char want[512], *huge;
	const char *out;
	uint64_t start = 0;
	unsigned id = 0;

	polkit = YES;
	out = ask(user,
		  &(struct call){
			  .method = "Boost", .pid = -1, .profile = "fast", .n = 60 });
	is_string(BADARGS "not a pidfd", out, "a descriptor that is no pidfd is refused");
	if (task_start_time("/proc", mine, &start) < 0)
		bail("start time of %d", (int)mine);
	snprintf(want, sizeof(want), BADARGS "pid %d is not the process started at %llu",
		 (int)mine, (unsigned long long)start + 1);
	out = ask(user,
		  &(struct call){
			  .method = "BoostPid", .pid = mine, .profile = "fast", .n = 1 });
	is_string(want, out, "BoostPid: a pid with another start time is refused");
	size_t before = boosts_of("fast", NULL);
	out = ask(user,
		  &(struct call){ .method = "BoostPid", .pid = mine, .profile = "fast" });
	ok(strncmp(out, "OK ", 3) == 0 && boosts_of("fast", NULL) == before + 1,
	   "BoostPid with the right start time boosts (%s)", out);
	if ((huge = malloc(70000)) == NULL)
		bail("malloc");
	memset(huge, 'x', 69999);
	huge[69999] = '\0';
	out = ask(user,
		  &(struct call){
			  .method = "Boost", .pid = mine, .profile = huge, .n = 60 });
	is_string(BADARGS "profile name too long", out, "a huge string is refused");
	huge[128] = '\0';
	out = ask(user,
		  &(struct call){
			  .method = "BoostPid", .pid = mine, .profile = huge, .n = 0 });
	is_string(BADARGS "profile name too long", out,
		  "BoostPid: a name of 128 bytes is refused");
	huge[127] = '\0';
	snprintf(want, sizeof(want), FAILED "no boost profile '%s'", huge);
	out = ask(user,
		  &(struct call){
			  .method = "Boost", .pid = mine, .profile = huge, .n = 60 });
	is_string(want, out, "one of 127 is taken, and is no profile");
	free(huge);
	boosts_of("fast", &id);
	if (!rooted) {
		skip(1, "another user's calls need root");
	} else {
		snprintf(want, sizeof(want),
			 DENIED "permission denied: boost #%u is not yours", id);
		out = ask(other, &(struct call){ .method = "Unboost", .n = id });
		is_string(want, out, "a boost's id is bound to its owner's uid");
	}
	out = ask(user, &(struct call){ .method = "Unboost", .n = id });
	ok(strcmp(out, "OK") == 0 && core_boost_find(core, id) == NULL,
	   "its owner ends it (%s)", out);
	/* many calls waiting on one name, then on many names */
	polkit = HOLD;
	hold_until = 8;
	hold_refused = 2;
	out = ask(user, &(struct call){ .method = "Boost",
					.pid = mine,
					.profile = "fast",
					.n = 60,
					.repeat = 10 });
	ok(lines_with(out, LIMITS "too many calls waiting, try again") == 2 &&
		   lines_with(out, DENIED) == 8,
	   "10 calls waiting on one name: 8 taken, 2 refused");
	snprintf(want, sizeof(want), LIMITS "too many calls of uid %u waiting",
		 (unsigned)user);
	hold_until = 16;
	hold_refused = 4;
	out = ask(user, &(struct call){ .method = "Boost",
					.pid = mine,
					.profile = "fast",
					.n = 60,
					.names = 20 });
	ok(lines_with(out, want) == 4 && lines_with(out, DENIED) == 16,
	   "20 names of one uid: 16 calls taken, 4 refused");
	if (lines_with(out, DENIED) != 16)
		diag("%s", out);
	polkit = YES;
	test_not_utf8(mine);
}

static void
test_foreground(pid_t mine, pid_t mine2, pid_t roots)
{
	struct lingerer one, two, s76;
	char out[4096], want[256];
	unsigned first = 0, second = 0;

	polkit = YES;
	call_as(user, &(struct call){ .method = "SetForeground", .pid = mine }, &one, out,
		sizeof(out));
	ok(strcmp(out, "OK") == 0 && boosts_of("fg", &first) == 1,
	   "SetForeground: the process gets the foreground profile (%s)", out);
	is_string(DOOR_ACTION_FOREGROUND, asked_action,
		  "polkit was asked for set-foreground");
	call_as(user, &(struct call){ .method = "SetForeground", .pid = mine2 }, &two,
		out, sizeof(out));
	ok(strcmp(out, "OK") == 0 && boosts_of("fg", &second) == 1 && second != first &&
		   core_boost_find(core, first) == NULL,
	   "a new foreground: the previous one loses it");
	finish(&one);
	ok(boosts_of("fg", NULL) == 1, "the replaced caller leaving changes nothing");
	finish(&two);
	ok(boosts_of("fg", NULL) == 0,
	   "the foreground's caller leaves the bus: its grant ends");
	call_as(user, &(struct call){ .method = "SetForeground", .pid = roots }, NULL,
		out, sizeof(out));
	is_string(DENIED "the foreground is only ever the caller's own process", out,
		  "another user's process cannot be the foreground");
	user_state = "online";
	snprintf(want, sizeof(want), DENIED "uid %u has no active session (online)",
		 (unsigned)user);
	call_as(user, &(struct call){ .method = "SetForeground", .pid = mine }, NULL, out,
		sizeof(out));
	is_string(want, out, "a user without an active session is refused");
	user_state = "active";
	polkit = NO;
	call_as(user, &(struct call){ .method = "SetForeground", .pid = mine }, NULL, out,
		sizeof(out));
	is_string(DENIED "org.cgengine.Engine1.set-foreground: not authorized by polkit",
		  out, "polkit no: no foreground");
	polkit = YES;
	call_as(user, &(struct call){ .method = "s76", .pid = mine }, &s76, out,
		sizeof(out));
	ok(strcmp(out, "OK") == 0 && boosts_of("fg", NULL) == 1,
	   "s76's SetForegroundProcess(pid) sets the foreground (%s)", out);
	finish(&s76);
	ok(boosts_of("fg", NULL) == 1,
	   "its grant outlives its caller (callers are one-shot)");
	end_all();
	frozen = mono_s(); /* the bucket holds 10: no token trickles in meanwhile */
	call_as(user,
		&(struct call){ .method = "SetForeground",
				.pid = mine,
				.repeat = 30,
				.serial = true },
		NULL, out, sizeof(out));
	frozen = -1;
	int refused = lines_with(out, LIMITS "foreground changes too fast, slow down");
	ok(refused >= 20 && refused <= 30,
	   "a flood of foreground changes is rate-limited (%d of 30 refused)", refused);
	ok(changed > 0, "BoostsChanged was signalled (%u times)", changed);
}

static char *introspected; /* the door's answer to Introspect */

static int
introspect_cb(sd_bus_message *m, void *ud, sd_bus_error *e)
{
	const char *xml;

	if (sd_bus_message_read(m, "s", &xml) > 0)
		introspected = strdup(xml);
	else
		introspected = strdup("");
	return 0;
}

static bool
introspected_yet(void)
{
	return introspected != NULL;
}

/* The shipped introspection data (examples/dbus/) is what the door
 * answers: each method, argument and signal line, in order. */
static void
test_introspection(void)
{
	char path[4096], line[512];
	const char *src = getenv("SRCDIR");
	FILE *f;
	int lines = 0, found = 0;

	snprintf(path, sizeof(path), "%s/examples/dbus/org.cgengine.Engine1.xml",
		 src && *src ? src : ".");
	if (sd_bus_call_method_async(desk, NULL, DOOR_NAME, DOOR_PATH,
				     "org.freedesktop.DBus.Introspectable", "Introspect",
				     introspect_cb, NULL, "") < 0)
		bail("Introspect");
	pump(-1, introspected_yet);
	if ((f = fopen(path, "r")) == NULL) {
		skip(1, "no %s", path);
		return;
	}
	const char *at = strstr(introspected ? introspected : "",
				"<interface name=\"" DOOR_INTERFACE "\">");
	while (at != NULL && fgets(line, sizeof(line), f) != NULL) {
		char *p = line + strspn(line, " \t");
		p[strcspn(p, "\n")] = '\0';
		if (strncmp(p, "<method", 7) != 0 && strncmp(p, "<arg", 4) != 0 &&
		    strncmp(p, "<signal", 7) != 0)
			continue;
		lines++;
		const char *next = strstr(at, p);
		if (next == NULL) {
			diag("not introspected: %s", p);
			continue;
		}
		found++;
		at = next;
	}
	fclose(f);
	ok(lines > 20 && found == lines,
	   "the shipped introspection data is the door's (%d of %d)", found, lines);
	free(introspected);
}

static bool
door_named(void)
{
	sd_bus_message *r = NULL;
	int has = 0;

	if (sd_bus_call_method(desk, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "NameHasOwner", NULL, &r, "s",
			       DOOR_S76_NAME) >= 0)
		(void)sd_bus_message_read(r, "b", &has);
	sd_bus_message_unref(r);
	return has;
}

int
main(void)
{
	char conf[1024];
	struct passwd *pw;

	if (access("/usr/bin/dbus-daemon", X_OK) < 0 &&
	    access("/bin/dbus-daemon", X_OK) < 0)
		skip_all("needs dbus-daemon");
	/* Debian 12's valgrind (3.19) does not know pidfd_open, which the
	 * door's callers use; the sanitizer build runs this test instead */
	const char *preload = getenv("LD_PRELOAD");
	if (preload != NULL && strstr(preload, "vgpreload") != NULL)
		skip_all("valgrind 3.19 cannot run pidfd_open (the sanitizer build runs it)");
	rooted = getuid() == 0;
	if (!rooted)
		user = getuid();
	if ((pw = getpwuid(user)) == NULL)
		skip_all("uid %u has no name", (unsigned)user);
	plan(47);
	signal(SIGPIPE, SIG_IGN);
	fixture_init(&fx);
	snprintf(conf, sizeof(conf),
		 "foreground-profile = \"fg\"\ndbus-s76 = true\n"
		 "boost-profile \"fast\" { allow = {\"%s\"} hierarchy = \"%s\" "
		 "destination = \"/fast\" max-duration = \"1h\" }\n"
		 "boost-profile \"fg\" { allow = {\"%s\"} hierarchy = \"%s\" "
		 "destination = \"/fg\" max-duration = \"1d\" }\n"
		 "boost-profile \"slow\" { allow = {\"root\"} hierarchy = \"%s\" "
		 "destination = \"/slow\" max-duration = \"1h\" }\n",
		 pw->pw_name, FIXTURE_HIER, pw->pw_name, FIXTURE_HIER, FIXTURE_HIER);
	fixture_files(&fx, conf, fixture_rules);
	if ((core = fixture_core(&fx)) == NULL)
		bail("no core");
	core_start(core, mono_s());
	testbus_start(&bus, "dbus", (uid_t)-1);
	start_desk();
	shared.core = core;
	if (dbus_new(&door, core, &shared, bus.address) < 0)
		bail("dbus_new");
	pump(-1, door_named);
	pid_t mine = target(user), mine2 = target(user), roots = target(0);

	test_table();
	test_introspection();
	test_boost(mine, roots);
	test_hostile(mine);
	test_foreground(mine, mine2, roots);

	dbus_free(door);
	sd_bus_flush_close_unref(desk);
	testbus_stop(&bus);
	pid_t kids[] = { mine, mine2, roots };
	for (size_t i = 0; i < 3; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	core_free(core);
	fixture_done(&fx);
	return tap_done();
}
