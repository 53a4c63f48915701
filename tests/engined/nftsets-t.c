/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nftsets-t.c -- keeping nftables sets of group ids (engined/nftsets.c)
 * without root: the core over the fixture's v2 tree with the unified
 * layout, and a stand-in for nf_tables that holds sets in memory.
 * Which groups go in which set, ids of groups made, removed and made
 * again, a set that appears later, a set flushed by a firewall reload,
 * stale ids, a reload that stops naming a set, explain's view, and the
 * config's errors.
 */
#include "engined/core/core_private.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a stand-in for nf_tables ---------------------------------------------- */

#define NSETS 8

static struct fakeset {
	char name[64]; /* "inet fw www" */
	bool exists;
	bool wrong_type;
	uint64_t ids[2048];
	size_t n;
} sets[NSETS];
static unsigned calls;

static struct fakeset *
find(const struct nftset_ref *r)
{
	char name[600];

	nftset_format(r, name, sizeof(name));
	for (size_t i = 0; i < NSETS; i++)
		if (strcmp(sets[i].name, name) == 0)
			return &sets[i];
	return NULL;
}

static struct fakeset *
fake_make(const char *name)
{
	for (size_t i = 0; i < NSETS; i++)
		if (sets[i].name[0] == '\0' || strcmp(sets[i].name, name) == 0) {
			snprintf(sets[i].name, sizeof(sets[i].name), "%s", name);
			sets[i].exists = true;
			sets[i].n = 0;
			return &sets[i];
		}
	bail("too many sets");
}

static bool
holds(const char *name, uint64_t id)
{
	for (size_t i = 0; i < NSETS; i++)
		if (strcmp(sets[i].name, name) == 0)
			for (size_t k = 0; k < sets[i].n; k++)
				if (sets[i].ids[k] == id)
					return true;
	return false;
}

static size_t
count(const char *name)
{
	for (size_t i = 0; i < NSETS; i++)
		if (strcmp(sets[i].name, name) == 0)
			return sets[i].n;
	return 0;
}

static int
fake_add(void *arg, const struct nftset_ref *r, const uint64_t *ids, size_t n)
{
	struct fakeset *s = find(r);

	calls++;
	if (s == NULL || !s->exists)
		return -ENOENT;
	if (s->wrong_type)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		bool have = false;
		for (size_t k = 0; k < s->n; k++)
			have = have || s->ids[k] == ids[i];
		if (!have && s->n < 2048)
			s->ids[s->n++] = ids[i];
	}
	return 0;
}

static int
fake_del(void *arg, const struct nftset_ref *r, const uint64_t *ids, size_t n)
{
	struct fakeset *s = find(r);

	calls++;
	if (s == NULL || !s->exists)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) /* all or nothing, as one transaction */
		if (!holds(s->name, ids[i]))
			return -ENOENT;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < s->n; k++)
			if (s->ids[k] == ids[i]) {
				s->ids[k] = s->ids[--s->n];
				break;
			}
	return 0;
}

static int
fake_list(void *arg, const struct nftset_ref *r, uint64_t **ids, size_t *n)
{
	struct fakeset *s = find(r);

	calls++;
	if (s == NULL || !s->exists)
		return -ENOENT;
	if (s->wrong_type)
		return -EPROTOTYPE;
	*ids = malloc((s->n + 1) * sizeof(**ids));
	if (*ids == NULL)
		return -ENOMEM;
	memcpy(*ids, s->ids, s->n * sizeof(**ids));
	*n = s->n;
	return 0;
}

static const struct core_nft fake_nft = { fake_add, fake_del, fake_list, NULL };

/* ---- the world ---------------------------------------------------------------- */

static struct fixture fx;

#define CONF                                                                             \
	"unified-layout = {\"cpu\", \"net_cls\"}\n"                                      \
	"group \"net_cls:/www\" { nft-set = {\"inet fw www\", \"inet fw web\"} }\n"      \
	"group \"net_cls:/nfs\" { nft-set = {\"inet fw nfs\"} }\n"                       \
	"group \"net_cls:/u/%u\" { nft-set = {\"inet fw users\"} }\n"                    \
	"group \"name=cgecore:/x\" { nft-set = {\"inet fw v1\"} }\n"

