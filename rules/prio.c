/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prio.c -- per-process priorities: parse, check, merge, plan, format.
 */
#include "rules/prio.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct word {
	const char *name;
	int value;
};

static const struct word ioclass_words[] = {
	{ "none", PRIO_IO_NONE },
	{ "realtime", PRIO_IO_REALTIME },
	{ "best-effort", PRIO_IO_BEST_EFFORT },
	{ "idle", PRIO_IO_IDLE },
	{ NULL, 0 },
};

static const struct word sched_words[] = {
	{ "normal", PRIO_SCHED_NORMAL },
	{ "batch", PRIO_SCHED_BATCH },
	{ "idle", PRIO_SCHED_IDLE },
	{ "fifo", PRIO_SCHED_FIFO },
	{ "rr", PRIO_SCHED_RR },
	{ NULL, 0 },
};

/* One field: its key, its place in struct prio, and its values (a
 * range, or words). */
struct field {
	unsigned int bit;
	const char *key;
	size_t offset;
	int min, max;
	const struct word *words; /* NULL = a number in [min, max] */
	const char *choices;	  /* the words, for messages */
};

static const struct field fields[PRIO_NFIELDS] = {
	{ PRIO_NICE, "nice", offsetof(struct prio, nice), -20, 19, NULL, NULL },
	{ PRIO_IOCLASS, "ioclass", offsetof(struct prio, ioclass), 0, 0, ioclass_words,
	  "none, realtime, best-effort or idle" },
	{ PRIO_IONICE, "ionice", offsetof(struct prio, ionice), 0, 7, NULL, NULL },
	{ PRIO_SCHED, "sched", offsetof(struct prio, sched), 0, 0, sched_words,
	  "normal, batch, idle, fifo or rr" },
	{ PRIO_RTPRIO, "rtprio", offsetof(struct prio, rtprio), 1, 99, NULL, NULL },
	{ PRIO_OOM, "oom_score_adj", offsetof(struct prio, oom_score_adj), -1000, 1000,
	  NULL, NULL },
	{ PRIO_LATENCY, "latency_nice", offsetof(struct prio, latency_nice), -20, 19, NULL,
	  NULL },
};

static int *
field_of(struct prio *p, const struct field *f)
{
	return (int *)(void *)((char *)p + f->offset);
}

static int
field_get(const struct prio *p, const struct field *f)
{
	return *(const int *)(const void *)((const char *)p + f->offset);
}

static const char *
word_name(const struct word *w, int value)
{
	for (; w->name; w++)
		if (w->value == value)
			return w->name;
	return NULL;
}

const char *
prio_ioclass_name(int ioclass)
{
	return word_name(ioclass_words, ioclass);
}

const char *
prio_sched_name(int sched)
{
	return word_name(sched_words, sched);
}

const char *
prio_field_name(unsigned int field)
{
	for (size_t i = 0; i < PRIO_NFIELDS; i++)
		if (fields[i].bit == field)
			return fields[i].key;
	return NULL;
}

