/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfrecord.c -- what one exec record of the BPF program
 * (kernel/bpf/exec.bpf.c) says of its task, as a struct task_known, and
 * a record of a uid or gid change as the connector's event: pure,
 * built with or without libbpf, so the unit tests feed it records.
 */
#include "kernel_private.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <linux/types.h>

#include "kernel/bpf/exec_event.h"

_Static_assert(EXECBPF_GROUPS == TASK_KNOWN_GROUPS, "the groups a record carries");
_Static_assert(EXECBPF_EXE_LEN + 1 == TASK_KNOWN_EXE_MAX, "a record's path, joined");
_Static_assert(EXECBPF_V1 == TASK_KNOWN_V1, "the v1 groups a record carries");
_Static_assert(EXECBPF_COMM_LEN <= sizeof(((struct task_known *)0)->comm), "comm");
_Static_assert(EXECBPF_ARGV0_LEN == TASK_KNOWN_ARGV0_MAX, "a record's argv[0]");
/* an exec's record is never of a uid change's size */
_Static_assert(EXECBPF_UID == PROC_EVENT_UID && EXECBPF_GID == PROC_EVENT_GID, "the connector's");
#define CN_OFF(f) (NLMSG_HDRLEN + sizeof(struct cn_msg) + offsetof(struct proc_event, f))
_Static_assert(EXECBPF_CN_WHAT == CN_OFF(what) && EXECBPF_CN_TS == CN_OFF(timestamp_ns) &&
		       EXECBPF_CN_ID == CN_OFF(event_data.id.process_pid) &&
		       EXECBPF_CN_ID + 4 == CN_OFF(event_data.id.process_tgid) &&
		       EXECBPF_CN_ID + 8 == CN_OFF(event_data.id.r.ruid) &&
		       EXECBPF_CN_ID + 12 == CN_OFF(event_data.id.e.euid),
	       "where cge_ids reads an event");
_Static_assert(sizeof(struct execbpf_ids) < offsetof(struct execbpf_event, exe), "sizes");

/*
 * The path from the record's names, file first, root last: joined the
 * other way round into out (len bytes).  False when it does not fit or
 * the names are not well formed (then out is "").
 */
static bool
join_exe(const char *names, size_t n, char *out, size_t len)
{
	size_t at = 0, end = n;

	out[0] = '\0';
	if (n == 0 || names[n - 1] != '\0')
		return false;
	while (end > 0) {
		size_t start = end - 1; /* at its NUL */

		while (start > 0 && names[start - 1] != '\0')
			start--;
		size_t l = end - 1 - start;
		if (l == 0 || at + 1 + l + 1 > len) {
			out[0] = '\0';
			return false;
		}
		out[at++] = '/';
		memcpy(out + at, names + start, l);
		at += l;
		end = start;
	}
	out[at] = '\0';
	return true;
}

int
bpfexec_known(const void *rec, size_t len, struct task_known *k)
{
	const struct execbpf_event *r = rec;
	size_t head = offsetof(struct execbpf_event, exe);

	if (len < head || r->exe_len > EXECBPF_EXE_LEN || len < head + r->exe_len)
		return -EBADMSG;
	memset(k, 0, offsetof(struct task_known, comm));
	k->have = TASK_KNOW_CREDS | TASK_KNOW_COMM | TASK_KNOW_PPID | TASK_KNOW_RT |
		  TASK_KNOW_CGROUP;
	k->ts_ns = r->ts_ns;
	k->ppid = (pid_t)r->ppid;
	k->uid = r->uid;
	k->euid = r->euid;
	k->gid = r->gid;
	k->egid = r->egid;
	k->ngroups = r->ngroups;
	size_t n = r->ngroups < EXECBPF_GROUPS ? r->ngroups : EXECBPF_GROUPS;
	for (size_t i = 0; i < n && i < TASK_KNOWN_GROUPS; i++)
		k->groups[i] = r->groups[i];
	k->realtime = r->policy == 1 || r->policy == 2; /* SCHED_FIFO, SCHED_RR */
	k->cgroup_id = r->cgroup_id;
	k->nv1 = r->nv1 < EXECBPF_V1 ? r->nv1 : EXECBPF_V1;
	for (size_t i = 0; i < k->nv1; i++) {
		k->v1[i].hier = r->v1[i].hier;
		k->v1[i].id = r->v1[i].id;
	}
	memcpy(k->comm, r->comm, EXECBPF_COMM_LEN);
	k->comm[EXECBPF_COMM_LEN - 1] = '\0';
	/* argv[0] when told, and whole (its NUL last) */
	k->argv0[0] = '\0';
	if (r->argv0_len > 0 && r->argv0_len <= EXECBPF_ARGV0_LEN &&
	    r->argv0[r->argv0_len - 1] == '\0') {
		memcpy(k->argv0, r->argv0, r->argv0_len);
		k->have |= TASK_KNOW_ARGV0;
	}
	if (join_exe(r->exe, r->exe_len, k->exe, sizeof(k->exe)))
		k->have |= TASK_KNOW_EXE;
	return 0;
}

int
bpfexec_ids_event(const void *rec, size_t len, struct procev_event *ev)
{
	const struct execbpf_ids *r = rec;

	if (len != sizeof(*r) || (r->what != EXECBPF_UID && r->what != EXECBPF_GID))
		return -EBADMSG;
	memset(ev, 0, sizeof(*ev));
	ev->type = r->what == EXECBPF_UID ? PROCEV_UID : PROCEV_GID;
	ev->pid = (pid_t)r->pid;
	ev->tgid = (pid_t)r->tgid;
	ev->rid = r->rid;
	ev->eid = r->eid;
	ev->ts_ns = r->ts_ns;
	return 0;
}
