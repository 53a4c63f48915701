/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backend-t.c -- the core over a placement backend that is not cgroupfs,
 * without root: a stand-in for the systemd backend (sdplace.c needs
 * PID 1) with its naming (sdunit.c) and asynchronous moves.  The policy
 * chooses it (backend = "systemd", root /cgengine.slice); the core makes
 * the levels and their settings through it, counts a move only when
 * the backend reports back, sees a process in a unit standing for its
 * composed group as in place, leaves alone what the backend refuses
 * (explain says why) and shows units; a reload cannot change backends.
 * The exec gate over it: the groups the gated rules can compose are
 * kept ready (a keeper each, placed like a process, never classified),
 * a held exec is placed through move_now only into a ready group, and
 * one that was not ready is a late move whose group is kept ready from
 * then on (not a template's); an exec that fails after the gate is
 * undone: back to a session's scope (restore) or a class's (move).
 */
#include "engined/core/core_private.h"
#include "engined/core/core.h"
#include "engined/core/gate.h"
#include "tests/lib/fakebackend.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The decision of the last explain or what-if (freed by the next and
 * at the end). */
static struct decision *dn;

static enum decide_result
explain(struct core *c, pid_t pid, uid_t asker)
{
	decision_free(dn);
	dn = core_decision_new(c);
	return core_explain(c, pid, asker, dn);
}

#define NOBODY 65534
#define ROOT   FAKEBACKEND_ROOT
#define SCOPE  ROOT "/cgengine-students.slice/cgengine-students-www.scope"

static struct fixture fx;

#define called(what)		   fakebackend_called(what)
#define called_since(from, what) fakebackend_called_since(from, what)
#define KEEPER			   FAKEBACKEND_KEEPER

static struct core *
new_core(void)
{
	return fakebackend_core(&fx, NULL);
}

static const char rules[] = "nobody       cpu      /students\n"
			    "*:fx-www     net_cls  /www\n"
			    "*:/usr/bin/fx-gated  net_cls  /www\n"
			    "*:/usr/bin/fx-tmpl   net_cls  /%u\n";
static const char conf[] = "unified-layout = {\"cpu\", \"net_cls\"}\n"
			   "backend = \"systemd\"\n"
			   "group \"cpu:/students\" { set = {\"cpu.shares=256\"} }\n";

static void
test_place(struct core *c)
{
	const struct policy *p = core_policy(c);

	ok(p->backend == BACKEND_SYSTEMD && fakebackend.asked == 1,
	   "the policy asked for the backend");
	is_string(ROOT, p->uroot, "the layout's root is the root slice");
	core_start(c, 1.0);
	ok(called(ROOT), "the root slice is made");
	ok(called(ROOT "/students") && called(ROOT "/students/www"), "and each level");
	ok(called(ROOT "/students CPUWeight"),
	   "the class's cpu.shares reaches the backend as cpu.weight (CPUWeight)");
	ok(called("move 200 " ROOT "/students/www"), "the browser's move is asked for");
	is_int(0, (long long)core_stats(c)->moves, "but not counted yet");
	core_move_done(c, 200, 0);
	is_int(1, (long long)core_stats(c)->moves,
	       "counted when the backend reports back");
	core_move_done(c, 400, -EACCES);
	is_int(1, (long long)core_stats(c)->move_failures, "a refusal is a failed move");
	ok(!called("move 300 " ROOT "/students/www"),
	   "a process in the scope standing for its group is in place");
	ok(!called("move 500 " ROOT "/students/www"), "the user's manager is not moved");
	ok(!called("move 1 " ROOT "/students/www"), "nor is PID 1");
}

static void
test_explain(struct core *c)
{
	char cur[256], want[256];

	is_int(DECIDE_OK, explain(c, 500, 0), "explain of the user's manager");
	ok(decision_refusal(dn) != NULL && strstr(decision_refusal(dn), "user@UID.service") != NULL,
	   "says why it is left alone");
	is_string("", decision_composed(dn), "and wants no group for it");
	is_int(DECIDE_OK, explain(c, 200, 0), "explain of the browser");
	ok(decision_refusal(dn) == NULL, "nothing refused");
	is_int(0, core_units(c, dn, cur, sizeof(cur), want, sizeof(want)), "it has units");
	is_string("session-1.scope", cur, "the one it is in");
	is_string("cgengine-students-www.scope", want, "the one it should be in");
}

