/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loadgen.c -- a fork/exec storm for benchmarking a classification
 * daemon.  Keeps CONCURRENCY spawners busy until COUNT probes ran, each
 * as the test user; collects every probe's exec-to-classified latency;
 * reads the daemon's CPU time and RSS before and after.
 *
 * Usage: loadgen -d DAEMON_PID -u UID -g GID -n COUNT -c CONCURRENCY
 *                [-t TIMEOUT_MS] [-p PROBE] [-i SECONDS] [-k K] [-s PATH]
 *                NAME=GROUP...
 * Prints one line of key=value results (and a second, start_*: from
 * fork to the probe's main()).
 *
 * With -k, the NAME=GROUP arguments are taken K at a time, one daemon's
 * groups each (daemons side by side, each placing the probes into
 * hierarchies of its own): a third line gives each daemon's own
 * percentiles, a probe's latency for a daemon being when it had seen
 * itself in all of that daemon's groups -- group_p50_us=A,B,...
 * group_p99_us=A,B,... in the order of the arguments.
 *
 * The daemon also serves every other process on the machine, and on a
 * busy machine their execs are part of its CPU time during the storm.
 * With -i, loadgen then idles as long as the storm took (at most
 * SECONDS) and measures the daemon's CPU time meanwhile: idle_us_per_exec
 * is that rate over the storm's duration, per probe -- the background's
 * share, to be subtracted (net_us_per_exec).  wakeups_per_exec counts the
 * times the daemon went to sleep (voluntary context switches), per
 * probe, and net_wakeups_per_exec the same less the idle spell's rate.
 *
 * With -s PATH the first CONCURRENCY children start together: each,
 * once it is the test user, waits until all of them are forked and
 * PATH exists, then execs (a burst of CONCURRENCY execs at once; the
 * latency counts from there).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WANT 64 /* as many NAME=GROUP as the probe takes */

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * A number of each of pid's threads, summed over them: the first in
 * /proc/PID/task/TID/leaf, or with key the one after the line starting
 * with key.  -1 if no thread told it.
 */
static long long
tasks_sum(pid_t pid, const char *leaf, const char *key)
{
	char path[128], line[256];
	size_t klen = key ? strlen(key) : 0;
	long long sum = -1;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		long long v;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/%s", (int)pid, de->d_name, leaf);
		if ((f = fopen(path, "r")) == NULL)
			continue; /* the thread ended meanwhile */
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, key ? key : "", klen) == 0) {
				if (sscanf(line + klen, "%lld", &v) == 1)
					sum = (sum < 0 ? 0 : sum) + v;
				break;
			}
		fclose(f);
	}
	closedir(d);
	return sum;
}

/*
 * CPU time of pid in nanoseconds, every thread of it (the daemon reads
 * command lines in worker threads): the scheduler's exact run time from
 * each /proc/PID/task/TID/schedstat, or utime + stime (clock-tick
 * sampled, the whole process) without them.
 */
static long long cpu_ticks(pid_t pid);

static long long
cpu_ns(pid_t pid)
{
	long long run = tasks_sum(pid, "schedstat", NULL);

	if (run >= 0)
		return run;
	long long t = cpu_ticks(pid);
	return t < 0 ? -1 : t * (1000000000LL / sysconf(_SC_CLK_TCK));
}

/* utime + stime of pid, in clock ticks. */
static long long
cpu_ticks(pid_t pid)
{
	char path[64], buf[2048];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *s = strrchr(buf, ')');
	unsigned long long ut = 0, st = 0;
	/* fields after ')': state(3) ... utime(14) stime(15) */
	if (s == NULL ||
	    sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
		   &st) != 2)
		return -1;
	return (long long)(ut + st);
}

/* Times pid's threads went to sleep (voluntary context switches): its
 * wake-ups. */
static long long
sleeps(pid_t pid)
{
	return tasks_sum(pid, "status", "voluntary_ctxt_switches:");
}

static long
rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

/* The probes' records, read as they come: a storm's fill more than a pipe. */
struct records {
	char *text;
	size_t len, cap;
};

/* Read what the pipe holds now (its read end is non-blocking). */
static void
drain(int fd, struct records *r)
{
	for (;;) {
		if (r->cap - r->len < 4096) {
			size_t cap = r->cap ? r->cap * 2 : 65536;
			char *t = realloc(r->text, cap);
			if (t == NULL)
				return;
			r->text = t;
			r->cap = cap;
		}
		ssize_t got = read(fd, r->text + r->len, r->cap - r->len - 1);
		if (got <= 0)
			return;
		r->len += (size_t)got;
		r->text[r->len] = '\0';
	}
}

