/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel_private.h -- helpers shared by the files of kernel/ only.
 */
#ifndef CGENGINE_KERNEL_PRIVATE_H
#define CGENGINE_KERNEL_PRIVATE_H

#include "kernel.h"

/* Read a whole small file into buf (NUL-terminated); bytes or -errno. */
ssize_t read_file(const char *path, char *buf, size_t len);
/* Write a string to an existing file in one write(2); 0 or -errno. */
int write_file(const char *path, const char *s);
/* read_file() of a /proc/PID/cmdline, in a worker thread (cmdline.c):
 * its bytes (at most CMDLINE_READ_MAX - 1), -errno, or -ETIMEDOUT when
 * the read did not return in time or every worker is stuck. */
ssize_t cmdline_read(const char *path, char *buf, size_t len);

#endif
