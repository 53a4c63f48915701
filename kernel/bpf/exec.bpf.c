// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * exec.bpf.c -- the eBPF event source: one program on the tracepoint
 * sched_process_exec (tp_btf) that sends the execs some rule may
 * decide to a ring buffer, and drops the others in the kernel.
 *
 * The filter (filled by kernel/bpfexec.c from the policy's keys): an
 * exec passes when `wide` is set, or its uid, euid, gid, egid or one of
 * its supplementary groups is a key, or one of its names is: its comm
 * (the exec'd file's base name), the base name of the interpreter of a
 * #! script, the name of the file that runs -- all cut to 15 bytes, as
 * the keys are; or, when `scripts` is set, it runs an interpreter (a
 * rule may name the script it runs); or its thread group is tracked;
 * or, when `ananicy` is set, the whole name ananicy-cpp matches it by
 * (argv[0]'s last part) hashes to a key of `anames`.
 *
 * Wake-ups: while the daemon reads (`awake`), records are written
 * without waking it (and it is woken if it fell asleep meanwhile, see
 * output()); otherwise the ring buffer wakes it for the first record
 * it has not seen.  A record that finds the ring buffer full is
 * counted in `drops` (the daemon rescans).  An exec is filtered in a
 * per-CPU scratch record, and only one that passes is copied out.
 *
 * A record says what the daemon would otherwise read in /proc (see
 * exec_event.h): the credentials with up to 16 supplementary groups,
 * comm, the parent, the scheduling policy, the v2 cgroup id, the
 * groups in the v1 hierarchies the daemon manages and the
 * executable's path -- read for passing execs only, the path walked up
 * the file's dentries and mounts as d_path() would (bpf_d_path() is not
 * allowed on this tracepoint).
 */
#include "types.h"
#include "exec_event.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); /* the loader sets the configured size */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EXECBPF_KEYS_MAX);
	__type(key, struct execbpf_id_key);
	__type(value, __u8);
} uids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EXECBPF_KEYS_MAX);
	__type(key, struct execbpf_id_key);
	__type(value, __u8);
} gids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EXECBPF_KEYS_MAX);
	__type(key, struct execbpf_name_key);
	__type(value, __u8);
} names SEC(".maps");

/* ananicy-cpp's names, whole, by hash; allocated as filled (the
 * daemon fills it only when ananicy-dir is set) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EXECBPF_ANAMES_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct execbpf_hash_key);
	__type(value, __u8);
} anames SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EXECBPF_PIDS_MAX);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

/* Room for one exec's record and a path while it is filtered: too big
 * for the stack, and only a passing one is copied to the ring buffer.
 * spill: a name read at the end of ev.exe may run on into it. */
