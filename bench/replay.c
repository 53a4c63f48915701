/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.c -- a fixed replay of process events through the daemon's
 * core, for deterministic cost figures (bench/callgrind.sh).
 *
 *   replay RULES EXECS [PROCS [BATCH [MATCH [SOURCE]]]]
 *
 * Builds the unit tests' world (tests/lib/fixture.c): a /proc
 * look-alike with PROCS processes (default 1000, uid 0, /usr/bin/probe,
 * in "/"), RULES rules shaped as bench/run.sh's (RULES-1 process rules
 * that do not match, then the rule that does, last), and a cgroupfs
 * whose moves are only counted.  Then it feeds the core what the kernel
 * reports for each of EXECS spawns of bench/loadgen (fork, setresgid,
 * setresuid, exec, exit): FORK, GID, UID, EXEC, EXIT -- those the core
 * asks the kernel for (core_env.want_events; the others the kernel's
 * filter drops) -- with the end of a batch after every BATCH events fed
 * (default 1: one wake-up per event, as on a quiet machine; 3: one per
 * spawn, as the loop reads a spawn's GID, UID and EXEC together while
 * execs follow each other).  The clock advances 10 us per event.  With MATCH
 * 0 the last rule names another user, so no spawn matches (the common
 * case of a process no rule is about).  With SOURCE "bpf" each EXEC
 * carries what the BPF program's record says of the task (credentials,
 * comm, the executable's path, the parent, the group in the fixture's
 * hierarchy, "/", as its id: struct task_known), as on the eBPF event
 * source, which the core takes instead of reading /proc; the uid and gid changes still come as events (the connector's,
 * on that source too), timed before the exec.  (On that source an exec
 * no rule can decide never reaches the daemon: MATCH 0 measures nothing
 * real there.)
 *
 * Everything done per exec happens inside replay_run(), so
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=replay_run
 * counts exactly that.  Prints one line: execs, classified, moves.
 */
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FIRST_PID 1000
#define PARENT	  999
#define STEP	  10e-6 /* seconds per event */

static unsigned long moves;
static bool bpf; /* SOURCE "bpf": EXEC events carry a record */
static struct procev_want wanted = { .exec = true, .uid = true, .gid = true, .forks = true,
				     .ntrack = PROCEV_ALL, .ngone = PROCEV_ALL };

static void
want_events(void *arg, const struct procev_want *w)
{
	wanted = *w;
	wanted.track = wanted.gone = NULL; /* the replay's processes are never tracked */
	wanted.ntrack = w->ntrack == PROCEV_ALL ? PROCEV_ALL : 0;
	wanted.ngone = w->ngone == PROCEV_ALL ? PROCEV_ALL : 0;
}

/* Would the kernel deliver this event (of a process, not a thread)? */
static bool
delivered(enum procev_type type)
{
	switch (type) {
	case PROCEV_FORK:
		return wanted.forks;
	case PROCEV_EXEC:
		return wanted.exec;
	case PROCEV_UID:
		return wanted.uid;
	case PROCEV_GID:
		return wanted.gid;
	case PROCEV_EXIT:
		return wanted.ntrack != 0;
	}
	return true;
}

static int
count_move(void *arg, const struct hier *h, const char *path, pid_t tgid)
{
	moves++;
	return 0; /* the process stays where it is: every exec moves it again */
}

static char *
make_rules(unsigned long n, bool match)
{
	size_t cap = 64 * (n + 1);
	char *s = malloc(cap);
	size_t len = 0;

	if (s == NULL)
		bail("out of memory");
	for (unsigned long i = 0; i + 1 < n; i++)
		len += (size_t)snprintf(s + len, cap - len,
					"*:benchprog%lu %s /other%lu\n", i, FIXTURE_HIER,
					i);
	snprintf(s + len, cap - len, "%s %s /bench\n", match ? "root" : "daemon",
		 FIXTURE_HIER);
	return s;
}

static void
feed(struct core *c, enum procev_type type, pid_t pid, pid_t parent, unsigned long batch,
     unsigned long *fed, double *now)
{
	/* the record, made once (the program's work is not the daemon's) */
	static struct task_known k = {
		.have = TASK_KNOW_CREDS | TASK_KNOW_COMM | TASK_KNOW_PPID | TASK_KNOW_EXE |
			TASK_KNOW_RT | TASK_KNOW_CGROUP,
		.ppid = PARENT,
		.comm = "probe",
		.exe = "/usr/bin/probe",
		.nv1 = 1,
		.v1 = { { .hier = 7, .id = 1 } }, /* main() gives them */
	};
	struct procev_event ev = fixture_event(type, pid, parent);

	*now += STEP;
	if (!delivered(type))
		return;
	if (bpf) /* the kernel's times: a record's uid change came before its exec (and
		   the placement latency is counted, as the connector's 0 does not) */
		ev.ts_ns = (uint64_t)(*now * 1e9);
	if (bpf && type == PROCEV_EXEC) {
		k.ts_ns = ev.ts_ns;
		ev.known = &k;
	}
	core_event(c, &ev, *now);
	if (++*fed % batch == 0)
		core_batch_done(c, *now);
	double at = core_next_deadline(c, *now);
	if (at >= 0 && at <= *now)
		core_timeout(c, *now);
}

