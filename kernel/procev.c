/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procev.c -- the kernel's process connector over netlink.
 *
 * libnl-3 creates, binds and subscribes the socket; datagrams are then
 * read with recvmmsg(), DGRAMS at a time (procev_recv), and decoded by
 * procev_decode(), a pure function that unit tests and fuzzers can feed
 * any bytes.
 */
#include "kernel_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#define RCVBUF_MAX (64 << 20)
#define DGRAMS	   32	/* datagrams taken per recvmmsg() */
#define DGRAM_SIZE 1024 /* one proc event needs about 80 bytes */

/* Room for one recvmmsg(): allocated at the first receive -- a socket
 * that is never read (with the BPF source, the one whose filter hands
 * its events to the ring buffer) costs no 36 KiB. */
struct dgrams {
	char buf[DGRAMS][DGRAM_SIZE];
	struct sockaddr_nl from[DGRAMS];
	struct iovec iov[DGRAMS];
	struct mmsghdr msg[DGRAMS];
};

struct procev {
	struct nl_sock *sk;
	int fd;
	int rcvbuf;
	struct dgrams *d; /* NULL until the first receive */
	bool drained; /* the last receive took fewer datagrams than it could */
};

/* Copy one proc_event out of a (possibly unaligned) payload. */
static bool
event_at(const struct cn_msg *cn, size_t avail, struct proc_event *ev, size_t need)
{
	size_t len = cn->len;

	if (len > avail || len < need)
		return false;
	memset(ev, 0, sizeof(*ev));
	memcpy(ev, cn->data, len < sizeof(*ev) ? len : sizeof(*ev));
	return true;
}

#define EVENT_NEED(member)                                                               \
	(offsetof(struct proc_event, event_data) +                                       \
	 sizeof(((struct proc_event *)0)->event_data.member))

/* How much of a proc_event an event of kind what fills; 0 for the
 * kinds nobody asks for (comm, sid, ptrace, coredump, acks). */
static size_t
event_need(unsigned what)
{
	switch (what) {
	case PROC_EVENT_FORK:
		return EVENT_NEED(fork);
	case PROC_EVENT_EXEC:
		return EVENT_NEED(exec);
	case PROC_EVENT_UID:
	case PROC_EVENT_GID:
		return EVENT_NEED(id);
	case PROC_EVENT_EXIT:
		return EVENT_NEED(exit);
	default:
		return 0;
	}
}

/* Decode one connector message; 1 if an event was stored, else 0. */
static int
decode_one(const struct cn_msg *cn, size_t avail, struct procev_event *out)
{
	struct proc_event ev;

	if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
		return 0;
	if (!event_at(cn, avail, &ev, offsetof(struct proc_event, event_data)))
		return 0;
	size_t need = event_need(ev.what);
	if (need == 0 || !event_at(cn, avail, &ev, need))
		return 0;
	memset(out, 0, sizeof(*out));
	out->ts_ns = ev.timestamp_ns;
	switch (ev.what) {
	case PROC_EVENT_FORK:
		out->type = PROCEV_FORK;
		out->pid = ev.event_data.fork.child_pid;
		out->tgid = ev.event_data.fork.child_tgid;
		out->parent_pid = ev.event_data.fork.parent_pid;
		out->parent_tgid = ev.event_data.fork.parent_tgid;
		break;
	case PROC_EVENT_EXEC:
		out->type = PROCEV_EXEC;
		out->pid = ev.event_data.exec.process_pid;
		out->tgid = ev.event_data.exec.process_tgid;
		break;
	case PROC_EVENT_UID:
	case PROC_EVENT_GID:
		out->type = ev.what == PROC_EVENT_UID ? PROCEV_UID : PROCEV_GID;
		out->pid = ev.event_data.id.process_pid;
		out->tgid = ev.event_data.id.process_tgid;
		out->rid = ev.event_data.id.r.ruid;
		out->eid = ev.event_data.id.e.euid;
		break;
	case PROC_EVENT_EXIT:
		out->type = PROCEV_EXIT;
		out->pid = ev.event_data.exit.process_pid;
		out->tgid = ev.event_data.exit.process_tgid;
		out->exit_code = ev.event_data.exit.exit_code;
		break;
	default: /* event_need() let none other through */
		return 0;
	}
	return 1;
}