/*
 * Read a probe's record: latency, pid, start (*nfields says how many of
 * these three were there) and the per-group times after them, folded
 * k at a time into glat[j] (the latest of a group's, -1 if one never
 * came).
 */
static void
parse_record(const char *line, long long rec[3], int *nfields, int k, int ngroups,
	     long long *glat)
{
	char *end;
	const char *s = line;
	int i = 0;

	*nfields = 0;
	for (; i < 3; i++) {
		long long v = strtoll(s, &end, 10);
		if (end == s)
			return;
		rec[i] = v;
		*nfields = i + 1;
		s = end;
	}
	for (int j = 0; j < ngroups; j++) {
		long long worst = 0;
		for (int m = 0; m < k; m++) {
			long long v = strtoll(s, &end, 10);
			if (end == s)
				v = -1;
			s = end;
			worst = (v < 0 || worst < 0) ? -1 : (v > worst ? v : worst);
		}
		glat[j] = worst;
	}
}

/* Sort v (n values, -1 = never: counted as the timeout) for percentiles. */
static void
sort_latencies(long long *v, int n, int timeout_ms)
{
	for (int i = 0; i < n; i++)
		if (v[i] < 0)
			v[i] = (long long)timeout_ms * 1000 + 1;
	qsort(v, (size_t)n, sizeof(*v), cmp_ll);
}

