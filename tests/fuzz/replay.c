/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.c -- main() for the fuzz targets in builds without libFuzzer:
 * runs LLVMFuzzerTestOneInput once on each file named on the command
 * line (directories: on each regular file inside), as libFuzzer does
 * when given files.  Exit status 0 unless a file cannot be read; a
 * target that finds a broken invariant aborts.
 */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

__attribute__((weak)) int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return 0;
}

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *p = realloc(buf, cap);
			if (p == NULL) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	/* a copy of exactly len bytes, so ASan sees reads past the end */
	uint8_t *exact = malloc(len ? len : 1);
	if (exact == NULL) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	(void)LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int
run_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), rc = 0;

	if (n < 0) {
		perror(dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && run_file(path) < 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	int rc = 0;

	(void)LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (argv[i][0] == '-')
			continue; /* libFuzzer flags mean nothing here */
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc |= run_dir(argv[i]);
		else
			rc |= run_file(argv[i]);
	}
	return rc ? 1 : 0;
}
