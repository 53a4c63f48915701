/*
 * fuzz-control.c -- the control protocol's request parsing on any
 * bytes: the stream is cut into lines as control.c's read_cb does (a
 * line with a NUL byte is refused), each line is split into words, an
 * optional leading "json" is dropped, and the arguments the verbs
 * parse as durations go through parse_duration().
 *
 * The words are split by control.c's own control_parse_line().
 *
 * Invariants: words are non-empty, blank-free, inside the line and in
 * order; at most ARGV_MAX of them; a duration is -1 or 0..365 days
 * and agrees with a plain re-implementation of its grammar.
 */
#include "engined/control_private.h"
#include "fuzz.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define ARGV_MAX    64	 /* as handle_line() in control.c */
#define REQUEST_MAX 4096 /* as control.c */

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
check_words(const char *line, size_t len, char **argv, int argc)
{
	const char *prev = line;

	FUZZ_CHECK(argc >= -1 && argc <= ARGV_MAX);
	for (int i = 0; i < argc; i++) {
		FUZZ_CHECK(argv[i] >= prev && argv[i] < line + len);
		FUZZ_CHECK(argv[i][0] != '\0' && strpbrk(argv[i], " \t\r") == NULL);
		prev = argv[i] + strlen(argv[i]);
	}
}

static void
one_line(char *line, size_t len)
{
	char *argv[ARGV_MAX];

	if (memchr(line, '\0', len) != NULL)
		return; /* refused: "request contains a NUL byte" */
	line[len] = '\0';
	int argc = control_parse_line(line, argv, ARGV_MAX);
	check_words(line, len, argv, argc);
	if (argc < 0)
		return; /* refused: too many words */
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
