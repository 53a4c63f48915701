/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * confbench.c -- the cost of loading cgengined.conf with many group
 * sections: config_load() alone, and the whole policy (what a start or
 * a reload builds while the loop waits) over a mount table naming one
 * v1 cpu hierarchy.  CPU time of the process (a loaded machine changes
 * it less than the clock), best of three runs per size; the figure to
 * read is the cost per section and its ratio between sizes (flat =
 * linear).
 * Usage: confbench [SIZE...]   (default 1000 5000 10000 20000)
 */
#include "engined/core/core_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
quiet(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "confbench: %s\n", msg);
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* A config with n group sections, each with a setting. */
static void
write_config(const char *path, const char *rules, size_t n)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		perror(path);
		exit(1);
	}
	fprintf(f, "rules = \"%s\"\nrules-dir = \"\"\nhierarchies = {\"cpu\"}\n", rules);
	for (size_t i = 0; i < n; i++)
		fprintf(f,
			"group \"cpu:/bench/g%zu\" {\n    set = {\"cpu.shares=%zu\"}\n}\n",
			i, 2 + i % 1000);
	if (fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* Seconds for the best of three loads (policy or config alone). */
static double
best_of_three(const char *conf, const char *mountinfo, bool whole)
{
	struct report rep = { .fn = quiet, .warn = quiet };
	struct overrides ov = { .config = conf, .config_explicit = true };
	double best = 1e9;

	for (int r = 0; r < 3; r++) {
		double t0 = now();
		if (whole) {
			struct policy *p = policy_build(&ov, mountinfo, "/proc", &rep);
			if (p == NULL)
				exit(1);
			policy_free(p);
		} else {
			struct config *c = config_load(conf, false, &rep);
			if (c == NULL)
				exit(1);
			config_free(c);
		}
		double t = now() - t0;
		best = t < best ? t : best;
	}
	return best;
}

int
main(int argc, char **argv)
{
	static const size_t defaults[] = { 1000, 5000, 10000, 20000 };
	char dir[] = "/tmp/confbench.XXXXXX", conf[64], rules[64], mi[64];

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(conf, sizeof(conf), "%s/cgengined.conf", dir);
	snprintf(rules, sizeof(rules), "%s/cgrules.conf", dir);
	snprintf(mi, sizeof(mi), "%s/mountinfo", dir);
	write_file(rules, "");
	write_file(mi, "30 25 0:26 / /sys/fs/cgroup/cpu rw,relatime shared:10 - cgroup "
		       "cgroup rw,cpu,cpuacct\n");
	if (log_open("stderr", LOG_LEVEL_ERROR) < 0)
		return 1;
	size_t n = argc > 1 ? (size_t)argc - 1 : sizeof(defaults) / sizeof(defaults[0]);
	double first = 0;
	printf("%8s %14s %14s %12s %12s\n", "SECTIONS", "CONFIG_CPU_MS", "POLICY_CPU_MS",
	       "US/SECTION", "VS_FIRST");
	for (size_t i = 0; i < n; i++) {
		size_t size = argc > 1 ? strtoul(argv[i + 1], NULL, 10) : defaults[i];

		write_config(conf, rules, size);
		double c = best_of_three(conf, mi, false);
		double p = best_of_three(conf, mi, true);
		double per = p / (double)size * 1e6;
		if (i == 0)
			first = per;
		printf("%8zu %14.1f %14.1f %12.2f %11.2fx\n", size, c * 1e3, p * 1e3, per,
		       per / first);
	}
	unlink(conf);
	unlink(rules);
	unlink(mi);
	rmdir(dir);
	return 0;
}
