/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gate-t.c -- the exec gate in the core, without root or fanotify: held
 * execs decided and moved over the fixture /proc tree and fake
 * cgroupfs (tests/lib/fixture.c) -- the credentials a set-user-ID or
 * set-group-ID binary gives, nosuid and no_new_privs, sticky and paused,
 * the exec confirmed by its EXEC event, a failed exec moved back, no
 * classification by the old program while the exec is on its way, the
 * paths the gate marks, and what explain is told.  Set-user-ID is
 * decided by only when the kernel is sure to apply it (real child
 * processes: traced, another user namespace, a shared fs_struct); an
 * exec is confirmed for its binary and credentials, and what it forked
 * meanwhile goes back with it.
 */
#include "engined/core/core.h"
#include "engined/core/gate.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* valgrind cannot run a clone() with CLONE_FS: under it, that part of
 * the test is skipped (scripts/check-all.sh runs the unit tests under
 * valgrind) */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#define NOBODY 65534
#define OTHER  4321 /* a uid no rule names */

static struct fixture fx;

static const char rules[] = "root:/usr/bin/fx-su    name=cgecore  /admins\n"
			    "nobody:/usr/bin/fx-su  name=cgecore  /users\n"
			    "@nogroup:/usr/bin/fx-sg name=cgecore /sg\n"
			    "nobody:/bin/true       name=cgecore  /gated\n"
			    "nobody:/bin/true       name=cgecore  /twice\n"
			    "*:/usr/bin/fx-skip     name=cgecore  /skip  ignore\n"
			    "nobody:sh              name=cgecore  /named\n"
			    "nobody                 name=cgecore  /users\n";

/* The identity of a real file, as an event's descriptor would give it. */
static struct execgate_file
file_of(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	struct stat st;
	struct execgate_file f = { .mode = S_IFREG | mode, .uid = uid, .gid = gid };

	if (stat(path, &st) == 0) {
		f.dev = (uint64_t)st.st_dev;
		f.ino = (uint64_t)st.st_ino;
	}
	return f;
}

static enum gate_result
held(struct core *c, pid_t pid, const char *path, const struct execgate_file *f,
     double now)
{
	struct gate_exec x = { .pid = pid, .path = path, .file = f, .pidfd = -1 };

	return core_gate_exec(c, &x, now);
}

static void
event(struct core *c, enum procev_type type, pid_t pid, double now)
{
	struct procev_event ev = fixture_event(type, pid, 0);

	core_event(c, &ev, now);
	core_batch_done(c, now);
}

static void
event_fork(struct core *c, pid_t parent, pid_t child, double now)
{
	struct procev_event ev = fixture_event(PROCEV_FORK, child, parent);

	core_event(c, &ev, now);
	core_batch_done(c, now);
}

/*
 * A real process (a child of the test that waits), shown in the fixture
 * as uid, gid running exe in group, untraced and in the test's user
 * namespace: what the gate asks the kernel about it (kcmp) is real.
 * With share, the child shares the test's fs_struct (CLONE_FS).
 */
static pid_t kids[32];
static size_t nkids;

static pid_t
real_proc(uid_t uid, gid_t gid, const char *exe, const char *group, bool share)
{
	char path[300];
	pid_t pid = (pid_t)syscall(SYS_clone, (share ? CLONE_FS : 0) | SIGCHLD, 0, 0, 0, 0);

	if (pid < 0 || nkids == sizeof(kids) / sizeof(kids[0]))
		bail("cannot start a child");
	if (pid == 0) {
		pause();
		_exit(0);
	}
	kids[nkids++] = pid;
	fixture_proc(&fx, pid, uid, gid, exe, (uint64_t)pid, group);
	fixture_status(&fx, pid, "TracerPid", "0");
	snprintf(path, sizeof(path), "%s/%d/ns", fx.proc, (int)pid);
	if (mkdir(path, 0755) < 0)
		bail("mkdir %s", path);
	snprintf(path, sizeof(path), "%s/%d/ns/user", fx.proc, (int)pid);
	if (symlink("/proc/self/ns/user", path) < 0)
		bail("symlink %s", path);
	snprintf(path, sizeof(path), "%s/%d/ns/mnt", fx.proc, (int)pid);
	if (symlink("/proc/self/ns/mnt", path) < 0)
		bail("symlink %s", path);
	return pid;
}

