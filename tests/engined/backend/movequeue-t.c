/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * movequeue-t.c -- the systemd backend's move queue
 * (engined/backend/systemd/movequeue.c) without sd-bus, libsystemd not
 * linked: a stand-in transport notes each call sent, the test answers
 * them as PID 1 would, a clock and a /proc of the test's own.  The
 * rules: the cap on calls (a move beyond refused, a rescan once half
 * are answered); moves of one process one at a time, a newer one
 * dropping those held; an attach waits for its scope's start job; the
 * retry rule (start -> attach -> start with the known properties ->
 * reset -> start), paused from the second retry on, eight calls at
 * most; a held move whose process changed is never sent; a call
 * without answer, a lost connection, a process gone; the exec gate's
 * placement after a move in flight.
 */
#include "engined/backend/systemd/movequeue.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define X "/cgengine.slice/students/www"
#define Y "/cgengine.slice/default/www"

/* ---- the stand-ins --------------------------------------------------------------- */

static struct movequeue q;
static struct mq_call *sent[MQ_CALLS_MAX + 8]; /* every call sent, in order */
static size_t nsent;
static int refuse_send; /* -errno every send returns (0: sent) */
static struct {
	pid_t pid;
	int rc;
} dones[1200];
static size_t ndone;
static char made[8][128];
static size_t nmade;
static uint64_t clock_us = 1000000;
static char procroot[64];

static int
fake_send(void *arg, struct mq_call *k)
{
	if (refuse_send)
		return refuse_send;
	if (nsent < sizeof(sent) / sizeof(sent[0]))
		sent[nsent++] = k;
	return 0;
}

static void
fake_done(void *arg, pid_t pid, int rc)
{
	if (ndone < sizeof(dones) / sizeof(dones[0]))
		dones[ndone++] = (typeof(dones[0])){ pid, rc };
}

static void
fake_made(void *arg, const char *path)
{
	if (nmade < 8)
		snprintf(made[nmade++], sizeof(made[0]), "%s", path);
}

static uint64_t
fake_now(void)
{
	return clock_us;
}

/* A process of the test's /proc with this start time. */
static void
proc(pid_t pid, uint64_t start)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", procroot, (int)pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/stat", procroot, (int)pid);
	if ((f = fopen(path, "w")) == NULL)
		bail("cannot write %s", path);
	fprintf(f, "%d (fx) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %llu 0 0\n", (int)pid,
		(unsigned long long)start);
	fclose(f);
}

static void
proc_gone(pid_t pid)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%d/stat", procroot, (int)pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d", procroot, (int)pid);
	rmdir(path);
}

static void
reset(void)
{
	mq_clear(&q);
	mq_init(&q, &(struct mq_env){ .send = fake_send,
				      .done = fake_done,
				      .made = fake_made,
				      .now = fake_now,
				      .procroot = procroot });
	nsent = ndone = nmade = 0;
	refuse_send = 0;
}

/* The last call sent, if it is op for pid (0: any) into path's unit. */
static struct mq_call *
last_sent(enum mq_op op, pid_t pid)
{
	struct mq_call *k = nsent > 0 ? sent[nsent - 1] : NULL;

	return k != NULL && k->op == op && (pid == 0 || k->pid == pid) ? k : NULL;
}

static const struct mq_error *
error(enum mq_answer kind, int err)
{
	static struct mq_error e;

	e = (struct mq_error){
		.kind = kind, .err = err, .name = "fx.Error", .message = "fx"
	};
	return &e;
}

static struct mq_unit *
props(const char *path, const char *name, uint64_t value)
{
	struct mq_unit *d = calloc(1, sizeof(*d));

	if (d == NULL)
		bail("out of memory");
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->props[0].name = name;
	d->props[0].type = 't';
	d->props[0].u = value;
	d->nprops = 1;
	return d;
}

/* ---- the tests ----------------------------------------------------------------------- */