static enum gate_result
held(struct core *c, pid_t pid, const char *path, double now)
{
	struct execgate_file f = { .mode = S_IFREG | 0755 };
	struct gate_exec x = { .pid = pid, .path = path, .file = &f, .pidfd = -1 };

	return core_gate_exec(c, &x, now);
}

static void
test_gate(struct core *c)
{
	const struct core_stats *st = core_stats(c);

	ok(core_gate_can_place(c), "the backend can place at the gate (move_now)");
	is_int(GATE_LEFT, held(c, 600, "/usr/bin/fx-gated", 10.0),
	       "a held exec before any group is ready: left to after the exec");
	is_int(1, (long long)st->gate_late, "counted as a late move");
	is_int(0, (long long)st->gate_moves, "nothing moved at the gate");
	is_int(1, (long long)core_gate_ready(c), "its group is kept ready from now on");
	ok(core_next_deadline(c, 10.0) >= 0 && core_next_deadline(c, 10.0) <= 10.0,
	   "the core wants to hand it over at once");
	core_timeout(c, 10.0);
	ok(fakebackend.handed == 1 && fakebackend.nready == 1 && strcmp(fakebackend.ready[0], ROOT "/students/www") == 0,
	   "and hands the backend that group");
	ok(called("move 900 " ROOT "/students/www"), "its keeper is placed there");
	ok(core_proc_flags(c, KEEPER) & PROC_STICKY, "and never classified (sticky)");

	core_gate_prepare(c, true);
	ok(fakebackend.nready == 2 && strcmp(fakebackend.ready[0], ROOT "/default/www") == 0 &&
		   strcmp(fakebackend.ready[1], ROOT "/students/www") == 0,
	   "at start and reload: every group the gated rules compose, with each fixed "
	   "destination of the other dimension (not the template's)");
	ok(called(ROOT "/default") && called(ROOT "/default/www"),
	   "the new group's levels are made for its keeper");
	ok(called("move 901 " ROOT "/default/www") && !called("move 902 " ROOT "/students/www"),
	   "a keeper for the new group only");

	is_int(GATE_PLACED, held(c, 601, "/usr/bin/fx-gated", 11.0),
	       "a held exec into a ready group");
	ok(called("now 601 " ROOT "/students/www"), "placed through move_now");
	ok(!called("move 601 " ROOT "/students/www"), "not through PID 1");
	is_int(GATE_PLACED, held(c, 602, "/usr/bin/fx-gated", 11.0),
	       "root's exec (no cpu rule) into the default's group");
	ok(called("now 602 " ROOT "/default/www"), "placed through move_now");
	is_int(2, (long long)st->gate_moves, "two moves at the gate");
	is_int(1, (long long)st->gate_late, "no late move");

	is_int(GATE_LEFT, held(c, 603, "/usr/bin/fx-tmpl", 12.0),
	       "a template's group is not ready");
	is_int(2, (long long)st->gate_late, "a late move");
	is_int(2, (long long)core_gate_ready(c), "and its group is not kept ready");

}

/* An exec that fails after the gate (no EXEC event, the old program):
 * the process goes back where it was, found by the unit's layout name. */