static void
kids_done(void)
{
	for (size_t i = 0; i < nkids; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
}

/* Point the fixture's exe link of pid at exe (a real file). */
static void
exe_is(pid_t pid, const char *exe)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%d/exe", fx.proc, (int)pid);
	if (unlink(path) < 0 || symlink(exe, path) < 0)
		bail("relink %s", path);
}

static void
collect(void *arg, const char *path)
{
	char *buf = arg;
	size_t n = strlen(buf);

	snprintf(buf + n, 512 - n, "%s%s", n ? " " : "", path);
}

static void
test_paths(struct core *c)
{
	char buf[512] = "";

	core_gate_paths(c, collect, buf);
	is_string("/usr/bin/fx-su /usr/bin/fx-su /usr/bin/fx-sg /bin/true /bin/true", buf,
		  "the gate holds the paths rules name (not ignore rules, not names)");
}

static void
test_place(struct core *c)
{
	struct execgate_file run = file_of("/bin/true", 0755, 0, 0);
	uint64_t moves = core_stats(c)->moves;

	fixture_proc(&fx, 700, NOBODY, NOBODY, "/bin/sh", 70, "/");
	is_int(GATE_PLACED, held(c, 700, "/bin/true", &run, 10.0),
	       "a held exec of a gated binary is placed");
	is_string("/gated", fixture_group(&fx, 700), "... in its rule's group");
	is_int(1, (long long)(core_stats(c)->moves - moves), "... with one move");
	is_int(1, (long long)core_stats(c)->gate_moves, "... counted as the gate's");
	time_t at;
	ok(core_gate_placed(c, 700, &at) && at == fx.wall, "explain is told when");
	ok(!core_gate_placed(c, 701, &at), "... and not for another pid");

	/* the old program is not classified while the exec is on its way */
	core_rescan(c, 10.1);
	is_string("/gated", fixture_group(&fx, 700),
		  "a rescan does not classify it by its old program");
	/* the exec happens: the new program, its EXEC event */
	fixture_proc(&fx, 700, NOBODY, NOBODY, "/bin/true", 70, "/gated");
	event(c, PROCEV_EXEC, 700, 10.2);
	is_string("/gated", fixture_group(&fx, 700), "its EXEC event finds it in place");
	is_int(1, (long long)(core_stats(c)->moves - moves),
	       "... and moves nothing more");
	core_timeout(c, 11.0);
	is_string("/gated", fixture_group(&fx, 700), "... nor is it moved back later");
	is_int(0, (long long)core_stats(c)->gate_undone, "... nothing undone");
	is_int(GATE_IN_PLACE, held(c, 700, "/bin/true", &run, 11.1),
	       "another exec of it finds it in place");
	ok(core_gate_placed(c, 700, &at),
	   "... and explain still says the gate placed it");
	fixture_proc(&fx, 700, NOBODY, NOBODY, "/bin/true", 71, "/gated");
	ok(!core_gate_placed(c, 700, &at), "... but not of a new process with its pid");
	fixture_gone(&fx, 700); /* kcmp: only real children from here on */
}

