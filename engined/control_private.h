/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control_private.h -- between the control socket (control.c) and the
 * requests it serves (verbs.c).
 */
#ifndef CGENGINE_CONTROL_PRIVATE_H
#define CGENGINE_CONTROL_PRIVATE_H

#include "core.h"
#include "engined_private.h"

#include <stdarg.h>

#define CONTROL_PROTOCOL 1

/* A growing output buffer; `failed` once memory ran out. */
struct buf {
	char *p;
	size_t len, cap;
	bool failed;
};

void buf_add(struct buf *b, const char *s, size_t n);
void
buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_reset(struct buf *b);

/*
 * Split a request line into words, in place: blanks (space, tab, CR)
 * separate them and are overwritten with NULs; argv[i] point into line.
 * The number of words (0 for a blank line), or -1 if there are more
 * than max.  Pure: no state, no I/O (a fuzzer calls it directly).
 */
int control_parse_line(char *line, char **argv, int max);

struct request {
	struct core *core;
	double now; /* the loop's clock */
	uid_t uid; /* of the peer, from SO_PEERCRED */
	pid_t pid;
	bool json;
};

/* Serve one request: 0 with the answer in body, or -1 with err set. */
int control_dispatch(const struct request *rq, int argc, char **argv, struct buf *body,
		     char *err, size_t errlen);

#endif
