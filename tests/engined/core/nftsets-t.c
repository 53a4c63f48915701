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
#include "engined/render/render.h"
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static const struct backend_nft fake_nft = { .add = fake_add, .del = fake_del, .list = fake_list };

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

	if (backend_id(&fx.cgfs, core_policy(c)->v2, path, &id) < 0)
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
	char lines[8][1024];
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
	if (render_answer(&rq, 2, argv, &out, err, sizeof(err)) < 0 || out.p == NULL)
		return err;
	return out.p;
}

/* cgenginectl [--json] VERB ARG... as uid: the output, or the error. */
static const char *
ask(struct core *c, uid_t uid, bool json, const char *line)
{
	static struct strbuf out;
	static char err[256], copy[512];
	char *argv[8], *save = NULL;
	int argc = 0;
	struct verbs_request rq = { .core = c, .now = 40.0, .uid = uid, .json = json };

	snprintf(copy, sizeof(copy), "%s", line);
	for (char *w = strtok_r(copy, " ", &save); w != NULL && argc < 8;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	strbuf_reset(&out);
	err[0] = '\0';
	if (render_answer(&rq, argc, argv, &out, err, sizeof(err)) < 0 || out.p == NULL)
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
	       backend_rmdir(&fx.cgfs, core_policy(c)->v2, "/svc/profs/www/default"),
	       "(someone removes the group)");
	is_int(0, backend_rmdir(&fx.cgfs, core_policy(c)->v2, "/svc/profs/www"),
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

	/* issue 22 §9: the sets as the daemon keeps them, without nft list */
	text = ask(c, 0, false, "nft-sets");
	ok(strstr(text, "inet fw www                                     2  ok\n") != NULL &&
		   strstr(text, "inet fw users                                   0  ok\n") != NULL,
	   "nft-sets: each set with the ids the daemon put there");
	char want[256];
	text = ask(c, 0, false, "nft-sets inet fw www");
	snprintf(want, sizeof(want), "3      %-20llu /svc/profs/www\n3      %-20llu /svc/students/www\n",
		 (unsigned long long)pw2, (unsigned long long)sw);
	ok(strstr(text, "nft set inet fw www: 2 group ids put there by cgengined\n") == text &&
		   strstr(text, want) != NULL,
	   "nft-sets SET: its groups, sorted, with id and level");
	snprintf(want, sizeof(want),
		 "{\"family\":\"inet\",\"table\":\"fw\",\"set\":\"www\",\"ids\":2,\"groups\":"
		 "[{\"group\":\"/svc/profs/www\",\"id\":%llu,\"level\":3},",
		 (unsigned long long)pw2);
	is_string(want, strstr(ask(c, 0, true, "nft-sets inet fw www"), want) ? want : "(not there)",
		  "... and in JSON");
	is_string("permission denied: 'nft-sets' needs root", ask(c, 65534, false, "nft-sets"),
		  "only root may ask");
	is_string("nft set inet fw ssh is not one cgengined keeps",
		  ask(c, 0, false, "nft-sets inet fw ssh"), "a set it does not keep");
	core_free(c);
	fixture_done(&fx);
}

/* fs->id counted per call into the core: the groups a sync step looks at */
static unsigned ids_read;
static int (*real_id)(void *arg, const struct hier *h, const char *path, uint64_t *id);

static int
counting_id(void *arg, const struct hier *h, const char *path, uint64_t *id)
{
	ids_read++;
	return real_id(arg, h, path, id);
}

/* Drive the loop until no sync step is due; the most groups one call
 * looked at, and the calls it took. */
static unsigned
drive_sync(struct core *c, double *now, unsigned *steps)
{
	unsigned most = 0;

	for (*steps = 0; *steps < 10000; ++*steps) {
		double at = core_next_deadline(c, *now);
		if (at < 0 || at > *now)
			break;
		ids_read = 0;
		core_timeout(c, *now);
		most = ids_read > most ? ids_read : most;
		*now += 1e-4;
	}
	return most;
}

#define MANY 1500

/* Issue 22 §8: a sync of many groups runs in bounded steps, and a
 * process exec'd meanwhile is placed (its group in the set) at once. */
static void
test_many(void)
{
	char dir[512];

	fixture_init(&fx);
	memset(sets, 0, sizeof(sets));
	fx.nft = &fake_nft;
	fixture_v2(&fx, "cpu", "/svc");
	/* empty template groups stay: they stand for many in use */
	fixture_files(&fx, CONF "remove-empty = false\n", RULES);
	fake_make("inet fw users");
	snprintf(dir, sizeof(dir), "%s/svc/students", fx.cg2);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/svc/students/u", fx.cg2);
	mkdir(dir, 0755);
	for (int i = 0; i < MANY; i++) {
		snprintf(dir, sizeof(dir), "%s/svc/students/u/g%d", fx.cg2, i);
		if (mkdir(dir, 0755) < 0)
			bail("mkdir %s", dir);
	}
	real_id = fx.cgfs.ids.id;
	fx.cgfs.ids.id = counting_id;
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("core");
	double now = 1.0;
	unsigned steps;
	core_start(c, now);
	ok(core_next_deadline(c, now) == now, "a sync of %d groups is not done in one call",
	   MANY);
	unsigned most = drive_sync(c, &now, &steps);
	is_int(MANY, (long long)count("inet fw users"), "... then every group's id is in");
	ok(steps > 2 && most <= 256, "in %u steps, each looking at %u groups at most", steps,
	   most);

	/* a firewall reload empties the set; a process execs mid-sync */
	struct fakeset *users =
		find(&(struct nftset_ref){ .family = 1, .table = "fw", .set = "users" });
	users->n = 0;
	core_nft_changed(c, now);
	now += 0.3;
	core_timeout(c, now);
	ok(count("inet fw users") < MANY, "one step of the sync ran (%zu ids back)",
	   count("inet fw users"));
	fixture_proc(&fx, 500, 0, 0, "/usr/bin/fx-user", 5, "/");
	fixture_proc_v2(&fx, 500, "/");
	exec_event(c, 500, now);
	is_string("/svc/profs/u/root", fixture_group_v2(&fx, 500),
		  "a process exec'd during the sync is placed at once");
	ok(holds("inet fw users", id_of(c, "/svc/profs/u/root")),
	   "... and its new group's id is in the set already");
	/* a reload in the middle of it starts over, nothing lost */
	is_int(0, core_reload(c, now), "a reload in the middle of the sync");
	drive_sync(c, &now, &steps);
	is_int(MANY + 1, (long long)count("inet fw users"),
	       "the set holds every group's id again, and the new one");
	const char *text = ask(c, 0, false, "nft-sets inet fw users");
	ok(strstr(text, "nft set inet fw users: 1501 group ids put there by cgengined\n") ==
			   text &&
		   strstr(text, " /svc/students/u/g999\n") != NULL,
	   "nft-sets lists all 1,501 of them");
	core_free(c);
	fixture_done(&fx);
}

/* A directory of the fixture's v2 tree, made as a former run left it;
 * its id. */
static uint64_t
former(const char *path)
{
	static const struct hier v2 = { .name = "", .version = HIER_V2 };
	char dir[512];
	uint64_t id = 0;

	snprintf(dir, sizeof(dir), "%s%s", fx.cg2, path);
	for (char *p = dir + strlen(fx.cg2) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0755);
			*p = '/';
		}
	if (mkdir(dir, 0755) < 0 || backend_id(&fx.cgfs, &v2, path, &id) < 0)
		bail("cannot make %s", dir);
	return id;
}

