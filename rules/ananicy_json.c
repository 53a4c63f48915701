/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy_json.c -- a small strict JSON reader for the one-line objects
 * of ananicy-cpp's files: it walks one object and hands each member to
 * a callback, decoding strings and reading integers; nested arrays and
 * objects (fields this reader does not know) are checked and skipped.
 *
 * Why not jansson, which the daemon links anyway: reading a line's
 * object into a json_t allocates a hash table and a copy of every
 * member; loading a 16,000-rule corpus took 3 to 5 times as long with
 * jansson (bench/ananicybench, side by side: 31-42 ms against 6-14 ms
 * at best), against the target of 50 ms.  This reader allocates nothing
 * per line.
 */
#include "ananicy_private.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define JSON_DEPTH_MAX 32

static void
json_fail(struct json *j, const char *what)
{
	if (j->err[0] == '\0')
		snprintf(j->err, sizeof(j->err), "%s at column %zu", what,
			 (size_t)(j->p - j->start) + 1);
	j->p = j->end;
}

static void
json_ws(struct json *j)
{
	while (j->p < j->end &&
	       (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

/* Length of the UTF-8 sequence at s (at most n bytes), or 0 if ill-formed. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;
		hi = s[0] == 0xed ? 0x9f : 0xbf;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static size_t
utf8_put(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static int
hex4(struct json *j, unsigned *cp)
{
	*cp = 0;
	if (j->end - j->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = *j->p++;
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
						    : 16u;
		if (d == 16)
			return -1;
		*cp = *cp << 4 | d;
	}
	return 0;
}

/* \uXXXX (and its low surrogate) after the 'u': the code point, or -1. */
static long
json_uescape(struct json *j)
{
	unsigned hi, lo;

	if (hex4(j, &hi) < 0)
		return -1;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return -1;
	if (hi < 0xd800 || hi > 0xdbff)
		return hi;
	if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
		return -1;
	j->p += 2;
	if (hex4(j, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
		return -1;
	return 0x10000 + ((long)(hi - 0xd800) << 10) + (lo - 0xdc00);
}

static int
json_escape(struct json *j, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;

	if (j->p >= j->end)
		return -1;
	if (*j->p == 'u') {
		j->p++;
		long cp = json_uescape(j);
		if (cp <= 0) /* ill-formed, or a NUL no C string holds */
			return -1;
		*n += utf8_put(out + *n, (unsigned)cp);
		return 0;
	}
	if ((e = strchr(from, *j->p)) == NULL || *j->p == '\0')
		return -1;
	out[(*n)++] = to[e - from];
	j->p++;
	return 0;
}

/*
 * A string at j->p (its opening quote), decoded into out, which has room
 * for the rest of the input; 0 or -1 after json_fail.
 */
static int
json_string(struct json *j, char *out)
{
	size_t n = 0;

	j->p++;
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;
		size_t len;

		if (c < 0x20) {
			json_fail(j, "control character in string");
			return -1;
		}
		if (c == '\\') {
			j->p++;
			if (json_escape(j, out, &n) < 0) {
				json_fail(j, "invalid escape in string");
				return -1;
			}
			continue;
		}
		if ((len = utf8_len((const unsigned char *)j->p, (size_t)(j->end - j->p))) == 0) {
			json_fail(j, "invalid UTF-8 in string");
			return -1;
		}
		memcpy(out + n, j->p, len);
		n += len;
		j->p += len;
	}
	if (j->p >= j->end) {
		json_fail(j, "unterminated string");
		return -1;
	}
	j->p++;
	out[n] = '\0';
	return 0;
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A number: an integer into v->num when it is one that fits an int. */
static int
json_number(struct json *j, struct json_value *v)
{
	const char *s = j->p;
	bool integral = true;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || !is_digit(*j->p))
		goto bad;
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && is_digit(*j->p))
			j->p++;
	if (j->p < j->end && *j->p == '.') {
		integral = false;
		if (++j->p >= j->end || !is_digit(*j->p))
			goto bad;
		while (j->p < j->end && is_digit(*j->p))
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		integral = false;
		if (++j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || !is_digit(*j->p))
			goto bad;
		while (j->p < j->end && is_digit(*j->p))
			j->p++;
	}
	v->kind = JSON_NUMBER;
	v->integral = false;
	if (integral && j->p - s < 12) {
		char num[16];
		memcpy(num, s, (size_t)(j->p - s));
		num[j->p - s] = '\0';
		long l = strtol(num, NULL, 10);
		if (l >= INT_MIN && l <= INT_MAX) {
			v->num = (int)l;
			v->integral = true;
		}
	}
	return 0;
bad:
	j->p = s;
	json_fail(j, "invalid number");
	return -1;
}

static int json_skip(struct json *j, char *scratch, unsigned depth);

static int
json_word(struct json *j, struct json_value *v)
{
	static const struct {
		const char *w;
		enum json_kind kind;
	} words[] = {{"true", JSON_BOOL}, {"false", JSON_BOOL}, {"null", JSON_NULL}};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i].w);
		if ((size_t)(j->end - j->p) >= n && memcmp(j->p, words[i].w, n) == 0) {
			j->p += n;
			v->kind = words[i].kind;
			return 0;
		}
	}
	json_fail(j, "invalid value");
	return -1;
}

