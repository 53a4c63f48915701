/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * core-t.c -- the daemon's core driven without root: a fixture /proc
 * tree, a fake cgroupfs and a test-controlled clock (tests/lib/
 * fixture.c).  Classification and moves, deferred uid/gid events,
 * sticky processes, boosts (start, fork, exit, expiry, the state file,
 * restore), and the regressions found by attacking the daemon.
 */
#include "engined/core/core.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"
#include "util/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
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

static void
whatif_into(struct core *c, const struct task *t, const char *cmd, size_t cmdlen,
	    uid_t asker)
{
	decision_free(dn);
	dn = core_decision_new(c);
	core_whatif(c, t, cmd, cmdlen, asker, dn);
}

#define NOBODY 65534


static struct fixture fx;

static void
event(struct core *c, enum procev_type type, pid_t pid, pid_t parent, double now)
{
	struct procev_event ev = fixture_event(type, pid, parent);

	core_event(c, &ev, now);
	core_batch_done(c, now);
}

/* A UID or GID event of thread pid of group tgid: its new ids are id. */
static void
id_event(struct core *c, enum procev_type type, pid_t pid, pid_t tgid, uint32_t id, double now)
{
	struct procev_event ev = fixture_event(type, tgid, 0);

	ev.pid = pid;
	ev.rid = ev.eid = id;
	core_event(c, &ev, now);
	core_batch_done(c, now);
}

static int
boost(struct core *c, pid_t pid, long secs, struct boost_info *info)
{
	struct boost_request r = { .pid = pid,
				   .hier = FIXTURE_HIER,
				   .dest = "/fast",
				   .seconds = secs,
				   .owner = NOBODY,
				   .profile = "fast" };
	char err[256] = "";
	int rc = core_boost_start(c, &r, info, err, sizeof(err));

	if (rc < 0)
		diag("boost refused: %s", err);
	return rc;
}

static void
test_classify(struct core *c)
{
	core_start(c, 1.0);
	is_string("/admins", fixture_group(&fx, 100), "root's process to /admins");
	is_string("/www", fixture_group(&fx, 200), "nobody's fx-www to /www (process rule)");
	is_string("/users/nobody", fixture_group(&fx, 300), "nobody's cat to /users/%%u");
	is_int(3, (long long)core_stats(c)->moves, "three moves");
	is_string("/init.scope", fixture_group(&fx, 1), "pid 1 is left alone, though root's");
	is_int(DECIDE_INIT, explain(c, 1, 0), "... and explain says why");
	core_rescan(c, 2.0);
	is_int(3, (long long)core_stats(c)->moves, "a rescan moves nothing already in place");

	fixture_proc(&fx, 400, NOBODY, NOBODY, "/usr/bin/fx-www", 40, "/");
	event(c, PROCEV_EXEC, 400, 0, 3.0);
	is_string("/www", fixture_group(&fx, 400), "an exec is classified after its batch");

	fixture_proc(&fx, 500, 0, 0, "/usr/bin/su", 50, "/");
	core_timeout(c, 4.0); /* whatever else is due by now */
	event(c, PROCEV_UID, 500, 0, 4.0);
	is_string("/", fixture_group(&fx, 500), "a uid change alone waits");
	double at = core_next_deadline(c, 4.0);
	ok(at > 4.0 && at <= 4.0021, "... for at most 2 ms (deadline %.4f)", at);
	core_timeout(c, 4.003);
	is_string("/admins", fixture_group(&fx, 500), "... then it is classified");

	/* a spawner dropping privileges: setresgid, setresuid, execve, one
	 * wake-up each -- classified once, after the exec */
	fixture_proc(&fx, 600, NOBODY, NOBODY, "/usr/bin/fx-www", 60, "/");
	core_timeout(c, 5.0);
	uint64_t classified = core_stats(c)->classified;
	ok(!core_waiting_exec(c), "nothing waits for an exec");
	id_event(c, PROCEV_GID, 600, 600, NOBODY, 5.0);
	id_event(c, PROCEV_UID, 600, 600, NOBODY, 5.0001);
	id_event(c, PROCEV_UID, 600, 600, NOBODY, 5.0002);
	is_string("/", fixture_group(&fx, 600),
		  "uid/gid events in batches of their own wait");
	ok(core_waiting_exec(c), "... for an exec");
	at = core_next_deadline(c, 5.0002);
	ok(at > 5.0002 && at <= 5.0021, "... 2 ms from the first of them (deadline %.4f)",
	   at);
	event(c, PROCEV_EXEC, 600, 0, 5.0003);
	is_string("/www", fixture_group(&fx, 600), "... until the exec");
	is_int((long long)classified + 1, (long long)core_stats(c)->classified,
	       "... which is classified once");
	ok(!core_waiting_exec(c), "... and then nothing waits");

	/* placement latency, from the kernel's time of the exec */
	const uint64_t *in = core_stats(c)->placed_in;
	uint64_t fast = 0, slow = in[5] + in[6];
	for (int i = 0; i < 5; i++)
		fast += in[i];
	fixture_proc(&fx, 610, NOBODY, NOBODY, "/usr/bin/fx-www", 61, "/");
	struct procev_event ev = fixture_event(PROCEV_EXEC, 610, 0);
	ev.ts_ns = mono_ns() - 3000000;
	core_event(c, &ev, 6.0);
	core_batch_done(c, 6.0);
	uint64_t fast2 = 0;
	for (int i = 0; i < 5; i++)
		fast2 += in[i];
	ok(fast2 == fast && in[5] + in[6] == slow + 1,
	   "an exec 3 ms ago is counted as placed in more than 1 ms");
	fixture_proc(&fx, 611, NOBODY, NOBODY, "/usr/bin/fx-www", 62, "/");
	event(c, PROCEV_EXEC, 611, 0, 6.1);
	uint64_t all = 0;
	for (int i = 0; i < CORE_LATENCY_BUCKETS; i++)
		all += in[i];
	is_int((long long)(fast + slow + 1), (long long)all,
	       "an exec without the kernel's time is not counted");
}

