/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exec_event.h -- what the BPF program (exec.bpf.c) and its loader
 * (kernel/bpfexec.c) share: the record one exec writes to the ring
 * buffer, and the keys of the filter's maps.  The including file
 * defines __u32 and __u64 first (<linux/types.h>, or types.h).
 */
#ifndef CGENGINE_EXEC_EVENT_H
#define CGENGINE_EXEC_EVENT_H

#define EXECBPF_COMM_LEN	 16  /* the kernel's TASK_COMM_LEN */
#define EXECBPF_GROUPS		 16  /* supplementary groups carried */
#define EXECBPF_PATH_LEN	 256 /* a path the filter reads, truncated */
#define EXECBPF_ARGV0_LEN	 128 /* room for argv[0] with its NUL */
#define EXECBPF_EXE_LEN		 512 /* room for the executable's path (a power of two) */
#define EXECBPF_NAME_MAX	 256 /* one name of it, with its NUL (NAME_MAX + 1) */
#define EXECBPF_EXE_STEPS	 128 /* names and mount crossings walked at most */
#define EXECBPF_V1		 8   /* v1 hierarchies a record tells the group in */
#define EXECBPF_V1_STEPS	 64  /* hierarchies walked at most */

/* The task's group in one v1 hierarchy: its id (the group directory's
 * kernfs id, as name_to_handle_at(2) gives it) in hierarchy hier (the
 * first field of /proc/PID/cgroup). */
struct execbpf_cgroup {
	__u32 hier;
	__u32 pad;
	__u64 id;
};

/*
 * One exec that passed the filter: the task as it is at the exec, so
 * that the daemon reads of /proc only what is not here (the command
 * line; argv[0] when not told; the groups of a task with more than
 * EXECBPF_GROUPS).
 */
struct execbpf_event {
	__u32 pid, tgid, ppid; /* ppid: the real parent's thread group */
	__u32 uid, gid, euid, egid;
	__u32 ngroups; /* the task's count; groups[] holds the first 16 */
	__u32 groups[EXECBPF_GROUPS];
	__u32 policy;	/* its scheduling policy (SCHED_FIFO 1, SCHED_RR 2) */
	__u32 exe_len;	/* bytes of exe[] used; 0: its path is not told */
	__u64 cgroup_id; /* in the v2 hierarchy */
	__u64 ts_ns;	 /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	/* its groups in the v1 hierarchies the daemon asked for (v1_hiers),
	 * nv1 of them, in the order the kernel links them */
	__u32 nv1;
	__u32 argv0_len; /* bytes of argv0[] used, its NUL too; 0: not told */
	struct execbpf_cgroup v1[EXECBPF_V1];
	char comm[EXECBPF_COMM_LEN];
	/*
	 * argv[0], the first word of /proc/PID/cmdline, as the new image
	 * has it at the exec: told only while ananicy's names are in force
	 * (they match by it) and when it is read whole; its bytes past
	 * argv0_len (all of them when not told) are left over from another
	 * exec.
	 */
	char argv0[EXECBPF_ARGV0_LEN];
	/*
	 * The executable's path as /proc/PID/exe would give it, name by
	 * name from the file up to the root of its mount namespace, each
	 * NUL-terminated: "true\0bin\0usr\0" is /usr/bin/true.  Not told
	 * (exe_len 0) when longer than this, deeper than EXECBPF_EXE_STEPS,
	 * or a name the kernel makes up (d_dname: anonymous files).
	 */
	char exe[EXECBPF_EXE_LEN];
};

/*
 * A change of a task's uids or gids (the program on proc_id_connector):
 * the proc connector's UID or GID event.  Told from an exec's record by
 * its size.
 */
#define EXECBPF_UID 0x00000004 /* the connector's PROC_EVENT_UID */
#define EXECBPF_GID 0x00000040 /* and PROC_EVENT_GID */
struct execbpf_ids {
	__u32 what;	/* EXECBPF_UID or EXECBPF_GID */
	__u32 pid, tgid;
	__u32 rid, eid; /* the new real and effective uid (gid) */
	__u32 pad;
	__u64 ts_ns; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
};

