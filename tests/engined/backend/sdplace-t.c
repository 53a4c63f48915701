/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdplace-t.c -- the systemd backend (engined/backend/systemd/: the
 * table, its move queue and its sd-bus transport) against a stand-in
 * for PID 1, without root: a D-Bus peer on a socket of the
 * test's own that answers the Manager calls the backend makes
 * (StartTransientUnit, AttachProcessesToUnit, Subscribe) when the test
 * says so, over a directory that plays the unified hierarchy.  What a
 * hostile or careless user could do to the backend:
 *   - a PID 1 that does not answer: the calls in flight are capped, the
 *     moves beyond are refused (-ENOBUFS) and a rescan is asked for once
 *     half of them are answered;
 *   - a held move whose process exits meanwhile is never sent (its pid
 *     could be someone else's by then), one whose process lives is;
 *   - a group name of bytes sd-bus refuses in a string (a template's
 *     value) still starts its scope, described by the unit's name;
 *   - a reload that changes unified-root while a move is in flight does
 *     not crash the daemon when PID 1 then asks for the scope again;
 *   - the exec gate's keeper whose move PID 1 refused is placed again
 *     when the gate next asks for its group (at most once a second);
 *   - a scope collected under a move is started again with its class's
 *     settings;
 *   - a scope being collected (refusing attach and start alike) is
 *     tried again after a pause that doubles, eight calls at most;
 *   - a unit of the layout that systemd unloaded (UnitRemoved: a scope
 *     collected) is told to the loop by the group it stood for, so that
 *     its id leaves the nft sets; other units are not;
 *   - on a message bus (the system bus when PID 1's private socket
 *     cannot be used) a job's end or a unit's removal sent by another
 *     client is not taken, PID 1's is, its name known from its answer
 *     to Subscribe (a private dbus-daemon stands in for the bus).
 */
#include "engined/backend/systemd/sdplace.h"
#include "tests/tap/tap.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>
#include <unistd.h>

#define ROOT "/cgengine.slice"
#define WWW  ROOT "/students/www"
#define WWW_SCOPE                                                                        \
	ROOT "/cgengine-students.slice/cgengine-students-www.scope" /* its group */
#define HELD_MAX 1024

/* ---- the stand-in for PID 1 ---------------------------------------------------------- */

static struct {
	int listen_fd;
	sd_bus *peer[8]; /* one per connection the backend made */
	size_t npeers;
	bool answer; /* answer calls at once (else hold them) */
	sd_bus_message *held[HELD_MAX];
	size_t nheld;
	unsigned attaches, starts, jobs;
	pid_t last_pid;
	char last_desc[512];
	char last_props[512]; /* "CPUWeight=300 " ...: the numbers a start set */
	const char *error; /* answer with this error instead */
	const char *error_once; /* ... the next call only */
	unsigned refusals;	/* refuse that many more moves as a collected scope does */
	double at[16];		/* when the moves refused came (monotonic s) */
	unsigned nat;
	char caller[64];	/* the sender of the last call (on a bus) */
	bool no_job_end;	/* keep a start job running until job_end() */
	char job[64], unit[256];
	sd_bus *job_bus;
} pid1;

static void
reply(sd_bus_message *m)
{
	const char *error = pid1.error_once ? pid1.error_once : pid1.error;
	const char *member = sd_bus_message_get_member(m);

	if (pid1.refusals > 0 && (strcmp(member, "AttachProcessesToUnit") == 0 ||
				  strcmp(member, "StartTransientUnit") == 0)) {
		if (pid1.nat < 16)
			pid1.at[pid1.nat++] = mono_s();
		pid1.refusals--; /* a scope being collected: not there, yet there */
		error = member[0] == 'A' ? "org.freedesktop.systemd1.NoSuchUnit"
					 : "org.freedesktop.systemd1.UnitExists";
	}
	pid1.error_once = NULL;
	if (error != NULL) {
		sd_bus_reply_method_errorf(m, error, "stand-in says %s", error);
		return;
	}
	if (strcmp(sd_bus_message_get_member(m), "StartTransientUnit") != 0) {
		sd_bus_reply_method_return(m, NULL);
		return;
	}
	char job[64];
	const char *unit = NULL;
	snprintf(job, sizeof(job), "/org/freedesktop/systemd1/job/%u", ++pid1.jobs);
	sd_bus_message_rewind(m, true);
	(void)sd_bus_message_read(m, "s", &unit);
	sd_bus_reply_method_return(m, "o", job);
	if (pid1.no_job_end) {
		snprintf(pid1.job, sizeof(pid1.job), "%s", job);
		snprintf(pid1.unit, sizeof(pid1.unit), "%s", unit ? unit : "");
		pid1.job_bus = sd_bus_message_get_bus(m);
		return;
	}
	sd_bus_emit_signal(sd_bus_message_get_bus(m), "/org/freedesktop/systemd1",
			   "org.freedesktop.systemd1.Manager", "JobRemoved", "uoss",
			   pid1.jobs, job, unit ? unit : "", "done");
}

/* The start job kept running ends now. */
static void
job_end(void)
{
	sd_bus_emit_signal(pid1.job_bus, "/org/freedesktop/systemd1",
			   "org.freedesktop.systemd1.Manager", "JobRemoved", "uoss", pid1.jobs,
			   pid1.job, pid1.unit, "done");
}

/* Answer now, or keep the call for later. */
static int
take(sd_bus_message *m)
{
	const char *from = sd_bus_message_get_sender(m);

	if (from != NULL)
		snprintf(pid1.caller, sizeof(pid1.caller), "%s", from);
	if (pid1.answer || pid1.nheld == HELD_MAX) {
		reply(m);
		return 1;
	}
	pid1.held[pid1.nheld++] = sd_bus_message_ref(m);
	return 1;
}

static void
answer_held(void)
{
	for (size_t i = 0; i < pid1.nheld; i++) {
		reply(pid1.held[i]);
		sd_bus_message_unref(pid1.held[i]);
	}
	pid1.nheld = 0;
}

static int
m_attach(sd_bus_message *m, void *arg, sd_bus_error *e)
{
	const char *unit, *sub;
	uint32_t pid = 0;

	pid1.attaches++;
	if (sd_bus_message_read(m, "ss", &unit, &sub) >= 0 &&
	    sd_bus_message_read(m, "au", 1, &pid) >= 0)
		pid1.last_pid = (pid_t)pid;
	return take(m);
}

static int
m_start(sd_bus_message *m, void *arg, sd_bus_error *e)
{
	const char *unit, *mode, *name, *desc;

	pid1.starts++;
	pid1.last_desc[0] = '\0';
	pid1.last_props[0] = '\0';
	if (sd_bus_message_read(m, "ss", &unit, &mode) < 0 ||
	    sd_bus_message_enter_container(m, 'a', "(sv)") < 0)
		return take(m);
	while (sd_bus_message_enter_container(m, 'r', "sv") > 0) {
		if (sd_bus_message_read(m, "s", &name) < 0)
			break;
		const char *contents = NULL;
		char type;
		uint64_t u;
		size_t n = strlen(pid1.last_props);
		if (sd_bus_message_peek_type(m, &type, &contents) < 0)
			break;
		if (strcmp(name, "Description") == 0 &&
		    sd_bus_message_read(m, "v", "s", &desc) >= 0)
			snprintf(pid1.last_desc, sizeof(pid1.last_desc), "%s", desc);
		else if (contents != NULL && strcmp(contents, "t") == 0 &&
			 sd_bus_message_read(m, "v", "t", &u) >= 0)
			snprintf(pid1.last_props + n, sizeof(pid1.last_props) - n,
				 "%s=%llu ", name, (unsigned long long)u);
		else
			sd_bus_message_skip(m, "v");
		sd_bus_message_exit_container(m);
	}
	return take(m);
}

static int
m_plain(sd_bus_message *m, void *arg, sd_bus_error *e)
{
	const char *from = sd_bus_message_get_sender(m);

	if (from != NULL)
		snprintf(pid1.caller, sizeof(pid1.caller), "%s", from);
	return sd_bus_reply_method_return(m, NULL);
}

/* systemd unloaded unit: UnitRemoved to every connection (on bus, as
 * bus's signal; NULL: to the backend's connections). */
static void
unit_removed(sd_bus *bus, const char *unit)
{
	static const char object[] = "/org/freedesktop/systemd1/unit/x";

	for (size_t i = 0; bus == NULL && i < pid1.npeers; i++)
		sd_bus_emit_signal(pid1.peer[i], "/org/freedesktop/systemd1",
				   "org.freedesktop.systemd1.Manager", "UnitRemoved", "so",
				   unit, object);
	if (bus != NULL)
		sd_bus_emit_signal(bus, "/org/freedesktop/systemd1",
				   "org.freedesktop.systemd1.Manager", "UnitRemoved", "so",
				   unit, object);
}

static const sd_bus_vtable manager[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("AttachProcessesToUnit", "ssau", "", m_attach, 0),
	SD_BUS_METHOD("StartTransientUnit", "ssa(sv)a(sa(sv))", "o", m_start, 0),
	SD_BUS_METHOD("Subscribe", "", "", m_plain, 0),
	SD_BUS_METHOD("SetUnitProperties", "sba(sv)", "", m_plain, 0),
	SD_BUS_VTABLE_END,
};

static void
pid1_start(const char *sock)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	if (strlen(sock) >= sizeof(a.sun_path))
		bail("socket path too long: %s", sock);
	memcpy(a.sun_path, sock, strlen(sock) + 1);
	pid1.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (pid1.listen_fd < 0 || bind(pid1.listen_fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(pid1.listen_fd, 8) < 0)
		bail("cannot listen on %s: %s", sock, strerror(errno));
}

/* A connection of the backend's: a peer-to-peer bus, PID 1's side. */
static void
pid1_accept(void)
{
	int fd = accept4(pid1.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	sd_bus *b = NULL;
	sd_id128_t id;

	if (fd < 0)
		return;
	if (pid1.npeers == 8 || sd_bus_new(&b) < 0 || sd_bus_set_fd(b, fd, fd) < 0 ||
	    sd_id128_randomize(&id) < 0 || sd_bus_set_server(b, 1, id) < 0 ||
	    sd_bus_set_anonymous(b, 1) < 0 ||
	    sd_bus_add_object_vtable(b, NULL, "/org/freedesktop/systemd1",
				     "org.freedesktop.systemd1.Manager", manager, NULL) < 0 ||
	    sd_bus_start(b) < 0) {
		diag("the stand-in cannot serve a connection");
		sd_bus_unref(b);
		close(fd);
		return;
	}
	pid1.peer[pid1.npeers++] = b;
}

/* Serve the connections; drop those the backend closed. */
static void
pid1_serve(void)
{
	for (size_t i = 0; i < pid1.npeers;) {
		int r;

		while ((r = sd_bus_process(pid1.peer[i], NULL)) > 0)
			;
		if (r < 0 || sd_bus_is_open(pid1.peer[i]) <= 0) {
			sd_bus_close_unref(pid1.peer[i]);
			pid1.peer[i] = pid1.peer[--pid1.npeers];
			continue;
		}
		i++;
	}
}

/* ---- the backend's side -------------------------------------------------------------- */

static struct {
	unsigned done_ok, done_gone, done_err, lost, removed;
	pid_t last_done;
	char last_removed[256]; /* the group the last unit gone stood for */
} seen;

static void
h_done(void *arg, pid_t pid, int rc)
{
	seen.last_done = pid;
	if (rc == 0)
		seen.done_ok++;
	else if (rc == -ESRCH)
		seen.done_gone++;
	else
		seen.done_err++;
}

static void
h_lost(void *arg)
{
	seen.lost++;
}

static void
h_removed(void *arg, const char *path)
{
	seen.removed++;
	snprintf(seen.last_removed, sizeof(seen.last_removed), "%s", path);
}

/* Let both sides run until nothing moves for a while. */
static void
pump(struct sdplace *s)
{
	for (int quiet = 0; quiet < 5;) {
		struct pollfd p[10];
		size_t n = 0;

		p[n++] = (struct pollfd){ .fd = pid1.listen_fd, .events = POLLIN };
		if (sdplace_fd(s) >= 0)
			p[n++] = (struct pollfd){ .fd = sdplace_fd(s),
						  .events = (short)sdplace_events(s) };
		for (size_t i = 0; i < pid1.npeers; i++)
			p[n++] = (struct pollfd){ .fd = sd_bus_get_fd(pid1.peer[i]),
						  .events = (short)sd_bus_get_events(
							  pid1.peer[i]) };
		int r = poll(p, n, 20);
		quiet = r > 0 ? 0 : quiet + 1;
		pid1_accept();
		pid1_serve();
		sdplace_process(s);
		sdplace_flush(s);
	}
}

static char dir[64];
static struct hier v2;

/* A group of the stand-in hierarchy that holds processes. */
static void
group(const char *path)
{
	char cmd[1024], file[1024];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/cg%s'", dir, path);
	if (system(cmd) != 0)
		bail("%s", cmd);
	snprintf(file, sizeof(file), "%s/cg%s/cgroup.events", dir, path);
	if ((f = fopen(file, "w")) == NULL)
		bail("cannot write %s", file);
	fputs("populated 1\nfrozen 0\n", f);
	fclose(f);
}

static pid_t
sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	if (pid < 0)
		bail("fork: %s", strerror(errno));
	return pid;
}

static void
test_cap(struct sdplace *s, const struct backend *t)
{
	unsigned refused = 0, queued = 0, other = 0;

	pid1.answer = false;
	for (pid_t pid = 100000; pid < 100600; pid++) {
		int rc = backend_move(t, &v2, WWW, pid);
		if (rc == -ENOBUFS)
			refused++;
		else if (rc == BACKEND_MOVE_QUEUED)
			queued++;
		else
			other++;
	}
	pump(s);
	is_int(512, queued, "a PID 1 that does not answer: 512 moves in flight");
	is_int(88, refused, "... the 88 beyond are refused at once (-ENOBUFS)");
	is_int(0, other, "... nothing else");
	is_int(512, pid1.attaches, "... and PID 1 was asked 512 times");
	is_int(0, seen.lost, "no rescan while the queue is full");
	answer_held();
	pump(s);
	is_int(512, seen.done_ok, "PID 1 answers: 512 moves done");
	is_int(1, seen.lost, "... and a rescan is asked for, once");
	is_int(BACKEND_MOVE_QUEUED, backend_move(t, &v2, WWW, 100600),
	       "a move is taken again");
	pump(s);
	answer_held();
	pump(s);
}

static void
test_gone(struct sdplace *s, const struct backend *t)
{
	pid_t a = sleeper(), b = sleeper();
	unsigned attaches = pid1.attaches, gone = seen.done_gone, done = seen.done_ok;

	pid1.answer = false;
	is_int(BACKEND_MOVE_QUEUED, backend_move(t, &v2, WWW, a), "a move of a process");
	is_int(BACKEND_MOVE_QUEUED, backend_move(t, &v2, WWW, a),
	       "... and a second while the first is in flight (held)");
	is_int(BACKEND_MOVE_QUEUED, backend_move(t, &v2, WWW, b), "the same for another");
	is_int(BACKEND_MOVE_QUEUED, backend_move(t, &v2, WWW, b), "... twice");
	pump(s);
	is_int(attaches + 2, pid1.attaches, "PID 1 is asked once for each");
	kill(a, SIGKILL);
	waitpid(a, NULL, 0); /* its pid is free for anyone now */
	answer_held();
	pump(s);
	is_int(attaches + 3, pid1.attaches,
	       "the held move of the process that lives is sent");
	is_int(b, pid1.last_pid, "... it is that one's");
	is_int(gone + 1, seen.done_gone,
	       "the held move of the one that exited is never sent (gone)");
	answer_held();
	pump(s);
	is_int(done + 3, seen.done_ok, "the three moves sent are done");
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
}

static void
test_description(struct sdplace *s, const struct backend *t)
{
	static const char name[] = ROOT "/students/\xff\xfe";
	bool made = false;
	unsigned starts = pid1.starts;

	pid1.answer = true;
	int rc = backend_mkdir(t, &v2, ROOT "/students", &made);
	rc = rc < 0 ? rc : backend_mkdir(t, &v2, name, &made);
	is_int(0, rc, "a group named with bytes that are not UTF-8 is noted");
	is_int(BACKEND_MOVE_QUEUED, backend_move(t, &v2, name, getpid()),
	       "... and a move into it is asked for");
	pump(s);
	ok(pid1.starts > starts, "PID 1 was asked to start its scope");
	is_string("cgengine class cgengine-students-\\xff\\xfe.scope", pid1.last_desc,
		  "described by the unit's name, which sd-bus takes");
}

/* A scope collected under a move (the attach finds no unit) is started
 * again with the properties it was started with, or set since. */
static void
test_props(struct sdplace *s, const struct backend *t)
{
	static const char lab[] = ROOT "/students/lab";
	bool made;
	unsigned starts = pid1.starts;

	pid1.answer = true;
	ok(backend_mkdir(t, &v2, ROOT "/students", &made) == 0 &&
		   backend_mkdir(t, &v2, lab, &made) == 0 &&
		   backend_set(t, &v2, lab, "cpu.weight", "300") == 0,
	   "a class's leaf with a setting");
	is_int(BACKEND_MOVE_QUEUED, backend_move(t, &v2, lab, 100800), "a move into it");
	pump(s);
	is_string("CPUWeight=300 ", pid1.last_props, "its scope is started with it");
	group(ROOT "/cgengine-students.slice/cgengine-students-lab.scope");
	pid1.error_once = "org.freedesktop.systemd1.NoSuchUnit";
	is_int(BACKEND_MOVE_QUEUED, backend_move(t, &v2, lab, 100801),
	       "another move: an attach, which finds the scope collected");
	pump(s);
	ok(pid1.starts >= starts + 2, "the scope is started again");
	is_string("CPUWeight=300 ", pid1.last_props, "... with its setting");
	backend_set(t, &v2, lab, "cpu.weight", "50"); /* runtime, at a reload */
	pump(s);
	pid1.error_once = "org.freedesktop.systemd1.NoSuchUnit";
	backend_move(t, &v2, lab, 100802);
	pump(s);
	is_string("CPUWeight=50 ", pid1.last_props, "... or with the one set since");
}

/* A scope being collected refuses both an attach (no such unit) and a
 * start (it exists): the move is tried again after a pause that grows,
 * at most eight calls. */
static void
test_retry(struct sdplace *s, const struct backend *t)
{
	unsigned ok0 = seen.done_ok, err0 = seen.done_err;
	pid_t a = sleeper(), b = sleeper(); /* a waiting move checks its process */

	pid1.answer = true;
	pid1.nat = 0;
	pid1.refusals = 3;
	is_int(BACKEND_MOVE_QUEUED, backend_move(t, &v2, WWW, a),
	       "a move into a scope being collected");
	for (int i = 0; i < 20 && seen.done_ok == ok0; i++)
		pump(s);
	is_int(ok0 + 1, seen.done_ok, "refused three times, then done");
	ok(pid1.nat == 3 && pid1.at[1] - pid1.at[0] < 0.09 &&
		   pid1.at[2] - pid1.at[1] >= 0.09,
	   "the first retry at once, the second after a pause (%.3f s, %.3f s)",
	   pid1.nat == 3 ? pid1.at[1] - pid1.at[0] : -1.0,
	   pid1.nat == 3 ? pid1.at[2] - pid1.at[1] : -1.0);

	pid1.nat = 0;
	pid1.refusals = 100;
	is_int(BACKEND_MOVE_QUEUED, backend_move(t, &v2, WWW, b), "one never let in");
	for (int i = 0; i < 200 && seen.done_err == err0; i++)
		pump(s);
	pid1.refusals = 0;
	is_int(err0 + 1, seen.done_err, "is given up");
	ok(pid1.nat == 8, "after eight calls (%u)", pid1.nat);
	ok(pid1.nat == 8 && pid1.at[7] - pid1.at[6] >= 2 * (pid1.at[6] - pid1.at[5]) - 0.05 &&
		   pid1.at[6] - pid1.at[5] >= 1.5,
	   "the pause doubles each time (%.2f s, then %.2f s)",
	   pid1.nat == 8 ? pid1.at[6] - pid1.at[5] : -1.0,
	   pid1.nat == 8 ? pid1.at[7] - pid1.at[6] : -1.0);
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
}

/* systemd collected a scope, stopped a slice: the loop hears which of
 * the layout's groups they stood for (their ids leave the nft sets). */
static void
test_removed(struct sdplace *s)
{
	unsigned removed = seen.removed;

	unit_removed(NULL, "cgengine-students-www.scope");
	pump(s);
	is_int(removed + 1, seen.removed, "systemd collected a scope of the layout: told");
	is_string(WWW, seen.last_removed, "... as the group it stood for");
	unit_removed(NULL, "cgengine-students.slice");
	pump(s);
	is_string(ROOT "/students", seen.last_removed, "a slice of the layout: its level");
	unit_removed(NULL, "session-3.scope");
	unit_removed(NULL, "cgenginex-a.scope");
	unit_removed(NULL, "cgengine-a.service");
	unit_removed(NULL, "cgengine.slice");
	pump(s);
	is_int(removed + 2, seen.removed,
	       "a session's scope, another prefix's, a service, the root slice: not told");
}

static void
test_reroot(struct sdplace *s, const struct backend *t)
{
	unsigned err = seen.done_err;

	pid1.answer = false;
	is_int(BACKEND_MOVE_QUEUED, backend_move(t, &v2, WWW, 100700), "a move in flight");
	pump(s);
	is_int(0, sdplace_configure(s, "/other.slice"), "a reload changes unified-root");
	pid1.error = "org.freedesktop.systemd1.NoSuchUnit"; /* start it, then */
	answer_held();
	pump(s);
	pid1.error = NULL;
	is_int(err + 1, seen.done_err,
	       "the scope of the former root is not started again: the move is given up");
	is_int(100700, seen.last_done, "... that move");
}

/* The exec gate's keepers, placed as the core would (groups_keep). */
static pid_t keepers[8];
static size_t nkeepers, placed;

static void
keeper_cb(void *karg, pid_t pid, const char *path)
{
	const struct backend *t = karg;

	if (nkeepers < 8)
		keepers[nkeepers++] = pid;
	placed++;
	if (backend_move(t, &v2, path, pid) != BACKEND_MOVE_QUEUED)
		diag("the keeper's move was not asked for");
}

static void
test_keeper(struct sdplace *s, const struct backend *t)
{
	const char *paths[] = { WWW };
	unsigned attaches = pid1.attaches, err = seen.done_err;

	pid1.answer = true;
	pid1.error = "org.freedesktop.DBus.Error.AccessDenied";
	is_int(0, backend_prepare(t, &v2, paths, 1, keeper_cb, (void *)t),
	       "the gate wants a group ready: a keeper");
	pump(s);
	pid1.error = NULL;
	ok(nkeepers == 1 && pid1.attaches == attaches + 1 && seen.done_err == err + 1,
	   "its move is refused by PID 1");
	is_int(0, backend_prepare(t, &v2, paths, 1, keeper_cb, (void *)t),
	   "the gate asks again at once");
	is_int(1, placed, "... not placed again within a second");
	usleep(1100 * 1000);
	is_int(0, backend_prepare(t, &v2, paths, 1, keeper_cb, (void *)t),
	       "the gate asks again a second later");
	pump(s);
	ok(placed == 2 && nkeepers == 2 && keepers[1] == keepers[0],
	   "the same keeper, alive but not in its scope, is placed again");
	is_int(attaches + 2, pid1.attaches, "... PID 1 is asked");
	is_int(0, backend_prepare(t, &v2, paths, 0, keeper_cb, (void *)t),
	       "the gate closes");
	pid_t r = 0;
	for (int i = 0; i < 300 && r == 0; i++)
		if ((r = waitpid(keepers[0], NULL, WNOHANG)) == 0)
			usleep(10000);
	is_int(keepers[0], r, "... and its keeper has exited");
}

/* ---- on a message bus: a job's end only from PID 1 ------------------------------- */

static const char busconf[] =
	"<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
	" \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
	"<busconfig><type>custom</type><listen>unix:path=%s</listen>"
	"<auth>EXTERNAL</auth><policy context=\"default\">"
	"<allow user=\"*\"/><allow own=\"*\"/><allow send_destination=\"*\"/>"
	"<allow receive_sender=\"*\"/></policy></busconfig>\n";

static sd_bus *
bus_client(const char *address)
{
	sd_bus *b = NULL;

	if (sd_bus_new(&b) < 0 || sd_bus_set_address(b, address) < 0 ||
	    sd_bus_set_bus_client(b, 1) < 0 || sd_bus_start(b) < 0)
		bail("cannot connect to the test's bus %s", address);
	return b;
}

/* Another client of the bus sends the daemon (pid1.caller) signal
 * member with sig's arguments; 0 or -errno. */
static int
spoof(sd_bus *attacker, const char *member, const char *sig, ...)
{
	sd_bus_message *m = NULL;
	va_list ap;
	int rc = sd_bus_message_new_signal(attacker, &m, "/org/freedesktop/systemd1",
					   "org.freedesktop.systemd1.Manager", member);

	if (rc >= 0)
		rc = sd_bus_message_set_destination(m, pid1.caller);
	va_start(ap, sig);
	if (rc >= 0)
		rc = sd_bus_message_appendv(m, sig, ap);
	va_end(ap);
	if (rc >= 0)
		rc = sd_bus_send(attacker, m, NULL);
	sd_bus_message_unref(m);
	return rc < 0 ? rc : 0;
}

/* Before any start: the backend knows PID 1's name from its answer to
 * Subscribe, and takes a unit's removal from it only. */
static void
test_bus_removed(struct sdplace *s, const struct backend *t, sd_bus *attacker,
		 sd_bus *standin)
{
	unsigned removed = seen.removed;

	pid1.caller[0] = '\0';
	is_int(0, backend_set(t, &v2, ROOT "/students", "cpu.weight", "100"),
	       "a setting of a slice: the backend's first call, over the bus");
	pump(s);
	ok(pid1.caller[0] == ':', "PID 1 was called by the backend (%s)", pid1.caller);
	is_int(0, spoof(attacker, "UnitRemoved", "so", "cgengine-students-www.scope",
			"/org/freedesktop/systemd1/unit/x"),
	       "another client sends the daemon a unit's removal");
	pump(s);
	is_int(removed, seen.removed, "... which is not taken");
	unit_removed(standin, "cgengine-students-www.scope");
	pump(s);
	ok(seen.removed == removed + 1 && strcmp(seen.last_removed, WWW) == 0,
	   "PID 1's own UnitRemoved is (its name from its answer to Subscribe)");
}

static void
test_spoof(void)
{
	char conf[128], sock[128], address[160];
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/bus.conf", dir);
	snprintf(sock, sizeof(sock), "%s/bus.sock", dir);
	snprintf(address, sizeof(address), "unix:path=%s", sock);
	if (access("/usr/bin/dbus-daemon", X_OK) != 0) {
		skip(12, "no dbus-daemon to stand in for the system bus");
		return;
	}
	if ((f = fopen(conf, "w")) == NULL)
		bail("cannot write %s", conf);
	fprintf(f, busconf, sock);
	fclose(f);
	pid_t broker = fork();
	if (broker == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2); /* its complaints about limits */
		execl("/usr/bin/dbus-daemon", "dbus-daemon", "--nofork", "--nosyslog",
		      "--config-file", conf, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500 && access(sock, F_OK) != 0; i++)
		usleep(10000);

	/* PID 1's stand-in owns systemd's name on that bus */
	sd_bus *standin = bus_client(address), *attacker = bus_client(address);
	ok(sd_bus_add_object_vtable(standin, NULL, "/org/freedesktop/systemd1",
				    "org.freedesktop.systemd1.Manager", manager, NULL) >= 0 &&
		   sd_bus_request_name(standin, "org.freedesktop.systemd1", 0) >= 0,
	   "a stand-in for PID 1 on a message bus");
	pid1.peer[pid1.npeers++] = standin;
	pid1.peer[pid1.npeers++] = attacker;

	struct sdplace *s = NULL;
	struct sdplace_hooks hooks = { .done = h_done,
				       .lost = h_lost,
				       .removed = h_removed,
				       .address = address,
				       .address_is_bus = true };
	if (sdplace_new(&s, &hooks) < 0 || sdplace_configure(s, ROOT) < 0)
		bail("no backend on the test's bus");
	const struct backend *t = sdplace_table(s);
	test_bus_removed(s, t, attacker, standin);
	static const char path[] = ROOT "/students/bus";
	bool made;
	unsigned done = seen.done_ok;

	pid1.answer = true;
	pid1.no_job_end = true;
	pid1.job[0] = '\0';
	is_int(BACKEND_MOVE_QUEUED,
	       backend_mkdir(t, &v2, path, &made) < 0 ? -1
						    : backend_move(t, &v2, path, getpid()),
	       "a move that starts a scope, over the bus");
	pump(s);
	ok(pid1.job[0] != '\0' && pid1.caller[0] == ':',
	   "PID 1 answered with its start job (%s), which has not ended", pid1.job);
	is_int(done, seen.done_ok, "... so the move is not done");

	/* another client of the bus sends the job's end, to the daemon only
	 * (a broadcast would not pass the broker's match on the sender) */
	is_int(0,
	       spoof(attacker, "JobRemoved", "uoss", pid1.jobs, pid1.job, pid1.unit, "done"),
	       "another client sends the daemon that job's end");
	pump(s);
	is_int(done, seen.done_ok, "... which is not taken: the move is still not done");
	job_end();
	pump(s);
	is_int(done + 1, seen.done_ok, "PID 1's own JobRemoved ends it");
	pid1.no_job_end = false;

	sdplace_free(s);
	pid1.npeers -= 2;
	sd_bus_flush_close_unref(standin);
	sd_bus_flush_close_unref(attacker);
	kill(broker, SIGTERM);
	int st = 0;
	waitpid(broker, &st, 0);
	ok(WIFSIGNALED(st) || WIFEXITED(st), "the test's bus stopped");
}

int
main(void)
{
	char sock[128], address[160];
	struct sdplace *s = NULL;

	plan(65);
	snprintf(dir, sizeof(dir), "/tmp/cgetest-sdplace.XXXXXX");
	if (mkdtemp(dir) == NULL)
		bail("mkdtemp: %s", strerror(errno));
	snprintf(sock, sizeof(sock), "%s/pid1.sock", dir);
	snprintf(address, sizeof(address), "unix:path=%s", sock);
	pid1_start(sock);
	group(WWW_SCOPE);
	char mount[128];
	snprintf(mount, sizeof(mount), "%s/cg", dir);
	v2 = (struct hier){ .name = "", .mount = mount, .version = HIER_V2 };

	struct sdplace_hooks hooks = {
		.done = h_done, .lost = h_lost, .removed = h_removed, .address = address
	};
	if (sdplace_new(&s, &hooks) < 0 || sdplace_configure(s, ROOT) < 0)
		bail("no backend over the stand-in");
	const struct backend *t = sdplace_table(s);

	test_cap(s, t);
	test_gone(s, t);
	test_description(s, t);
	test_keeper(s, t);
	test_props(s, t);
	test_retry(s, t);
	test_removed(s);
	test_reroot(s, t);
	test_spoof();

	sdplace_free(s);
	for (size_t i = 0; i < pid1.npeers; i++)
		sd_bus_flush_close_unref(pid1.peer[i]);
	close(pid1.listen_fd);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
	return tap_done();
}
