/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nft.c -- nftables sets of cgroup ids (type cgroupsv2), through
 * libnftnl and libmnl: add and delete elements, list a set, and watch
 * the ruleset change.  The names of sets ("FAMILY TABLE SET") are
 * nftref.c's, which needs neither library.
 *
 * A firewall rule like "socket cgroupv2 level 3 @www" compares the id
 * of a socket's cgroup (its ancestor at that level) with the elements
 * of set www.  An element of such a set is the cgroup's 64-bit id in
 * host byte order -- the same number as the inode of its directory and
 * its file handle.  The daemon keeps these sets filled; the firewall
 * (nft -f) owns the tables, sets and rules.
 */
#include "kernel_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <libnftnl/set.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

/* ---- talking to nf_tables ----------------------------------------------------- */

#define NFT_CHUNK 256 /* elements per message */

struct nftset_conn {
	struct mnl_socket *nl;
	uint32_t portid;
	uint32_t seq;
};

int
nftset_open(struct nftset_conn **out)
{
	struct nftset_conn *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (c == NULL)
		return -ENOMEM;
	if ((c->nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC)) == NULL ||
	    mnl_socket_bind(c->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int e = errno;
		nftset_close(c);
		return -e;
	}
	/* never wait for the kernel for ever */
	struct timeval tv = { .tv_sec = 2 };
	(void)setsockopt(mnl_socket_get_fd(c->nl), SOL_SOCKET, SO_RCVTIMEO, &tv,
			 sizeof(tv));
	c->portid = mnl_socket_get_portid(c->nl);
	c->seq = (uint32_t)time(NULL);
	*out = c;
	return 0;
}

void
nftset_close(struct nftset_conn *c)
{
	if (c == NULL)
		return;
	if (c->nl != NULL)
		mnl_socket_close(c->nl);
	free(c);
}

uint32_t
nftset_portid(const struct nftset_conn *c)
{
	return c != NULL ? c->portid : 0;
}

/* A libnftnl set naming r, with the elements ids (may be none). */
static struct nftnl_set *
set_of(const struct nftset_ref *r, const uint64_t *ids, size_t n)
{
	struct nftnl_set *s = nftnl_set_alloc();

	if (s == NULL)
		return NULL;
	nftnl_set_set_str(s, NFTNL_SET_TABLE, r->table);
	nftnl_set_set_str(s, NFTNL_SET_NAME, r->set);
	nftnl_set_set_u32(s, NFTNL_SET_FAMILY, r->family);
	for (size_t i = 0; i < n; i++) {
		struct nftnl_set_elem *e = nftnl_set_elem_alloc();
		if (e == NULL) {
			nftnl_set_free(s);
			return NULL;
		}
		nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, &ids[i], sizeof(ids[i]));
		nftnl_set_elem_add(s, e);
	}
	return s;
}