/*
 * Issue 22 §5: template groups a former run made, whose processes
 * exited while the daemon was stopped, are removed at start and their
 * ids leave the sets; one still in use is removed once it empties;
 * groups of fixed destinations and others' groups stay.
 */
static void
test_leftovers(void)
{
	fixture_init(&fx);
	memset(sets, 0, sizeof(sets));
	fx.nft = &fake_nft;
	fixture_v2(&fx, "cpu", "/svc");
	fixture_files(&fx, CONF, RULES);
	struct fakeset *users = fake_make("inet fw users");
	uint64_t alice = former("/svc/profs/u/alice"), bob = former("/svc/profs/u/bob");
	uint64_t carol = former("/svc/students/u/carol");
	uint64_t dave = former("/svc/students/u/dave");
	former("/svc/students/www/default");
	former("/svc/students/admins/own");
	users->ids[users->n++] = alice;
	users->ids[users->n++] = bob;
	users->ids[users->n++] = carol;
	users->ids[users->n++] = dave;
	fixture_proc(&fx, 600, 65534, 65534, "/usr/bin/cat", 60, "/");
	fixture_proc_v2(&fx, 600, "/svc/students/u/carol");
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("core");
	core_start(c, 1.0);
	ok(id_of(c, "/svc/profs/u/alice") == 0 && id_of(c, "/svc/profs/u/bob") == 0 &&
		   id_of(c, "/svc/students/u/dave") == 0,
	   "empty template groups of a former run are removed at start");
	ok(!holds("inet fw users", alice) && !holds("inet fw users", bob) &&
		   !holds("inet fw users", dave),
	   "... and their ids leave the set");
	ok(id_of(c, "/svc/students/u/carol") == carol && holds("inet fw users", carol),
	   "one with a process in it stays, in the set");
	ok(id_of(c, "/svc/students/www/default") != 0 && id_of(c, "/svc/profs/u") != 0,
	   "groups of fixed destinations stay");
	ok(id_of(c, "/svc/students/admins/own") != 0, "so does a group no rule would make");
	fixture_gone(&fx, 600);
	core_timeout(c, 10.0);
	core_timeout(c, 20.0);
	ok(id_of(c, "/svc/students/u/carol") == 0 && !holds("inet fw users", carol),
	   "the one in use is removed once empty, as at run time, its id deleted");
	core_free(c);
	fixture_done(&fx);
}

