/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * render_private.h -- what the files of engined/render/ share: reading
 * a verb's value (a missing key reads as "" or 0) and the Prometheus
 * renderer that text.c's table names for "metrics".
 */
#ifndef CGENGINE_RENDER_PRIVATE_H
#define CGENGINE_RENDER_PRIVATE_H

#include "render.h"

#include <jansson.h>

static inline const char *
get_s(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

static inline long long
get_i(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* A counter of the status value (its "counters" object). */
static inline unsigned long long
counter(const json_t *r, const char *key)
{
	return (unsigned long long)get_i(json_object_get(r, "counters"), key);
}

/* The status value in Prometheus' text format (metrics.c). */
void render_metrics(const json_t *status, struct strbuf *out);
/* The fleet's part of "metrics" (fleet.c); nothing for a plain status. */
void render_fleet(const json_t *status, struct strbuf *out);

#endif
