/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * statefile-t.c -- unit tests for engined/statefile.c, the boost state
 * file: round trips (boosts and sticky processes, format 3; formats 1
 * and 2 read), every refusal of a forged or damaged file with its
 * exact message, linear time on large files, and the file handling
 * (symbolic links, stale temporary files, FIFOs, huge files, mode
 * 0600, a full and a read-only directory).  No root needed; the full
 * and read-only cases mount a private tmpfs and are skipped without
 * root.
 */
#include "engined/core/statefile.h"
#include "tests/tap/tap.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NOW	1700000000
#define MAX_SEC (365L * 86400)

/* ---- collecting what the parser says ----------------------------------------------- */

#define MAX_MSGS 32
static char msgs[MAX_MSGS][600];
static int nmsgs;

static void
collect(void *arg, const char *msg)
{
	if (nmsgs < MAX_MSGS)
		snprintf(msgs[nmsgs], sizeof(msgs[0]), "%s", msg);
	nmsgs++;
}

static const struct report rep = { .fn = collect };

struct got {
	struct statefile_sticky sticky[8];
	int nsticky;
	unsigned id[8];
	char dest[8][64], hier[8][64], profile[8][64];
	size_t members[8];
	pid_t pid0[8];
	int n;
};

static int
keep(void *arg, const struct statefile_record *r)
{
	struct got *g = arg;

	if (g->n < 8) {
		g->id[g->n] = r->id;
		snprintf(g->dest[g->n], 64, "%s", r->dest);
		snprintf(g->hier[g->n], 64, "%s", r->hier);
		snprintf(g->profile[g->n], 64, "%s", r->profile ? r->profile : "(none)");
		g->members[g->n] = r->n;
		g->pid0[g->n] = r->m[0].pid;
	}
	g->n++;
	return 0;
}

static int
keep_sticky(void *arg, const struct statefile_sticky *st)
{
	struct got *g = arg;

	if (g->nsticky < 8)
		g->sticky[g->nsticky] = *st;
	g->nsticky++;
	return 0;
}

/* Parse text as "t.state"; the number of records, messages in msgs. */
static int
parse(const char *text, size_t len, struct got *g)
{
	struct statefile_parse_options o = { .name = "t.state",
					     .now = NOW,
					     .max_seconds = MAX_SEC,
					     .record = keep,
					     .sticky = keep_sticky,
					     .arg = g,
					     .rep = &rep };

	memset(g, 0, sizeof(*g));
	nmsgs = 0;
	return statefile_parse(text, len, &o);
}

#define HDR  "# cgengine boosts, format 3\n"
#define HDR2 "# cgengine boosts, format 2\n"

/* One bad line after a good one: the good one is kept, the message exact. */
static void
refused(const char *line, const char *want, const char *what)
{
	char text[1024];
	struct got g;

	snprintf(text, sizeof(text), HDR "boost 1 0 1700000100 cpu /ok - 10:1\n%s\n",
		 line);
	int n = parse(text, strlen(text), &g);
	ok(n == 1 && g.id[0] == 1 && nmsgs == 1, "%s: refused, the good line kept", what);
	is_string(want, nmsgs ? msgs[0] : "", "%s: message", what);
}

/* ---- writing from an array -------------------------------------------------------- */

struct array {
	const struct statefile_record *r;
	size_t n, i;
	const struct statefile_sticky *st; /* and sticky processes */
	size_t nst, ist;
};

static const struct statefile_record *
next(void *arg)
{
	struct array *a = arg;

	return a->i < a->n ? &a->r[a->i++] : NULL;
}

static const struct statefile_sticky *
next_sticky(void *arg)
{
	struct array *a = arg;

	return a->ist < a->nst ? &a->st[a->ist++] : NULL;
}

/* Format a as "t.state"; the source names both iterators. */
static int
format(struct array *a, char **buf, size_t *len)
{
	struct statefile_source src = { .boost = next, .sticky = next_sticky, .arg = a };

	return statefile_format(&src, "t.state", &rep, buf, len);
}