static void
test_sticky(struct core *c)
{
	is_int(-EPERM, core_make_sticky(c, 100, NOBODY, 0),
	       "a sticky request for another user's process is refused");
	is_int(0, core_make_sticky(c, 300, NOBODY, 1), "nobody pins its own process");
	fixture_proc(&fx, 300, 0, 0, "/usr/bin/cat", 30, "/users/nobody");
	event(c, PROCEV_EXEC, 300, 0, 5.0);
	is_string("/users/nobody", fixture_group(&fx, 300), "a sticky process is not moved");
	fixture_proc(&fx, 301, 0, 0, "/usr/bin/cat", 31, "/users/nobody");
	event(c, PROCEV_FORK, 301, 300, 5.0);
	ok(core_proc_flags(c, 301) & PROC_STICKY, "its child is sticky too (flag 1)");

	/* an administrator's pin cannot be undone by the process's owner */
	is_int(0, core_make_sticky(c, 200, 0, 0), "root pins nobody's process");
	is_int(-EPERM, core_make_sticky(c, 200, NOBODY, 2), "its owner cannot cancel that");
	is_int(-EPERM, core_make_sticky(c, 200, NOBODY, 1), "nor change it");
	is_int(0, core_make_sticky(c, 200, 0, 2), "root can");
	ok(!(core_proc_flags(c, 200) & PROC_STICKY), "... and 200 is no longer sticky");

	/* pid reuse with the exit event lost: nothing is inherited */
	is_int(0, core_make_sticky(c, 400, NOBODY, 1), "pin 400");
	fixture_proc(&fx, 400, 0, 0, "/usr/bin/bash", 41, "/www");
	fixture_proc(&fx, 401, 0, 0, "/usr/bin/bash", 42, "/www");
	event(c, PROCEV_FORK, 401, 400, 6.0);
	ok(!(core_proc_flags(c, 401) & PROC_STICKY),
	   "a fork from a reused pid does not inherit stickiness");
	event(c, PROCEV_EXEC, 400, 0, 6.0);
	is_string("/admins", fixture_group(&fx, 400), "and the reused pid is classified");

	/* a rescan forgets entries whose processes are gone */
	size_t before = core_proc_count(c);
	fixture_gone(&fx, 301);
	core_rescan(c, 7.0);
	is_int((long long)before - 1, (long long)core_proc_count(c),
	       "a rescan forgets a sticky process that exited unseen");
	ok(!(core_proc_flags(c, 301) & PROC_STICKY), "... 301 is no longer known");
}

static void
test_threads(struct core *c)
{
	fixture_proc(&fx, 700, NOBODY, NOBODY, "/usr/bin/cat", 70, "/users/nobody");
	is_int(0, core_make_sticky(c, 700, NOBODY, 0), "pin 700");
	fixture_threads(&fx, 700, 3);
	event(c, PROCEV_EXIT, 700, 0, 8.0);
	ok(core_proc_flags(c, 700) & PROC_STICKY,
	   "main thread exited, two threads run on: still sticky");
	fixture_threads(&fx, 700, 1);
	struct procev_event ev = { .type = PROCEV_EXIT, .pid = 702, .tgid = 700 };
	core_event(c, &ev, 8.1);
	ok(!(core_proc_flags(c, 700) & PROC_STICKY), "the last thread's exit forgets it");
}

static void
test_explain(struct core *c)
{
	struct core_stats before = *core_stats(c);

	is_int(DECIDE_DENIED, explain(c, 100, NOBODY),
	       "explain of another user's process is denied");
	ok(memcmp(&before, core_stats(c), sizeof(before)) == 0,
	   "... before anything ran or was counted");
	is_int(DECIDE_OK, explain(c, 200, NOBODY), "explain of its own process");
	is_string("/www", decision_verdicts(dn)[0].dest, "... wants /www");
	ok(strstr(decision_verdicts(dn)[0].reason, "cgrules.conf:2") != NULL,
	   "... because of cgrules.conf:2 (%s)", decision_verdicts(dn)[0].reason);
}

static void
test_boosts(struct core *c)
{
	struct boost_info info;

	is_int(0, boost(c, 200, 60, &info), "boost 200 for 60 s");
	is_int(1, info.id, "boost #1");
	is_string("/fast", fixture_group(&fx, 200), "200 moved to the boost's group");
	is_int(-EBUSY, core_make_sticky(c, 200, NOBODY, 0),
	       "a boosted process cannot be pinned (the boost would never end)");
	fixture_proc(&fx, 210, NOBODY, NOBODY, "/usr/bin/fx-www", 21, "/fast");
	event(c, PROCEV_FORK, 210, 200, 10.0);
	event(c, PROCEV_EXEC, 210, 0, 10.0);
	is_string("/fast", fixture_group(&fx, 210), "a child forked during the boost shares it");
	fixture_gone(&fx, 210);
	event(c, PROCEV_EXIT, 210, 0, 10.1);
	ok(!(core_proc_flags(c, 210) & PROC_BOOSTED), "the exited child is forgotten");

	/* the state is written at most twice a second, not once per fork */
	uint64_t saves = core_stats(c)->state_saves;
	for (pid_t p = 1000; p < 1100; p++) {
		fixture_proc(&fx, p, NOBODY, NOBODY, "/usr/bin/fx-www", (uint64_t)p, "/fast");
		event(c, PROCEV_FORK, p, 200, 11.0);
		core_timeout(c, 11.0);
	}
	ok(core_stats(c)->state_saves - saves <= 1, "100 forks: at most one write (%llu)",
	   (unsigned long long)(core_stats(c)->state_saves - saves));
	core_timeout(c, 12.0);
	struct stat st;
	ok(stat(fx.state, &st) == 0 && (st.st_mode & 0777) == 0600,
	   "the state file is written, mode 0600");
	for (pid_t p = 1000; p < 1100; p++)
		fixture_gone(&fx, p);

	fx.wall += 61;
	ok(core_next_deadline(c, 12.0) > 0 && core_next_deadline(c, 12.0) <= 12.0 + 1e-3,
	   "the expiry is due now");
	core_timeout(c, 12.0);
	is_int(0, (long long)core_boost_count(c), "the boost expired");
	is_string("/www", fixture_group(&fx, 200), "200 is back where the rules want it");

	/* the target exits while its boost starts: no use after free */
	fixture_proc(&fx, 600, NOBODY, NOBODY, "/usr/bin/fx-www", 60, "/");
	fx.vanish_on_wall = 600;
	is_int(0, boost(c, 600, 60, &info), "boosting a process that exits at once");
	is_int(2, info.id, "... answers with its id (#2)");
	is_int(0, (long long)core_boost_count(c), "... and the boost is gone with it");
}

static void
write_state(const char *text)
{
	FILE *f;

	mkdir(fx.dir, 0755);
	char dir[256];
	snprintf(dir, sizeof(dir), "%s/state", fx.dir);
	mkdir(dir, 0700);
	unlink(fx.state);
	if ((f = fopen(fx.state, "w")) == NULL)
		bail("cannot write %s", fx.state);
	fputs(text, f);
	fclose(f);
}

