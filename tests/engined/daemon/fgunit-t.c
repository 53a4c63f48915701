/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fgunit-t.c -- the foreground on a systemd desktop (engined/daemon/
 * foreground.c, fgunit.c) against a stand-in for the user's manager: a
 * private dbus-daemon the test starts, run as the foreground's user (a
 * manager's socket must be its user's), on which one connection of this
 * process owns org.freedesktop.systemd1 and answers Properties.Get and
 * SetUnitProperties for a few units of its own; the same objects also
 * on a socket of the test's, as the manager's private socket is (no
 * broker between).  The processes are
 * children of the test, put in the fixture's /proc look-alike as
 * running in app scopes of that user's manager
 * (/user.slice/user-U.slice/user@U.service/app.slice/...).
 *
 * Covered: the profile's group settings set on the app's unit at run
 * time, nothing moved; the values the unit had set again when the grant
 * is replaced, ends, or its process exits; a unit that vanished
 * meanwhile; a manager that does not answer (the loop never waits on
 * it); a process outside a user's manager boosted (moved) as before;
 * another user's manager, a manager socket that is not its user's, a
 * profile not granted.  The profile's priorities (process = {...}): on
 * both threads of the app in place, back to what it had when the
 * grant is replaced, its caller leaves, the daemon stops; nothing
 * written once it exited; the same priorities through the boost of a
 * process outside a user's manager; a profile of priorities only asks
 * no manager.  They are read back from the test's own children: their
 * nice is lowered (15), which any user may do; setting it back raises
 * it, which only root may: without root that check is skipped.
 */
#include "engined/backend/backend.h"
#include "engined/core/core_private.h"
#include "engined/daemon/foreground.h"
#include "tests/lib/fixture.h"
#include "tests/lib/testbus.h"
#include "tests/tap/tap.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

static struct fixture fx;
static struct core *core;
static struct foreground shared;
static sd_bus *mgr; /* the stand-in manager's connection */
static struct testbus bus; /* the private bus (tests/lib/testbus.c) */
static uid_t user = 65534; /* the desktop's user (without root: the test's) */

/* ---- the stand-in manager ------------------------------------------------------------ */

struct unit {
	const char *name;
	bool exists;
	uint64_t cpu, io; /* CPUWeight, IOWeight */
};
static struct unit units[] = {
	{ "app-a.scope", true, UINT64_MAX, 100 },
	{ "app-b.scope", true, 200, UINT64_MAX },
	{ "app-c.service", true, UINT64_MAX, UINT64_MAX },
	{ "app-p.scope", true, UINT64_MAX, UINT64_MAX },
	{ "app-q.scope", true, UINT64_MAX, UINT64_MAX },
};
#define NUNITS (sizeof(units) / sizeof(units[0]))
static bool hold; /* answer nothing */
static sd_bus_message *held[64];
static size_t nheld;
static unsigned sets, refused; /* SetUnitProperties asked, refused */
static int runtime = -1;       /* its last runtime flag */

static struct unit *
unit_named(const char *name)
{
	for (size_t i = 0; i < NUNITS; i++)
		if (strcmp(units[i].name, name) == 0 && units[i].exists)
			return &units[i];
	return NULL;
}

/* The unit of object path (systemd's escaping undone). */
static struct unit *
unit_at(const char *path)
{
	const char *p = strrchr(path, '/');
	char name[256];
	size_t n = 0;

	for (p++; *p && n + 1 < sizeof(name); p++) {
		unsigned c;
		if (*p == '_' && sscanf(p + 1, "%2x", &c) == 1) {
			name[n++] = (char)c;
			p += 2;
		} else {
			name[n++] = *p;
		}
	}
	name[n] = '\0';
	return unit_named(name);
}

static int
keep(sd_bus_message *m)
{
	if (nheld < 64)
		held[nheld++] = sd_bus_message_ref(m);
	return 1;
}