/*
 * Where the connector's datagram (a netlink header, struct cn_msg, then
 * struct proc_event) holds what cge_ids reads: the event's type, its
 * timestamp, and an id event's pid, tgid, real and effective id
 * (checked against the kernel's headers in kernel/bpfrecord.c).
 */
#define EXECBPF_CN_WHAT 36 /* NLMSG_HDRLEN + sizeof(struct cn_msg) */
#define EXECBPF_CN_TS	44
#define EXECBPF_CN_ID	52

/*
 * The bits of the keys (uids, gids, names; tracked thread groups): the
 * program looks a value up only when its bit is set, the loader sets
 * the bit of every key (kernel/bpfexec.c).  A name's value is its 16
 * bytes (15 and a NUL, NUL padded) as two little 64-bit words, mixed.
 */
#define EXECBPF_BITS	       4096 /* per map of keys */
#define EXECBPF_BITS_WORDS     (EXECBPF_BITS / 64)
#define EXECBPF_PID_BITS       512 /* for the tracked: one cache line */
#define EXECBPF_PID_BITS_WORDS (EXECBPF_PID_BITS / 64)

static inline __u32
execbpf_bit(__u64 v)
{
	return (__u32)((v * 0x9e3779b97f4a7c15ULL) >> 52); /* 64 - 12 bits */
}

static inline __u32
execbpf_pid_bit(__u64 tgid)
{
	return execbpf_bit(tgid) >> 3; /* 9 bits */
}

static inline __u64
execbpf_name_mix(__u64 w0, __u64 w1)
{
	return w0 ^ (w1 * 0xc2b2ae3d27d4eb4fULL) ^ (w1 >> 29);
}

/*
 * Is a name of up to 15 bytes, NUL padded, given as its two
 * little-endian words, an interpreter's: one of kernel/task.c's list
 * with only a version after it (digits and dots: python3.11 is python)?
 * The filter asks at every exec when rules name programs, so this has
 * no loop and reads no memory.  execbpf_not_version() marks (0x80) each
 * byte of w that is not a digit, '.' or NUL; the last byte so marked
 * ends the stem, which must lie in w0 (the list's names have at most
 * six bytes) and equal one of them, compared as a number.
 */
#define EXECBPF_HI8  0x8080808080808080ULL
#define EXECBPF_LO7  0x7f7f7f7f7f7f7f7fULL
#define EXECBPF_REP8(b) (0x0101010101010101ULL * (b))

static inline __u64
execbpf_not_version(__u64 w)
{
	__u64 y = w & EXECBPF_LO7; /* (no carry between bytes below) */
	__u64 digit = (y + EXECBPF_REP8(0x80 - '0')) & ~(y + EXECBPF_REP8(0x80 - '9' - 1)) & ~w;
	__u64 d = w ^ EXECBPF_REP8('.');
	__u64 dot = ~(((d & EXECBPF_LO7) + EXECBPF_LO7) | d);
	__u64 nul = ~(((w & EXECBPF_LO7) + EXECBPF_LO7) | w);

	return ~(digit | dot | nul) & EXECBPF_HI8;
}

#define EXECBPF_W6(a, b, c, d, e, f)                                                  \
	((__u64)(a) | (__u64)(b) << 8 | (__u64)(c) << 16 | (__u64)(d) << 24 |          \
	 (__u64)(e) << 32 | (__u64)(f) << 40)

