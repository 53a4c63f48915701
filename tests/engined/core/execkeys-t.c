/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * execkeys-t.c -- the eBPF filter's keys from the rules (execkeys.c),
 * without root or a kernel: which uids, gids and names a rule set
 * names, and which rules and settings make every exec pass.
 */
#include "engined/core/core.h"
#include "rules/ananicy.h"
#include "tests/rules/fake.h"
#include "tests/tap/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct execkeys k;
static const struct execkeys_policy plain;

/* The keys of text under policy pol (first-match when fm). */
static void
build(const char *text, const struct execkeys_policy *pol, bool fm)
{
	struct rules_set *set =
		fake_load(text, fm ? RULES_FIRST_MATCH : RULES_PER_HIERARCHY, NULL);

	if (set == NULL)
		bail("rules did not load: %s", text);
	execkeys_free(&k);
	if (execkeys_build(set, pol, &k) < 0)
		bail("execkeys_build failed");
	rules_free(set);
}

static bool
has_uid(uid_t u)
{
	for (size_t i = 0; i < k.nuids; i++)
		if (k.uids[i] == u)
			return true;
	return false;
}

static bool
has_gid(gid_t g)
{
	for (size_t i = 0; i < k.ngids; i++)
		if (k.gids[i] == g)
			return true;
	return false;
}

static bool
has_name(const char *n)
{
	for (size_t i = 0; i < k.nnames; i++)
		if (strcmp(k.names[i], n) == 0)
			return true;
	return false;
}

static bool
has_aname(const char *n)
{
	for (size_t i = 0; i < k.nanames; i++)
		if (k.anames[i] == execkeys_hash(n, strlen(n)))
			return true;
	return false;
}

/* An ananicy set of text (one file). */
static struct ananicy_set *
ananicy_of(const char *text)
{
	struct ananicy_set *s = ananicy_new();

	if (s == NULL || ananicy_add_buffer(s, "t.rules", text, strlen(text), NULL, NULL) < 0)
		bail("ananicy set did not load");
	return s;
}

static void
ananicy_cases(void)
{
	/* the filter's hash is 64-bit FNV-1a (the BPF program's) */
	is_int((long long)0xcbf29ce484222325ULL, (long long)execkeys_hash("", 0), "hash of nothing");
	is_int((long long)0xaf63dc4c8601ec8cULL, (long long)execkeys_hash("a", 1), "hash of \"a\"");
	is_int((long long)0x85944171f73967e8ULL, (long long)execkeys_hash("foobar", 6),
	       "hash of \"foobar\"");
	ok(execkeys_hash("foobar", 3) == execkeys_hash("foo", 3), "up to n bytes");
	ok(execkeys_hash("foo\0bar", 7) == execkeys_hash("foo", 3), "or to the first NUL");

	struct ananicy_set *s = ananicy_of(
		"{\"type\": \"Game\", \"nice\": -5}\n"
		"{\"name\": \"Hogwarts Legacy.exe\", \"type\": \"Game\"}\n"
		"{\"name\": \"a-program-name-longer-than-comm\", \"nice\": 3}\n"
		"{\"cgroup\": \"cpu80\", \"CPUQuota\": 80}\n");
	build("alice cpu /a\n", &(struct execkeys_policy){ .ananicy = s }, false);
	ok(!k.wide, "ananicy's rules: the filter stays narrow");
	is_int(2, (long long)k.nanames, "one key per rule name, none for types or cgroups");
	ok(has_aname("Hogwarts Legacy.exe") && has_aname("a-program-name-longer-than-comm"),
	   "each name whole, spaces and all, as ananicy-cpp matches it");
	ok(!has_aname("a-program-name-") && !has_aname("Game"), "not cut to comm's 15 bytes");
	ok(has_uid(1000), "cgrules.conf's keys stay beside them");
	ananicy_free(s);

	/* more names than the program's map holds: every exec passes */
	struct strbuf many = {0};
	for (int i = 0; i <= EXECKEYS_ANAMES_MAX; i++)
		strbuf_printf(&many, "{\"name\": \"cgt-prog-%d\", \"nice\": 1}\n", i);
	s = ananicy_of(many.p);
	build("alice cpu /a\n", &(struct execkeys_policy){ .ananicy = s }, false);
	ok(k.wide && k.nanames == 0, "more than EXECKEYS_ANAMES_MAX names: wide, no keys");
	char want[80];
	snprintf(want, sizeof(want), "ananicy-dir: more than %d rule names", EXECKEYS_ANAMES_MAX);
	is_string(want, k.why, "saying why");
	ananicy_free(s);
	strbuf_free(&many);
}

int
main(void)
{
	plan(39);

	build("alice cpu /a\n@students cpu /s\n", &plain, false);
	ok(!k.wide, "user and group rules: a filter");
	ok(has_uid(1000), "alice's uid is a key");
	ok(has_gid(500), "the group's gid is a key");
	ok(has_uid(1002), "so is its listed member carol's uid");
	is_int(2, (long long)k.nuids, "and no other uid");
	is_int(0, (long long)k.nnames, "no name");
	ok(!k.scripts, "no rule names a program: interpreters are not let through");

	build("*:firefox cpu /f\nbob:/usr/lib/chromium/chromium cpu /c\n"
	      "*:a-name-longer-than-fifteen cpu /l\n",
	      &plain, false);
	ok(!k.wide, "rules for programs: a filter");
	ok(has_name("firefox"), "a name is a key");
	ok(has_name("chromium"), "a path's base name is");
	ok(has_name("a-name-longer-t"), "cut to 15 bytes, as the kernel cuts comm");
	ok(!has_uid(1001), "a user's rule for a program needs only the program's name");
	ok(k.scripts, "a rule names a program: interpreters pass (it may name a script)");

	build("alice cpu /a\n% memory /a\n", &plain, true);
	ok(!k.wide && k.nuids == 1, "a continuation adds nothing to its head's keys");

	build("alice cpu /a\n* cpu /rest\n", &plain, false);
	ok(k.wide, "a rule for every user and program: every exec passes");
	is_string("t.conf:2: a rule for every user and program", k.why, "saying which");
	is_int(0, (long long)k.nuids, "with no keys");

	build("alice cpu /a\n* cpu /rest ignore,ignore_rt\n", &plain, false);
	ok(!k.wide, "a catch-all ignore rule moves nothing: still a filter");

	build("*:fire* cpu /f\n", &plain, false);
	ok(k.wide, "a pattern: every exec passes");
	is_string("t.conf:1: a pattern in the process field", k.why, "saying which");

	build("alice cpu /a\n", &(struct execkeys_policy){ .hooks = true }, false);
	ok(k.wide, "Lua hooks: every exec passes");
	is_string("lua-script: the hook sees every process", k.why, "saying why");

	build("alice cpu /a\n", &(struct execkeys_policy){ .layout = true }, false);
	ok(k.wide, "a unified-layout: every exec passes");
	is_string("unified-layout: a process no rule names goes to the defaults", k.why,
		  "saying why");

	ananicy_cases();

	build("", &plain, false);
	ok(!k.wide && k.nuids + k.ngids + k.nnames == 0, "no rules: no exec passes");

	build("alice cpu /a\n", &plain, false);
	struct execkeys first = k;
	memset(&k, 0, sizeof(k));
	build("bob cpu /b\n", &plain, false);
	ok(has_uid(1001) && !has_uid(1000), "a new rule set: its own keys only");
	ok(first.nuids == 1 && first.uids[0] == 1000, "the old ones are untouched");
	execkeys_free(&first);
	execkeys_free(&k);
	return tap_done();
}