int
procev_decode(const void *buf, size_t len, uint32_t sender, struct procev_event *ev,
	      size_t max)
{
	size_t n = 0, off = 0;

	if (sender != 0)
		return -EPERM;
	while (off + sizeof(struct nlmsghdr) <= len) {
		struct nlmsghdr nh;

		memcpy(&nh, (const char *)buf + off, sizeof(nh));
		if (nh.nlmsg_len < sizeof(nh) || nh.nlmsg_len > len - off)
			return n > 0 ? (int)n : -EBADMSG;
		size_t payload = nh.nlmsg_len - NLMSG_HDRLEN;
		if (nh.nlmsg_type != NLMSG_NOOP && nh.nlmsg_type != NLMSG_ERROR &&
		    payload >= sizeof(struct cn_msg) && n < max) {
			const char *data = (const char *)buf + off + NLMSG_HDRLEN;
			/* cn_msg header, then its data: copy to an aligned place */
			char aligned[sizeof(struct cn_msg) + sizeof(struct proc_event)]
				ATTR_ALIGNED(8);
			size_t take =
				payload < sizeof(aligned) ? payload : sizeof(aligned);

			memcpy(aligned, data, take);
			n += (size_t)decode_one((const struct cn_msg *)aligned,
						take - sizeof(struct cn_msg), &ev[n]);
		}
		off += NLMSG_ALIGN(nh.nlmsg_len);
	}
	return (int)n;
}

/* Send a control message of len bytes to the proc connector. */
static int
control(struct procev *p, const void *data, size_t len)
{
	char buf[NLMSG_SPACE(sizeof(struct cn_msg) + 16)] ATTR_ALIGNED(8);
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct cn_msg *cn = NLMSG_DATA(nh);

	memset(buf, 0, sizeof(buf));
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + len);
	nh->nlmsg_type = NLMSG_DONE;
	nh->nlmsg_pid = nl_socket_get_local_port(p->sk);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = (uint16_t)len;
	memcpy(cn->data, data, len);
	int rc = nl_sendto(p->sk, buf, nh->nlmsg_len);
	return rc < 0 ? -EPERM : 0;
}

static int
subscribe(struct procev *p, enum proc_cn_mcast_op op)
{
	return control(p, &op, sizeof(op));
}

/*
 * Linux 6.6's struct proc_input (include/uapi/linux/cn_proc.h), not in
 * older headers: a LISTEN with an event mask.  Kernels before 6.6
 * ignore a control message of this size, and keep delivering every
 * event after the plain LISTEN procev_open() sent first.
 */
struct procev_input {
	uint32_t mcast_op;   /* enum proc_cn_mcast_op */
	uint32_t event_type; /* enum proc_cn_event: a mask of PROC_EVENT_* */
};

int
procev_want(struct procev *p, const struct procev_want *w)
{
	struct procev_input in = { .mcast_op = PROC_CN_MCAST_LISTEN };
	int rc = procev_want_attach(p->fd, w);

	/* a filter that could not be replaced may drop what is wanted now:
	 * none at all then (every event arrives: correct, only dearer) */
	if (rc < 0 && setsockopt(p->fd, SOL_SOCKET, SO_DETACH_FILTER, &(int){ 0 }, sizeof(int)) < 0 &&
	    errno != ENOENT)
		return -errno;

	if (w->exec)
		in.event_type |= PROC_EVENT_EXEC;
	if (w->uid)
		in.event_type |= PROC_EVENT_UID;
	if (w->gid)
		in.event_type |= PROC_EVENT_GID;
	if (w->forks)
		in.event_type |= PROC_EVENT_FORK;
	if (w->ntrack > 0 || w->ngone > 0)
		in.event_type |= (uint32_t)PROC_EVENT_EXIT;
	/* an empty mask would read as "every event": the socket filter
	 * alone drops them all then */
	if (in.event_type == 0)
		return rc;
	int trc = control(p, &in, sizeof(in));
	return rc < 0 ? rc : trc;
}