static const struct statefile_member m1[] = { { 4242, 123456 } };
static const struct statefile_member m3[] = { { 100, 5 }, { 101, 6 }, { 102, 7 } };
static const struct statefile_record recs[] = {
	{ .id = 1,
	  .owner = 0,
	  .expires = NOW + 3600,
	  .hier = "cpu,cpuacct",
	  .dest = "/fast",
	  .m = m1,
	  .n = 1 },
	{ .id = 2,
	  .owner = 1000,
	  .expires = NOW + 60,
	  .hier = "net_cls",
	  .dest = "/www/fast",
	  .profile = "night net%",
	  .m = m3,
	  .n = 3 },
	{ .id = STATEFILE_ID_MAX,
	  .owner = 7,
	  .expires = NOW - 5,
	  .hier = "",
	  .dest = "/v2/b",
	  .profile = "-",
	  .m = m1,
	  .n = 1 },
	{ .id = 9,
	  .owner = 0,
	  .expires = NOW,
	  .hier = "cpu",
	  .dest = "/a/../b",
	  .m = m1,
	  .n = 1 },
};

static void
test_round_trip(void)
{
	struct array a = { .r = recs, .n = 4 };
	struct got g;
	char *buf;
	size_t len;

	nmsgs = 0;
	ok(format(&a, &buf, &len) == 0, "format");
	is_string("t.state: boost #9 not saved: destination must not contain '..'",
		  nmsgs ? msgs[0] : "", "an unsafe record is not written");
	char *text = strndup(buf, len);
	is_string(HDR "boost 1 0 1700003600 cpu,cpuacct /fast - 4242:123456\n"
		      "boost 2 1000 1700000060 net_cls /www/fast night%20net%25 "
		      "100:5 101:6 102:7\n"
		      "boost 2147483647 7 1699999995 - /v2/b %2D 4242:123456\n",
		  text, "the text written");
	is_int(3, parse(buf, len, &g), "three records read back");
	is_int(0, nmsgs, "without a message");
	is_string("night net%", g.profile[1],
		  "a profile with a blank and a percent sign");
	is_string("", g.hier[2], "the v2 tree's empty hierarchy name");
	is_string("-", g.profile[2], "a profile named '-'");
	is_string("(none)", g.profile[0], "no profile");
	ok(g.members[1] == 3 && g.id[2] == STATEFILE_ID_MAX,
	   "members and the largest id");
	free(text);
	free(buf);
}

/* ---- what a forged or damaged file cannot do ---------------------------------------- */

static void
test_refusals(void)
{
	refused("boost 2 0 1700000100 cpu /../../../x - 1:1",
		"t.state:3: boost #2: destination must not contain '..'",
		"dest /../../../x");
	refused("boost 2 0 1700000100 cpu relative - 1:1",
		"t.state:3: boost #2: destination must be an absolute path",
		"relative dest");
	refused("boost 2 0 1700000100 cpu /a%20b - 1:1",
		"t.state:3: boost #2: destination must not contain blanks or control "
		"characters",
		"a blank in the destination");
	refused("boost 2 0 1700000100 cpu /a%0Ab - 1:1",
		"t.state:3: boost #2: destination must not contain blanks or control "
		"characters",
		"a newline in the destination");
	refused("boost 4294967295 0 1700000100 cpu /x - 1:1",
		"t.state:3: boost id '4294967295' out of range (1 to 2147483647)",
		"id 4294967295");
	refused("boost 2147483648 0 1700000100 cpu /x - 1:1",
		"t.state:3: boost id '2147483648' out of range (1 to 2147483647)",
		"id 2^31");
	refused("boost 0 0 1700000100 cpu /x - 1:1",
		"t.state:3: boost id '0' out of range (1 to 2147483647)", "id 0");
	refused("boost 1 0 1700000100 cpu /y - 2:1",
		"t.state:3: boost #1 listed again (first on line 2); ignored",
		"a duplicate id");
	refused("boost 2 0 1731536001 cpu /x - 1:1",
		"t.state:3: boost #2: expiry 1731536001 is more than 31536000s from now",
		"an expiry beyond now + the longest duration");
	refused("boost 2 0 99999999999999999999 cpu /x - 1:1",
		"t.state:3: boost #2: owner '0' or expiry '99999999999999999999' is not a "
		"valid number",
		"an expiry that does not fit");
	refused("boost 2 4294967295 1700000100 cpu /x - 1:1",
		"t.state:3: boost #2: owner '4294967295' or expiry '1700000100' is not a "
		"valid number",
		"owner (uid_t)-1");
	refused("boost 2 0 1700000100 cpu /x - 0:1",
		"t.state:3: member '0:1' is not PID:START (PID 1 to 4194304)", "pid 0");
	refused("boost 2 0 1700000100 cpu /x - -5:1",
		"t.state:3: member '-5:1' is not PID:START (PID 1 to 4194304)", "pid -5");
	refused("boost 2 0 1700000100 cpu /x - 4194305:1",
		"t.state:3: member '4194305:1' is not PID:START (PID 1 to 4194304)",
		"a pid beyond PID_MAX_LIMIT");
	refused("boost 2 0 1700000100 cpu /x - 7:1 8:1 7:2",
		"t.state:3: pid 7 listed twice", "a pid listed twice");
	refused("boost 2 0 1700000100 cpu /x -",
		"t.state:3: a boost needs ID OWNER EXPIRES HIERARCHY DESTINATION PROFILE "
		"and at least one PID:START",
		"no member");
	refused("boost 2 0 1700000100 cpu /x%zz - 1:1",
		"t.state:3: boost #2: malformed or too long hierarchy, destination or "
		"profile",
		"a bad escape");
	refused("boost 2 0 1700000100 c%00pu /x - 1:1",
		"t.state:3: boost #2: malformed or too long hierarchy, destination or "
		"profile",
		"an escaped NUL byte");
	refused("boost 2 0 1700000100 cpu /x\001 - 1:1",
		"t.state:3: control character or NUL byte; line ignored",
		"a control character");
	refused("rm -rf /", "t.state:3: unknown record 'rm'; ignored",
		"an unknown record");
}

