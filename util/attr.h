/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * attr.h -- the compiler attributes the project uses, named once.
 * Every module's header includes this one instead of spelling
 * __attribute__ itself.
 */
#ifndef CGENGINE_ATTR_H
#define CGENGINE_ATTR_H

/* The caller must look at the result (0 or -errno, or an owned pointer). */
#define ATTR_WUR __attribute__((warn_unused_result))
/* printf-like: argument fmt is the format, the arguments start at first
 * (0 for a va_list). */
#define ATTR_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
/* The function never returns. */
#define ATTR_NORETURN __attribute__((noreturn))
/* Aligned to n bytes (buffers the kernel fills with aligned structs). */
#define ATTR_ALIGNED(n) __attribute__((aligned(n)))

#endif
