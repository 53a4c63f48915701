/*
 * match-t.c -- table-driven tests for rules/match.c: both semantics,
 * templates, ignore and ignore_rt, '%' chains across hierarchies,
 * wildcards vs basename vs full path, scripts, kernel threads, and
 * group membership by egid, supplementary groups and member lists.
 *
 * Expected decisions are written per bound hierarchy, in the order
 * cpu,cpuacct / net_cls / name=classes / memory:
 *   "-"        no rule named the hierarchy (leave alone)
 *   "=@L"      rule at line L decided to leave the task alone
 *   "/dest@L"  rule at line L moves the task to /dest
 */
#include "fake.h"
#include "tests/tap/tap.h"

#include <stdio.h>
#include <string.h>

/* One case to a line reads better than one field to a line. */
/* clang-format off */
static const char file_a[] =
	"# university\n"				/* 1 */
	"prof              cpu,memory      /profs\n"	/* 2 */
	"@profs            cpu             /profs\n"	/* 3 */
	"@students         cpu,memory      /students\n" /* 4 */
	"*:firefox         net_cls         /www/%u\n"	/* 5 */
	"*:/usr/sbin/nfsd  net_cls         /nfs\n"	/* 6 */
	"*:/opt/sim/*      name=classes    /sim/%p\n"	/* 7 */
	"@students:python* name=classes    /batch/%U\n" /* 8 */
	"alice:vim         cpu             /editors\n"	/* 9 */
	"alice             *               /alice ignore\n" /* 10 */
	"bob               cpu             /rt ignore_rt\n" /* 11 */
	"%                 net_cls         /bob/%P\n"	/* 12 */
	"dave:esc          cpu             /lit\\%u/%g\n" /* 13 */
	"*:ba?h            memory          /shells\n"	/* 14 */
	"*:[xy]term        memory          /terms\n"	/* 15 */
	"*                 name=classes    /other\n"	/* 16 */
	"carol             memory          /carol-mem\n"; /* 17 */

static const char file_b[] =
	"@students  cpu          /students\n"		/* 1 */
	"%          net_cls      /stud-net\n"		/* 2 */
	"*:firefox  net_cls      /www\n"		/* 3 */
	"prof       cpu          /profs\n"		/* 4 */
	"%          name=classes /profs-class\n"	/* 5 */
	"alice:nothing-managed blkio /x\n"		/* 6 */
	"*          memory       /default\n";		/* 7 */

static const char *const hiers[] = { "cpu,cpuacct", "net_cls", "name=classes",
				     "memory" };

#define PH RULES_PER_HIERARCHY
#define FM RULES_FIRST_MATCH

struct mcase {
	char file; /* 'A' or 'B' */
	enum rules_semantics sem;
	uid_t euid;
	gid_t egid;
	gid_t groups[3];
	size_t ngroups;
	const char *exe, *comm, *script, *user, *group;
	const char *cg; /* current group in every hierarchy, or NULL */
	bool rt;
	const char *want;
};