static void
test_setid(struct core *c)
{
	struct execgate_file su = file_of("/bin/true", 04755, 0, 0);
	pid_t p0 = real_proc(NOBODY, NOBODY, "/bin/sh", "/", false);

	is_int(GATE_PLACED, held(c, p0, "/usr/bin/fx-su", &su, 12.0),
	       "a set-user-ID root binary run by nobody");
	is_string("/admins", fixture_group(&fx, p0), "... is decided as root (euid 0)");

	su.nosuid = true;
	pid_t p1 = real_proc(NOBODY, NOBODY, "/bin/sh", "/", false);
	held(c, p1, "/usr/bin/fx-su", &su, 12.1);
	is_string("/users", fixture_group(&fx, p1),
		  "... but as nobody on a nosuid mount");

	su.nosuid = false;
	pid_t p2 = real_proc(NOBODY, NOBODY, "/bin/sh", "/", false);
	fixture_status(&fx, p2, "NoNewPrivs", "1");
	held(c, p2, "/usr/bin/fx-su", &su, 12.2);
	is_string("/users", fixture_group(&fx, p2), "... and with no_new_privs set");

	struct execgate_file sg = file_of("/bin/true", 02755, 0, NOBODY);
	pid_t p3 = real_proc(0, 0, "/bin/sh", "/", false);
	is_int(GATE_PLACED, held(c, p3, "/usr/bin/fx-sg", &sg, 12.3),
	       "a set-group-ID binary run by root");
	is_string("/sg", fixture_group(&fx, p3), "... is decided by the file's group");
	sg.mode = S_IFREG | 02745; /* no group execute: not set-group-ID */
	pid_t p4 = real_proc(0, 0, "/bin/sh", "/", false);
	is_int(GATE_LEFT, held(c, p4, "/usr/bin/fx-sg", &sg, 12.4),
	       "set-group-ID without group execute gives nothing");
	is_string("/", fixture_group(&fx, p4), "... so root's exec is left alone");
	/* none of these execs happened (no EXEC event, the same program) */
	core_timeout(c, 13.0);
	is_int(4, (long long)core_stats(c)->gate_undone,
	       "the four execs that did not happen "
	       "are undone");
	is_string("/named", fixture_group(&fx, p0),
		  "... the first back, then classified as it is");
	pid_t all[] = { p0, p1, p2, p3, p4 };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		fixture_gone(&fx, all[i]);
}

/* Set-user-ID the kernel may not apply: decided by the caller's own
 * credentials; its EXEC event corrects it when it was applied. */
static void
test_unsure(struct core *c)
{
	struct execgate_file su = file_of("/bin/true", 04755, 0, 0);
	char path[300];
	pid_t p = real_proc(NOBODY, NOBODY, "/bin/sh", "/", false);
	fixture_status(&fx, p, "TracerPid", "4242");
	held(c, p, "/usr/bin/fx-su", &su, 14.0);
	is_string("/users", fixture_group(&fx, p),
		  "a set-user-ID root binary run by nobody under ptrace: decided as nobody");

	pid_t q = real_proc(NOBODY, NOBODY, "/bin/sh", "/", false);
	snprintf(path, sizeof(path), "%s/%d/ns/user", fx.proc, (int)q);
	if (unlink(path) < 0 || symlink("/proc/self/ns/net", path) < 0)
		bail("relink %s", path);
	held(c, q, "/usr/bin/fx-su", &su, 14.0);
	is_string("/users", fixture_group(&fx, q),
		  "... in another user namespace: decided as nobody");

	pid_t m = real_proc(NOBODY, NOBODY, "/bin/sh", "/", false);
	snprintf(path, sizeof(path), "%s/%d/ns/mnt", fx.proc, (int)m);
	if (unlink(path) < 0 || symlink("/proc/self/ns/net", path) < 0)
		bail("relink %s", path);
	held(c, m, "/usr/bin/fx-su", &su, 14.0);
	is_string("/users", fixture_group(&fx, m),
		  "... in another mount namespace: decided as nobody");
	fixture_gone(&fx, m);

	pid_t fo = real_proc(NOBODY, NOBODY, "/bin/sh", "/", false);
	su.foreign = true;
	held(c, fo, "/usr/bin/fx-su", &su, 14.0);
	su.foreign = false;
	is_string("/users", fixture_group(&fx, fo),
		  "... through another mount than the daemon's path: decided as nobody");
	fixture_gone(&fx, fo);

	if (RUNNING_ON_VALGRIND) {
		skip(3, "valgrind cannot run a child that shares the test's fs_struct "
			"(clone with CLONE_FS)");
	} else {
		pid_t r = real_proc(NOBODY, NOBODY, "/bin/sh", "/", true);
		fixture_proc(&fx, getpid(), 0, 0, "/bin/sh", 1, "/"); /* the sharer */
		held(c, r, "/usr/bin/fx-su", &su, 14.0);
		is_string("/users", fixture_group(&fx, r),
			  "... sharing its fs_struct with another process: decided as nobody");
		fixture_gone(&fx, getpid());

		/* the kernel applied it after all (it runs as root): its EXEC
		 * event moves it back, and it is classified as it is */
		uint64_t undone = core_stats(c)->gate_undone;
		fixture_proc(&fx, r, 0, 0, "/bin/true", (uint64_t)r, "/users");
		event(c, PROCEV_EXEC, r, 14.1);
		is_int((long long)undone + 1, (long long)core_stats(c)->gate_undone,
		       "its exec ran with other credentials than decided: undone at its EXEC event");
		is_string("/", fixture_group(&fx, r),
			  "... back where it was (root's /bin/true: no rule)");
		fixture_gone(&fx, r);
	}
	/* decided as nobody and running as nobody: it holds */
	uint64_t undone = core_stats(c)->gate_undone;
	exe_is(q, "/bin/true");
	event(c, PROCEV_EXEC, q, 14.2);
	is_int((long long)undone, (long long)core_stats(c)->gate_undone,
	       "an exec with the credentials decided by holds at its EXEC event");
	is_string("/gated", fixture_group(&fx, q),
		  "... and is classified by its new program (nobody's /bin/true)");
	core_timeout(c, 15.0);
	fixture_gone(&fx, p);
	fixture_gone(&fx, q);
}

