/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe.c -- the tiny program a benchmark storm executes.  It polls
 * /proc/self/cgroup until it sees itself in every expected group, then
 * writes one result record to fd 3 and exits.
 *
 * Usage: probe START_NS TIMEOUT_MS NAME=GROUP...
 *   START_NS   CLOCK_MONOTONIC time (ns) the spawner took just before
 *              exec, so the latency covers exec-to-classified
 *   NAME=GROUP e.g. "name=cgbench_a=/bench" -- hierarchy and path
 * The record is "<latency_us> <pid> <first_us> <seen_us>...\n", latency
 * -1 if never classified; first_us is when main() started (so with
 * TIMEOUT_MS 0, the one look being its first action, the record says
 * whether the process was in its groups at its start, and how long its
 * exec took); then, for each NAME=GROUP in order, when the probe first
 * saw itself there (-1 if never): with several daemons placing the same
 * probe into groups of their own, each one's latency.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#define MAX_WANT 64

/*
 * Note in seen[] when each expected "hier=path" pair first appears in
 * /proc/self/cgroup (t, in ns since START); return whether all have.
 */
static int
classified(char **want, int n, long long *seen, long long t)
{
	char buf[16384];
	int fd = open("/proc/self/cgroup", O_RDONLY);
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	int all = 1;
	for (int i = 0; i < n; i++) {
		char line[512];
		char *eq = strrchr(want[i], '=');

		if (seen[i] >= 0)
			continue;
		if (eq == NULL)
			return 0;
		snprintf(line, sizeof(line), ":%.*s:%s\n", (int)(eq - want[i]), want[i],
			 eq + 1);
		if (strstr(buf, line) != NULL)
			seen[i] = t;
		else
			all = 0;
	}
	return all;
}

int
main(int argc, char **argv)
{
	long long first = now_ns();

	if (argc < 4 || argc - 3 > MAX_WANT)
		return 2;
	long long start = atoll(argv[1]);
	long long deadline = start + atoll(argv[2]) * 1000000LL;
	long long lat = -1, seen[MAX_WANT];
	int nwant = argc - 3;
	struct timespec nap = { 0, 50000 }; /* 50 us between looks */

	for (int i = 0; i < nwant; i++)
		seen[i] = -1;
	for (;;) {
		long long t = now_ns();

		if (classified(argv + 3, nwant, seen, (t - start) / 1000)) {
			lat = (t - start) / 1000;
			break;
		}
		if (t > deadline)
			break;
		nanosleep(&nap, NULL);
	}
	char rec[96 + MAX_WANT * 24];
	int n = snprintf(rec, sizeof(rec), "%lld %d %lld", lat, (int)getpid(),
			 (first - start) / 1000);
	for (int i = 0; i < nwant; i++)
		n += snprintf(rec + n, sizeof(rec) - (size_t)n, " %lld", seen[i]);
	n += snprintf(rec + n, sizeof(rec) - (size_t)n, "\n");
	if (write(3, rec, (size_t)n) != n)
		return 1;
	return 0;
}
