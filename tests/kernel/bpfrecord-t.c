/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfrecord-t.c -- tests for kernel/bpfrecord.c: what an exec record of
 * the BPF program says of its task (struct task_known), records made by
 * hand -- the path's names joined root first, records cut short, a
 * group list longer than the record's, a path too long to tell, argv[0]
 * told or not.
 */
#include "kernel/kernel.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <linux/types.h>

#include "kernel/bpf/exec_event.h"

static struct execbpf_event r;

/* r with the names given (file first), n bytes of them */
static size_t
with_names(const char *names, size_t n)
{
	memset(r.exe, 0, sizeof(r.exe));
	memcpy(r.exe, names, n);
	r.exe_len = (__u32)n;
	return offsetof(struct execbpf_event, exe) + n;
}

int
main(void)
{
	struct task_known k;
	size_t len;

	plan(30);
	r.pid = r.tgid = 4242;
	r.ppid = 4200;
	r.uid = 1001;
	r.euid = 1002;
	r.gid = 2001;
	r.egid = 2002;
	r.ngroups = 3;
	r.groups[0] = 10;
	r.groups[1] = 20;
	r.groups[2] = 30;
	r.policy = 2; /* SCHED_RR */
	r.cgroup_id = 77;
	r.ts_ns = 123456789;
	memcpy(r.comm, "true", 5);

	len = with_names("true\0bin\0usr\0", 13);
	is_int(0, bpfexec_known(&r, len, &k), "a record");
	is_int(TASK_KNOW_CREDS | TASK_KNOW_COMM | TASK_KNOW_PPID | TASK_KNOW_EXE | TASK_KNOW_RT |
		       TASK_KNOW_CGROUP,
	       k.have, "it tells everything");
	ok(k.uid == 1001 && k.euid == 1002 && k.gid == 2001 && k.egid == 2002,
	   "uid, euid, gid, egid");
	ok(k.ngroups == 3 && k.groups[0] == 10 && k.groups[2] == 30, "the groups");
	ok(k.ppid == 4200 && k.cgroup_id == 77 && k.ts_ns == 123456789, "ppid, cgroup id, time");
	ok(k.realtime, "SCHED_RR is realtime");
	is_int(0, (int)k.nv1, "no v1 groups told");
	is_string("true", k.comm, "comm");
	is_string("/usr/bin/true", k.exe, "the path, root first");

	r.policy = 0;
	len = with_names("x\0", 2);
	is_int(0, bpfexec_known(&r, len, &k), "a file in the root");
	is_string("/x", k.exe, "its path");
	ok(!k.realtime, "SCHED_OTHER is not realtime");

	len = with_names("", 0);
	is_int(0, bpfexec_known(&r, len, &k), "no path told");
	ok(!(k.have & TASK_KNOW_EXE) && k.exe[0] == '\0', "no exe known");

	len = with_names("a\0\0b\0", 5);
	is_int(0, bpfexec_known(&r, len, &k), "an empty name");
	ok(!(k.have & TASK_KNOW_EXE), "is no path");
	len = with_names("a\0b", 3);
	ok(bpfexec_known(&r, len, &k) == 0 && !(k.have & TASK_KNOW_EXE),
	   "nor is one without its last NUL");

	/* the longest: 256 names of one byte, 512 bytes, 513 joined */
	char names[EXECBPF_EXE_LEN];
	for (size_t i = 0; i < sizeof(names); i += 2) {
		names[i] = 'n';
		names[i + 1] = '\0';
	}
	len = with_names(names, sizeof(names));
	ok(bpfexec_known(&r, len, &k) == 0 && strlen(k.exe) == EXECBPF_EXE_LEN,
	   "the longest path a record holds fits");

	len = with_names("true\0bin\0usr\0", 13);
	is_int(-EBADMSG, bpfexec_known(&r, len - 1, &k), "a record cut in its path");
	is_int(-EBADMSG, bpfexec_known(&r, offsetof(struct execbpf_event, exe) - 1, &k),
	       "a record cut before it");

	r.nv1 = 2;
	r.v1[0] = (struct execbpf_cgroup){ .hier = 7, .id = 4242 };
	r.v1[1] = (struct execbpf_cgroup){ .hier = 12, .id = 1ULL << 40 };
	len = with_names("true\0bin\0usr\0", 13);
	ok(bpfexec_known(&r, len, &k) == 0 && k.nv1 == 2 && k.v1[0].hier == 7 &&
		   k.v1[0].id == 4242 && k.v1[1].hier == 12 && k.v1[1].id == 1ULL << 40,
	   "the groups in two v1 hierarchies, by hierarchy and id");
	r.nv1 = 0;

	r.ngroups = 40;
	len = with_names("true\0bin\0usr\0", 13);
	ok(bpfexec_known(&r, len, &k) == 0 && k.ngroups == 40 && k.groups[15] == 0,
	   "40 groups: the count says more than the record holds");
	r.ngroups = 3;

	/* argv[0]: bytes past argv0_len are another exec's */
	is_int(0, (int)(k.have & TASK_KNOW_ARGV0), "no argv[0] told (argv0_len 0)");
	is_string("", k.argv0, "argv0 is then empty");
	memset(r.argv0, 'x', sizeof(r.argv0));
	memcpy(r.argv0, "-bash\0", 6);
	r.argv0_len = 6;
	ok(bpfexec_known(&r, len, &k) == 0 && (k.have & TASK_KNOW_ARGV0), "argv[0] told");
	is_string("-bash", k.argv0, "argv[0], no more of the field");
	is_string("/usr/bin/true", k.exe, "the path after it");
	r.argv0_len = 5;
	ok(bpfexec_known(&r, len, &k) == 0 && !(k.have & TASK_KNOW_ARGV0) && k.argv0[0] == '\0',
	   "an argv[0] whose last byte told is not its NUL is not told");
	r.argv0_len = EXECBPF_ARGV0_LEN + 1;
	r.argv0[EXECBPF_ARGV0_LEN - 1] = '\0';
	ok(bpfexec_known(&r, len, &k) == 0 && !(k.have & TASK_KNOW_ARGV0),
	   "nor one longer than the field");
	r.argv0_len = EXECBPF_ARGV0_LEN;
	ok(bpfexec_known(&r, len, &k) == 0 && (k.have & TASK_KNOW_ARGV0) &&
		   strlen(k.argv0) == 5,
	   "one the length of the field, its NUL last");
	return 0;
}
