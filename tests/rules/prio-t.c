/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prio-t.c -- tests for rules/prio.c: every key and value word, the
 * ranges and their messages, contradictions, merge, format and the
 * plan of what to write to a thread.
 */
#include "rules/prio.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The items, parsed into one struct prio, formatted. */
static const char *
parsed(const char *const *items, char *out, size_t len)
{
	struct prio p = { 0 };
	char err[256];

	for (; *items; items++)
		if (prio_parse_item(&p, *items, err, sizeof(err)) < 0)
			return strcpy(out, err); /* err is shorter than out */
	if (prio_format(&p, out, len) < 0)
		return "ENOSPC";
	return out;
}

#define PARSED(want, ...)                                                              \
	do {                                                                           \
		static const char *const items_[] = { __VA_ARGS__, NULL };             \
		char out_[PRIO_FORMAT_MAX + 256];                                      \
		is_string(want, parsed(items_, out_, PRIO_FORMAT_MAX), "%s",           \
			  items_[0]);                                                  \
	} while (0)

static void
test_parse(void)
{
	PARSED("nice=-5 ioclass=best-effort ionice=4 sched=idle oom_score_adj=500 "
	       "latency_nice=-5",
	       "nice=-5", "ioclass=best-effort", "ionice=4", "sched=idle",
	       "oom_score_adj=500", "latency_nice=-5");
	PARSED("sched=fifo rtprio=10", "rtprio=10", "sched=fifo");
	PARSED("nice=19", "nice=19");
	PARSED("nice=-20", "nice=-20");
	PARSED("nice=3", "nice=-3", "nice=3");
	PARSED("ioclass=none", "ioclass=none");
	PARSED("ioclass=realtime", "ioclass=realtime");
	PARSED("ioclass=idle", "ioclass=idle");
	PARSED("sched=normal", "sched=normal");
	PARSED("sched=batch", "sched=batch");
	PARSED("sched=rr", "sched=rr");
	PARSED("ionice=0", "ionice=0");
	PARSED("rtprio=99", "rtprio=99");
	PARSED("oom_score_adj=-1000", "oom_score_adj=-1000");
	PARSED("oom_score_adj=1000", "oom_score_adj=1000");
	PARSED("latency_nice=19", "latency_nice=19");
}

static void
test_errors(void)
{
	PARSED("nice=-21: nice must be between -20 and 19", "nice=-21");
	PARSED("nice=20: nice must be between -20 and 19", "nice=20");
	PARSED("nice=: nice must be a number", "nice=");
	PARSED("nice=5x: nice must be a number", "nice=5x");
	PARSED("nice= 5: nice must be a number", "nice= 5");
	PARSED("nice=99999999999999999999: nice must be a number",
	       "nice=99999999999999999999");
	PARSED("ionice=8: ionice must be between 0 and 7", "ionice=8");
	PARSED("ionice=-1: ionice must be between 0 and 7", "ionice=-1");
	PARSED("rtprio=0: rtprio must be between 1 and 99", "rtprio=0");
	PARSED("rtprio=100: rtprio must be between 1 and 99", "rtprio=100");
	PARSED("oom_score_adj=1001: oom_score_adj must be between -1000 and 1000",
	       "oom_score_adj=1001");
	PARSED("latency_nice=-21: latency_nice must be between -20 and 19",
	       "latency_nice=-21");
	PARSED("ioclass=besteffort: ioclass must be none, realtime, best-effort or idle",
	       "ioclass=besteffort");
	PARSED("sched=other: sched must be normal, batch, idle, fifo or rr", "sched=other");
	PARSED("sched=FIFO: sched must be normal, batch, idle, fifo or rr", "sched=FIFO");
	PARSED("nice: not key=value", "nice");
	PARSED("=5: unknown key", "=5");
	PARSED("cpu=5: unknown key cpu (nice, ioclass, ionice, sched, rtprio, "
	       "oom_score_adj or latency_nice)",
	       "cpu=5");
	PARSED("nice =5: unknown key nice  (nice, ioclass, ionice, sched, rtprio, "
	       "oom_score_adj or latency_nice)",
	       "nice =5");
}

