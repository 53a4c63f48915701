/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy.c -- ananicy-cpp's lines: what each field means, the set
 * (three hash tables by name over one array of entries), resolving a
 * process's priorities and the name ananicy-cpp matches by.  Reading
 * files and directories is ananicy_dir.c.
 */
#include "ananicy_private.h"
#include "rules_private.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCHED_BATCH
#define SCHED_BATCH 3
#endif
#ifndef SCHED_IDLE
#define SCHED_IDLE 5
#endif

/* A name in one of the set's tables: the index of its entry. */
struct slot {
	const char *key;
	uint32_t idx;
};

struct ananicy_set {
	struct ananicy_entry *v; /* every line loaded, replaced ones too */
	size_t n, cap;
	struct map names[3]; /* by enum ananicy_kind: key -> struct slot */
	struct arena strings;
	struct ananicy_counts counts; /* malformed, warnings, files */
};

static const char *const ioclass_words[] = {"none", "realtime", "best-effort", "idle"};

static const struct {
	const char *word;
	int policy;
} sched_words[] = {
	{"normal", SCHED_OTHER}, {"other", SCHED_OTHER}, {"batch", SCHED_BATCH},
	{"idle", SCHED_IDLE},	 {"fifo", SCHED_FIFO},	 {"rr", SCHED_RR},
};

/* ---- one line ---------------------------------------------------------------- */

/* What one object says, while its members are read. */
struct line {
	char *name, *type, *cgroup; /* copies, freed by line_done */
	bool has_name, has_type, has_cgroup; /* present, whatever their kind */
	struct ananicy_values v;
	int cpuquota;
	char err[160];	/* the first problem */
	char warn[160]; /* the first warning */
};

