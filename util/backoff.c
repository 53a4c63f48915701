/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backoff.c -- the project's one exponential back-off (util.h): how
 * long to wait before trying again after failures in a row.
 */
#include "util.h"

double
backoff_delay(const struct backoff *b, unsigned n)
{
	if (n <= b->free)
		return 0;
	double d = b->first;

	for (unsigned i = b->free + 1; i < n && d < b->max; i++)
		d *= 2;
	return d < b->max ? d : b->max;
}

double
backoff_fail(struct backoff *b)
{
	if (b->failures < UINT32_MAX)
		b->failures++;
	return backoff_delay(b, b->failures);
}

void
backoff_reset(struct backoff *b)
{
	b->failures = 0;
}
