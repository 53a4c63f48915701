/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nftload.c -- libnftnl and libmnl, loaded at their first use.  The
 * daemon talks to nf_tables only for groups with an nft-set, which few
 * configurations have; the two libraries were about 0.17 MiB of its
 * resident memory from the start, for nothing without one.  So the
 * daemon does not link them: each function of theirs that kernel/nft.c
 * calls is defined here, with the headers' prototype, and calls the
 * library's own, found with dlsym() in libnftnl.so.11 (which brings
 * libmnl.so.0), opened at the first call.  Without the library a call
 * fails as the library's own do, with errno ENOPKG: NULL, -1, false or
 * 0 (mnl_socket_open2() first of all, so the caller reports it); the
 * others need a socket or an object and are never reached then.
 * Called from the loop's thread only.
 */
#include "kernel_private.h"
#include "util/util.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include <libmnl/libmnl.h>
#include <libnftnl/batch.h>
#include <libnftnl/common.h>
#include <libnftnl/set.h>

static struct dlib lib = { .soname = "libnftnl.so.11" };

/* Set *fn, a function pointer, to the libraries' function name once;
 * 0, or -1 with errno ENOPKG without the library or the function. */
static int
lookup(void *fn, const char *name)
{
	if (dlib_sym(&lib, fn, name) < 0) {
		errno = ENOPKG;
		return -1;
	}
	return 0;
}

const char *
mnl_attr_get_str(const struct nlattr *attr)
{
	static const char *(*real)(const struct nlattr *);

	return lookup(&real, "mnl_attr_get_str") < 0 ? NULL : real(attr);
}

uint16_t
mnl_attr_get_type(const struct nlattr *attr)
{
	static uint16_t (*real)(const struct nlattr *);

	return lookup(&real, "mnl_attr_get_type") < 0 ? 0 : real(attr);
}

struct nlattr *
mnl_attr_next(const struct nlattr *attr)
{
	static struct nlattr *(*real)(const struct nlattr *);

	return lookup(&real, "mnl_attr_next") < 0 ? NULL : real(attr);
}

bool
mnl_attr_ok(const struct nlattr *attr, int len)
{
	static bool (*real)(const struct nlattr *, int);

	return lookup(&real, "mnl_attr_ok") < 0 ? false : real(attr, len);
}

int
mnl_attr_validate(const struct nlattr *attr, enum mnl_attr_data_type type)
{
	static int (*real)(const struct nlattr *, enum mnl_attr_data_type);

	return lookup(&real, "mnl_attr_validate") < 0 ? -1 : real(attr, type);
}

int
mnl_cb_run(const void *buf, size_t numbytes, unsigned int seq, unsigned int portid,
	   mnl_cb_t cb_data, void *data)
{
	static int (*real)(const void *, size_t, unsigned int, unsigned int, mnl_cb_t,
			   void *);

	return lookup(&real, "mnl_cb_run") < 0
		       ? -1
		       : real(buf, numbytes, seq, portid, cb_data, data);
}

void *
mnl_nlmsg_batch_current(struct mnl_nlmsg_batch *b)
{
	static void *(*real)(struct mnl_nlmsg_batch *);

	return lookup(&real, "mnl_nlmsg_batch_current") < 0 ? NULL : real(b);
}

void *
mnl_nlmsg_batch_head(struct mnl_nlmsg_batch *b)
{
	static void *(*real)(struct mnl_nlmsg_batch *);

	return lookup(&real, "mnl_nlmsg_batch_head") < 0 ? NULL : real(b);
}

bool
mnl_nlmsg_batch_next(struct mnl_nlmsg_batch *b)
{
	static bool (*real)(struct mnl_nlmsg_batch *);

	return lookup(&real, "mnl_nlmsg_batch_next") < 0 ? false : real(b);
}

size_t
mnl_nlmsg_batch_size(struct mnl_nlmsg_batch *b)
{
	static size_t (*real)(struct mnl_nlmsg_batch *);

	return lookup(&real, "mnl_nlmsg_batch_size") < 0 ? 0 : real(b);
}