static void ATTR_PRINTF(2, 3)
line_err(struct line *l, const char *fmt, ...)
{
	va_list ap;

	if (l->err[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(l->err, sizeof(l->err), fmt, ap);
	va_end(ap);
}

static void
line_int(struct line *l, const char *key, const struct json_value *v, unsigned bit, int *out,
	 int lo, int hi)
{
	if (v->kind != JSON_NUMBER || !v->integral) {
		line_err(l, "\"%s\" must be an integer", key);
		return;
	}
	if (v->num < lo || v->num > hi) {
		line_err(l, "\"%s\" %d is out of range %d..%d", key, v->num, lo, hi);
		return;
	}
	*out = v->num;
	l->v.set |= bit;
}

static void
line_string(struct line *l, const char *key, const struct json_value *v, char **out,
	    bool *has)
{
	*has = true;
	if (v->kind != JSON_STRING) {
		line_err(l, "\"%s\" must be a string", key);
		return;
	}
	if (v->str[0] == '\0') {
		line_err(l, "\"%s\" must not be empty", key);
		return;
	}
	free(*out);
	if ((*out = strdup(v->str)) == NULL)
		line_err(l, "out of memory");
}

static void
line_ioclass(struct line *l, const struct json_value *v)
{
	if (v->kind == JSON_STRING)
		for (int i = 0; i < 4; i++)
			if (strcmp(v->str, ioclass_words[i]) == 0) {
				l->v.ioclass = i;
				l->v.set |= ANANICY_IOCLASS;
				return;
			}
	line_err(l, "\"ioclass\" must be \"none\", \"realtime\", \"best-effort\" or \"idle\"");
}

static void
line_sched(struct line *l, const struct json_value *v)
{
	if (v->kind == JSON_STRING) {
		for (size_t i = 0; i < sizeof(sched_words) / sizeof(sched_words[0]); i++)
			if (strcmp(v->str, sched_words[i].word) == 0) {
				l->v.sched = sched_words[i].policy;
				l->v.set |= ANANICY_SCHED;
				return;
			}
		/* ananicy-cpp knows these words and sets nothing for them */
		if (strcmp(v->str, "deadline") == 0 || strcmp(v->str, "iso") == 0) {
			if (l->warn[0] == '\0')
				snprintf(l->warn, sizeof(l->warn),
					 "\"sched\" \"%s\" is not supported; ignored", v->str);
			return;
		}
	}
	line_err(l, "\"sched\" must be \"normal\", \"other\", \"batch\", \"idle\", \"fifo\" "
		    "or \"rr\"");
}

/* One member of a line's object; unknown keys are ignored, as by ananicy-cpp. */
static void
line_member(void *arg, const char *key, const struct json_value *v)
{
	struct line *l = arg;

	if (strcmp(key, "name") == 0)
		line_string(l, key, v, &l->name, &l->has_name);
	else if (strcmp(key, "type") == 0)
		line_string(l, key, v, &l->type, &l->has_type);
	else if (strcmp(key, "cgroup") == 0)
		line_string(l, key, v, &l->cgroup, &l->has_cgroup);
	else if (strcmp(key, "nice") == 0)
		line_int(l, key, v, ANANICY_NICE, &l->v.nice, -20, 19);
	else if (strcmp(key, "latency_nice") == 0)
		line_int(l, key, v, ANANICY_LATENCY, &l->v.latency_nice, -20, 19);
	else if (strcmp(key, "ionice") == 0)
		line_int(l, key, v, ANANICY_IONICE, &l->v.ionice, 0, 7);
	else if (strcmp(key, "rtprio") == 0)
		line_int(l, key, v, ANANICY_RTPRIO, &l->v.rtprio, 1, 99);
	else if (strcmp(key, "oom_score_adj") == 0)
		line_int(l, key, v, ANANICY_OOM, &l->v.oom_score_adj, -1000, 1000);
	else if (strcmp(key, "CPUQuota") == 0)
		line_int(l, key, v, 0, &l->cpuquota, 1, 100);
	else if (strcmp(key, "ioclass") == 0)
		line_ioclass(l, v);
	else if (strcmp(key, "sched") == 0)
		line_sched(l, v);
}

static void
line_done(struct line *l)
{
	free(l->name);
	free(l->type);
	free(l->cgroup);
}

/* ---- the set ------------------------------------------------------------------- */

struct ananicy_set *
ananicy_new(void)
{
	struct ananicy_set *s = calloc(1, sizeof(*s));

	if (s != NULL)
		for (int k = 0; k < 3; k++)
			map_init(&s->names[k], sizeof(struct slot));
	return s;
}

void
ananicy_free(struct ananicy_set *s)
{
	if (s == NULL)
		return;
	for (int k = 0; k < 3; k++)
		map_free(&s->names[k]);
	arena_free(&s->strings);
	free(s->v);
	free(s);
}

static bool
slot_eq(const void *value, const void *probe)
{
	return strcmp(((const struct slot *)value)->key, probe) == 0;
}

const struct ananicy_entry *
ananicy_find(const struct ananicy_set *s, enum ananicy_kind kind, const char *key)
{
	const struct slot *sl = map_find(&s->names[kind], map_hash_str(key), slot_eq, key);

	return sl != NULL ? &s->v[sl->idx] : NULL;
}

void
ananicy_each(const struct ananicy_set *s, enum ananicy_kind kind,
	     void (*fn)(void *arg, const struct ananicy_entry *e), void *arg)
{
	size_t cursor = 0;
	const struct slot *sl;

	while ((sl = map_next(&s->names[kind], &cursor)) != NULL)
		fn(arg, &s->v[sl->idx]);
}

void
ananicy_counts(const struct ananicy_set *s, struct ananicy_counts *out)
{
	*out = s->counts;
	out->rules = map_count(&s->names[ANANICY_RULE]);
	out->types = map_count(&s->names[ANANICY_TYPE]);
	out->cgroups = map_count(&s->names[ANANICY_CGROUPS]);
}

static void ATTR_PRINTF(6, 7)
report(ananicy_report_fn *fn, void *arg, enum rules_severity sev, const char *file,
       unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n = snprintf(msg, sizeof(msg), "%s:%u: %s", file, line,
			 sev == RULES_WARNING ? "warning: " : "");

	if (fn == NULL)
		return;
	if (n > 0 && (size_t)n < sizeof(msg)) {
		va_start(ap, fmt);
		vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	ananicy_report_line(fn, arg, sev, msg);
}

void
ananicy_report_line(ananicy_report_fn *fn, void *arg, enum rules_severity sev, char *msg)
{
	for (unsigned char *c = (unsigned char *)msg; *c != '\0'; c++)
		if (*c < 0x20 || *c == 0x7f)
			*c = '?';
	fn(arg, sev, msg);
}

/* The entry a complete line makes: its kind and strings; 0 or -ENOMEM. */
static int
entry_fill(struct ananicy_set *s, struct ananicy_entry *e, const struct line *l)
{
	e->kind = l->name != NULL   ? ANANICY_RULE
		  : l->type != NULL ? ANANICY_TYPE
				    : ANANICY_CGROUPS;
	e->key = arena_strdup(&s->strings, e->kind == ANANICY_RULE   ? l->name
					   : e->kind == ANANICY_TYPE ? l->type
								     : l->cgroup);
	e->type = NULL;
	if (e->kind == ANANICY_RULE && l->type != NULL)
		e->type = arena_strdup(&s->strings, l->type);
	e->v = l->v;
	e->v.cgroup = NULL;
	/* a cgroup line's "cgroup" names it; a rule's or type's places it */
	if (e->kind != ANANICY_CGROUPS && l->cgroup != NULL) {
		e->v.cgroup = arena_strdup(&s->strings, l->cgroup);
		e->v.set |= ANANICY_CGROUP;
		if (e->v.cgroup == NULL)
			return -ENOMEM;
	}
	e->cpuquota = l->cpuquota;
	if (e->key == NULL || (l->type != NULL && e->kind == ANANICY_RULE && e->type == NULL))
		return -ENOMEM;
	return 0;
}

/* Add the line's entry, replacing one of the same kind and key; 0 or -ENOMEM. */
static int
set_add(struct ananicy_set *s, const struct line *l, const char *file, unsigned lineno)
{
	struct ananicy_entry *v = array_room(s->v, s->n, &s->cap, sizeof(*v), 256);
	bool fresh;

	if (v == NULL)
		return -ENOMEM;
	s->v = v;
	struct ananicy_entry *e = &v[s->n];
	if (entry_fill(s, e, l) < 0)
		return -ENOMEM;
	e->file = file;
	e->line = lineno;
	struct slot *sl = map_insert(&s->names[e->kind], map_hash_str(e->key), slot_eq, e->key,
				     &fresh);
	if (sl == NULL)
		return -ENOMEM;
	sl->key = e->key;
	sl->idx = (uint32_t)s->n++;
	return 0;
}

/* What is wrong with a complete object, or NULL.  Fields a kind does
 * not use (CPUQuota on a rule) are ignored, as by ananicy-cpp. */
static const char *
line_problem(const struct line *l)
{
	if (l->name == NULL && l->type == NULL && l->cgroup == NULL)
		return "no \"name\", \"type\" or \"cgroup\"";
	return NULL;
}

/* One line of file; 0, or -ENOMEM.  Problems are reported and counted. */
static int
add_line(struct ananicy_set *s, const char *file, unsigned lineno, const char *text,
	 size_t len, char *key, char *scratch, ananicy_report_fn *fn, void *arg)
{
	struct json j = {.start = text, .p = text, .end = text + len};
	struct line l = {0};
	const char *problem;
	int rc = 0;

	while (j.p < j.end && (*j.p == ' ' || *j.p == '\t' || *j.p == '\r'))
		j.p++;
	if (j.p == j.end || *j.p == '#')
		return 0;
	/* as ananicy-cpp: the object starts at the line's first '{' */
	const char *brace = memchr(j.p, '{', (size_t)(j.end - j.p));
	if (brace == NULL) {
		report(fn, arg, RULES_ERROR, file, lineno, "not a JSON object; line skipped");
		s->counts.malformed++;
		return 0;
	}
	j.p = brace;
	if (ananicy_json_object(&j, line_member, &l, key, scratch) < 0)
		line_err(&l, "invalid JSON: %s", j.err);
	problem = l.err[0] != '\0' ? l.err : line_problem(&l);
	if (problem != NULL) {
		report(fn, arg, RULES_ERROR, file, lineno, "%s; line skipped", problem);
		s->counts.malformed++;
	} else {
		if (l.warn[0] != '\0') {
			report(fn, arg, RULES_WARNING, file, lineno, "%s", l.warn);
			s->counts.warnings++;
		}
		rc = set_add(s, &l, file, lineno);
	}
	line_done(&l);
	return rc;
}

int
ananicy_add_buffer(struct ananicy_set *s, const char *name, const char *text, size_t len,
		   ananicy_report_fn *fn, void *arg)
{
	const char *file = arena_strdup(&s->strings, name);
	char *key = malloc(len + 1), *scratch = malloc(len + 1);
	unsigned lineno = 0;
	int rc = 0;

	if (file == NULL || key == NULL || scratch == NULL) {
		free(key);
		free(scratch);
		return -ENOMEM;
	}
	s->counts.files++;
	for (const char *p = text, *end = text + len; p < end && rc == 0;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl != NULL ? nl : end;

		rc = add_line(s, file, ++lineno, p, (size_t)(eol - p), key, scratch, fn, arg);
		p = eol + 1;
	}
	free(key);
	free(scratch);
	return rc;
}

/* ---- after loading --------------------------------------------------------------- */

struct check_ctx {
	const struct ananicy_set *s;
	ananicy_report_fn *fn;
	void *arg;
	size_t warnings;
};

static void
check_entry(void *arg, const struct ananicy_entry *e)
{
	struct check_ctx *c = arg;

	if (e->type != NULL && ananicy_find(c->s, ANANICY_TYPE, e->type) == NULL) {
		report(c->fn, c->arg, RULES_WARNING, e->file, e->line,
		       "type \"%s\" is not defined; the rule's own fields apply", e->type);
		c->warnings++;
	}
	if ((e->v.set & ANANICY_CGROUP) &&
	    ananicy_find(c->s, ANANICY_CGROUPS, e->v.cgroup) == NULL) {
		report(c->fn, c->arg, RULES_WARNING, e->file, e->line,
		       "cgroup \"%s\" is not defined; ignored", e->v.cgroup);
		c->warnings++;
	}
}

void
ananicy_check(struct ananicy_set *s, ananicy_report_fn *fn, void *arg)
{
	struct check_ctx c = {.s = s, .fn = fn, .arg = arg};

	ananicy_each(s, ANANICY_TYPE, check_entry, &c);
	ananicy_each(s, ANANICY_RULE, check_entry, &c);
	s->counts.warnings += c.warnings;
}

/* ---- a process's priorities ---------------------------------------------------------- */

static void
values_merge(struct ananicy_values *dst, const struct ananicy_values *src)
{
	unsigned add = src->set & ~dst->set;

	if (add & ANANICY_NICE)
		dst->nice = src->nice;
	if (add & ANANICY_IOCLASS)
		dst->ioclass = src->ioclass;
	if (add & ANANICY_IONICE)
		dst->ionice = src->ionice;
	if (add & ANANICY_SCHED)
		dst->sched = src->sched;
	if (add & ANANICY_RTPRIO)
		dst->rtprio = src->rtprio;
	if (add & ANANICY_OOM)
		dst->oom_score_adj = src->oom_score_adj;
	if (add & ANANICY_LATENCY)
		dst->latency_nice = src->latency_nice;
	if (add & ANANICY_CGROUP)
		dst->cgroup = src->cgroup;
	dst->set |= add;
}

/* What ananicy-cpp's worker makes of the fields it is given. */
static void
values_complete(struct ananicy_values *v)
{
	if (!(v->set & ANANICY_IOCLASS))
		v->set &= ~ANANICY_IONICE;
	else if (v->ioclass == ANANICY_IOCLASS_RT || v->ioclass == ANANICY_IOCLASS_BE) {
		if (!(v->set & ANANICY_IONICE))
			v->ionice = 0;
		v->set |= ANANICY_IONICE;
	} else
		v->set &= ~ANANICY_IONICE; /* none and idle have no level */
	if ((v->set & ANANICY_NICE) && !(v->set & ANANICY_LATENCY)) {
		v->latency_nice = v->nice;
		v->set |= ANANICY_LATENCY;
	}
	bool rt = (v->set & ANANICY_SCHED) && (v->sched == SCHED_FIFO || v->sched == SCHED_RR);
	if (rt && !(v->set & ANANICY_RTPRIO)) {
		v->rtprio = 1;
		v->set |= ANANICY_RTPRIO;
	} else if (!rt)
		v->set &= ~ANANICY_RTPRIO;
}

bool
ananicy_resolve(const struct ananicy_set *s, const char *name, struct ananicy_values *out,
		const struct ananicy_entry **rule)
{
	const struct ananicy_entry *r = ananicy_find(s, ANANICY_RULE, name), *t;

	if (rule != NULL)
		*rule = r;
	if (r == NULL)
		return false;
	*out = r->v;
	if (r->type != NULL && (t = ananicy_find(s, ANANICY_TYPE, r->type)) != NULL)
		values_merge(out, &t->v);
	values_complete(out);
	return true;
}

int
ananicy_cpu_quota(int percent, long ncpu, long long *quota_us, long *period_us)
{
	if (percent < 1 || percent > 100 || ncpu < 1)
		return -EINVAL;
	*period_us = 100000;
	*quota_us = (long long)percent * ncpu * 1000; /* percent of ncpu periods */
	if (*quota_us < 1000)
		*quota_us = 1000;
	return 0;
}

bool
ananicy_cgroup_for(const struct ananicy_set *s, const char *name, bool placed, char *dest,
		   size_t len, const struct ananicy_entry **rule)
{
	struct ananicy_values v;
	const char *g;

	*rule = NULL;
	if (placed || !ananicy_resolve(s, name, &v, rule) || !(v.set & ANANICY_CGROUP))
		return false;
	g = v.cgroup;
	if (ananicy_find(s, ANANICY_CGROUPS, g) == NULL || g[0] == '\0' ||
	    strchr(g, '/') != NULL || strcmp(g, ".") == 0 || strcmp(g, "..") == 0)
		return false;
	return (size_t)snprintf(dest, len, "/%s", g) < len;
}

/* ---- names and words -------------------------------------------------------------- */

static bool
ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

const char *
ananicy_name(const char *argv0, const char *exe, const char *comm, char *buf, size_t len)
{
	const char *from = argv0, *base;
	size_t n;

	if (from == NULL || from[0] == '\0')
		from = exe;
	if (from == NULL || from[0] == '\0') {
		str_copy(buf, len, comm != NULL ? comm : "");
		return buf;
	}
	n = strlen(from);
	if (from == exe && ends_with(from, n, " (deleted)"))
		n -= strlen(" (deleted)");
	base = from;
	bool wine = from == argv0 && ends_with(from, n, ".exe");
	for (const char *p = from; p < from + n; p++)
		if (*p == '/' || (wine && *p == '\\'))
			base = p + 1;
	n -= (size_t)(base - from);
	if (n >= len)
		n = len - 1;
	memcpy(buf, base, n);
	buf[n] = '\0';
	return buf;
}

static const char *
sched_word(int policy)
{
	for (size_t i = 0; i < sizeof(sched_words) / sizeof(sched_words[0]); i++)
		if (sched_words[i].policy == policy)
			return sched_words[i].word;
	return "?";
}

int
ananicy_format(const struct ananicy_values *v, char *buf, size_t len)
{
	struct strbuf b = {0};
	int n;

	if (v->set & ANANICY_NICE)
		strbuf_printf(&b, " nice=%d", v->nice);
	if (v->set & ANANICY_IOCLASS)
		strbuf_printf(&b, " ioclass=%s", ioclass_words[v->ioclass & 3]);
	if (v->set & ANANICY_IONICE)
		strbuf_printf(&b, " ionice=%d", v->ionice);
	if (v->set & ANANICY_SCHED)
		strbuf_printf(&b, " sched=%s", sched_word(v->sched));
	if (v->set & ANANICY_RTPRIO)
		strbuf_printf(&b, " rtprio=%d", v->rtprio);
	if (v->set & ANANICY_OOM)
		strbuf_printf(&b, " oom_score_adj=%d", v->oom_score_adj);
	if (v->set & ANANICY_LATENCY)
		strbuf_printf(&b, " latency_nice=%d", v->latency_nice);
	if (v->set & ANANICY_CGROUP)
		strbuf_printf(&b, " cgroup=%s", v->cgroup);
	n = snprintf(buf, len, "%s", b.p != NULL ? b.p + 1 : "");
	strbuf_free(&b);
	return n;
}