#define RULES                                                                            \
	"*:fx-www   net_cls /www\n"                                                      \
	"*:fx-nfs   net_cls /nfs\n"                                                      \
	"*:fx-user  net_cls /u/%u\n"                                                     \
	"root       cpu     /profs\n"                                                    \
	"*          cpu     /students\n"

/* The id of a group of the v2 tree (0 if there is none). */
static uint64_t
id_of(const struct core *c, const char *path)
{
	uint64_t id = 0;

	if (fx.cgfs.id(fx.cgfs.arg, core_policy(c)->v2, path, &id) < 0)
		return 0;
	return id;
}

static void
exec_event(struct core *c, pid_t pid, double now)
{
	struct procev_event ev = fixture_event(PROCEV_EXEC, pid, 0);

	core_event(c, &ev, now);
	core_batch_done(c, now);
}

struct seen {
	char lines[8][300];
	size_t n;
};

static void
seen_set(void *arg, const struct nftset_ref *set, const char *group, unsigned level)
{
	struct seen *s = arg;
	char name[600];

	nftset_format(set, name, sizeof(name));
	if (s->n < 8)
		snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%s %s %u", name, group, level);
}

/* cgenginectl [--json] explain pid, as root: the output. */
static const char *
explain(struct core *c, pid_t pid, bool json)
{
	static struct strbuf out;
	static char err[256];
	char arg[16], *argv[] = { "explain", arg };
	struct verbs_request rq = { .core = c, .now = 40.0, .uid = 0, .json = json };

	snprintf(arg, sizeof(arg), "%d", (int)pid);
	strbuf_reset(&out);
	if (verbs_dispatch(&rq, 2, argv, &out, err, sizeof(err)) < 0 || out.p == NULL)
		return err;
	return out.p;
}

static void
test_missing_then_made(void)
{
	fixture_init(&fx);
	memset(sets, 0, sizeof(sets));
	fx.nft = &fake_nft;
	fixture_v2(&fx, "cpu", "/svc");
	fixture_files(&fx, CONF, RULES);
	fixture_proc(&fx, 100, 0, 0, "/usr/bin/fx-www", 1, "/");
	fixture_proc_v2(&fx, 100, "/");
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("core");
	ok(core_nft_wanted(c), "a policy naming sets wants the ruleset watched");
	core_start(c, 1.0);
	is_string("/svc/profs/www/default", fixture_group_v2(&fx, 100),
		  "root's browser placed");
	is_int(0, (long long)count("inet fw www"), "no set yet: nothing added, no crash");
	fake_make("inet fw www");
	core_nft_changed(c, 2.0);
	double d = core_next_deadline(c, 2.0);
	ok(d > 2.0 && d <= 2.2 + 1e-9,
	   "the ruleset changed: a sync is due shortly (%.3f)", d);
	core_timeout(c, d);
	ok(holds("inet fw www", id_of(c, "/svc/profs/www")),
	   "the set made later gets the group's id at the sync");
	is_int(1, (long long)count("inet fw www"), "only that one");
	ok(core_next_deadline(c, d) < 0 || core_next_deadline(c, d) > d + 0.5,
	   "no sync is due any more");
	core_free(c);
	fixture_done(&fx);
}

