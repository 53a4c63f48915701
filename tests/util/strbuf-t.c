/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strbuf-t.c -- the one growable buffer (util/strbuf.c): appends,
 * formatted text longer than any first guess, reset, and the sticky
 * failure.
 */
#include "util/util.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	struct strbuf b = { 0 };
	char *big;

	plan(13);
	is_int(0, strbuf_add(&b, "abc", 3), "add to an empty buffer");
	is_string("abc", b.p, "it holds the bytes, NUL-terminated");
	is_int(0, strbuf_printf(&b, "-%d-%s", 42, "x"), "printf appends");
	is_string("abc-42-x", b.p, "after the bytes already there");
	is_int(8, (long long)b.len, "len counts them");

	/* longer than the first allocation and than any stack buffer */
	big = malloc(100001);
	memset(big, 'z', 100000);
	big[100000] = '\0';
	is_int(0, strbuf_printf(&b, "[%s]", big), "100,002 formatted bytes");
	ok(b.len == 8 + 100002 && b.p[8] == '[' && b.p[b.len - 1] == ']' &&
		   b.p[b.len] == '\0' && strspn(b.p + 9, "z") == 100000,
	   "all of them, after the earlier text");
	free(big);

	strbuf_reset(&b);
	ok(b.len == 0 && b.p != NULL && b.p[0] == '\0', "reset empties it, keeping the memory");
	is_int(0, strbuf_printf(&b, "%s", ""), "an empty format");
	is_string("", b.p, "leaves it empty");

	b.failed = true; /* as after a failed allocation */
	is_int(-ENOMEM, strbuf_add(&b, "x", 1), "a failed buffer refuses appends");
	is_int(-ENOMEM, strbuf_printf(&b, "%d", 1), "and formatted ones");
	strbuf_free(&b);
	ok(b.p == NULL && b.len == 0 && b.cap == 0 && !b.failed, "free leaves an empty buffer");
	strbuf_free(&b); /* twice: harmless */
	return tap_done();
}
