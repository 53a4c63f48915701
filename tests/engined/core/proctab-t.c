/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proctab-t.c -- unit tests for engined/proctab.c: set, look up,
 * replace a reused pid, forget (with backward shift), the watch and
 * the flags it hears, growth, and a
 * randomised comparison against a plain array.
 */
#include "engined/core/core_private.h"
#include "tests/tap/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 5000

static struct procid
id(pid_t pid, uint64_t start)
{
	return (struct procid){ .pid = pid, .start = start };
}

static char calls[64]; /* one digit per change heard: the entries then */
static char heard[256]; /* "WAS>NOW " per change: the flags before and after */

static void
watch(void *arg, unsigned was, unsigned now)
{
	size_t n = strlen(calls);
	size_t h = strlen(heard);

	snprintf(heard + h, sizeof(heard) - h, "%x>%x ", was, now);

	if (n + 1 < sizeof(calls))
		calls[n] = (char)('0' + proctab_count(arg));
}

static unsigned
flags_of(const struct proctab *t, pid_t pid)
{
	const struct proc *p = proctab_get(t, pid);

	return p ? p->flags : 0;
}

int
main(void)
{
	struct proctab *t = proctab_new();
	static unsigned model[N];
	int wrong = 0;

	plan(20);
	ok(t != NULL, "new table");
	proctab_watch(t, watch, t);
	ok(proctab_get(t, 42) == NULL, "unknown pid: no entry");
	is_int(0, proctab_set(t, id(42, 1234), PROC_STICKY), "set");
	is_int(PROC_STICKY, flags_of(t, 42), "flags read back");
	is_int(1234, (long long)proctab_get(t, 42)->id.start, "start time read back");
	is_int(0, proctab_set(t, id(42, 999), PROC_BOOSTED), "set for a reused pid");
	ok(procid_eq(proctab_get(t, 42)->id, id(42, 999)) &&
		   flags_of(t, 42) == PROC_BOOSTED,
	   "the new process replaces the old one's entry");
	proctab_forget(t, 42);
	is_int(0, flags_of(t, 42), "forgotten");
	is_int(0, (long long)proctab_count(t), "empty again");
	is_string("110", calls, "the watch heard of each change: made, replaced, forgotten");
	is_string("0>1 1>4 4>0 ", heard, "with the flags before and after each");
	int rc = proctab_set(t, id(7, 1), PROC_STICKY);
	rc |= proctab_set(t, id(8, 1), PROC_STICKY);
	is_int(2, (long long)proctab_count_flag(t, PROC_STICKY), "two sticky entries counted");
	rc |= proctab_set(t, id(7, 1), PROC_BOOSTED);
	ok(proctab_count_flag(t, PROC_STICKY) == 1 && proctab_count_flag(t, PROC_BOOSTED) == 1,
	   "new flags: the counts follow");
	rc |= proctab_set(t, id(7, 1), PROC_BOOSTED);
	proctab_forget(t, 7);
	proctab_forget(t, 99);
	is_string("1101221", calls, "... flags changed and forgotten, not what changed nothing");
	rc |= proctab_set(t, id(8, 1), 0);
	is_string("11012210", calls, "flags 0 removes the last entry: heard");
	is_int(0, (long long)proctab_count_flag(t, PROC_STICKY), "no flag counted any more");
	is_int(0, rc, "(every set succeeded)");
	proctab_watch(t, NULL, NULL);

	srand(3);
	for (int round = 0; round < 200000; round++) {
		pid_t pid = 1 + rand() % (N - 1);
		if (rand() % 3 == 0) {
			proctab_forget(t, pid);
			model[pid] = 0;
		} else {
			unsigned f = 1 + (unsigned)(rand() % 3);
			if (proctab_set(t, id(pid, (uint64_t)pid * 7), f) == 0)
				model[pid] = f;
		}
	}
	size_t count = 0;
	for (pid_t pid = 1; pid < N; pid++) {
		if (flags_of(t, pid) != model[pid])
			wrong++;
		count += model[pid] != 0;
	}
	is_int(0, wrong, "200,000 random operations agree with a plain array");
	is_int((long long)count, (long long)proctab_count(t), "and the count agrees");
	size_t nf[3] = { 0 };
	for (pid_t pid = 1; pid < N; pid++)
		for (unsigned b = 0; b < 3; b++)
			nf[b] += (model[pid] >> b) & 1;
	ok(nf[0] == proctab_count_flag(t, 1) && nf[1] == proctab_count_flag(t, 2) &&
		   nf[2] == proctab_count_flag(t, 4),
	   "and so do the counts of each flag");
	proctab_free(t);
	return 0;
}