/* Everything counted per exec. */
__attribute__((noinline)) static void
replay_run(struct core *c, unsigned long execs, unsigned long procs, unsigned long batch)
{
	unsigned long fed = 0;
	double now = 10.0;

	for (unsigned long i = 0; i < execs; i++) {
		pid_t pid = (pid_t)(FIRST_PID + i % procs);

		feed(c, PROCEV_FORK, pid, PARENT, batch, &fed, &now);
		feed(c, PROCEV_GID, pid, 0, batch, &fed, &now);
		feed(c, PROCEV_UID, pid, 0, batch, &fed, &now);
		feed(c, PROCEV_EXEC, pid, 0, batch, &fed, &now);
		feed(c, PROCEV_EXIT, pid, 0, batch, &fed, &now);
	}
	core_batch_done(c, now);
	core_timeout(c, now + 1.0); /* whatever still waits */
}

int
main(int argc, char **argv)
{
	struct fixture f;

	if (argc < 3) {
		fprintf(stderr, "usage: replay RULES EXECS [PROCS [BATCH [MATCH [SOURCE]]]]\n");
		return 2;
	}
	unsigned long nrules = strtoul(argv[1], NULL, 10);
	unsigned long execs = strtoul(argv[2], NULL, 10);
	unsigned long procs = argc > 3 ? strtoul(argv[3], NULL, 10) : 1000;
	unsigned long batch = argc > 4 ? strtoul(argv[4], NULL, 10) : 1;
	bool match = argc > 5 ? strtoul(argv[5], NULL, 10) != 0 : true;
	bpf = argc > 6 && strcmp(argv[6], "bpf") == 0;
	if (nrules == 0 || procs == 0 || batch == 0) {
		fprintf(stderr, "replay: RULES, PROCS and BATCH must be positive\n");
		return 2;
	}
	fixture_init(&f);
	char *rules = make_rules(nrules, match);
	/* REPLAY_CONFIG: more config lines, e.g. ananicy-dir = "DIR" */
	const char *more = getenv("REPLAY_CONFIG");
	char conf[4096];
	snprintf(conf, sizeof(conf), "log-level = \"warning\"\n%s", more ? more : "");
	fixture_files(&f, conf, rules);
	free(rules);
	fixture_proc(&f, PARENT, 0, 0, "/usr/bin/loadgen", 100, "/");
	for (unsigned long i = 0; i < procs; i++)
		fixture_proc(&f, (pid_t)(FIRST_PID + i), 0, 0, "/usr/bin/probe", 200 + i,
			     "/");
	if (bpf) { /* hierarchy 7 by /proc/self/cgroup; "/" has id 1 */
		char file[300];
		FILE *out;

		snprintf(file, sizeof(file), "%s/self", f.proc);
		(void)mkdir(file, 0755);
		snprintf(file, sizeof(file), "%s/self/cgroup", f.proc);
		if ((out = fopen(file, "w")) != NULL) {
			fprintf(out, "7:%s:/\n", f.v1name);
			fclose(out);
		}
		snprintf(file, sizeof(file), "%s/.cgid", f.cg);
		if ((out = fopen(file, "w")) != NULL) {
			fputs("1\n", out);
			fclose(out);
		}
		/* the destination made, as after the real daemon's first move
		 * (count_move makes none): its id is asked once */
		snprintf(file, sizeof(file), "%s/bench", f.cg);
		(void)mkdir(file, 0755);
	}
	f.cgfs.place.move = count_move;
	f.want_events = want_events;
	struct core *c = fixture_core(&f);
	if (c == NULL) {
		fixture_done(&f);
		return 1;
	}
	log_set_level(core_config(c)->log_level);
	core_start(c, 1.0);
	moves = 0;
	uint64_t before = core_stats(c)->classified;
	replay_run(c, execs, procs, batch);
	printf("execs=%lu classified=%llu moves=%lu\n", execs,
	       (unsigned long long)(core_stats(c)->classified - before), moves);
	core_free(c);
	fixture_done(&f);
	return 0;
}
