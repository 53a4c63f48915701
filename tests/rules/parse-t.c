/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse-t.c -- tests for rules/parse.c: the cgrules.conf grammar and
 * its error messages, asserted exactly; unknown templates per semantics.
 */
#include "fake.h"
#include "tests/tap/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bad_case {
	const char *text;
	const char *msg; /* the one message expected */
};

static const struct bad_case bad[] = {
	{ "alice cpu\n",
	  "t.conf:1: expected '<key> <controllers> <destination> [<options>]'" },
	{ "alice\n",
	  "t.conf:1: expected '<key> <controllers> <destination> [<options>]'" },
	{ "\n# c\nalice cpu /a ignore extra\n",
	  "t.conf:3: unexpected text 'extra' after options" },
	{ "alice cpu /a bogus\n", "t.conf:1: unknown option 'bogus'" },
	{ "alice cpu /a ignore,bogus\n", "t.conf:1: unknown option 'bogus'" },
	{ "% cpu /a\n", "t.conf:1: '%' continuation without a preceding rule" },
	{ "\"alice cpu /a\n", "t.conf:1: unterminated quote" },
	{ "alice: cpu /a\n", "t.conf:1: empty process name" },
	{ "@ cpu /a\n", "t.conf:1: empty group name" },
	{ ":foo cpu /a\n", "t.conf:1: empty user name" },
	{ "alice cpu,,mem /a\n", "t.conf:1: invalid controller ''" },
	{ "alice CPU! /a\n", "t.conf:1: invalid controller 'CPU!'" },
	{ "alice name= /a\n", "t.conf:1: invalid controller 'name='" },
	{ "alice cpu /a/../b\n", "t.conf:1: destination must not contain '..'" },
	{ "alice cpu ..\n", "t.conf:1: destination must not contain '..'" },
	/* escapes are taken out before the check: "\.\." is ".." */
	{ "alice cpu /\\.\\./x\n", "t.conf:1: destination must not contain '..'" },
	{ "alice cpu /a/\\..\n", "t.conf:1: destination must not contain '..'" },
	{ "alice cpu /a/%x\n", "t.conf:1: unknown template '%x' in destination" },
	{ "alice cpu /a/%\n", "t.conf:1: unknown template '% ' in destination" },
	{ "alice cpu /a%%u\n", "t.conf:1: unknown template '%%' in destination" },
	{ "alice cpu /a\\\n", "t.conf:1: trailing backslash in destination" },
	{ "alice cpu /a\n%:vi cpu /b\n",
	  "t.conf:2: '%' takes its process from the rule it continues" },
	{ "alice cpu /a\x00x\n", "t.conf:1: line contains a NUL byte" },
	/* libcgroup refuses a quoted controllers or options field */
	{ "alice \"cpu\" /a\n", "t.conf:1: the controllers field cannot be quoted" },
	{ "alice cpu /a \"ignore\"\n", "t.conf:1: the options field cannot be quoted" },
	/* empty items are skipped ("ignore," is valid), but not all of them */
	{ "alice cpu /a ,\n", "t.conf:1: no option in ','" },
	{ "alice cpu /a ,,\n", "t.conf:1: no option in ',,'" },
	{ "alice cpu /a\x01b\n",
	  "t.conf:1: destination must not contain control characters" },
	{ "alice cpu \"/a\tb\"\n",
	  "t.conf:1: destination must not contain control characters" },
};

struct warn_case {
	const char *text;
	const char *msg;
	size_t rules; /* rules loaded despite the warning */
};

static const struct warn_case warn[] = {
	{ "nobody cpu /a\n% net_cls /b\nalice cpu /c\n",
	  "t.conf:1: warning: unknown user 'nobody'; rule skipped", 1 },
	{ "@nogroup cpu /a\n%\tcpu /b\n% cpu /c\nbob cpu /d\n",
	  "t.conf:1: warning: unknown group 'nogroup'; rule skipped", 1 },
	{ "alice cpu /a\nghost:vim * /b\n% * /c\n",
	  "t.conf:2: warning: unknown user 'ghost'; rule skipped", 1 },
	{ "ioerr cpu /a\n% cpu /b\nalice cpu /c\n",
	  "t.conf:1: warning: cannot look up user 'ioerr': Input/output error; rule skipped",
	  1 },
	{ "alice cpu /a\n% cpu /b ignore\n",
	  "t.conf:2: warning: options on a '%' line have no effect; the rule's first line decides",
	  2 },
	{ "alice cpu /a ignore\n% cpu /b\n",
	  "t.conf:2: warning: '%' line of an ignore rule is never applied", 2 },
};