static void
test_restore(void)
{
	char text[2048];
	struct boost_info info;

	snprintf(text, sizeof(text),
		 "# cgengine boosts, format 1\n"
		 "boost 7 65534 %lld name=cgecore /fast fast 200:20\n"
		 "boost 7 65534 %lld name=cgecore /fast fast 200:20\n"
		 "boost 8 65534 %lld name=cgecore /../../../x - 200:20\n"
		 "boost 4294967295 0 %lld name=cgecore /fast - 200:20\n"
		 "boost 9 0 %lld name=cgecore /fast2 - 100:10\n"
		 "boost 6 0 %lld name=cgecore /fast3 - 999:1 100:10\n"
		 "boost 5 65534 %lld name=cgecore /fast fast 620:62\n"
		 "boost 3 65534 %lld name=cgecore /fast gone 630:63\n",
		 (long long)fx.wall + 100, (long long)fx.wall + 100,
		 (long long)fx.wall + 100, (long long)fx.wall + 100,
		 (long long)fx.wall + 86400LL * 10000, (long long)fx.wall + 100,
		 (long long)fx.wall + 7200, (long long)fx.wall + 100);
	fixture_proc(&fx, 620, NOBODY, NOBODY, "/usr/bin/cat", 62, "/");
	fixture_proc(&fx, 630, NOBODY, NOBODY, "/usr/bin/cat", 63, "/");
	write_state(text);
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	is_int(3, (long long)core_boost_count(c),
	       "restored: three valid boosts; duplicate, '..', huge id, far expiry and a "
	       "profile that no longer exists refused");
	ok(core_boost_find(c, 3) == NULL, "a boost of a profile no longer configured is dropped");
	ok(core_boost_find(c, 5) != NULL && core_boost_find(c, 5)->expires == fx.wall + 3600,
	   "a profile boost longer than the profile's max-duration now is shortened to it");
	ok(core_boost_find(c, 9) == NULL, "an expiry years away is refused");
	const struct boost *b = core_boost_find(c, 6);
	ok(b != NULL && b->n == 1, "a member that is gone is dropped, the living one kept");
	is_string("/fast", fixture_group(&fx, 200), "the restored boost applies");
	fixture_proc(&fx, 610, NOBODY, NOBODY, "/usr/bin/cat", 61, "/");
	is_int(0, boost(c, 610, 60, &info), "a new boost after restoring");
	is_int(8, info.id, "... takes the next id (#8), no wrap-around");
	core_free(c);

	/* a FIFO where the state file should be: start-up does not hang */
	unlink(fx.state);
	if (mkfifo(fx.state, 0600) < 0)
		bail("mkfifo");
	c = fixture_core(&fx);
	alarm(10);
	core_start(c, 1.0);
	alarm(0);
	is_int(0, (long long)core_boost_count(c), "a FIFO as state file is ignored, no hang");
	core_free(c);
	unlink(fx.state);

	/* a symlink planted at the temporary file is not followed */
	char victim[256], tmp[256];
	snprintf(victim, sizeof(victim), "%s/victim", fx.dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", fx.state);
	FILE *v = fopen(victim, "w");
	fputs("precious\n", v);
	fclose(v);
	if (symlink(victim, tmp) < 0)
		bail("symlink %s: %s", tmp, strerror(errno));
	c = fixture_core(&fx);
	core_start(c, 1.0);
	is_int(0, boost(c, 610, 60, &info), "boost with a link planted at the temporary");
	core_stop(c);
	char buf[64] = "";
	v = fopen(victim, "r");
	if (fgets(buf, sizeof(buf), v) == NULL)
		buf[0] = '\0';
	fclose(v);
	is_string("precious\n", buf, "the link's target is untouched");
	core_free(c);
}

/* a process name cannot forge log lines */

static bool
file_has(const char *path, const char *needle)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = f != NULL ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f != NULL)
		fclose(f);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/*
 * The state file off the classification path: member churn rewrites
 * only STATE.members (no fsync), at most every 10 s, and a restart
 * takes the newer members from it; a failed write stays dirty and is
 * tried again later.
 */
