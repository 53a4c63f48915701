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

#endif
