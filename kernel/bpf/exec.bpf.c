// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * exec.bpf.c -- the eBPF event source: a program on the tracepoint
 * sched_process_exec (tp_btf) that sends the execs some rule may
 * decide to a ring buffer, and drops the others in the kernel; and one
 * on the proc connector's proc_id_connector() (fentry), which the
 * kernel calls at every change of a task's uids or gids, that sends
 * those some rule may decide (see cge_ids), so the daemon needs no
 * connector socket for them.
 *
 * The filter (filled by kernel/bpfexec.c from the policy's keys): an
 * exec passes when `wide` is set, or its uid, euid, gid, egid or one of
 * its supplementary groups is a key, or one of its names is: its comm
 * (the exec'd file's base name), the base name of the interpreter of a
 * #! script, the name of the file that runs -- all cut to 15 bytes, as
 * the keys are; or, when `scripts` is set (rules name programs), it
 * runs an interpreter and the base name of the script its arguments
 * give is a key, or its arguments cannot tell (script_named); or its
 * thread group is tracked;
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
 * The filter's order is its cost's: an exec no rule names is dropped
 * after reading its credentials and comm with plain loads (the
 * tracepoint's arguments are typed pointers: no helper call) and a
 * bit per value in each key map that holds keys (a hash lookup only
 * where the bit is set); a map without keys is not looked in
 * (has_gids, ...); the file's name is read only when rules name
 * programs, and the path and the groups only for an exec that passes
 * (or, the groups, when rules name groups).
 *
 * What that costs (bpf_stats; Linux 6.18 on 2 virtual cores): an exec
 * no rule names 0.1-0.3 us, one that passes 0.7-0.9 us -- and some
 * 2 us more when its record wakes the daemon: the ring buffer wakes
 * its reader from an irq_work, whose interrupt arrives while the
 * program still runs, and so counts in its run time.
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

/* The processes whose exec passed lately, by thread group: a change of
 * their ids passes too (cge_ids).  A slot per tgid modulo its size,
 * holding the last one whose exec passed (a store, not a hash update). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, EXECBPF_RECENT_MAX);
	__type(key, __u32);
	__type(value, __u32);
} recent SEC(".maps");

/* Is thread group tgid's slot in recent (or, with set, make it so)? */
static __always_inline bool
recent_slot(__u32 tgid, bool set)
{
	__u32 slot = tgid & (EXECBPF_RECENT_MAX - 1);
	__u32 *v = bpf_map_lookup_elem(&recent, &slot);

	if (v != NULL && set)
		*v = tgid;
	return v != NULL && *v == tgid;
}

/*
 * Written by the daemon through the skeleton's mapping of .bss/.data:
 * what every exec reads first, together (one cache line, which the
 * daemon writes only at a reload), then the bits, then what is written
 * often (awake, the counters), apart.
 */
volatile __u32 gen;
volatile __u32 scripts;
volatile __u32 ananicy; /* the anames map is in force */
volatile __u32 all_pids;
/* the gid and name maps may hold keys: a task's groups, the name of the
 * file an exec runs are read only then */
volatile __u32 has_gids, has_names;
volatile __u32 wide = 1; /* until the daemon has filled the maps */
/* the uid (gid) changes the daemon wants (cge_ids): all that pass */
volatile __u32 want_uid = 1, want_gid = 1;
/*
 * Which keys each map may hold (of either generation in force, or a
 * tracked thread group): a bit per key, execbpf_bit() of it.  A value
 * whose bit is clear is not looked up -- so an exec no rule names costs
 * a few loads, not a hash lookup per value.
 */
volatile __u64 bits_uids[EXECBPF_BITS_WORDS], bits_gids[EXECBPF_BITS_WORDS];
volatile __u64 bits_names[EXECBPF_BITS_WORDS], bits_pids[EXECBPF_PID_BITS_WORDS];
/* the v1 hierarchies whose groups a record tells (nv1_hiers of them) */
volatile __u32 v1_hiers[EXECBPF_V1];
volatile __u32 nv1_hiers;
volatile __u32 v1_backward; /* walk them newest first: they were mounted late */
volatile __u32 awake __attribute__((aligned(64)));
volatile __u32 hold_ids; /* see output() */
__u64 drops;  /* records the ring buffer had no room for */
__u64 passed; /* execs that passed the filter */

/* A name of up to 15 bytes, NUL padded to 16: as the name keys hold it. */
union name16 {
	char c[EXECBPF_COMM_LEN];
	__u64 w[2];
};

/* Is bit `bit` of bits set? */
static __always_inline bool
bit_set(const volatile __u64 *bits, __u32 bit)
{
	return (bits[(bit >> 6) & (EXECBPF_BITS_WORDS - 1)] >> (bit & 63)) & 1;
}

/* Is id a key of map (uids or gids, whose bits are bits)? */
static __always_inline bool
has_id(void *map, const volatile __u64 *bits, __u32 id)
{
	struct execbpf_id_key k = { .gen = gen, .id = id };

	return bit_set(bits, execbpf_bit(id)) && bpf_map_lookup_elem(map, &k) != NULL;
}

static bool
has_name(const union name16 *n)
{
	struct execbpf_name_key k = { .gen = gen };

	if (!bit_set(bits_names, execbpf_bit(execbpf_name_mix(n->w[0], n->w[1]))))
		return false;
	__builtin_memcpy(k.name, n->c, EXECBPF_COMM_LEN - 1);
	return bpf_map_lookup_elem(&names, &k) != NULL;
}

/* The bytes of little-endian word w before its first NUL, as a mask
 * (all ones when it has none). */
static __always_inline __u64
before_nul(__u64 w)
{
	__u64 z = (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL;

	/* the lowest bit of z is the first NUL's top bit (those above may
	 * be wrong, and do not count) */
	return z == 0 ? ~0ULL : ((z & -z) >> 7) - 1;
}

/* Clear what follows the first NUL of n, and its last byte (without a
 * branch per byte: the verifier would follow each). */
static __always_inline void
pad_name(union name16 *n)
{
	__u64 m0 = before_nul(n->w[0]);

	n->w[0] &= m0;
	n->w[1] = m0 == ~0ULL ? n->w[1] & before_nul(n->w[1]) & 0x00ffffffffffffffULL : 0;
}

/* A name cut to 15 bytes, NUL padded, from the kernel string s. */
static void
read_name(union name16 *out, const void *s)
{
	out->w[0] = out->w[1] = 0;
	bpf_probe_read_kernel_str(out->c, EXECBPF_COMM_LEN, s);
	out->c[EXECBPF_COMM_LEN - 1] = '\0';
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

/* The name of dentry d into out (as read_name): read in place, by plain
 * loads, when it is stored in the dentry (a short one), else by a
 * helper.  Its second word only when the first holds no NUL: it lies
 * in the dentry's second cache line (6.1 to 6.18), which the lookup of
 * a name of up to 7 bytes need not have touched (some 25 ns of an exec
 * no rule names, bpf_stats, within the noise). */
static __always_inline void
dentry_name(union name16 *out, struct dentry *d)
{
	const unsigned char *name = d->d_name.name;

	if (bpf_core_field_exists(d->d_shortname)) {
		if ((__u64)name == (__u64)&d->d_shortname) {
			out->w[0] = *(const __u64 *)&d->d_shortname.string[0];
			out->w[1] = before_nul(out->w[0]) != ~0ULL
					    ? 0
					    : *(const __u64 *)&d->d_shortname.string[8];
			pad_name(out);
			return;
		}
	} else if (bpf_core_field_exists(d->d_iname)) {
		if ((__u64)name == (__u64)&d->d_iname) {
			out->w[0] = *(const __u64 *)&d->d_iname[0];
			out->w[1] = before_nul(out->w[0]) != ~0ULL
					    ? 0
					    : *(const __u64 *)&d->d_iname[8];
			pad_name(out);
			return;
		}
	}
	read_name(out, name);
}

/* The base name of kernel path s, cut to 15 bytes, into out (path:
 * room for EXECBPF_PATH_LEN bytes). */
static void
read_base(union name16 *out, char *path, const char *s)
{
	struct cuts sc = { .s = path };

	out->w[0] = out->w[1] = 0;
	if (bpf_probe_read_kernel_str(path, EXECBPF_PATH_LEN, s) <= 0)
		return;
	bpf_loop(EXECBPF_PATH_LEN, cut_step, &sc, 0);
	for (int i = 0; i < EXECBPF_COMM_LEN - 1; i++) {
		char c = path[(sc.slash + i) & (EXECBPF_PATH_LEN - 1)];

		if (c == '\0' || sc.slash + i >= EXECBPF_PATH_LEN)
			break;
		out->c[i] = c;
	}
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
ananicy_named(const char *comm, char *buf, struct task_struct *p, struct linux_binprm *bprm)
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
	__builtin_memcpy(buf, comm, EXECBPF_COMM_LEN);
	return has_hash(buf, 0, EXECBPF_COMM_LEN); /* up to its NUL */
}

/*
 * argv[0] into the record, for ananicy's names (the daemon then reads
 * no cmdline for it): told (argv0_len, with its NUL) only when read
 * whole -- one that fills argv0[] may be cut short.
 */
static __always_inline void
read_argv0(struct execbpf_event *ev, struct task_struct *p)
{
	long n = bpf_probe_read_user_str(ev->argv0, EXECBPF_ARGV0_LEN,
					 (const char *)BPF_CORE_READ(p, mm, arg_start));

	if (n > 0 && n < EXECBPF_ARGV0_LEN)
		ev->argv0_len = (__u32)n;
}

/* A task's credentials, as the filter reads them. */
struct creds {
	__u32 uid, gid, euid, egid;
	__u32 ngroups;	/* the task's count */
	__u32 read;	/* groups[] holds the first ngroups (up to 16) */
	__u32 groups[EXECBPF_GROUPS];
};

/* The ids of cred into c (plain loads); its groups are read later. */
static __always_inline void
read_ids(struct creds *c, const struct cred *cred)
{
	c->uid = cred->uid.val;
	c->gid = cred->gid.val;
	c->euid = cred->euid.val;
	c->egid = cred->egid.val;
	c->read = 0;
}

/* The first EXECBPF_GROUPS supplementary groups of cred into c, in one
 * read (by helpers: cred may be a plain number, in cge_ids). */
static void
read_groups(struct creds *c, const struct cred *cred)
{
	const struct group_info *gi = BPF_CORE_READ(cred, group_info);
	__u32 n = (__u32)BPF_CORE_READ(gi, ngroups);

	c->ngroups = n;
	c->read = 1;
	__builtin_memset(c->groups, 0, sizeof(c->groups));
	if (n > EXECBPF_GROUPS)
		n = EXECBPF_GROUPS;
	if (n > 0 && bpf_probe_read_kernel(c->groups, n * sizeof(__u32), &gi->gid[0]) < 0)
		c->ngroups = EXECBPF_GROUPS + 1; /* not read: as if too many */
}

/* Do the credentials name a key?  (Groups beyond the first 16 are not
 * read: such a task passes.) */
static bool
named_ids(struct creds *c, const struct cred *cred)
{
	if (has_id(&uids, bits_uids, c->uid) ||
	    (c->euid != c->uid && has_id(&uids, bits_uids, c->euid)))
		return true;
	if (!has_gids)
		return false;
	if (has_id(&gids, bits_gids, c->gid) ||
	    (c->egid != c->gid && has_id(&gids, bits_gids, c->egid)))
		return true;
	read_groups(c, cred);
	if (c->ngroups > EXECBPF_GROUPS)
		return true;
	for (int i = 0; i < EXECBPF_GROUPS && i < (int)c->ngroups; i++)
		if (has_id(&gids, bits_gids, c->groups[i]))
			return true;
	return false;
}

/* Is thread group tgid one the daemon tracks? */
static __always_inline bool
tracked(__u32 tgid)
{
	__u32 bit = execbpf_pid_bit(tgid);

	return all_pids || (((bits_pids[(bit >> 6) & (EXECBPF_PID_BITS_WORDS - 1)] >> (bit & 63)) & 1) &&
			    bpf_map_lookup_elem(&pids, &tgid) != NULL);
}

/* Does comm (padded), or name (the file's, padded), name a key? */
static bool
named_program(const union name16 *comm, const union name16 *name)
{
	if (!has_names)
		return false;
	return has_name(comm) ||
	       ((name->w[0] != comm->w[0] || name->w[1] != comm->w[1]) && has_name(name));
}

/* With `scripts`, is comm or name an interpreter's? */
static __always_inline bool
interpreter(const union name16 *comm, const union name16 *name)
{
	return scripts && (execbpf_interpreter_name(comm->w[0], comm->w[1]) ||
			   execbpf_interpreter_name(name->w[0], name->w[1]));
}

struct script_scan {
	const char *area; /* EXECBPF_PATH_LEN bytes */
	__u32 len;	  /* of them, read */
	__u32 at;	  /* where the scan stopped */
	enum execbpf_script_says says;
	struct execbpf_script s;
};

/* bpf_loop's step: one byte of the argument area (exec_event.h). */
static long
script_step(__u32 i, void *arg)
{
	struct script_scan *sc = arg;

	if (i >= sc->len)
		return 1;
	sc->at = i;
	sc->says = execbpf_script_step(&sc->s, i, sc->area[i & (EXECBPF_PATH_LEN - 1)]);
	return sc->says != EXECBPF_SCRIPT_MORE;
}

/*
 * Could a rule name the script this interpreter runs?  Its arguments
 * are read (their first EXECBPF_PATH_LEN bytes, into buf) and the
 * script found as the daemon finds it (exec_event.h); it is named when
 * its base name, cut to 15 bytes, is a key.  A script that cannot be
 * told -- the arguments unreadable, or cut short before it -- passes;
 * none ("sh -c ...", no argument) does not.
 */
static bool
script_named(char *buf, struct task_struct *p)
{
	__u64 from = BPF_CORE_READ(p, mm, arg_start), to = BPF_CORE_READ(p, mm, arg_end);
	struct script_scan sc = { .area = buf, .says = EXECBPF_SCRIPT_MORE };
	union name16 name = { .w = { 0, 0 } };
	__u32 n;

	if (to < from)
		return true;
	n = to - from > EXECBPF_PATH_LEN ? EXECBPF_PATH_LEN : (__u32)(to - from);
	if (n > 0 && bpf_probe_read_user(buf, n, (const void *)from) < 0)
		return true;
	sc.len = n;
	bpf_loop(EXECBPF_PATH_LEN, script_step, &sc, 0);
	if (sc.says != EXECBPF_SCRIPT_FOUND)
		return sc.says == EXECBPF_SCRIPT_MORE && to - from > EXECBPF_PATH_LEN;
	for (__u32 i = 0; i < EXECBPF_COMM_LEN - 1; i++) {
		__u32 k = sc.s.base + i;

		if (k >= sc.at)
			break;
		name.c[i] = buf[k & (EXECBPF_PATH_LEN - 1)];
	}
	return has_name(&name);
}

/* Could a rule decide this exec?  c holds its ids, comm its comm. */
static bool
wanted(struct creds *c, const union name16 *comm, struct task_struct *p,
       struct linux_binprm *bprm)
{
	union name16 name;
	__u32 zero = 0;
	struct scratch *s;

	if (wide || named_ids(c, p->cred) || tracked((__u32)p->tgid))
		return true;
	if (!has_names && !ananicy)
		return false;
	dentry_name(&name, bprm->file->f_path.dentry);
	if (named_program(comm, &name))
		return true;
	bool shebang = has_names && bprm->interp != bprm->filename; /* a #! script */
	bool interp = interpreter(comm, &name);
	if (!shebang && !interp && !ananicy)
		return false;
	if ((s = bpf_map_lookup_elem(&scratch, &zero)) == NULL)
		return true;
	if (shebang) { /* its interpreter's name */
		read_base(&name, s->path, bprm->interp);
		if (has_name(&name))
			return true;
	}
	if (interp && script_named(s->path, p))
		return true;
	return ananicy && ananicy_named(comm->c, s->path, p, bprm);
}

/*
 * Where the walk up the executable's path is: the dentry, and the
 * mount it is in (the mount's parent, where the mount sits in it, its
 * root) -- kernel addresses, read by helpers (CO-RE relocates the
 * offsets of kernel types only, not of a local's fields).
 */
struct walk {
	__u64 d;
	__u64 mnt, parent, mountpoint, root;
	__u32 off; /* bytes of ev.exe written */
	int end;   /* 1: at the root; -1: not told */
};

/* w's mount becomes m: its parent, mountpoint and root, in one read
 * where they follow one another (they do, since 2.6: struct mount's
 * mnt_parent, mnt_mountpoint, then mnt, whose first field is mnt_root).
 * 0 or -1. */
static __always_inline int
walk_mount(struct walk *w, __u64 m)
{
	__u32 at = bpf_core_field_offset(struct mount, mnt_parent);
	__u64 f[3];

	if (bpf_core_field_offset(struct mount, mnt_mountpoint) == at + 8 &&
	    bpf_core_field_offset(struct mount, mnt.mnt_root) == at + 16) {
		if (bpf_probe_read_kernel(f, sizeof(f), (const char *)m + at) < 0)
			return -1;
	} else {
		struct mount *mp = (struct mount *)m;

		f[0] = (__u64)BPF_CORE_READ(mp, mnt_parent);
		f[1] = (__u64)BPF_CORE_READ(mp, mnt_mountpoint);
		f[2] = (__u64)BPF_CORE_READ(mp, mnt.mnt_root);
	}
	w->mnt = m;
	w->parent = f[0];
	w->mountpoint = f[1];
	w->root = f[2];
	return 0;
}

/* Dentry d's parent and the address of its name into *up, *name, in
 * one read where they follow one another (d_parent, then d_name: its
 * hash_len and name).  0 or -1. */
static __always_inline int
walk_dentry(__u64 d, __u64 *up, __u64 *name)
{
	__u32 at = bpf_core_field_offset(struct dentry, d_parent);
	__u64 f[3];

	if (bpf_core_field_offset(struct dentry, d_name.name) == at + 16) {
		if (bpf_probe_read_kernel(f, sizeof(f), (const char *)d + at) < 0)
			return -1;
		*up = f[0];
		*name = f[2];
		return 0;
	}
	struct dentry *dp = (struct dentry *)d;

	*up = (__u64)BPF_CORE_READ(dp, d_parent);
	*name = (__u64)BPF_CORE_READ(dp, d_name.name);
	return 0;
}

/* bpf_loop's step: one name of the path, or one mount crossed. */
static long
walk_step(__u32 i, void *arg)
{
	struct walk *w = arg;
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	__u64 up, name;
	long n;

	w->end = -1;
	if (s == NULL)
		return 1;
	if (w->d == w->root) {
		if (w->parent == w->mnt) {
			w->end = 1; /* the root of its mount namespace */
			return 1;
		}
		w->d = w->mountpoint;
		if (walk_mount(w, w->parent) < 0)
			return 1;
		w->end = 0;
		return 0;
	}
	if (walk_dentry(w->d, &up, &name) < 0 || up == w->d || w->off >= EXECBPF_EXE_LEN)
		return 1; /* a tree mounted nowhere, or too long */
	n = bpf_probe_read_kernel_str(&s->ev.exe[w->off & (EXECBPF_EXE_LEN - 1)],
				      EXECBPF_NAME_MAX, (const void *)name);
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
	struct dentry *leaf = bprm->file->f_path.dentry;
	struct vfsmount *vm = bprm->file->f_path.mnt;
	struct walk w = { .d = (__u64)leaf };

	if (leaf->d_op != NULL && leaf->d_op->d_dname != NULL)
		return; /* a name the kernel makes up when asked */
	if (walk_mount(&w, (__u64)vm - bpf_core_field_offset(struct mount, mnt)) < 0)
		return;
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

/*
 * Where the last whole walk of a task's hierarchies met those asked
 * for: a bit per step.  Every css_set links the hierarchies in one
 * order, the order they were made (a new hierarchy is linked at the end
 * of every css_set's list, a new css_set copies its model's), so until
 * one is made or destroyed they are met at the same steps in every
 * task: a walk reads then only the links up to the last of those steps
 * and the hierarchy of the link at each -- and walks the whole list
 * again, and learns, when one there is not asked for or one asked for
 * is not met.  (Written by the program; 0: not known.)
 */
__u64 v1_steps;

struct v1walk {
	struct list_head *head, *pos;
	struct execbpf_event *ev;
	bool backward;
	bool learn;  /* a whole walk, noting in steps where it meets one */
	bool missed; /* not learning: a step of steps held another */
	__u64 steps;
};

/* bpf_loop's step: one of the task's hierarchies (a link of its css_set) */
static long
v1_step(__u32 i, void *arg)
{
	struct v1walk *w = arg;
	struct list_head *pos = w->pos;
	__u64 buf[8]; /* the link, read whole: its group and its neighbours in one read */
	struct cgrp_cset_link *l = (struct cgrp_cset_link *)buf;
	struct cgroup *cg;
	__u32 hier, n;

	if (pos == w->head || pos == NULL)
		return 1;
	if (!w->learn && (w->steps >> (i & 63)) == 0) {
		w->missed = true; /* past the last step where one was */
		return 1;
	}
	if (bpf_core_type_size(struct cgrp_cset_link) > sizeof(buf) ||
	    bpf_probe_read_kernel(buf, bpf_core_type_size(struct cgrp_cset_link),
				  (char *)pos - bpf_core_field_offset(struct cgrp_cset_link,
								      cgrp_link)) < 0)
		return 1;
	cg = l->cgrp;
	w->pos = w->backward ? l->cgrp_link.prev : l->cgrp_link.next;
	if (!w->learn && !((w->steps >> (i & 63)) & 1))
		return 0;
	hier = (__u32)BPF_CORE_READ(cg, root, hierarchy_id);
	if (hier == 0 || !asked_hier(hier)) { /* 0: the v2 hierarchy */
		if (w->learn)
			return 0;
		w->missed = true;
		return 1;
	}
	if (w->learn)
		w->steps |= 1ULL << (i & 63);
	n = w->ev->nv1;
	if (n >= EXECBPF_V1)
		return 1;
	w->ev->v1[n & (EXECBPF_V1 - 1)].hier = hier;
	w->ev->v1[n & (EXECBPF_V1 - 1)].id = BPF_CORE_READ(cg, kn, id);
	w->ev->nv1 = n + 1;
	return n + 1 >= nv1_hiers; /* all found: the rest is not walked */
}

/* The task's groups in the hierarchies asked for, into ev->v1 (as
 * /proc/PID/cgroup would list them, by id): at the steps where the
 * last whole walk met them, else by a whole walk (v1_steps). */
static void
read_v1(struct execbpf_event *ev, struct task_struct *p)
{
	struct css_set *cset;
	struct v1walk w = { .ev = ev, .steps = v1_steps };
	__u32 asked = nv1_hiers;

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
	struct list_head *first = w.pos;

	if (w.steps != 0) {
		bpf_loop(EXECBPF_V1_STEPS, v1_step, &w, 0);
		if (!w.missed && ev->nv1 >= asked)
			return;
		ev->nv1 = 0;
	}
	w.learn = true;
	w.steps = 0;
	w.pos = first;
	bpf_loop(EXECBPF_V1_STEPS, v1_step, &w, 0);
	v1_steps = ev->nv1 >= asked ? w.steps : 0;
}

/*
 * Write a record; without waking the reader while it is awake.  If it
 * fell asleep meanwhile -- cleared `awake` after this read it, and may
 * have looked at the ring buffer for the last time before the record
 * was in -- it is woken by a record of no use (shorter than an event,
 * which the reader skips).  The reader clears the flag, then looks; the
 * commit of a record is a full barrier before the second look at the
 * flag: either the reader sees the record or this sees the flag clear.
 *
 * A uid or gid change (ids) is also written without a wake-up while
 * `hold_ids` is set: while execs come one after another the daemon
 * reads it with the next exec (a spawner dropping privileges, then
 * exec'ing, costs one wake-up, not two), or when it ends that spell,
 * clearing the flag the same way.  Meanwhile every other record wakes
 * the reader itself: the ring buffer wakes it only for a record right
 * after those it has read, and one held may be between.
 */
static void
output(void *rec, __u32 len, bool ids)
{
	__u64 nudge = 0;

	if (!awake && !(ids && hold_ids)) {
		if (bpf_ringbuf_output(&events, rec, len, hold_ids ? BPF_RB_FORCE_WAKEUP : 0) < 0)
			__sync_fetch_and_add(&drops, 1);
		return;
	}
	if (bpf_ringbuf_output(&events, rec, len, BPF_RB_NO_WAKEUP) < 0) {
		__sync_fetch_and_add(&drops, 1);
		return;
	}
	if (!awake && !(ids && hold_ids) &&
	    bpf_ringbuf_output(&events, &nudge, sizeof(nudge), BPF_RB_FORCE_WAKEUP) < 0)
		__sync_fetch_and_add(&drops, 1);
}

SEC("tp_btf/sched_process_exec")
int
BPF_PROG(cge_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	const struct cred *cred = p->cred;
	__u32 zero = 0;
	struct scratch *s;
	struct execbpf_event *ev;
	struct creds c;
	union name16 comm;

	read_ids(&c, cred);
	comm.w[0] = *(const __u64 *)&p->comm[0]; /* (the task is current: its comm is set) */
	comm.w[1] = *(const __u64 *)&p->comm[8];
	pad_name(&comm);
	if (!wanted(&c, &comm, p, bprm))
		return 0;
	__sync_fetch_and_add(&passed, 1);
	if ((s = bpf_map_lookup_elem(&scratch, &zero)) == NULL)
		return 0;
	ev = &s->ev;
	/* (argv0[] is not cleared: argv0_len tells what of it holds; the
	 * path's bytes past exe_len are not sent) */
	__builtin_memset(ev, 0, __builtin_offsetof(struct execbpf_event, argv0));
	ev->pid = (__u32)p->pid;
	ev->tgid = (__u32)p->tgid;
	if (!c.read)
		read_groups(&c, cred);
	ev->uid = c.uid;
	ev->gid = c.gid;
	ev->euid = c.euid;
	ev->egid = c.egid;
	ev->ngroups = c.ngroups;
	__builtin_memcpy(ev->groups, c.groups, sizeof(ev->groups)); /* (zero past ngroups) */
	__builtin_memcpy(ev->comm, comm.c, EXECBPF_COMM_LEN);
	ev->ppid = (__u32)p->real_parent->tgid;
	ev->cgroup_id = bpf_get_current_cgroup_id();
	ev->policy = p->policy;
	if (nv1_hiers > 0)
		read_v1(ev, p);
	if (ananicy)
		read_argv0(ev, p);
	read_exe(ev, bprm);
	ev->ts_ns = bpf_ktime_get_ns();
	/* a change of its ids now passes too (cge_ids) */
	recent_slot(ev->tgid, true);
	/* the record up to the end of its path */
	__u32 len = __builtin_offsetof(struct execbpf_event, exe) +
		    (ev->exe_len & (EXECBPF_EXE_LEN - 1));
	if (ev->exe_len == EXECBPF_EXE_LEN)
		len = sizeof(*ev);
	output(ev, len, false);
	return 0;
}

/*
 * A change of a task's uids or gids, as the proc connector tells it: a
 * socket filter on the daemon's connector socket for UID and GID
 * events (kernel/procev.c's procev_filter_bpf).  The kernel runs it as
 * it sends the event -- in the task whose ids changed, their new values
 * in place: commit_creds() calls proc_id_connector() after the switch
 * whenever a real, effective, saved or file-system id changed (setuid,
 * setresgid, ..., the exec of a set-id file) -- and queues nothing on
 * the socket (it returns 0): an event that passes becomes a record in
 * the ring buffer (struct execbpf_ids), so the daemon never reads that
 * socket.  It passes when the daemon wants such changes and a rule may
 * decide the task after it: by its new ids, its comm or the name of
 * its executable (or, with `scripts`, an interpreter's), or it is
 * tracked, or its exec passed lately (the daemon may not have
 * classified that exec yet: it must learn of the change).  With
 * ananicy's names in force every change passes.  Where the kernel does
 * not filter by event type (before 6.6) it sees every event, and drops
 * the others at its first look.
 */
SEC("socket")
int
cge_ids(struct __sk_buff *skb)
{
	struct execbpf_ids r = { 0 };
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	const struct cred *cred;
	struct creds c;
	union name16 comm, name;
	struct file *exe;
	__u32 id[4]; /* pid, tgid, real id, effective id */

	if (bpf_skb_load_bytes(skb, EXECBPF_CN_WHAT, &r.what, sizeof(r.what)) < 0 ||
	    (r.what == EXECBPF_UID ? !want_uid : r.what == EXECBPF_GID ? !want_gid : 1))
		return 0;
	if (bpf_skb_load_bytes(skb, EXECBPF_CN_TS, &r.ts_ns, sizeof(r.ts_ns)) < 0 ||
	    bpf_skb_load_bytes(skb, EXECBPF_CN_ID, id, sizeof(id)) < 0)
		return 0;
	r.pid = id[0];
	r.tgid = id[1];
	r.rid = id[2];
	r.eid = id[3];
	if (wide || ananicy || (__u32)BPF_CORE_READ(task, pid) != r.pid || tracked(r.tgid) ||
	    recent_slot(r.tgid, false))
		goto pass; /* (not the task that changed: not filtered) */
	cred = BPF_CORE_READ(task, cred);
	c.uid = BPF_CORE_READ(cred, uid.val);
	c.gid = BPF_CORE_READ(cred, gid.val);
	c.euid = BPF_CORE_READ(cred, euid.val);
	c.egid = BPF_CORE_READ(cred, egid.val);
	c.read = 0;
	if (named_ids(&c, cred))
		goto pass;
	if (bpf_probe_read_kernel(comm.c, sizeof(comm.c), &task->comm) < 0)
		goto pass;
	pad_name(&comm);
	exe = BPF_CORE_READ(task, mm, exe_file);
	read_name(&name, exe != NULL ? BPF_CORE_READ(exe, f_path.dentry, d_name.name) : NULL);
	if (!named_program(&comm, &name) && !interpreter(&comm, &name))
		return 0;
pass:
	output(&r, sizeof(r), true);
	return 0;
}