static int
get_cb(sd_bus_message *m, void *ud, sd_bus_error *e)
{
	const char *iface, *prop;
	struct unit *u;

	if (!sd_bus_message_is_method_call(m, "org.freedesktop.DBus.Properties", "Get"))
		return 0;
	if (hold)
		return keep(m);
	if (sd_bus_message_read(m, "ss", &iface, &prop) < 0)
		return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS, "bad Get");
	if ((u = unit_at(sd_bus_message_get_path(m))) == NULL)
		return sd_bus_error_set(e, "org.freedesktop.systemd1.NoSuchUnit",
					"no such unit");
	if (strcmp(prop, "CPUWeight") == 0)
		return sd_bus_reply_method_return(m, "v", "t", u->cpu);
	if (strcmp(prop, "IOWeight") == 0)
		return sd_bus_reply_method_return(m, "v", "t", u->io);
	return sd_bus_error_set(e, SD_BUS_ERROR_UNKNOWN_PROPERTY, "unknown property");
}

static int
set_cb(sd_bus_message *m, void *ud, sd_bus_error *e)
{
	const char *name, *prop;
	int rt;
	uint64_t v;
	struct unit *u;

	if (hold)
		return keep(m);
	sets++;
	if (sd_bus_message_read(m, "sb", &name, &rt) < 0)
		return -EINVAL;
	runtime = rt;
	if ((u = unit_named(name)) == NULL) {
		refused++;
		return sd_bus_error_setf(e, "org.freedesktop.systemd1.NoSuchUnit",
					 "Unit %s not found.", name);
	}
	if (sd_bus_message_enter_container(m, 'a', "(sv)") < 0)
		return -EINVAL;
	while (sd_bus_message_read(m, "(sv)", &prop, "t", &v) > 0) {
		if (strcmp(prop, "CPUWeight") == 0)
			u->cpu = v;
		else if (strcmp(prop, "IOWeight") == 0)
			u->io = v;
	}
	return sd_bus_reply_method_return(m, "");
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("SetUnitProperties", "sba(sv)", "", set_cb, 0),
	SD_BUS_VTABLE_END,
};

/* ---- the bus ------------------------------------------------------------------------------ */

static void
start_manager(void)
{
	if (sd_bus_new(&mgr) < 0 || sd_bus_set_address(mgr, bus.address) < 0 ||
	    sd_bus_set_bus_client(mgr, 1) < 0 || sd_bus_start(mgr) < 0 ||
	    sd_bus_add_object_vtable(mgr, NULL, "/org/freedesktop/systemd1",
				     "org.freedesktop.systemd1.Manager", manager_vtable,
				     NULL) < 0 ||
	    sd_bus_add_fallback(mgr, NULL, "/org/freedesktop/systemd1/unit", get_cb,
				NULL) < 0 ||
	    sd_bus_request_name(mgr, "org.freedesktop.systemd1", 0) < 0)
		bail("cannot set up the stand-in manager");
}

/* ---- the manager on its private socket (no broker between) ----------------------------- */

static int listener = -1;
static sd_bus *direct; /* the connection taken there */
static char private_address[192];

/* Listen where the daemon looks for the manager's private socket; as
 * the user (SO_PEERCRED says who called listen()). */
