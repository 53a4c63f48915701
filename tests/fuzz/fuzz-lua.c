/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-lua.c -- the Lua helper's messages on any bytes.  The helper
 * process runs the hook and is not trusted, so its answer goes through
 * hooks_answer_parse(), the pure function the daemon calls; the same
 * bytes also go through wire_get_call(), which the helper uses to read
 * the daemon's requests.
 *
 * Invariants for an answer: the result is 0, -ECANCELED or -EPROTO;
 * the slots sent are never written; on 0 every chosen destination is
 * NUL-terminated, free of control characters and accepted by
 * rules_dest_problem(), `changed` says exactly what differs, and
 * the slots written again (wire_put_answer) read back the same; a
 * failure report
 * carries no control character; a refusal says why.  For a call: on
 * success every slot names a hierarchy and a destination that fits.
 */
#include "fuzz.h"
#include "lua/hooks.h"
#include "lua/hooks_private.h"
#include "rules/rules.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NSLOTS 4

static const char *const hier_names[NSLOTS] = { "cpu,cpuacct", "net_cls", "name=classes",
						"memory" };

static void
fill_slots(struct hooks_slot *s)
{
	memset(s, 0, NSLOTS * sizeof(*s));
	for (size_t i = 0; i < NSLOTS; i++)
		s[i].hier = hier_names[i];
	s[0].set = true;
	strcpy(s[0].dest, "/students");
	s[0].why = "cgrules.conf:4";
	s[2].set = true;
	strcpy(s[2].dest, "/batch/1002");
	s[2].why = "cgrules.conf:8";
}

static void
check_answer(size_t size, const struct hooks_slot *in, const struct hooks_slot *out)
{
	unsigned char *again = malloc(HOOKS_MSG_MAX);
	struct wbuf w = { .p = again, .cap = HOOKS_MSG_MAX };

	FUZZ_CHECK(again != NULL);
	for (size_t i = 0; i < NSLOTS; i++) {
		const struct hooks_slot *s = &out[i], *b = &in[i];
		bool differs =
			s->set != b->set || (s->set && strcmp(s->dest, b->dest) != 0);

		FUZZ_CHECK(s->hier == b->hier && s->why == b->why &&
			   s->changed == differs);
		if (!s->set)
			continue;
		FUZZ_CHECK(memchr(s->dest, '\0', sizeof(s->dest)) != NULL);
		FUZZ_CHECK(rules_dest_problem(s->dest) == NULL);
		for (const char *c = s->dest; *c; c++)
			FUZZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f);
	}
	/* written again and read back, the answer is the same (the bytes
	 * may differ: any non-zero byte marks a string as present) */
	struct hooks_slot back[NSLOTS];
	char err[256];
	wire_put_answer(&w, out, NSLOTS);
	FUZZ_CHECK(!w.full && w.len <= size);
	FUZZ_CHECK(hooks_answer_parse(again, w.len, in, back, NSLOTS, err, sizeof(err)) ==
		   0);
	for (size_t i = 0; i < NSLOTS; i++)
		FUZZ_CHECK(back[i].set == out[i].set &&
			   back[i].changed == out[i].changed &&
			   strcmp(back[i].dest, out[i].dest) == 0);
	free(again);
}

static void
answer(const uint8_t *data, size_t size)
{
	struct hooks_slot in[NSLOTS], copy[NSLOTS], out[NSLOTS];
	char err[256];

	fill_slots(in);
	memcpy(copy, in, sizeof(in));
	int rc = hooks_answer_parse(data, size, in, out, NSLOTS, err, sizeof(err));
	FUZZ_CHECK(memcmp(copy, in, sizeof(in)) == 0);
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	switch (rc) {
	case 0:
		check_answer(size, in, out);
		break;
	case -ECANCELED:
		for (const char *c = err; *c; c++)
			FUZZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f);
		break;
	case -EPROTO:
		FUZZ_CHECK(err[0] != '\0');
		break;
	default:
		FUZZ_CHECK(!"hooks_answer_parse: unexpected result");
	}
}

static void
call(const uint8_t *data, size_t size)
{
	struct rbuf r = { .p = data, .len = size };
	struct hooks_task t;
	gid_t *groups = NULL;
	struct hooks_slot *slots = NULL;
	size_t nslots = 0, n = 0;

	if (wire_get_call(&r, &t, &groups, &slots, &nslots, &n) == 0) {
		FUZZ_CHECK(n <= nslots && t.comm != NULL && t.exe != NULL);
		for (size_t i = 0; i < n; i++) {
			FUZZ_CHECK(slots[i].hier != NULL);
			FUZZ_CHECK(!slots[i].set ||
				   strlen(slots[i].dest) < HOOKS_DEST_MAX);
		}
	}
	free(groups);
	free(slots);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	answer(data, size);
	call(data, size);
	return 0;
}
