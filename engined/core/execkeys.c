/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * execkeys.c -- which execs can change a process's placement: the keys
 * the eBPF event source's filter drops every other exec by (kernel.h's
 * struct execkeys).  A pure function of the rules and of what else in
 * the policy decides at an exec; the loop hands the result to the
 * kernel at start and after every reload.
 *
 * A rule can decide an exec only through its key -- a user (uid, and
 * matched against euid), a group (gid, the members' uids) -- or its
 * process field (a name, a path's base name).  The filter is an "or" of
 * them all: an exec that passes may still match no rule (the daemon
 * reads it and does nothing), one that does not pass matches none.
 * Where no such key can be named every exec passes ("wide"):
 *   - a rule for every user ("*") without a process field that may
 *     move (an ignore rule never does): it matches any exec;
 *   - a process field with a pattern ("*", "?", "[...]");
 *   - Lua hooks (lua-script): the hook sees, and may place, every process;
 *   - a unified-layout: a process no rule names goes to each dimension's
 *     default, so the exec of another program can move it back;
 *   - more than EXECKEYS_ANAMES_MAX rule names in ananicy-dir.
 * ananicy's rules match by argv[0]'s last part (a Wine program's
 * "Game.exe"), whole: their names are keys as hashes (anames), which
 * the program compares with the hash of the name ananicy-cpp would
 * match the exec by.
 * Processes the daemon tracks (boosts, sticky, the exec gate's pending
 * placements) pass by their pid (bpfexec_track), not by these keys.
 */
#include "core_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
execkeys_free(struct execkeys *k)
{
	free(k->uids);
	free(k->gids);
	free(k->names);
	free(k->anames);
	memset(k, 0, sizeof(*k));
}

/* Append v to *arr (n of cap); 0 or -ENOMEM. */
static int
push(void **arr, size_t *n, size_t *cap, size_t size, const void *v)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *p = realloc(*arr, ncap * size);

		if (p == NULL)
			return -ENOMEM;
		*arr = p;
		*cap = ncap;
	}
	memcpy((char *)*arr + *n * size, v, size);
	(*n)++;
	return 0;
}

struct building {
	struct execkeys *k;
	size_t capu, capg, capn, capa;
	int rc; /* of add_aname, through ananicy_each */
};

static int
add_uid(struct building *b, uid_t uid)
{
	return push((void **)&b->k->uids, &b->k->nuids, &b->capu, sizeof(uid), &uid);
}

static int
add_gid(struct building *b, gid_t gid)
{
	return push((void **)&b->k->gids, &b->k->ngids, &b->capg, sizeof(gid), &gid);
}

/* The base name of process field f, cut as the kernel cuts comm. */
static int
add_name(struct building *b, const char *f)
{
	char name[EXECKEYS_NAME_LEN] = "";
	const char *base = strrchr(f, '/');

	strncpy(name, base != NULL ? base + 1 : f, sizeof(name) - 1);
	if (name[0] == '\0')
		return 0;
	return push((void **)&b->k->names, &b->k->nnames, &b->capn, sizeof(name), name);
}

/* ananicy_each's callback: the hash of one ananicy rule's name. */
static void
add_aname(void *arg, const struct ananicy_entry *e)
{
	struct building *b = arg;
	uint64_t h = execkeys_hash(e->key, strlen(e->key));

	if (b->rc == 0)
		b->rc = push((void **)&b->k->anames, &b->k->nanames, &b->capa, sizeof(h), &h);
}

/* The names of ananicy's rules; 0 or -ENOMEM.  Too many: wide. */
static int
ananicy_keys(struct building *b, const struct ananicy_set *s)
{
	ananicy_each(s, ANANICY_RULE, add_aname, b);
	if (b->rc == 0 && b->k->nanames > EXECKEYS_ANAMES_MAX) {
		b->k->wide = true;
		snprintf(b->k->why, sizeof(b->k->why),
			 "ananicy-dir: more than %d rule names", EXECKEYS_ANAMES_MAX);
	}
	return b->rc;
}

/* Every exec passes because of rule r: say why. */
static void
widen(struct execkeys *k, const struct rules_rule *r, const char *what)
{
	k->wide = true;
	snprintf(k->why, sizeof(k->why), "%s:%u: %s", r->file, r->line, what);
}

/* The keys of one rule; 0 or -ENOMEM. */
static int
rule_keys(struct building *b, const struct rules_rule *r)
{
	bool moves = (r->options & (RULES_OPT_IGNORE | RULES_OPT_IGNORE_RT)) == 0;

	if (r->continuation) /* its head's keys select it */
		return 0;
	if (r->process != NULL && rules_pattern(r)) {
		widen(b->k, r, "a pattern in the process field");
		return 0;
	}
	if (r->process != NULL) {
		b->k->scripts = true;
		return add_name(b, r->process);
	}
	switch (r->kind) {
	case RULES_KEY_USER:
		return add_uid(b, (uid_t)r->id);
	case RULES_KEY_GROUP:
		return add_gid(b, (gid_t)r->id);
	case RULES_KEY_ANY:
		if (moves)
			widen(b->k, r, "a rule for every user and program");
		return 0;
	}
	return 0;
}

int
execkeys_build(const struct rules_set *rules, const struct execkeys_policy *pol,
	       struct execkeys *out)
{
	struct building b = { .k = out };
	size_t nmembers;
	const uid_t *members = rules_members(rules, &nmembers);
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (pol->hooks)
		snprintf(out->why, sizeof(out->why),
			 "lua-script: the hook sees every process");
	else if (pol->layout)
		snprintf(out->why, sizeof(out->why),
			 "unified-layout: a process no rule names goes to the defaults");
	out->wide = pol->hooks || pol->layout;
	if (!out->wide && pol->ananicy != NULL)
		rc = ananicy_keys(&b, pol->ananicy);
	for (size_t i = 0; rc == 0 && !out->wide && i < rules_count(rules); i++)
		rc = rule_keys(&b, rules_get(rules, i));
	for (size_t i = 0; rc == 0 && !out->wide && i < nmembers; i++)
		rc = add_uid(&b, members[i]);
	if (rc < 0 || out->wide) {
		char why[sizeof(out->why)];

		memcpy(why, out->why, sizeof(why));
		execkeys_free(out);
		memcpy(out->why, why, sizeof(why));
		out->wide = rc == 0;
	}
	return rc;
}