static void
start_private(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/private", bus.dir);
	snprintf(private_address, sizeof(private_address), "unix:path=%s", sa.sun_path);
	if (getuid() == 0 && seteuid(user) < 0)
		bail("seteuid");
	if ((listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) <
		    0 ||
	    bind(listener, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(listener, 4) < 0)
		bail("listen %s: %s", sa.sun_path, strerror(errno));
	if (getuid() == 0 && seteuid(0) < 0)
		bail("seteuid");
}

/* A connection on the private socket: the manager's objects on it. */
static void
serve_private(void)
{
	sd_id128_t id;
	int fd;

	if (direct != NULL) {
		while (sd_bus_process(direct, NULL) > 0)
			;
		return;
	}
	if (listener < 0 || (fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) < 0)
		return;
	if (sd_bus_new(&direct) < 0 || sd_bus_set_fd(direct, fd, fd) < 0 ||
	    sd_id128_randomize(&id) < 0 || sd_bus_set_server(direct, 1, id) < 0 ||
	    sd_bus_start(direct) < 0 ||
	    sd_bus_add_object_vtable(direct, NULL, "/org/freedesktop/systemd1",
				     "org.freedesktop.systemd1.Manager", manager_vtable,
				     NULL) < 0 ||
	    sd_bus_add_fallback(direct, NULL, "/org/freedesktop/systemd1/unit", get_cb,
				NULL) < 0)
		bail("cannot serve the private socket");
}

static double slowest; /* the longest foreground_process() call, seconds */

/* Run the foreground and the stand-in until done() says so (NULL:
 * until nothing waits), at most limit seconds; done()'s last word. */
static bool
pump(bool (*done)(void), double limit)
{
	for (double end = mono_s() + limit; mono_s() < end;) {
		double t = mono_s();

		foreground_process(&shared);
		if (mono_s() - t > slowest)
			slowest = mono_s() - t;
		while (sd_bus_process(mgr, NULL) > 0)
			;
		serve_private();
		if (done != NULL
			    ? done()
			    : (shared.units == NULL || fgunit_pending(shared.units) == 0))
			return true;
		foreground_prepare(&shared);
		struct pollfd p[4] = {
			{ .fd = foreground_fd(&shared), .events = POLLIN },
			{ .fd = sd_bus_get_fd(mgr),
			  .events = (short)sd_bus_get_events(mgr) },
			{ .fd = listener, .events = POLLIN },
			{ .fd = direct ? sd_bus_get_fd(direct) : -1,
			  .events = direct ? (short)sd_bus_get_events(direct) : 0 },
		};
		(void)poll(p, 4, 20);
	}
	return done != NULL ? done() : false;
}

/* ---- the processes ------------------------------------------------------------------------- */

/* A child of the test, in the fixture as uid's, in v2 group path. */
static pid_t
app(uid_t uid, const char *path)
{
	pid_t self = getpid();
	pid_t pid = fork();

	if (pid == 0) {
		testbus_die_with_parent(self);
		pause();
		_exit(0);
	}
	fixture_proc(&fx, pid, uid, uid, "/usr/bin/app", 100, "/");
	if (path != NULL)
		fixture_proc_v2(&fx, pid, path);
	return pid;
}

static const char *
scope_of(uid_t uid, const char *unit)
{
	static char path[256];

	snprintf(path, sizeof(path),
		 "/user.slice/user-%u.slice/user@%u.service/app.slice/%s", (unsigned)uid,
		 (unsigned)uid, unit);
	return path;
}

static struct unit *A = &units[0], *B = &units[1], *C = &units[2], *P = &units[3];

static bool
a_set(void)
{
	return A->cpu == 1000 && A->io == 500;
}
static bool
b_set(void)
{
	return B->cpu == 1000 && B->io == 500;
}
static bool
c_set(void)
{
	return C->cpu == 1000 && C->io == 500;
}
static bool
p_set(void)
{
	return P->cpu == 1000 && P->io == 500;
}
static bool
no_grant(void)
{
	return shared.grant == 0;
}
static bool
held_two(void)
{
	return nheld >= 2;
}

static int
set_fg(pid_t pid, uid_t uid, char *err, size_t len)
{
	unsigned id;

	err[0] = '\0';
	return foreground_set(&shared, mono_s(), pid, -1, uid, getpid(), &id, err, len);
}

/* ---- priorities, read back from the test's own children ------------------------------ */

#define IOPRIO_WHO_PROCESS 1
#define FG_NICE		   15 /* the profile's */

static void *
idle_thread(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* A child of the test with two threads, both at the test's nice + 3,
 * I/O best-effort 6 and oom_score_adj 100 (none of them a default), in
 * the fixture as uid's in v2 group path. */
static pid_t
prio_app(uid_t uid, const char *path)
{
	pid_t self = getpid();
	int p[2];
	char c;

	if (pipe(p) < 0)
		bail("pipe");
	pid_t pid = fork();
	if (pid == 0) {
		pthread_t t;
		int fd = open("/proc/self/oom_score_adj", O_WRONLY);

		testbus_die_with_parent(self);
		if (setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + 3) < 0 ||
		    syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, 2 << 13 | 6) < 0 ||
		    fd < 0 || write(fd, "100", 3) != 3 ||
		    pthread_create(&t, NULL, idle_thread, NULL) != 0 ||
		    write(p[1], "", 1) != 1)
			_exit(97);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1)
		bail("the child with two threads did not start");
	close(p[0]);
	fixture_proc(&fx, pid, uid, uid, "/usr/bin/app", 100, "/");
	fixture_proc_v2(&fx, pid, path);
	return pid;
}

