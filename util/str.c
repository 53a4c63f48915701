/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * str.c -- string helpers too long to be inline in util.h.
 */
#include "util.h"

#include <errno.h>
#include <stdlib.h>
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

bool
strv_has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

int
strv_add(char ***v, size_t *n, const char *s)
{
	char **p = realloc(*v, (*n + 1) * sizeof(*p));

	if (p == NULL)
		return -ENOMEM;
	*v = p;
	if ((p[*n] = strdup(s)) == NULL)
		return -ENOMEM;
	(*n)++;
	return 0;
}
