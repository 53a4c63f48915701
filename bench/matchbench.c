/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * matchbench.c -- microbenchmarks of the matcher (classifications per
 * second for 10 to 100,000 rules, the deciding rule last) and of the
 * proc connector decoder.  Usage: matchbench [ITERATIONS]
 */
#include "kernel/kernel.h"
#include "rules/rules.h"

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Names "uN" are uid N: no NSS involved, as in a real load (done once). */
static int
user(void *arg, const char *name, uid_t *uid)
{
	*uid = (uid_t)strtoul(name + 1, NULL, 10);
	return 0;
}

static int
group(void *arg, const char *name, gid_t *gid, uid_t **m, size_t *n)
{
	*m = NULL;
	*n = 0;
	*gid = (gid_t)strtoul(name + 1, NULL, 10);
	return 0;
}

static const struct rules_names names = { .user = user, .group = group };

static void
bench_rules(size_t nrules, long iters)
{
	size_t cap = nrules * 64 + 64, len = 0;
	char *text = malloc(cap);
	const char *hiers[] = { "name=a", "name=b" };

	/* other users' rules (with and without a process), a few globs, then ours */
	for (size_t i = 0; i + 1 < nrules; i++) {
		if (i % 3 == 0)
			len += (size_t)snprintf(text + len, cap - len,
						"u%zu name=a /g%zu\n", i + 100, i);
		else if (i % 3 == 1)
			len += (size_t)snprintf(text + len, cap - len,
						"u%zu:prog%zu name=a,name=b /p%zu\n",
						i + 100, i, i);
		else
			len += (size_t)snprintf(text + len, cap - len,
						"@g%zu:/opt/x%zu/* name=b /x%zu\n",
						i + 100, i, i);
	}
	len += (size_t)snprintf(text + len, cap - len, "u5 name=a,name=b /bench\n");

	struct rules_options o = { .file = "bench.conf", .names = &names };
	double t0 = now();
	struct rules_set *s = rules_parse_buffer("bench.conf", text, len, &o);
	double load = now() - t0;
	if (s == NULL || rules_bind(s, hiers, 2) < 0) {
		fprintf(stderr, "cannot load %zu rules\n", nrules);
		exit(1);
	}
	gid_t groups[] = { 5, 27, 100 };
	struct rules_task t = { .pid = 4242,
				.uid = 5,
				.euid = 5,
				.gid = 5,
				.egid = 5,
				.groups = groups,
				.ngroups = 3,
				.exe = "/usr/local/bin/probe",
				.comm = "probe" };
	struct rules_decision d[2];
	t0 = now();
	for (long i = 0; i < iters; i++)
		rules_match(s, &t, d);
	double secs = now() - t0;
	if (!d[0].move || strcmp(d[0].dest, "/bench") != 0) {
		fprintf(stderr, "wrong decision\n");
		exit(1);
	}
	printf("rules=%-7zu load_ms=%-8.1f match_ns=%-8.0f matches_per_sec=%.0f\n",
	       nrules, load * 1e3, secs / iters * 1e9, iters / secs);
	rules_free(s);
	free(text);
}

static void
bench_decoder(long iters)
{
	char buf[256] = { 0 };
	struct nlmsghdr nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) +
							 sizeof(struct proc_event)),
			       .nlmsg_type = NLMSG_DONE };
	struct cn_msg cn = { .id = { CN_IDX_PROC, CN_VAL_PROC },
			     .len = sizeof(struct proc_event) };
	struct proc_event ev = { .what = PROC_EVENT_EXEC };
	struct procev_event out[4];

	ev.event_data.exec.process_pid = ev.event_data.exec.process_tgid = 77;
	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
	memcpy(buf + NLMSG_HDRLEN + sizeof(cn), &ev, sizeof(ev));
	double t0 = now();
	int sum = 0;
	for (long i = 0; i < iters; i++)
		sum += procev_decode(buf, nh.nlmsg_len, 0, out, 4);
	double secs = now() - t0;
	printf("decoder: decode_ns=%.1f decodes_per_sec=%.0f (checksum %d)\n",
	       secs / iters * 1e9, iters / secs, sum);
}

int
main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 200000;
	size_t sizes[] = { 10, 1000, 10000, 100000 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bench_rules(sizes[i], iters);
	bench_decoder(iters * 10);
	return 0;
}
