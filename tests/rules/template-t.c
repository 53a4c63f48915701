/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * template-t.c -- tests for rules/template.c: every template, escapes,
 * unknown templates kept as written, values made safe as one path
 * component, and the length limit.
 */
#include "rules/rules.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const struct rules_task task = {
	.pid = 77,
	.uid = 1000,
	.euid = 1001,
	.gid = 100,
	.egid = 101,
	.exe = "/usr/bin/firefox-esr",
	.comm = "firefox",
	.user = "alice",
	.group = "students",
};

/* the installation's secret key, as the daemon reads it from its file */
static const unsigned char key[SIPHASH_KEY_LEN] = "0123456789abcdef";

struct tcase {
	const char *tmpl, *want;
};

static const struct tcase cases[] = {
	{ "/plain", "/plain" },
	{ "/u/%u", "/u/alice" },
	{ "/U/%U", "/U/1001" },
	{ "/g/%g", "/g/students" },
	{ "/G/%G", "/G/101" },
	{ "/p/%p", "/p/firefox-esr" },
	{ "/P/%P", "/P/77" },
	{ "/%u/%p/%P", "/alice/firefox-esr/77" },
	{ "/lit\\%u", "/lit%u" },
	{ "/back\\\\slash", "/back\\slash" },
	{ "/%u%U", "/alice1001" },
	{ "/100\\%", "/100%" },
	/* a '%' that starts no template is kept with what follows (libcgroup) */
	{ "/a%x", "/a%x" },
	{ "/a%%u", "/a%%u" },
	{ "/a%\\u", "/a%\\u" },
	{ "/end%", "/end%" },
	{ "/%u/%y%p", "/alice/%yfirefox-esr" },
};