static void
test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fake_log log;
		const char *t = bad[i].text;
		size_t len = strlen(t);
		struct rules_options o = { .file = "t.conf",
					   .names = &fake_names,
					   .report = fake_report,
					   .report_arg = &log };

		if (strstr(bad[i].msg, "NUL") != NULL)
			len = strlen(t) + 3; /* the text holds a NUL */
		log.n = 0;
		struct rules_set *s = rules_parse_buffer("t.conf", t, len, &o);
		ok(s == NULL, "bad input %zu is refused", i);
		is_int(1, log.n, "bad input %zu gives one message", i);
		is_string(bad[i].msg, log.n > 0 ? log.msg[0] : NULL,
			  "bad input %zu message", i);
		rules_free(s);
	}
}

static void
test_warn(void)
{
	for (size_t i = 0; i < sizeof(warn) / sizeof(warn[0]); i++) {
		struct fake_log log;
		struct rules_set *s = fake_load(warn[i].text, RULES_PER_HIERARCHY, &log);

		ok(s != NULL, "warning case %zu still loads", i);
		is_int(1, log.n, "warning case %zu: one message", i);
		is_string(warn[i].msg, log.n ? log.msg[0] : NULL,
			  "warning case %zu message", i);
		is_int((long long)warn[i].rules, s ? (long long)rules_count(s) : -1,
		       "warning case %zu: other rules kept", i);
		rules_free(s);
	}
}

/*
 * First-match loads what libcgroup loads: an unknown template is a
 * warning, and the destination is kept as written (a '%' and the
 * character after it stay together, so "%%u" holds no template).
 */
static void
test_fm_templates(void)
{
	static const struct {
		const char *text, *msg, *dest;
		bool templated;
	} c[] = {
		{ "alice cpu /a/%x\n",
		  "t.conf:1: warning: unknown template '%x' in destination; copied as written",
		  "/a/%x", false },
		{ "alice cpu a/%\n",
		  "t.conf:1: warning: '%' at the end of the destination; copied as written",
		  "/a/%", false },
		{ "alice cpu /a%%u\n",
		  "t.conf:1: warning: unknown template '%%' in destination; copied as written",
		  "/a%%u", false },
		{ "\nalice cpu /%u/%y\n",
		  "t.conf:2: warning: unknown template '%y' in destination; copied as written",
		  "/%u/%y", true },
		{ "alice cpu /lit\\%e\n", NULL, "/lit\\%e", false },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fake_log log;
		struct rules_set *s = fake_load(c[i].text, RULES_FIRST_MATCH, &log);
		const struct rules_rule *r = s ? rules_get(s, 0) : NULL;

		ok(r != NULL, "first-match loads %s", c[i].dest);
		is_int(c[i].msg ? 1 : 0, log.n, "... with %s warning",
		       c[i].msg ? "one" : "no");
		is_string(c[i].msg, log.n ? log.msg[0] : NULL,
			  "... which reads as expected");
		is_string(c[i].dest, r ? r->dest : NULL, "... dest kept as written");
		is_int(c[i].templated, r ? r->templated : -1, "... %s",
		       c[i].templated ? "templated" : "not templated");
		rules_free(s);
	}
	/* a warning does not hide an error in the same file */
	struct fake_log log;
	struct rules_set *s =
		fake_load("alice cpu /%x\nalice cpu /a bogus\n", RULES_FIRST_MATCH, &log);
	ok(s == NULL && log.n == 2, "an unknown option still fails the load");
	is_string("t.conf:2: unknown option 'bogus'", log.n == 2 ? log.msg[1] : NULL,
		  "... with its own message after the warning");
	rules_free(s);
}

static void
test_fields(void)
{
	struct fake_log log;
	const char *text = "# the university\n"
			   "\n"
			   "  alice\tcpu,memory\t/profs   # trailing comment\n"
			   "@students:firefox net_cls /www\n"
			   "%  cpu  students/%u\n"
			   "*:/usr/bin/nfs* name=classes /nfs ignore_rt,ignore,\n"
			   "\"prof:my prog\" cpu \"/with space\"\n"
			   "bob:vi * /x#comment right after\n";
	struct rules_set *s = fake_load(text, RULES_PER_HIERARCHY, &log);
	const struct rules_rule *r;

	if (!ok(s != NULL, "the sample file loads"))
		bail("cannot go on: %s", log.n ? log.msg[0] : "?");
	is_int(0, log.n, "no messages");
	is_int(6, (long long)rules_count(s), "six rules");

	r = rules_get(s, 0);
	is_int(3, r->line, "rule 0 line");
	is_int(RULES_KEY_USER, r->kind, "rule 0 is a user rule");
	is_int(1000, r->id, "rule 0 uid");
	is_string("cpu,memory", r->controllers, "rule 0 controllers");
	is_string("/profs", r->dest, "rule 0 dest");
	ok(r->process == NULL, "rule 0 has no process");

	r = rules_get(s, 1);
	is_int(RULES_KEY_GROUP, r->kind, "rule 1 is a group rule");
	is_int(500, r->id, "rule 1 gid");
	is_string("students", r->key, "rule 1 key");
	is_string("firefox", r->process, "rule 1 process");
	is_int(0, r->options, "rule 1 has no option");

	r = rules_get(s, 2);
	ok(r->continuation, "rule 2 continues");
	is_string("firefox", r->process, "rule 2 inherits the process");
	is_int(500, r->id, "rule 2 inherits the key");
	is_string("/students/%u", r->dest, "relative dest gets a leading slash");
	ok(r->templated, "rule 2 is templated");

	r = rules_get(s, 3);
	is_int(RULES_KEY_ANY, r->kind, "rule 3 is '*'");
	is_string("/usr/bin/nfs*", r->process, "rule 3 path pattern");
	is_string("name=classes", r->controllers, "named hierarchy");
	is_int(RULES_OPT_IGNORE | RULES_OPT_IGNORE_RT, r->options,
	       "two options and a trailing comma");

	r = rules_get(s, 4);
	is_string("my prog", r->process, "quoted key with a blank");
	is_string("/with space", r->dest, "quoted destination");
	is_string("t.conf", r->file, "file name kept");
	rules_free(s);
	(void)0;
}