static void
test_state_writes(void)
{
	struct boost_info info;
	char dir[256], members[300], line[64];
	struct stat st;

	fx.boost_members = 0;
	snprintf(dir, sizeof(dir), "%s/state", fx.dir);
	snprintf(members, sizeof(members), "%s.members", fx.state);
	unlink(fx.state);
	unlink(members);
	rmdir(dir);
	/* a file where the state directory should be: every write fails */
	FILE *f = fopen(dir, "w");
	if (f == NULL)
		bail("cannot write %s", dir);
	fclose(f);
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	fixture_proc(&fx, 700, NOBODY, NOBODY, "/usr/bin/cat", 70, "/");
	is_int(0, boost(c, 700, 600, &info), "state: a boost while the state cannot be written");
	uint64_t failed = core_stats(c)->state_save_failures;
	core_timeout(c, 2.0);
	is_int(1, (long long)(core_stats(c)->state_save_failures - failed),
	       "state: the write fails");
	double next = core_next_deadline(c, 2.0);
	ok(next > 2.5 && next <= 3.0 + 1e-6, "state: and is tried again a second later (%.2f)",
	   next);
	core_timeout(c, 2.5);
	is_int(1, (long long)(core_stats(c)->state_save_failures - failed),
	       "state: not before");
	core_timeout(c, 3.0);
	is_int(2, (long long)(core_stats(c)->state_save_failures - failed),
	       "state: the retry fails too");
	next = core_next_deadline(c, 3.0);
	ok(next > 4.5 && next <= 5.0 + 1e-6, "state: the next one two seconds later (%.2f)",
	   next);
	unlink(dir);
	core_timeout(c, 5.0);
	snprintf(line, sizeof(line), " 700:70");
	ok(file_has(fx.state, line), "state: written once the directory can be made");
	is_int(2, (long long)(core_stats(c)->state_save_failures - failed),
	       "state: no more failures");

	/* members come and go: STATE.members only, and not at once */
	if (stat(fx.state, &st) < 0)
		bail("no state file");
	ino_t ino = st.st_ino;
	uint64_t saves = core_stats(c)->state_saves;
	for (pid_t p = 710; p < 720; p++) {
		fixture_proc(&fx, p, NOBODY, NOBODY, "/usr/bin/cat", (uint64_t)p, "/fast");
		event(c, PROCEV_FORK, p, 700, 6.0);
		core_timeout(c, 6.0);
	}
	is_int(0, (long long)(core_stats(c)->state_saves - saves),
	       "state: ten forks write nothing at once");
	next = core_next_deadline(c, 6.0);
	ok(next >= 14.9, "state: the members are written 10 s after the last write (%.2f)", next);
	core_timeout(c, 15.0);
	is_int(1, (long long)(core_stats(c)->state_saves - saves), "state: then once");
	ok(stat(fx.state, &st) == 0 && st.st_ino == ino, "state: the state file was not rewritten");
	ok(file_has(members, " 715:715"), "state: STATE.members has the children");
	ok(stat(members, &st) == 0 && (st.st_mode & 0777) == 0600, "state: mode 0600");
	core_free(c); /* a crash: nothing more is written */

	/* a restart takes the newer members */
	c = fixture_core(&fx);
	if (c == NULL)
		bail("no core");
	core_start(c, 20.0);
	const struct boost *b = core_boost_find(c, info.id);
	ok(b != NULL && b->n == 11, "state: restored with the members of STATE.members (%zu)",
	   b ? b->n : 0);
	ok(core_proc_flags(c, 715) & PROC_BOOSTED, "state: a child is boosted again");
	is_int(0, core_boost_end(c, info.id, "test"), "state: end it");
	core_timeout(c, 21.0);
	ok(access(members, F_OK) < 0 && !file_has(fx.state, " 700:70"),
	   "state: a durable write removes STATE.members and the boost");
	core_free(c);

	/* STATE.members naming a boost the state file does not have, or
	 * with another group: its members are not believed */
	for (pid_t p = 710; p < 720; p++)
		fixture_gone(&fx, p);
	fixture_proc(&fx, 730, NOBODY, NOBODY, "/usr/bin/cat", 73, "/");
	char text[512];
	snprintf(text, sizeof(text),
		 "# cgengine boosts, format 2\n"
		 "boost 40 65534 %lld name=cgecore /fast fast 700:70\n",
		 (long long)fx.wall + 100);
	write_state(text);
	snprintf(text, sizeof(text),
		 "# cgengine boosts, format 2\n"
		 "boost 40 65534 %lld name=cgecore /other fast 700:70 730:73\n"
		 "boost 41 65534 %lld name=cgecore /fast fast 730:73\n",
		 (long long)fx.wall + 100, (long long)fx.wall + 100);
	f = fopen(members, "w");
	if (f == NULL)
		bail("cannot write %s", members);
	fputs(text, f);
	fclose(f);
	c = fixture_core(&fx);
	if (c == NULL)
		bail("no core");
	core_start(c, 30.0);
	b = core_boost_find(c, 40);
	ok(core_boost_count(c) == 1 && b != NULL && b->n == 1 && core_boost_find(c, 41) == NULL,
	   "state: only the state file says which boosts exist, and whose members");
	core_stop(c);
	core_free(c);
	fixture_gone(&fx, 700);
	fixture_gone(&fx, 730);
	unlink(members);
	unlink(fx.state);
}

/* A boost holds at most so many processes: a fork bomb does not grow it. */
static void
test_boost_cap(void)
{
	struct boost_info info;

	fx.boost_members = 3;
	unlink(fx.state);
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	fixture_proc(&fx, 700, NOBODY, NOBODY, "/usr/bin/cat", 70, "/");
	is_int(0, boost(c, 700, 60, &info), "a boost with room for three processes");
	/* the kernel puts each child in its parent's group: /fast */
	for (pid_t p = 701; p <= 705; p++) {
		fixture_proc(&fx, p, NOBODY, NOBODY, "/usr/bin/cat", (uint64_t)p, "/fast");
		event(c, PROCEV_FORK, p, 700, 2.0);
	}
	const struct boost *b = core_boost_find(c, info.id);
	ok(b != NULL && b->n == 3 && b->full, "five children forked: two joined, then it is full");
	ok(!(core_proc_flags(c, 705) & PROC_BOOSTED), "a child past the limit is not boosted");
	/* issue 22 item 1: it would have stayed in the boost's group */
	ok(strcmp(fixture_group(&fx, 703), "/users/nobody") == 0 &&
		   strcmp(fixture_group(&fx, 705), "/users/nobody") == 0,
	   "children past the limit are placed by the rules at once (%s)",
	   fixture_group(&fx, 705));
	is_string("/fast", fixture_group(&fx, 702), "a member stays in the boost's group");
	/* a grandchild forked before its parent was placed: not tracked */
	fixture_proc(&fx, 708, NOBODY, NOBODY, "/usr/bin/cat", 708, "/fast");
	event(c, PROCEV_FORK, 708, 705, 2.5);
	fixture_gone(&fx, 701);
	event(c, PROCEV_EXIT, 701, 0, 3.0);
	fixture_proc(&fx, 706, NOBODY, NOBODY, "/usr/bin/cat", 706, "/");
	event(c, PROCEV_FORK, 706, 700, 3.0);
	ok(core_proc_flags(c, 706) & PROC_BOOSTED, "a member exited: the next child joins");
	fx.wall += 61;
	core_timeout(c, 4.0);
	is_int(0, (long long)core_boost_count(c), "the full boost expired");
	is_string("/users/nobody", fixture_group(&fx, 702), "its members are back");
	double at = core_next_deadline(c, 4.0);
	ok(at >= 4.0 && at <= 5.0 + 1e-6, "a full boost ended: a rescan is due (%.3f)", at);
	core_timeout(c, at);
	is_string("/users/nobody", fixture_group(&fx, 708),
		  "... which places what is left in the boost's group");
	core_free(c);
	fx.boost_members = 0;
}

static int
boost_as(struct core *c, pid_t pid, uid_t owner, const char *profile, long secs,
	 char *err, size_t errlen)
{
	struct boost_request r = { .pid = pid,
				   .hier = FIXTURE_HIER,
				   .dest = "/fast",
				   .seconds = secs,
				   .owner = owner,
				   .profile = profile };
	struct boost_info info;

	err[0] = '\0';
	return core_boost_start(c, &r, &info, err, errlen) < 0 ? -1 : (int)info.id;
}

