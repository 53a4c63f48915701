/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
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

/* Wait (up to 30 s) until the monitor has something to read: the
 * notifications of a change someone else made. */
static void
readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 30000) != 1)
		diag("no notification within 30 s");
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
	readable(mon);
	is_int(0, nftset_monitor_read(mon, nftset_portid(c), ours, NULL),
	       "another set flushed, another set made: the monitor ignores them");
	if (sh("nft flush set inet cgt_nft www") != 0)
		bail("nft flush");
	readable(mon);
	is_int(1, nftset_monitor_read(mon, nftset_portid(c), ours, NULL),
	       "flushing the set by someone else: the monitor says so");
	is_int(0, nftset_monitor_read(mon, nftset_portid(c), ours, NULL), "once");
	if (sh("nft delete table inet cgt_nft && nft add table inet cgt_nft && "
	       "nft add set inet cgt_nft www '{ type cgroupsv2; }'") != 0)
		bail("nft remake");
	readable(mon);
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

/* The v2 mount of this machine, or NULL. */
static const char *
v2_mount(void)
{
	if (access("/sys/fs/cgroup/unified/cgroup.procs", F_OK) == 0)
		return "/sys/fs/cgroup/unified";
	if (access("/sys/fs/cgroup/cgroup.procs", F_OK) == 0)
		return "/sys/fs/cgroup";
	return NULL;
}

static void
lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		bail("lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		bail("lo up");
	close(fd);
}

/* A child in v2 group dir connects to 127.0.0.1:port: 0 if it could,
 * 1 if not (dropped: the connect times out). */
static int
try_connect(const char *dir, int port)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		char procs[300];
		FILE *f;

		snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
		if ((f = fopen(procs, "w")) == NULL || fprintf(f, "0\n") < 0 ||
		    fclose(f) != 0)
			_exit(2);
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct timeval tv = { .tv_usec = 300000 };
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_port = htons((uint16_t)port),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		_exit(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The kernel matches what nftset_add() wrote: "socket cgroupv2 level 2
 * @www" drops a process of a private v2 group whose id is in www. */
static void
matching(void)
{
	const char *mnt = v2_mount();
	char top[256], www[300];
	struct nftset_conn *c;
	struct nftset_ref r;
	char err[256];
	uint64_t id;

	if (mnt == NULL) {
		skip(5, "no cgroup2 mount");
		return;
	}
	struct hier h = { .name = "", .mount = (char *)mnt, .version = HIER_V2 };
	snprintf(top, sizeof(top), "%s/cgetest_nftm_%d", mnt, (int)getpid());
	snprintf(www, sizeof(www), "%s/www", top);
	if (mkdir(top, 0755) < 0 || mkdir(www, 0755) < 0)
		bail("mkdir %s", www);
	if (cgfs_id(&h, www + strlen(mnt), &id) < 0 || nftset_open(&c) < 0 ||
	    nftset_parse("inet cgt_nftm www", &r, err, sizeof(err)) < 0)
		bail("set-up");
	lo_up();
	if (sh("nft add table inet cgt_nftm && "
	       "nft add set inet cgt_nftm www '{ type cgroupsv2; }' && "
	       "nft add chain inet cgt_nftm out '{ type filter hook output priority 0; }' && "
	       "nft add rule inet cgt_nftm out socket cgroupv2 level 2 @www counter drop") !=
	    0)
		bail("nft rules");
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(ls, 16) < 0 ||
	    getsockname(ls, (struct sockaddr *)&sa, &len) < 0)
		bail("listen");
	int port = ntohs(sa.sin_port);

	is_int(0, try_connect(www, port), "a process of group www connects");
	is_int(0, nftset_add(c, &r, &id, 1), "the group's id is added");
	is_int(1, try_connect(www, port), "now its connection is dropped by the rule");
	is_int(0, try_connect(top, port), "a process of the group above is not matched");
	is_int(0, nftset_del(c, &r, &id, 1), "the id deleted");
	/* (the dropped connection leaves nothing behind: SYNs were dropped) */
	(void)sh("nft delete table inet cgt_nftm");
	close(ls);
	nftset_close(c);
	rmdir(www);
	rmdir(top);
}

int
main(void)
{
	plan(46);
	parsing();
	if (geteuid() != 0) {
		skip(33, "needs root");
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
	matching();
	return tap_done();
}