/* A decimal int, all of value; 0 or -EINVAL. */
static int
parse_int(const char *value, int *out)
{
	char *end;
	long v;

	if (value[0] == '\0' || value[0] == ' ' || value[0] == '\t')
		return -EINVAL;
	errno = 0;
	v = strtol(value, &end, 10);
	if (errno != 0 || *end != '\0' || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* The value of field f written as value; 0 or -EINVAL with err. */
static int
field_value(const struct field *f, const char *value, int *out, char *err, size_t len)
{
	int v;

	if (f->words) {
		for (const struct word *w = f->words; w->name; w++)
			if (strcmp(w->name, value) == 0) {
				*out = w->value;
				return 0;
			}
		snprintf(err, len, "%s=%s: %s must be %s", f->key, value, f->key, f->choices);
		return -EINVAL;
	}
	if (parse_int(value, &v) < 0) {
		snprintf(err, len, "%s=%s: %s must be a number", f->key, value, f->key);
		return -EINVAL;
	}
	if (v < f->min || v > f->max) {
		snprintf(err, len, "%s=%s: %s must be between %d and %d", f->key, value, f->key,
			 f->min, f->max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int
prio_set(struct prio *p, const char *key, const char *value, char *err, size_t len)
{
	for (size_t i = 0; i < PRIO_NFIELDS; i++) {
		const struct field *f = &fields[i];
		int v;

		if (strcmp(f->key, key) != 0)
			continue;
		if (field_value(f, value, &v, err, len) < 0)
			return -EINVAL;
		*field_of(p, f) = v;
		p->set |= f->bit;
		return 0;
	}
	snprintf(err, len,
		 "%s=%s: unknown key %s (nice, ioclass, ionice, sched, rtprio, "
		 "oom_score_adj or latency_nice)",
		 key, value, key);
	return -EINVAL;
}

int
prio_parse_item(struct prio *p, const char *item, char *err, size_t len)
{
	const char *eq = strchr(item, '=');
	char key[32];
	size_t n;

	if (eq == NULL) {
		snprintf(err, len, "%s: not key=value", item);
		return -EINVAL;
	}
	n = (size_t)(eq - item);
	if (n == 0 || n >= sizeof(key)) {
		snprintf(err, len, "%s: unknown key", item);
		return -EINVAL;
	}
	memcpy(key, item, n);
	key[n] = '\0';
	return prio_set(p, key, eq + 1, err, len);
}

int
prio_check(const struct prio *p, char *err, size_t len)
{
	if ((p->set & PRIO_RTPRIO) && (p->set & PRIO_SCHED) &&
	    p->sched != PRIO_SCHED_FIFO && p->sched != PRIO_SCHED_RR) {
		snprintf(err, len, "rtprio=%d: needs sched=fifo or sched=rr, not sched=%s",
			 p->rtprio, prio_sched_name(p->sched));
		return -EINVAL;
	}
	if ((p->set & PRIO_IONICE) && (p->set & PRIO_IOCLASS) && p->ioclass == PRIO_IO_NONE) {
		snprintf(err, len, "ionice=%d: needs an I/O class other than ioclass=none",
			 p->ionice);
		return -EINVAL;
	}
	return 0;
}

void
prio_merge(struct prio *dst, const struct prio *src)
{
	for (size_t i = 0; i < PRIO_NFIELDS; i++) {
		const struct field *f = &fields[i];

		if ((dst->set & f->bit) || !(src->set & f->bit))
			continue;
		*field_of(dst, f) = field_get(src, f);
		dst->set |= f->bit;
	}
}

static bool
io_levelled(int ioclass)
{
	return ioclass == PRIO_IO_REALTIME || ioclass == PRIO_IO_BEST_EFFORT;
}

static bool
sched_rt(int sched)
{
	return sched == PRIO_SCHED_FIFO || sched == PRIO_SCHED_RR;
}

/* The I/O class and level want asks of a thread that has cur. */
static void
plan_io(const struct prio *want, const struct prio *cur, int *ioclass, int *ionice)
{
	if (want->set & PRIO_IOCLASS)
		*ioclass = want->ioclass;
	else
		*ioclass = io_levelled(cur->ioclass) ? cur->ioclass : PRIO_IO_BEST_EFFORT;
	if (!io_levelled(*ioclass))
		*ionice = 0;
	else if (want->set & PRIO_IONICE)
		*ionice = want->ionice;
	else
		*ionice = io_levelled(cur->ioclass) ? cur->ionice : 4;
}

/* The policy and rtprio want asks of a thread that has cur; false
 * when want asks nothing of them. */
static bool
plan_sched(const struct prio *want, const struct prio *cur, int *sched, int *rtprio)
{
	if (!(want->set & PRIO_SCHED) && !((want->set & PRIO_RTPRIO) && sched_rt(cur->sched)))
		return false;
	*sched = (want->set & PRIO_SCHED) ? want->sched : cur->sched;
	if (!sched_rt(*sched))
		*rtprio = 0;
	else if (want->set & PRIO_RTPRIO)
		*rtprio = want->rtprio;
	else
		*rtprio = cur->rtprio >= 1 ? cur->rtprio : 1;
	return true;
}

bool
prio_plan(const struct prio *want, const struct prio *cur, struct prio *todo)
{
	int a, b;

	memset(todo, 0, sizeof(*todo));
	if ((want->set & PRIO_NICE) && want->nice != cur->nice) {
		todo->nice = want->nice;
		todo->set |= PRIO_NICE;
	}
	if (want->set & (PRIO_IOCLASS | PRIO_IONICE)) {
		plan_io(want, cur, &a, &b);
		if (a != cur->ioclass || b != cur->ionice) {
			todo->ioclass = a;
			todo->ionice = b;
			todo->set |= PRIO_IOCLASS | PRIO_IONICE;
		}
	}
	if (plan_sched(want, cur, &a, &b) && (a != cur->sched || b != cur->rtprio)) {
		todo->sched = a;
		todo->rtprio = b;
		todo->set |= PRIO_SCHED | PRIO_RTPRIO;
	}
	if ((want->set & PRIO_OOM) && want->oom_score_adj != cur->oom_score_adj) {
		todo->oom_score_adj = want->oom_score_adj;
		todo->set |= PRIO_OOM;
	}
	if ((want->set & PRIO_LATENCY) && want->latency_nice != cur->latency_nice) {
		todo->latency_nice = want->latency_nice;
		todo->set |= PRIO_LATENCY;
	}
	return todo->set != 0;
}

int
prio_format(const struct prio *p, char *buf, size_t len)
{
	size_t off = 0;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (size_t i = 0; i < PRIO_NFIELDS; i++) {
		const struct field *f = &fields[i];

		if (!(p->set & f->bit)) /* its value may be unset memory */
			continue;
		int v = field_get(p, f), n;
		const char *w = f->words ? word_name(f->words, v) : NULL;
		if (w)
			n = snprintf(buf + off, len - off, "%s%s=%s", off ? " " : "", f->key, w);
		else
			n = snprintf(buf + off, len - off, "%s%s=%d", off ? " " : "", f->key, v);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += (size_t)n;
	}
	return 0;
}

int
prio_value(const struct prio *p, unsigned int field, char *buf, size_t len)
{
	for (size_t i = 0; i < PRIO_NFIELDS; i++) {
		const struct field *f = &fields[i];

		if (f->bit != field)
			continue;
		if (!(p->set & field)) /* its value may be unset memory */
			return -ENOENT;
		int v = field_get(p, f), n;
		const char *w = f->words ? word_name(f->words, v) : NULL;
		n = w ? snprintf(buf, len, "%s", w) : snprintf(buf, len, "%d", v);
		return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
	}
	return -ENOENT;
}