struct mnl_nlmsg_batch *
mnl_nlmsg_batch_start(void *buf, size_t bufsiz)
{
	static struct mnl_nlmsg_batch *(*real)(void *, size_t);

	return lookup(&real, "mnl_nlmsg_batch_start") < 0 ? NULL : real(buf, bufsiz);
}

void
mnl_nlmsg_batch_stop(struct mnl_nlmsg_batch *b)
{
	static void (*real)(struct mnl_nlmsg_batch *);

	if (lookup(&real, "mnl_nlmsg_batch_stop") == 0)
		real(b);
}

void *
mnl_nlmsg_get_payload(const struct nlmsghdr *nlh)
{
	static void *(*real)(const struct nlmsghdr *);

	return lookup(&real, "mnl_nlmsg_get_payload") < 0 ? NULL : real(nlh);
}

void *
mnl_nlmsg_get_payload_offset(const struct nlmsghdr *nlh, size_t offset)
{
	static void *(*real)(const struct nlmsghdr *, size_t);

	return lookup(&real, "mnl_nlmsg_get_payload_offset") < 0 ? NULL
								 : real(nlh, offset);
}

void *
mnl_nlmsg_get_payload_tail(const struct nlmsghdr *nlh)
{
	static void *(*real)(const struct nlmsghdr *);

	return lookup(&real, "mnl_nlmsg_get_payload_tail") < 0 ? NULL : real(nlh);
}

struct nlmsghdr *
mnl_nlmsg_next(const struct nlmsghdr *nlh, int *len)
{
	static struct nlmsghdr *(*real)(const struct nlmsghdr *, int *);

	return lookup(&real, "mnl_nlmsg_next") < 0 ? NULL : real(nlh, len);
}

bool
mnl_nlmsg_ok(const struct nlmsghdr *nlh, int len)
{
	static bool (*real)(const struct nlmsghdr *, int);

	return lookup(&real, "mnl_nlmsg_ok") < 0 ? false : real(nlh, len);
}

int
mnl_socket_bind(struct mnl_socket *nl, unsigned int groups, pid_t pid)
{
	static int (*real)(struct mnl_socket *, unsigned int, pid_t);

	return lookup(&real, "mnl_socket_bind") < 0 ? -1 : real(nl, groups, pid);
}

int
mnl_socket_close(struct mnl_socket *nl)
{
	static int (*real)(struct mnl_socket *);

	return lookup(&real, "mnl_socket_close") < 0 ? -1 : real(nl);
}

int
mnl_socket_get_fd(const struct mnl_socket *nl)
{
	static int (*real)(const struct mnl_socket *);

	return lookup(&real, "mnl_socket_get_fd") < 0 ? -1 : real(nl);
}

unsigned int
mnl_socket_get_portid(const struct mnl_socket *nl)
{
	static unsigned int (*real)(const struct mnl_socket *);

	return lookup(&real, "mnl_socket_get_portid") < 0 ? 0 : real(nl);
}

struct mnl_socket *
mnl_socket_open2(int bus, int flags)
{
	static struct mnl_socket *(*real)(int, int);

	return lookup(&real, "mnl_socket_open2") < 0 ? NULL : real(bus, flags);
}

ssize_t
mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf, size_t siz)
{
	static ssize_t (*real)(const struct mnl_socket *, void *, size_t);

	return lookup(&real, "mnl_socket_recvfrom") < 0 ? -1 : real(nl, buf, siz);
}

ssize_t
mnl_socket_sendto(const struct mnl_socket *nl, const void *req, size_t siz)
{
	static ssize_t (*real)(const struct mnl_socket *, const void *, size_t);

	return lookup(&real, "mnl_socket_sendto") < 0 ? -1 : real(nl, req, siz);
}

struct nlmsghdr *
nftnl_batch_begin(char *buf, uint32_t seq)
{
	static struct nlmsghdr *(*real)(char *, uint32_t);

	return lookup(&real, "nftnl_batch_begin") < 0 ? NULL : real(buf, seq);
}