static void
test_nasty(void)
{
	struct fake_log log;
	size_t big = 1 << 20;
	char *text = malloc(big + 64);
	struct rules_set *s;

	/* one very long line */
	memset(text, 'a', big);
	memcpy(text + big, " cpu /x\n", 9);
	s = fake_load(text, RULES_PER_HIERARCHY, &log);
	ok(s == NULL && log.n == 1, "a 1 MiB user name is an error");
	is_string("t.conf:1: user name too long (1048576 bytes, at most 255)",
		  log.n ? log.msg[0] : NULL, "which says so, without the name");
	rules_free(s);

	/* binary junk of every byte value except newline and NUL */
	for (size_t i = 0; i < 4096; i++) {
		unsigned char c = (unsigned char)(i * 131 + 7);
		text[i] = c == 0 ? 1 : (char)c;
	}
	text[4096] = '\0';
	s = fake_load(text, RULES_PER_HIERARCHY, &log);
	ok(log.n > 0, "binary junk is reported, not crashed on");
	rules_free(s);

	s = fake_load("", RULES_PER_HIERARCHY, &log);
	ok(s != NULL && rules_count(s) == 0 && log.n == 0, "empty text is valid");
	rules_free(s);
	s = fake_load("%\n", RULES_PER_HIERARCHY, &log);
	ok(s == NULL && log.n == 1, "a lone %% at the top is an error");
	rules_free(s);
	s = fake_load("alice cpu /a", RULES_PER_HIERARCHY, &log);
	ok(s != NULL && rules_count(s) == 1, "no final newline is fine");
	rules_free(s);
	s = fake_load("alice cpu /a\r\n", RULES_PER_HIERARCHY, &log);
	ok(s != NULL && strcmp(rules_get(s, 0)->dest, "/a") == 0,
	   "CRLF line ends are blanks");
	rules_free(s);
	s = fake_load("a b c d e f g h\nalice cpu /a bad\n", RULES_PER_HIERARCHY, &log);
	is_int(2, log.n, "every bad line is reported, not just the first");
	rules_free(s);
	free(text);
}

/* Option lists as libcgroup's strtok() reads them. */
static void
test_options(void)
{
	static const struct {
		const char *text;
		unsigned want;
	} c[] = {
		{ "alice cpu /a ignore,\n", RULES_OPT_IGNORE },
		{ "alice cpu /a ,ignore\n", RULES_OPT_IGNORE },
		{ "alice cpu /a ignore,,ignore_rt\n",
		  RULES_OPT_IGNORE | RULES_OPT_IGNORE_RT },
		{ "alice cpu /a ignore_rt,\n", RULES_OPT_IGNORE_RT },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fake_log log;
		struct rules_set *s = fake_load(c[i].text, RULES_FIRST_MATCH, &log);

		is_int(c[i].want, s ? (long long)rules_get(s, 0)->options : -1,
		       "options of '%.*s'", (int)strlen(c[i].text) - 1, c[i].text);
		ok(s != NULL && rules_need_cgroups(s),
		   "... which needs the current groups");
		rules_free(s);
	}
	struct fake_log log;
	struct rules_set *s = fake_load("alice cpu /a\n%  memory /b\n*:sh cpu /c\n",
					RULES_FIRST_MATCH, &log);
	ok(s != NULL && !rules_need_cgroups(s), "rules without ignore do not");
	rules_free(s);
}

