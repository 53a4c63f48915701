/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backoff-t.c -- the one exponential back-off (util/backoff.c): the
 * pauses of each shape the daemon uses, the cap, the reset.
 */
#include "util/util.h"
#include "tests/tap/tap.h"

/* pauses in milliseconds, so that is_int compares them exactly */
static long long
ms(double s)
{
	return (long long)(s * 1000 + 0.5);
}

int
main(void)
{
	struct backoff server = { .first = 0.1, .max = 1.0 };
	struct backoff helper = { .first = 1, .max = 60, .free = 1 };

	plan(14);
	is_int(100, ms(backoff_fail(&server)), "the first failure waits first");
	is_int(200, ms(backoff_fail(&server)), "the second twice as long");
	is_int(400, ms(backoff_fail(&server)), "the third four times");
	is_int(800, ms(backoff_fail(&server)), "the fourth eight times");
	is_int(1000, ms(backoff_fail(&server)), "then max, not 1.6 s");
	is_int(1000, ms(backoff_fail(&server)), "and max again");
	is_int(6, server.failures, "failures in a row are counted");
	backoff_reset(&server);
	is_int(100, ms(backoff_fail(&server)), "after a success the first pause again");

	is_int(0, ms(backoff_fail(&helper)), "free: the first failure is retried at once");
	is_int(1000, ms(backoff_fail(&helper)), "then the first pause");
	is_int(2000, ms(backoff_fail(&helper)), "then doubled");
	is_int(60000, ms(backoff_delay(&helper, 1000)), "the 1000th is capped, and quickly");
	is_int(0, ms(backoff_delay(&helper, 0)), "no failure, no pause");
	helper.failures = ~0u;
	is_int(60000, ms(backoff_fail(&helper)), "the count does not wrap around");
	return tap_done();
}