static void
test_damage(void)
{
	struct got g;
	const char trunc[] =
		HDR "boost 1 0 1700000100 cpu /ok - 10:1\nboost 2 0 17000001";
	const char nul[] =
		HDR "boost 1 0 1700000100 cpu /ok - 10:1\nboost 2 0\0 1 cpu /x - 1:1\n";
	const char future[] =
		"# cgengine boosts, format 4\nboost 1 0 1700000100 cpu /a - 1:1\n";
	const char old[] =
		"# cgengine boosts, format 1\nboost 4 0 1700000100 cpu /a%b - 1:1\n";

	is_int(1, parse(trunc, strlen(trunc), &g),
	       "a truncated file keeps its whole lines");
	is_string("t.state:3: incomplete last line (truncated file?); ignored",
		  nmsgs ? msgs[0] : "", "truncated: message");
	is_int(1, parse(nul, sizeof(nul) - 1, &g), "a NUL byte spoils only its line");
	is_string("t.state:3: control character or NUL byte; line ignored",
		  nmsgs ? msgs[0] : "", "NUL byte: message");
	is_int(0, parse(future, strlen(future), &g), "a later format is not guessed at");
	is_string("t.state:1: unsupported state file format '4'; nothing restored",
		  nmsgs ? msgs[0] : "", "later format: message");
	is_int(1, parse(old, strlen(old), &g), "format 1 is read");
	is_string("/a%b", g.dest[0], "format 1: no decoding");
	is_int(0, parse("", 0, &g), "an empty file: no boost");
	is_int(0, nmsgs, "an empty file: no message");
}

/* ---- sticky processes (format 3) ---------------------------------------------------- */

static const struct statefile_sticky sticky_in[] = {
	{ .who = { 4242, 123456 }, .flags = 0 },
	{ .who = { 77, 9 }, .flags = STATEFILE_STICKY_CHILDREN },
	{ .who = { 78, 10 }, .flags = STATEFILE_STICKY_ROOT },
	{ .who = { 79, 11 }, .flags = STATEFILE_STICKY_CHILDREN | STATEFILE_STICKY_ROOT },
	{ .who = { 0, 11 }, .flags = 0 },	  /* not saved: pid 0 */
	{ .who = { 80, 11 }, .flags = 0x10 }, /* not saved: an unknown flag */
};

