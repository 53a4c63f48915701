/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exec_event.h -- what the BPF program (exec.bpf.c) and its loader
 * (kernel/bpfexec.c) share: the record one exec writes to the ring
 * buffer, and the keys of the filter's maps.  The including file
 * defines __u32 and __u64 first (<linux/types.h>, or types.h).
 */
#ifndef CGENGINE_EXEC_EVENT_H
#define CGENGINE_EXEC_EVENT_H

#define EXECBPF_COMM_LEN 16  /* the kernel's TASK_COMM_LEN */
#define EXECBPF_GROUPS	 16  /* supplementary groups carried */
#define EXECBPF_PATH_LEN 256 /* the exec'd path, truncated */

/* One exec that passed the filter. */
struct execbpf_event {
	__u32 pid, tgid, ppid; /* ppid: the real parent's thread group */
	__u32 uid, gid, euid, egid;
	__u32 ngroups; /* the task's count; groups[] holds the first 16 */
	__u32 groups[EXECBPF_GROUPS];
	__u64 cgroup_id; /* in the v2 hierarchy */
	__u64 ts_ns;	 /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	char comm[EXECBPF_COMM_LEN];
	char filename[EXECBPF_PATH_LEN];
};

/*
 * The filter's keys carry a generation: a reload fills the keys of the
 * generation not in force, flips the program's `gen` to it, then
 * removes the old generation's, so an exec always sees one whole set.
 */
struct execbpf_id_key {
	__u32 gen;
	__u32 id;
};

struct execbpf_name_key {
	__u32 gen;
	char name[EXECBPF_COMM_LEN]; /* at most 15 bytes, NUL padded */
};

/*
 * ananicy-cpp's names are matched whole (longer than comm's 15 bytes,
 * with spaces): the filter keeps a 64-bit FNV-1a hash of each, and
 * hashes the name an exec would be matched by the same way
 * (kernel.h's execkeys_hash).
 */
struct execbpf_hash_key {
	__u32 gen;
	__u32 pad; /* zero */
	__u64 hash;
};
#define EXECBPF_FNV_OFFSET 0xcbf29ce484222325ULL
#define EXECBPF_FNV_PRIME  0x100000001b3ULL

#define EXECBPF_KEYS_MAX 16384 /* entries of each key map (both generations) */
#define EXECBPF_ANAMES_MAX 65536 /* entries of the hash map (both generations) */
#define EXECBPF_PIDS_MAX 1024

#endif