/* What the threads of pid have: their nice ("15 15") into nice, the
 * rest ("2 threads: ioprio 3:0 3:0, oom_score_adj 500") into rest. */
static void
seen(pid_t pid, char *nice, char *rest, size_t len)
{
	char path[64], io[64] = "", oom[16] = "?";
	unsigned n = 0;
	struct dirent *e;
	DIR *d;
	int fd;

	nice[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	for (d = opendir(path); d != NULL && (e = readdir(d)) != NULL;) {
		id_t tid = (id_t)atoi(e->d_name);
		long v;

		if (tid == 0)
			continue;
		errno = 0;
		int ni = getpriority(PRIO_PROCESS, tid);
		snprintf(nice + strlen(nice), len - strlen(nice), "%s%d", n ? " " : "",
			 errno ? 99 : ni);
		v = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, tid);
		snprintf(io + strlen(io), sizeof(io) - strlen(io), " %ld:%ld", v >> 13,
			 v & 0xff);
		n++;
	}
	if (d != NULL)
		closedir(d);
	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
	if ((fd = open(path, O_RDONLY)) >= 0) {
		ssize_t k = read(fd, oom, sizeof(oom) - 1);
		oom[k > 0 ? k - 1 : 0] = '\0'; /* its newline */
		close(fd);
	}
	snprintf(rest, len, "%u threads: ioprio%s, oom_score_adj %s", n, io, oom);
}

static char seen_nice[64], seen_rest[128];

static const char *
nice_of(pid_t pid)
{
	seen(pid, seen_nice, seen_rest, sizeof(seen_nice));
	return seen_nice;
}

static const char *
rest_of(pid_t pid)
{
	seen(pid, seen_nice, seen_rest, sizeof(seen_rest));
	return seen_rest;
}

#define GIVEN "2 threads: ioprio 3:0 3:0, oom_score_adj 500" /* the profile's */
#define OWN   "2 threads: ioprio 2:6 2:6, oom_score_adj 100" /* prio_app()'s */

/* The own nice of pid's threads is base again: only root raises it. */
static void
nice_back(pid_t pid, const char *base, const char *what)
{
	if (getuid() != 0) {
		skip(1, "%s: setting nice back from %d raises it: root only", what,
		     FG_NICE);
		return;
	}
	is_string(base, nice_of(pid), "%s: its own nice again", what);
}

