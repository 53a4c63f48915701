/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * priority-t.c -- per-process priorities as part of a class (engined/
 * core/priority.c) over the fixture /proc, with a stand-in for the
 * kernel's priorities table: what a decision wants and which line
 * decided each field (a group section, a template's, a boost's
 * profile), every thread written, only what differs, oom_score_adj once
 * per process, nothing for a process in a group without priorities,
 * failures counted and not retried, latency_nice where the kernel has
 * none, and a boost's priorities given back when it ends.
 */
#include "engined/core/core_private.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOBODY 65534

/* ---- the stand-in: threads with priorities, and a log of writes ----------------- */

struct fthread {
	pid_t pid, tid;
	struct prio cur;
};

static struct {
	struct fthread t[16];
	size_t n;
	unsigned writes;   /* calls of set */
	char log[2048];	   /* "tid:fields;" for each write */
	pid_t fail_pid;	   /* its writes fail with -EPERM */
	bool has_latency; /* the kernel has latency_nice */
} k;

static struct fthread *
fthread(pid_t tid)
{
	for (size_t i = 0; i < k.n; i++)
		if (k.t[i].tid == tid)
			return &k.t[i];
	return NULL;
}

/* A thread as fork leaves it: nice 0, no I/O class, normal, oom 0. */
static void
add_thread(pid_t pid, pid_t tid)
{
	k.t[k.n++] = (struct fthread){ .pid = pid, .tid = tid, .cur.set = PRIO_ALL };
}

static int
f_threads(void *arg, pid_t pid, int (*fn)(void *fnarg, pid_t tid), void *fnarg)
{
	int found = 0;

	(void)arg;
	for (size_t i = 0; i < k.n; i++)
		if (k.t[i].pid == pid) {
			found = 1;
			fn(fnarg, k.t[i].tid);
		}
	return found ? 0 : -ESRCH;
}

static int
f_get(void *arg, pid_t pid, pid_t tid, unsigned int what, struct prio *out)
{
	struct fthread *t = fthread(tid);

	(void)arg;
	(void)what;
	if (t == NULL)
		return -ESRCH;
	*out = t->cur;
	out->set = PRIO_ALL & ~(unsigned)PRIO_LATENCY;
	out->set |= k.has_latency ? PRIO_LATENCY : 0;
	if (tid != pid)
		out->set &= ~(unsigned)PRIO_OOM;
	return 0;
}

static int
f_set(void *arg, pid_t pid, pid_t tid, const struct prio *todo)
{
	struct fthread *t = fthread(tid);
	char buf[PRIO_FORMAT_MAX];
	size_t n = strlen(k.log);

	(void)arg;
	k.writes++;
	if (t == NULL)
		return -ESRCH;
	if (pid == k.fail_pid)
		return -EPERM;
	if (prio_format(todo, buf, sizeof(buf)) < 0)
		bail("format");
	snprintf(k.log + n, sizeof(k.log) - n, "%d:%s;", (int)tid, buf);
	/* the fields written change, the others stay */
	struct prio w = *todo;
	w.set &= (tid == pid ? PRIO_ALL : PRIO_ALL & ~(unsigned)PRIO_OOM);
	prio_merge(&w, &t->cur);
	t->cur = w;
	return 0;
}

static const struct backend_prio fake_prio = {
	.threads = f_threads,
	.get = f_get,
	.set = f_set,
};

/* ---- the world ------------------------------------------------------------------ */

static struct fixture fx;