/* Read answers until the one to seq; 0 or -errno (the kernel's). */
static int
wait_ack(struct nftset_conn *c, uint32_t seq, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	for (;;) {
		ssize_t n = mnl_socket_recvfrom(c->nl, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		int rc = mnl_cb_run(buf, (size_t)n, seq, c->portid, cb, data);
		if (rc < 0 && errno == EPROTO)
			continue; /* an answer to an earlier request */
		if (rc <= MNL_CB_STOP)
			return rc < 0 ? -errno : 0;
	}
}

/* One transaction changing the elements of set r: NEWSETELEM (add,
 * existing ones are fine) or DELSETELEM; 0 or -errno. */
static int
change(struct nftset_conn *c, uint16_t type, const struct nftset_ref *r,
       const uint64_t *ids, size_t n)
{
	char buf[MNL_SOCKET_BUFFER_SIZE * 2];
	struct nftnl_set *s = set_of(r, ids, n);
	struct mnl_nlmsg_batch *b;
	uint32_t seq;
	int rc = 0;

	memset(buf, 0, sizeof(buf)); /* no stray bytes in the messages' padding */
	if (s == NULL)
		return -ENOMEM;
	if ((b = mnl_nlmsg_batch_start(buf, sizeof(buf))) == NULL) {
		nftnl_set_free(s);
		return -ENOMEM;
	}
	nftnl_batch_begin(mnl_nlmsg_batch_current(b), c->seq++);
	mnl_nlmsg_batch_next(b);
	seq = c->seq++;
	struct nlmsghdr *nlh = nftnl_nlmsg_build_hdr(
		mnl_nlmsg_batch_current(b), type, r->family,
		(type == NFT_MSG_NEWSETELEM ? NLM_F_CREATE : 0) | NLM_F_ACK, seq);
	nftnl_set_elems_nlmsg_build_payload(nlh, s);
	mnl_nlmsg_batch_next(b);
	nftnl_batch_end(mnl_nlmsg_batch_current(b), c->seq++);
	mnl_nlmsg_batch_next(b);
	if (mnl_socket_sendto(c->nl, mnl_nlmsg_batch_head(b), mnl_nlmsg_batch_size(b)) <
	    0)
		rc = -errno;
	else
		rc = wait_ack(c, seq, NULL, NULL);
	mnl_nlmsg_batch_stop(b);
	nftnl_set_free(s);
	return rc;
}

/* In chunks, so each message fits the buffer. */
static int
change_all(struct nftset_conn *c, uint16_t type, const struct nftset_ref *r,
	   const uint64_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i += NFT_CHUNK) {
		int rc = change(c, type, r, ids + i,
				n - i < NFT_CHUNK ? n - i : NFT_CHUNK);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
nftset_add(struct nftset_conn *c, const struct nftset_ref *r, const uint64_t *ids,
	   size_t n)
{
	return change_all(c, NFT_MSG_NEWSETELEM, r, ids, n);
}

int
nftset_del(struct nftset_conn *c, const struct nftset_ref *r, const uint64_t *ids,
	   size_t n)
{
	return change_all(c, NFT_MSG_DELSETELEM, r, ids, n);
}

struct listing {
	uint64_t *ids;
	size_t n, cap;
	int err; /* -EPROTOTYPE: an element that is not 8 bytes */
};

static int
list_elem(struct nftnl_set_elem *e, void *arg)
{
	struct listing *l = arg;
	uint32_t len = 0;
	const void *key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len);

	if (key == NULL || len != sizeof(uint64_t)) {
		l->err = -EPROTOTYPE;
		return -1;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		uint64_t *v = realloc(l->ids, cap * sizeof(*v));
		if (v == NULL) {
			l->err = -ENOMEM;
			return -1;
		}
		l->ids = v;
		l->cap = cap;
	}
	memcpy(&l->ids[l->n++], key, sizeof(uint64_t));
	return 0;
}

static int
list_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct listing *l = arg;
	struct nftnl_set *s = nftnl_set_alloc();

	if (s == NULL) {
		l->err = -ENOMEM;
		return MNL_CB_ERROR;
	}
	if (nftnl_set_elems_nlmsg_parse(nlh, s) < 0)
		l->err = -EBADMSG;
	else
		(void)nftnl_set_elem_foreach(s, list_elem, l);
	nftnl_set_free(s);
	return l->err < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

int
nftset_list(struct nftset_conn *c, const struct nftset_ref *r, uint64_t **ids, size_t *n)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nftnl_set *s = set_of(r, NULL, 0);
	struct listing l = { 0 };
	uint32_t seq = c->seq++;
	int rc;

	memset(buf, 0, sizeof(buf));
	*ids = NULL;
	*n = 0;
	if (s == NULL)
		return -ENOMEM;
	struct nlmsghdr *nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETSETELEM, r->family,
						     NLM_F_DUMP, seq);
	nftnl_set_elems_nlmsg_build_payload(nlh, s);
	nftnl_set_free(s);
	if (mnl_socket_sendto(c->nl, nlh, nlh->nlmsg_len) < 0)
		rc = -errno;
	else
		rc = wait_ack(c, seq, list_cb, &l);
	if (l.err < 0)
		rc = l.err; /* what the callback found, not the errno it left */
	if (rc < 0) {
		free(l.ids);
		return rc;
	}
	*ids = l.ids;
	*n = l.n;
	return 0;
}

/* ---- watching the ruleset ------------------------------------------------------- */

int
nftset_monitor_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_NETFILTER);
	unsigned grp = NFNLGRP_NFTABLES;

	if (fd < 0)
		return -errno;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* Copy a string attribute into out; false if it is not one or too long. */
