/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * known-t.c -- the core classifying an exec from what its event says
 * (struct task_known: the BPF program's exec record), not from /proc:
 * the fixture's status and exe link disagree with the record, so the
 * test tells which decided.  A uid or gid change after the exec, a
 * group list longer than the record's, a record without a path: /proc
 * (or the UID event) decides what the record no longer knows.
 */
#include "engined/core/core.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOBODY 65534

static struct fixture fx;

/* A record of an exec of fx-www by nobody, at ts. */
static struct task_known
record(uint64_t ts)
{
	struct task_known k = {
		.have = TASK_KNOW_CREDS | TASK_KNOW_COMM | TASK_KNOW_PPID | TASK_KNOW_EXE |
			TASK_KNOW_RT | TASK_KNOW_CGROUP,
		.ts_ns = ts,
		.ppid = 1,
		.uid = NOBODY,
		.euid = NOBODY,
		.gid = NOBODY,
		.egid = NOBODY,
		.comm = "fx-www",
		.exe = "/usr/bin/fx-www",
	};
	return k;
}

static void
exec_event(struct core *c, pid_t pid, const struct task_known *k, double now)
{
	struct procev_event ev = fixture_event(PROCEV_EXEC, pid, 0);

	ev.ts_ns = k != NULL ? k->ts_ns : 0;
	ev.known = k;
	core_event(c, &ev, now);
}

static void
id_event(struct core *c, enum procev_type type, pid_t pid, uint32_t id, uint64_t ts,
	 double now)
{
	struct procev_event ev = fixture_event(type, pid, 0);

	ev.rid = ev.eid = id;
	ev.ts_ns = ts;
	core_event(c, &ev, now);
}

/* pid, root's bash by /proc (status and exe link) */
static void
roots(struct fixture *f, pid_t pid)
{
	fixture_proc(f, pid, 0, 0, "/usr/bin/bash", (uint64_t)pid, "/");
}

static void
test_record(void)
{
	struct core *c;
	struct task_known k = record(1000), k2;

	fixture_files(&fx, "", fixture_rules);
	if ((c = fixture_core(&fx)) == NULL)
		bail("no core");
	core_start(c, 1.0);
	for (pid_t pid = 800; pid < 810; pid++) /* after the start's scan: in "/" */
		roots(&fx, pid);

	exec_event(c, 800, &k, 2.0);
	core_batch_done(c, 2.0);
	is_string("/www", fixture_group(&fx, 800), "the record decides: nobody's fx-www");

	exec_event(c, 801, NULL, 2.1);
	core_batch_done(c, 2.1);
	is_string("/admins", fixture_group(&fx, 801), "no record: /proc decides (root's)");

	/* setresuid, execve: the UID event before the exec is read after it */
	k = record(2000);
	exec_event(c, 802, &k, 3.0);
	id_event(c, PROCEV_UID, 802, 0, 1999, 3.0);
	core_batch_done(c, 3.0);
	is_string("/www", fixture_group(&fx, 802), "a UID event before the exec: the record's");

	/* the program then changes its uid: that event says the uids */
	k = record(3000);
	exec_event(c, 803, &k, 4.0);
	id_event(c, PROCEV_UID, 803, 0, 3001, 4.0);
	core_batch_done(c, 4.0);
	is_string("/admins", fixture_group(&fx, 803), "a UID event after the exec decides");

	/* ... also when its record comes after it (another batch) */
	id_event(c, PROCEV_UID, 804, 0, 4001, 5.0);
	core_batch_done(c, 5.0);
	k = record(4000);
	exec_event(c, 804, &k, 5.0001);
	core_batch_done(c, 5.0001);
	is_string("/admins", fixture_group(&fx, 804), "... read before the exec's record too");

	/* a gid change after the exec: the rules need no gid, the uids stand */
	k = record(5000);
	exec_event(c, 805, &k, 6.0);
	id_event(c, PROCEV_GID, 805, 0, 5001, 6.0);
	core_batch_done(c, 6.0);
	is_string("/www", fixture_group(&fx, 805), "a GID event after it: the record's uids");

	/* the record without a path: the exe link (bash) */
	k = record(6000);
	k.have &= ~TASK_KNOW_EXE;
	exec_event(c, 806, &k, 7.0);
	core_batch_done(c, 7.0);
	is_string("/users/nobody", fixture_group(&fx, 806),
		  "no path in the record: the link's (bash), the record's uid");

	/* two execs in a batch: the later one's record */
	k = record(7000);
	k2 = record(7001);
	k2.uid = k2.euid = 0;
	exec_event(c, 807, &k2, 8.0);
	exec_event(c, 807, &k, 8.0);
	core_batch_done(c, 8.0);
	is_string("/admins", fixture_group(&fx, 807), "the later exec's record decides");

	/* another thread changed ids: /proc decides */
	k = record(8000);
	exec_event(c, 808, &k, 9.0);
	{
		struct procev_event ev = fixture_event(PROCEV_UID, 808, 0);

		ev.pid = 8081;
		ev.rid = ev.eid = NOBODY;
		ev.ts_ns = 8001;
		core_event(c, &ev, 9.0);
	}
	core_batch_done(c, 9.0);
	is_string("/admins", fixture_group(&fx, 808), "another thread's UID event: /proc's");

	/* a gid change after the exec, then one of uid from before it */
	k = record(9000);
	exec_event(c, 809, &k, 10.0);
	id_event(c, PROCEV_GID, 809, 0, 9001, 10.0);
	id_event(c, PROCEV_UID, 809, 0, 8999, 10.0);
	core_batch_done(c, 10.0);
	is_string("/www", fixture_group(&fx, 809),
		  "a UID event from before the exec, read after a later GID event: the record's");
	core_free(c);
}

/* With a group rule: the record's groups, unless the list is cut. */
static void
test_groups(void)
{
	struct core *c;
	struct task_known k = record(1000);

	fixture_files(&fx, "", "@nogroup name=cgecore /g\n"
			       "nobody name=cgecore /n\n"
			       "root name=cgecore /admins\n");
	if ((c = fixture_core(&fx)) == NULL)
		bail("no core");
	core_start(c, 1.0);
	for (pid_t pid = 820; pid < 825; pid++)
		roots(&fx, pid);

	exec_event(c, 820, &k, 2.0);
	core_batch_done(c, 2.0);
	is_string("/g", fixture_group(&fx, 820), "a group rule: the record's egid");

	k = record(2000);
	k.gid = k.egid = 0;
	k.ngroups = 2;
	k.groups[0] = 0;
	k.groups[1] = NOBODY;
	exec_event(c, 821, &k, 3.0);
	core_batch_done(c, 3.0);
	is_string("/g", fixture_group(&fx, 821), "... or one of its supplementary groups");

	k = record(3000);
	k.gid = k.egid = 0;
	k.ngroups = TASK_KNOWN_GROUPS + 1;
	exec_event(c, 822, &k, 4.0);
	core_batch_done(c, 4.0);
	is_string("/admins", fixture_group(&fx, 822),
		  "more groups than the record holds: /proc decides");

	k = record(4000);
	exec_event(c, 823, &k, 5.0);
	id_event(c, PROCEV_GID, 823, 0, 4001, 5.0);
	core_batch_done(c, 5.0);
	is_string("/admins", fixture_group(&fx, 823),
		  "a gid change after the exec: /proc decides");
	core_free(c);
}

static void
put(const char *file, const char *text)
{
	FILE *f = fopen(file, "w");

	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
		bail("cannot write %s", file);
}

/*
 * The record's group ids in the v1 hierarchies (hierarchy 7 is the
 * fixture's, by /proc/self/cgroup): compared with the destination's id,
 * they say whether a move is needed; /proc/PID/cgroup is read only
 * where they do not tell.  The fixture's /proc says otherwise, so the
 * test tells which decided.
 */
static void
test_placed(void)
{
	struct core *c;
	struct task_known k;
	struct execkeys keys;
	char file[300];

	fixture_files(&fx, "", fixture_rules);
	snprintf(file, sizeof(file), "%s/self", fx.proc);
	mkdir(file, 0755);
	snprintf(file, sizeof(file), "%s/self/cgroup", fx.proc);
	put(file, "9:name=other:/\n7:name=cgecore:/\n3:cpu:/\n2:memory:/\n0::/\n");
	snprintf(file, sizeof(file), "%s/www", fx.cg);
	mkdir(file, 0755);
	snprintf(file, sizeof(file), "%s/www/.cgid", fx.cg);
	put(file, "4242\n");
	if ((c = fixture_core(&fx)) == NULL)
		bail("no core");
	core_start(c, 1.0);
	if (core_execkeys(c, &keys) < 0)
		bail("no keys");
	ok(keys.nhiers == 1 && keys.hiers[0] == 7,
	   "the records are asked for the managed hierarchy's groups (its id, 7)");
	ok(keys.hiers_backward,
	   "made after three of the five hierarchies: looked for newest first");
	execkeys_free(&keys);
	for (pid_t pid = 830; pid < 834; pid++)
		roots(&fx, pid);

	uint64_t moves = core_stats(c)->moves;
	k = record(1000);
	k.nv1 = 2;
	k.v1[0].hier = 9;
	k.v1[0].id = 4242;
	k.v1[1].hier = 7;
	k.v1[1].id = 4242;
	exec_event(c, 830, &k, 2.0);
	core_batch_done(c, 2.0);
	ok(core_stats(c)->moves == moves && strcmp(fixture_group(&fx, 830), "/") == 0,
	   "the record says it is in /www: not moved (/proc, unread, says /)");

	fixture_proc(&fx, 831, NOBODY, NOBODY, "/usr/bin/fx-www", 831, "/www");
	k = record(2000);
	k.nv1 = 1;
	k.v1[0].hier = 7;
	k.v1[0].id = 1;
	exec_event(c, 831, &k, 3.0);
	core_batch_done(c, 3.0);
	ok(core_stats(c)->moves == moves + 1,
	   "the record says it is elsewhere: moved (/proc, unread, says /www)");

	k = record(3000);
	k.nv1 = 1;
	k.v1[0].hier = 9;
	k.v1[0].id = 4242;
	exec_event(c, 832, &k, 4.0);
	core_batch_done(c, 4.0);
	is_string("/www", fixture_group(&fx, 832),
		  "a record without the managed hierarchy's group: it ends in /www");
	ok(core_stats(c)->moves == moves + 2,
	   "... written there, where it is not read (the kernel's no-op if it was)");

	fixture_proc(&fx, 833, NOBODY, NOBODY, "/usr/bin/fx-www", 833, "/www");
	k = record(4000);
	exec_event(c, 833, &k, 5.0);
	core_batch_done(c, 5.0);
	ok(core_stats(c)->moves == moves + 3 && strcmp(fixture_group(&fx, 833), "/www") == 0,
	   "a record without groups: written to /www without a read of /proc");
	core_free(c);
}

/* pid, nobody's fx-www, with no status file in the fixture's /proc */
static void
no_status(struct fixture *f, pid_t pid)
{
	char file[300];

	fixture_proc(f, pid, NOBODY, NOBODY, "/usr/bin/fx-www", (uint64_t)pid, "/");
	snprintf(file, sizeof(file), "%s/%d/status", f->proc, (int)pid);
	if (unlink(file) < 0)
		bail("cannot remove %s", file);
}

/*
 * The proc connector's exec of a process no UID event told of: where no
 * rule names a user or group, comm and the exe link decide and status
 * (the credentials) is not read -- the fixture's process has none;
 * where one does, status is read (and a process without it is gone).
 */
static void
test_execed(void)
{
	static const char names_only[] = "*:fx-www name=cgecore /www\n"
					 "*:bash name=cgecore /b\n";
	struct core *c;
	uint64_t vanished;

	fixture_files(&fx, "", names_only);
	if ((c = fixture_core(&fx)) == NULL)
		bail("no core");
	core_start(c, 1.0);
	no_status(&fx, 840);
	exec_event(c, 840, NULL, 2.0);
	core_batch_done(c, 2.0);
	is_string("/www", fixture_group(&fx, 840),
		  "rules by name alone: comm and the exe link decide, status unread");
	core_free(c);

	fixture_files(&fx, "", "nobody name=cgecore /n\n*:fx-www name=cgecore /www\n");
	if ((c = fixture_core(&fx)) == NULL)
		bail("no core");
	core_start(c, 1.0);
	no_status(&fx, 841);
	vanished = core_stats(c)->vanished;
	exec_event(c, 841, NULL, 2.0);
	core_batch_done(c, 2.0);
	ok(strcmp(fixture_group(&fx, 841), "/") == 0 && core_stats(c)->vanished == vanished + 1,
	   "a rule names a user: status is read (none here: the process counts as gone)");
	core_free(c);
}

int
main(void)
{
	plan(10 + 4 + 7 + 2);
	fixture_init(&fx);
	test_record();
	test_groups();
	test_placed();
	test_execed();
	fixture_done(&fx);
	return 0;
}