static void
test_cap(void)
{
	reset();
	for (pid_t pid = 1000; pid < 1000 + MQ_CALLS_MAX; pid++)
		if (mq_room(&q) < 0 ||
		    mq_call(&q, MQ_ATTACH, X, "x.scope", pid, NULL) < 0)
			break;
	is_int(MQ_CALLS_MAX, (long long)nsent, "%d moves in flight", MQ_CALLS_MAX);
	is_int(-ENOBUFS, mq_room(&q), "one more is refused");
	ok(q.full, "the queue is full");
	mq_process(&q);
	ok(!mq_take_lost(&q), "no rescan while it is");
	for (size_t i = 0; i < MQ_CALLS_MAX / 2; i++)
		mq_answered(sent[i], NULL);
	mq_process(&q);
	ok(q.full && !mq_take_lost(&q), "still full with half of them answered");
	mq_answered(sent[MQ_CALLS_MAX / 2], NULL);
	mq_process(&q);
	ok(!q.full && mq_take_lost(&q), "below half: a rescan");
	ok(!mq_take_lost(&q), "once");
	is_int(0, mq_room(&q), "and room again");
	is_int(MQ_CALLS_MAX / 2 + 1, (long long)ndone, "each answer is a move done");
}

static void
test_one_at_a_time(void)
{
	reset();
	proc(200, 50);
	is_int(0, mq_call(&q, MQ_SCOPE, X, "x.scope", 200, NULL),
	       "a scope started with pid 200");
	struct mq_call *first = last_sent(MQ_SCOPE, 200);
	ok(first != NULL, "sent");
	is_int(0, mq_call(&q, MQ_ATTACH, Y, "y.scope", 200, NULL), "another move of it");
	is_int(1, (long long)nsent, "held while the first is in flight");
	is_int(0, mq_call(&q, MQ_ATTACH, X, "x.scope", 200, NULL), "and a third");
	is_int(1, (long long)q.nheld, "which drops the one held");
	mq_job_queued(first, "/job/1");
	is_int(1, (long long)nsent, "the start job queued: still held");
	mq_job_end(&q, "/job/2", "done");
	is_int(1, (long long)nsent, "another job's end changes nothing");
	mq_job_end(&q, "/job/1", "done");
	ok(ndone == 1 && dones[0].pid == 200 && dones[0].rc == 0,
	   "the first move is done");
	ok(nmade == 1 && strcmp(made[0], X) == 0, "its scope is made");
	struct mq_call *k = last_sent(MQ_ATTACH, 200);
	ok(k != NULL && strcmp(k->unit, "x.scope") == 0, "then the newest move is sent");
	is_int(0, (long long)q.nheld, "nothing held");
}

static void
test_attach_waits(void)
{
	reset();
	proc(300, 60);
	(void)mq_call(&q, MQ_SCOPE, X, "x.scope", 301, NULL);
	struct mq_call *start = last_sent(MQ_SCOPE, 301);
	is_int(0, mq_call(&q, MQ_ATTACH, X, "x.scope", 300, NULL), "an attach to it");
	ok(q.nheld == 1 && nsent == 1, "waits while the scope starts");
	ok(mq_moving(&q, 300) && mq_busy(&q, "/cgengine.slice/students"),
	   "a move of the pid and a call below the group are seen");
	mq_job_queued(start, "/job/7");
	clock_us += MQ_JOB_WAIT_US - 1;
	mq_process(&q);
	is_int(1, (long long)nsent, "the job's end is awaited");
	is_int(clock_us + 1, (long long)mq_deadline(&q, UINT64_MAX),
	       "until its deadline");
	clock_us += 1;
	mq_process(&q);
	ok(last_sent(MQ_ATTACH, 300) != NULL,
	   "no end seen in time: taken as done, the attach sent");
	ok(ndone == 1 && dones[0].pid == 301 && dones[0].rc == 0,
	   "and the scope's move done");
}

