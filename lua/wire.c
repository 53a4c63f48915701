/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wire.c -- the messages between the caller and the Lua helper, and
 * the caller's validation of the helper's answers.  Pure: no I/O.
 *
 * Both ends are the same binary on the same machine, so numbers are in
 * native byte order; they are copied with memcpy (no alignment is
 * assumed).  Strings are a u32 length, the bytes and a NUL.
 */
#include "hooks_private.h"
#include "rules/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROUPS_MAX 65536 /* NGROUPS_MAX on Linux */
#define SLOTS_MAX  4096

/* ---- writing ---------------------------------------------------------------- */

static void
put(struct wbuf *w, const void *p, size_t len)
{
	if (w->full || len > w->cap - w->len) {
		w->full = true;
		return;
	}
	if (len > 0)
		memcpy(w->p + w->len, p, len);
	w->len += len;
}

void
wput_u8(struct wbuf *w, unsigned v)
{
	unsigned char c = (unsigned char)v;

	put(w, &c, 1);
}

void
wput_u32(struct wbuf *w, uint32_t v)
{
	put(w, &v, sizeof(v));
}

void
wput_i64(struct wbuf *w, int64_t v)
{
	put(w, &v, sizeof(v));
}

void
wput_bytes(struct wbuf *w, const void *p, size_t len)
{
	if (len > UINT32_MAX) {
		w->full = true;
		return;
	}
	wput_u32(w, (uint32_t)len);
	put(w, p, len);
}

void
wput_str(struct wbuf *w, const char *s)
{
	wput_u8(w, s != NULL);
	if (s != NULL) {
		wput_bytes(w, s, strlen(s));
		wput_u8(w, 0);
	}
}

/* ---- reading ------------------------------------------------------------ */

static const void *
get(struct rbuf *r, size_t len)
{
	if (r->bad || len > r->len - r->off) {
		r->bad = true;
		return NULL;
	}
	const void *p = r->p + r->off;
	r->off += len;
	return p;
}

unsigned
rget_u8(struct rbuf *r)
{
	const unsigned char *p = get(r, 1);

	return p != NULL ? *p : 0;
}

uint32_t
rget_u32(struct rbuf *r)
{
	const void *p = get(r, sizeof(uint32_t));
	uint32_t v = 0;

	if (p != NULL)
		memcpy(&v, p, sizeof(v));
	return v;
}

int64_t
rget_i64(struct rbuf *r)
{
	const void *p = get(r, sizeof(int64_t));
	int64_t v = 0;

	if (p != NULL)
		memcpy(&v, p, sizeof(v));
	return v;
}

const void *
rget_bytes(struct rbuf *r, size_t *len)
{
	*len = rget_u32(r);
	const void *p = get(r, *len);
	if (p == NULL)
		*len = 0;
	return p;
}

const char *
rget_str(struct rbuf *r)
{
	size_t len;

	if (rget_u8(r) == 0)
		return NULL;
	const char *s = rget_bytes(r, &len);
	/* rget_u8 also gives 0 past the end: a missing NUL is not a NUL
	 * (found by tests/fuzz/fuzz-lua) */
	if (rget_u8(r) != 0 || r->bad || s == NULL || memchr(s, '\0', len) != NULL) {
		r->bad = true;
		return NULL;
	}
	return s; /* the NUL checked above follows it */
}

/* ---- calls -------------------------------------------------------------------- */

void
wire_put_call(struct wbuf *w, const struct hooks_task *t, const struct hooks_slot *slots,
	      size_t n)
{
	wput_u8(w, W_CALL);
	wput_i64(w, t->pid);
	wput_i64(w, t->ppid);
	wput_i64(w, t->uid);
	wput_i64(w, t->euid);
	wput_i64(w, t->gid);
	wput_i64(w, t->egid);
	wput_u32(w, (uint32_t)t->ngroups);
	for (size_t i = 0; i < t->ngroups; i++)
		wput_i64(w, t->groups[i]);
	wput_str(w, t->comm ? t->comm : "");
	wput_str(w, t->exe ? t->exe : "");
	wput_str(w, t->user);
	wput_str(w, t->group);
	wput_u32(w, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		wput_str(w, slots[i].hier);
		wput_str(w, slots[i].set ? slots[i].dest : NULL);
		wput_str(w, slots[i].why);
	}
}