static void
test_set_unchanged(void)
{
	struct prio p = { 0 };
	char err[128];

	ok(prio_set(&p, "nice", "4", err, sizeof(err)) == 0, "prio_set nice=4");
	is_int(-EINVAL, prio_set(&p, "nice", "40", err, sizeof(err)), "nice=40 refused");
	is_int(PRIO_NICE, p.set, "a refused value names nothing new");
	is_int(4, p.nice, "and leaves the old value");
	is_int(-EINVAL, prio_parse_item(&p, "ionice=9", err, sizeof(err)), "ionice=9");
	is_int(PRIO_NICE, p.set, "ionice still unnamed");
}

static void
check_msg(const char *want, const char *const *items)
{
	struct prio p = { 0 };
	char err[128] = "";

	for (; *items; items++)
		if (prio_parse_item(&p, *items, err, sizeof(err)) < 0)
			bail("%s", err);
	if (prio_check(&p, err, sizeof(err)) == 0)
		strcpy(err, "ok");
	is_string(want, err, "prio_check: %s", want);
}

static void
test_check(void)
{
	check_msg("rtprio=10: needs sched=fifo or sched=rr, not sched=idle",
		  (const char *const[]){ "sched=idle", "rtprio=10", NULL });
	check_msg("rtprio=5: needs sched=fifo or sched=rr, not sched=normal",
		  (const char *const[]){ "rtprio=5", "sched=normal", NULL });
	check_msg("ionice=3: needs an I/O class other than ioclass=none",
		  (const char *const[]){ "ioclass=none", "ionice=3", NULL });
	check_msg("ok", (const char *const[]){ "sched=rr", "rtprio=5", NULL });
	check_msg("ok", (const char *const[]){ "rtprio=5", NULL });
	check_msg("ok", (const char *const[]){ "ionice=3", NULL });
	check_msg("ok", (const char *const[]){ "ioclass=idle", "ionice=3", NULL });
}

static void
test_merge(void)
{
	struct prio dst = { .set = PRIO_NICE | PRIO_OOM, .nice = -5, .oom_score_adj = 7 };
	struct prio src = { .set = PRIO_NICE | PRIO_IOCLASS | PRIO_LATENCY,
			    .nice = 10,
			    .ioclass = PRIO_IO_IDLE,
			    .latency_nice = 3 };
	char buf[PRIO_FORMAT_MAX];

	prio_merge(&dst, &src);
	ok(prio_format(&dst, buf, sizeof(buf)) == 0, "format merged");
	is_string("nice=-5 ioclass=idle oom_score_adj=7 latency_nice=3", buf,
		  "dst wins, src fills the rest");
	prio_merge(&dst, &(struct prio){ 0 });
	ok(prio_format(&dst, buf, sizeof(buf)) == 0, "format merged with nothing");
	is_string("nice=-5 ioclass=idle oom_score_adj=7 latency_nice=3", buf,
		  "merging nothing changes nothing");
}

static void
test_format(void)
{
	struct prio all = { PRIO_ALL, -20, PRIO_IO_BEST_EFFORT, 7, PRIO_SCHED_FIFO, 99,
			    -1000, -20 };
	char buf[PRIO_FORMAT_MAX], small[20];

	ok(prio_format(&all, buf, sizeof(buf)) == 0, "every field fits PRIO_FORMAT_MAX");
	is_string("nice=-20 ioclass=best-effort ionice=7 sched=fifo rtprio=99 "
		  "oom_score_adj=-1000 latency_nice=-20",
		  buf, "every field, in order");
	is_int(-ENOSPC, prio_format(&all, small, sizeof(small)), "too small: -ENOSPC");
	ok(prio_format(&(struct prio){ 0 }, buf, sizeof(buf)) == 0 && buf[0] == '\0',
	   "nothing named: empty");
	is_string("best-effort", prio_ioclass_name(PRIO_IO_BEST_EFFORT), "ioclass name");
	ok(prio_ioclass_name(9) == NULL, "unknown ioclass: NULL");
	is_string("batch", prio_sched_name(PRIO_SCHED_BATCH), "sched name");
	ok(prio_sched_name(4) == NULL, "unknown sched (4, SCHED_ISO): NULL");
	is_string("oom_score_adj", prio_field_name(PRIO_OOM), "field name");
	ok(prio_field_name(PRIO_NICE | PRIO_OOM) == NULL, "two bits: NULL");
	ok(prio_value(&all, PRIO_IOCLASS, buf, sizeof(buf)) == 0, "value of ioclass");
	is_string("best-effort", buf, "as a word");
	ok(prio_value(&all, PRIO_OOM, buf, sizeof(buf)) == 0, "value of oom_score_adj");
	is_string("-1000", buf, "as a number");
	is_int(-ENOSPC, prio_value(&all, PRIO_OOM, small, 5), "value too long: -ENOSPC");
	is_int(-ENOENT, prio_value(&(struct prio){ 0 }, PRIO_NICE, buf, sizeof(buf)),
	       "a field not named: -ENOENT");
	is_int(-ENOENT, prio_value(&all, PRIO_NICE | PRIO_OOM, buf, sizeof(buf)),
	       "two bits: -ENOENT");
}