static void
test_retry(void)
{
	reset();
	proc(400, 70);
	(void)mq_call(&q, MQ_SCOPE, X, "x.scope", 400, props(X, "CPUWeight", 256));
	struct mq_call *k = last_sent(MQ_SCOPE, 400);
	mq_answered(k, error(MQ_UNIT_EXISTS, EEXIST));
	ok(last_sent(MQ_ATTACH, 400) == k && nsent == 2,
	   "the scope exists: an attach, sent at once");
	mq_answered(k, error(MQ_NO_SUCH_UNIT, ENOENT));
	ok(nsent == 2 && k->held && k->op == MQ_SCOPE,
	   "collected meanwhile: a start again, held from the second retry on");
	ok(k->def != NULL && k->def->nprops == 1 && k->def->props[0].u == 256,
	   "with the properties the scope was started with");
	is_int(clock_us + 100000, (long long)mq_deadline(&q, UINT64_MAX), "for 0.1 s");
	clock_us += 99999;
	mq_process(&q);
	is_int(2, (long long)nsent, "not sent before");
	clock_us += 1;
	mq_process(&q);
	ok(nsent == 3 && last_sent(MQ_SCOPE, 400) == k, "sent once the pause is over");
	mq_answered(k, error(MQ_UNIT_EXISTS, EEXIST));
	is_int(clock_us + 200000, (long long)mq_deadline(&q, UINT64_MAX),
	       "the next pause doubles");
	clock_us += 200000;
	mq_process(&q);
	mq_answered(k, error(MQ_UNIT_INACTIVE, 0));
	ok(k->op == MQ_RESET && k->held, "a dead scope: reset first");
	clock_us += 400000;
	mq_process(&q);
	ok(last_sent(MQ_RESET, 400) == k, "the reset is sent");
	mq_answered(k, error(MQ_REFUSED, EPERM));
	ok(last_sent(MQ_SCOPE, 400) == k,
	   "whatever it answered: the scope is started again");
	while (k->tries < MQ_MAX_TRIES) {
		mq_answered(k, error(MQ_UNIT_EXISTS, EEXIST));
		clock_us += 10000000;
		mq_process(&q);
		mq_answered(k, error(MQ_NO_SUCH_UNIT, ENOENT));
		clock_us += 10000000;
		mq_process(&q);
	}
	is_int(MQ_MAX_TRIES, (long long)nsent, "%d calls at most", MQ_MAX_TRIES);
	mq_answered(k, error(MQ_UNIT_EXISTS, EEXIST)); /* an attach, were it allowed */
	ok(ndone == 1 && dones[0].pid == 400 && dones[0].rc == -EEXIST,
	   "then given up with PID 1's error");
	is_int(0, (long long)q.ncalls, "nothing left");
}

/* A scope collected under another process's attach: started again with
 * the properties it was started with (remembered, not the move's). */
static void
test_known(void)
{
	reset();
	proc(451, 75);
	(void)mq_call(&q, MQ_SCOPE, X, "x.scope", 450, props(X, "CPUWeight", 512));
	mq_answered(last_sent(MQ_SCOPE, 450), NULL);
	(void)mq_call(&q, MQ_ATTACH, X, "x.scope", 451, NULL);
	struct mq_call *k = last_sent(MQ_ATTACH, 451);
	mq_answered(k, error(MQ_NO_SUCH_UNIT, ENOENT));
	ok(last_sent(MQ_SCOPE, 451) == k && k->def != NULL && k->def->nprops == 1 &&
		   k->def->props[0].u == 512,
	   "another process's attach to a collected scope starts it with its properties");
	mq_forget_known(&q);
	(void)mq_call(&q, MQ_ATTACH, Y, "y.scope", 452, NULL);
	k = last_sent(MQ_ATTACH, 452);
	mq_answered(k, error(MQ_NO_SUCH_UNIT, ENOENT));
	ok(last_sent(MQ_SCOPE, 452) == k && k->def == NULL, "none known: none given");
}