/* Caps on boosts held at once: per user (not root), per profile. */
static void
test_boost_limits(void)
{
	char err[256];
	struct fixture f;

	fixture_init(&f);
	fixture_files(&f,
		      "boosts-per-user = 2\n"
		      "boost-profile \"fast\" {\n  allow = {\"nobody\"}\n"
		      "  hierarchy = \"name=cgecore\"\n  destination = \"/fast\"\n"
		      "  max-duration = \"1h\"\n  max-boosts = 3\n}\n",
		      fixture_rules);
	for (pid_t p = 800; p < 808; p++)
		fixture_proc(&f, p, NOBODY, NOBODY, "/usr/bin/cat", (uint64_t)p, "/");
	struct core *c = fixture_core(&f);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	ok(boost_as(c, 800, NOBODY, "fast", 60, err, sizeof(err)) > 0 &&
		   boost_as(c, 801, NOBODY, "fast", 60, err, sizeof(err)) > 0,
	   "a user starts two boosts");
	is_int(-1, boost_as(c, 802, NOBODY, "fast", 60, err, sizeof(err)),
	       "a third is refused (boosts-per-user = 2)");
	is_string("uid 65534 has 2 boosts already, the most boosts-per-user allows; end "
		  "one first (unboost)",
		  err, "... saying why");
	ok(boost_as(c, 803, 1, "fast", 60, err, sizeof(err)) > 0,
	   "another user boosts through the same profile (%s)", err);
	is_int(-1, boost_as(c, 804, 2, "fast", 60, err, sizeof(err)),
	       "a fourth boost of the profile is refused (max-boosts = 3)");
	is_string("boost profile fast has 3 boosts already, the most its max-boosts "
		  "allows; try again later",
		  err, "... saying why");
	ok(boost_as(c, 805, 0, NULL, 60, err, sizeof(err)) > 0 &&
		   boost_as(c, 806, 0, NULL, 60, err, sizeof(err)) > 0 &&
		   boost_as(c, 807, 0, NULL, 60, err, sizeof(err)) > 0,
	   "root is not limited");
	is_int(0, core_boost_end(c, 1, "unboost"), "the user ends one");
	ok(boost_as(c, 802, NOBODY, "fast", 60, err, sizeof(err)) > 0,
	   "... and may start another (%s)", err);
	/* the user's processes end unseen (lost events): the boosts do
	 * not hold the quota (the user's and the profile's) */
	fixture_gone(&f, 801);
	fixture_gone(&f, 802);
	ok(boost_as(c, 804, NOBODY, "fast", 60, err, sizeof(err)) > 0,
	   "boosts whose processes are gone, unseen, free the quota (%s)", err);
	is_int(5, (long long)core_boost_count(c), "... they ended (root's three, 803, 804)");
	core_free(c);
	fixture_done(&f);
}

/* Sticky processes outlive a restart: the state file keeps them, and a
 * process still the same (pid and start time) is sticky again. */
static void
test_sticky_restart(void)
{
	struct fixture f;
	char line[64];

	fixture_init(&f);
	fixture_files(&f, "", fixture_rules);
	for (pid_t p = 820; p < 824; p++)
		fixture_proc(&f, p, NOBODY, NOBODY, "/usr/bin/cat", (uint64_t)p, "/kept");
	struct core *c = fixture_core(&f);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	for (pid_t p = 820; p < 824; p++)
		fixture_proc(&f, p, NOBODY, NOBODY, "/usr/bin/cat", (uint64_t)p, "/kept");
	int rc = core_make_sticky(c, 820, 0, 1) | core_make_sticky(c, 821, NOBODY, 0) |
		 core_make_sticky(c, 822, NOBODY, 0);
	is_int(0, rc, "sticky restart: three sticky processes, one with its children");
	core_timeout(c, 2.0); /* the state file is written */
	ok(file_has(f.state, "sticky 820:820 children,root\n") &&
		   file_has(f.state, "sticky 821:821 -\n"),
	   "sticky restart: a request writes them to the state file");
	core_stop(c);
	core_free(c);

	fixture_gone(&f, 822); /* ended while the daemon was stopped */
	fixture_proc(&f, 821, NOBODY, NOBODY, "/usr/bin/cat", 9821, "/kept"); /* reused */
	c = fixture_core(&f);
	if (c == NULL)
		bail("no core");
	core_start(c, 3.0);
	is_int(PROC_STICKY | PROC_STICKY_CHILDREN | PROC_ROOT_PIN, core_proc_flags(c, 820),
	       "sticky restart: sticky again, with its children flag and root's pin");
	is_string("/kept", fixture_group(&f, 820), "sticky restart: the scan at start leaves it");
	ok(core_proc_flags(c, 821) == 0 && core_proc_flags(c, 822) == 0,
	   "sticky restart: a reused pid and an ended process are not sticky");
	is_string("/users/nobody /users/nobody",
		  strcat(strcat(strcpy(line, fixture_group(&f, 821)), " "), fixture_group(&f, 823)),
		  "sticky restart: they and the others are classified");
	core_timeout(c, 4.0);
	ok(!file_has(f.state, "sticky 821:") && file_has(f.state, "sticky 820:820 "),
	   "sticky restart: the state file written again keeps only the living");
	core_free(c);
	fixture_done(&f);
}

/* A reload re-targets the boosts of a profile whose destination
 * changed, shortens them to a lowered max-duration, ends them when the
 * profile is gone; root's own boosts keep their destination. */
static void
test_boost_reload(void)
{
	char err[256];
	struct fixture f;

	fixture_init(&f);
	fixture_files(&f, fixture_profile, fixture_rules);
	for (pid_t p = 830; p < 832; p++)
		fixture_proc(&f, p, NOBODY, NOBODY, "/usr/bin/cat", (uint64_t)p, "/");
	struct core *c = fixture_core(&f);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	int a = boost_as(c, 830, NOBODY, "fast", 3000, err, sizeof(err));
	int r = boost_as(c, 831, 0, NULL, 1000, err, sizeof(err));
	ok(a > 0 && r > 0, "reload: a boost through profile fast, one of root's");
	fixture_files(&f,
		      "boost-profile \"fast\" {\n  allow = {\"nobody\"}\n"
		      "  hierarchy = \"name=cgecore\"\n  destination = \"/faster\"\n"
		      "  max-duration = \"10m\"\n}\n",
		      fixture_rules);
	is_int(0, core_reload(c, 2.0), "reload: the profile goes to /faster for 10m at most");
	const struct boost *b = core_boost_find(c, (unsigned)a);
	is_string("/faster", b != NULL ? b->dest : "(ended)", "reload: the boost is re-targeted");
	is_string("/faster", fixture_group(&f, 830), "reload: its process moved there");
	ok(b != NULL && b->expires == f.wall + 600, "reload: and shortened to 10m");
	is_string("/fast", fixture_group(&f, 831), "reload: root's own boost stays");
	f.wall += 600; /* the shortened boost expires before root's (1000 s) */
	core_timeout(c, 602.0);
	ok(core_boost_find(c, (unsigned)a) == NULL && core_boost_find(c, (unsigned)r) != NULL,
	   "reload: the shortened boost expires first");
	a = boost_as(c, 830, NOBODY, "fast", 60, err, sizeof(err));
	fixture_files(&f, "", fixture_rules);
	is_int(0, core_reload(c, 603.0), "reload: the profile removed");
	ok(core_boost_find(c, (unsigned)a) == NULL && core_boost_find(c, (unsigned)r) != NULL,
	   "reload: its boost ended, root's runs on");
	is_string("/users/nobody", fixture_group(&f, 830), "reload: its process back to the rules");
	core_free(c);
	fixture_done(&f);
}

