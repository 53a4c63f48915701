/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 *   "/dest@L!" the same, but dest must exist: not created if missing
 *              (first-match, plain destination: libcgroup's way)
 *
 * File C holds the cases where libcgroup's cgrulesengd and cgengine
 * used to differ; in first-match mode each must come out as libcgroup
 * decides (its behaviour is noted beside the case).
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
	"bob               cpu             /rt\n"	/* 11 */
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

static const char file_c[] =
	"alice           cpu          IgnoreCgroup ignore\n"	/* 1 */
	"alice           cpu          DefaultCgroup\n"	/* 2 */
	"bob             memory       folder/ ignore\n"	/* 3 */
	"bob             cpu          bobdef\n"		/* 4 */
	"carol           cpu          parentcg/childcg ignore\n" /* 5 */
	"carol           cpu          caroldef\n"		/* 6 */
	"dave            cpu          rtgrp ignore_rt\n"	/* 7 */
	"dave            cpu          davedef\n"		/* 8 */
	"prof            name=classes * ignore\n"		/* 9 */
	"prof            cpu          profdef\n"		/* 10 */
	"root:ab         cpu          a\n"			/* 11 */
	"%               cpu          b\n"			/* 12 */
	"root:all        *            all\n"		/* 13 */
	"%               memory       mem\n"			/* 14 */
	"@staff          net_cls      staffnet\n"		/* 15 */
	"root:peerlink   net_cls      linked\n"		/* 16 */
	"root:peerreal   net_cls      real\n"		/* 17 */
	"root:script.sh  memory       scriptmem\n"		/* 18 */
	"root:dash       memory       dashmem\n"		/* 19 */
	"root:both       memory       bothgrp ignore_rt,ignore\n" /* 20 */
	"*               name=classes plain\n"		/* 21 */
	"*               cpu          tmpl/%u\n";		/* 22 */

/*
 * First-match only (per-hierarchy refuses an unknown template).  As
 * libcgroup, a destination whose expansion differs from its text (a
 * template or a '\' escape) is created; "%y" is copied as written.
 */
static const char file_d[] =
	"alice:esc    cpu  lit\\%e\n"		/* 1 */
	"alice:back   cpu  back\\\\slash\n"	/* 2 */
	"alice:unk    cpu  unk%y\n"		/* 3 */
	"alice:pct    cpu  a%%u\n"		/* 4 */
	"alice:end    cpu  end%\n"		/* 5 */
	"alice:mix    cpu  %u/%y\n"		/* 6 */
	"alice:plain  cpu  plain\n";		/* 7 */

static const char *const hiers[] = { "cpu,cpuacct", "net_cls", "name=classes",
				     "memory" };

#define PH RULES_PER_HIERARCHY
#define FM RULES_FIRST_MATCH

struct mcase {
	char file; /* 'A' to 'D' */
	enum rules_semantics sem;
	uid_t euid;
	gid_t egid;
	gid_t groups[3];
	size_t ngroups;
	const char *exe, *comm, *script, *user, *group;
	const char *cg; /* current group in every hierarchy ("a|b|c|d": in each), or NULL */
	bool rt;
	const char *want;
	const char *invoked; /* the name the process was started by, or NULL */
};

static const struct mcase cases[] = {
	{ 'A', PH, 2000, 600, {0}, 0, "/bin/bash", "bash", NULL, "prof", NULL, NULL, false,
	  "/profs@2 - /other@16 /profs@2", NULL },
	{ 'A', PH, 2000, 600, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "prof", NULL, NULL, false,
	  "/profs@2 /www/prof@5 /other@16 /profs@2", NULL },
	{ 'A', PH, 1003, 600, {0}, 0, "/bin/ls", "ls", NULL, "dave", NULL, NULL, false,
	  "/profs@3 - /other@16 -", NULL },
	{ 'A', PH, 1003, 100, {500}, 1, "/bin/ls", "ls", NULL, "dave", NULL, NULL, false,
	  "/students@4 - /other@16 /students@4", NULL },
	{ 'A', PH, 1002, 100, {0}, 0, "/bin/ls", "ls", NULL, "carol", NULL, NULL, false,
	  "/students@4 - /other@16 /students@4", NULL },
	{ 'A', PH, 1002, 100, {0}, 0, "/usr/lib/firefox/firefox", "firefox", NULL, "carol", NULL, NULL, false,
	  "/students@4 /www/carol@5 /other@16 /students@4", NULL },
	{ 'A', PH, 0, 0, {0}, 0, "/usr/sbin/nfsd", "nfsd", NULL, "root", NULL, NULL, false,
	  "- /nfs@6 /other@16 -", NULL },
	{ 'A', PH, 0, 0, {0}, 0, "/tmp/nfsd", "nfsd", NULL, "root", NULL, NULL, false,
	  "- - /other@16 -", NULL },
	{ 'A', PH, 1003, 100, {0}, 0, "/opt/sim/run", "run", NULL, "dave", NULL, NULL, false,
	  "- - /sim/run@7 -", NULL },
	{ 'A', PH, 1003, 100, {0}, 0, "/opt/sim/sub/deep", "deep", NULL, "dave", NULL, NULL, false,
	  "- - /sim/deep@7 -", NULL },
	{ 'A', PH, 1003, 500, {0}, 0, "/usr/bin/python3", "python3", NULL, "dave", NULL, NULL, false,
	  "/students@4 - /batch/1003@8 /students@4", NULL },
	{ 'A', PH, 1000, 100, {0}, 0, "/usr/bin/vim", "vim", NULL, "alice", NULL, NULL, false,
	  "/editors@9 - /other@16 -", NULL },
	{ 'A', PH, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/alice/sub", false,
	  "=@10 =@10 =@10 =@10", NULL },
	{ 'A', PH, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/alicex", false,
	  "- - /other@16 -", NULL },
	{ 'A', PH, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, NULL, true,
	  "/rt@11 /bob/4242@12 /other@16 -", NULL },
	{ 'A', PH, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, NULL, false,
	  "/rt@11 /bob/4242@12 /other@16 -", NULL },
	{ 'A', PH, 0, 0, {0}, 0, NULL, "firefox", NULL, "root", NULL, NULL, false,
	  "- /www/root@5 /other@16 -", NULL },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/bin/python3", "python3", "/opt/sim/model.py", "dave", NULL, NULL, false,
	  "- - /sim/model.py@7 -", NULL },
	{ 'A', PH, 0, 0, {0}, 0, "/usr/bin/foo", "firefox", NULL, "root", NULL, NULL, false,
	  "- - /other@16 -", NULL },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/bin/firefox", "firefox", NULL, NULL, NULL, NULL, false,
	  "- /www/1003@5 /other@16 -", NULL },
	{ 'A', PH, 1003, 100, {0}, 0, "/bin/esc", "esc", NULL, "dave", "users", NULL, false,
	  "/lit%u/users@13 - /other@16 -", NULL },
	{ 'A', PH, 1003, 100, {0}, 0, "/bin/bash", "bash", NULL, "dave", NULL, NULL, false,
	  "- - /other@16 /shells@14", NULL },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/bin/xterm", "xterm", NULL, "dave", NULL, NULL, false,
	  "- - /other@16 /terms@15", NULL },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/bin/zterm", "zterm", NULL, "dave", NULL, NULL, false,
	  "- - /other@16 -", NULL },
	{ 'A', PH, 1002, 100, {0}, 0, "/bin/bash", "bash", NULL, "carol", NULL, NULL, false,
	  "/students@4 - /other@16 /students@4", NULL },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/bin/python3", "python3", "firefox", "dave", NULL, NULL, false,
	  "- /www/dave@5 /other@16 -", NULL },
	{ 'A', PH, 1000, 600, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, NULL, false,
	  "/profs@3 - /other@16 -", NULL },
	{ 'A', PH, 1003, 100, {700, 500}, 2, "/bin/ls", "ls", NULL, "dave", NULL, NULL, false,
	  "/students@4 - /other@16 /students@4", NULL },
	{ 'A', PH, 1003, 100, {0}, 0, "/usr/sbin/nfsd", "nfsd", NULL, "dave", NULL, NULL, false,
	  "- /nfs@6 /other@16 -", NULL },
	{ 'A', PH, 1003, 100, {0}, 0, "/bin/ls", "ls", NULL, "dave", NULL, NULL, false,
	  "- - /other@16 -", NULL },
	{ 'B', PH, 1002, 100, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "carol", NULL, NULL, false,
	  "/students@1 /stud-net@2 - /default@7", NULL },
	{ 'B', PH, 1003, 100, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "dave", NULL, NULL, false,
	  "- /www@3 - /default@7", NULL },
	{ 'B', PH, 2000, 600, {0}, 0, "/bin/bash", "bash", NULL, "prof", NULL, NULL, false,
	  "/profs@4 - /profs-class@5 /default@7", NULL },
	{ 'B', FM, 1002, 100, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "carol", NULL, NULL, false,
	  "/students@1! /stud-net@2! - -", NULL },
	{ 'B', FM, 1003, 100, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "dave", NULL, NULL, false,
	  "- /www@3! - -", NULL },
	{ 'B', FM, 2000, 600, {0}, 0, "/bin/bash", "bash", NULL, "prof", NULL, NULL, false,
	  "/profs@4! - /profs-class@5! -", NULL },
	{ 'B', FM, 1003, 100, {0}, 0, "/bin/bash", "bash", NULL, "dave", NULL, NULL, false,
	  "- - - /default@7!", NULL },
	{ 'B', FM, 1000, 100, {0}, 0, "/bin/nothing-managed", "nothing-managed", NULL, "alice", NULL, NULL, false,
	  "- - - -", NULL },
	{ 'B', PH, 1000, 100, {0}, 0, "/bin/nothing-managed", "nothing-managed", NULL, "alice", NULL, NULL, false,
	  "- - - /default@7", NULL },
	{ 'A', FM, 2000, 600, {0}, 0, "/usr/bin/firefox", "firefox", NULL, "prof", NULL, NULL, false,
	  "/profs@2! - - /profs@2!", NULL },
	{ 'A', FM, 1002, 100, {0}, 0, "/bin/ls", "ls", NULL, "carol", NULL, NULL, false,
	  "/students@4! - - /students@4!", NULL },
	{ 'A', FM, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, NULL, false,
	  "/rt@11! /bob/4242@12 - -", NULL },
	{ 'A', FM, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, NULL, true,
	  "/rt@11! /bob/4242@12 - -", NULL },
	{ 'A', FM, 0, 0, {0}, 0, "/usr/sbin/nfsd", "nfsd", NULL, "root", NULL, NULL, false,
	  "- /nfs@6! - -", NULL },
	{ 'A', FM, 1000, 100, {0}, 0, "/usr/bin/vim", "vim", NULL, "alice", NULL, NULL, false,
	  "/editors@9! - - -", NULL },
	{ 'A', FM, 0, 0, {0}, 0, "/bin/bash", "bash", NULL, "root", NULL, NULL, false,
	  "- - - /shells@14!", NULL },
	{ 'A', FM, 0, 0, {0}, 0, "/bin/ls", "ls", NULL, "root", NULL, NULL, false,
	  "- - /other@16! -", NULL },
	{ 'A', FM, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/alice/sub", false,
	  "=@10 =@10 =@10 =@10", NULL },
	/* ignore never moves: alice outside /alice falls through to line 16 */
	{ 'A', FM, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, NULL, false,
	  "- - /other@16! -", NULL },
	/* first-match: a supplementary group is not the group (libcgroup) */
	{ 'A', FM, 1003, 100, {500}, 1, "/bin/ls", "ls", NULL, "dave", NULL, NULL, false,
	  "- - /other@16! -", NULL },
	/* 1: ignore falls through when not in the destination */
	{ 'C', FM, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/", false,
	  "/DefaultCgroup@2! - - -", NULL },
	{ 'C', PH, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/", false,
	  "/DefaultCgroup@2 - /plain@21 -", NULL },
	{ 'C', FM, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, NULL, false,
	  "/DefaultCgroup@2! - - -", NULL },
	{ 'C', FM, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/IgnoreCgroup", false,
	  "=@1 - - -", NULL },
	{ 'C', PH, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/IgnoreCgroup", false,
	  "=@1 - /plain@21 -", NULL },
	{ 'C', FM, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/IgnoreCgroup/sub", false,
	  "=@1 - - -", NULL },
	/* libcgroup: without a trailing '/' the destination is a string prefix */
	{ 'C', FM, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/IgnoreCgroupX", false,
	  "=@1 - - -", NULL },
	{ 'C', PH, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/IgnoreCgroupX", false,
	  "/DefaultCgroup@2 - /plain@21 -", NULL },
	/* libcgroup: the group counts in any hierarchy (here: memory) */
	{ 'C', FM, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/|/|/|/IgnoreCgroup", false,
	  "=@1 - - -", NULL },
	{ 'C', PH, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/|/|/|/IgnoreCgroup", false,
	  "/DefaultCgroup@2 - /plain@21 -", NULL },
	/* 2: plain ignore does not hold realtime tasks */
	{ 'C', FM, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/IgnoreCgroup", true,
	  "/DefaultCgroup@2! - - -", NULL },
	{ 'C', PH, 1000, 100, {0}, 0, "/bin/ls", "ls", NULL, "alice", NULL, "/IgnoreCgroup", true,
	  "/DefaultCgroup@2 - /plain@21 -", NULL },
	/* "folder/" covers folder and below, not folder1 */
	{ 'C', FM, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, "/folder", false,
	  "- - - =@3", NULL },
	{ 'C', PH, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, "/folder", false,
	  "/bobdef@4 - /plain@21 =@3", NULL },
	{ 'C', FM, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, "/folder1", false,
	  "/bobdef@4! - - -", NULL },
	{ 'C', PH, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, "/folder1", false,
	  "/bobdef@4 - /plain@21 -", NULL },
	{ 'C', FM, 1001, 100, {0}, 0, "/bin/ls", "ls", NULL, "bob", NULL, "/folder/x", false,
	  "- - - =@3", NULL },
	/* "parentcg/childcg" covers /parentcg/childcg2 in libcgroup */
	{ 'C', FM, 1002, 100, {0}, 0, "/bin/ls", "ls", NULL, "carol", NULL, "/parentcg/childcg2", false,
	  "=@5 - - -", NULL },
	{ 'C', PH, 1002, 100, {0}, 0, "/bin/ls", "ls", NULL, "carol", NULL, "/parentcg/childcg2", false,
	  "/caroldef@6 - /plain@21 -", NULL },
	{ 'C', PH, 1002, 100, {0}, 0, "/bin/ls", "ls", NULL, "carol", NULL, "/parentcg/childcg/x", false,
	  "=@5 - /plain@21 -", NULL },
	/* 2: ignore_rt holds realtime tasks in the destination, nothing else */
	{ 'C', FM, 1003, 100, {0}, 0, "/bin/ls", "ls", NULL, "dave", NULL, "/rtgrp", false,
	  "/davedef@8! - - -", NULL },
	{ 'C', FM, 1003, 100, {0}, 0, "/bin/ls", "ls", NULL, "dave", NULL, "/rtgrp", true,
	  "=@7 - - -", NULL },
	{ 'C', PH, 1003, 100, {0}, 0, "/bin/ls", "ls", NULL, "dave", NULL, "/rtgrp", true,
	  "=@7 - /plain@21 -", NULL },
	{ 'C', FM, 1003, 100, {0}, 0, "/bin/ls", "ls", NULL, "dave", NULL, "/", true,
	  "/davedef@8! - - -", NULL },
	{ 'C', PH, 1003, 100, {0}, 0, "/bin/ls", "ls", NULL, "dave", NULL, "/", true,
	  "/davedef@8 - /plain@21 -", NULL },
	/* ignore_rt,ignore holds every task in the destination */
	{ 'C', FM, 0, 0, {0}, 0, "/usr/bin/both", "both", NULL, "root", NULL, "/bothgrp", true,
	  "- - - =@20", NULL },
	{ 'C', FM, 0, 0, {0}, 0, "/usr/bin/both", "both", NULL, "root", NULL, "/bothgrp", false,
	  "- - - =@20", NULL },
	{ 'C', FM, 0, 0, {0}, 0, "/usr/bin/both", "both", NULL, "root", NULL, "/", false,
	  "- - /plain@21! -", NULL },
	{ 'C', PH, 0, 0, {0}, 0, "/usr/bin/both", "both", NULL, "root", NULL, "/", false,
	  "/tmpl/root@22 - /plain@21 -", NULL },
	/* 3: "*" as an ignore destination is any group (no group named "*") */
	{ 'C', FM, 2000, 600, {0}, 0, "/bin/ls", "ls", NULL, "prof", NULL, "/", false,
	  "- - =@9 -", NULL },
	{ 'C', PH, 2000, 600, {0}, 0, "/bin/ls", "ls", NULL, "prof", NULL, "/", false,
	  "/profdef@10 - =@9 -", NULL },
	/* 4: '%' lines apply in turn: a later line overrides an earlier one */
	{ 'C', FM, 0, 0, {0}, 0, "/usr/bin/ab", "ab", NULL, "root", NULL, "/", false,
	  "/b@12! - - -", NULL },
	{ 'C', PH, 0, 0, {0}, 0, "/usr/bin/ab", "ab", NULL, "root", NULL, "/", false,
	  "/b@12 - /plain@21 -", NULL },
	{ 'C', FM, 0, 0, {0}, 0, "/usr/bin/all", "all", NULL, "root", NULL, "/", false,
	  "/all@13! /all@13! /all@13! /mem@14!", NULL },
	{ 'C', PH, 0, 0, {0}, 0, "/usr/bin/all", "all", NULL, "root", NULL, "/", false,
	  "/all@13 /all@13 /all@13 /mem@14", NULL },
	/* 6: first-match @group is the egid and the member list only */
	{ 'C', FM, 5000, 100, {700}, 1, "/bin/ls", "ls", NULL, NULL, NULL, "/", false,
	  "- - /plain@21! -", NULL },
	{ 'C', PH, 5000, 100, {700}, 1, "/bin/ls", "ls", NULL, NULL, NULL, "/", false,
	  "/tmpl/5000@22 /staffnet@15 /plain@21 -", NULL },
	{ 'C', FM, 5000, 700, {0}, 0, "/bin/ls", "ls", NULL, NULL, NULL, "/", false,
	  "- /staffnet@15! - -", NULL },
	/* 7: started through peerlink -> peerreal: libcgroup sees peerlink */
	{ 'C', FM, 0, 0, {0}, 0, "/usr/bin/peerreal", "peerlink", NULL, "root", NULL, "/", false,
	  "- /linked@16! - -", "/usr/bin/peerlink" },
	{ 'C', PH, 0, 0, {0}, 0, "/usr/bin/peerreal", "peerlink", NULL, "root", NULL, "/", false,
	  "/tmpl/root@22 /linked@16 /plain@21 -", "/usr/bin/peerlink" },
	{ 'C', FM, 0, 0, {0}, 0, "/usr/bin/peerreal", "peerreal", NULL, "root", NULL, "/", false,
	  "- /real@17! - -", "/usr/bin/peerreal" },
	/* 7: "sh /opt/script.sh" is dash to libcgroup; per-hierarchy sees the script */
	{ 'C', FM, 0, 0, {0}, 0, "/usr/bin/dash", "sh", "/opt/script.sh", "root", NULL, "/", false,
	  "- - - /dashmem@19!", "/usr/bin/dash" },
	{ 'C', PH, 0, 0, {0}, 0, "/usr/bin/dash", "sh", "/opt/script.sh", "root", NULL, "/", false,
	  "/tmpl/root@22 - /plain@21 /scriptmem@18", "/usr/bin/dash" },
	{ 'C', PH, 0, 0, {0}, 0, "/usr/bin/dash", "dash", NULL, "root", NULL, "/", false,
	  "/tmpl/root@22 - /plain@21 /dashmem@19", NULL },
	/* "\%" is a template to libcgroup: the group is created, '%' literal */
	{ 'D', FM, 1000, 100, {0}, 0, "/usr/bin/esc", "esc", NULL, "alice", NULL, "/", false,
	  "/lit%e@1 - - -", NULL },
	{ 'D', FM, 1000, 100, {0}, 0, "/usr/bin/back", "back", NULL, "alice", NULL, "/", false,
	  "/back\\slash@2 - - -", NULL },
	/* an unknown "%y" stays as written, and the group is not created */
	{ 'D', FM, 1000, 100, {0}, 0, "/usr/bin/unk", "unk", NULL, "alice", NULL, "/", false,
	  "/unk%y@3! - - -", NULL },
	{ 'D', FM, 1000, 100, {0}, 0, "/usr/bin/pct", "pct", NULL, "alice", NULL, "/", false,
	  "/a%%u@4! - - -", NULL },
	{ 'D', FM, 1000, 100, {0}, 0, "/usr/bin/end", "end", NULL, "alice", NULL, "/", false,
	  "/end%@5! - - -", NULL },
	{ 'D', FM, 1000, 100, {0}, 0, "/usr/bin/mix", "mix", NULL, "alice", NULL, "/", false,
	  "/alice/%y@6 - - -", NULL },
	{ 'D', FM, 1000, 100, {0}, 0, "/usr/bin/plain", "plain", NULL, "alice", NULL, "/", false,
	  "/plain@7! - - -", NULL },
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
			o += (size_t)snprintf(buf + o, len - o, "%s%s@%u%s", sep,
					      d[h].dest, d[h].rule->line,
					      d[h].create ? "" : "!");
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
	char split[4][64];

	for (size_t h = 0; c->cg != NULL && strchr(c->cg, '|') != NULL && h < 4; h++) {
		const char *p = c->cg;

		for (size_t k = 0; k < h; k++)
			p = strchr(p, '|') + 1;
		snprintf(split[h], sizeof(split[h]), "%.*s", (int)strcspn(p, "|"), p);
		cgs[h] = split[h];
	}
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
		.invoked = c->invoked,
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

