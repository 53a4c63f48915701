/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfscript-t.c -- tests for exec_event.h's execbpf_script_step(), the
 * BPF filter's reading of the script an interpreter runs from its
 * argument area: by hand, then against the daemon's own reading
 * (kernel/task.c, task_script_from_cmdline) on every argument vector
 * of up to five arguments drawn from a small set -- whole, and cut
 * short as the filter reads it (then it may say "not known", never
 * something else than the daemon).
 */
#include "tests/tap/tap.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/types.h>

#include "kernel/bpf/exec_event.h"
#include "kernel/kernel.h"

/* What the filter makes of an area of `len` bytes of which it reads
 * `window`, as exec.bpf.c's script_named() scans it. */
struct seen {
	enum { SEEN_NONE, SEEN_FOUND, SEEN_UNKNOWN } what;
	char script[64]; /* SEEN_FOUND: the argument */
	char base[64];	 /* and its base name */
};

static struct seen
scan(const char *area, size_t len, size_t window)
{
	struct execbpf_script s;
	enum execbpf_script_says says = EXECBPF_SCRIPT_MORE;
	struct seen r = { .what = SEEN_NONE };
	size_t n = len < window ? len : window, at = 0;

	memset(&s, 0, sizeof(s));
	for (; at < n && says == EXECBPF_SCRIPT_MORE; at++)
		says = execbpf_script_step(&s, (__u32)at, area[at]);
	if (says == EXECBPF_SCRIPT_MORE) {
		r.what = len > window ? SEEN_UNKNOWN : SEEN_NONE;
		return r;
	}
	if (says == EXECBPF_SCRIPT_NONE)
		return r;
	at--; /* the NUL that ends the script */
	r.what = SEEN_FOUND;
	snprintf(r.script, sizeof(r.script), "%.*s", (int)(at - s.start), area + s.start);
	snprintf(r.base, sizeof(r.base), "%.*s", (int)(at - s.base), area + s.base);
	return r;
}

/* The arguments v[0..n) as the argument area holds them; its length. */
static size_t
area_of(char *out, const char *const *v, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(v[i]) + 1;

		memcpy(out + len, v[i], k);
		len += k;
	}
	return len;
}

static const char *
base_of(const char *f)
{
	const char *b = strrchr(f, '/');

	return b != NULL ? b + 1 : f;
}

/* Does the filter agree with the daemon on one argument vector, read
 * whole and through every window?  Tells the first disagreement. */
static bool
agrees(const char *const *v, size_t n)
{
	char area[512], daemon[256];
	size_t len = area_of(area, v, n);

	task_script_from_cmdline("/usr/bin/sh", area, len, daemon, sizeof(daemon));
	for (size_t w = 0; w <= len; w++) {
		struct seen f = scan(area, len, w);
		bool same = f.what == SEEN_UNKNOWN ||
			    (f.what == SEEN_NONE && daemon[0] == '\0') ||
			    (f.what == SEEN_FOUND && daemon[0] != '\0' && strcmp(f.script, daemon) == 0 &&
			     strcmp(f.base, base_of(daemon)) == 0);

		if (!same || (w == len && f.what == SEEN_UNKNOWN)) {
			diag("differ at window %zu of %zu on argv[1] \"%s\" ...: daemon \"%s\","
			     " filter %d \"%s\"",
			     w, len, n > 1 ? v[1] : "", daemon, f.what, f.script);
			return false;
		}
	}
	return true;
}

/* Every vector of 1 + up to `left` arguments from set: how many the
 * filter and the daemon disagree on. */
static int
sweep(const char **v, size_t n, size_t left, const char *const *set, size_t nset)
{
	int bad = agrees(v, n) ? 0 : 1;

	if (left == 0)
		return bad;
	for (size_t i = 0; i < nset && bad < 5; i++) {
		v[n] = set[i];
		bad += sweep(v, n + 1, left - 1, set, nset);
	}
	return bad;
}

static struct seen
whole(const char *const *v, size_t n)
{
	char area[512];
	size_t len = area_of(area, v, n);

	return scan(area, len, len);
}

#define V(...) (const char *const[]){ __VA_ARGS__ }, sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *)

int
main(void)
{
	static const char *const set[] = { "-c", "--", "-e", "-", "", "x.sh", "/a/b/run.py",
					   "d/", "-ce", "--x", "a b", "c", "xc" };
	const char *v[8] = { "sh" };
	struct seen f;

	plan(15);
	f = whole(V("sh", "/usr/lib/x/run.sh", "arg"));
	ok(f.what == SEEN_FOUND && strcmp(f.base, "run.sh") == 0, "sh /usr/lib/x/run.sh arg: run.sh");
	f = whole(V("python3", "-u", "-O", "tool.py"));
	ok(f.what == SEEN_FOUND && strcmp(f.base, "tool.py") == 0, "options are passed over");
	f = whole(V("sh", "-c", "run.sh"));
	is_int(SEEN_NONE, f.what, "sh -c: a command string, no script");
	f = whole(V("sh", "-e", "-c", "x"));
	is_int(SEEN_NONE, f.what, "-c after an option");
	f = whole(V("sh", "--", "-c"));
	ok(f.what == SEEN_FOUND && strcmp(f.base, "-c") == 0, "after --, whatever comes");
	f = whole(V("sh", "--", ""));
	is_int(SEEN_NONE, f.what, "an empty one after --: none");
	f = whole(V("sh", "", "x.sh"));
	is_int(SEEN_NONE, f.what, "an empty argument ends the search");
	f = whole(V("sh"));
	is_int(SEEN_NONE, f.what, "no arguments");
	f = whole(V("sh", "-x"));
	is_int(SEEN_NONE, f.what, "options only");
	f = whole(V("sh", "dir/"));
	ok(f.what == SEEN_FOUND && f.base[0] == '\0', "a script ending in /: an empty base name");
	f = whole(V("/bin/sh", "-ec", "x"));
	ok(f.what == SEEN_FOUND && strcmp(f.base, "x") == 0,
	   "-ec is an option like any (the daemon reads it so)");
	f = scan("sh\0-e\0run.sh\0", 14, 8);
	is_int(SEEN_UNKNOWN, f.what, "cut short before the script: not known");
	f = scan("sh\0-c\0run.sh\0", 14, 6);
	is_int(SEEN_NONE, f.what, "cut short after -c: none all the same");
	is_int(0, sweep(v, 1, 4, set, sizeof(set) / sizeof(set[0])),
	       "every vector of up to 4 arguments of 13: as the daemon reads it");
	v[0] = "/usr/bin/python3.11";
	is_int(0, sweep(v, 1, 5, set + 2, 6),
	       "every vector of up to 5 arguments of 6: as the daemon reads it");
	return tap_done();
}
