/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * template-t.c -- tests for rules/template.c: every template, escapes,
 * unknown templates kept as written, values made safe as one path
 * component, and the length limit.
 */
#include "rules/rules.h"
#include "tests/tap/tap.h"

#include <errno.h>
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

static const char *
expand(const char *tmpl, const struct rules_task *t)
{
	static char out[RULES_DEST_MAX];

	return rules_expand(tmpl, t, out, sizeof(out)) == 0 ? out : NULL;
}

int
main(void)
{
	char buf[RULES_DEST_MAX];
	size_t n = sizeof(cases) / sizeof(cases[0]);

	plan((int)n + 21);
	for (size_t i = 0; i < n; i++) {
		int rc = rules_expand(cases[i].tmpl, &task, buf, sizeof(buf));
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
	is_string("/k/_", expand("/k/%p", &t), "'..' as a value becomes '_'");

	t = task;
	t.user = "";
	is_string("/u/_", expand("/u/%u", &t), "an empty value becomes '_'");

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
		   strncmp(cut, "/p/a-program-with-a-name-of-sixty-characte~", 43) == 0,
	   "a value over 48 bytes keeps 39, then '~' and a hash: %s", cut ? cut : "(none)");
	char first[RULES_DEST_MAX];
	snprintf(first, sizeof(first), "%s", cut ? cut : "");
	is_string(first, expand("/p/%p", &t), "the same name, the same group");
	t.exe = "/x/a-program-with-a-name-of-sixty-characters-or-so-012345678X";
	cut = expand("/p/%p", &t);
	ok(cut != NULL && strcmp(cut, first) != 0 && strncmp(cut, first, 42) == 0,
	   "a name that differs only after the cut has its own group");
	t.exe = "/x/aa\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
	cut = expand("/p/%p", &t);
	ok(cut != NULL && strlen(cut) == 3 + 38 + 9 && cut[3 + 37] == '\xa9' &&
		   cut[3 + 38] == '~',
	   "a cut never splits a UTF-8 character (38 bytes kept, not 39)");
	t.exe = "/x/exactly-forty-eight-bytes-long-name-0123456789ab";
	is_string("/p/exactly-forty-eight-bytes-long-name-0123456789ab", expand("/p/%p", &t),
		  "a value of 48 bytes stays whole");
	is_int(-ENAMETOOLONG, rules_expand("/%u/%u", &task, buf, 8),
	       "too long: -ENAMETOOLONG");
	is_int(-ENAMETOOLONG, rules_expand("/abcdefgh", &task, buf, 4),
	       "too long literal");
	is_int(0, rules_expand("/abc", &task, buf, 5), "exact fit");
	is_int(-ENAMETOOLONG, rules_expand("/a%x", &task, buf, 4),
	       "an unknown template that does not fit");
	is_int(0, rules_expand("/a%x", &task, buf, 5), "one that just fits");
	return tap_done();
}