static void
test_sticky(void)
{
	struct array a = { .r = recs, .n = 1, .st = sticky_in, .nst = 6 };
	struct got g;
	char *buf;
	size_t len;

	nmsgs = 0;
	ok(format(&a, &buf, &len) == 0, "sticky: format");
	is_int(2, nmsgs, "sticky: two processes not saved");
	is_string("t.state: sticky pid 0 not saved: pid or flags out of range", msgs[0],
		  "sticky: pid 0: message");
	is_string("t.state: sticky pid 80 not saved: pid or flags out of range", msgs[1],
		  "sticky: an unknown flag: message");
	char *text = strndup(buf, len);
	is_string(HDR "boost 1 0 1700003600 cpu,cpuacct /fast - 4242:123456\n"
		      "sticky 4242:123456 -\n"
		      "sticky 77:9 children\n"
		      "sticky 78:10 root\n"
		      "sticky 79:11 children,root\n",
		  text, "sticky: the text written (format 3, after the boosts)");
	is_int(5, parse(buf, len, &g), "sticky: one boost and four processes read back");
	is_int(0, nmsgs, "sticky: without a message");
	ok(g.n == 1 && g.nsticky == 4, "sticky: each to its callback");
	ok(g.sticky[0].who.pid == 4242 && g.sticky[0].who.start == 123456 &&
		   g.sticky[0].flags == 0 && g.sticky[0].line == 3,
	   "sticky: pid, start time, no flag, line");
	ok(g.sticky[1].flags == STATEFILE_STICKY_CHILDREN &&
		   g.sticky[2].flags == STATEFILE_STICKY_ROOT &&
		   g.sticky[3].flags == (STATEFILE_STICKY_CHILDREN | STATEFILE_STICKY_ROOT),
	   "sticky: children, root, both");
	free(text);
	free(buf);

	/* without a sticky iterator: boosts only, still format 3 */
	struct array b = { .r = recs, .n = 1 };
	struct statefile_source src = { .boost = next, .arg = &b };
	ok(statefile_format(&src, "t.state", &rep, &buf, &len) == 0 &&
		   len == strlen(HDR "boost 1 0 1700003600 cpu,cpuacct /fast - 4242:123456\n"),
	   "sticky: none to write");
	free(buf);

	/* a format 2 file (before sticky processes were kept) is read */
	const char two[] = HDR2 "boost 3 0 1700000100 cpu /a%2Db%2Fc - 1:1\n";
	is_int(1, parse(two, strlen(two), &g), "format 2 is read");
	is_string("/a-b/c", g.dest[0], "format 2: decoded");
	is_int(0, nmsgs, "format 2: no message");
}

/* One bad sticky line after a good one (format 3). */
static void
sticky_refused(const char *line, const char *want, const char *what)
{
	char text[1024];
	struct got g;

	snprintf(text, sizeof(text), HDR "sticky 10:1 -\n%s\n", line);
	int n = parse(text, strlen(text), &g);
	ok(n == 1 && g.nsticky == 1 && g.sticky[0].who.pid == 10 && nmsgs == 1,
	   "%s: refused, the good line kept", what);
	is_string(want, nmsgs ? msgs[0] : "", "%s: message", what);
}

static void
test_sticky_refusals(void)
{
	sticky_refused("sticky 10:2 -", "t.state:3: sticky pid 10 listed again (first on line 2); ignored",
		       "a sticky pid listed twice");
	sticky_refused("sticky 0:1 -",
		       "t.state:3: sticky process '0:1' is not PID:START (PID 1 to 4194304)",
		       "sticky pid 0");
	sticky_refused("sticky 4194305:1 -",
		       "t.state:3: sticky process '4194305:1' is not PID:START (PID 1 to "
		       "4194304)",
		       "a sticky pid beyond PID_MAX_LIMIT");
	sticky_refused("sticky 11 -",
		       "t.state:3: sticky process '11' is not PID:START (PID 1 to 4194304)",
		       "no start time");
	sticky_refused("sticky 11:1 children,children",
		       "t.state:3: sticky pid 11: flags 'children,children' are not -, "
		       "children, root or children,root",
		       "a flag twice");
	sticky_refused("sticky 11:1 everything",
		       "t.state:3: sticky pid 11: flags 'everything' are not -, children, "
		       "root or children,root",
		       "an unknown flag");
	sticky_refused("sticky 11:1 root,",
		       "t.state:3: sticky pid 11: flags 'root,' are not -, children, root or "
		       "children,root",
		       "a trailing comma");
	sticky_refused("sticky 11:1", "t.state:3: a sticky process needs PID:START and FLAGS",
		       "no flags");
	sticky_refused("sticky 11:1 - 12:1",
		       "t.state:3: a sticky process needs PID:START and FLAGS",
		       "two processes on one line");

	/* a sticky line in a format 2 file: no daemon wrote one there */
	struct got g;
	const char two[] = HDR2 "sticky 10:1 -\nboost 3 0 1700000100 cpu /a - 1:1\n";
	is_int(1, parse(two, strlen(two), &g), "format 2: the boost read");
	ok(g.nsticky == 0 && nmsgs == 1, "format 2: the sticky line refused");
	is_string("t.state:2: unknown record 'sticky'; ignored", nmsgs ? msgs[0] : "",
		  "format 2: sticky line: message");
}

