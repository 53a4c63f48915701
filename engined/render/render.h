/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * render.h -- the control verbs' answers, written out.  The core's
 * verbs (verbs_run(), core.h) decide and return one JSON value; this
 * module writes that value as one line of JSON, as text for people
 * (one renderer per verb) or, for "metrics", in Prometheus' text
 * format.  It sits on the core (engined/render/librender.a, linked
 * before libcore.a) and knows no loop and no socket: the control
 * socket (engined/daemon/control.c), the unit tests and the fuzzers
 * call render_answer() alike.
 */
#ifndef CGENGINE_RENDER_H
#define CGENGINE_RENDER_H

#include "engined/core/core.h"

struct json_t; /* jansson's json_t */

/*
 * The answer's body to one request: the verb argv[0] run by
 * verbs_run(), its value appended to body as JSON (rq->json) or as the
 * verb's text.  0; or -errno with err set, as verbs_run() returns it
 * (nothing is appended then).  A body that ran out of memory has
 * body->failed set; the caller frees body.
 */
int render_answer(const struct verbs_request *rq, int argc, char **argv, struct strbuf *body,
		  char *err, size_t errlen);

/* Append value as one line of JSON; body->failed if it cannot. */
void render_json(const struct json_t *value, struct strbuf *out);

/* Append the text of verb's value; 0, or -ENOENT for a verb without a
 * text renderer (nothing appended). */
int render_text(const char *verb, const struct json_t *value, struct strbuf *out);

#endif
