/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-procev.c -- the proc connector decoder (procev_decode), a pure
 * function over one netlink datagram, on any bytes.
 *
 * Invariants: a datagram not from the kernel is refused (-EPERM) before
 * anything is read; otherwise the result is -EBADMSG or a count no
 * larger than the room given, and every event has a known type.  The
 * same bytes decoded with less room give a prefix of the same events.
 */
#include "fuzz.h"
#include "kernel/kernel.h"

#include <errno.h>
#include <string.h>

#define ROOM 64

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procev_event ev[ROOM], few[2];

	FUZZ_CHECK(procev_decode(data, size, 4242, ev, ROOM) == -EPERM);
	int n = procev_decode(data, size, 0, ev, ROOM);
	FUZZ_CHECK(n == -EBADMSG || (n >= 0 && n <= ROOM));
	for (int i = 0; i < n; i++)
		FUZZ_CHECK(ev[i].type >= PROCEV_FORK && ev[i].type <= PROCEV_EXIT);

	int m = procev_decode(data, size, 0, few, 2);
	FUZZ_CHECK((n < 0) == (m < 0));
	if (n >= 0 && m >= 0) {
		FUZZ_CHECK(m <= 2 && m == (n < 2 ? n : 2));
		FUZZ_CHECK(memcmp(few, ev, (size_t)m * sizeof(*ev)) == 0);
	}
	return 0;
}