/*
 * First-match ignore rules against libcgroup's own cases
 * (tests/gunit/004-cgroup_compare_ignore_rule.cpp), each with the
 * task's /proc/PID/cgroup.  Two of its fixtures write a group without
 * the leading '/' the kernel always writes; libcgroup strips a group's
 * first character, so they fail there for that reason alone.  Here they
 * carry the '/', and come out as cgrulesengd decides on a real process
 * (2.0.2 and 3.2.0 alike): the rule's controllers do not matter, the
 * task's group in any v1 hierarchy counts, and "/" is the root group.
 */
struct icase {
	const char *name;
	const char *proc;      /* /proc/PID/cgroup */
	const char *ctl, *dst; /* the ignore rule's controller and destination */
	bool holds;
};

#define REAL_WORLD(netcls)                                                               \
	"12:memory:/user/johndoe/0\n11:perf_event:/\n10:rdma:/\n9:blkio:/user.slice\n"   \
	"8:cpu,cpuacct:/myCgroup\n7:freezer:/user/johndoe/0\n"                           \
	"6:net_cls,net_prio:" netcls "\n"                                                \
	"5:pids:/user.slice/user-1000.slice/session-1.scope\n4:devices:/user.slice\n"    \
	"3:cpuset:/\n2:hugetlb:/\n"                                                      \
	"1:name=systemd:/user.slice/user-1000.slice/session-1.scope\n"                   \
	"0::/user.slice/user-1000.slice/session-1.scope\n"