static void
test_sets(void)
{
	fixture_init(&fx);
	memset(sets, 0, sizeof(sets));
	fx.nft = &fake_nft;
	fixture_v2(&fx, "cpu", "/svc");
	fixture_files(&fx, CONF, RULES);
	const char *names[] = { "inet fw www", "inet fw web", "inet fw nfs",
				"inet fw users", "inet fw v1" };
	for (size_t i = 0; i < 5; i++)
		fake_make(names[i]);
	fixture_proc(&fx, 100, 0, 0, "/usr/bin/fx-www", 1, "/");
	fixture_proc(&fx, 200, 65534, 65534, "/usr/bin/fx-www", 2, "/");
	fixture_proc(&fx, 300, 65534, 65534, "/usr/bin/fx-nfs", 3, "/");
	fixture_proc(&fx, 400, 0, 0, "/usr/bin/fx-user", 4, "/");
	for (pid_t p = 100; p <= 400; p += 100)
		fixture_proc_v2(&fx, p, "/");
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("core");
	/* a stale id of a group that no longer exists, and a live one */
	uint64_t live = id_of(c, "/svc");
	struct fakeset *www =
		find(&(struct nftset_ref){ .family = 1, .table = "fw", .set = "www" });
	if (www == NULL)
		bail("no www");
	www->ids[www->n++] = 999999;
	www->ids[www->n++] = live;
	core_start(c, 1.0);

	uint64_t pw = id_of(c, "/svc/profs/www"), sw = id_of(c, "/svc/students/www");
	uint64_t sn = id_of(c, "/svc/students/nfs"), ur = id_of(c, "/svc/profs/u/root");
	ok(pw && sw && sn && ur, "the groups were made");
	ok(holds("inet fw www", pw) && holds("inet fw www", sw),
	   "www holds the www level under every cpu class");
	ok(holds("inet fw web", pw) && holds("inet fw web", sw) &&
		   count("inet fw web") == 2,
	   "a group's second set too, nothing else");
	ok(holds("inet fw nfs", sn) && count("inet fw nfs") == 1,
	   "nfs holds the nfs group");
	ok(holds("inet fw users", ur) && count("inet fw users") == 1,
	   "users holds the template's group (/u/root), not its parent");
	ok(!holds("inet fw www", id_of(c, "/svc/profs/www/default")),
	   "not the leaf below the www level");
	ok(!holds("inet fw www", 999999),
	   "the id of a group that no longer exists is deleted");
	ok(holds("inet fw www", live), "an id of another, living group is left alone");
	is_int(0, (long long)count("inet fw v1"), "a v1 group's set is never touched");

	ok(core_nft_names(
		   c, &(struct nftset_ref){ .family = 1, .table = "fw", .set = "nfs" }),
	   "the loop hears of a change to one of the sets");
	ok(!core_nft_names(
		   c, &(struct nftset_ref){ .family = 1, .table = "fw", .set = "ssh" }),
	   "... and ignores another set of the same table");
	ok(!core_nft_names(
		   c, &(struct nftset_ref){ .family = 2, .table = "fw", .set = "nfs" }),
	   "... or of another family");
	struct seen s = { 0 };
	core_nft_sets_of(c, "/svc/students/www/default", seen_set, &s);
	is_int(2, (long long)s.n, "explain: the sets of a process's groups");
	is_string("inet fw www /svc/students/www 3", s.lines[0],
		  "with the group and its level");
	is_string("inet fw web /svc/students/www 3", s.lines[1], "and the second set");
	memset(&s, 0, sizeof(s));
	core_nft_sets_of(c, "/svc/profs/u/root", seen_set, &s);
	is_string("inet fw users /svc/profs/u/root 4", s.lines[0], "a template level");

	/* a firewall reload flushes the sets */
	www->n = 0;
	struct fakeset *web =
		find(&(struct nftset_ref){ .family = 1, .table = "fw", .set = "web" });
	web->n = 0;
	www->ids[www->n++] = live; /* another's element, loaded with the firewall */
	core_nft_changed(c, 5.0);
	core_timeout(c, 5.3);
	ok(holds("inet fw www", pw) && holds("inet fw www", sw) &&
		   holds("inet fw web", pw),
	   "flushed by a firewall reload: filled again at the sync");

	/* the group removed and made again behind the daemon's back */
	fixture_proc_v2(&fx, 100, "/");
	is_int(0,
	       fx.cgfs.rmdir(fx.cgfs.arg, core_policy(c)->v2, "/svc/profs/www/default"),
	       "(someone removes the group)");
	is_int(0, fx.cgfs.rmdir(fx.cgfs.arg, core_policy(c)->v2, "/svc/profs/www"),
	       "(and its parent)");
	exec_event(c, 100, 6.0);
	uint64_t pw2 = id_of(c, "/svc/profs/www");
	ok(pw2 != 0 && pw2 != pw, "the daemon made it again, with a new id");
	ok(holds("inet fw www", pw2) && holds("inet fw web", pw2), "the new id is added");
	ok(!holds("inet fw www", pw) && !holds("inet fw web", pw), "the old one deleted");

	/* a template group removed once empty */
	fixture_gone(&fx, 400);
	core_timeout(c, 20.0);
	ok(id_of(c, "/svc/profs/u/root") == 0, "the empty template group was removed");
	ok(!holds("inet fw users", ur), "its id was deleted from its set");

	/* a firewall's set full of others' ids: the sync checks at most
	 * 1024 of them for life each time, so it never stalls for long */
	struct fakeset *nfs =
		find(&(struct nftset_ref){ .family = 1, .table = "fw", .set = "nfs" });
	for (uint64_t k = 0; k < 1500; k++)
		nfs->ids[nfs->n++] = 500000 + k; /* groups long gone */
	core_nft_changed(c, 20.5);
	core_timeout(c, 20.8);
	is_int(1 + 1500 - 1024, (long long)count("inet fw nfs"),
	       "1,500 stale ids: 1,024 checked and deleted in one sync");
	core_nft_changed(c, 20.85);
	core_timeout(c, 21.05);
	ok(count("inet fw nfs") == 1 && holds("inet fw nfs", sn),
	   "the rest at the next one; the daemon's own id stays");

	/* a set of the wrong type: said, nothing breaks */
	www->wrong_type = true;
	core_nft_changed(c, 21.1);
	core_timeout(c, 21.5);
	ok(holds("inet fw web", pw2), "another set is still kept");
	www->wrong_type = false;

	/* a reload that no longer names nfs: its ids go */
	fixture_files(&fx,
		      "unified-layout = {\"cpu\", \"net_cls\"}\n"
		      "group \"net_cls:/www\" { nft-set = {\"inet fw www\"} }\n",
		      RULES);
	is_int(0, core_reload(c, 30.0), "reload without the nfs and web sets");
	is_int(0, (long long)count("inet fw nfs"), "the ids put in nfs are deleted");
	is_int(0, (long long)count("inet fw web"), "and those in web");
	ok(holds("inet fw www", pw2) && holds("inet fw www", sw), "www is kept");
	ok(holds("inet fw www", live), "another's id in it still left alone");
	fixture_files(&fx, CONF, RULES);
	is_int(0, core_reload(c, 31.0), "reload naming them again");
	ok(holds("inet fw nfs", sn) && holds("inet fw web", sw), "they are filled again");

	const char *text = explain(c, 200, false);
	ok(strstr(text,
		  "\nnft sets: inet fw www (level 3, unified:/svc/students/www)\n") &&
		   strstr(text,
			  "\nnft sets: inet fw web (level 3, unified:/svc/students/www)\n"),
	   "cgenginectl explain names the sets, levels and groups");
	text = explain(c, 200, true);
	ok(strstr(text,
		  "\"nft_sets\":[{\"family\":\"inet\",\"table\":\"fw\","
		  "\"set\":\"www\",\"group\":\"/svc/students/www\",\"level\":3},") !=
		   NULL,
	   "... and so does --json explain");
	core_free(c);
	fixture_done(&fx);
}