static int
get_groups(struct rbuf *r, struct hooks_task *t, gid_t **groups)
{
	uint32_t ng = rget_u32(r);

	if (r->bad || ng > GROUPS_MAX)
		return -EPROTO;
	gid_t *g = realloc(*groups, (ng + 1) * sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	*groups = g;
	for (uint32_t i = 0; i < ng; i++)
		g[i] = (gid_t)rget_i64(r);
	t->groups = g;
	t->ngroups = ng;
	return r->bad ? -EPROTO : 0;
}

int
wire_get_call(struct rbuf *r, struct hooks_task *t, gid_t **groups,
	      struct hooks_slot **slots, size_t *nslots, size_t *n)
{
	int rc;

	memset(t, 0, sizeof(*t));
	if (rget_u8(r) != W_CALL)
		return -EPROTO;
	t->pid = (pid_t)rget_i64(r);
	t->ppid = (pid_t)rget_i64(r);
	t->uid = (uid_t)rget_i64(r);
	t->euid = (uid_t)rget_i64(r);
	t->gid = (gid_t)rget_i64(r);
	t->egid = (gid_t)rget_i64(r);
	if ((rc = get_groups(r, t, groups)) < 0)
		return rc;
	t->comm = rget_str(r);
	t->exe = rget_str(r);
	t->user = rget_str(r);
	t->group = rget_str(r);
	uint32_t ns = rget_u32(r);
	if (r->bad || t->comm == NULL || t->exe == NULL || ns > SLOTS_MAX)
		return -EPROTO;
	if (ns > *nslots) {
		struct hooks_slot *s = realloc(*slots, ns * sizeof(*s));
		if (s == NULL)
			return -ENOMEM;
		*slots = s;
		*nslots = ns;
	}
	for (uint32_t i = 0; i < ns; i++) {
		struct hooks_slot *s = &(*slots)[i];
		const char *dest;

		memset(s, 0, sizeof(*s));
		s->hier = rget_str(r);
		dest = rget_str(r);
		s->why = rget_str(r);
		if (s->hier == NULL || (dest != NULL && strlen(dest) >= HOOKS_DEST_MAX))
			return -EPROTO;
		s->set = dest != NULL;
		if (dest != NULL)
			memcpy(s->dest, dest, strlen(dest) + 1);
	}
	*n = ns;
	return r->bad || r->off != r->len ? -EPROTO : 0;
}

/* ---- answers ------------------------------------------------------------------- */

void
wire_put_answer(struct wbuf *w, const struct hooks_slot *slots, size_t n)
{
	wput_u8(w, W_ANSWER);
	wput_u32(w, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		wput_str(w, slots[i].set ? slots[i].dest : NULL);
}

const char *
hooks_dest_problem(const char *s, size_t len)
{
	if (strnlen(s, len) != len)
		return "contains a NUL byte";
	if (len >= HOOKS_DEST_MAX)
		return "is too long";
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return "contains a control character";
	return rules_dest_problem(s);
}

void
wire_clean(char *buf, size_t size, const char *text, size_t len)
{
	size_t i;

	if (size == 0)
		return;
	for (i = 0; i < len && i + 1 < size && text[i] != '\0'; i++) {
		unsigned char c = (unsigned char)text[i];
		buf[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	buf[i] = '\0';
}

static int
parse_slots(struct rbuf *r, const struct hooks_slot *in, struct hooks_slot *out, size_t n,
	    char *err, size_t errlen)
{
	uint32_t got = rget_u32(r);

	if (r->bad || got != n) {
		snprintf(err, errlen, "answer for %lu hierarchies, not %lu",
			 (unsigned long)got, (unsigned long)n);
		return -EPROTO;
	}
	for (size_t i = 0; i < n; i++) {
		const char *d = rget_str(r), *why;

		out[i] = in[i];
		out[i].set = d != NULL;
		out[i].dest[0] = '\0';
		if (r->bad)
			break;
		if (d != NULL) {
			size_t len = strlen(d);
			if ((why = hooks_dest_problem(d, len)) != NULL) {
				snprintf(err, errlen, "destination for %s %s", in[i].hier,
					 why);
				return -EPROTO;
			}
			memcpy(out[i].dest, d, len + 1);
		}
		out[i].changed = out[i].set != in[i].set ||
				 (out[i].set && strcmp(out[i].dest, in[i].dest) != 0);
	}
	if (r->bad || r->off != r->len) {
		snprintf(err, errlen, "malformed answer");
		return -EPROTO;
	}
	return 0;
}

int
hooks_answer_parse(const void *buf, size_t len, const struct hooks_slot *in,
		   struct hooks_slot *out, size_t n, char *err, size_t errlen)
{
	struct rbuf r = { .p = buf, .len = len };
	size_t mlen;
	const char *m;

	if (errlen > 0)
		err[0] = '\0';
	if (len > HOOKS_MSG_MAX) {
		snprintf(err, errlen, "answer too large");
		return -EPROTO;
	}
	switch (rget_u8(&r)) {
	case W_ANSWER:
		return parse_slots(&r, in, out, n, err, errlen);
	case W_FAILED:
		m = rget_bytes(&r, &mlen);
		if (r.bad || r.off != r.len) {
			snprintf(err, errlen, "malformed failure report");
			return -EPROTO;
		}
		wire_clean(err, errlen, m, mlen);
		return -ECANCELED;
	default:
		snprintf(err, errlen, "unexpected message");
		return -EPROTO;
	}
}
