/*
 * fuzz-answer.c -- the daemon's check of what the Lua helper process
 * answers (hooks_answer_parse): the helper runs untrusted hooks, so its
 * answers are untrusted bytes.  The input is the whole message.
 *
 * Invariants: a message is accepted, refused as malformed, or reported
 * as a hook failure -- nothing else; on acceptance every chosen
 * destination is absolute, without "..", without control characters,
 * shorter than HOOKS_DEST_MAX and accepted by rules_dest_problem(), and
 * `changed` says exactly what differs from the slots sent; the slots
 * sent are never written.
 */
#include "fuzz.h"
#include "lua/hooks.h"
#include "rules/rules.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NSLOTS 3

static const char *const hiers[NSLOTS] = { "cpu,cpuacct", "net_cls", "unified" };

static bool
clean(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hooks_slot in[NSLOTS], keep[NSLOTS], out[NSLOTS];
	char err[256];

	for (size_t i = 0; i < NSLOTS; i++) {
		in[i] = (struct hooks_slot){ .hier = hiers[i], .set = i != 1, .why = NULL };
		snprintf(in[i].dest, sizeof(in[i].dest), "/class%zu", i);
	}
	memcpy(keep, in, sizeof(in));
	int rc = hooks_answer_parse(data, size, in, out, NSLOTS, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -ECANCELED || rc == -EPROTO);
	FUZZ_CHECK(memcmp(keep, in, sizeof(in)) == 0);
	if (rc != 0) {
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL && clean(err));
		return 0;
	}
	for (size_t i = 0; i < NSLOTS; i++) {
		bool differs = out[i].set != in[i].set ||
			       (out[i].set && strcmp(out[i].dest, in[i].dest) != 0);

		FUZZ_CHECK(out[i].changed == differs);
		if (!out[i].set)
			continue;
		FUZZ_CHECK(memchr(out[i].dest, '\0', HOOKS_DEST_MAX) != NULL);
		FUZZ_CHECK(out[i].dest[0] == '/' && clean(out[i].dest));
		FUZZ_CHECK(rules_dest_problem(out[i].dest) == NULL);
	}
	return 0;
}