struct scratch {
	struct execbpf_event ev;
	char spill[EXECBPF_NAME_MAX];
	char path[EXECBPF_PATH_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* Written by the daemon through the skeleton's mapping of .bss/.data. */
volatile __u32 gen;
volatile __u32 wide = 1; /* until the daemon has filled the maps */
volatile __u32 scripts;
volatile __u32 ananicy; /* the anames map is in force */
volatile __u32 all_pids;
volatile __u32 awake;
/* the v1 hierarchies whose groups a record tells (nv1_hiers of them) */
volatile __u32 v1_hiers[EXECBPF_V1];
volatile __u32 nv1_hiers;
volatile __u32 v1_backward; /* walk them newest first: they were mounted late */
__u64 drops;  /* records the ring buffer had no room for */
__u64 execs;  /* every exec seen */
__u64 passed; /* execs that passed the filter */

static bool
has_id(void *map, __u32 id)
{
	struct execbpf_id_key k = { .gen = gen, .id = id };

	return bpf_map_lookup_elem(map, &k) != NULL;
}

static bool
has_name(const char *name)
{
	struct execbpf_name_key k = { .gen = gen };

	__builtin_memcpy(k.name, name, EXECBPF_COMM_LEN - 1);
	return bpf_map_lookup_elem(&names, &k) != NULL;
}

/* A name cut to 15 bytes, NUL padded, from the kernel string s. */
static void
read_name(char *out, const void *s)
{
	__builtin_memset(out, 0, EXECBPF_COMM_LEN);
	bpf_probe_read_kernel_str(out, EXECBPF_COMM_LEN, s);
	out[EXECBPF_COMM_LEN - 1] = '\0';
}

struct cuts {
	const char *s;
	__u32 len;   /* up to the NUL */
	__u32 slash; /* just past the last '/' */
	__u32 back;  /* just past the last '/' or '\' */
};

/* bpf_loop's step: one byte of a path or argv[0] (verified once, not
 * per byte). */
static long
cut_step(__u32 i, void *arg)
{
	struct cuts *c = arg;
	char ch = c->s[i & (EXECBPF_PATH_LEN - 1)];

	if (ch == '\0')
		return 1;
	c->len = i + 1;
	if (ch == '/')
		c->slash = c->back = i + 1;
	else if (ch == '\\')
		c->back = i + 1;
	return 0;
}

/* The base name of kernel path s, cut to 15 bytes, into out (path:
 * room for EXECBPF_PATH_LEN bytes). */
static void
read_base(char *out, char *path, const char *s)
{
	struct cuts sc = { .s = path };

	__builtin_memset(out, 0, EXECBPF_COMM_LEN);
	if (bpf_probe_read_kernel_str(path, EXECBPF_PATH_LEN, s) <= 0)
		return;
	bpf_loop(EXECBPF_PATH_LEN, cut_step, &sc, 0);
	for (int i = 0; i < EXECBPF_COMM_LEN - 1; i++) {
		char c = path[(sc.slash + i) & (EXECBPF_PATH_LEN - 1)];

		if (c == '\0' || sc.slash + i >= EXECBPF_PATH_LEN)
			break;
		out[i] = c;
	}
}

/* Does name start like an interpreter, with only a version after it
 * (kernel/task.c's list: python3.11 is python)? */
static bool
interpreter(const char *name)
{
	static const char list[][7] = { "sh",  "bash", "dash", "zsh",	 "ksh",	 "mksh",
					"csh", "tcsh", "fish", "python", "perl", "ruby",
					"lua", "node", "php",  "tclsh",	 "wish" };

	for (int i = 0; i < (int)(sizeof(list) / sizeof(list[0])); i++) {
		int k = 0;

		while (k < 6 && list[i][k] != '\0' && list[i][k] == name[k])
			k++;
		if (list[i][k] != '\0')
			continue;
		for (; k < EXECBPF_COMM_LEN; k++) {
			char c = name[k];

			if (c == '\0')
				return true;
			if ((c < '0' || c > '9') && c != '.')
				break;
		}
	}
	return false;
}

/* ---- ananicy-cpp's names --------------------------------------------------- */

struct hashing {
	const char *s;
	__u32 from, to; /* the bytes [from, to) of s */
	__u64 h;
};

/* bpf_loop's step: one byte into the FNV-1a hash. */
static long
hash_step(__u32 i, void *arg)
{
	struct hashing *hs = arg;
	__u32 k = hs->from + i;

	char ch = hs->s[k & (EXECBPF_PATH_LEN - 1)];

	if (k >= hs->to || ch == '\0')
		return 1;
	hs->h ^= (unsigned char)ch;
	hs->h *= EXECBPF_FNV_PRIME;
	return 0;
}

static bool
has_hash(const char *s, __u32 from, __u32 to)
{
	struct hashing hs = { .s = s, .from = from, .to = to, .h = EXECBPF_FNV_OFFSET };
	struct execbpf_hash_key k = { .gen = gen };

	bpf_loop(EXECBPF_PATH_LEN, hash_step, &hs, 0);
	k.hash = hs.h;
	return bpf_map_lookup_elem(&anames, &k) != NULL;
}

/*
 * Is the name ananicy-cpp would match this exec by one of its rules'?
 * That name is the last part of argv[0] (after the last '/', or also
 * '\\' when it ends in ".exe": a Windows program under Wine); with no
 * argv[0], the name of the file that runs; then the comm (rules/ananicy.c,
 * ananicy_name).  buf: room for EXECBPF_PATH_LEN bytes.  An argv[0]
 * that cannot be read whole passes (the daemon reads it).
 */
static bool
ananicy_named(struct execbpf_event *ev, char *buf, struct task_struct *p,
	      struct linux_binprm *bprm)
{
	const char *argv0 = (const char *)BPF_CORE_READ(p, mm, arg_start);
	struct cuts c = { .s = buf };
	long n = bpf_probe_read_user_str(buf, EXECBPF_PATH_LEN, argv0);

	if (n < 0 || n >= EXECBPF_PATH_LEN)
		return true;
	if (n > 1) {
		bpf_loop(EXECBPF_PATH_LEN, cut_step, &c, 0);
		bool exe = c.len >= 4 && buf[(c.len - 4) & (EXECBPF_PATH_LEN - 1)] == '.' &&
			   buf[(c.len - 3) & (EXECBPF_PATH_LEN - 1)] == 'e' &&
			   buf[(c.len - 2) & (EXECBPF_PATH_LEN - 1)] == 'x' &&
			   buf[(c.len - 1) & (EXECBPF_PATH_LEN - 1)] == 'e';
		return has_hash(buf, exe ? c.back : c.slash, c.len);
	}
	n = bpf_probe_read_kernel_str(buf, EXECBPF_PATH_LEN,
				      BPF_CORE_READ(bprm, file, f_path.dentry, d_name.name));
	if (n >= EXECBPF_PATH_LEN)
		return true;
	if (n > 1)
		return has_hash(buf, 0, (__u32)n - 1);
	__builtin_memcpy(buf, ev->comm, EXECBPF_COMM_LEN);
	return has_hash(buf, 0, EXECBPF_COMM_LEN); /* up to its NUL */
}

/* Could a rule decide this exec?  ev holds its credentials and comm. */
static bool
wanted(struct execbpf_event *ev, char *path, struct task_struct *p, struct linux_binprm *bprm)
{
	char name[EXECBPF_COMM_LEN];

	if (wide || has_id(&uids, ev->uid) || has_id(&uids, ev->euid) ||
	    has_id(&gids, ev->gid) || has_id(&gids, ev->egid) || has_name(ev->comm))
		return true;
	if (all_pids || bpf_map_lookup_elem(&pids, &ev->tgid) != NULL)
		return true;
	for (int i = 0; i < EXECBPF_GROUPS && i < (int)ev->ngroups; i++)
		if (has_id(&gids, ev->groups[i]))
			return true;
	if (ev->ngroups > EXECBPF_GROUPS) /* the rest are not read: let the daemon see */
		return true;
	read_name(name, BPF_CORE_READ(bprm, file, f_path.dentry, d_name.name));
	if (has_name(name) || (scripts && (interpreter(name) || interpreter(ev->comm))))
		return true;
	const char *interp = BPF_CORE_READ(bprm, interp);
	if (interp != BPF_CORE_READ(bprm, filename)) {
		read_base(name, path, interp);
		if (has_name(name))
			return true;
	}
	return ananicy && ananicy_named(ev, path, p, bprm);
}

/* The task's credentials and groups into ev. */
static void
read_creds(struct execbpf_event *ev, struct task_struct *p)
{
	const struct cred *cred = BPF_CORE_READ(p, cred);
	struct group_info *gi = BPF_CORE_READ(cred, group_info);

	ev->uid = BPF_CORE_READ(cred, uid.val);
	ev->gid = BPF_CORE_READ(cred, gid.val);
	ev->euid = BPF_CORE_READ(cred, euid.val);
	ev->egid = BPF_CORE_READ(cred, egid.val);
	ev->ngroups = (__u32)BPF_CORE_READ(gi, ngroups);
	for (int i = 0; i < EXECBPF_GROUPS; i++) {
		if (i >= (int)ev->ngroups)
			break;
		bpf_core_read(&ev->groups[i], sizeof(ev->groups[i]), &gi->gid[i]);
	}
}

/* Where the walk up the executable's path is. */
struct walk {
	struct dentry *d;
	struct mount *mnt;
	__u32 off; /* bytes of ev.exe written */
	int end;   /* 1: at the root; -1: not told */
};

/* bpf_loop's step: one name of the path, or one mount crossed. */
static long
walk_step(__u32 i, void *arg)
{
	struct walk *w = arg;
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct dentry *d = w->d, *up;
	struct mount *m = w->mnt; /* (a local: CO-RE relocates only kernel types) */
	long n;

	w->end = -1;
	if (s == NULL)
		return 1;
	if (d == BPF_CORE_READ(m, mnt.mnt_root)) {
		struct mount *parent = BPF_CORE_READ(m, mnt_parent);

		if (parent == m) {
			w->end = 1; /* the root of its mount namespace */
			return 1;
		}
		w->d = BPF_CORE_READ(m, mnt_mountpoint);
		w->mnt = parent;
		w->end = 0;
		return 0;
	}
	up = BPF_CORE_READ(d, d_parent);
	if (up == d || w->off >= EXECBPF_EXE_LEN)
		return 1; /* a tree mounted nowhere, or too long */
	n = bpf_probe_read_kernel_str(&s->ev.exe[w->off & (EXECBPF_EXE_LEN - 1)],
				      EXECBPF_NAME_MAX, BPF_CORE_READ(d, d_name.name));
	if (n <= 0)
		return 1;
	w->off += (__u32)n;
	w->d = up;
	w->end = 0;
	return 0;
}

/* The executable's path into ev->exe, as exec_event.h says. */
static void
read_exe(struct execbpf_event *ev, struct linux_binprm *bprm)
{
	struct vfsmount *vm = BPF_CORE_READ(bprm, file, f_path.mnt);
	struct dentry *leaf = BPF_CORE_READ(bprm, file, f_path.dentry);
	struct walk w = {
		.d = leaf,
		.mnt = (struct mount *)((char *)vm - bpf_core_field_offset(struct mount, mnt)),
	};

	if (BPF_CORE_READ(leaf, d_op, d_dname) != NULL)
		return; /* a name the kernel makes up when asked */
	bpf_loop(EXECBPF_EXE_STEPS, walk_step, &w, 0);
	if (w.end == 1 && w.off <= EXECBPF_EXE_LEN)
		ev->exe_len = w.off;
}

/* Is hierarchy hier one the daemon asked for? */
static bool
asked_hier(__u32 hier)
{
	__u32 n = nv1_hiers;

	for (__u32 i = 0; i < EXECBPF_V1; i++)
		if (i < n && v1_hiers[i] == hier)
			return true;
	return false;
}

struct v1walk {
	struct list_head *head, *pos;
	struct execbpf_event *ev;
	bool backward;
};

/* bpf_loop's step: one of the task's hierarchies (a link of its css_set) */
static long
v1_step(__u32 i, void *arg)
{
	struct v1walk *w = arg;
	struct list_head *pos = w->pos;
	struct cgrp_cset_link *l;
	struct cgroup *cg;
	__u32 hier, n;

	if (pos == w->head || pos == NULL)
		return 1;
	l = (struct cgrp_cset_link *)((char *)pos -
				      bpf_core_field_offset(struct cgrp_cset_link, cgrp_link));
	cg = BPF_CORE_READ(l, cgrp);
	w->pos = w->backward ? BPF_CORE_READ(pos, prev) : BPF_CORE_READ(pos, next);
	hier = (__u32)BPF_CORE_READ(cg, root, hierarchy_id);
	if (hier == 0 || !asked_hier(hier)) /* 0: the v2 hierarchy */
		return 0;
	n = w->ev->nv1;
	if (n >= EXECBPF_V1)
		return 1;
	w->ev->v1[n & (EXECBPF_V1 - 1)].hier = hier;
	w->ev->v1[n & (EXECBPF_V1 - 1)].id = BPF_CORE_READ(cg, kn, id);
	w->ev->nv1 = n + 1;
	return n + 1 >= nv1_hiers; /* all found: the rest is not walked */
}

/* The task's groups in the hierarchies asked for, into ev->v1 (as
 * /proc/PID/cgroup would list them, by id). */
static void
read_v1(struct execbpf_event *ev, struct task_struct *p)
{
	struct css_set *cset;
	struct v1walk w = { .ev = ev };

	if (!bpf_core_field_exists(p->cgroups))
		return; /* a kernel without cgroups: the program loads all the same */
	cset = BPF_CORE_READ(p, cgroups);
	if (cset == NULL)
		return;
	w.head = (struct list_head *)((char *)cset +
				      bpf_core_field_offset(struct css_set, cgrp_links));
	/* the links are in the order the hierarchies were made, oldest
	 * (the v2 one) first */
	w.backward = v1_backward != 0;
	w.pos = w.backward ? BPF_CORE_READ(cset, cgrp_links.prev)
			   : BPF_CORE_READ(cset, cgrp_links.next);
	bpf_loop(EXECBPF_V1_STEPS, v1_step, &w, 0);
}

/*
 * Write a record; without waking the reader while it is awake.  If it
 * fell asleep meanwhile -- cleared `awake` after this read it, and may
 * have looked at the ring buffer for the last time before the record
 * was in -- it is woken by a record of no use (shorter than an event,
 * which the reader skips).  The reader clears the flag, then looks; the
 * commit of a record is a full barrier before the second look at the
 * flag: either the reader sees the record or this sees the flag clear.
 */
static void
output(struct execbpf_event *ev, __u32 len)
{
	__u64 nudge = 0;

	if (!awake) {
		if (bpf_ringbuf_output(&events, ev, len, 0) < 0)
			__sync_fetch_and_add(&drops, 1);
		return;
	}
	if (bpf_ringbuf_output(&events, ev, len, BPF_RB_NO_WAKEUP) < 0) {
		__sync_fetch_and_add(&drops, 1);
		return;
	}
	if (!awake && bpf_ringbuf_output(&events, &nudge, sizeof(nudge), BPF_RB_FORCE_WAKEUP) < 0)
		__sync_fetch_and_add(&drops, 1);
}

SEC("tp_btf/sched_process_exec")
int
BPF_PROG(cge_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct execbpf_event *ev;

	__sync_fetch_and_add(&execs, 1);
	if (s == NULL)
		return 0;
	ev = &s->ev;
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->pid = (__u32)BPF_CORE_READ(p, pid);
	ev->tgid = (__u32)BPF_CORE_READ(p, tgid);
	read_creds(ev, p);
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	if (!wanted(ev, s->path, p, bprm))
		return 0;
	__sync_fetch_and_add(&passed, 1);
	ev->ppid = (__u32)BPF_CORE_READ(p, real_parent, tgid);
	ev->cgroup_id = bpf_get_current_cgroup_id();
	ev->policy = BPF_CORE_READ(p, policy);
	if (nv1_hiers > 0)
		read_v1(ev, p);
	read_exe(ev, bprm);
	ev->ts_ns = bpf_ktime_get_ns();
	/* the record up to the end of its path */
	__u32 len = __builtin_offsetof(struct execbpf_event, exe) +
		    (ev->exe_len & (EXECBPF_EXE_LEN - 1));
	if (ev->exe_len == EXECBPF_EXE_LEN)
		len = sizeof(*ev);
	output(ev, len);
	return 0;
}
