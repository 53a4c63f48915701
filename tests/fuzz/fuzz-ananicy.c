/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-ananicy.c -- the ananicy-cpp reader (ananicy_add_buffer) on any
 * bytes, then ananicy_check and ananicy_resolve for every rule loaded.
 *
 * Invariants: every message starts with the file name and a line number
 * and has no control byte (it is one log line); the lines reported as
 * errors are the malformed count; every resolved value lies in its range
 * and names only fields that make sense together (ionice with a
 * realtime or best-effort class, rtprio with fifo or rr); a rule found
 * is the one resolve answers for.
 */
#include "fuzz.h"
#include "rules/ananicy.h"

#include <sched.h>
#include <string.h>

struct seen {
	size_t errors;
};

static void
report(void *arg, enum rules_severity sev, const char *msg)
{
	struct seen *s = arg;

	FUZZ_CHECK(strncmp(msg, "fuzz:", 5) == 0);
	FUZZ_CHECK(msg[5] >= '1' && msg[5] <= '9');
	for (const unsigned char *c = (const unsigned char *)msg; *c != '\0'; c++)
		FUZZ_CHECK(*c >= 0x20 && *c != 0x7f);
	if (sev == RULES_ERROR)
		s->errors++;
}

static void
check_rule(void *arg, const struct ananicy_entry *e)
{
	const struct ananicy_set *set = arg;
	const struct ananicy_entry *r;
	struct ananicy_values v;
	char buf[256];

	FUZZ_CHECK(e->line > 0 && e->key != NULL && e->key[0] != '\0');
	FUZZ_CHECK(ananicy_resolve(set, e->key, &v, &r) && r == e);
	if (v.set & ANANICY_NICE)
		FUZZ_CHECK(v.nice >= -20 && v.nice <= 19);
	if (v.set & ANANICY_LATENCY)
		FUZZ_CHECK(v.latency_nice >= -20 && v.latency_nice <= 19);
	if (v.set & ANANICY_IONICE)
		FUZZ_CHECK(v.ionice >= 0 && v.ionice <= 7 && (v.set & ANANICY_IOCLASS) &&
			   (v.ioclass == ANANICY_IOCLASS_RT || v.ioclass == ANANICY_IOCLASS_BE));
	if (v.set & ANANICY_RTPRIO)
		FUZZ_CHECK(v.rtprio >= 1 && v.rtprio <= 99 && (v.set & ANANICY_SCHED) &&
			   (v.sched == SCHED_FIFO || v.sched == SCHED_RR));
	if (v.set & ANANICY_OOM)
		FUZZ_CHECK(v.oom_score_adj >= -1000 && v.oom_score_adj <= 1000);
	if (v.set & ANANICY_CGROUP)
		FUZZ_CHECK(v.cgroup != NULL && v.cgroup[0] != '\0');
	FUZZ_CHECK(ananicy_format(&v, buf, sizeof(buf)) >= 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ananicy_set *s = ananicy_new();
	struct ananicy_counts n;
	struct seen seen = {0};

	FUZZ_CHECK(s != NULL);
	FUZZ_CHECK(ananicy_add_buffer(s, "fuzz", (const char *)data, size, report, &seen) == 0);
	ananicy_counts(s, &n);
	FUZZ_CHECK(n.malformed == seen.errors && n.files == 1);
	ananicy_check(s, report, &seen);
	ananicy_each(s, ANANICY_RULE, check_rule, s);
	ananicy_free(s);
	return 0;
}
