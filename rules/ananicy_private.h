/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy_private.h -- shared between rules/ananicy*.c only.
 */
#ifndef CGENGINE_ANANICY_PRIVATE_H
#define CGENGINE_ANANICY_PRIVATE_H

#include "ananicy.h"

#include <stdbool.h>
#include <stddef.h>

enum json_kind {
	JSON_STRING,
	JSON_NUMBER,
	JSON_BOOL,
	JSON_NULL,
	JSON_NESTED, /* an array or object, skipped */
};

struct json_value {
	enum json_kind kind;
	const char *str; /* JSON_STRING: decoded, valid until the next member */
	int num;	 /* JSON_NUMBER when integral */
	bool integral;	 /* JSON_NUMBER: an integer that fits an int */
};

/* The text being read; err holds the first problem ("" when none). */
struct json {
	const char *start, *p, *end;
	char err[96];
};

typedef void json_member_fn(void *arg, const char *key, const struct json_value *v);

/*
 * Read the object at j->p (after blanks), calling fn for each member in
 * order; stops after its closing '}'.  key and scratch each have room
 * for j->end - j->p + 1 bytes (decoded text is never longer).  0, or
 * -EINVAL with j->err set.
 */
int ananicy_json_object(struct json *j, json_member_fn *fn, void *arg, char *key, char *scratch);

/*
 * Hand msg to fn after turning every control byte into '?': a message
 * is one log line, and names in it (a JSON string may hold "\n", a
 * directory name any byte but '/') must not start another.
 */
void ananicy_report_line(ananicy_report_fn *fn, void *arg, enum rules_severity sev, char *msg);

#endif