static void
test_gone(void)
{
	reset();
	proc(500, 80);
	proc(501, 81);
	(void)mq_call(&q, MQ_SCOPE, X, "x.scope", 502, NULL);
	struct mq_call *start = last_sent(MQ_SCOPE, 502);
	(void)mq_call(&q, MQ_ATTACH, X, "x.scope", 500, NULL);
	(void)mq_call(&q, MQ_ATTACH, X, "x.scope", 501, NULL);
	is_int(2, (long long)q.nheld, "two attaches held");
	proc(500, 90); /* exited, its pid reused */
	proc_gone(501);
	mq_answered(start, error(MQ_REFUSED, EPERM));
	is_int(1, (long long)nsent,
	       "neither is sent: not the processes they were held for");
	ok(ndone == 3 && dones[0].pid == 502 && dones[0].rc == -EPERM,
	   "the scope's move refused");
	ok(dones[1].rc == -ESRCH && dones[2].rc == -ESRCH, "the held ones: gone");
	proc(503, 91);
	(void)mq_call(&q, MQ_SCOPE, Y, "y.scope", 504, NULL);
	start = last_sent(MQ_SCOPE, 504);
	(void)mq_call(&q, MQ_ATTACH, Y, "y.scope", 503, NULL);
	mq_answered(start, error(MQ_REFUSED, ESRCH));
	ok(dones[3].pid == 504 && dones[3].rc == -ESRCH,
	   "a process PID 1 did not find: gone");
	ok(last_sent(MQ_ATTACH, 503) != NULL, "one that lives is sent");
	mq_answered(last_sent(MQ_ATTACH, 503), error(MQ_NO_ANSWER, ETIMEDOUT));
	ok(dones[4].pid == 503 && dones[4].rc == -ETIMEDOUT && mq_take_lost(&q),
	   "no answer: classified again later");
}

static void
test_lost(void)
{
	reset();
	(void)mq_call(&q, MQ_SLICE, "/cgengine.slice/students", "s.slice", 0, NULL);
	(void)mq_call(&q, MQ_SCOPE, X, "x.scope", 600, NULL);
	(void)mq_call(&q, MQ_ATTACH, Y, "y.scope", 601, NULL);
	is_int(2, (long long)mq_lose_all(&q), "a lost connection: two moves lost");
	ok(ndone == 2 && dones[0].rc == -ETIMEDOUT && q.ncalls == 0,
	   "each ends, nothing left");
	ok(mq_take_lost(&q), "a rescan once connected");
	refuse_send = -ENOTCONN;
	is_int(-ENOTCONN, mq_call(&q, MQ_ATTACH, Y, "y.scope", 601, NULL),
	       "a call that cannot be sent fails");
	is_int(0, (long long)q.ncalls, "and is not kept");
}

static void
test_gate(void)
{
	reset();
	proc(700, 95);
	(void)mq_call(&q, MQ_SCOPE, X, "x.scope", 700, NULL);
	struct mq_call *start = last_sent(MQ_SCOPE, 700);
	(void)mq_call(&q, MQ_ATTACH, Y, "y.scope", 700, NULL);
	mq_gate_placed(&q, 700, Y, "y.scope");
	ok(q.ncalls == 2 && q.nheld == 1, "the gate placed it: its held move is dropped");
	mq_job_queued(start, "/job/9");
	mq_job_end(&q, "/job/9", "done");
	struct mq_call *k = last_sent(MQ_ATTACH, 700);
	ok(k != NULL && strcmp(k->unit, "y.scope") == 0,
	   "after the scope's start job, an attach to the gate's scope");
	mq_answered(k, NULL);
	mq_gate_placed(&q, 700, Y, "y.scope");
	is_int(0, (long long)q.ncalls, "nothing in flight: nothing asked for");
}

int
main(void)
{
	char tmpl[] = "/tmp/movequeue-t.XXXXXX";

	if (mkdtemp(tmpl) == NULL)
		bail("mkdtemp");
	snprintf(procroot, sizeof(procroot), "%s", tmpl);
	plan(58);
	test_cap();
	test_one_at_a_time();
	test_attach_waits();
	test_retry();
	test_known();
	test_gone();
	test_lost();
	test_gate();
	mq_clear(&q);
	for (pid_t pid = 200; pid < 800; pid++)
		proc_gone(pid);
	rmdir(procroot);
	return 0;
}
