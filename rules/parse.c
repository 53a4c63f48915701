/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse.c -- read cgrules.conf and cgrules.d into a rule set.
 *
 * Line format (libcgroup's):  <key> <controllers> <destination> [<options>]
 * Fields are separated by blanks or tabs; a field may be written in
 * double quotes to contain blanks; '#' outside quotes starts a comment.
 */
#include "rules_private.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 5

struct parser {
	const struct rules_options *opts;
	const struct rules_names *names;
	struct rules_set *set;
	const char *file; /* arena copy, shared by the file's rules */
	unsigned line;
	int errors;
	bool have_head; /* a rule exists that '%' may continue */
	bool skipping;	/* the rule being continued was skipped */
	uint32_t head;	/* index of that rule */
	uid_t *members; /* member uids of the head's @group */
	size_t nmembers;
};

static void ATTR_PRINTF(3, 4)
report(struct parser *p, enum rules_severity sev, const char *fmt, ...)
{
	char msg[512], full[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->line > 0)
		snprintf(full, sizeof(full), "%s:%u: %s%s", p->file, p->line,
			 sev == RULES_WARNING ? "warning: " : "", msg);
	else
		snprintf(full, sizeof(full), "%s: %s%s", p->file,
			 sev == RULES_WARNING ? "warning: " : "", msg);
	if (sev == RULES_ERROR)
		p->errors++;
	if (p->opts->report != NULL)
		p->opts->report(p->opts->report_arg, sev, full);
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * Split line into fields written to buf (as large as the line plus
 * one).  Returns the field count (at most MAX_FIELDS are stored) or -1
 * for an unterminated quote.  quoted[i] tells whether field i held a
 * double quote.
 */
static int
split_fields(const char *line, size_t len, char *buf, char **field, bool *quoted)
{
	const char *s = line, *end = line + len;
	char *o = buf;
	int n = 0;

	for (;;) {
		while (s < end && is_blank(*s))
			s++;
		if (s == end || *s == '#' || *s == '\n')
			return n;
		if (n < MAX_FIELDS) {
			field[n] = o;
			quoted[n] = false;
		}
		n++;
		bool inside = false;
		while (s < end &&
		       (inside || (!is_blank(*s) && *s != '#' && *s != '\n'))) {
			if (*s == '"') {
				inside = !inside;
				if (n <= MAX_FIELDS)
					quoted[n - 1] = true;
			} else if (n <= MAX_FIELDS)
				*o++ = *s;
			s++;
		}
		if (inside)
			return -1;
		if (n <= MAX_FIELDS)
			*o++ = '\0';
	}
}

static bool
valid_controller(const char *c)
{
	if (strcmp(c, "*") == 0)
		return true;
	if (strncmp(c, "name=", 5) == 0) {
		c += 5;
		if (*c == '\0')
			return false;
		for (; *c; c++)
			if (!(c[0] == '_' || c[0] == '-' || c[0] == '.' ||
			      (c[0] >= 'a' && c[0] <= 'z') ||
			      (c[0] >= 'A' && c[0] <= 'Z') ||
			      (c[0] >= '0' && c[0] <= '9')))
				return false;
		return true;
	}
	if (*c == '\0')
		return false;
	for (; *c; c++)
		if (!(c[0] == '_' || (c[0] >= 'a' && c[0] <= 'z') ||
		      (c[0] >= '0' && c[0] <= '9')))
			return false;
	return true;
}

static int
check_controllers(struct parser *p, const char *list)
{
	char buf[256];
	const char *s = list;

	for (;;) {
		size_t n = strcspn(s, ",");

		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		if (!valid_controller(buf)) {
			report(p, RULES_ERROR, "invalid controller '%s'", buf);
			return -1;
		}
		s += strcspn(s, ",");
		if (*s == '\0')
			return 0;
		s++;
	}
}

/*
 * A '%' that starts no template.  Per-hierarchy this is an error (a
 * typo, most likely: "\%" writes a percent sign); first-match loads
 * the line and copies the '%' and the character after it as written,
 * as libcgroup does, so a file cgrulesengd runs with also loads here.
 * 0 or -1.
 */
static int
unknown_template(struct parser *p, char c)
{
	if (p->set->semantics == RULES_FIRST_MATCH) {
		if (c == '\0')
			report(p, RULES_WARNING,
			       "'%%' at the end of the destination; copied as written");
		else
			report(p, RULES_WARNING,
			       "unknown template '%%%c' in destination; copied as written",
			       c);
		return 0;
	}
	report(p, RULES_ERROR, "unknown template '%%%c' in destination", c ? c : ' ');
	return -1;
}

/*
 * The group dest names once its escapes are taken out ("\.\." is
 * ".."), into buf (RULES_DEST_MAX bytes; dest is shorter): it must pass
 * rules_dest_problem() too.  Template values need no check (they are
 * never ".." and hold no '/'), so templates stay as written.
 */
static void
unescape(const char *dest, char *buf)
{
	size_t o = 0;

	for (const char *s = dest; *s; s++) {
		if (*s == '%' && s[1] != '\0')
			buf[o++] = *s++; /* '%' goes with what follows */
		else if (*s == '\\' && s[1] != '\0')
			s++;
		buf[o++] = *s;
	}
	buf[o] = '\0';
}

/* Validate a destination (made absolute); sets *templated.  0 or -1. */
static int
check_dest(struct parser *p, const char *dest, bool *templated)
{
	char plain[RULES_DEST_MAX];
	const char *problem = rules_dest_problem(dest);

	if (problem == NULL) {
		unescape(dest, plain);
		problem = rules_dest_problem(plain);
	}
	if (problem != NULL) {
		report(p, RULES_ERROR, "destination %s", problem);
		return -1;
	}
	*templated = false;
	for (const char *s = dest; *s; s++) {
		if (*s == '\\') {
			if (s[1] == '\0') {
				report(p, RULES_ERROR,
				       "trailing backslash in destination");
				return -1;
			}
			s++;
		} else if (*s == '%') {
			if (s[1] != '\0' && strchr("uUgGpP", s[1]) != NULL)
				*templated = true;
			else if (unknown_template(p, s[1]) < 0)
				return -1;
			if (s[1] == 'p')
				p->set->need_pname = true;
			if (s[1] != '\0')
				s++; /* the character after it goes with it */
		}
	}
	return 0;
}

/*
 * The options field: a comma list.  Empty items are skipped, as
 * libcgroup's strtok() does ("ignore," is valid), but a list with no
 * option at all is an error, as there.
 */
static int
parse_options(struct parser *p, const char *list, unsigned *opts)
{
	char buf[256];
	const char *s = list;

	*opts = 0;
	for (bool any = false;; s++) {
		size_t n = strcspn(s, ",");

		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		if (n == 0)
			; /* an empty item */
		else if (strcmp(buf, "ignore") == 0)
			*opts |= RULES_OPT_IGNORE;
		else if (strcmp(buf, "ignore_rt") == 0)
			*opts |= RULES_OPT_IGNORE_RT;
		else {
			report(p, RULES_ERROR, "unknown option '%s'", buf);
			return -1;
		}
		any |= n > 0;
		s += strcspn(s, ",");
		if (*s != '\0')
			continue;
		if (!any) {
			report(p, RULES_ERROR, "no option in '%s'", list);
			return -1;
		}
		return 0;
	}
}

static int
process_mode(const char *proc)
{
	if (proc == NULL)
		return PMODE_NONE;
	if (strpbrk(proc, "*?[") != NULL)
		return PMODE_PATTERN;
	return strchr(proc, '/') != NULL ? PMODE_PATH : PMODE_NAME;
}

static int
index_pmode(int pmode)
{
	switch (pmode) {
	case PMODE_NAME:
		return IDX_NAME;
	case PMODE_PATH:
		return IDX_PATH;
	default:
		return IDX_GENERAL;
	}
}

/* Keep the members of a group rule's group for rules_members(). */
static int
keep_members(struct rules_set *set, const uid_t *members, size_t n)
{
	if (set->nmembers + n > set->capmembers) {
		size_t cap = (set->nmembers + n) * 2;
		uid_t *v = realloc(set->members, cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		set->members = v;
		set->capmembers = cap;
	}
	if (n > 0)
		memcpy(set->members + set->nmembers, members, n * sizeof(*members));
	set->nmembers += n;
	return 0;
}

/* File rule number r under every key that can select it. */
static int
index_rule(struct parser *p, uint32_t r)
{
	const struct rules_rule *rule = &p->set->rules[r];
	int ip = index_pmode(rule->pmode);
	const char *name = ip == IDX_GENERAL ? NULL : rule->process;
	int rc = index_add(p->set->index, rule->kind, ip, rule->id, name, r);

	if (rc == 0 && rule->kind == RULES_KEY_GROUP && !rule->continuation)
		rc = keep_members(p->set, p->members, p->nmembers);
	for (size_t i = 0; rc == 0 && i < p->nmembers; i++)
		rc = index_add(p->set->index, RULES_KEY_USER, ip, p->members[i], name, r);
	return rc;
}

/*
 * Warn about a name that did not resolve (the rule is skipped), or
 * report an error for one that may not even be asked.  Returns the
 * value resolve_key should return.
 */
static int
lookup_failed(struct parser *p, const char *what, const char *name, int rc)
{
	if (rc == -ENAMETOOLONG) {
		report(p, RULES_ERROR, "%s name too long (%zu bytes, at most %d)", what,
		       strlen(name), RULES_NAME_MAX);
		return -1;
	}
	if (rc == -ENOENT)
		report(p, RULES_WARNING, "unknown %s '%s'; rule skipped", what, name);
	else
		report(p, RULES_WARNING, "cannot look up %s '%s': %s; rule skipped", what,
		       name, strerror(-rc));
	return 0;
}

/* The resolver is asked only about names of a sane length. */
static int
ask_user(struct parser *p, const char *name, uid_t *uid)
{
	if (strnlen(name, RULES_NAME_MAX + 1) > RULES_NAME_MAX)
		return -ENAMETOOLONG;
	return p->names->user(p->names->arg, name, uid);
}

static int
ask_group(struct parser *p, const char *name, gid_t *gid)
{
	if (strnlen(name, RULES_NAME_MAX + 1) > RULES_NAME_MAX)
		return -ENAMETOOLONG;
	return p->names->group(p->names->arg, name, gid, &p->members, &p->nmembers);
}

/* Resolve the key of a new rule; 1 = resolved, 0 = skipped, -1 = error. */
static int
resolve_key(struct parser *p, const char *name, struct rules_rule *r)
{
	int rc;

	free(p->members);
	p->members = NULL;
	p->nmembers = 0;
	if (strcmp(name, "*") == 0) {
		r->kind = RULES_KEY_ANY;
		r->key = "*";
		return 1;
	}
	if (name[0] == '@') {
		gid_t gid;

		r->kind = RULES_KEY_GROUP;
		if (name[1] == '\0') {
			report(p, RULES_ERROR, "empty group name");
			return -1;
		}
		if ((rc = ask_group(p, name + 1, &gid)) < 0)
			return lookup_failed(p, "group", name + 1, rc);
		r->id = gid;
		r->key = name + 1;
		return 1;
	}
	uid_t uid;
	r->kind = RULES_KEY_USER;
	if ((rc = ask_user(p, name, &uid)) < 0)
		return lookup_failed(p, "user", name, rc);
	r->id = uid;
	r->key = name;
	return 1;
}

static int
append_rule(struct parser *p, const struct rules_rule *r)
{
	struct rules_set *set = p->set;
	struct rules_rule *v = array_room(set->rules, set->n, &set->cap, sizeof(*v), 16);

	if (v == NULL)
		return -ENOMEM;
	set->rules = v;
	set->rules[set->n] = *r;
	return 0;
}

/* Copy r's strings into the arena; 0 or -ENOMEM. */
static int
intern_rule(struct parser *p, struct rules_rule *r)
{
	struct arena *a = &p->set->strings;

	r->key = arena_strdup(a, r->key);
	r->controllers = arena_strdup(a, r->controllers);
	r->dest = arena_strdup(a, r->dest);
	if (r->process != NULL && (r->process = arena_strdup(a, r->process)) == NULL)
		return -ENOMEM;
	return r->key && r->controllers && r->dest ? 0 : -ENOMEM;
}

/* The key field; fills kind/key/id/process/continuation. 1/0/-1 as resolve_key. */
static int
parse_key(struct parser *p, char *key, struct rules_rule *r)
{
	char *colon = strchr(key, ':');

	if (colon != NULL) {
		*colon = '\0';
		r->process = colon + 1;
		if (*r->process == '\0') {
			report(p, RULES_ERROR, "empty process name");
			return -1;
		}
	}
	if (strcmp(key, "%") != 0) {
		p->have_head = false;
		p->skipping = false;
		if (key[0] == '\0') {
			report(p, RULES_ERROR, "empty user name");
			return -1;
		}
		return resolve_key(p, key, r);
	}
	if (p->skipping)
		return 0;
	if (!p->have_head) {
		report(p, RULES_ERROR, "'%%' continuation without a preceding rule");
		return -1;
	}
	if (r->process != NULL) {
		report(p, RULES_ERROR,
		       "'%%' takes its process from the rule it continues");
		return -1;
	}
	const struct rules_rule *head = &p->set->rules[p->head];
	r->continuation = true;
	r->kind = head->kind;
	r->key = head->key;
	r->id = head->id;
	r->process = head->process;
	return 1;
}

/* Check the fields after the key; 0 or -1 after reporting. */
static int
check_fields(struct parser *p, char **field, const bool *quoted, int n,
	     struct rules_rule *r)
{
	if (quoted[1]) {
		report(p, RULES_ERROR, "the controllers field cannot be quoted");
		return -1;
	}
	if (n == 4 && quoted[3]) {
		report(p, RULES_ERROR, "the options field cannot be quoted");
		return -1;
	}
	if (check_controllers(p, field[1]) < 0 ||
	    check_dest(p, field[2], &r->templated) < 0 ||
	    (n == 4 && parse_options(p, field[3], &r->options) < 0))
		return -1;
	if (!r->continuation)
		return 0;
	/* libcgroup reads these and never uses them: say so */
	if (r->options != 0)
		report(p, RULES_WARNING,
		       "options on a '%%' line have no effect; the rule's first "
		       "line decides");
	else if (p->set->rules[p->head].options != 0)
		report(p, RULES_WARNING, "'%%' line of an ignore rule is never applied");
	return 0;
}

static int
parse_line(struct parser *p, const char *line, size_t len)
{
	char *field[MAX_FIELDS];
	bool quoted[MAX_FIELDS];
	char *buf;
	int n, rc = -1;

	if (memchr(line, '\0', len) != NULL) {
		report(p, RULES_ERROR, "line contains a NUL byte");
		p->skipping = true;
		return 0;
	}
	if ((buf = malloc(len + 1)) == NULL)
		return -ENOMEM;
	n = split_fields(line, len, buf, field, quoted);
	if (n == 0) {
		free(buf);
		return 0;
	}

	struct rules_rule r = { .file = p->file, .line = p->line };
	if (n < 0)
		report(p, RULES_ERROR, "unterminated quote");
	else if (n < 3)
		report(p, RULES_ERROR,
		       "expected '<key> <controllers> "
		       "<destination> [<options>]'");
	else if (n > 4)
		report(p, RULES_ERROR, "unexpected text '%s' after options", field[4]);
	char dest[RULES_DEST_MAX + 1];
	if (n >= 3 && field[2][0] != '/') { /* relative to the root anyway */
		snprintf(dest, sizeof(dest), "/%s", field[2]);
		field[2] = dest;
	}
	if (n >= 3 && n <= 4 && (rc = parse_key(p, field[0], &r)) == 1)
		rc = check_fields(p, field, quoted, n, &r) < 0 ? -1 : 1;
	if (rc <= 0)
		p->skipping = true; /* its '%' lines go with it, quietly */
	if (rc != 1) {
		free(buf);
		return 0;
	}

	r.controllers = field[1];
	r.dest = field[2];
	r.pmode = process_mode(r.process);
	uint32_t no = (uint32_t)p->set->n;
	r.head = r.continuation ? p->head : no;
	rc = intern_rule(p, &r);
	if (rc == 0)
		rc = append_rule(p, &r);
	free(buf);
	if (rc < 0)
		return rc;
	if (!r.continuation) {
		p->head = no;
		p->have_head = true;
	}
	if ((rc = index_rule(p, no)) < 0)
		return rc;
	p->set->n++;
	return 0;
}

static int
parse_stream(struct parser *p, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
		p->line++;
		rc = parse_line(p, line, (size_t)len);
	}
	free(line);
	return rc;
}

static void
begin_file(struct parser *p, const char *name)
{
	p->file = arena_strdup(&p->set->strings, name);
	if (p->file == NULL)
		p->file = "?";
	p->line = 0;
	p->have_head = false;
	p->skipping = false;
}

static int
parse_file(struct parser *p, const char *path, bool optional)
{
	FILE *f = fopen(path, "re");
	int rc;

	begin_file(p, path);
	if (f == NULL) {
		if (optional && errno == ENOENT)
			return 0;
		report(p, RULES_ERROR, "cannot open: %s", strerror(errno));
		return 0;
	}
	rc = parse_stream(p, f);
	fclose(f);
	return rc;
}

/* Should a file in the rules directory be read? */
static bool
wanted_name(const char *n)
{
	size_t len = strlen(n);

	if (n[0] == '.' || len < 6 || strcmp(n + len - 5, ".conf") != 0)
		return false;
	return n[len - 1] != '~' && strstr(n, ".dpkg-") == NULL &&
	       strstr(n, ".rpm") == NULL && strstr(n, ".ucf-") == NULL;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
parse_dir(struct parser *p, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (d == NULL) {
		if (errno == ENOENT)
			return 0;
		begin_file(p, dir);
		report(p, RULES_ERROR, "cannot open: %s", strerror(errno));
		return 0;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (!wanted_name(e->d_name))
			continue;
		char **v = array_room(names, n, &cap, sizeof(*v), 16);
		if (v == NULL) {
			rc = -ENOMEM;
			break;
		}
		names = v;
		if ((names[n] = strdup(e->d_name)) == NULL)
			rc = -ENOMEM;
		else
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (rc == 0)
			rc = parse_file(p, path, true);
		free(names[i]);
	}
	free(names);
	return rc;
}

static struct rules_set *
new_set(const struct rules_options *opts)
{
	struct rules_set *set = calloc(1, sizeof(*set));

	if (set == NULL)
		return NULL;
	set->semantics = opts->semantics;
	if ((set->index = index_new()) == NULL) {
		free(set);
		return NULL;
	}
	return set;
}

/* The credentials rule r depends on (RULES_NEED_*); a '%' that is
 * escaped counts too: never less than needed. */
static unsigned
ids_used(const struct rules_rule *r)
{
	unsigned need = 0;

	if (r->kind == RULES_KEY_USER)
		need |= RULES_NEED_UID;
	if (r->kind == RULES_KEY_GROUP)
		need |= RULES_NEED_UID | RULES_NEED_GID;
	for (const char *s = r->dest; r->templated && (s = strchr(s, '%')) != NULL; s++) {
		if (s[1] == 'u' || s[1] == 'U')
			need |= RULES_NEED_UID;
		if (s[1] == 'g' || s[1] == 'G')
			need |= RULES_NEED_GID;
	}
	return need;
}

/* Finish a parse: the set, or NULL after errors. */
static struct rules_set *
finish(struct parser *p, int rc)
{
	struct rules_set *set = p->set;

	free(p->members);
	if (rc < 0) {
		p->line = 0;
		report(p, RULES_ERROR, "%s", strerror(-rc));
	}
	if (p->errors > 0) {
		rules_free(set);
		return NULL;
	}
	for (size_t i = 0; i < set->n; i++) {
		set->need_ids |= ids_used(&set->rules[i]);
		/* "ignore" applies to tasks that are not realtime: needs it too */
		if (!set->rules[i].continuation && set->rules[i].options != 0)
			set->need_rt = set->need_cgroups = true;
		if (set->rules[i].process != NULL)
			set->need_process = true;
	}
	return set;
}

static void
init_parser(struct parser *p, const struct rules_options *opts, struct rules_set *set)
{
	*p = (struct parser){ .opts = opts,
			      .set = set,
			      .names = opts->names ? opts->names : &rules_nss_names };
}

struct rules_set *
rules_load(const struct rules_options *opts)
{
	struct rules_set *set = new_set(opts);
	struct parser p;
	int rc;

	if (set == NULL)
		return NULL;
	init_parser(&p, opts, set);
	rc = parse_file(&p, opts->file, false);
	if (rc == 0 && opts->dir != NULL && opts->dir[0] != '\0')
		rc = parse_dir(&p, opts->dir);
	return finish(&p, rc);
}

struct rules_set *
rules_parse_buffer(const char *name, const char *text, size_t len,
		   const struct rules_options *opts)
{
	struct rules_set *set = new_set(opts);
	struct parser p;
	int rc = 0;

	if (set == NULL)
		return NULL;
	init_parser(&p, opts, set);
	begin_file(&p, name);
	for (size_t off = 0; rc == 0 && off < len;) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) + 1 : len - off;

		p.line++;
		rc = parse_line(&p, text + off, n);
		off += n;
	}
	return finish(&p, rc);
}

void
rules_free(struct rules_set *set)
{
	if (set == NULL)
		return;
	index_free(set->index);
	arena_free(&set->strings);
	free(set->members);
	free(set->cursors);
	free(set->rules);
	free(set);
}

const uid_t *
rules_members(const struct rules_set *set, size_t *n)
{
	*n = set->nmembers;
	return set->members;
}

bool
rules_pattern(const struct rules_rule *r)
{
	return r->pmode == PMODE_PATTERN;
}