int
main(int argc, char **argv)
{
	pid_t daemon = 0;
	uid_t uid = 0;
	gid_t gid = 0;
	int count = 1000, conc = 8, timeout = 1000, k = 0, ch;
	double idle_max = 0;
	const char *probe = "./probe", *gopath = NULL;

	while ((ch = getopt(argc, argv, "d:u:g:n:c:t:p:i:k:s:")) != -1) {
		switch (ch) {
		case 'k':
			k = atoi(optarg);
			break;
		case 's':
			gopath = optarg;
			break;
		case 'i':
			idle_max = atof(optarg);
			break;
		case 'd':
			daemon = atoi(optarg);
			break;
		case 'u':
			uid = (uid_t)atoi(optarg);
			break;
		case 'g':
			gid = (gid_t)atoi(optarg);
			break;
		case 'n':
			count = atoi(optarg);
			break;
		case 'c':
			conc = atoi(optarg);
			break;
		case 't':
			timeout = atoi(optarg);
			break;
		case 'p':
			probe = optarg;
			break;
		default:
			return 2;
		}
	}
	int nwant = argc - optind;
	if (daemon <= 0 || nwant < 1 || nwant > MAX_WANT || count < 1 || conc < 1 || k < 0 ||
	    (k > 0 && nwant % k != 0)) {
		fprintf(stderr, "usage: loadgen -d PID -u UID -g GID -n N -c C [-t MS] [-p PROBE] "
				"[-i S] [-k K] [-s PATH] NAME=GROUP...\n");
		return 2;
	}
	int ngroups = k > 0 ? nwant / k : 0;
	long long *glat = calloc((size_t)ngroups * (size_t)count + 1, sizeof(*glat));
	int p[2], go[2] = { -1, -1 };
	struct records recs = { 0 };
	if (pipe(p) < 0 || fcntl(p[0], F_SETFL, O_NONBLOCK) < 0)
		return 1;
	if (gopath != NULL && pipe2(go, O_CLOEXEC) < 0)
		return 1;
	long long *lat = calloc((size_t)count, sizeof(*lat));
	long long *first = calloc((size_t)count, sizeof(*first));
	char tmo[16];
	snprintf(tmo, sizeof(tmo), "%d", timeout);

	long long cpu0 = cpu_ns(daemon), sl0 = sleeps(daemon);
	if (cpu0 < 0) {
		fprintf(stderr, "loadgen: daemon pid %d is not running\n", (int)daemon);
		return 1;
	}
	long long t0 = now_ns();
	int started = 0, running = 0, done = 0;
	while (done < count) {
		while (running < conc && started < count) {
			char start[32];
			snprintf(start, sizeof(start), "%lld", now_ns());
			pid_t pid = fork();
			if (pid == 0) {
				dup2(p[1], 3);
				if (setgroups(0, NULL) < 0 ||
				    setresgid(gid, gid, gid) < 0 ||
				    setresuid(uid, uid, uid) < 0)
					_exit(3);
				if (go[1] >= 0) { /* until the spawner closes it */
					char c;
					close(go[1]);
					while (read(go[0], &c, 1) < 0 && errno == EINTR)
						;
					snprintf(start, sizeof(start), "%lld", now_ns());
				}
				char **args = calloc((size_t)nwant + 4, sizeof(char *));
				args[0] = (char *)probe;
				args[1] = start;
				args[2] = tmo;
				for (int i = 0; i < nwant; i++)
					args[3 + i] = argv[optind + i];
				execv(probe, args);
				_exit(4);
			}
			if (pid > 0) {
				started++;
				running++;
			}
		}
		if (go[1] >= 0) { /* the first children wait: let them go */
			struct timespec ms = { 0, 1000000 };
			while (access(gopath, F_OK) != 0)
				nanosleep(&ms, NULL);
			close(go[1]);
			close(go[0]);
			go[1] = -1;
		}
		drain(p[0], &recs);
		if (waitpid(-1, NULL, 0) > 0) {
			running--;
			done++;
		}
	}
	long long t1 = now_ns();
	close(p[1]);
	drain(p[0], &recs);
	close(p[0]);
	int n = 0, ok = 0, nfirst = 0;
	long long g[MAX_WANT];
	for (char *line = recs.text, *nl; line != NULL && n < count; line = nl ? nl + 1 : NULL) {
		long long rec[3];
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		int got;
		parse_record(line, rec, &got, ngroups ? k : 0, ngroups, g);
		if (got < 2)
			continue;
		for (int j = 0; j < ngroups; j++)
			glat[(size_t)j * (size_t)count + (size_t)n] = g[j];
		lat[n++] = rec[0];
		if (rec[0] >= 0)
			ok++;
		if (got == 3)
			first[nfirst++] = rec[2];
	}
	long long cpu1 = cpu_ns(daemon), sl1 = sleeps(daemon);
	double idle_us = 0, idle_sl = 0;
	if (idle_max > 0) { /* the background's rate, over as long as the storm */
		double storm = (double)(t1 - t0) / 1e9, want = storm < idle_max ? storm : idle_max;
		long long i0 = now_ns(), c0 = cpu_ns(daemon), s0 = sleeps(daemon);
		struct timespec ts = { .tv_sec = (time_t)want,
				       .tv_nsec = (long)((want - (double)(time_t)want) * 1e9) };
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		double idle = (double)(now_ns() - i0) / 1e9;
		idle_us = (double)(cpu_ns(daemon) - c0) / 1e3 * storm / idle;
		idle_sl = (double)(sleeps(daemon) - s0) * storm / idle;
	}

	/* percentiles over classified probes; unclassified ones count as the timeout */
	sort_latencies(lat, n, timeout);
	qsort(first, (size_t)nfirst, sizeof(*first), cmp_ll);
	double secs = (double)(t1 - t0) / 1e9;
	double cpu_us = (double)(cpu1 - cpu0) / 1e3;
	printf("count=%d classified=%d pct=%.1f p50_us=%lld p90_us=%lld p99_us=%lld max_us=%lld "
	       "rate=%.0f cpu_us_per_exec=%.1f rss_kib=%ld secs=%.2f idle_us_per_exec=%.1f "
	       "net_us_per_exec=%.1f wakeups_per_exec=%.2f net_wakeups_per_exec=%.2f\n",
	       n, ok, n ? 100.0 * ok / n : 0.0, n ? lat[n / 2] : 0,
	       n ? lat[n * 9 / 10] : 0, n ? lat[n * 99 / 100] : 0, n ? lat[n - 1] : 0,
	       n / secs, n ? cpu_us / n : 0.0, rss_kib(daemon), secs, n ? idle_us / n : 0.0,
	       n ? (cpu_us - idle_us) / n : 0.0, n ? (double)(sl1 - sl0) / n : 0.0,
	       n ? ((double)(sl1 - sl0) - idle_sl) / n : 0.0);
	/* exec to the probe's main(): what an exec costs the process */
	if (nfirst > 0)
		printf("start_p50_us=%lld start_p90_us=%lld start_p99_us=%lld\n",
		       first[nfirst / 2], first[nfirst * 9 / 10], first[nfirst * 99 / 100]);
	/* each daemon's own, side by side */
	if (ngroups > 0 && n > 0) {
		const char *sep = "";
		printf("group_p50_us=");
		for (int j = 0; j < ngroups; j++) {
			long long *v = glat + (size_t)j * (size_t)count;
			sort_latencies(v, n, timeout);
			printf("%s%lld", sep, v[n / 2]);
			sep = ",";
		}
		sep = "";
		printf(" group_p99_us=");
		for (int j = 0; j < ngroups; j++) {
			printf("%s%lld", sep, glat[(size_t)j * (size_t)count + (size_t)(n * 99 / 100)]);
			sep = ",";
		}
		printf("\n");
	}
	free(recs.text);
	free(lat);
	free(first);
	free(glat);
	return 0;
}
