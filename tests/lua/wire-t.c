/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wire-t.c -- tests for lua/wire.c, the messages between the daemon
 * and its Lua helper: strings, calls and answers, whole and cut short.
 */
#include "lua/hooks.h"
#include "lua/hooks_private.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static unsigned char buf[4096];

static struct wbuf
writer(void)
{
	return (struct wbuf){ .p = buf, .cap = sizeof(buf) };
}

static void
test_strings(void)
{
	struct wbuf w = writer();

	wput_str(&w, "abc");
	wput_str(&w, NULL);
	struct rbuf r = { .p = buf, .len = w.len };
	is_string("abc", rget_str(&r), "a string reads back");
	ok(rget_str(&r) == NULL && !r.bad, "an absent string is NULL, not an error");
	ok(r.off == r.len, "all read");

	/* the string's NUL is the last byte: cut it off, with a non-NUL
	 * byte after the end in memory */
	w = writer();
	wput_str(&w, "abc");
	buf[w.len - 1] = 'X';
	r = (struct rbuf){ .p = buf, .len = w.len - 1 };
	ok(rget_str(&r) == NULL, "a string whose NUL is cut off is refused");
	ok(r.bad, "and the buffer is marked bad");

	w = writer();
	wput_bytes(&w, "a\0c", 3);
	wput_u8(&w, 0);
	memmove(buf + 1, buf, w.len);
	buf[0] = 1; /* present */
	r = (struct rbuf){ .p = buf, .len = w.len + 1 };
	ok(rget_str(&r) == NULL && r.bad, "a string with a NUL inside is refused");
}

static void
test_calls(void)
{
	static const gid_t groups[] = { 500, 700 };
	struct hooks_task t = { .pid = 4242,
				.uid = 1002,
				.euid = 1002,
				.gid = 500,
				.egid = 500,
				.groups = groups,
				.ngroups = 2,
				.comm = "python3",
				.exe = "/usr/bin/python3",
				.user = "carol" };
	struct hooks_slot in[2] = { { .hier = "cpu,cpuacct",
				      .set = true,
				      .dest = "/s",
				      .why = "cgrules.conf:4" },
				    { .hier = "net_cls" } };
	struct hooks_task got;
	gid_t *g = NULL;
	struct hooks_slot *slots = NULL;
	size_t nslots = 0, n = 0;
	struct wbuf w = writer();

	wire_put_call(&w, &t, in, 2);
	struct rbuf r = { .p = buf, .len = w.len };
	is_int(0, wire_get_call(&r, &got, &g, &slots, &nslots, &n), "a call reads back");
	ok(n == 2 && got.pid == 4242 && got.ngroups == 2 && got.groups[1] == 700,
	   "its numbers");
	ok(strcmp(got.exe, "/usr/bin/python3") == 0 && got.group == NULL &&
		   strcmp(slots[0].dest, "/s") == 0 && !slots[1].set,
	   "its strings and slots");

	/* cut before the last slot's why, whose NUL ends the message; the
	 * fuzzer found this read past the end */
	buf[w.len - 1] = 'X';
	for (size_t cut = 1; cut < w.len; cut++) {
		r = (struct rbuf){ .p = buf, .len = w.len - cut };
		if (wire_get_call(&r, &got, &g, &slots, &nslots, &n) != -EPROTO) {
			ok(false, "a call cut %zu bytes short is refused", cut);
			goto out;
		}
	}
	ok(true, "a call cut short anywhere is refused (-EPROTO)");
out:
	free(g);
	free(slots);
}

static void
test_answers(void)
{
	struct hooks_slot in[2] = { { .hier = "cpu,cpuacct", .set = true, .dest = "/s" },
				    { .hier = "net_cls" } };
	struct hooks_slot out[2];
	char err[256];
	struct wbuf w = writer();

	wput_u8(&w, W_ANSWER);
	wput_u32(&w, 2);
	wput_str(&w, "/s");
	wput_str(&w, "/www");
	is_int(0, hooks_answer_parse(buf, w.len, in, out, 2, err, sizeof(err)),
	       "an answer reads back");
	ok(!out[0].changed && out[1].changed && strcmp(out[1].dest, "/www") == 0,
	   "what changed");
	buf[w.len - 1] = 'X';
	is_int(-EPROTO, hooks_answer_parse(buf, w.len - 1, in, out, 2, err, sizeof(err)),
	       "an answer whose last NUL is cut off is refused");
	is_string("malformed answer", err, "saying so");
}

int
main(void)
{
	plan(14);
	test_strings();
	test_calls();
	test_answers();
	return tap_done();
}
