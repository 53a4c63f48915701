/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scalebench.c -- the core's costs that grow with what it keeps: boosts
 * and the groups of nftables sets.  No root: the unit tests' world
 * (tests/lib/fixture.c), a cgroupfs whose moves only rewrite the
 * fixture's /proc files, and nf_tables replaced by sets in memory.
 *
 *   scalebench boosts N...   N boosts (one process each, all root's)
 *   scalebench nft N...      N groups of one nft set
 *
 * boosts: the core's work per loop iteration while N boosts are active,
 * as the loop drives it: an exec of an unrelated process classified,
 * then core_next_deadline() (called before every wait).  Prints the CPU
 * time per iteration and per core_next_deadline() call alone.
 *
 * nft: a sync of a set whose N ids a firewall reload flushed, as the
 * loop drives it (core_timeout() whenever core_next_deadline() says so,
 * an exec classified between two calls).  Prints the CPU time of the
 * whole sync, the longest single call into the core while it ran (how
 * long a placement could wait behind it), the calls, and whether the set
 * holds the N ids again.
 *
 * Figures are ratios within one run (bench/README.md); nothing here is
 * a timed test.
 */
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FIRST_PID 10000
#define PROBE_PID 9999

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
exec_event(struct core *c, pid_t pid, double now)
{
	struct procev_event ev = fixture_event(PROCEV_EXEC, pid, 0);

	core_event(c, &ev, now);
	core_batch_done(c, now);
}

/* ---- boosts ------------------------------------------------------------------ */

static void
bench_boosts(unsigned long n)
{
	struct fixture f;
	struct boost_info info;
	char err[256];

	fixture_init(&f);
	fixture_files(&f, "log-level = \"warning\"",
		      "root name=cgecore /admins\n* name=cgecore /others\n");
	fixture_proc(&f, PROBE_PID, 1000, 1000, "/usr/bin/probe", 1, "/");
	for (unsigned long i = 0; i < n; i++)
		fixture_proc(&f, (pid_t)(FIRST_PID + i), 0, 0, "/usr/bin/bash", 100 + i,
			     "/");
	struct core *c = fixture_core(&f);
	if (c == NULL)
		bail("no core");
	log_set_level(LOG_LEVEL_WARNING);
	core_start(c, 1.0);
	for (unsigned long i = 0; i < n; i++) {
		struct boost_request r = { .pid = (pid_t)(FIRST_PID + i),
					   .hier = FIXTURE_HIER,
					   .dest = "/fast",
					   .seconds = 3600 + (long)(i % 600),
					   .owner = 0 };
		if (core_boost_start(c, &r, &info, err, sizeof(err)) < 0)
			bail("boost %lu: %s", i, err);
	}
	const unsigned rounds = 2000;
	double now = 2.0, t0 = cpu_now();
	for (unsigned i = 0; i < rounds; i++) {
		now += 1e-4;
		exec_event(c, PROBE_PID, now);
		(void)core_next_deadline(c, now);
	}
	double iter = (cpu_now() - t0) / rounds;
	t0 = cpu_now();
	for (unsigned i = 0; i < rounds; i++)
		(void)core_next_deadline(c, now);
	double deadline = (cpu_now() - t0) / rounds;
	printf("%-7s %7lu %12.2f %14.3f %8s %6s\n", "boosts", n, iter * 1e6,
	       deadline * 1e6, "-",
	       (unsigned long)core_boost_count(c) == n ? "yes" : "NO");
	core_free(c);
	fixture_done(&f);
}

/* ---- nft sets -------------------------------------------------------------------- */

/* One set in memory: ids in a hash set (open addressing, 0 = empty). */
static struct {
	uint64_t *v;
	size_t cap, n;
} set;

static bool
set_put(uint64_t id, bool add)
{
	size_t i = (size_t)(id * 0x9e3779b97f4a7c15ull) & (set.cap - 1);

	for (; set.v[i] != 0; i = (i + 1) & (set.cap - 1))
		if (set.v[i] == id) {
			if (add)
				return false;
			/* delete: re-insert the rest of the cluster */
			set.v[i] = 0;
			set.n--;
			for (size_t j = (i + 1) & (set.cap - 1); set.v[j] != 0;
			     j = (j + 1) & (set.cap - 1)) {
				uint64_t k = set.v[j];
				set.v[j] = 0;
				set.n--;
				set_put(k, true);
			}
			return true;
		}
	if (add) {
		set.v[i] = id;
		set.n++;
	}
	return add;
}

static int
mem_add(void *arg, const struct nftset_ref *r, const uint64_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (set.n * 2 < set.cap)
			set_put(ids[i], true);
	return 0;
}

static int
mem_del(void *arg, const struct nftset_ref *r, const uint64_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		set_put(ids[i], false);
	return 0;
}

static int
mem_list(void *arg, const struct nftset_ref *r, uint64_t **ids, size_t *n)
{
	size_t k = 0;

	if ((*ids = malloc((set.n + 1) * sizeof(**ids))) == NULL)
		return -12;
	for (size_t i = 0; i < set.cap; i++)
		if (set.v[i] != 0)
			(*ids)[k++] = set.v[i];
	*n = k;
	return 0;
}

static const struct backend_nft mem_nft = { .add = mem_add, .del = mem_del, .list = mem_list };

/* The v2 tree as the real daemon reads it: a group's id by one system
 * call (its inode here, name_to_handle_at there), children by readdir's
 * d_type -- not the fixture's, which keeps ids in files. */
static const char *tree;

static int
inode_id(void *arg, const struct hier *h, const char *path, uint64_t *id)
{
	char dir[1024];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s%s", tree, path);
	if (stat(dir, &st) < 0)
		return -errno;
	*id = (uint64_t)st.st_ino;
	return 0;
}

static int
list_children(void *arg, const struct hier *h, const char *path,
	      int (*fn)(void *fnarg, const char *name), void *fnarg)
{
	char dir[1024];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	snprintf(dir, sizeof(dir), "%s%s", tree, path);
	if ((d = opendir(dir)) == NULL)
		return -errno;
	while (rc == 0 && (e = readdir(d)) != NULL)
		if (e->d_type == DT_DIR && e->d_name[0] != '.')
			rc = fn(fnarg, e->d_name);
	closedir(d);
	return rc;
}

static void
bench_nft(unsigned long n)
{
	struct fixture f;
	char dir[512];

	set.cap = 1;
	while (set.cap < 4 * (n + 16))
		set.cap *= 2;
	if ((set.v = calloc(set.cap, sizeof(*set.v))) == NULL)
		bail("out of memory");
	set.n = 0;
	fixture_init(&f);
	f.nft = &mem_nft;
	fixture_v2(&f, "cpu", "/svc");
	tree = f.cg2;
	f.cgfs.ids.id = inode_id;
	f.cgfs.look.children = list_children;
	fixture_files(&f,
		      "log-level = \"warning\"\nunified-layout = {\"net_cls\"}\n"
		      "remove-empty = false\n" /* the groups stand for groups in use */
		      "group \"net_cls:/u/%u\" { nft-set = {\"inet fw users\"} }\n",
		      "root net_cls /u/%u\n* net_cls /other\n");
	for (unsigned long i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%s/svc/u/g%lu", f.cg2, i);
		if (i == 0) {
			char up[512];
			snprintf(up, sizeof(up), "%s/svc/u", f.cg2);
			mkdir(up, 0755);
		}
		if (mkdir(dir, 0755) < 0)
			bail("mkdir %s", dir);
	}
	fixture_proc(&f, PROBE_PID, 1000, 1000, "/usr/bin/probe", 1, "/");
	fixture_proc_v2(&f, PROBE_PID, "/");
	/* the core moves the daemon (this process) into its leaf */
	fixture_proc(&f, getpid(), 0, 0, "/usr/sbin/cgengined", 2, "/");
	fixture_proc_v2(&f, getpid(), "/svc");
	struct core *c = fixture_core(&f);
	if (c == NULL)
		bail("no core");
	log_set_level(LOG_LEVEL_WARNING);
	double now = 1.0;
	core_start(c, now);
	for (int i = 0; i < 100000; i++) { /* the start's sync, if it goes on */
		double at = core_next_deadline(c, now);
		if (at < 0 || at > now)
			break;
		core_timeout(c, now);
		now += 1e-4;
	}
	/* a firewall reload flushed the set */
	memset(set.v, 0, set.cap * sizeof(*set.v));
	set.n = 0;
	now += 1.0;
	core_nft_changed(c, now);
	now = core_next_deadline(c, now);
	double total = 0, worst = 0;
	unsigned calls = 0;
	for (; calls < 1000000; calls++) {
		double at = core_next_deadline(c, now);
		if (at < 0 || at > now)
			break;
		double t0 = cpu_now();
		core_timeout(c, now);
		double t = cpu_now() - t0;
		total += t;
		worst = t > worst ? t : worst;
		now += 1e-4;
		exec_event(c, PROBE_PID, now); /* a placement between two calls */
	}
	printf("%-7s %7lu %12.2f %14.3f %8u %6s\n", "nft", n, total * 1e3, worst * 1e3,
	       calls, set.n == n ? "yes" : "NO");
	core_free(c);
	fixture_done(&f);
	free(set.v);
}

int
main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "boosts") != 0 && strcmp(argv[1], "nft") != 0)) {
		fprintf(stderr, "usage: scalebench boosts|nft N...\n");
		return 2;
	}
	bool boosts = strcmp(argv[1], "boosts") == 0;
	if (boosts)
		printf("%-7s %7s %12s %14s %8s %6s\n", "WHAT", "N", "ITER_US",
		       "DEADLINE_US", "-", "OK");
	else
		printf("%-7s %7s %12s %14s %8s %6s\n", "WHAT", "N", "SYNC_CPU_MS",
		       "LONGEST_MS", "CALLS", "OK");
	for (int i = 2; i < argc; i++) {
		unsigned long n = strtoul(argv[i], NULL, 10);
		if (boosts)
			bench_boosts(n);
		else
			bench_nft(n);
		fflush(stdout);
	}
	return 0;
}