static void
test_none(void)
{
	fixture_init(&fx);
	memset(sets, 0, sizeof(sets));
	fx.nft = &fake_nft;
	fixture_v2(&fx, "cpu", "/svc");
	fixture_files(&fx, "unified-layout = {\"cpu\", \"net_cls\"}\n", RULES);
	fixture_proc(&fx, 100, 0, 0, "/usr/bin/fx-www", 1, "/");
	fixture_proc_v2(&fx, 100, "/");
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("core");
	calls = 0;
	core_start(c, 1.0);
	core_nft_changed(c, 2.0);
	ok(!core_nft_wanted(c), "no set named: the ruleset is not watched");
	is_int(0, calls, "and nf_tables is never asked anything");
	core_free(c);
	fixture_done(&fx);
}

static char errors[4][512];
static size_t nerrors;

static void catch (void *arg, const char *msg)
{
	if (nerrors < 4)
		snprintf(errors[nerrors++], sizeof(errors[0]), "%s", msg);
}

static void
test_config(void)
{
	char path[] = "/tmp/cgetest-nftconf.XXXXXX";
	int fd = mkstemp(path);
	struct report rep = { .fn = catch };
	const char *text = "group \"net_cls:/www\" {\n"
			   "    nft-set = {\"inet fw\"}\n"
			   "}\n";

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		bail("mkstemp");
	close(fd);
	ok(config_load(path, false, &rep) == NULL, "a set named by two words: refused");
	char want[700];
	snprintf(
		want, sizeof(want),
		"%s:3: group \"net_cls:/www\": nft-set \"inet fw\": expected \"FAMILY TABLE "
		"SET\" (e.g. \"inet filter www\"), names of printable characters, at most "
		"255 bytes",
		path);
	is_string(want, errors[0], "with file, line and the reason");
	unlink(path);
}

int
main(void)
{
	plan(47);
	test_missing_then_made();
	test_sets();
	test_none();
	test_config();
	return tap_done();
}
