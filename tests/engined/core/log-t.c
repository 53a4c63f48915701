/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log-t.c -- the log rate limiter (engined/log.c): lines let through
 * per second, the count of those held back handed to the next line or
 * taken for a summary.
 */
#include "engined/core/core.h"
#include "tests/tap/tap.h"

int
main(void)
{
	struct log_limit l = LOG_LIMIT_INIT(2);
	unsigned long held = 99;

	plan(12);
	ok(log_limit_pass(&l, 100.0, &held), "the first line passes");
	is_int(0, (long long)held, "nothing was held back");
	ok(log_limit_pass(&l, 100.1, &held), "the second one in that second too");
	ok(!log_limit_pass(&l, 100.2, &held), "the third is held back");
	ok(!log_limit_pass(&l, 100.9, &held), "and the fourth");
	ok(!log_limit_pass(&l, 100.99, &held), "and the fifth, the window starts at the first line");
	ok(log_limit_pass(&l, 101.0, &held), "a second later a line passes");
	is_int(3, (long long)held, "and carries the count of the three held back");
	ok(log_limit_pass(&l, 101.5, &held) && held == 0, "the count is said once");
	ok(!log_limit_pass(&l, 101.6, &held), "held back again");
	is_int(1, (long long)log_limit_take(&l), "a caller takes the count for its own summary");
	ok(log_limit_pass(&l, 200.0, &held) && held == 0, "... and it is not said twice");
	return tap_done();
}
