/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-statefile.c -- the boost state file parser (statefile_parse) on
 * any bytes, then a round trip: the records it accepted are written by
 * statefile_format and parsed again.
 *
 * Invariants: every delivered record passes the checks the daemon
 * relies on (id in range and not seen before, destination accepted by
 * rules_dest_problem() without blanks, expiry capped, 1..max distinct
 * members with pids in range; a sticky process's pid in range and not
 * seen before, its flags known); every message starts with "name:";
 * the round trip gives back exactly the same records.
 */
#include "engined/core/statefile.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#define NOW	1700000000
#define MAX_SEC (365L * 86400)

struct copy {
	struct statefile_record r;
	char *hier, *dest, *profile;
	struct statefile_member *m;
};

struct seen {
	struct copy *v;
	size_t n, cap;
	size_t next; /* for the writer's iterator */
	struct statefile_sticky *st; /* sticky processes */
	size_t nst, capst, nextst;
};

static void
message(void *arg, const char *msg)
{
	FUZZ_CHECK(strncmp(msg, "fuzz.state:", 11) == 0);
}

static int
cmp_pid(const void *a, const void *b)
{
	pid_t x = ((const struct statefile_member *)a)->pid;
	pid_t y = ((const struct statefile_member *)b)->pid;

	return (x > y) - (x < y);
}

static void
check_record(const struct statefile_record *r)
{
	FUZZ_CHECK(r->id >= 1 && r->id <= STATEFILE_ID_MAX);
	FUZZ_CHECK(r->owner != (uid_t)-1 && r->expires <= NOW + MAX_SEC);
	FUZZ_CHECK(rules_dest_problem(r->dest) == NULL && !strpbrk(r->dest, " \t\n"));
	FUZZ_CHECK(strlen(r->hier) <= STATEFILE_NAME_MAX);
	FUZZ_CHECK(r->profile == NULL || (r->profile[0] && strlen(r->profile) <= 255));
	FUZZ_CHECK(r->n >= 1 && r->n <= STATEFILE_MAX_MEMBERS);
	struct statefile_member *m = malloc(r->n * sizeof(*m));
	FUZZ_CHECK(m != NULL);
	memcpy(m, r->m, r->n * sizeof(*m));
	qsort(m, r->n, sizeof(*m), cmp_pid);
	for (size_t i = 0; i < r->n; i++) {
		FUZZ_CHECK(m[i].pid >= 1 && m[i].pid <= STATEFILE_PID_MAX);
		FUZZ_CHECK(i == 0 || m[i].pid != m[i - 1].pid);
	}
	free(m);
}

static int
keep(void *arg, const struct statefile_record *r)
{
	struct seen *s = arg;

	check_record(r);
	for (size_t i = 0; i < s->n; i++) /* inputs are small: quadratic is fine */
		FUZZ_CHECK(s->v[i].r.id != r->id);
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		FUZZ_CHECK(s->v != NULL);
	}
	struct copy *c = &s->v[s->n++];
	c->r = *r;
	c->hier = strdup(r->hier);
	c->dest = strdup(r->dest);
	c->profile = r->profile ? strdup(r->profile) : NULL;
	c->m = malloc(r->n * sizeof(*c->m));
	FUZZ_CHECK(c->hier && c->dest && (c->profile || !r->profile) && c->m);
	memcpy(c->m, r->m, r->n * sizeof(*c->m));
	c->r.hier = c->hier;
	c->r.dest = c->dest;
	c->r.profile = c->profile;
	c->r.m = c->m;
	return 0;
}

static int
keep_sticky(void *arg, const struct statefile_sticky *st)
{
	struct seen *s = arg;

	FUZZ_CHECK(st->who.pid >= 1 && st->who.pid <= STATEFILE_PID_MAX);
	FUZZ_CHECK((st->flags & ~STATEFILE_STICKY_FLAGS) == 0);
	for (size_t i = 0; i < s->nst; i++)
		FUZZ_CHECK(s->st[i].who.pid != st->who.pid);
	if (s->nst == s->capst) {
		s->capst = s->capst ? s->capst * 2 : 8;
		s->st = realloc(s->st, s->capst * sizeof(*s->st));
		FUZZ_CHECK(s->st != NULL);
	}
	s->st[s->nst++] = *st;
	return 0;
}

static const struct statefile_record *
next(void *arg)
{
	struct seen *s = arg;

	return s->next < s->n ? &s->v[s->next++].r : NULL;
}

static const struct statefile_sticky *
next_sticky(void *arg)
{
	struct seen *s = arg;

	return s->nextst < s->nst ? &s->st[s->nextst++] : NULL;
}

static bool
same(const struct statefile_record *a, const struct statefile_record *b)
{
	if (a->id != b->id || a->owner != b->owner || a->expires != b->expires ||
	    strcmp(a->hier, b->hier) != 0 || strcmp(a->dest, b->dest) != 0 ||
	    (a->profile == NULL) != (b->profile == NULL) ||
	    (a->profile != NULL && strcmp(a->profile, b->profile) != 0) || a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) /* field by field: the struct has padding */
		if (a->m[i].pid != b->m[i].pid || a->m[i].start != b->m[i].start)
			return false;
	return true;
}

static void
free_seen(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].hier);
		free(s->v[i].dest);
		free(s->v[i].profile);
		free(s->v[i].m);
	}
	free(s->v);
	free(s->st);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report rep = { .fn = message };
	struct seen first = { 0 }, again = { 0 };
	struct statefile_parse_options o = { .name = "fuzz.state",
					     .now = NOW,
					     .max_seconds = MAX_SEC,
					     .record = keep,
					     .sticky = keep_sticky,
					     .arg = &first,
					     .rep = &rep };
	char *buf;
	size_t len;

	int n = statefile_parse((const char *)data, size, &o);
	FUZZ_CHECK(n >= 0 && (size_t)n == first.n + first.nst);
	struct statefile_source src = { .boost = next, .sticky = next_sticky, .arg = &first };
	FUZZ_CHECK(statefile_format(&src, "fuzz.state", &rep, &buf, &len) == 0);
	o.arg = &again;
	FUZZ_CHECK(statefile_parse(buf, len, &o) == n);
	for (size_t i = 0; i < first.n; i++)
		FUZZ_CHECK(same(&first.v[i].r, &again.v[i].r));
	FUZZ_CHECK(again.nst == first.nst);
	for (size_t i = 0; i < first.nst; i++)
		FUZZ_CHECK(first.st[i].who.pid == again.st[i].who.pid &&
			   first.st[i].who.start == again.st[i].who.start &&
			   first.st[i].flags == again.st[i].flags);
	free(buf);
	free_seen(&first);
	free_seen(&again);
	return 0;
}