/* One value at j->p into v; strings decode into scratch. */
static int
json_value(struct json *j, struct json_value *v, char *scratch, unsigned depth)
{
	json_ws(j);
	v->str = NULL;
	if (j->p >= j->end) {
		json_fail(j, "missing value");
		return -1;
	}
	if (*j->p == '"') {
		v->kind = JSON_STRING;
		v->str = scratch;
		return json_string(j, scratch);
	}
	if (*j->p == '-' || is_digit(*j->p))
		return json_number(j, v);
	if (*j->p == '[' || *j->p == '{') {
		v->kind = JSON_NESTED;
		return json_skip(j, scratch, depth + 1);
	}
	return json_word(j, v);
}

/* An array or object at j->p, checked and skipped. */
static int
json_skip(struct json *j, char *scratch, unsigned depth)
{
	char close = *j->p == '[' ? ']' : '}';
	bool object = close == '}';
	struct json_value v;

	if (depth > JSON_DEPTH_MAX) {
		json_fail(j, "nested too deep");
		return -1;
	}
	j->p++;
	json_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		json_ws(j);
		if (object) {
			if (j->p >= j->end || *j->p != '"') {
				json_fail(j, "expected a string key");
				return -1;
			}
			if (json_string(j, scratch) < 0)
				return -1;
			json_ws(j);
			if (j->p >= j->end || *j->p++ != ':') {
				json_fail(j, "expected ':'");
				return -1;
			}
		}
		if (json_value(j, &v, scratch, depth) < 0)
			return -1;
		json_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return 0;
		}
		json_fail(j, object ? "expected ',' or '}'" : "expected ',' or ']'");
		return -1;
	}
}

static int
json_member(struct json *j, json_member_fn *fn, void *arg, char *key, char *scratch)
{
	struct json_value v;

	json_ws(j);
	if (j->p >= j->end || *j->p != '"') {
		json_fail(j, "expected a string key");
		return -1;
	}
	if (json_string(j, key) < 0)
		return -1;
	json_ws(j);
	if (j->p >= j->end || *j->p++ != ':') {
		json_fail(j, "expected ':'");
		return -1;
	}
	if (json_value(j, &v, scratch, 1) < 0)
		return -1;
	fn(arg, key, &v);
	return 0;
}

int
ananicy_json_object(struct json *j, json_member_fn *fn, void *arg, char *key, char *scratch)
{
	json_ws(j);
	if (j->p >= j->end || *j->p != '{') {
		json_fail(j, "expected '{'");
		return -EINVAL;
	}
	j->p++;
	json_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		if (json_member(j, fn, arg, key, scratch) < 0)
			return -EINVAL;
		json_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			return 0;
		}
		json_fail(j, "expected ',' or '}'");
		return -EINVAL;
	}
}