/* A line with n members. */
static char *
members_line(size_t n)
{
	char *s = malloc(64 + n * 16), *p = s;

	p += sprintf(p, HDR "boost 1 0 1700000100 cpu /x -");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, " %zu:%zu", i + 1, i);
	strcpy(p, "\n");
	return s;
}

static void
test_limits(void)
{
	struct got g;
	char *s = members_line(STATEFILE_MAX_MEMBERS);

	is_int(1, parse(s, strlen(s), &g), "a boost with the most members");
	is_int(STATEFILE_MAX_MEMBERS, (long long)g.members[0], "all of them");
	free(s);
	s = members_line(STATEFILE_MAX_MEMBERS + 1);
	is_int(0, parse(s, strlen(s), &g), "one member more is refused");
	is_string("t.state:2: more than 16384 member processes", nmsgs ? msgs[0] : "",
		  "too many members: message");
	free(s);

	size_t len = STATEFILE_MAX_LINE + 100;
	s = malloc(len + 1);
	memset(s, 'x', len);
	memcpy(s, "boost ", 6);
	s[len - 1] = '\n';
	is_int(0, parse(s, len, &g), "an over-long line is refused");
	is_string("t.state:1: line longer than 524288 bytes; ignored",
		  nmsgs ? msgs[0] : "", "over-long line: message");
	free(s);
}

/* n valid lines, ids 1..n (or 1..mod, again and again); malloc'd, length
 * in *len. */
static char *
many(size_t n, size_t mod, size_t *len)
{
	char *s = malloc(64 + n * 64), *p = s;

	p += sprintf(p, HDR);
	for (size_t i = 1; i <= n; i++)
		p += sprintf(p, "boost %zu 0 1700000100 cpu /b%zu - %zu:77\n",
			     mod ? (i - 1) % mod + 1 : i, i % 1000,
			     i % STATEFILE_PID_MAX + 1);
	*len = (size_t)(p - s);
	return s;
}

static void
test_scale(void)
{
	struct got g;
	size_t len;
	char *s = many(STATEFILE_MAX_RECORDS + 100000, 0, &len);

	double t0 = mono_s();
	is_int(STATEFILE_MAX_RECORDS, parse(s, len, &g),
	       "200,000 lines: the first 100,000 kept");
	double big = mono_s() - t0;
	is_string("t.state:100002: more than 100000 boosts; the rest is ignored",
		  nmsgs ? msgs[0] : "", "too many boosts: message");
	free(s);
	s = many(STATEFILE_MAX_RECORDS / 10, 0, &len);
	t0 = mono_s();
	is_int(STATEFILE_MAX_RECORDS / 10, parse(s, len, &g), "10,000 lines");
	double small = mono_s() - t0;
	free(s);
	/* linear: ten times the lines, about ten times the time (quadratic: 100) */
	ok(big < 40 * small + 0.05,
	   "linear time: 100,000 lines in %.3fs, 10,000 in %.3fs", big, small);
	/* 200,000 lines with 5 ids: still linear, five records kept */
	s = many(200000, 5, &len);
	t0 = mono_s();
	int n = parse(s, len, &g);
	ok(n == 5 && nmsgs == STATEFILE_MAX_MESSAGES + 1,
	   "200,000 lines, 5 distinct ids: %d kept, %d messages", n, nmsgs);
	is_string("t.state:7: boost #1 listed again (first on line 2); ignored", msgs[0],
		  "duplicates: the first message");
	is_string("t.state: 199975 more problems not listed",
		  msgs[STATEFILE_MAX_MESSAGES], "duplicates: the rest summed up");
	diag("duplicates: %.3fs", mono_s() - t0);
	free(s);
}

