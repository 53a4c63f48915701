/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdnft-t.c -- nft sets of group ids on a backend that makes its groups
 * asynchronously, without root: the core over a stand-in for the
 * systemd backend (sdplace.c needs PID 1) that, like it, only notes a
 * unit at mkdir(), starts it at the move and makes its group when the
 * start job runs, and lets systemd collect an empty scope.  The sets
 * get a unit's id once it is started (core_group_made), not before; a
 * scope collected and started again leaves its old id for the new
 * one; a scope systemd collected (UnitRemoved) leaves its set at once,
 * unless its group is there again; a restart finds the units there and
 * their ids, moving nothing.
 */
#include "engined/core/core.h"
#include "engined/core/core_private.h"
#include "tests/lib/fakebackend.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOBODY 65534
#define ROOT   FAKEBACKEND_ROOT
#define STUD   ROOT "/students"
#define WWW    STUD "/www"
#define SCOPE  ROOT "/cgengine-students.slice/cgengine-students-www.scope"

/* ---- a stand-in for nf_tables: one set of ids per name --------------------- */

static struct {
	char name[32];
	uint64_t ids[16];
	size_t n;
} sets[4];

static size_t
set_of(const struct nftset_ref *r)
{
	char name[600];

	nftset_format(r, name, sizeof(name));
	for (size_t i = 0; i < 4; i++)
		if (strcmp(sets[i].name, name) == 0)
			return i;
	bail("no set %s", name);
}

static bool
holds(size_t s, uint64_t id)
{
	for (size_t k = 0; k < sets[s].n; k++)
		if (sets[s].ids[k] == id)
			return true;
	return false;
}

static int
n_add(void *arg, const struct nftset_ref *r, const uint64_t *ids, size_t n)
{
	size_t s = set_of(r);

	for (size_t i = 0; i < n; i++)
		if (!holds(s, ids[i]) && sets[s].n < 16)
			sets[s].ids[sets[s].n++] = ids[i];
	return 0;
}

static int
n_del(void *arg, const struct nftset_ref *r, const uint64_t *ids, size_t n)
{
	size_t s = set_of(r);

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sets[s].n; k++)
			if (sets[s].ids[k] == ids[i]) {
				sets[s].ids[k] = sets[s].ids[--sets[s].n];
				break;
			}
	return 0;
}

static int
n_list(void *arg, const struct nftset_ref *r, uint64_t **ids, size_t *n)
{
	size_t s = set_of(r);

	*ids = malloc((sets[s].n + 1) * sizeof(**ids));
	if (*ids == NULL)
		return -ENOMEM;
	memcpy(*ids, sets[s].ids, sets[s].n * sizeof(**ids));
	*n = sets[s].n;
	return 0;
}

static const struct backend_nft nft = { .add = n_add, .del = n_del, .list = n_list };

/* ---- the tests -------------------------------------------------------------------- */

static struct fixture fx;

static struct core *
new_core(void)
{
	return fakebackend_core(&fx, &nft);
}

static const char rules[] = "nobody       cpu      /students\n"
			    "*:fx-www     net_cls  /www\n";
static const char conf[] = "unified-layout = {\"cpu\", \"net_cls\"}\n"
			   "backend = \"systemd\"\n"
			   "group \"net_cls:/www\" { nft-set = {\"inet fw www\"} }\n"
			   "group \"cpu:/students\" { nft-set = {\"inet fw students\"} }\n";

static void
exec_event(struct core *c, pid_t pid, double now)
{
	struct procev_event ev = fixture_event(PROCEV_EXEC, pid, 0);

	core_event(c, &ev, now);
	core_batch_done(c, now);
}

static void
test_made_later(struct core *c)
{
	core_start(c, 1.0);
	is_int(1, fakebackend.moves, "the browser's move is asked for");
	ok(fakebackend_unit(WWW, false) != NULL && fakebackend_unit(WWW, false)->noted,
	   "its scope is noted, not started yet");
	is_int(0, sets[0].n + sets[1].n, "no id goes into a set before its unit is started");
	fakebackend_start_jobs(c);
	ok(sets[0].n == 1 && holds(0, fakebackend_unit(WWW, false)->id),
	   "the scope's id goes into its set once it is started");
	ok(sets[1].n == 1 && holds(1, fakebackend_unit(STUD, false)->id),
	   "so does the slice's, into the set its group block names");
}

