/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfname-t.c -- tests for exec_event.h's execbpf_interpreter_name(),
 * the BPF filter's test of "an interpreter, with only a version after
 * it": names by hand, then every name of a small alphabet against the
 * plain reading of the rule (a list name, then digits and dots).
 */
#include "tests/tap/tap.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/types.h>

#include "kernel/bpf/exec_event.h"

static const char *const list[] = { "sh",   "bash", "dash", "zsh",  "ksh",  "mksh",
				    "csh",  "tcsh", "fish", "python", "perl", "ruby",
				    "lua",  "node", "php",  "tclsh", "wish" };

/* The rule read plainly, on a name of up to 15 bytes. */
static bool
plain(const char *name)
{
	for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
		size_t n = strlen(list[i]);

		if (strncmp(name, list[i], n) != 0)
			continue;
		const char *rest = name + n;
		while ((*rest >= '0' && *rest <= '9') || *rest == '.')
			rest++;
		if (*rest == '\0')
			return true;
	}
	return false;
}

/* name cut to 15 bytes and NUL padded, as the filter holds it */
static int
interp(const char *name)
{
	union {
		char c[16];
		__u64 w[2];
	} n;

	memset(&n, 0, sizeof(n));
	strncpy(n.c, name, 15);
	return execbpf_interpreter_name(n.w[0], n.w[1]);
}

/* Every name of up to len bytes over the bytes of abc, after prefix:
 * how many the two readings differ on (the first told). */
static int
sweep(char *buf, size_t at, size_t len, const char *abc)
{
	int bad = 0;

	if (at > 0 && plain(buf) != (interp(buf) != 0) && bad++ == 0)
		diag("differ on \"%s\"", buf);
	if (at == len)
		return bad;
	for (const char *c = abc; *c != '\0'; c++) {
		buf[at] = *c;
		buf[at + 1] = '\0';
		bad += sweep(buf, at + 1, len, abc);
	}
	buf[at] = '\0';
	return bad;
}

int
main(void)
{
	char buf[32] = "";
	int bad = 0;

	plan(22);
	for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++)
		bad += !interp(list[i]);
	is_int(0, bad, "each name of the list");
	ok(interp("python3.11"), "python3.11");
	ok(interp("python3"), "python3");
	ok(interp("sh5.2..1"), "digits and dots after sh");
	ok(interp("perl5.36.0"), "perl5.36.0");
	ok(interp("python3.11.1234"), "a version reaching the 15th byte");
	ok(interp("tclsh8.6"), "tclsh8.6");
	ok(!interp("true"), "not true");
	ok(!interp("shell"), "not shell");
	ok(!interp("bas"), "not bas");
	ok(!interp("pythonx"), "not pythonx");
	ok(!interp("python3x"), "not python3x");
	ok(!interp("3python"), "not 3python");
	ok(!interp(".sh"), "not .sh");
	ok(!interp("sh-5"), "not sh-5");
	ok(!interp(""), "not the empty name");
	ok(interp("python3.11.1234x"), "what is past the 15th byte does not count");
	ok(!interp("\xe0sh"), "not a byte above 0x7f before sh");
	ok(!interp("sh\xb9"), "not a byte above 0x7f after sh (0xb9: '9' | 0x80)");
	ok(!interp("sh/"), "not sh/ ('/' sits between '.' and '0')");
	is_int(0, sweep(buf, 0, 5, "sh.09/:a\x80"), "every name of 5 bytes of s h . 0 9 / : a 0x80");
	is_int(0, sweep(buf, 0, 4, "pythonl.3"), "every name of 4 bytes of p y t h o n l . 3");
	return tap_done();
}
