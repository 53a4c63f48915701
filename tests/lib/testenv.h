/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * testenv.h -- what the root-only tests need to stay safe on a shared
 * machine: private named v1 hierarchies under a fresh temporary
 * directory, and children the test starts and stops by pid.  Everything
 * is torn down by the matching call.
 */
#ifndef CGENGINE_TESTS_TESTENV_H
#define CGENGINE_TESTS_TESTENV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct testhier {
	char name[64]; /* "cgetest_<pid>_<tag>" (without "name=") */
	char dir[256]; /* mount point */
	bool mounted;
};

/* Root, and able to mount a named cgroup v1 hierarchy? Else a reason. */
const char *testenv_unavailable(void);

/* Mount a private hierarchy; 0 or -errno. */
int testenv_mount(struct testhier *h, const char *tag);
/* Remove every group below the root (deepest first, moving any process
 * left in one back to the root), unmount, rmdir, and wait until the kernel
 * has let the hierarchy go; 0, or -EBUSY if it is still in
 * /proc/self/cgroup after a minute. */
int testenv_umount(struct testhier *h);

/* Start a child that sleeps until killed; its pid, or -1. */
pid_t testenv_sleeper(void);
/* SIGKILL and reap a child this test started. */
void testenv_stop(pid_t pid);

/* A fake tree's files (procroots, file systems of unit tests): root/rel
 * holding the len bytes of text, its directories made; root/rel a
 * symbolic link to root/target.  Both bail out on failure. */
void testenv_put_file(const char *root, const char *rel, const char *text, size_t len);
void testenv_link(const char *root, const char *rel, const char *target);
/* A task of a fake procroot: root/PID/status holding status, and links
 * exe, cwd and root to root/EXE, root/CWD and root/FS (all relative to
 * root), and an empty fd directory; its cmdline is the caller's. */
void testenv_fake_task(const char *root, int pid, const char *status, const char *exe,
		       const char *cwd, const char *fs);

/* The group of pid in hierarchy key ("name=..."), into buf; NULL if none. */
const char *testenv_cgroup_of(pid_t pid, const char *key, char *buf, size_t len);

#endif