static bool
attr_str(const struct nlattr *a, char *out, size_t len)
{
	if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0 ||
	    strlen(mnl_attr_get_str(a)) >= len)
		return false;
	strcpy(out, mnl_attr_get_str(a));
	return true;
}

/* The set a NEWSET or DELSETELEM notification is about; false if the
 * message does not name one. */
static bool
notified_set(const struct nlmsghdr *h, uint16_t table_attr, uint16_t set_attr,
	     struct nftset_ref *r)
{
	const struct nfgenmsg *g = mnl_nlmsg_get_payload(h);
	const struct nlattr *a;
	bool table = false, set = false;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*g)))
		return false;
	memset(r, 0, sizeof(*r));
	r->family = g->nfgen_family;
	mnl_attr_for_each(a, h, sizeof(*g))
	{
		if (mnl_attr_get_type(a) == table_attr)
			table = attr_str(a, r->table, sizeof(r->table));
		else if (mnl_attr_get_type(a) == set_attr)
			set = attr_str(a, r->set, sizeof(r->set));
	}
	return table && set;
}

/* Does this notification (not from ourselves) say that a set ours()
 * knows was made, or lost elements? */
static bool
wants_sync(const struct nlmsghdr *h, uint32_t self, nftset_ours_fn *ours, void *arg)
{
	struct nftset_ref r;
	bool named;

	if (NFNL_SUBSYS_ID(h->nlmsg_type) != NFNL_SUBSYS_NFTABLES ||
	    (self != 0 && h->nlmsg_pid == self))
		return false;
	switch (NFNL_MSG_TYPE(h->nlmsg_type)) {
	case NFT_MSG_NEWSET:
		named = notified_set(h, NFTA_SET_TABLE, NFTA_SET_NAME, &r);
		break;
	case NFT_MSG_DELSETELEM:
		named = notified_set(h, NFTA_SET_ELEM_LIST_TABLE, NFTA_SET_ELEM_LIST_SET,
				     &r);
		break;
	default:
		return false;
	}
	return ours == NULL || !named || ours(arg, &r);
}

int
nftset_monitor_read(int fd, uint32_t self, nftset_ours_fn *ours, void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int want = 0;

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS)
				want = 1; /* notifications were lost: look again */
			else if (errno != EAGAIN)
				return -errno;
			return want;
		}
		int len = (int)n;
		for (const struct nlmsghdr *h = (const void *)buf; mnl_nlmsg_ok(h, len);
		     h = mnl_nlmsg_next(h, &len))
			want |= wants_sync(h, self, ours, arg);
	}
}

/* ---- cgroup ids --------------------------------------------------------------------- */

#define FILEID_KERNFS 0xfe /* the kernel's file handle type for cgroupfs */

/* A file handle with room for the 8 bytes of a cgroup id. */
union kernfs_handle {
	struct file_handle fh;
	char room[sizeof(struct file_handle) + sizeof(uint64_t)];
};

int
cgfs_id(const struct hier *h, const char *path, uint64_t *id)
{
	char buf[PATH_MAX];
	union kernfs_handle k = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	while (*path == '/')
		path++;
	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", h->mount, path) >= sizeof(buf))
		return -ENAMETOOLONG;
	if (name_to_handle_at(AT_FDCWD, buf, &k.fh, &mount_id, 0) == 0 &&
	    k.fh.handle_bytes == sizeof(uint64_t)) {
		memcpy(id, k.fh.f_handle, sizeof(*id));
		return 0;
	}
	/* no handles (old kernel): the directory's inode is the id on
	 * 64-bit kernels */
	struct stat st;
	if (stat(buf, &st) < 0)
		return -errno;
	*id = (uint64_t)st.st_ino;
	return 0;
}

int
cgfs_id_live(const struct hier *h, uint64_t id)
{
	union kernfs_handle k = { .fh = { .handle_bytes = sizeof(uint64_t),
					  .handle_type = FILEID_KERNFS } };
	int mfd = open(h->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (mfd < 0)
		return -errno;
	memcpy(k.fh.f_handle, &id, sizeof(id));
	int fd = open_by_handle_at(mfd, &k.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int e = errno;
	close(mfd);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return e == ESTALE || e == ENOENT ? 0 : -e;
}
