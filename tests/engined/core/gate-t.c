/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gate-t.c -- the exec gate in the core, without root or fanotify: held
 * execs decided and moved over the fixture /proc tree and fake
 * cgroupfs (tests/lib/fixture.c) -- the credentials a set-user-ID or
 * set-group-ID binary gives, nosuid and no_new_privs, sticky and paused,
 * the exec confirmed by its EXEC event, a failed exec moved back, no
 * classification by the old program while the exec is on its way, the
 * paths the gate marks, and what explain is told.
 */
#include "engined/core/core.h"
#include "engined/core/gate.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOBODY 65534

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

/* Append a line to the status file of pid (after Kthread:, as the
 * kernel writes NoNewPrivs). */
static void
status_line(pid_t pid, const char *line)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", fx.proc, (int)pid);
	if ((f = fopen(path, "a")) == NULL)
		bail("no %s", path);
	fprintf(f, "%s\n", line);
	fclose(f);
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
}

static void
test_setid(struct core *c)
{
	struct execgate_file su = file_of("/bin/true", 04755, 0, 0);

	fixture_proc(&fx, 710, NOBODY, NOBODY, "/bin/sh", 71, "/");
	is_int(GATE_PLACED, held(c, 710, "/usr/bin/fx-su", &su, 12.0),
	       "a set-user-ID root binary run by nobody");
	is_string("/admins", fixture_group(&fx, 710), "... is decided as root (euid 0)");

	su.nosuid = true;
	fixture_proc(&fx, 711, NOBODY, NOBODY, "/bin/sh", 72, "/");
	held(c, 711, "/usr/bin/fx-su", &su, 12.1);
	is_string("/users", fixture_group(&fx, 711),
		  "... but as nobody on a nosuid mount");

	su.nosuid = false;
	fixture_proc(&fx, 712, NOBODY, NOBODY, "/bin/sh", 73, "/");
	status_line(712, "NoNewPrivs:\t1");
	held(c, 712, "/usr/bin/fx-su", &su, 12.2);
	is_string("/users", fixture_group(&fx, 712), "... and with no_new_privs set");

	struct execgate_file sg = file_of("/bin/true", 02755, 0, NOBODY);
	fixture_proc(&fx, 713, 0, 0, "/bin/sh", 74, "/");
	is_int(GATE_PLACED, held(c, 713, "/usr/bin/fx-sg", &sg, 12.3),
	       "a set-group-ID binary run by root");
	is_string("/sg", fixture_group(&fx, 713), "... is decided by the file's group");
	sg.mode = S_IFREG | 02745; /* no group execute: not set-group-ID */
	fixture_proc(&fx, 714, 0, 0, "/bin/sh", 75, "/");
	is_int(GATE_LEFT, held(c, 714, "/usr/bin/fx-sg", &sg, 12.4),
	       "set-group-ID without group execute gives nothing");
	is_string("/", fixture_group(&fx, 714), "... so root's exec is left alone");
	/* none of these execs happened (no EXEC event, the same program) */
	core_timeout(c, 13.0);
	is_int(4, (long long)core_stats(c)->gate_undone,
	       "the four execs that did not happen "
	       "are undone");
	is_string("/named", fixture_group(&fx, 710),
		  "... 710 back, then classified as it is");
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
	is_int(-1, (long long)core_next_deadline(c, 51.0), "and nothing is left to do");
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
	plan(45);
	fixture_init(&fx);
	fixture_files(&fx, NULL, rules);
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("cannot build a core over the fixture");
	core_start(c, 1.0);
	test_paths(c);
	test_place(c);
	test_setid(c);
	test_failed(c);
	test_left(c);
	core_free(c);
	fixture_done(&fx);
	return 0;
}
