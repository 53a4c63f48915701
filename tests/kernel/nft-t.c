/*
 * nft-t.c -- kernel/nft.c: parsing "FAMILY TABLE SET" (no root), then
 * as root in a private network namespace (the host's firewall is never
 * touched): adding, listing and deleting cgroup ids in a real nftables
 * set of type cgroupsv2, the errors for a missing or wrong set, the
 * monitor, and cgroup ids of a private sub-tree of the cgroup2 mount.
 */
#include "kernel/kernel.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
parsing(void)
{
	struct nftset_ref r;
	char err[256], buf[600];

	is_int(0, nftset_parse("inet filter www", &r, err, sizeof(err)),
	       "a set is parsed");
	nftset_format(&r, buf, sizeof(buf));
	is_string("inet filter www", buf, "and formatted back");
	is_int(0, nftset_parse("  ip6\tfw  nfs_ids ", &r, err, sizeof(err)),
	       "blanks around words are fine");
	is_string("fw", r.table, "table");
	is_string("nfs_ids", r.set, "set");
	is_int(-EINVAL, nftset_parse("inet filter", &r, err, sizeof(err)),
	       "two words: refused");
	is_string("expected \"FAMILY TABLE SET\" (e.g. \"inet filter www\"), names of "
		  "printable characters, at most 255 bytes",
		  err, "with the reason");
	is_int(-EINVAL, nftset_parse("inet a b c", &r, err, sizeof(err)),
	       "four words: refused");
	is_int(-EINVAL, nftset_parse("inet \"a\" b", &r, err, sizeof(err)),
	       "quotes: refused");
	is_int(-EINVAL, nftset_parse("inet a\x01 b", &r, err, sizeof(err)),
	       "control characters: refused");
	is_int(-EINVAL, nftset_parse("ipx filter www", &r, err, sizeof(err)),
	       "an unknown family: refused");
	is_string("unknown family \"ipx\" (ip, ip6, inet, arp, bridge, netdev)", err,
		  "with the families known");
	char longname[300] = "inet t ";
	memset(longname + 7, 'a', 256);
	longname[7 + 256] = '\0';
	is_int(-EINVAL, nftset_parse(longname, &r, err, sizeof(err)),
	       "a name of 256 bytes: refused");
}

static int
sh(const char *cmd)
{
	return system(cmd);
}