static void
test_priorities(pid_t pp, pid_t pq, pid_t pa, pid_t plain, bool pidfds)
{
	const struct core_stats *st = core_stats(core);
	char err[512], base[32], given[32];
	int own = getpriority(PRIO_PROCESS, 0) + 3;

	snprintf(base, sizeof(base), "%d %d", own > 19 ? 19 : own, own > 19 ? 19 : own);
	snprintf(given, sizeof(given), "%d %d", FG_NICE, FG_NICE);
	ok(set_fg(pp, user, err, sizeof(err)) == 0,
	   "an app is the foreground, of a profile with priorities (%s)", err);
	is_string(given, nice_of(pp), "both its threads get the profile's nice at once");
	is_string(GIVEN, rest_of(pp), "and its I/O class and oom_score_adj");
	ok(core_fgprio_pid(core) == pp && TAILQ_EMPTY(core_boosts(core)) &&
		   strcmp(fixture_group(&fx, pp), "/") == 0,
	   "in place: nothing is boosted or moved");
	ok(pump(p_set, 10), "its unit gets the properties all the same");
	struct decision *d = decision_new(core->pol);
	ok(d != NULL && core_explain(core, pp, 0, d) == DECIDE_OK &&
		   (d->prio.prio.set & PRIO_NICE) && d->prio.prio.nice == FG_NICE,
	   "decided again meanwhile (an exec, a rescan), it keeps the profile's");
	decision_free(d);

	ok(set_fg(pa, user, err, sizeof(err)) == 0 && pump(a_set, 10),
	   "another app is the foreground (%s)", err);
	is_string(OWN, rest_of(pp), "replaced: its I/O class and oom_score_adj again");
	nice_back(pp, base, "replaced");
	ok(core_fgprio_pid(core) == pa, "the new foreground holds them");

	ok(set_fg(pp, user, err, sizeof(err)) == 0 && strcmp(nice_of(pp), given) == 0,
	   "the app is the foreground again (%s)", err);
	foreground_end(&shared, shared.grant, "its caller left the bus");
	is_string(OWN, rest_of(pp), "its caller left the bus: its own again");
	nice_back(pp, base, "its caller left");
	ok(set_fg(pp, user, err, sizeof(err)) == 0 && strcmp(nice_of(pp), given) == 0 &&
		   pump(p_set, 10),
	   "once more, its unit's properties set too (%s)", err);
	foreground_end(&shared, 0, "the daemon stops"); /* as engine.c stops */
	is_string(OWN, rest_of(pp), "the daemon stops: its own again");
	nice_back(pp, base, "the daemon stops");
	ok(pump(NULL, 10) && P->cpu == UINT64_MAX && P->io == UINT64_MAX,
	   "and its unit's properties");

	/* a process outside a user's manager: the boost gives them (cgroupfs) */
	ok(set_fg(plain, user, err, sizeof(err)) == 0 && shared.boost != 0 &&
		   strcmp(fixture_group(&fx, plain), "/fg") == 0 &&
		   core_fgprio_pid(core) == 0,
	   "a process outside a user's manager is boosted, moved (%s)", err);
	is_string(given, nice_of(plain),
		  "its boost gives both threads the profile's nice");
	is_string(GIVEN, rest_of(plain), "and the rest of its priorities");
	foreground_end(&shared, 0, "the test");
	is_string(OWN, rest_of(plain), "the boost ends: its own again");
	nice_back(plain, base, "the boost ends");

	if (!pidfds) {
		skip(2, "no pidfd_open here (valgrind 3.19): an exit is not seen");
		return;
	}
	uint64_t failed = st->prio_failed;
	ok(set_fg(pq, user, err, sizeof(err)) == 0 && core_fgprio_pid(core) == pq,
	   "a last app is the foreground (%s)", err);
	kill(pq, SIGKILL);
	waitpid(pq, NULL, 0);
	fixture_gone(&fx, pq);
	ok(pump(no_grant, 10) && core_fgprio_pid(core) == 0 && st->prio_failed == failed,
	   "it exits: the grant and its priorities end, nothing is written");
}

/* A profile of priorities only: no manager is asked (none listens). */
static void
test_no_props(void)
{
	struct fgunit *u = NULL;

	ok(fgunit_new(&u, "unix:path=/nonexistent/cgetest-fgunit", false) == 0 &&
		   fgunit_set(u, 7, user, "app-x.scope", -1, NULL, 0) == 0 &&
		   fgunit_grant(u) == 7,
	   "no unit properties to set: the grant stands, no manager is asked");
	if (u != NULL)
		fgunit_end(u, "the test");
	fgunit_free(u);
}

/* ---- the cases ---------------------------------------------------------------------------- */

/* The real manager is reached on its private socket, no broker. */
static void
test_private(pid_t pa)
{
	char err[512];

	foreground_close(&shared, 0); /* the next grant connects anew */
	shared.address = private_address;
	shared.address_is_bus = false;
	ok(set_fg(pa, user, err, sizeof(err)) == 0 && pump(a_set, 10),
	   "on the manager's private socket (no broker): the unit gets them (%s)", err);
	foreground_end(&shared, 0, "the test");
	ok(pump(NULL, 10) && A->cpu == UINT64_MAX && A->io == 100,
	   "and has its own values again");
	foreground_close(&shared, 0);
	shared.address = bus.address;
	shared.address_is_bus = true;
}

