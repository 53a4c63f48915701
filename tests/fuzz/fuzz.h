/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h -- shared by the fuzz targets in tests/fuzz.
 *
 * Each target defines LLVMFuzzerTestOneInput().  Built with
 * --enable-fuzzers (clang) it links libFuzzer; otherwise replay.c gives
 * it a main() that runs the files named on the command line once each,
 * so `make check` replays the checked-in corpora on every build.
 */
#ifndef CGENGINE_TESTS_FUZZ_H
#define CGENGINE_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A broken invariant: print and abort, so the fuzzer records a crash. */
#define FUZZ_CHECK(cond) ((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))

void fuzz_fail(const char *file, int line, const char *what) __attribute__((noreturn));

/*
 * Put data in an in-memory file (reused between calls) and return a
 * path that opens it ("/proc/self/fd/N").  Aborts if memfd_create fails.
 */
const char *fuzz_memfile(const void *data, size_t size);

#endif