static bool
has(const uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* The test's sets are "www" and "nfs" of table cgt_nft. */
static bool
ours(void *arg, const struct nftset_ref *r)
{
	return strcmp(r->table, "cgt_nft") == 0 &&
	       (strcmp(r->set, "www") == 0 || strcmp(r->set, "nfs") == 0);
}

static void
sets(void)
{
	struct nftset_conn *c;
	struct nftset_ref www, gone, addr;
	uint64_t ids[600], *got;
	size_t n;
	char err[256];

	if (nftset_parse("inet cgt_nft www", &www, err, sizeof(err)) < 0 ||
	    nftset_parse("inet cgt_nft gone", &gone, err, sizeof(err)) < 0 ||
	    nftset_parse("inet cgt_nft addr", &addr, err, sizeof(err)) < 0)
		bail("parse");
	if (sh("nft add table inet cgt_nft && "
	       "nft add set inet cgt_nft www '{ type cgroupsv2; }' && "
	       "nft add set inet cgt_nft addr '{ type ipv4_addr; }' && "
	       "nft add element inet cgt_nft addr '{ 10.0.0.1 }'") != 0)
		bail("nft cannot make the test's table");
	is_int(0, nftset_open(&c), "a connection is opened");
	ok(nftset_portid(c) != 0, "with a port id");
	int mon = nftset_monitor_open();
	ok(mon >= 0, "the monitor is opened");

	for (size_t i = 0; i < 600; i++)
		ids[i] = 1000 + i;
	is_int(0, nftset_add(c, &www, ids, 600),
	       "600 ids are added (three transactions)");
	is_int(0, nftset_list(c, &www, &got, &n), "the set is listed");
	is_int(600, (long long)n, "with all of them");
	ok(n == 600 && has(got, n, 1000) && has(got, n, 1599), "the first and the last");
	free(got);
	is_int(0, nftset_add(c, &www, ids, 2), "adding present ids again is fine");
	is_int(0, sh("nft list set inet cgt_nft www | grep -q 1599"), "nft shows them");
	is_int(0, nftset_monitor_read(mon, nftset_portid(c), ours, NULL),
	       "the monitor ignores our own changes");

	is_int(0, nftset_del(c, &www, ids + 1, 599), "599 are deleted");
	is_int(0, nftset_list(c, &www, &got, &n), "listed again");
	ok(n == 1 && got[0] == 1000, "one is left");
	free(got);
	is_int(-ENOENT, nftset_del(c, &www, ids + 1, 1),
	       "deleting an absent id: -ENOENT");
	is_int(-ENOENT, nftset_add(c, &gone, ids, 1), "adding to a missing set: -ENOENT");
	is_int(-ENOENT, nftset_list(c, &gone, &got, &n),
	       "listing a missing set: -ENOENT");
	is_int(-EINVAL, nftset_add(c, &addr, ids, 1), "a set of addresses: -EINVAL");
	is_int(-EPROTOTYPE, nftset_list(c, &addr, &got, &n),
	       "its elements are not cgroup ids: -EPROTOTYPE");

	if (sh("nft flush set inet cgt_nft addr && nft add set inet cgt_nft other "
	       "'{ type cgroupsv2; }'") != 0)
		bail("nft flush addr");
	usleep(100000);
	is_int(0, nftset_monitor_read(mon, nftset_portid(c), ours, NULL),
	       "another set flushed, another set made: the monitor ignores them");
	if (sh("nft flush set inet cgt_nft www") != 0)
		bail("nft flush");
	usleep(100000);
	is_int(1, nftset_monitor_read(mon, nftset_portid(c), ours, NULL),
	       "flushing the set by someone else: the monitor says so");
	is_int(0, nftset_monitor_read(mon, nftset_portid(c), ours, NULL), "once");
	if (sh("nft delete table inet cgt_nft && nft add table inet cgt_nft && "
	       "nft add set inet cgt_nft www '{ type cgroupsv2; }'") != 0)
		bail("nft remake");
	usleep(100000);
	is_int(1, nftset_monitor_read(mon, nftset_portid(c), ours, NULL),
	       "the table made again: the monitor says so");
	close(mon);
	nftset_close(c);
	(void)sh("nft delete table inet cgt_nft");
}

static void
ids(void)
{
	struct hier h = { .name = "",
			  .mount = "/sys/fs/cgroup/unified",
			  .version = HIER_V2 };
	char dir[256], path[64];
	struct stat st;
	uint64_t id, id2;

	if (access("/sys/fs/cgroup/unified/cgroup.procs", F_OK) == 0)
		;
	else if (access("/sys/fs/cgroup/cgroup.procs", F_OK) == 0)
		h.mount = "/sys/fs/cgroup";
	else {
		skip(6, "no cgroup2 mount");
		return;
	}
	snprintf(path, sizeof(path), "/cgetest_nft_%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s%s", h.mount, path);
	if (mkdir(dir, 0755) < 0)
		bail("mkdir %s", dir);
	is_int(0, cgfs_id(&h, path, &id), "the id of a private v2 group");
	ok(stat(dir, &st) == 0 && (uint64_t)st.st_ino == id, "it is its inode number");
	is_int(1, cgfs_id_live(&h, id), "it is alive");
	rmdir(dir);
	is_int(0, cgfs_id_live(&h, id), "removed: it is gone");
	if (mkdir(dir, 0755) < 0)
		bail("mkdir %s", dir);
	is_int(0, cgfs_id(&h, path, &id2), "made again");
	ok(id2 != id, "with a new id");
	rmdir(dir);
}

int
main(void)
{
	plan(41);
	parsing();
	if (geteuid() != 0) {
		skip(28, "needs root");
		return tap_done();
	}
	ids();
	if (system("command -v nft >/dev/null") != 0 || unshare(CLONE_NEWNET) < 0 ||
	    system("nft list tables >/dev/null 2>&1") != 0) {
		skip(21,
		     "needs nft (Debian package nftables) and a private network namespace");
		return tap_done();
	}
	sets();
	return tap_done();
}