static void
test_undo(struct core *c)
{
	const struct core_stats *st = core_stats(c);
	uint64_t undone = st->gate_undone;
	double t = 13.0, due = 13.0 + GATE_CONFIRM_SECONDS + 0.01;

	fixture_proc(&fx, 604, NOBODY, NOBODY, "/bin/sh", 61, "/");
	fixture_proc_v2(&fx, 604, "/user.slice/user-65534.slice/session-2.scope");
	fixture_proc(&fx, 605, NOBODY, NOBODY, "/bin/sh", 62, "/");
	fixture_proc_v2(&fx, 605, ROOT "/cgengine-default.slice/cgengine-default-www.scope");
	fixture_proc(&fx, 606, NOBODY, NOBODY, "/bin/sh", 63, "/");
	fixture_proc_v2(&fx, 606, "/user.slice/user-65534.slice/session-3.scope");
	for (pid_t pid = 604; pid <= 606; pid++) {
		is_int(GATE_PLACED, held(c, pid, "/usr/bin/fx-gated", t),
		       "pid %d: a held exec placed at the gate", (int)pid);
		fixture_proc_v2(&fx, pid, SCOPE); /* where move_now put it */
	}
	fixture_proc_v2(&fx, 606, "/user.slice/user-65534.slice/session-4.scope");
	core_timeout(c, due);
	ok(called("restore 604 /user.slice/user-65534.slice/session-2.scope"),
	   "a failed exec goes back to its session's scope (restore: outside the layout)");
	ok(called("move 605 " ROOT "/default/www"),
	   "one from a class's scope goes back by the class's name (through PID 1)");
	ok(!called("restore 606 /user.slice/user-65534.slice/session-3.scope"),
	   "one moved elsewhere meanwhile stays");
	is_int((long long)undone + 2, (long long)st->gate_undone, "two execs undone");
	core_gate_prepare(c, false);
	ok(fakebackend.nready == 0 && core_gate_ready(c) == 0, "the gate closed: no group kept ready");
}

static void
test_reload(struct core *c)
{
	fixture_files(&fx,
		      "unified-layout = {\"cpu\", \"net_cls\"}\nbackend = \"cgroupfs\"\n",
		      rules);
	is_int(-EINVAL, core_reload(c, 5.0), "a reload cannot change backends");
	ok(core_policy(c)->backend == BACKEND_SYSTEMD, "the running policy stays");
	fixture_files(&fx, conf, rules);
	size_t before = fakebackend.ncalls;
	is_int(0, core_reload(c, 6.0), "a reload with the same backend works");
	is_int(2, fakebackend.asked, "and asks for the backend again (its root may change)");
	ok(called_since(before, "move 603 " ROOT "/students/default") &&
		   !called_since(before, "move 900 " ROOT "/students/default") &&
		   !called_since(before, "move 901 " ROOT "/students/default"),
	   "its rescan moves nobody's processes, but not the keepers");
}

int
main(void)
{
	plan(55);
	fixture_init(&fx);
	fixture_v2(&fx, "cpu io memory pids", "/system.slice/cgengined.service");
	fixture_files(&fx, conf, rules);
	fixture_proc(&fx, 200, NOBODY, NOBODY, "/usr/bin/fx-www", 20, "/");
	fixture_proc(&fx, 300, NOBODY, NOBODY, "/usr/bin/fx-www", 30, "/");
	fixture_proc(&fx, 500, NOBODY, NOBODY, "/usr/lib/systemd/systemd", 50, "/");
	fixture_proc(&fx, 1, 0, 0, "/usr/lib/systemd/systemd", 1, "/");
	fixture_proc_v2(&fx, 200, "/user.slice/user-65534.slice/session-1.scope");
	fixture_proc_v2(&fx, 300, SCOPE);
	fixture_proc_v2(&fx, 500,
			"/user.slice/user-65534.slice/user@65534.service/init.scope");
	fixture_proc_v2(&fx, 1, "/init.scope");
	fixture_proc(&fx, getpid(), 0, 0, "/usr/sbin/cgengined", 70, "/");
	fixture_proc_v2(&fx, getpid(), "/system.slice/cgengined.service");
	for (pid_t pid = 600; pid < 604; pid++)
		fixture_proc(&fx, pid, pid == 602 ? 0 : NOBODY, pid == 602 ? 0 : NOBODY,
			     "/usr/bin/fx-old", 60, "/");
	for (pid_t pid = KEEPER; pid < KEEPER + 4; pid++)
		fixture_proc(&fx, pid, NOBODY, NOBODY, "/usr/sbin/cgengined", 90, "/");

	struct core *c = new_core();
	if (c == NULL)
		bail("cannot build a core over the fixture");
	test_place(c);
	test_explain(c);
	test_gate(c);
	test_undo(c);
	test_reload(c);
	core_free(c);
	fixture_done(&fx);
	decision_free(dn);
	return tap_done();
}
