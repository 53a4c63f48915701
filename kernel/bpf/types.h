/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * types.h -- the kernel types exec.bpf.c reads, declared by hand for
 * CO-RE: only the fields it reads, marked preserve_access_index, so
 * libbpf relocates each access against the running kernel's BTF at
 * load time.  No vmlinux.h or kernel headers are needed to build it, so
 * the object builds the same on a machine without BTF (a package
 * builder's chroot); the kernel it loads into must have BTF.
 */
#ifndef CGENGINE_BPF_TYPES_H
#define CGENGINE_BPF_TYPES_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef int pid_t;
typedef _Bool bool;
#define true 1
#define false 0

/* the ABI's constants (include/uapi/linux/bpf.h) */
enum {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_RINGBUF = 27,
};
enum {
	BPF_ANY = 0,
};
enum {
	BPF_F_NO_PREALLOC = 1,
};
enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

typedef struct {
	__u32 val;
} kuid_t;

typedef struct {
	__u32 val;
} kgid_t;

struct group_info {
	int ngroups;
	kgid_t gid[];
};

struct cred {
	kuid_t uid;
	kgid_t gid;
	kuid_t euid;
	kgid_t egid;
	struct group_info *group_info;
};

/* (the kernel's arg_start sits in an anonymous struct: CO-RE finds it) */
struct file;

struct mm_struct {
	unsigned long arg_start, arg_end;
	struct file *exe_file;
};

struct task_struct {
	pid_t pid;
	pid_t tgid;
	unsigned int policy;
	struct task_struct *real_parent;
	const struct cred *cred;
	struct mm_struct *mm;
	struct css_set *cgroups;
	char comm[16];
};

/* the task's groups, one link per hierarchy (kernel/cgroup/) */
struct list_head {
	struct list_head *next, *prev;
};

struct kernfs_node {
	__u64 id;
};

struct cgroup_root {
	int hierarchy_id;
};

struct cgroup {
	struct kernfs_node *kn;
	struct cgroup_root *root;
};

struct cgrp_cset_link {
	struct cgroup *cgrp;
	struct list_head cgrp_link; /* on its css_set's cgrp_links */
};

struct css_set {
	struct list_head cgrp_links;
};

struct qstr {
	const unsigned char *name;
};

struct dentry;

struct dentry_operations {
	char *(*d_dname)(struct dentry *, char *, int);
};

/* a short name is stored in its dentry: d_shortname (Linux >= 6.14),
 * d_iname before */
union shortname_store {
	unsigned char string[40];
};

struct dentry {
	struct dentry *d_parent;
	struct qstr d_name;
	union shortname_store d_shortname;
	unsigned char d_iname[32];
	const struct dentry_operations *d_op;
};

struct vfsmount {
	struct dentry *mnt_root;
};

/* fs/mount.h: a mount, with its vfsmount inside */
struct mount {
	struct mount *mnt_parent;
	struct dentry *mnt_mountpoint;
	struct vfsmount mnt;
};

struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
};

struct file {
	struct path f_path;
};

struct linux_binprm {
	struct file *file;
	const char *filename;
	const char *interp;
};

#pragma clang attribute pop

#endif