struct nlmsghdr *
nftnl_batch_end(char *buf, uint32_t seq)
{
	static struct nlmsghdr *(*real)(char *, uint32_t);

	return lookup(&real, "nftnl_batch_end") < 0 ? NULL : real(buf, seq);
}

struct nlmsghdr *
nftnl_nlmsg_build_hdr(char *buf, uint16_t type, uint16_t family, uint16_t flags,
		      uint32_t seq)
{
	static struct nlmsghdr *(*real)(char *, uint16_t, uint16_t, uint16_t, uint32_t);

	return lookup(&real, "nftnl_nlmsg_build_hdr") < 0
		       ? NULL
		       : real(buf, type, family, flags, seq);
}

struct nftnl_set *
nftnl_set_alloc(void)
{
	static struct nftnl_set *(*real)(void);

	return lookup(&real, "nftnl_set_alloc") < 0 ? NULL : real();
}

void
nftnl_set_elem_add(struct nftnl_set *s, struct nftnl_set_elem *elem)
{
	static void (*real)(struct nftnl_set *, struct nftnl_set_elem *);

	if (lookup(&real, "nftnl_set_elem_add") == 0)
		real(s, elem);
}

struct nftnl_set_elem *
nftnl_set_elem_alloc(void)
{
	static struct nftnl_set_elem *(*real)(void);

	return lookup(&real, "nftnl_set_elem_alloc") < 0 ? NULL : real();
}

int
nftnl_set_elem_foreach(struct nftnl_set *s,
		       int (*cb)(struct nftnl_set_elem *e, void *data), void *data)
{
	static int (*real)(struct nftnl_set *, int (*)(struct nftnl_set_elem *, void *),
			   void *);

	return lookup(&real, "nftnl_set_elem_foreach") < 0 ? -1 : real(s, cb, data);
}

const void *
nftnl_set_elem_get(struct nftnl_set_elem *s, uint16_t attr, uint32_t *data_len)
{
	static const void *(*real)(struct nftnl_set_elem *, uint16_t, uint32_t *);

	return lookup(&real, "nftnl_set_elem_get") < 0 ? NULL : real(s, attr, data_len);
}

int
nftnl_set_elem_set(struct nftnl_set_elem *s, uint16_t attr, const void *data,
		   uint32_t data_len)
{
	static int (*real)(struct nftnl_set_elem *, uint16_t, const void *, uint32_t);

	return lookup(&real, "nftnl_set_elem_set") < 0 ? -1
						       : real(s, attr, data, data_len);
}

void
nftnl_set_elems_nlmsg_build_payload(struct nlmsghdr *nlh, struct nftnl_set *s)
{
	static void (*real)(struct nlmsghdr *, struct nftnl_set *);

	if (lookup(&real, "nftnl_set_elems_nlmsg_build_payload") == 0)
		real(nlh, s);
}

int
nftnl_set_elems_nlmsg_parse(const struct nlmsghdr *nlh, struct nftnl_set *s)
{
	static int (*real)(const struct nlmsghdr *, struct nftnl_set *);

	return lookup(&real, "nftnl_set_elems_nlmsg_parse") < 0 ? -1 : real(nlh, s);
}

void
nftnl_set_free(const struct nftnl_set *s)
{
	static void (*real)(const struct nftnl_set *);

	if (lookup(&real, "nftnl_set_free") == 0)
		real(s);
}

int
nftnl_set_set_str(struct nftnl_set *s, uint16_t attr, const char *str)
{
	static int (*real)(struct nftnl_set *, uint16_t, const char *);

	return lookup(&real, "nftnl_set_set_str") < 0 ? -1 : real(s, attr, str);
}

void
nftnl_set_set_u32(struct nftnl_set *s, uint16_t attr, uint32_t val)
{
	static void (*real)(struct nftnl_set *, uint16_t, uint32_t);

	if (lookup(&real, "nftnl_set_set_u32") == 0)
		real(s, attr, val);
}
