/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * str.c -- string helpers too long to be inline in util.h.
 */
#include "util.h"

#include <string.h>

bool
str_list_has(const char *list, const char *tok, size_t n)
{
	for (;;) {
		size_t m = strcspn(list, ",");

		if (m == n && strncmp(list, tok, n) == 0)
			return true;
		if (list[m] == '\0')
			return false;
		list += m + 1;
	}
}
