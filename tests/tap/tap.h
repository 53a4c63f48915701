/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tap.h -- a small Test Anything Protocol helper for cgengine's tests.
 *
 * Each test program calls plan() (or plan_lazy()), then one ok()-style
 * call per check.  Output goes to stdout; diagnostics go to stderr as
 * "# ..." lines so prove and automake's tap-driver both read them.
 */
#ifndef CGENGINE_TAP_H
#define CGENGINE_TAP_H

#include <stdbool.h>
#include <stddef.h>

void plan(int n);
void plan_lazy(void);
void skip_all(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
bool ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool is_int(long long want, long long got, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool is_string(const char *want, const char *got, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void skip(int n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Return the directory holding test fixtures ($SRCDIR/tests/data). */
const char *tap_data_dir(void);
/* Return the build directory ($BUILDDIR, default "."). */
const char *tap_build_dir(void);
/* Exit status to return from main(): 0 if every test passed. */
int tap_done(void);

#endif