static const struct mcase cases[] = {
	{ 'A', PH, 2000, 600, {0}, 0, "/bin/bash", "bash", NULL, "prof", NULL, NULL, false,
	  "/profs@2 - /other@16 /profs@2" },
	{ 'A', PH, 2000, 600, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "prof", NULL, NULL, false,
	  "/profs@2 /www/prof@5 /other@16 /profs@2" },
	{ 'A', PH, 1003, 600, {0}, 0, "/bin/ls", "ls", NULL, "dave", NULL, NULL, false,
	  "/profs@3 - /other@16 -" },
	{ 'A', PH, 1003, 100, {500}, 1, "/bin/ls", "ls", NULL, "dave", NULL, NULL, false,
	  "/students@4 - /other@16 /students@4" },
	{ 'A', PH, 1002, 100, {0}, 0, "/bin/ls", "ls", NULL, "carol", NULL, NULL, false,
	  "/students@4 - /other@16 /students@4" },
	{ 'A', PH, 1002, 100, {0}, 0, "/usr/lib/firefox/firefox", "firefox", NULL, "carol", NULL, NULL, false,
	  "/students@4 /www/carol@5 /other@16 /students@4" },
	{ 'A', PH, 0, 0, {0}, 0, "/usr/sbin/nfsd", "nfsd", NULL, "root", NULL, NULL, false,
	  "- /nfs@6 /other@16 -" },
	{ 'A', PH, 0, 0, {0}, 0, "/tmp/nfsd", "nfsd", NULL, "root", NULL, NULL, false,
	  "- - /other@16 -" },
	{ 'A', PH, 1003, 100, {0}, 0, "/opt/sim/run", "run", NULL, "dave", NULL, NULL, false,
	  "- - /sim/run@7 -" },
	{ 'A', PH, 1003, 100, {0}, 0, "/opt/sim/sub/deep", "deep", NULL, "dave", NULL, NULL, false,
	  "- - /sim/deep@7 -" },
	{ 'A', PH, 1003, 500, {0}, 0, "/usr/bin/python3", "python3", NULL, "dave", NULL, NULL, false,
	  "/students@4 - /batch/1003@8 /students@4" },
	{ 'A', PH, 1000, 100, {0}, 0, "/usr/bin/vim", "vim", NULL, "alice", NULL, NULL, false,
	  "/editors@9 /alice@10 /alice@10 /alice@10" },
	{ 'A', PH, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/alice/sub", false,
	  "=@10 =@10 =@10 =@10" },
	{ 'A', PH, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/alicex", false,
	  "/alice@10 /alice@10 /alice@10 /alice@10" },
	{ 'A', PH, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, NULL, true,
	  "=@11 /bob/4242@12 /other@16 -" },
	{ 'A', PH, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, NULL, false,
	  "/rt@11 /bob/4242@12 /other@16 -" },
	{ 'A', PH, 0, 0, {0}, 0, NULL, "firefox", NULL, "root", NULL, NULL, false,
	  "- /www/root@5 /other@16 -" },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/bin/python3", "python3", "/opt/sim/model.py", "dave", NULL, NULL, false,
	  "- - /sim/model.py@7 -" },
	{ 'A', PH, 0, 0, {0}, 0, "/usr/bin/foo", "firefox", NULL, "root", NULL, NULL, false,
	  "- - /other@16 -" },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/bin/firefox", "firefox", NULL, NULL, NULL, NULL, false,
	  "- /www/1003@5 /other@16 -" },
	{ 'A', PH, 1003, 100, {0}, 0, "/bin/esc", "esc", NULL, "dave", "users", NULL, false,
	  "/lit%u/users@13 - /other@16 -" },
	{ 'A', PH, 1003, 100, {0}, 0, "/bin/bash", "bash", NULL, "dave", NULL, NULL, false,
	  "- - /other@16 /shells@14" },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/bin/xterm", "xterm", NULL, "dave", NULL, NULL, false,
	  "- - /other@16 /terms@15" },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/bin/zterm", "zterm", NULL, "dave", NULL, NULL, false,
	  "- - /other@16 -" },
	{ 'A', PH, 1002, 100, {0}, 0, "/bin/bash", "bash", NULL, "carol", NULL, NULL, false,
	  "/students@4 - /other@16 /students@4" },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/bin/python3", "python3", "firefox", "dave", NULL, NULL, false,
	  "- /www/dave@5 /other@16 -" },
	{ 'A', PH, 1000, 600, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, NULL, false,
	  "/profs@3 /alice@10 /alice@10 /alice@10" },
	{ 'A', PH, 1003, 100, {700, 500}, 2, "/bin/ls", "ls", NULL, "dave", NULL, NULL, false,
	  "/students@4 - /other@16 /students@4" },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/sbin/nfsd", "nfsd", NULL, "dave", NULL, NULL, false,
	  "- /nfs@6 /other@16 -" },
	{ 'A', PH, 1003, 100, {0}, 0, "/bin/ls", "ls", NULL, "dave", NULL, NULL, false,
	  "- - /other@16 -" },
	{ 'B', PH, 1002, 100, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "carol", NULL, NULL, false,
	  "/students@1 /stud-net@2 - /default@7" },
	{ 'B', PH, 1003, 100, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "dave", NULL, NULL, false,
	  "- /www@3 - /default@7" },
	{ 'B', PH, 2000, 600, {0}, 0, "/bin/bash", "bash", NULL, "prof", NULL, NULL, false,
	  "/profs@4 - /profs-class@5 /default@7" },
	{ 'B', FM, 1002, 100, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "carol", NULL, NULL, false,
	  "/students@1 /stud-net@2 - -" },
	{ 'B', FM, 1003, 100, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "dave", NULL, NULL, false,
	  "- /www@3 - -" },
	{ 'B', FM, 2000, 600, {0}, 0, "/bin/bash", "bash", NULL, "prof", NULL, NULL, false,
	  "/profs@4 - /profs-class@5 -" },
	{ 'B', FM, 1003, 100, {0}, 0, "/bin/bash", "bash", NULL, "dave", NULL, NULL, false,
	  "- - - /default@7" },
	{ 'B', FM, 1000, 100, {0}, 0, "/bin/nothing-managed", "nothing-managed", NULL, "alice", NULL, NULL, false,
	  "- - - -" },
	{ 'B', PH, 1000, 100, {0}, 0, "/bin/nothing-managed", "nothing-managed", NULL, "alice", NULL, NULL, false,
	  "- - - /default@7" },
	{ 'A', FM, 2000, 600, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "prof", NULL, NULL, false,
	  "/profs@2 - - /profs@2" },
	{ 'A', FM, 1002, 100, {0}, 0, "/bin/ls", "ls", NULL, "carol", NULL, NULL, false,
	  "/students@4 - - /students@4" },
	{ 'A', FM, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, NULL, false,
	  "/rt@11 /bob/4242@12 - -" },
	{ 'A', FM, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, NULL, true,
	  "=@11 /bob/4242@12 - -" },
	{ 'A', FM, 0, 0, {0}, 0, "/usr/sbin/nfsd", "nfsd", NULL, "root", NULL, NULL, false,
	  "- /nfs@6 - -" },
	{ 'A', FM, 1000, 100, {0}, 0, "/usr/bin/vim", "vim", NULL, "alice", NULL, NULL, false,
	  "/editors@9 - - -" },
	{ 'A', FM, 0, 0, {0}, 0, "/bin/bash", "bash", NULL, "root", NULL, NULL, false,
	  "- - - /shells@14" },
	{ 'A', FM, 0, 0, {0}, 0, "/bin/ls", "ls", NULL, "root", NULL, NULL, false,
	  "- - /other@16 -" },
	{ 'A', FM, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/alice/sub", false,
	  "=@10 =@10 =@10 =@10" },
};
/* clang-format on */

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void
describe(const struct rules_decision *d, size_t n, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t h = 0; h < n; h++) {
		const char *sep = h ? " " : "";

		if (d[h].rule == NULL)
			o += (size_t)snprintf(buf + o, len - o, "%s-", sep);
		else if (!d[h].move)
			o += (size_t)snprintf(buf + o, len - o, "%s=@%u", sep,
					      d[h].rule->line);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%s@%u", sep, d[h].dest,
					      d[h].rule->line);
	}
}