int
procev_filter_bpf(struct procev *p, int prog_fd)
{
	struct procev_input in = { .mcast_op = PROC_CN_MCAST_LISTEN,
				   .event_type = PROC_EVENT_UID | PROC_EVENT_GID };

	if (setsockopt(p->fd, SOL_SOCKET, SO_ATTACH_BPF, &prog_fd, sizeof(prog_fd)) < 0)
		return -errno;
	(void)control(p, &in, sizeof(in)); /* failing, the filter sees more: as before 6.6 */
	return 0;
}

static int
set_rcvbuf(struct procev *p, int size)
{
	if (setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0 &&
	    setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) < 0)
		return -errno;
	p->rcvbuf = size;
	return 0;
}

int
procev_open(struct procev **out, int rcvbuf)
{
	struct procev *p = calloc(1, sizeof(*p));
	int rc = -ENOMEM;

	*out = NULL;
	if (p == NULL)
		return -ENOMEM;
	if ((p->sk = nl_socket_alloc()) == NULL)
		goto fail;
	nl_socket_disable_seq_check(p->sk);
	nl_socket_disable_auto_ack(p->sk);
	rc = -EPERM;
	if (nl_connect(p->sk, NETLINK_CONNECTOR) < 0)
		goto fail;
	if (nl_socket_add_membership(p->sk, CN_IDX_PROC) < 0)
		goto fail;
	if (nl_socket_set_nonblocking(p->sk) < 0)
		goto fail;
	p->fd = nl_socket_get_fd(p->sk);
	if (rcvbuf > 0 && (rc = set_rcvbuf(p, rcvbuf)) < 0)
		goto fail;
	if ((rc = subscribe(p, PROC_CN_MCAST_LISTEN)) < 0)
		goto fail;
	*out = p;
	return 0;
fail:
	if (p->sk)
		nl_socket_free(p->sk);
	free(p);
	return rc;
}

void
procev_close(struct procev *p)
{
	if (p == NULL)
		return;
	(void)subscribe(p, PROC_CN_MCAST_IGNORE);
	nl_socket_free(p->sk);
	free(p->d);
	free(p);
}

int
procev_fd(const struct procev *p)
{
	return p->fd;
}

int
procev_recv(struct procev *p, struct procev_event *ev, size_t max)
{
	unsigned want = max < DGRAMS ? (unsigned)max : DGRAMS;
	struct dgrams *d = p->d;
	int n;

	if (d == NULL && (d = p->d = malloc(sizeof(*d))) == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < want; i++) {
		d->iov[i] = (struct iovec){ .iov_base = d->buf[i], .iov_len = DGRAM_SIZE };
		d->msg[i].msg_hdr = (struct msghdr){
			.msg_name = &d->from[i],
			.msg_namelen = sizeof(d->from[i]),
			.msg_iov = &d->iov[i],
			.msg_iovlen = 1,
		};
	}
	do
		n = recvmmsg(p->fd, d->msg, want, MSG_DONTWAIT, NULL);
	while (n < 0 && errno == EINTR);
	p->drained = n < (int)want;
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;

	size_t got = 0;
	for (int i = 0; i < n && got < max; i++) {
		const struct sockaddr_nl *from = &d->from[i];

		if (d->msg[i].msg_hdr.msg_namelen < sizeof(*from) ||
		    from->nl_family != AF_NETLINK)
			continue;
		int rc = procev_decode(d->buf[i], d->msg[i].msg_len, from->nl_pid,
				       ev + got, max - got);
		if (rc > 0) /* foreign or malformed datagrams yield nothing */
			got += (size_t)rc;
	}
	return (int)got;
}

bool
procev_drained(const struct procev *p)
{
	return p->drained;
}

int
procev_grow(struct procev *p)
{
	int size = 0;
	socklen_t len = sizeof(size);

	if (getsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &size, &len) < 0)
		return -errno;
	if (size >= RCVBUF_MAX)
		return size;
	size = size * 2 > RCVBUF_MAX ? RCVBUF_MAX : size * 2;
	int rc = set_rcvbuf(p, size);
	return rc < 0 ? rc : size;
}
