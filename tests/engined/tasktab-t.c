/*
 * tasktab-t.c -- unit tests for engined/tasktab.c: set, look up,
 * forget (with backward shift), growth, and a randomised comparison
 * against a plain array.
 */
#include "engined/engined.h"
#include "tests/tap/tap.h"

#include <stdlib.h>

#define N 5000

int
main(void)
{
	struct tasktab *t = tasktab_new();
	static unsigned model[N];
	int wrong = 0;

	plan(9);
	ok(t != NULL, "new table");
	is_int(0, tasktab_flags(t, 42), "unknown pid: no flags");
	is_int(0, tasktab_set(t, 42, 1234, TASK_STICKY), "set");
	is_int(TASK_STICKY, tasktab_flags(t, 42), "flags read back");
	is_int(1234, (long long)tasktab_start(t, 42), "start time read back");
	tasktab_forget(t, 42);
	is_int(0, tasktab_flags(t, 42), "forgotten");
	is_int(0, (long long)tasktab_count(t), "empty again");

	srand(3);
	for (int round = 0; round < 200000; round++) {
		pid_t pid = 1 + rand() % (N - 1);
		if (rand() % 3 == 0) {
			tasktab_forget(t, pid);
			model[pid] = 0;
		} else {
			unsigned f = 1 + (unsigned)(rand() % 3);
			if (tasktab_set(t, pid, (uint64_t)pid * 7, f) == 0)
				model[pid] = f;
		}
	}
	size_t count = 0;
	for (pid_t pid = 1; pid < N; pid++) {
		if (tasktab_flags(t, pid) != model[pid])
			wrong++;
		count += model[pid] != 0;
	}
	is_int(0, wrong, "200,000 random operations agree with a plain array");
	is_int((long long)count, (long long)tasktab_count(t), "and the count agrees");
	tasktab_free(t);
	return tap_done();
}
