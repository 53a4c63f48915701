/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * render.c -- one request in, one answer's body out: the verb decides
 * (verbs_run(), in the core), then its value is written here as JSON
 * or through the verb's text renderer (text.c) -- one value, two
 * renderings, so the two can never disagree.
 */
#include "render_private.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

void
render_json(const json_t *value, struct strbuf *out)
{
	char *s = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);

	if (s == NULL) {
		out->failed = true;
		return;
	}
	strbuf_printf(out, "%s\n", s);
	free(s);
}

int
render_answer(const struct verbs_request *rq, int argc, char **argv, struct strbuf *body,
	      char *err, size_t errlen)
{
	json_t *value;
	int rc = verbs_run(rq, argc, argv, &value, err, errlen);

	if (rc < 0)
		return rc;
	if (rq->json)
		render_json(value, body);
	else if ((rc = render_text(argv[0], value, body)) < 0) /* verbs-t: never */
		snprintf(err, errlen, "no text for '%s' (try 'json %s')", argv[0], argv[0]);
	json_decref(value);
	return rc;
}
