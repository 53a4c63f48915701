/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicybench.c -- loading an ananicy-cpp corpus: the time to read DIR
 * (the best and the median of ROUNDS loads), the memory one loaded set
 * holds (resident set before and after, with the set kept), and the
 * time of one look-up of a process name (hits and misses).
 *
 *   bench/ananicybench DIR [ROUNDS]
 */
#include "rules/ananicy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Resident set in KiB, from /proc/self/status. */
static long
rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = strtol(line + 6, NULL, 10);
	if (f != NULL)
		fclose(f);
	return kib;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct ananicy_set *
load(const char *dir, double *secs)
{
	struct ananicy_set *s = ananicy_new();
	double t0 = now();

	if (s == NULL || ananicy_add_dir(s, dir, NULL, NULL) != 0) {
		fprintf(stderr, "ananicybench: cannot load %s\n", dir);
		exit(1);
	}
	*secs = now() - t0;
	return s;
}

struct names {
	const char **v;
	size_t n;
};

static void
collect(void *arg, const struct ananicy_entry *e)
{
	struct names *nm = arg;

	nm->v[nm->n++] = e->key;
}

/* ns per ananicy_resolve of names that have a rule, and of names that do not */
static void
lookups(const struct ananicy_set *s, double *hit_ns, double *miss_ns)
{
	struct ananicy_counts c;
	struct ananicy_values v;
	struct names nm = {0};
	char miss[64];
	unsigned long found = 0;

	ananicy_counts(s, &c);
	nm.v = calloc(c.rules + 1, sizeof(*nm.v));
	if (nm.v == NULL)
		exit(1);
	ananicy_each(s, ANANICY_RULE, collect, &nm);
	double t0 = now();
	for (int r = 0; r < 20; r++)
		for (size_t i = 0; i < nm.n; i++)
			found += ananicy_resolve(s, nm.v[i], &v, NULL);
	*hit_ns = (now() - t0) * 1e9 / (20.0 * (double)(nm.n ? nm.n : 1));
	t0 = now();
	for (unsigned long i = 0; i < 200000; i++) {
		snprintf(miss, sizeof(miss), "kworker-%lu", i);
		found += ananicy_resolve(s, miss, &v, NULL);
	}
	*miss_ns = (now() - t0) * 1e9 / 200000.0;
	if (found != 20 * nm.n)
		fprintf(stderr, "ananicybench: %lu look-ups found, %zu expected\n", found,
			20 * nm.n);
	free(nm.v);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ananicybench DIR [ROUNDS]\n");
		return 2;
	}
	int rounds = argc > 2 ? atoi(argv[2]) : 20;
	double *t = calloc((size_t)(rounds > 0 ? rounds : 1), sizeof(*t));
	struct ananicy_counts c;
	double hit, miss;

	if (rounds < 1 || t == NULL)
		return 2;
	long rss0 = rss_kib();
	struct ananicy_set *kept = load(argv[1], &t[0]);
	long rss1 = rss_kib();
	for (int i = 1; i < rounds; i++)
		ananicy_free(load(argv[1], &t[i]));
	ananicy_counts(kept, &c);
	lookups(kept, &hit, &miss);
	qsort(t, (size_t)rounds, sizeof(*t), cmp_double);
	printf("rules=%zu types=%zu cgroups=%zu files=%zu skipped=%zu\n", c.rules, c.types,
	       c.cgroups, c.files, c.malformed);
	printf("load_ms_best=%.1f load_ms_median=%.1f rounds=%d\n", t[0] * 1e3,
	       t[rounds / 2] * 1e3, rounds);
	printf("rss_kib_before=%ld rss_kib_loaded=%ld set_kib=%ld\n", rss0, rss1, rss1 - rss0);
	printf("lookup_ns_hit=%.0f lookup_ns_miss=%.0f\n", hit, miss);
	ananicy_free(kept);
	free(t);
	return 0;
}
