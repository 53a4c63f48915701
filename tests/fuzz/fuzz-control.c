/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-control.c -- the control protocol's request parsing on any
 * bytes: the stream is cut into lines as the server cuts it (at most
 * REQUEST_MAX bytes a line; a line with a NUL byte is refused), each
 * line is split into words by control_parse_line() -- the function the
 * control socket calls -- an optional leading "json" is dropped, and
 * every argument also goes through parse_duration().
 *
 * Invariants: control_parse_line() returns -1 exactly when there are
 * more than ARGV_MAX words, else the number of words of a second,
 * simpler splitter; the words are non-empty, blank-free, inside the
 * line, in order and the same as that splitter's; a duration is -1 or
 * 0..365 days and agrees with a second implementation of its grammar.
 */
#include "engined/core/core_private.h"
#include "engined/daemon/daemon.h"
#include "engined/core/core.h"
#include "fuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ARGV_MAX    64	 /* MAX_WORDS in control.c */
#define REQUEST_MAX 4096 /* as control.c */

static bool
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The words of line[0..len) as offsets and lengths; their count. */
static size_t
model_words(const char *line, size_t len, size_t *off, size_t *wlen, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < len;) {
		while (i < len && blank(line[i]))
			i++;
		if (i == len)
			break;
		size_t start = i;
		while (i < len && !blank(line[i]))
			i++;
		if (n < max) {
			off[n] = start;
			wlen[n] = i - start;
		}
		n++;
	}
	return n;
}

/* The duration grammar, written differently: digits, one unit, <= 1 year. */
static long
model_duration(const char *s)
{
	static const struct {
		char c;
		long mult;
	} units[] = {
		{ '\0', 1 }, { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }
	};
	size_t digits = strspn(s, "0123456789");
	long v = 0;

	if (digits == 0 || (s[digits] != '\0' && s[digits + 1] != '\0'))
		return -1;
	for (size_t i = 0; i < digits; i++) {
		v = v * 10 + (s[i] - '0');
		if (v > 365L * 86400)
			return -1;
	}
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
		if (units[u].c == s[digits])
			return v > 365L * 86400 / units[u].mult ? -1 : v * units[u].mult;
	return -1;
}

static void
one_line(char *line, size_t len)
{
	char *argv[ARGV_MAX];
	size_t off[ARGV_MAX], wlen[ARGV_MAX];

	if (memchr(line, '\0', len) != NULL)
		return; /* refused: "request contains a NUL byte" */
	size_t want = model_words(line, len, off, wlen, ARGV_MAX);
	line[len] = '\0';
	int argc = control_parse_line(line, argv, ARGV_MAX);
	if (want > ARGV_MAX) {
		FUZZ_CHECK(argc == -E2BIG);
		return;
	}
	FUZZ_CHECK(argc >= 0 && (size_t)argc == want);
	for (int i = 0; i < argc; i++) {
		FUZZ_CHECK(argv[i] == line + off[i] && strlen(argv[i]) == wlen[i]);
		FUZZ_CHECK(argv[i][0] != '\0' && strpbrk(argv[i], " \t\r") == NULL);
	}
	if (argc > 0 && strcmp(argv[0], "json") == 0) {
		argc--;
		memmove(argv, argv + 1, (size_t)argc * sizeof(*argv));
	}
	for (int i = 0; i < argc; i++) {
		long d = parse_duration(argv[i]);

		FUZZ_CHECK(d >= -1 && d <= 365L * 86400);
		FUZZ_CHECK(d == model_duration(argv[i]));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* one connection's input buffer: at most REQUEST_MAX bytes pending */
	char *buf = malloc(size + 1);
	size_t start = 0;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	for (size_t i = 0; i < size; i++) {
		if (buf[i] != '\n')
			continue;
		if (i - start < REQUEST_MAX)
			one_line(buf + start, i - start);
		start = i + 1;
	}
	free(buf);
	return 0;
}