static inline int
execbpf_interpreter_name(__u64 w0, __u64 w1)
{
	__u64 m = execbpf_not_version(w0);

	if (m == 0 || execbpf_not_version(w1) != 0)
		return 0;
	/* every byte up to the last marked one, then its bits */
	m |= m >> 8;
	m |= m >> 16;
	m |= m >> 32;
	switch (w0 & ((m >> 7) * 0xff)) {
	case EXECBPF_W6('s', 'h', 0, 0, 0, 0):
	case EXECBPF_W6('b', 'a', 's', 'h', 0, 0):
	case EXECBPF_W6('d', 'a', 's', 'h', 0, 0):
	case EXECBPF_W6('z', 's', 'h', 0, 0, 0):
	case EXECBPF_W6('k', 's', 'h', 0, 0, 0):
	case EXECBPF_W6('m', 'k', 's', 'h', 0, 0):
	case EXECBPF_W6('c', 's', 'h', 0, 0, 0):
	case EXECBPF_W6('t', 'c', 's', 'h', 0, 0):
	case EXECBPF_W6('f', 'i', 's', 'h', 0, 0):
	case EXECBPF_W6('p', 'y', 't', 'h', 'o', 'n'):
	case EXECBPF_W6('p', 'e', 'r', 'l', 0, 0):
	case EXECBPF_W6('r', 'u', 'b', 'y', 0, 0):
	case EXECBPF_W6('l', 'u', 'a', 0, 0, 0):
	case EXECBPF_W6('n', 'o', 'd', 'e', 0, 0):
	case EXECBPF_W6('p', 'h', 'p', 0, 0, 0):
	case EXECBPF_W6('t', 'c', 'l', 's', 'h', 0):
	case EXECBPF_W6('w', 'i', 's', 'h', 0, 0):
		return 1;
	default:
		return 0;
	}
}

/*
 * The script an interpreter runs, found in its argument area (argv's
 * strings, each with its NUL) as kernel/task.c's script_arg finds it
 * in /proc/PID/cmdline: the first argument after argv[0] that does not
 * start with '-'; none at "-c" (a command string, not a script) or at
 * an empty argument; after "--", the next one whatever it is.  The
 * filter feeds the area one byte at a time (a bpf_loop step: no loop
 * of its own to verify) and, for a script found, looks its base name
 * up with the names rules give; an interpreter exec whose script no
 * rule names is so dropped in the kernel.
 *
 * execbpf_script_step() takes byte `at` of the area, in order, and
 * says whether to go on (EXECBPF_SCRIPT_MORE) or what was found: the
 * script, bytes [base, at) its base name (EXECBPF_SCRIPT_FOUND), or
 * that there is none (EXECBPF_SCRIPT_NONE).  Bytes that run out while
 * it says MORE mean none when they were the whole area, and "not
 * known" when the area was cut short.
 */
enum execbpf_script_says {
	EXECBPF_SCRIPT_MORE,
	EXECBPF_SCRIPT_FOUND,
	EXECBPF_SCRIPT_NONE,
};

struct execbpf_script {
	__u32 arg;   /* which argument byte `at` is in (0: argv[0]) */
	__u32 start; /* where that argument starts */
	__u32 base;  /* just past its last '/' */
	__u32 dashdash; /* the argument before was "--" */
	char c0, c1; /* its first two bytes */
};

static inline enum execbpf_script_says
execbpf_script_step(struct execbpf_script *s, __u32 at, char ch)
{
	__u32 len = at - s->start;

	if (ch != '\0') {
		if (len == 0)
			s->c0 = ch;
		else if (len == 1)
			s->c1 = ch;
		if (ch == '/')
			s->base = at + 1;
		return EXECBPF_SCRIPT_MORE;
	}
	if (s->arg > 0) { /* argument [start, at) ends */
		if (s->dashdash)
			return len == 0 ? EXECBPF_SCRIPT_NONE : EXECBPF_SCRIPT_FOUND;
		if (len == 0 || (len == 2 && s->c0 == '-' && s->c1 == 'c'))
			return EXECBPF_SCRIPT_NONE;
		if (s->c0 != '-')
			return EXECBPF_SCRIPT_FOUND;
		s->dashdash = len == 2 && s->c1 == '-';
	}
	s->arg++;
	s->start = s->base = at + 1;
	s->c0 = s->c1 = '\0';
	return EXECBPF_SCRIPT_MORE;
}

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
#define EXECBPF_RECENT_MAX 4096 /* thread groups whose exec passed, remembered (a power of two) */

#endif
