/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dlib.c -- a shared library opened at its first use, and its
 * functions found once each: the one mechanism under the loaders that
 * keep libraries the daemon rarely needs out of its memory until then
 * (engined/daemon/sdload.c, lua/luaload.c, kernel/nftload.c).
 */
#include "util/util.h"

#include <dlfcn.h>

int
dlib_open(struct dlib *l)
{
	if (!l->tried) {
		l->tried = true;
		l->handle = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	}
	return l->handle != NULL ? 0 : -1;
}

int
dlib_sym(struct dlib *l, void *fn, const char *name)
{
	void **slot = fn;

	if (*slot != NULL)
		return 0;
	if (dlib_open(l) < 0 || (*slot = dlsym(l->handle, name)) == NULL)
		return -1;
	return 0;
}