/* A failed exec followed by another exec, or by a fork: the exec is
 * confirmed for its binary, not for its pid; what the process forked
 * meanwhile goes back with it. */
static void
test_escape(struct core *c)
{
	struct execgate_file sn = file_of("/bin/true", 04755, NOBODY, NOBODY);
	uint64_t undone = core_stats(c)->gate_undone;

	pid_t p = real_proc(OTHER, OTHER, "/bin/sh", "/", false);
	is_int(GATE_PLACED, held(c, p, "/bin/true", &sn, 16.0),
	       "a set-user-ID nobody binary run by a user no rule names is placed");
	is_string("/gated", fixture_group(&fx, p), "... in nobody's /gated");
	/* its exec failed (EFAULT), and it execs another program at once */
	exe_is(p, "/bin/sh");
	event(c, PROCEV_EXEC, p, 16.01);
	is_string("/", fixture_group(&fx, p),
		  "the next exec, of another program, moves it back at once");
	is_int((long long)undone + 1, (long long)core_stats(c)->gate_undone, "... counted");
	ok(!core_gate_placed(c, p, &(time_t){ 0 }), "... and explain no longer says the gate placed it");
	core_timeout(c, 17.0);
	is_string("/", fixture_group(&fx, p), "... and it stays there");

	/* failed, then fork: the child (and its child) go back too */
	pid_t q = real_proc(OTHER, OTHER, "/bin/sh", "/", false);
	held(c, q, "/bin/true", &sn, 18.0);
	pid_t k1 = real_proc(OTHER, OTHER, "/bin/sh", "/gated", false);
	event_fork(c, q, k1, 18.01);
	pid_t k2 = real_proc(OTHER, OTHER, "/bin/sh", "/gated", false);
	event_fork(c, k1, k2, 18.02);
	pid_t k3 = real_proc(OTHER, OTHER, "/bin/true", "/gated", false);
	fixture_status(&fx, k3, "Uid", "4321\t65534\t4321\t4321"); /* euid nobody */
	event_fork(c, q, k3, 18.03);
	fixture_gone(&fx, q); /* the parent even exits */
	core_timeout(c, 18.0 + GATE_CONFIRM_SECONDS + 0.01);
	is_string("/", fixture_group(&fx, k1),
		  "a child forked after the failed exec is moved back");
	is_string("/", fixture_group(&fx, k2), "... and its own child too");
	is_string("/gated", fixture_group(&fx, k3),
		  "a child running the binary as decided stays, though its parent is gone");

	/* the exec holds: a child that runs the binary stays, one that
	 * runs the old program (forked by another thread) goes back */
	pid_t h = real_proc(OTHER, OTHER, "/bin/sh", "/", false);
	held(c, h, "/bin/true", &sn, 20.0);
	pid_t old = real_proc(OTHER, OTHER, "/bin/sh", "/gated", false);
	event_fork(c, h, old, 20.01);
	fixture_proc(&fx, h, OTHER, OTHER, "/bin/true", (uint64_t)h, "/gated");
	fixture_status(&fx, h, "Uid", "4321\t65534\t4321\t4321"); /* euid nobody */
	pid_t new = real_proc(OTHER, OTHER, "/bin/true", "/gated", false);
	fixture_status(&fx, new, "Uid", "4321\t65534\t4321\t4321");
	event_fork(c, h, new, 20.02);
	event(c, PROCEV_EXEC, h, 20.03);
	is_string("/gated", fixture_group(&fx, h), "an exec that holds stays placed");
	is_string("/gated", fixture_group(&fx, new), "... with its child that runs the binary");
	is_string("/", fixture_group(&fx, old),
		  "... but a child running the old program goes back");
	core_timeout(c, 21.0);

	/* events lost meanwhile (its FORK among them): /proc's children
	 * lists name the child */
	pid_t w = real_proc(OTHER, OTHER, "/bin/sh", "/", false);
	held(c, w, "/bin/true", &sn, 22.0);
	pid_t lk = real_proc(OTHER, OTHER, "/bin/sh", "/gated", false);
	char path[300];
	snprintf(path, sizeof(path), "%s/%d/task/%d", fx.proc, (int)w, (int)w);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	if (mkdir(path, 0755) < 0)
		bail("mkdir %s", path);
	*slash = '/';
	if (mkdir(path, 0755) < 0)
		bail("mkdir %s", path);
	strcat(path, "/children");
	FILE *f = fopen(path, "w");
	if (f == NULL)
		bail("cannot write %s", path);
	fprintf(f, "%d ", (int)lk);
	fclose(f);
	core_lost_events(c, 22.1);
	core_timeout(c, 23.0);
	is_string("/", fixture_group(&fx, lk),
		  "events lost: a child found in /proc's children lists is moved back");
	pid_t all[] = { p, k1, k2, k3, h, old, new, w, lk };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		fixture_gone(&fx, all[i]);
}