/* A boost names a process: a thread id is refused, naming its process,
 * and a thread in a state file (a daemon before format 3 took one) is
 * dropped at restore. */
static void
test_boost_thread(void)
{
	char err[256];
	struct fixture f;
	FILE *out;

	fixture_init(&f);
	fixture_files(&f, fixture_profile, fixture_rules);
	fixture_proc(&f, 850, NOBODY, NOBODY, "/usr/bin/cat", 850, "/users/nobody");
	fixture_proc(&f, 851, NOBODY, NOBODY, "/usr/bin/cat", 851, "/users/nobody");
	fixture_status(&f, 851, "Tgid", "850"); /* a thread of process 850 */
	char dir[sizeof(f.state)];
	snprintf(dir, sizeof(dir), "%s", f.state);
	*strrchr(dir, '/') = '\0';
	(void)mkdir(dir, 0700);
	if ((out = fopen(f.state, "w")) == NULL)
		bail("cannot write %s", f.state);
	fprintf(out, "# cgengine boosts, format 2\nboost 4 0 %lld " FIXTURE_HIER " /fast - 851:851\n",
		(long long)f.wall + 60);
	fclose(out);
	struct core *c = fixture_core(&f);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	is_int(0, (long long)core_boost_count(c), "thread: a boost of a thread is not restored");
	is_int(-1, boost_as(c, 851, NOBODY, "fast", 60, err, sizeof(err)),
	       "thread: a boost of a thread id is refused");
	is_string("pid 851 is a thread of process 850; boost the process", err,
		  "thread: ... naming its process");
	ok(boost_as(c, 850, NOBODY, "fast", 60, err, sizeof(err)) > 0,
	   "thread: its process may be boosted");
	core_free(c);
	fixture_done(&f);
}

/* Expiry comes from a heap: the deadline is always the earliest boost. */
static void
test_expiry_order(void)
{
	char err[256];
	struct fixture f;

	fixture_init(&f);
	fixture_files(&f, fixture_profile, fixture_rules);
	for (pid_t p = 900; p < 904; p++)
		fixture_proc(&f, p, 0, 0, "/usr/bin/bash", (uint64_t)p, "/");
	struct core *c = fixture_core(&f);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	int a = boost_as(c, 900, 0, NULL, 300, err, sizeof(err));
	int b = boost_as(c, 901, 0, NULL, 100, err, sizeof(err));
	int d = boost_as(c, 902, 0, NULL, 200, err, sizeof(err));
	int e = boost_as(c, 903, 0, NULL, 100, err, sizeof(err));
	ok(a > 0 && b > 0 && d > 0 && e > 0, "four boosts of 300, 100, 200 and 100 s");
	core_timeout(c, 2.0); /* the state file is written */
	double at = core_next_deadline(c, 2.0);
	ok(at > 101.9 && at < 102.1, "the deadline is the earliest expiry (%.3f)", at);
	f.wall += 100;
	core_timeout(c, 102.0);
	core_timeout(c, 102.0);
	ok(core_boost_find(c, (unsigned)b) == NULL && core_boost_find(c, (unsigned)e) == NULL &&
		   core_boost_count(c) == 2,
	   "both 100 s boosts expired, the others run on");
	at = core_next_deadline(c, 102.0);
	ok(at > 201.9 && at < 202.1, "next: the 200 s one (%.3f)", at);
	is_int(0, core_boost_end(c, (unsigned)d, "unboost"), "unboost it");
	core_timeout(c, 103.0);
	at = core_next_deadline(c, 103.0);
	ok(at > 302.9 && at < 303.1, "next: the 300 s one (%.3f)", at);
	is_string("/fast", fixture_group(&f, 900), "which still holds its process");
	core_free(c);
	fixture_done(&f);
}

static void
test_log_injection(void)
{
	char path[256], line[512];
	int forged = 0, escaped = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/daemon.log", fx.dir);
	if (log_open(path, LOG_LEVEL_INFO) < 0)
		bail("log_open %s", path);
	/* what a %p template or a Lua destination may carry into a log line */
	log_info("moved pid 800 (x) to name=cgecore:/%s (rule)",
		 "x\n2026-12-03T00:00:00 notice: forged");
	log_close();
	if ((f = fopen(path, "r")) == NULL)
		bail("no log");
	while (fgets(line, sizeof(line), f) != NULL) {
		forged += strstr(line, "notice: forged") == line + 20;
		escaped += strstr(line, "x\\x0a2026") != NULL;
	}
	fclose(f);
	is_int(0, forged, "a newline in a process name forges no log line");
	ok(escaped > 0, "... it is logged as \\x0a");
}

static void
test_cleanup(struct core *c)
{
	char dir[256];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/users/nobody", fx.cg);
	ok(stat(dir, &st) == 0, "the template group exists");
	fixture_gone(&fx, 300);
	fixture_gone(&fx, 700);
	core_timeout(c, 20.0);
	core_timeout(c, 30.0);
	ok(stat(dir, &st) < 0, "... and is removed once empty");
	is_int(1, (long long)core_stats(c)->groups_removed, "one group removed");
}

/* Remove the cgroup file of pid: reading it now fails as for a gone task. */
static void
no_cgroup_file(struct fixture *f, pid_t pid)
{
	char file[300];

	snprintf(file, sizeof(file), "%s/%d/cgroup", f->proc, (int)pid);
	if (unlink(file) < 0)
		bail("unlink %s", file);
}

/*
 * /proc/PID/cgroup is read only when the decision needs it (an ignore
 * rule, the unified layout, a Lua hook) or a verdict moves something:
 * a process no rule matches costs one read of status, not two.
 */