/* The i-th name of the search below: 40 'x' and 20 digits. */
static char *
name_of(uint64_t i, char out[64])
{
	snprintf(out, 64, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx%020llu", (unsigned long long)i);
	return out;
}

/* FNV-1a, 32 bits: the hash the cut used before (a birthday search
 * finds a collision in about 2^16 tries). */
static uint32_t
fnv32(const char *v)
{
	uint32_t h = 2166136261u;

	for (; *v; v++)
		h = (h ^ (unsigned char)*v) * 16777619u;
	return h;
}

/* Two different 60-byte names with the same FNV-1a-32 hash. */
static bool
fnv_collision(char n1[64], char n2[64])
{
	struct map seen;
	bool fresh, found = false;

	map_init(&seen, sizeof(uint64_t));
	for (uint64_t i = 1; i < 4000000 && !found; i++) {
		uint64_t *v = map_insert(&seen, fnv32(name_of(i, n1)), NULL, NULL, &fresh);
		if (v == NULL)
			break;
		if (!fresh) {
			name_of(*v, n2);
			found = true;
		}
		*v = i;
	}
	map_free(&seen);
	return found;
}

static const char *
expand(const char *tmpl, const struct rules_task *t)
{
	static char out[RULES_DEST_MAX];

	return rules_expand(tmpl, t, key, out, sizeof(out)) == 0 ? out : NULL;
}

int
main(void)
{
	char buf[RULES_DEST_MAX];
	size_t n = sizeof(cases) / sizeof(cases[0]);

	plan((int)n + 33);
	for (size_t i = 0; i < n; i++) {
		int rc = rules_expand(cases[i].tmpl, &task, key, buf, sizeof(buf));
		is_string(cases[i].want, rc == 0 ? buf : NULL, "expand %s",
			  cases[i].tmpl);
	}

	struct rules_task t = task;
	t.user = NULL;
	t.group = NULL;
	is_string("/1001/101", expand("/%u/%g", &t), "no names: numbers");

	t = task;
	t.exe = NULL;
	t.comm = "kworker/0:1";
	is_string("/k/kworker_0:1", expand("/k/%p", &t), "a '/' in a value becomes '_'");

	t.comm = "..";
	const char *enc = expand("/k/%p", &t);
	ok(enc != NULL && strlen(enc) == 3 + 18 && strncmp(enc, "/k/_~", 5) == 0,
	   "'..' as a value is encoded, never a name with a dot first: %s", enc ? enc : "-");
	char dots[RULES_DEST_MAX];
	snprintf(dots, sizeof(dots), "%s", enc ? enc : "");
	t.comm = ".";
	enc = expand("/k/%p", &t);
	ok(enc != NULL && strncmp(enc, "/k/_~", 5) == 0 && strcmp(enc, dots) != 0,
	   "'.' too, to another name");
	t.comm = "_";
	is_string("/k/_", expand("/k/%p", &t), "while '_' stays '_'");

	t = task;
	t.user = "";
	enc = expand("/u/%u", &t);
	ok(enc != NULL && strlen(enc) == 3 + 18 && strncmp(enc, "/u/_~", 5) == 0,
	   "an empty value is encoded: %s", enc ? enc : "-");

	t = task;
	t.script = "/home/alice/bin/job.py";
	is_string("/p/job.py", expand("/p/%p", &t),
		  "%%p names the script of an interpreted program");

	/* a process named with control characters: no forged log line, no EINVAL */
	t = task;
	t.exe = "/tmp/evil\nmoved pid 1 (init) to cpu:x";
	is_string("/p/evil_moved pid 1 (init) to cpu:x", expand("/p/%p", &t),
		  "a newline in %%p becomes '_'");
	t.exe = "/tmp/a\tb\rc\x1b[2Jd\x7f";
	is_string("/p/a_b_c_[2Jd_", expand("/p/%p", &t), "so do tab, CR, escape and DEL");
	t.exe = NULL;
	t.comm = "\n";
	is_string("/p/_", expand("/p/%p", &t), "a comm that is one newline");
	t = task;
	t.user = "bad\nuser";
	is_string("/u/bad_user", expand("/u/%u", &t), "user names too");
	t = task;
	t.script = "/x/job\n.py";
	t.invoked = "/x/other";
	is_string("/p/job_.py", expand("/p/%p", &t), "and scripts");
	t.script = NULL;
	is_string("/p/other", expand("/p/%p", &t), "%%p: the invoked name before exe");
	/* a long value is cut, with a hash of the whole (a unit name is at
	 * most 255 bytes, and systemd writes a byte it escapes as 4) */
	t = task;
	t.exe = "/x/a-program-with-a-name-of-sixty-characters-or-so-0123456789";
	const char *cut = expand("/p/%p", &t);
	ok(cut != NULL && strlen(cut) == 3 + 48 &&
		   strncmp(cut, "/p/a-program-with-a-name-of-sixty-~", 35) == 0,
	   "a value over 48 bytes keeps 31, then '~' and 16 hex digits: %s",
	   cut ? cut : "(none)");
	char first[RULES_DEST_MAX];
	snprintf(first, sizeof(first), "%s", cut ? cut : "");
	is_string(first, expand("/p/%p", &t), "the same name, the same group");
	t.exe = "/x/a-program-with-a-name-of-sixty-characters-or-so-012345678X";
	cut = expand("/p/%p", &t);
	ok(cut != NULL && strcmp(cut, first) != 0 && strncmp(cut, first, 35) == 0,
	   "a name that differs only after the cut has its own group");
	/* a program named like that cut value: it must not share its group */
	char named[RULES_DEST_MAX];
	snprintf(named, sizeof(named), "/x/%s", first + 3);
	t.exe = named;
	cut = expand("/p/%p", &t);
	ok(cut != NULL && strlen(cut) == 3 + 48 && strcmp(cut, first) != 0,
	   "a name shaped like an encoded one is encoded in turn, elsewhere: %s",
	   cut ? cut : "-");
	t.exe = "/x/a-name-like-a-hash~0123456789abcdeF";
	is_string("/p/a-name-like-a-hash~0123456789abcdeF", expand("/p/%p", &t),
		  "one with an uppercase digit is not shaped like one: left whole");
	t.exe = "/x/aa\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
	cut = expand("/p/%p", &t);
	ok(cut != NULL && strlen(cut) == 3 + 30 + 17 && cut[3 + 29] == '\xa9' &&
		   cut[3 + 30] == '~',
	   "a cut never splits a UTF-8 character (30 bytes kept, not 31)");
	t.exe = "/x/exactly-forty-eight-bytes-long-name-0123456789ab";
	is_string("/p/exactly-forty-eight-bytes-long-name-0123456789ab", expand("/p/%p", &t),
		  "a value of 48 bytes stays whole");

	/* names of cgroupfs control files: never the name of a group */
	static const char *const files[] = { "tasks", "cgroup.procs", "notify_on_release",
					     "cpu.shares", "memory.max", "release_agent" };
	bool all = true;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char want[64];
		t.exe = NULL;
		t.comm = files[i];
		cut = expand("/apps/%p", &t);
		snprintf(want, sizeof(want), "/apps/%s~", files[i]);
		if (cut == NULL || strncmp(cut, want, strlen(want)) != 0 ||
		    strlen(cut) != strlen(want) + 16) {
			diag("%s -> %s", files[i], cut ? cut : "-");
			all = false;
		}
	}
	ok(all, "a program named like a control file is encoded (tasks~..., cgroup.procs~...)");
	t.comm = "python3.11";
	is_string("/apps/python3.11", expand("/apps/%p", &t), "a dotted name of no controller is not");

	/* the hash is keyed: another installation, another name */
	static const unsigned char other[SIPHASH_KEY_LEN] = "fedcba9876543210";
	char a[RULES_DEST_MAX], b[RULES_DEST_MAX];
	t.comm = "tasks";
	ok(rules_expand("/%p", &t, key, a, sizeof(a)) == 0 &&
		   rules_expand("/%p", &t, other, b, sizeof(b)) == 0 && strcmp(a, b) != 0,
	   "the same value under another key: %s, %s", a, b);

	/* two long names whose 32-bit FNV-1a hashes collide (the old tail)
	 * no longer share a group */
	char n1[64], n2[64];
	ok(fnv_collision(n1, n2), "found two names with the same FNV-1a-32 hash");
	t.comm = n1;
	snprintf(a, sizeof(a), "%s", expand("/apps/%p", &t));
	t.comm = n2;
	ok(strcmp(a, expand("/apps/%p", &t)) != 0, "they get two groups: %s", a);
	is_int(-ENAMETOOLONG, rules_expand("/%u/%u", &task, key, buf, 8),
	       "too long: -ENAMETOOLONG");
	is_int(-ENAMETOOLONG, rules_expand("/abcdefgh", &task, key, buf, 4),
	       "too long literal");
	is_int(0, rules_expand("/abc", &task, key, buf, 5), "exact fit");
	is_int(-ENAMETOOLONG, rules_expand("/a%x", &task, key, buf, 4),
	       "an unknown template that does not fit");
	is_int(0, rules_expand("/a%x", &task, key, buf, 5), "one that just fits");

	/* the bound the unified layout checks its paths by (issue 32) */
	bool within = true;
	for (size_t i = 0; i < n; i++)
		if (rules_expand_max(cases[i].tmpl) < strlen(cases[i].want)) {
			diag("%s: %zu", cases[i].tmpl, rules_expand_max(cases[i].tmpl));
			within = false;
		}
	ok(within, "every expansion above is within rules_expand_max()");
	is_int(1 + 48 + 1 + 48 + 1 + 48 + 1 + 11 + 1 + 11 + 1 + 11 + 3,
	       (long long)rules_expand_max("/%u/%g/%p/%U/%G/%P\\%%x"),
	       "48 bytes for %%u %%g %%p, 11 for %%U %%G %%P, escapes as written");
	t = task;
	t.user = "a-user-name-of-sixty-bytes-that-is-cut-by-the-template-0123";
	t.exe = "/x/exactly-forty-eight-bytes-long-name-0123456789ab";
	t.euid = 4294967295u;
	t.pid = 2147483647;
	is_int((long long)rules_expand_max("/%u/%p/%U/%P") - 2,
	       (long long)strlen(expand("/%u/%p/%U/%P", &t)),
	       "the longest values fill it (but for the signs of the numbers)");
	return tap_done();
}