/* Issue 22 §4: the daemon's own leaf never goes into a set, even when
 * the first dimension's template could name it. */
static void
test_leaf(void)
{
	fixture_init(&fx);
	memset(sets, 0, sizeof(sets));
	fx.nft = &fake_nft;
	fixture_v2(&fx, "cpu", "/svc");
	fixture_files(&fx,
		      "unified-layout = {\"cpu\"}\n"
		      "group \"cpu:/%p\" { nft-set = {\"inet fw p\"} }\n"
		      "group \"cpu:/daemon\" { nft-set = {\"inet fw p\"} }\n",
		      "* cpu /%p\n");
	fake_make("inet fw p");
	fixture_proc(&fx, getpid(), 0, 0, "/usr/sbin/cgengined", 1, "/");
	fixture_proc_v2(&fx, getpid(), "/svc");
	fixture_proc(&fx, 100, 0, 0, "/usr/bin/fx-www", 10, "/");
	fixture_proc(&fx, 200, 0, 0, "/usr/sbin/daemon", 20, "/");
	fixture_proc_v2(&fx, 100, "/");
	fixture_proc_v2(&fx, 200, "/");
	struct core *c = fixture_core(&fx);
	if (c == NULL)
		bail("core");
	core_start(c, 1.0);
	uint64_t leaf = id_of(c, "/svc/daemon");
	ok(leaf != 0 && holds("inet fw p", id_of(c, "/svc/fx-www")),
	   "a template's group is in its set");
	ok(!holds("inet fw p", leaf) && count("inet fw p") == 1,
	   "the daemon's leaf is not, though /%%p and /daemon match its name");
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
	plan(47 + 8 + 6 + 2 + 6);
	test_missing_then_made();
	test_sets();
	test_none();
	test_many();
	test_leaf();
	test_leftovers();
	test_config();
	return tap_done();
}