/* ---- files ------------------------------------------------------------------------ */

static char dir[64];

static char *
path_in(const char *name)
{
	static char p[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static int
save(const char *path, size_t nrecs)
{
	struct array a = { .r = recs, .n = nrecs };
	struct statefile_source src = { .boost = next, .arg = &a };

	nmsgs = 0;
	return statefile_save(path, &src, &rep, true);
}

static void
test_save(void)
{
	const char *path = path_in("boosts.state"), *tmp = path_in("boosts.state.tmp");
	const char *victim = path_in("victim");
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	struct got g;

	umask(022);
	is_int(0, save(path, 2), "save");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode 0600, not 0644");
	ok(access(tmp, F_OK) < 0, "no temporary file left");
	is_int(0, statefile_read(path, &rep, &buf, &len), "read back");
	is_int(2, parse(buf, len, &g), "two boosts in it");
	free(buf);

	/* a symbolic link planted at the temporary path */
	FILE *f = fopen(victim, "w");
	fputs("precious\n", f);
	fclose(f);
	ok(symlink(victim, tmp) == 0, "plant a symbolic link at boosts.state.tmp");
	is_int(0, save(path, 1), "save past the planted link");
	f = fopen(victim, "r");
	char line[64] = "";
	ok(f && fgets(line, sizeof(line), f), "the link's target still reads");
	if (f)
		fclose(f);
	is_string("precious\n", line, "the link's target is untouched");
	ok(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && access(tmp, F_OK) < 0,
	   "the state file is a regular file, the link gone");

	/* a stale temporary file from a crash */
	f = fopen(tmp, "w");
	fputs("stale", f);
	fclose(f);
	is_int(0, save(path, 2), "save over a stale temporary file");
	ok(access(tmp, F_OK) < 0, "the stale file is gone");

	/* the temporary path cannot be made */
	ok(mkdir(tmp, 0700) == 0 && mkdir(path_in("boosts.state.tmp/x"), 0700) == 0,
	   "a directory in the way of the temporary file");
	is_int(-EISDIR, save(path, 1), "save fails");
	char want[600];
	snprintf(want, sizeof(want), "%s: cannot write the boost state: Is a directory",
		 path);
	is_string(want, nmsgs ? msgs[0] : "", "the failure is reported");
	is_int(0, statefile_read(path, &rep, &buf, &len), "the old file is still there");
	is_int(2, parse(buf, len, &g), "with its two boosts");
	free(buf);
	rmdir(path_in("boosts.state.tmp/x"));
	rmdir(tmp);

	snprintf(want, sizeof(want), "%s/no/such/dir/boosts.state", dir);
	is_int(-ENOENT, save(want, 1), "a missing directory");
	strcat(want, ": cannot write the boost state: No such file or directory");
	is_string(want, nmsgs ? msgs[0] : "", "a missing directory: message");
}

static int
read_msg(const char *path, char *buf, size_t len)
{
	char *data = NULL;
	size_t n;

	nmsgs = 0;
	int rc = statefile_read(path, &rep, &data, &n);
	free(data);
	snprintf(buf, len, "%s", nmsgs ? msgs[0] : "");
	return rc;
}

static void
test_read(void)
{
	char got[600], want[600];
	const char *path = path_in("boosts.state");

	is_int(-ENOENT, read_msg(path_in("none"), got, sizeof(got)), "no file: -ENOENT");
	is_string("", got, "no file: no message");

	ok(symlink(path, path_in("link")) == 0, "a symbolic link to a good file");
	is_int(-ELOOP, read_msg(path_in("link"), got, sizeof(got)),
	       "a link is not followed");
	snprintf(want, sizeof(want), "%s: a symbolic link; boosts not restored",
		 path_in("link"));
	is_string(want, got, "link: message");

	ok(mkfifo(path_in("fifo"), 0600) == 0, "a FIFO");
	is_int(-EINVAL, read_msg(path_in("fifo"), got, sizeof(got)),
	       "a FIFO is refused (and does not hang)");
	snprintf(want, sizeof(want), "%s: not a regular file; boosts not restored",
		 path_in("fifo"));
	is_string(want, got, "FIFO: message");

	int fd = open(path_in("huge"), O_CREAT | O_WRONLY, 0600);
	ok(fd >= 0 && ftruncate(fd, (off_t)STATEFILE_MAX_BYTES + 1) == 0, "a huge file");
	close(fd);
	is_int(-EFBIG, read_msg(path_in("huge"), got, sizeof(got)),
	       "a huge file is refused");
	snprintf(want, sizeof(want),
		 "%s: larger than 67108864 bytes; boosts not restored", path_in("huge"));
	is_string(want, got, "huge: message");

	ok(chmod(path, 0620) == 0, "a group-writable state file");
	is_int(-EPERM, read_msg(path, got, sizeof(got)), "is not trusted");
	snprintf(want, sizeof(want),
		 "%s: owned by uid %u or writable by others; boosts not restored", path,
		 (unsigned)geteuid());
	is_string(want, got, "writable by others: message");
	chmod(path, 0600);
}

/* A full and a read-only directory: a private 16 KiB tmpfs (root only). */
static void
test_full_and_readonly(void)
{
	const char *mnt = path_in("mnt");
	char path[300], want[400];
	struct statefile_member *m = calloc(STATEFILE_MAX_MEMBERS, sizeof(*m));
	struct statefile_record big = { .id = 1,
					.expires = NOW,
					.hier = "cpu",
					.dest = "/x",
					.m = m,
					.n = STATEFILE_MAX_MEMBERS };
	struct array a = { .r = &big, .n = 1 };

	for (size_t i = 0; i < STATEFILE_MAX_MEMBERS; i++)
		m[i] = (struct statefile_member){ .pid = (pid_t)i + 1,
						  .start = 1234567890 };
	if (mkdir(mnt, 0700) < 0 ||
	    mount("cgetest_fuzz", mnt, "tmpfs", 0, "size=16k,mode=0700") < 0) {
		skip(6, "cannot mount a private tmpfs (needs root)");
		free(m);
		return;
	}
	snprintf(path, sizeof(path), "%s/boosts.state", mnt);
	nmsgs = 0;
	struct statefile_source src = { .boost = next, .arg = &a };
	is_int(-ENOSPC, statefile_save(path, &src, &rep, true), "a full directory");
	snprintf(want, sizeof(want),
		 "%s: cannot write the boost state: No space left on device", path);
	is_string(want, nmsgs ? msgs[0] : "", "full: message");
	ok(access(path, F_OK) < 0 && access(strcat(strcpy(want, path), ".tmp"), F_OK) < 0,
	   "full: nothing left behind");
	ok(mount("cgetest_fuzz", mnt, "tmpfs", MS_REMOUNT | MS_RDONLY, "") == 0,
	   "remount read-only");
	is_int(-EROFS, save(path, 1), "a read-only directory");
	snprintf(want, sizeof(want),
		 "%s: cannot write the boost state: Read-only file system", path);
	is_string(want, nmsgs ? msgs[0] : "", "read-only: message");
	umount(mnt);
	rmdir(mnt);
	free(m);
}

int
main(void)
{
	plan(147);
	test_round_trip();
	test_refusals();
	test_damage();
	test_sticky();
	test_sticky_refusals();
	test_limits();
	test_scale();

	snprintf(dir, sizeof(dir), "/tmp/statefile-t.XXXXXX");
	if (mkdtemp(dir) == NULL)
		bail("mkdtemp: %s", strerror(errno));
	test_save();
	test_read();
	test_full_and_readonly();
	const char *rm[] = { "boosts.state", "victim", "link", "fifo", "huge" };
	for (size_t i = 0; i < sizeof(rm) / sizeof(rm[0]); i++)
		unlink(path_in(rm[i]));
	rmdir(dir);
	return tap_done();
}