static void
test_lazy_groups(void)
{
	struct fixture f;

	fixture_init(&f);
	fixture_files(&f, "", "root name=cgecore /admins\n");
	fixture_proc(&f, 100, 0, 0, "/usr/bin/bash", 10, "/");
	fixture_proc(&f, 200, 0, 0, "/usr/bin/bash", 20, "/admins");
	fixture_proc(&f, 300, NOBODY, NOBODY, "/usr/bin/cat", 30, "/");
	struct core *c = fixture_core(&f);
	if (c == NULL)
		bail("no core");
	core_start(c, 1.0);
	is_int(1, (long long)core_stats(c)->moves, "only the process not in place moves");
	uint64_t cls = core_stats(c)->classified, gone = core_stats(c)->vanished;
	no_cgroup_file(&f, 300);
	event(c, PROCEV_EXEC, 300, 0, 2.0);
	is_int((long long)cls + 1, (long long)core_stats(c)->classified,
	       "no rule matches: classified without reading its groups");
	is_int((long long)gone, (long long)core_stats(c)->vanished,
	       "... not taken for gone");
	/* an exec's process is written to its group without a read of
	 * where it is: one already in place counts as moved */
	event(c, PROCEV_EXEC, 200, 0, 3.0);
	is_int((long long)gone, (long long)core_stats(c)->vanished,
	       "a verdict that moves: the exec's process is not taken for gone");
	is_int(2, (long long)core_stats(c)->moves,
	       "... and written to its group unread (the kernel's no-op: it was there)");
	is_string("/admins", fixture_group(&f, 200), "... where it stays");
	core_rescan(c, 4.0);
	is_int(2, (long long)core_stats(c)->moves,
	       "a rescan reads where processes are: one already in place is not moved again");
	core_free(c);

	/* an ignore rule looks at the current group: always read */
	fixture_files(&f, "",
		      "nobody name=cgecore /kept ignore\nnobody name=cgecore /users\n");
	fixture_proc(&f, 300, NOBODY, NOBODY, "/usr/bin/cat", 30, "/kept");
	fixture_proc(&f, 400, NOBODY, NOBODY, "/usr/bin/cat", 40, "/");
	if ((c = fixture_core(&f)) == NULL)
		bail("no core");
	core_start(c, 1.0);
	is_string("/kept", fixture_group(&f, 300),
		  "the ignore rule holds a process in /kept");
	is_string("/users", fixture_group(&f, 400), "... not one elsewhere");
	gone = core_stats(c)->vanished;
	no_cgroup_file(&f, 300);
	event(c, PROCEV_EXEC, 300, 0, 2.0);
	is_int((long long)gone + 1, (long long)core_stats(c)->vanished,
	       "with an ignore rule, the groups are read before deciding");
	core_free(c);
	fixture_done(&f);
}

/*
 * Credentials from the kernel's UID events: status is not read when the
 * main thread's last UID event says what the rules need -- which the
 * test tells by a /proc status that disagrees with the event.
 */
static void
test_event_ids(void)
{
	struct fixture f;
	struct core *c;

	fixture_init(&f);
	fixture_files(&f, "", fixture_rules);
	for (pid_t pid = 700; pid < 705; pid++) /* status: root's */
		fixture_proc(&f, pid, 0, 0, "/usr/bin/fx-www", (uint64_t)pid, "/");
	if ((c = fixture_core(&f)) == NULL)
		bail("no core");
	core_start(c, 1.0);
	id_event(c, PROCEV_UID, 700, 700, NOBODY, 2.0);
	event(c, PROCEV_EXEC, 700, 0, 2.0001);
	is_string("/www", fixture_group(&f, 700), "uid and euid from the UID event: nobody's");
	id_event(c, PROCEV_UID, 7011, 701, NOBODY, 2.1);
	event(c, PROCEV_EXEC, 701, 0, 2.1001);
	is_string("/admins", fixture_group(&f, 701),
		  "another thread's UID event: status decides (root's)");
	id_event(c, PROCEV_UID, 702, 702, NOBODY, 2.2);
	core_lost_events(c, 2.2);
	event(c, PROCEV_EXEC, 702, 0, 2.2001);
	is_string("/admins", fixture_group(&f, 702), "events lost meanwhile: status decides");
	event(c, PROCEV_EXEC, 703, 0, 2.3);
	is_string("/admins", fixture_group(&f, 703), "no UID event: status decides");
	core_free(c);

	/* a group rule looks at egid and groups: status always */
	fixture_files(&f, "", "@nogroup name=cgecore /g\n" "nobody name=cgecore /n\n"
			      "root name=cgecore /admins\n");
	if ((c = fixture_core(&f)) == NULL)
		bail("no core");
	core_start(c, 1.0);
	id_event(c, PROCEV_UID, 704, 704, NOBODY, 2.0);
	event(c, PROCEV_EXEC, 704, 0, 2.0001);
	is_string("/admins", fixture_group(&f, 704), "with a group rule: status decides");
	core_free(c);
	fixture_done(&f);
}

/*
 * %p is the program's name, whatever else the rules file holds: with
 * a rule alone it once was the 15-character command name, and the
 * full name only when another rule's process field made the daemon
 * read the executable.
 */
static void
test_pname(void)
{
	static const char *const files[] = {
		"nobody name=cgecore /t/%p\n",
		"nobody:fx-other name=cgecore /o\nnobody name=cgecore /t/%p\n",
	};
	struct fixture f;

	fixture_init(&f);
	for (size_t i = 0; i < 2; i++) {
		fixture_files(&f, "", files[i]);
		fixture_proc(&f, 100, NOBODY, NOBODY, "/usr/bin/atkverylongprogramname",
			     10, "/");
		struct core *c = fixture_core(&f);
		if (c == NULL)
			bail("no core");
		core_start(c, 1.0);
		is_string("/t/atkverylongprogramname", fixture_group(&f, 100),
			  "%%p is the program's full name %s",
			  i == 0 ? "with the %p rule alone" : "beside a process rule");
		core_free(c);
	}
	fixture_done(&f);
}

/* core_whatif as uid asker for a nobody process running exe. */
static const struct verdict *
whatif(struct core *c, uid_t asker, const char *exe)
{
	struct task t = { .uid = NOBODY, .euid = NOBODY, .gid = NOBODY, .egid = NOBODY };

	snprintf(t.exe, sizeof(t.exe), "%s", exe);
	snprintf(t.comm, sizeof(t.comm), "%s", strrchr(exe, '/') + 1);
	whatif_into(c, &t, NULL, 0, asker);
	return &decision_verdicts(dn)[0];
}

/*
 * Issue 22 §3: what-if requests run the Lua hook in a helper of their
 * own, a few times a second per user: a user's test that stalls the
 * hook never takes it away from real classifications.
 */
