/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * testenv.h -- what the root-only tests need to stay safe on a shared
 * machine (SPEC section 9): private named v1 hierarchies under a fresh
 * temporary directory, children the test starts and stops by pid, and
 * throwaway users.  Everything is torn down by the matching call.
 */
#ifndef CGENGINE_TESTS_TESTENV_H
#define CGENGINE_TESTS_TESTENV_H

#include <stdbool.h>
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
/* Remove every group below the root (deepest first), unmount, rmdir. */
void testenv_umount(struct testhier *h);

/* Start a child that sleeps until killed; its pid, or -1. */
pid_t testenv_sleeper(void);
/* SIGKILL and reap a child this test started. */
void testenv_stop(pid_t pid);

/* The group of pid in hierarchy key ("name=..."), into buf; NULL if none. */
const char *testenv_cgroup_of(pid_t pid, const char *key, char *buf, size_t len);

/* Create a system user named name (with group of the same name, and
 * the extra groups in the comma list extra, may be NULL); 0 or -1. */
int testenv_user_add(const char *name, const char *extra);
void testenv_user_del(const char *name);
/* Create / delete a group; 0 or -1. */
int testenv_group_add(const char *name);
void testenv_group_del(const char *name);

#endif