static void
event(struct core *c, pid_t pid, double now)
{
	struct procev_event ev = fixture_event(PROCEV_EXEC, pid, 0);

	core_event(c, &ev, now);
	core_batch_done(c, now);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The writes since the last call, sorted (a rescan reads /proc in
 * directory order): "tid:fields;" each. */
static const char *
log_take(void)
{
	static char out[sizeof(k.log)];
	char copy[sizeof(k.log)], *v[64], *save = NULL;
	size_t n = 0, used = 0;

	memcpy(copy, k.log, sizeof(copy));
	k.log[0] = out[0] = '\0';
	for (char *e = strtok_r(copy, ";", &save); e && n < 64; e = strtok_r(NULL, ";", &save))
		v[n++] = e;
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(out + used, sizeof(out) - used, "%s;", v[i]);
	return out;
}

/* The priorities explain finds for pid, and the line of field bit. */
static const char *
wanted(struct core *c, pid_t pid, unsigned bit, unsigned *line)
{
	static char buf[PRIO_FORMAT_MAX];
	struct decision *d = core_decision_new(c);

	if (d == NULL || core_explain(c, pid, 0, d) != DECIDE_OK)
		bail("explain %d", (int)pid);
	if (prio_format(&d->prio.prio, buf, sizeof(buf)) < 0)
		bail("format");
	for (size_t i = 0; i < PRIO_NFIELDS; i++)
		if (bit == 1u << i && (d->prio.prio.set & bit))
			*line = d->prio.line[i];
	decision_free(d);
	return buf;
}

/* The line of the config file fixture_files wrote that holds needle. */
static unsigned
line_of(const char *needle)
{
	char buf[512];
	unsigned n = 0;
	FILE *f = fopen(fx.conf, "r");

	if (f == NULL)
		bail("no %s", fx.conf);
	while (fgets(buf, sizeof(buf), f) != NULL) {
		n++;
		if (strstr(buf, needle) != NULL) {
			fclose(f);
			return n;
		}
	}
	bail("no %s in %s", needle, fx.conf);
}

static const char conf[] = "group \"name=cgecore:/www\" {\n"		      
			   "  set = {}\n"					      
			   "  process = {\"nice=-5\", \"ioclass=idle\",\n"	      
			   "             \"latency_nice=-3\"}\n"		      
			   "}\n"						      
			   "group \"name=cgecore:/users/%u\" {\n"		      
			   "  process = {\"nice=10\", \"oom_score_adj=300\"}\n"     
			   "}\n"						      
			   "boost-profile \"fast\" {\n"				      
			   "  allow = {\"nobody\"}\n"				      
			   "  hierarchy = \"name=cgecore\"\n"			      
			   "  destination = \"/fast\"\n"			      
			   "  max-duration = \"1h\"\n"				      
			   "  process = {\"nice=-15\", \"sched=batch\"}\n"	      
			   "}\n";

static void
test_class(struct core *c)
{
	unsigned line = 0;

	core_start(c, 1.0);
	is_string("/www", fixture_group(&fx, 200), "fx-www placed in /www");
	is_string("200:nice=-5 ioclass=idle ionice=0;201:nice=-5 ioclass=idle ionice=0;"
		  "300:nice=10 oom_score_adj=300;",
		  log_take(), "every thread of fx-www, nobody's cat once (one thread)");
	is_int(3, (long long)core_stats(c)->prio_applied, "three threads changed");
	is_int(-5, fthread(201)->cur.nice, "the second thread has nice -5");
	is_int(0, k.t[0].cur.oom_score_adj, "fx-www's oom_score_adj is left: /www names none");
	is_int(0, fthread(100)->cur.nice, "root's process in /admins (no section) untouched");
	is_string("nice=-5 ioclass=idle latency_nice=-3", wanted(c, 200, PRIO_NICE, &line),
		  "explain: what /www wants");
	is_int(line_of("latency_nice=-3"), line, "decided on the line where process = ends");
	is_string("nice=10 oom_score_adj=300", wanted(c, 300, PRIO_OOM, &line),
		  "explain: a template group's section (/users/%%u)");
	is_int(line_of("oom_score_adj=300"), line, "decided on its line");
	is_string("", wanted(c, 100, PRIO_NICE, &line), "root's process: nothing wanted");

	k.writes = 0;
	core_rescan(c, 2.0);
	is_int(0, k.writes, "a rescan writes nothing that is in place already");
	is_int(3, (long long)core_stats(c)->prio_applied, "and counts nothing");
	fthread(201)->cur.nice = 4; /* someone reniced a thread */
	event(c, 200, 3.0);
	is_string("201:nice=-5;", log_take(), "only what differs is written, on that thread");
}

static void
test_failures(struct core *c)
{
	add_thread(500, 500);
	fixture_proc(&fx, 500, NOBODY, NOBODY, "/usr/bin/fx-www", 50, "/");
	k.fail_pid = 500;
	k.writes = 0;
	event(c, 500, 4.0);
	is_int(1, (long long)core_stats(c)->prio_failed, "a failed write is counted");
	is_int(1, k.writes, "and tried once, not again in a loop");
	event(c, 500, 5.0);
	is_int(2, k.writes, "the next classification tries once more");
	is_int(2, (long long)core_stats(c)->prio_failed, "counted again");
	k.fail_pid = 0;
	/* a process gone between the decision and the writes */
	fixture_proc(&fx, 600, NOBODY, NOBODY, "/usr/bin/fx-www", 60, "/");
	event(c, 600, 6.0);
	is_int(3, (long long)core_stats(c)->prio_failed, "a process with no thread left: failed");
	log_take();
}

static void
test_latency(struct core *c)
{
	k.has_latency = true;
	event(c, 200, 7.0);
	is_string("200:latency_nice=-3;201:latency_nice=-3;", log_take(),
		  "latency_nice where the kernel has it");
	k.has_latency = false;
}

static void
test_boost(struct core *c)
{
	struct boost_info info;
	struct boost_request r = { .pid = 300,
				   .hier = FIXTURE_HIER,
				   .dest = "/fast",
				   .seconds = 60,
				   .owner = NOBODY,
				   .profile = "fast" };
	char err[256] = "";
	unsigned line = 0;

	fthread(300)->cur.sched = PRIO_SCHED_IDLE; /* as it was before */
	log_take();
	ok(core_boost_start(c, &r, &info, err, sizeof(err)) == 0, "boost started: %s", err);
	is_string("/fast", fixture_group(&fx, 300), "the process is in the boost's group");
	is_string("300:nice=-15 sched=batch rtprio=0;", log_take(),
		  "the profile's priorities during the boost");
	is_string("nice=-15 sched=batch", wanted(c, 300, PRIO_NICE, &line),
		  "explain: the profile's (the boost's group /fast has no section)");
	is_int(line_of("nice=-15"), line, "nice decided by the profile's line");
	ok(core_boost_end(c, info.id, "test") == 0, "boost ended");
	is_string("/users/nobody", fixture_group(&fx, 300), "back in its class");
	is_string("300:nice=10;300:sched=idle rtprio=0;", log_take(),
		  "the class's nice, then the policy only the profile named, given back");
}

int
main(void)
{
	struct core *c;

	plan(28);
	fixture_init(&fx);
	fx.prio = &fake_prio;
	fixture_files(&fx, conf, fixture_rules);
	fixture_proc(&fx, 100, 0, 0, "/usr/bin/cat", 10, "/");
	fixture_proc(&fx, 200, NOBODY, NOBODY, "/usr/bin/fx-www", 20, "/");
	fixture_proc(&fx, 300, NOBODY, NOBODY, "/usr/bin/cat", 30, "/");
	add_thread(100, 100);
	add_thread(200, 200);
	add_thread(200, 201);
	add_thread(300, 300);
	if ((c = fixture_core(&fx)) == NULL)
		bail("no core");
	test_class(c);
	test_failures(c);
	test_latency(c);
	test_boost(c);
	core_free(c);
	fixture_done(&fx);
	return tap_done();
}