static void
test_set_restore(pid_t pa, pid_t pb, pid_t pc, bool pidfds)
{
	char err[512];

	ok(set_fg(pa, user, err, sizeof(err)) == 0 && shared.grant != 0,
	   "an app of the user's manager is the foreground (%s)", err);
	ok(pump(a_set, 10), "its unit gets the profile's CPUWeight and IOWeight");
	is_int(1, runtime, "at run time (runtime = true)");
	ok(TAILQ_EMPTY(core_boosts(core)) && strcmp(fixture_group(&fx, pa), "/") == 0,
	   "nothing is boosted or moved");
	ok(set_fg(pb, user, err, sizeof(err)) == 0 && pump(b_set, 10),
	   "another app is the foreground: its unit gets them (%s)", err);
	ok(A->cpu == UINT64_MAX && A->io == 100,
	   "the previous one's unit has its own values again (CPUWeight unset, IOWeight 100)");
	unsigned id = shared.grant;
	foreground_end(&shared, id, "its caller left the bus");
	ok(pump(NULL, 10) && B->cpu == 200 && B->io == UINT64_MAX,
	   "the grant ends (its caller left): the values are set back");
	ok(set_fg(pc, user, err, sizeof(err)) == 0 && pump(c_set, 10),
	   "a service of the user's manager gets them too (%s)", err);
	if (!pidfds) {
		skip(2, "no pidfd_open here (valgrind 3.19): an exit is not seen");
		foreground_end(&shared, 0, "the test");
		pump(NULL, 10);
		return;
	}
	kill(pc, SIGKILL);
	waitpid(pc, NULL, 0);
	ok(pump(no_grant, 10), "its process exits: the grant ends");
	ok(pump(NULL, 10) && C->cpu == UINT64_MAX && C->io == UINT64_MAX,
	   "and its unit has its own values again");
}

static void
test_vanished(pid_t pa, pid_t pb)
{
	char err[512];

	ok(set_fg(pa, user, err, sizeof(err)) == 0 && pump(a_set, 10),
	   "A is the foreground");
	A->exists = false; /* the app's scope was collected meanwhile */
	unsigned before = refused;
	foreground_end(&shared, 0, "the test");
	ok(pump(NULL, 10) && refused == before + 1,
	   "a unit gone meanwhile: the restore is refused, nothing more");
	ok(set_fg(pb, user, err, sizeof(err)) == 0 && pump(b_set, 10),
	   "the next foreground is set all the same");
	foreground_end(&shared, 0, "the test");
	pump(NULL, 10);
	ok(set_fg(pa, user, err, sizeof(err)) == 0 && pump(no_grant, 10),
	   "the foreground of a unit already gone ends by itself");
	A->exists = true;
	A->cpu = UINT64_MAX;
	A->io = 100;
}

static void
test_silent(pid_t pa)
{
	char err[512];

	hold = true;
	slowest = 0;
	double t = mono_s();
	ok(set_fg(pa, user, err, sizeof(err)) == 0 && mono_s() - t < 1,
	   "a manager that does not answer: SetForeground returns at once");
	ok(pump(held_two, 10) && shared.grant != 0, "the reads wait, the grant stands");
	ok(pump(no_grant, 20) && !a_set(),
	   "unanswered for 10 s, they are lost: the grant ends by itself, nothing set");
	ok(slowest < 0.5, "the loop never waited on it (longest round %.3f s)", slowest);
	hold = false;
	for (size_t i = 0; i < nheld; i++)
		sd_bus_message_unref(held[i]);
	nheld = 0;
}

static void
test_refusals(pid_t plain, pid_t rootapp, pid_t odd, pid_t daemons)
{
	char err[512], want[512];

	ok(set_fg(plain, user, err, sizeof(err)) == 0 && shared.boost != 0 &&
		   strcmp(fixture_group(&fx, plain), "/fg") == 0,
	   "a process outside a user's manager is boosted into the profile's group (%s)",
	   err);
	foreground_end(&shared, 0, "the test");
	ok(set_fg(rootapp, user, err, sizeof(err)) < 0,
	   "an app of another user's manager is refused");
	snprintf(want, sizeof(want), "pid %d runs in the service manager of uid 0",
		 (int)rootapp);
	is_string(want, err, "with the reason");
	ok(set_fg(rootapp, 0, err, sizeof(err)) < 0,
	   "a manager socket not its user's is not used");
	is_string("cannot reach the service manager of uid 0: Operation not permitted",
		  err, "with the reason");
	ok(set_fg(odd, user, err, sizeof(err)) < 0,
	   "a group the user made below its manager, no unit of its, is refused");
	snprintf(want, sizeof(want),
		 "pid %d is in none of the units of uid %u's service manager", (int)odd,
		 (unsigned)user);
	is_string(want, err, "with the reason");
	is_string("/", fixture_group(&fx, odd), "and not moved");
	if (daemons == 0) {
		skip(1, "uid 1 has no name here");
		return;
	}
	set_fg(daemons, 1, err, sizeof(err));
	is_string("permission denied: boost profile 'fg' is not granted to uid 1", err,
		  "a user the profile does not grant is refused");
}

