/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wants-t.c -- the kernel events the core asks for (engined/core/
 * wants.c), over the fixture /proc: credential changes by the rules,
 * forks while something is inherited, exits of the processes the table
 * holds; handed over only when they change, before a sticky request is
 * answered; and a tracked process that exited before the filter covered
 * it is handled as if its EXIT had come.
 */
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <stdio.h>
#include <string.h>

#define NOBODY 65534

static struct {
	int calls;
	bool exec, uid, gid, forks;
	size_t ntrack, ngone;
	pid_t track[PROCEV_TRACK_MAX], gone[PROCEV_TRACK_MAX];
} last;

static void
want_events(void *arg, const struct procev_want *w)
{
	last.calls++;
	last.exec = w->exec;
	last.uid = w->uid;
	last.gid = w->gid;
	last.forks = w->forks;
	last.ntrack = w->ntrack;
	last.ngone = w->ngone;
	if (w->ntrack != PROCEV_ALL)
		memcpy(last.track, w->track, w->ntrack * sizeof(pid_t));
	if (w->ngone != PROCEV_ALL)
		memcpy(last.gone, w->gone, w->ngone * sizeof(pid_t));
}

/* The tracked pids, "300 301" ("all" for PROCEV_ALL). */
static const char *
tracked(void)
{
	static char buf[1024];
	size_t off = 0;

	buf[0] = '\0';
	if (last.ntrack == PROCEV_ALL)
		return "all";
	for (size_t i = 0; i < last.ntrack && off < sizeof(buf) - 16; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%d", i ? " " : "",
					(int)last.track[i]);
	return buf;
}

static void
event(struct core *c, enum procev_type type, pid_t pid, pid_t parent)
{
	struct procev_event ev = fixture_event(type, pid, parent);

	core_event(c, &ev, 1.0);
	core_batch_done(c, 1.0);
}

static void
test_ids(struct fixture *fx)
{
	struct core *c;

	fixture_files(fx, NULL, "*:fx-www name=cgecore /www\n");
	if ((c = fixture_core(fx)) == NULL)
		bail("core");
	core_start(c, 1.0);
	is_int(1, last.calls, "start hands over the events needed");
	ok(last.exec && !last.uid && !last.gid,
	   "a process rule alone: EXEC, no uid or gid change");
	ok(!last.forks && last.ntrack == 0 && last.ngone == 0, "no fork, no exit");
	core_sync_wants(c);
	is_int(1, last.calls, "nothing changed: nothing handed over");
	fixture_files(fx, NULL, "nobody name=cgecore /n\n");
	is_int(0, core_reload(c, 2.0), "reload with a user rule");
	ok(last.uid && !last.gid, "UID now, not GID");
	fixture_files(fx, NULL, "@nogroup name=cgecore /n\n");
	is_int(0, core_reload(c, 3.0), "reload with a group rule");
	ok(last.uid && last.gid, "UID (its members) and GID");
	core_free(c);
}

static void
test_table(struct fixture *fx)
{
	struct core *c;

	fixture_files(fx, NULL, fixture_rules);
	if ((c = fixture_core(fx)) == NULL)
		bail("core");
	core_start(c, 1.0);
	fixture_proc(fx, 300, NOBODY, NOBODY, "/bin/sh", 30, "/");
	fixture_proc(fx, 301, NOBODY, NOBODY, "/bin/sh", 31, "/");
	int calls = last.calls;
	is_int(0, core_make_sticky(c, 300, 0, 0), "pid 300 made sticky");
	is_int(calls + 1, last.calls, "handed over before the request returns");
	ok(!last.forks, "a sticky process alone: no forks");
	is_string("300", tracked(), "its exit is");
	is_int(0, core_make_sticky(c, 301, 0, 1), "pid 301 made sticky with its children");
	ok(last.forks, "forks now");
	is_string("300 301", tracked(), "both exits");

	/* a child is tracked from its FORK on */
	fixture_proc(fx, 302, NOBODY, NOBODY, "/bin/sh", 32, "/");
	event(c, PROCEV_FORK, 302, 301);
	is_int(PROC_STICKY | PROC_STICKY_CHILDREN | PROC_ROOT_PIN,
	       core_proc_flags(c, 302), "the child inherits");
	calls = last.calls;
	core_sync_wants(c);
	is_int(calls + 1, last.calls, "the loop's sync hands the change over");
	is_string("300 301 302", tracked(), "the child's exit too");

	/* one that exited before the filter covered it */
	fixture_proc(fx, 303, NOBODY, NOBODY, "/bin/sh", 33, "/");
	event(c, PROCEV_FORK, 303, 301);
	fixture_zombie(fx, 303);
	core_sync_wants(c);
	is_int(0, core_proc_flags(c, 303), "a child whose exit the filter missed is forgotten");
	is_string("300 301 302", tracked(), "and not tracked");

	/* a main thread exits while others run on */
	fixture_threads(fx, 301, 3);
	fixture_zombie(fx, 301);
	event(c, PROCEV_EXIT, 301, 0);
	ok(core_proc_flags(c, 301) & PROC_LEADER_GONE, "301's main thread is gone");
	core_sync_wants(c);
	ok(last.ngone == 1 && last.gone[0] == 301, "every thread's exit of 301");
	fixture_threads(fx, 302, 2);
	fixture_zombie(fx, 302);
	event(c, PROCEV_EXIT, 302, 0);
	fixture_threads(fx, 302, 1); /* its last thread ends, unseen */
	core_sync_wants(c);
	is_int(0, core_proc_flags(c, 302), "one whose last thread ended unseen is forgotten");
	ok(last.ngone == 1 && last.gone[0] == 301, "and only 301's threads are watched");

	/* the end of everything inherited */
	is_int(0, core_make_sticky(c, 301, 0, 2), "301 is no longer sticky");
	core_sync_wants(c);
	ok(!last.forks, "no forks any more");
	is_string("300", tracked(), "only 300's exit");
	event(c, PROCEV_EXIT, 300, 0);
	core_sync_wants(c);
	ok(last.ntrack == 0 && last.ngone == 0, "an empty table: no exit at all");

	/* more than a filter lists */
	for (pid_t pid = 1000; pid < 1000 + PROCEV_TRACK_MAX + 1; pid++) {
		fixture_proc(fx, pid, NOBODY, NOBODY, "/bin/sh", (uint64_t)pid, "/");
		if (core_make_sticky(c, pid, 0, 0) < 0)
			bail("sticky %d", (int)pid);
	}
	is_string("all", tracked(), "%d tracked: every exit", PROCEV_TRACK_MAX + 1);
	core_free(c);
}

int
main(void)
{
	struct fixture fx;

	plan(29);
	fixture_init(&fx);
	fx.want_events = want_events;
	test_ids(&fx);
	test_table(&fx);
	fixture_done(&fx);
	return tap_done();
}