static void
test_failed(struct core *c)
{
	struct execgate_file run = file_of("/bin/true", 0755, 0, 0);
	uint64_t undone = core_stats(c)->gate_undone;

	fixture_proc(&fx, 720, NOBODY, NOBODY, "/bin/sh", 80, "/named");
	is_int(GATE_PLACED, held(c, 720, "/bin/true", &run, 20.0),
	       "an exec that will fail is placed");
	is_string("/gated", fixture_group(&fx, 720), "... in /gated");
	double at = core_next_deadline(c, 20.0);
	ok(at > 20.0 && at <= 20.0 + GATE_CONFIRM_SECONDS + 1e-6,
	   "the core wants to look again within %.1f s (deadline %.3f)",
	   GATE_CONFIRM_SECONDS, at);
	core_timeout(c, 20.0 + GATE_CONFIRM_SECONDS / 2);
	is_string("/gated", fixture_group(&fx, 720), "not before its time");
	core_timeout(c, 20.0 + GATE_CONFIRM_SECONDS + 0.01);
	is_string("/named", fixture_group(&fx, 720),
		  "no EXEC, still its old program: moved back where it was");
	is_int((long long)undone + 1, (long long)core_stats(c)->gate_undone,
	       "... counted");

	/* moved back only where it still is where the gate put it */
	fixture_proc(&fx, 721, NOBODY, NOBODY, "/bin/sh", 81, "/named");
	held(c, 721, "/bin/true", &run, 30.0);
	fixture_proc(&fx, 721, NOBODY, NOBODY, "/bin/sh", 81, "/elsewhere");
	undone = core_stats(c)->gate_undone;
	core_timeout(c, 31.0);
	is_int((long long)undone, (long long)core_stats(c)->gate_undone,
	       "a process someone else moved meanwhile is not moved back");
	is_string("/named", fixture_group(&fx, 721), "... but classified as it is");

	/* the EXEC event lost, yet it runs the binary: left where it is */
	fixture_proc(&fx, 722, NOBODY, NOBODY, "/bin/sh", 82, "/named");
	held(c, 722, "/bin/true", &run, 40.0);
	fixture_proc(&fx, 722, NOBODY, NOBODY, "/bin/true", 82, "/gated");
	core_timeout(c, 41.0);
	is_string("/gated", fixture_group(&fx, 722),
		  "an exec whose event was lost but that runs the binary stays");

	/* gone meanwhile: nothing */
	fixture_proc(&fx, 723, NOBODY, NOBODY, "/bin/sh", 83, "/named");
	held(c, 723, "/bin/true", &run, 50.0);
	fixture_gone(&fx, 723);
	undone = core_stats(c)->gate_undone;
	core_timeout(c, 51.0);
	is_int((long long)undone, (long long)core_stats(c)->gate_undone,
	       "a process gone meanwhile is forgotten");
	at = core_next_deadline(c, 51.0);
	ok(at > 51.0 && at < 55.0,
	   "FORK events stay wanted a while after the last placement (until %.1f)", at);
	core_timeout(c, 55.0);
	is_int(-1, (long long)core_next_deadline(c, 55.0), "then nothing is left to do");
}