/* Which credential changes can change a decision. */
static void
test_ids(void)
{
	static const struct {
		const char *text;
		unsigned want;
	} c[] = {
		{ "*:sh cpu /a\n* memory /b\n", 0 },
		{ "alice cpu /a\n", RULES_NEED_UID },
		{ "@students cpu /a\n", RULES_NEED_UID | RULES_NEED_GID },
		{ "*:sh cpu /a/%u\n", RULES_NEED_UID },
		{ "*:sh cpu /a\n%  memory /%u\n", RULES_NEED_UID },
		{ "* cpu /by-gid/%G\n", RULES_NEED_GID },
		{ "* cpu /%p/%P\n", 0 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fake_log log;
		struct rules_set *s = fake_load(c[i].text, RULES_PER_HIERARCHY, &log);

		is_int(c[i].want, s ? (long long)rules_need_ids(s) : -1,
		       "ids needed by '%.*s'", (int)strcspn(c[i].text, "\n"), c[i].text);
		rules_free(s);
	}
}

static int asked;

static int
count_user(void *arg, const char *name, uid_t *uid)
{
	asked++;
	return fake_names.user(arg, name, uid);
}

static int
count_group(void *arg, const char *name, gid_t *gid, uid_t **m, size_t *n)
{
	asked++;
	return fake_names.group(arg, name, gid, m, n);
}

/*
 * A 4 MiB name never reaches NSS (nss-systemd asserts on the length and
 * aborts the daemon): it is an error naming file and line.
 */
static void
test_long_names(void)
{
	static const struct rules_names counting = { .user = count_user,
						     .group = count_group };
	size_t big = 4u << 20;
	char *text = malloc(big + 64);
	struct fake_log log = { .n = 0 };
	struct rules_options o = { .file = "t.conf",
				   .names = &counting,
				   .report = fake_report,
				   .report_arg = &log };

	memcpy(text, "alice cpu /ok\n", 14);
	memset(text + 14, 'u', big);
	memcpy(text + 14 + big, " cpu /x\n", 9);
	asked = 0;
	struct rules_set *s = rules_parse_buffer("t.conf", text, strlen(text), &o);
	ok(s == NULL, "a 4 MiB user name fails the load");
	is_string("t.conf:2: user name too long (4194304 bytes, at most 255)",
		  log.n ? log.msg[0] : NULL, "message names file and line");
	is_int(1, asked, "the resolver was asked about alice only");

	text[14] = '@'; /* line 2 becomes "@uuu...u cpu /x" */
	log.n = 0;
	asked = 0;
	s = rules_parse_buffer("t.conf", text, strlen(text), &o);
	is_string("t.conf:2: group name too long (4194303 bytes, at most 255)",
		  log.n ? log.msg[0] : NULL, "a long group name too");
	is_int(1, asked, "and it is not looked up either");

	char name[300];
	memset(name, 'n', 255);
	snprintf(name + 255, sizeof(name) - 255, " cpu /x\n");
	log.n = 0;
	asked = 0;
	s = rules_parse_buffer("t.conf", name, strlen(name), &o);
	ok(s != NULL && log.n == 1 && asked == 1,
	   "a 255-byte name is asked about (and unknown here)");
	rules_free(s);
	free(text);
}

static void
test_missing_file(void)
{
	struct fake_log log = { .n = 0 };
	struct rules_options o = { .file = "/nonexistent/cgrules.conf",
				   .names = &fake_names,
				   .report = fake_report,
				   .report_arg = &log };
	struct rules_set *s = rules_load(&o);

	ok(s == NULL, "a missing main file is an error");
	is_string("/nonexistent/cgrules.conf: cannot open: No such file or directory",
		  log.n ? log.msg[0] : NULL, "missing file message");
}

/* %p is the process's name whatever else the file holds: a destination
 * with it needs the names as much as a process field does. */
static void
test_need_process(void)
{
	static const struct {
		const char *text;
		bool want;
	} c[] = {
		{ "alice cpu /a/%u\n", false },
		{ "alice cpu /a/\\%p\n", false }, /* an escaped '%' */
		{ "alice cpu /a/%p\n", true },
		{ "alice cpu /a\n%  memory /b/%p\n", true },
		{ "alice:sh cpu /a\n", true },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fake_log log;
		struct rules_set *s = fake_load(c[i].text, RULES_PER_HIERARCHY, &log);

		ok(s != NULL && rules_need_process(s) == c[i].want, "'%.*s' %s the names",
		   (int)strcspn(c[i].text, "\n"), c[i].text, c[i].want ? "needs" : "does not need");
		rules_free(s);
	}
}

int
main(void)
{
	plan(29 * 3 + 6 * 4 + 5 * 5 + 2 + 26 + 8 + 4 * 2 + 1 + 6 + 2 + 5 + 7);
	test_bad();
	test_warn();
	test_fm_templates();
	test_fields();
	test_nasty();
	test_options();
	test_ids();
	test_long_names();
	test_missing_file();
	test_need_process();
	return tap_done();
}