/* clang-format off */
static const struct icase icases[] = {
	{ "SimpleMatch", "7:cpuacct:/SimpleMatchCgroup\n", "cpuacct", "SimpleMatchCgroup", true },
	{ "CgroupsDontMatch, with the '/'", "2:cpuacct:/CloseButNotQuite\n", "cpuacct", "CloseButNotQuit", true },
	{ "ControllersDontMatch, with the '/'", "5:memory:/MyCgroup\n", "cpuacct", "MyCgroup", true },
	{ "CombinedControllers", "13:cpu,cpuacct:/containercg\n", "cpuacct", "containercg", true },
	{ "MatchChildFolder", "7:cpuset:/parentcg/childcg/grandchildcg\n", "cpuset", "parentcg/", true },
	{ "MatchGrandchildFolder", "1:hugetlb:/parentcg/childcg/grandchildcg\n", "hugetlb", "parentcg/childcg/", true },
	{ "MatchSimilarChildFolder", "1:hugetlb:/parentcg/childcg2\n", "hugetlb", "parentcg/childcg", true },
	{ "RealWorldMatch", REAL_WORLD("/"), "cpu", "myCgroup/", true },
	{ "RealWorldNoMatch", REAL_WORLD("/NetCgroup"), "net_cls", "NetCgroup2", false },
	{ "SimilarFolderNoMatch", "4:memory:/folder1\n", "memory", "folder/", false },
	{ "RootDestinationMatch", "2:freezer:/\n", "freezer", "/", true },
	{ "RootDestinationNoMatch", "2:freezer:/somerandomcg\n", "freezer", "/", false },
	/* the rule names cpu; the task is in net_cls:/NetCgroup */
	{ "destination in another hierarchy", REAL_WORLD("/NetCgroup"), "cpu", "NetCgroup", true },
	{ "nowhere in the destination", REAL_WORLD("/NetCgroup"), "cpu", "Other", false },
	/* cpu is at /myCgroup, but perf_event, rdma, cpuset and hugetlb at the root */
	{ "'/': the root group of another hierarchy", REAL_WORLD("/NetCgroup"), "cpu", "/", true },
	{ "'/': not at the root of any v1 hierarchy", "3:cpu:/a\n2:name=systemd:/b\n0::/\n", "cpu", "/", false },
	{ "'/': name=systemd counts", "3:cpu:/a\n2:name=systemd:/\n0::/x\n", "cpu", "/", true },
	{ "the v2 line is not a v1 hierarchy", "2:memory:/m\n0::/Grp\n", "memory", "Grp", false },
};
/* clang-format on */