static void
test_whatif_hook(void)
{
	struct fixture f;
	char conf[512], script[300];

	fixture_init(&f);
	snprintf(script, sizeof(script), "%s/hook.lua", f.dir);
	FILE *lua = fopen(script, "w");
	if (lua == NULL)
		bail("cannot write %s", script);
	fputs("function classify(t, d)\n"
	      "  if t.exe == '/usr/bin/slow' then string.rep('', 1e18) end\n"
	      "  d['" FIXTURE_HIER "'] = '/hooked'\n"
	      "end\n",
	      lua);
	fclose(lua);
	snprintf(conf, sizeof(conf), "lua-script = \"%s\"\nlua-timeout = 50\n", script);
	fixture_files(&f, conf, fixture_rules);
	fixture_proc(&f, 300, NOBODY, NOBODY, "/usr/bin/cat", 30, "/");
	struct core *c = fixture_core(&f);
	if (c == NULL)
		bail("no core with a hook");
	core_start(c, 1.0);
	is_string("/hooked", fixture_group(&f, 300), "the hook places real processes");

	int ran = 0;
	for (int i = 0; i < 4; i++)
		ran += strcmp(whatif(c, NOBODY, "/usr/bin/fast")->dest, "/hooked") == 0;
	is_int(4, ran, "a user's what-if runs the hook, four times at once");
	const struct verdict *v = whatif(c, NOBODY, "/usr/bin/fast");
	ok(strcmp(v->dest, "/users/nobody") == 0 &&
		   strstr(v->reason, "(Lua hook not run: too many requests of this user") !=
			   NULL,
	   "the fifth: the rules alone, and it says so (%s)", v->reason);
	is_string("/hooked", whatif(c, 0, "/usr/bin/fast")->dest, "root is not limited");
	f.wall += 1;
	is_string("/hooked", whatif(c, NOBODY, "/usr/bin/fast")->dest,
		  "a second later the user may again");

	f.wall += 10;
	v = whatif(c, NOBODY, "/usr/bin/slow");
	ok(strstr(v->reason, "(Lua hook failed, see the log; the rules decided)") != NULL,
	   "a what-if that stalls the hook fails (%s)", v->reason);
	(void)whatif(c, NOBODY, "/usr/bin/slow"); /* its helper now backs off */
	fixture_proc(&f, 310, NOBODY, NOBODY, "/usr/bin/cat", 31, "/");
	event(c, PROCEV_EXEC, 310, 0, 2.0);
	is_string("/hooked", fixture_group(&f, 310),
		  "real processes are still placed by the hook, at once");
	const struct core_stats *st = core_stats(c);
	ok(st->hook_errors == 0 && st->hook_timeouts == 0 && st->hook_restarts == 0,
	   "the classifying helper never failed (errors %llu, timeouts %llu)",
	   (unsigned long long)st->hook_errors, (unsigned long long)st->hook_timeouts);
	core_free(c);
	fixture_done(&f);
}

/*
 * The loop's turn between two processes of a long piece of work
 * (core_env.between): the exec gate's held execs must not wait for a
 * whole batch or rescan to end -- in a storm of 2,000 execs on a VM one
 * batch took 400 ms and the watchdog let held execs go unplaced.  Each
 * call records how many processes were classified by then and where
 * the batch's last process was.
 */
struct turns {
	struct core *c;
	struct fixture *f;
	size_t n;
	uint64_t classified[16];
	char last[16][64];
};

static void
between(void *arg)
{
	struct turns *t = arg;

	if (t->n < 16) {
		t->classified[t->n] = core_stats(t->c)->classified;
		snprintf(t->last[t->n], sizeof(t->last[0]), "%s", fixture_group(t->f, 840));
	}
	t->n++;
}

static void
test_between(void)
{
	struct fixture f;
	struct turns t = { .f = &f };
	struct procev_event ev;

	fixture_init(&f);
	fixture_files(&f, "", fixture_rules);
	for (pid_t pid = 800; pid <= 840; pid += 10)
		fixture_proc(&f, pid, NOBODY, NOBODY, "/usr/bin/cat", (uint64_t)pid, "/");
	f.between = between;
	f.want_arg = &t;
	if ((t.c = fixture_core(&f)) == NULL)
		bail("no core");
	core_start(t.c, 1.0);
	is_int(5, (long long)t.n, "the start's scan: the loop's turn after each of 5 processes");
	bool each = t.n == 5;
	for (size_t i = 0; i < 5 && i < t.n; i++)
		each = each && t.classified[i] == i + 1;
	ok(each, "... each after one more was classified");

	for (pid_t pid = 800; pid <= 840; pid += 10)
		fixture_proc(&f, pid, NOBODY, NOBODY, "/usr/bin/fx-www", (uint64_t)pid + 1, "/");
	uint64_t before = core_stats(t.c)->classified;
	t.n = 0;
	for (pid_t pid = 800; pid <= 840; pid += 10) {
		ev = fixture_event(PROCEV_EXEC, pid, 0);
		core_event(t.c, &ev, 2.0);
	}
	is_int(0, (long long)t.n, "events are only noted: no turn yet");
	core_batch_done(t.c, 2.0);
	is_int(5, (long long)t.n, "a batch of 5 execs: the loop's turn after each");
	each = t.n == 5;
	for (size_t i = 0; i < 5 && i < t.n; i++)
		each = each && t.classified[i] == before + i + 1;
	ok(each, "... each after one more was classified");
	is_string("/", t.last[0], "... the first while the batch's last was not placed yet");
	is_string("/www", fixture_group(&f, 840), "... which it is once the batch is done");
	core_free(t.c);
	fixture_done(&f);
}

int
main(void)
{
	plan(85 + 19 + 6 + 9 + 7 + 8 + 2 + 5 + 2 + 7 + 11 + 4 + 7);
	fixture_init(&fx);
	fixture_files(&fx, fixture_profile, fixture_rules);
	fixture_proc(&fx, 1, 0, 0, "/usr/lib/systemd/systemd", 1, "/init.scope");
	fixture_proc(&fx, 100, 0, 0, "/usr/bin/bash", 10, "/");
	fixture_proc(&fx, 200, NOBODY, NOBODY, "/usr/bin/fx-www", 20, "/");
	fixture_proc(&fx, 300, NOBODY, NOBODY, "/usr/bin/cat", 30, "/");

	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("cannot build a core over the fixture");
	test_classify(c);
	test_sticky(c);
	test_threads(c);
	test_explain(c);
	test_boosts(c);
	test_log_injection();
	test_cleanup(c);
	core_stop(c);
	core_free(c);
	test_restore();
	test_boost_cap();
	test_state_writes();
	fixture_done(&fx);
	test_boost_limits();
	test_expiry_order();
	test_sticky_restart();
	test_boost_reload();
	test_boost_thread();
	test_whatif_hook();
	test_lazy_groups();
	test_pname();
	test_event_ids();
	test_between();
	decision_free(dn);
	return 0;
}