/* The plan for want (items) on a thread that has cur, formatted. */
static void
plan_is(const char *want_s, const char *const *items, const struct prio *cur)
{
	struct prio want = { 0 }, todo;
	char err[128], buf[PRIO_FORMAT_MAX];
	bool any;

	for (; *items; items++)
		if (prio_parse_item(&want, *items, err, sizeof(err)) < 0)
			bail("%s", err);
	any = prio_plan(&want, cur, &todo);
	if (prio_format(&todo, buf, sizeof(buf)) < 0)
		bail("format");
	is_string(want_s, buf, "plan: %s", want_s[0] ? want_s : "(nothing)");
	ok(any == (want_s[0] != '\0'), "plan says whether there is anything");
}

#define I(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void
test_plan(void)
{
	/* a thread as fork leaves it: nice 0, no I/O class, normal */
	const struct prio fresh = { PRIO_ALL, 0, PRIO_IO_NONE, 0, PRIO_SCHED_NORMAL, 0, 0, 0 };
	const struct prio be6 = { PRIO_ALL, -5, PRIO_IO_BEST_EFFORT, 6, PRIO_SCHED_RR, 20, 500,
				  0 };

	plan_is("nice=-5", I("nice=-5"), &fresh);
	plan_is("", I("nice=-5"), &be6);
	plan_is("", I("nice=0", "sched=normal", "oom_score_adj=0"), &fresh);
	plan_is("ioclass=best-effort ionice=4", I("ioclass=best-effort"), &fresh);
	plan_is("", I("ioclass=best-effort"), &be6);
	plan_is("ioclass=realtime ionice=6", I("ioclass=realtime"), &be6);
	plan_is("ioclass=idle ionice=0", I("ioclass=idle"), &be6);
	plan_is("ioclass=none ionice=0", I("ioclass=none"), &be6);
	plan_is("ioclass=best-effort ionice=2", I("ionice=2"), &fresh);
	plan_is("ioclass=best-effort ionice=2", I("ionice=2"), &be6);
	plan_is("", I("ionice=6"), &be6);
	plan_is("ioclass=idle ionice=0", I("ioclass=idle", "ionice=5"), &fresh);
	plan_is("sched=fifo rtprio=1", I("sched=fifo"), &fresh);
	plan_is("sched=fifo rtprio=20", I("sched=fifo"), &be6);
	plan_is("sched=rr rtprio=10", I("sched=rr", "rtprio=10"), &fresh);
	plan_is("sched=idle rtprio=0", I("sched=idle"), &be6);
	plan_is("", I("rtprio=10"), &fresh);
	plan_is("sched=rr rtprio=10", I("rtprio=10"), &be6);
	plan_is("", I("sched=rr", "rtprio=20"), &be6);
	plan_is("oom_score_adj=-1000", I("oom_score_adj=-1000"), &be6);
	plan_is("latency_nice=-5", I("latency_nice=-5"), &be6);
	plan_is("nice=10 ioclass=idle ionice=0 sched=batch rtprio=0 oom_score_adj=100",
		I("nice=10", "ioclass=idle", "sched=batch", "oom_score_adj=100"), &be6);
	plan_is("", I("nice=0"), &(struct prio){ PRIO_ALL, 0, 0, 0, 0, 0, 0, 0 });
	plan_is("", (const char *const[]){ NULL }, &be6);
}

int
main(void)
{
	plan(117);
	test_parse();
	test_errors();
	test_set_unchanged();
	test_check();
	test_merge();
	test_format();
	test_plan();
	return tap_done();
}