/* Is part one of the comma-separated items of list? */
static bool
has_part(const char *list, const char *part)
{
	size_t n = strlen(part);

	for (const char *s = list; s != NULL; s = strchr(s, ',')) {
		s += *s == ',';
		if (strncmp(s, part, n) == 0 && (s[n] == ',' || s[n] == '\0'))
			return true;
	}
	return false;
}

/*
 * Split /proc/PID/cgroup text (copied into buf) into the groups of its
 * v1 hierarchies (v1[0..*n-1]) and the hierarchy that holds controller
 * ctl (*hier, *bound: its group; ctl itself and NULL when none does).
 */
static void
split_proc(const char *proc, const char *ctl, char *buf, size_t len, const char **hier,
	   const char **bound, const char **v1, size_t *n)
{
	snprintf(buf, len, "%s", proc);
	*hier = ctl;
	*bound = NULL;
	*n = 0;
	for (char *line = strtok(buf, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		char *h = strchr(line, ':') + 1, *path = strchr(h, ':');

		*path++ = '\0';
		if (*h == '\0')
			continue; /* the v2 line */
		v1[(*n)++] = path;
		if (has_part(h, ctl)) {
			*hier = h;
			*bound = path;
		}
	}
}

/* The rule's hierarchy is the one bound, as a daemon managing only it. */
static void
test_libcgroup_ignore(void)
{
	for (size_t i = 0; i < sizeof(icases) / sizeof(icases[0]); i++) {
		const struct icase *c = &icases[i];
		char text[256], buf[1024], got[300];
		const char *hier, *bound, *v1[16];
		struct fake_log log;
		struct rules_decision d;
		size_t n;

		split_proc(c->proc, c->ctl, buf, sizeof(buf), &hier, &bound, v1, &n);
		snprintf(text, sizeof(text), "alice %s %s ignore\nalice %s def\n", c->ctl,
			 c->dst, c->ctl);
		struct rules_set *s = fake_load(text, FM, &log);
		if (s == NULL || rules_bind(s, &hier, 1) != 0)
			bail("%s: the rules do not load", c->name);
		struct rules_task t = { .pid = 4242,
					.uid = 1000,
					.euid = 1000,
					.gid = 100,
					.egid = 100,
					.comm = "p",
					.user = "alice",
					.cgroups = &bound,
					.v1groups = v1,
					.nv1groups = n };
		rules_match(s, &t, &d);
		describe(&d, 1, got, sizeof(got));
		is_string(c->holds ? "=@1" : "/def@2!", got, "libcgroup's %s: %s",
			  c->name, c->holds ? "held" : "not held");
		rules_free(s);
	}
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
	struct rules_set *c_ph = load(file_c, PH), *c_fm = load(file_c, FM);
	struct rules_set *d_fm = load(file_d, FM);

	plan((int)(NCASES + sizeof(icases) / sizeof(icases[0])) + 5);
	ok(NCASES >= 40, "at least 40 cases (%zu)", NCASES);
	for (size_t i = 0; i < NCASES; i++) {
		const struct mcase *c = &cases[i];
		struct rules_set *s = c->file == 'A'   ? (c->sem == PH ? a_ph : a_fm)
				      : c->file == 'B' ? (c->sem == PH ? b_ph : b_fm)
				      : c->file == 'C' ? (c->sem == PH ? c_ph : c_fm)
						       : d_fm;
		run_case(i, s);
	}
	test_libcgroup_ignore();
	test_hits(a_ph);
	test_bind_limits();
	rules_free(a_ph);
	rules_free(a_fm);
	rules_free(b_ph);
	rules_free(b_fm);
	rules_free(c_ph);
	rules_free(c_fm);
	rules_free(d_fm);
	return tap_done();
}
