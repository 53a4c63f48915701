/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procev-decode-t.c -- tests for procev_decode() on crafted netlink
 * datagrams: each event type, foreign senders, truncation, lying
 * lengths, several messages in one datagram, and random bytes.
 */
#include "kernel/kernel.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

/* Append one proc connector message for ev to buf at *off. */
static void
put(char *buf, size_t *off, const struct proc_event *ev, size_t evlen, unsigned idx)
{
	struct nlmsghdr nh = { 0 };
	struct cn_msg cn = { 0 };

	nh.nlmsg_len = NLMSG_LENGTH(sizeof(cn) + evlen);
	nh.nlmsg_type = NLMSG_DONE;
	cn.id.idx = idx;
	cn.id.val = CN_VAL_PROC;
	cn.len = (unsigned short)evlen;
	memcpy(buf + *off, &nh, sizeof(nh));
	memcpy(buf + *off + NLMSG_HDRLEN, &cn, sizeof(cn));
	memcpy(buf + *off + NLMSG_HDRLEN + sizeof(cn), ev, evlen);
	*off += NLMSG_ALIGN(nh.nlmsg_len);
}

int
main(void)
{
	char buf[4096];
	size_t off = 0;
	struct procev_event out[8];
	struct proc_event ev;

	plan(31);

	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_FORK;
	ev.event_data.fork.parent_pid = 10;
	ev.event_data.fork.parent_tgid = 10;
	ev.event_data.fork.child_pid = 11;
	ev.event_data.fork.child_tgid = 11;
	put(buf, &off, &ev, sizeof(ev), CN_IDX_PROC);
	is_int(1, procev_decode(buf, off, 0, out, 8), "fork decodes");
	is_int(PROCEV_FORK, out[0].type, "fork type");
	is_int(11, out[0].tgid, "child tgid");
	is_int(10, out[0].parent_tgid, "parent tgid");

	is_int(-EPERM, procev_decode(buf, off, 4242, out, 8),
	       "a user-space sender is refused");

	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_EXEC;
	ev.event_data.exec.process_pid = 21;
	ev.event_data.exec.process_tgid = 20;
	ev.timestamp_ns = 123456789012ULL;
	off = 0;
	put(buf, &off, &ev, sizeof(ev), CN_IDX_PROC);
	is_int(1, procev_decode(buf, off, 0, out, 8), "exec decodes");
	is_int(PROCEV_EXEC, out[0].type, "exec type");
	is_int(21, out[0].pid, "exec pid");
	is_int(20, out[0].tgid, "exec tgid");
	ok(out[0].ts_ns == 123456789012ULL, "the kernel's time of the event");

	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_UID;
	ev.event_data.id.process_pid = 30;
	ev.event_data.id.process_tgid = 30;
	ev.event_data.id.r.ruid = 1000;
	ev.event_data.id.e.euid = 1001;
	off = 0;
	put(buf, &off, &ev, sizeof(ev), CN_IDX_PROC);
	ev.what = PROC_EVENT_GID;
	ev.event_data.id.r.rgid = 100;
	ev.event_data.id.e.egid = 101;
	put(buf, &off, &ev, sizeof(ev), CN_IDX_PROC);
	ev.what = PROC_EVENT_EXIT;
	ev.event_data.exit.process_pid = 40;
	ev.event_data.exit.process_tgid = 40;
	ev.event_data.exit.exit_code = 256;
	put(buf, &off, &ev, sizeof(ev), CN_IDX_PROC);
	ev.what = PROC_EVENT_COMM;
	put(buf, &off, &ev, sizeof(ev), CN_IDX_PROC);
	ev.what = PROC_EVENT_EXEC;
	put(buf, &off, &ev, sizeof(ev), CN_IDX_PROC + 7); /* another connector */
	is_int(3, procev_decode(buf, off, 0, out, 8),
	       "uid, gid, exit in one datagram; comm and foreign idx skipped");
	is_int(PROCEV_UID, out[0].type, "uid type");
	is_int(1000, out[0].rid, "ruid");
	is_int(1001, out[0].eid, "euid");
	is_int(PROCEV_GID, out[1].type, "gid type");
	is_int(100, out[1].rid, "rgid");
	is_int(101, out[1].eid, "egid");
	is_int(PROCEV_EXIT, out[2].type, "exit type");
	is_int(256, out[2].exit_code, "exit code");
	is_int(2, procev_decode(buf, off, 0, out, 2), "max is respected");

	/* truncations */
	is_int(0, procev_decode(buf, 10, 0, out, 8),
	       "shorter than a netlink header: nothing");
	off = 0;
	ev.what = PROC_EVENT_EXEC;
	put(buf, &off, &ev, 12, CN_IDX_PROC); /* event cut after the header */
	is_int(0, procev_decode(buf, off, 0, out, 8), "exec without its data is skipped");
	is_int(-EBADMSG, procev_decode(buf, off - 4, 0, out, 8),
	       "nlmsg_len beyond the datagram");

	off = 0;
	put(buf, &off, &ev, sizeof(ev), CN_IDX_PROC);
	struct cn_msg cn;
	memcpy(&cn, buf + NLMSG_HDRLEN, sizeof(cn));
	cn.len = 4000; /* lies about its length */
	memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
	is_int(0, procev_decode(buf, off, 0, out, 8),
	       "cn_msg.len beyond the message is skipped");

	struct nlmsghdr nh;
	memcpy(&nh, buf, sizeof(nh));
	nh.nlmsg_len = 3;
	memcpy(buf, &nh, sizeof(nh));
	is_int(-EBADMSG, procev_decode(buf, off, 0, out, 8),
	       "nlmsg_len smaller than a header");

	nh.nlmsg_len = NLMSG_LENGTH(0);
	nh.nlmsg_type = NLMSG_NOOP;
	memcpy(buf, &nh, sizeof(nh));
	is_int(0, procev_decode(buf, NLMSG_HDRLEN, 0, out, 8), "NOOP is ignored");

	is_int(0, procev_decode(buf, 0, 0, out, 8), "empty datagram");
	off = 0;
	put(buf, &off, &ev, sizeof(ev), CN_IDX_PROC);
	is_int(0, procev_decode(buf, off, 0, out, 0), "max 0 stores nothing");

	/* random bytes must never crash (ASan checks the reads) */
	srand(7);
	int bad = 0;
	for (int round = 0; round < 20000; round++) {
		size_t len = (size_t)(rand() % 200);
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)rand();
		if (round % 2 == 0 && len >= 8) { /* plausible header */
			unsigned l = (unsigned)(rand() % 220);
			memcpy(buf, &l, 4);
		}
		int rc = procev_decode(buf, len, 0, out, 8);
		if (rc < -EBADMSG || rc > 8)
			bad++;
	}
	is_int(0, bad, "20,000 random datagrams decode to sane results");

	/* a whole-size event followed by a short tail */
	off = 0;
	ev.what = PROC_EVENT_EXEC;
	ev.event_data.exec.process_tgid = 99;
	put(buf, &off, &ev, sizeof(ev), CN_IDX_PROC);
	is_int(1, procev_decode(buf, off + 3, 0, out, 8),
	       "trailing junk shorter than a header is ignored");
	is_int(99, out[0].tgid, "and the event before it is kept");
	return tap_done();
}