int
main(void)
{
	char conf[1024];
	struct passwd *pw;

	if (access("/usr/bin/dbus-daemon", X_OK) < 0 &&
	    access("/bin/dbus-daemon", X_OK) < 0)
		skip_all("needs dbus-daemon");
	if (getuid() != 0)
		user = getuid();
	if ((pw = getpwuid(user)) == NULL)
		skip_all("uid %u has no name", (unsigned)user);
	int probe = pidfd_open_pid(getpid());
	bool pidfds = probe >= 0;
	if (probe >= 0)
		close(probe);
	plan(54);
	signal(SIGPIPE, SIG_IGN);
	fixture_init(&fx);
	snprintf(conf, sizeof(conf),
		 "foreground-profile = \"fg\"\n"
		 "boost-profile \"fg\" { allow = {\"%s\"} hierarchy = \"%s\" "
		 "destination = \"/fg\" max-duration = \"1d\" process = {\"nice=%d\", "
		 "\"ioclass=idle\", \"oom_score_adj=500\"} }\n"
		 "group \"%s:/fg\" { set = {\"cpu.weight=1000\", \"io.weight=500\", "
		 "\"net_cls.classid=7\"} }\n",
		 pw->pw_name, FIXTURE_HIER, FG_NICE, FIXTURE_HIER);
	fixture_files(&fx, conf, fixture_rules);
	fx.prio = backend_prio_kernel(); /* the children's own, read back */
	if ((core = fixture_core(&fx)) == NULL)
		bail("no core");
	core_start(core, mono_s());
	testbus_start(&bus, "fgunit", user);
	start_manager();
	start_private();
	shared.core = core;
	shared.address = bus.address;
	shared.address_is_bus = true;
	pid_t pa = app(user, scope_of(user, "app-a.scope"));
	pid_t pb = app(user, scope_of(user, "app-b.scope"));
	pid_t pc = app(user, scope_of(user, "app-c.service"));
	pid_t plain = app(user, "/system.slice/x.service");
	pid_t rootapp = app(
		user, "/user.slice/user-0.slice/user@0.service/app.slice/app-r.scope");
	pid_t odd = app(user, scope_of(user, "made by hand.scope"));
	pid_t daemons =
		getpwuid(1) != NULL && user != 1 ? app(1, scope_of(1, "app-d.scope")) : 0;
	pid_t pp = prio_app(user, scope_of(user, "app-p.scope"));
	pid_t pq = prio_app(user, scope_of(user, "app-q.scope"));
	pid_t plain2 = prio_app(user, "/system.slice/y.service");

	test_set_restore(pa, pb, pc, pidfds);
	test_private(pa);
	test_vanished(pa, pb);
	test_silent(pa);
	test_refusals(plain, rootapp, odd, daemons);
	test_priorities(pp, pq, pa, plain2, pidfds);
	test_no_props();

	foreground_end(&shared, 0, "the test ends");
	foreground_close(&shared, 2);
	sd_bus_flush_close_unref(mgr);
	sd_bus_close_unref(direct);
	close(listener);
	snprintf(conf, sizeof(conf), "%s/private", bus.dir);
	unlink(conf);
	testbus_stop(&bus);
	pid_t kids[] = { pa, pb, pc, plain, rootapp, odd, pp, pq, plain2, daemons };
	for (size_t i = 0; i < 10 && kids[i] > 0; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	core_free(core);
	fixture_done(&fx);
	return tap_done();
}