static void
test_made_again(struct core *c)
{
	uint64_t old = fakebackend_unit(WWW, false)->id;

	/* emptied: systemd collected it, and its UnitRemoved was lost (a
	 * reconnection; on the system bus before PID 1's name is known) */
	fakebackend_unit(WWW, false)->started = false;
	fixture_proc(&fx, 210, NOBODY, NOBODY, "/usr/bin/fx-www", 21, "/");
	fixture_proc_v2(&fx, 210, "/user.slice/user-65534.slice/session-2.scope");
	exec_event(c, 210, 2.0);
	is_int(2, fakebackend.moves, "a new browser's move is asked for");
	ok(fakebackend_unit(WWW, false)->noted, "and the scope is started again");
	ok(holds(0, old), "the old id stays until the new scope is there");
	fakebackend_start_jobs(c);
	uint64_t id = fakebackend_unit(WWW, false)->id;
	ok(id != old && holds(0, id), "the new scope's id is in the set");
	ok(!holds(0, old) && sets[0].n == 1, "and the old one is not");
}

/* systemd collects the scope (its last process exited) and says so:
 * its id leaves the set at once, before any new scope is made. */
static void
test_collected(struct core *c)
{
	uint64_t old = fakebackend_unit(WWW, false)->id;
	uint64_t slice = fakebackend_unit(STUD, false)->id;

	ok(holds(0, old), "the scope's id is in its set");
	fakebackend_collect(c, WWW);
	ok(!holds(0, old) && sets[0].n == 0,
	   "systemd collects the scope: its id leaves the set at once");
	ok(holds(1, slice) && sets[1].n == 1, "the slice's id stays in its set");
	core_group_removed(c, STUD); /* its unit gone, its group not (the stand-in's) */
	ok(holds(1, slice) && sets[1].n == 1,
	   "a unit gone whose group is still there with that id: the id stays");
	core_group_removed(c, ROOT "/staff/www");
	is_int(1, (int)(sets[0].n + sets[1].n), "a unit in no set gone: nothing changes");

	fixture_proc(&fx, 220, NOBODY, NOBODY, "/usr/bin/fx-www", 22, "/");
	fixture_proc_v2(&fx, 220, "/user.slice/user-65534.slice/session-3.scope");
	exec_event(c, 220, 3.0);
	fakebackend_start_jobs(c);
	uint64_t id = fakebackend_unit(WWW, false)->id;
	ok(id != old && holds(0, id) && sets[0].n == 1,
	   "the next browser's scope: its new id is in the set");
	fakebackend_unit(WWW, false)->id = id + 50; /* made again behind our back */
	core_group_removed(c, WWW);
	ok(holds(0, id + 50) && !holds(0, id) && sets[0].n == 1,
	   "a late word that the unit went, the group there again: its new id replaces the old");
}

static void
test_restart(void)
{
	uint64_t www = fakebackend_unit(WWW, false)->id, stud = fakebackend_unit(STUD, false)->id;

	sets[0].n = sets[1].n = 0; /* emptied meanwhile (a firewall reload) */
	fixture_proc_v2(&fx, 200, SCOPE);
	fixture_proc_v2(&fx, 210, SCOPE);
	fixture_proc_v2(&fx, 220, SCOPE);
	fakebackend.moves = 0;
	struct core *c = new_core();
	if (c == NULL)
		bail("cannot build a core over the fixture");
	core_start(c, 10.0);
	for (int i = 0; i < 100 && core_nft_syncing(c); i++)
		core_timeout(c, 10.0 + i * 0.01);
	is_int(0, fakebackend.moves, "a restart moves nothing: the processes are in their scope");
	ok(sets[0].n == 1 && holds(0, www), "it finds the scope that is there and its id");
	ok(sets[1].n == 1 && holds(1, stud), "and the slice's");
	core_free(c);
}

int
main(void)
{
	plan(20);
	snprintf(sets[0].name, sizeof(sets[0].name), "inet fw www");
	snprintf(sets[1].name, sizeof(sets[1].name), "inet fw students");
	fixture_init(&fx);
	fixture_v2(&fx, "cpu io memory pids", "/system.slice/cgengined.service");
	fixture_files(&fx, conf, rules);
	fixture_proc(&fx, 200, NOBODY, NOBODY, "/usr/bin/fx-www", 20, "/");
	fixture_proc_v2(&fx, 200, "/user.slice/user-65534.slice/session-1.scope");
	fixture_proc(&fx, getpid(), 0, 0, "/usr/sbin/cgengined", 70, "/");
	fixture_proc_v2(&fx, getpid(), "/system.slice/cgengined.service");

	struct core *c = new_core();
	if (c == NULL)
		bail("cannot build a core over the fixture");
	test_made_later(c);
	test_made_again(c);
	test_collected(c);
	core_free(c);
	test_restart();
	fixture_done(&fx);
	return tap_done();
}
