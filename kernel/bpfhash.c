/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfhash.c -- the eBPF filter's hash of a whole name (ananicy-cpp's
 * rule names), the one kernel/bpf/exec.bpf.c computes in the kernel:
 * 64-bit FNV-1a, up to n bytes or the first NUL.  Apart from bpfexec.c
 * so that the core (execkeys.c) and its tests use it without libbpf.
 */
#include "kernel_private.h"

#include <linux/types.h>

#include "kernel/bpf/exec_event.h"

uint64_t
execkeys_hash(const char *s, size_t n)
{
	uint64_t h = EXECBPF_FNV_OFFSET;

	for (size_t i = 0; i < n && s[i] != '\0'; i++) {
		h ^= (unsigned char)s[i];
		h *= EXECBPF_FNV_PRIME;
	}
	return h;
}