static struct rules_set *
load(const char *text, enum rules_semantics sem)
{
	struct fake_log log;
	struct rules_set *s = fake_load(text, sem, &log);

	if (s == NULL)
		bail("fixture does not load: %s", log.n ? log.msg[0] : "?");
	if (rules_bind(s, hiers, 4) != 0)
		bail("cannot bind");
	return s;
}

static void
run_case(size_t i, struct rules_set *set)
{
	const struct mcase *c = &cases[i];
	const char *cgs[4] = { c->cg, c->cg, c->cg, c->cg };
	struct rules_task t = {
		.pid = 4242,
		.uid = c->euid,
		.euid = c->euid,
		.gid = c->egid,
		.egid = c->egid,
		.groups = c->groups,
		.ngroups = c->ngroups,
		.exe = c->exe,
		.comm = c->comm,
		.script = c->script,
		.user = c->user,
		.group = c->group,
		.cgroups = c->cg ? cgs : NULL,
		.realtime = c->rt,
	};
	struct rules_decision d[4];
	char got[512];

	rules_match(set, &t, d);
	describe(d, 4, got, sizeof(got));
	is_string(c->want, got, "case %zu: file %c %s uid %u %s", i + 1, c->file,
		  c->sem == PH ? "per-hierarchy" : "first-match", (unsigned)c->euid,
		  c->exe ? c->exe : c->comm);
}

static void
test_hits(struct rules_set *a)
{
	/* file A per-hierarchy ran once per PH case above */
	const struct rules_rule *r = rules_get(a, 14); /* line 16: '*' classes */
	is_int(16, r->line, "rule 14 is line 16");
	ok(r->hits > 10, "the catch-all rule counted its hits (%llu)",
	   (unsigned long long)r->hits);
	is_int(0, (long long)rules_get(a, 15)->hits, "carol's memory rule never decided");
}

static void
test_bind_limits(void)
{
	const char *many[RULES_MAX_HIERS + 1];
	struct rules_set *s = load(file_b, PH);

	for (size_t i = 0; i <= RULES_MAX_HIERS; i++)
		many[i] = "cpu";
	is_int(-7, rules_bind(s, many, RULES_MAX_HIERS + 1), "binding too many: -E2BIG");
	rules_free(s);
}

int
main(void)
{
	struct rules_set *a_ph = load(file_a, PH), *a_fm = load(file_a, FM);
	struct rules_set *b_ph = load(file_b, PH), *b_fm = load(file_b, FM);

	plan((int)NCASES + 5);
	ok(NCASES >= 40, "at least 40 cases (%zu)", NCASES);
	for (size_t i = 0; i < NCASES; i++) {
		const struct mcase *c = &cases[i];
		struct rules_set *s = c->file == 'A' ? (c->sem == PH ? a_ph : a_fm)
						     : (c->sem == PH ? b_ph : b_fm);
		run_case(i, s);
	}
	test_hits(a_ph);
	test_bind_limits();
	rules_free(a_ph);
	rules_free(a_fm);
	rules_free(b_ph);
	rules_free(b_fm);
	return tap_done();
}