static void
test_left(struct core *c)
{
	struct execgate_file run = file_of("/bin/true", 0755, 0, 0);
	uint64_t execs = core_stats(c)->gate_execs;

	is_int(GATE_LEFT, held(c, 730, NULL, &run, 60.0),
	       "a held exec of a binary the gate no longer knows is left alone");
	is_int(GATE_GONE, held(c, 731, "/bin/true", &run, 60.0),
	       "a process that is gone is gone");
	fixture_proc(&fx, 732, NOBODY, NOBODY, "/bin/sh", 90, "/");
	is_int(0, core_make_sticky(c, 732, 0, 0), "a sticky process");
	is_int(GATE_LEFT, held(c, 732, "/bin/true", &run, 60.0), "... is left alone");
	is_string("/", fixture_group(&fx, 732), "... where it is");
	fixture_proc(&fx, 733, NOBODY, NOBODY, "/bin/sh", 91, "/");
	core_set_paused(c, true, 60.0);
	is_int(GATE_LEFT, held(c, 733, "/bin/true", &run, 60.0),
	       "nothing is placed while paused");
	core_set_paused(c, false, 60.0);
	is_int((long long)execs + 4, (long long)core_stats(c)->gate_execs,
	       "each held exec is counted");
	fixture_proc(&fx, 734, NOBODY, NOBODY, "/bin/sh", 92, "/");
	fx.fail_move = -EAGAIN; /* a backend that cannot place without waiting */
	is_int(GATE_LEFT, held(c, 734, "/bin/true", &run, 61.0),
	       "a move that would wait is left to the asynchronous path");
	fx.fail_move = 0;
	is_int(0, (long long)core_stats(c)->move_failures, "... and is not a failure");
}

int
main(void)
{
	plan(68);
	fixture_init(&fx);
	fixture_files(&fx, NULL, rules);
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("cannot build a core over the fixture");
	core_start(c, 1.0);
	test_paths(c);
	test_place(c);
	test_setid(c);
	test_unsure(c);
	test_escape(c);
	test_failed(c);
	test_left(c);
	core_free(c);
	kids_done();
	fixture_done(&fx);
	return 0;
}
