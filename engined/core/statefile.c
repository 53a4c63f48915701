/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * statefile.c -- the boost state file (boosts and sticky processes);
 * see statefile.h.
 *
 * The parser works on a private copy of one line at a time, remembers
 * the ids it has seen in a hash set (so 100,000 boosts cost 100,000
 * look-ups, not 5 billion comparisons) and checks each member list for
 * duplicates by sorting a copy.  Every refusal names file and line.
 */
#include "core_private.h"
#include "statefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER_PREFIX "# cgengine boosts, format "
#define MAX_WORDS     (STATEFILE_MAX_MEMBERS + 8)

/* ---- checks shared by the parser and the writer ------------------------------ */

static bool
has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* What is wrong with a record's fields (not its member list), or NULL. */
static const char *
field_problem(const struct statefile_record *r, char *msg, size_t len)
{
	const char *why;

	if (r->id == 0 || r->id > STATEFILE_ID_MAX)
		snprintf(msg, len, "id %u out of range (1 to %u)", r->id,
			 STATEFILE_ID_MAX);
	else if (r->owner == (uid_t)-1)
		snprintf(msg, len, "owner uid %u is not a valid uid", (unsigned)r->owner);
	else if (strlen(r->hier) > STATEFILE_NAME_MAX || has_control(r->hier))
		snprintf(msg, len, "hierarchy name too long or with control characters");
	else if (r->profile != NULL &&
		 (r->profile[0] == '\0' || strlen(r->profile) > STATEFILE_NAME_MAX ||
		  has_control(r->profile)))
		snprintf(msg, len,
			 "profile name empty, too long or with control characters");
	else if (strpbrk(r->dest, " \t") != NULL || has_control(r->dest))
		snprintf(msg, len,
			 "destination must not contain blanks or control characters");
	else if ((why = rules_dest_problem(r->dest)) != NULL)
		snprintf(msg, len, "destination %s", why);
	else if (r->n == 0)
		snprintf(msg, len, "no member process");
	else if (r->n > STATEFILE_MAX_MEMBERS)
		snprintf(msg, len, "more than %u member processes",
			 STATEFILE_MAX_MEMBERS);
	else
		return NULL;
	return msg;
}

/* ---- the ids seen: id -> the line it was first on (the project's hash table) -- */

/* The line id was first seen on, or 0 if new (then it is added). */
static int
idset_add(struct map *ids, uint32_t id, unsigned line, unsigned *first)
{
	bool fresh;
	unsigned *at = map_insert(ids, id, NULL, NULL, &fresh);

	if (at == NULL)
		return -ENOMEM;
	*first = fresh ? 0 : *at;
	if (fresh)
		*at = line;
	return 0;
}

/* ---- parsing ------------------------------------------------------------------ */

struct parser {
	const struct statefile_parse_options *o;
	unsigned line;
	unsigned version;
	struct map ids; /* id -> first line */
	struct map sticky_pids; /* pid of a sticky line -> first line */
	unsigned nsticky;	/* sticky lines delivered */
	char *text;  /* the current line, NUL-terminated, split in place */
	char **word; /* its words: room for nwords */
	size_t nwords;
	char hier[STATEFILE_NAME_MAX + 1];
	char profile[STATEFILE_NAME_MAX + 1];
	char dest[RULES_DEST_MAX];
	struct statefile_member *m, *sorted;
	size_t mcap;
	int delivered;
	unsigned problems; /* lines refused */
};

static void
bad(struct parser *p, const char *fmt, ...) ATTR_PRINTF(2, 3);

static void
bad(struct parser *p, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (p->problems++ >= STATEFILE_MAX_MESSAGES)
		return; /* counted, and summed up at the end */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report_msg(p->o->rep, "%s:%u: %s", p->o->name, p->line, msg);
}

/* Decimal digits only, at most max; false otherwise. */
static bool
parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode a text field into out (size len): "-" is "", %XX a byte
 * (format 2).  false if malformed, too long or with a NUL byte. */
static bool
decode(const struct parser *p, const char *s, char *out, size_t len)
{
	size_t n = 0;

	if (strcmp(s, "-") == 0) {
		out[0] = '\0';
		return true;
	}
	for (; *s; s++) {
		int c = (unsigned char)*s;

		if (c == '%' && p->version >= 2) {
			int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);
			if (lo < 0 || (c = hi * 16 + lo) == 0)
				return false;
			s += 2;
		}
		if (n + 1 >= len)
			return false;
		out[n++] = (char)c;
	}
	out[n] = '\0';
	return true;
}

static int
cmp_pid(const void *a, const void *b)
{
	pid_t x = ((const struct statefile_member *)a)->pid;
	pid_t y = ((const struct statefile_member *)b)->pid;

	return (x > y) - (x < y);
}

/* One "pid:start" word into out; false if it is not one (w is left
 * as it was). */
static bool
parse_member(char *w, struct statefile_member *out)
{
	char *colon = strchr(w, ':');
	uint64_t pid, start;

	if (colon == NULL)
		return false;
	*colon = '\0';
	bool good = parse_u64(w, STATEFILE_PID_MAX, &pid) && pid != 0 &&
		    parse_u64(colon + 1, UINT64_MAX, &start);
	*colon = ':';
	if (good)
		*out = (struct statefile_member){ .pid = (pid_t)pid, .start = start };
	return good;
}

/* Parse the "pid:start" words into p->m; the count, -EINVAL after a
 * message, or -ENOMEM. */
static long
parse_members(struct parser *p, char **w, size_t nw)
{
	if (nw > STATEFILE_MAX_MEMBERS) {
		bad(p, "more than %u member processes", STATEFILE_MAX_MEMBERS);
		return -EINVAL;
	}
	if (nw > p->mcap) {
		size_t cap = nw < 64 ? 64 : nw;
		struct statefile_member *m = realloc(p->m, cap * sizeof(*m));
		struct statefile_member *s =
			m ? realloc(p->sorted, cap * sizeof(*s)) : NULL;
		if (m != NULL)
			p->m = m;
		if (s == NULL)
			return -ENOMEM;
		p->sorted = s;
		p->mcap = cap;
	}
	for (size_t i = 0; i < nw; i++)
		if (!parse_member(w[i], &p->m[i])) {
			bad(p, "member '%s' is not PID:START (PID 1 to %d)", w[i],
			    STATEFILE_PID_MAX);
			return -EINVAL;
		}
	memcpy(p->sorted, p->m, nw * sizeof(*p->m));
	qsort(p->sorted, nw, sizeof(*p->sorted), cmp_pid);
	for (size_t i = 1; i < nw; i++)
		if (p->sorted[i].pid == p->sorted[i - 1].pid) {
			bad(p, "pid %d listed twice", (int)p->sorted[i].pid);
			return -EINVAL;
		}
	return (long)nw;
}

/* Split p->text into blank-separated words; the count (at most max). */
static size_t
split(char *s, char **w, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *t = strtok_r(s, " \t", &save); t && n < max;
	     t = strtok_r(NULL, " \t", &save))
		w[n++] = t;
	return n;
}

/* The numbers and names of a "boost" line into r; false after a message. */
static bool
parse_fields(struct parser *p, char **w, struct statefile_record *r)
{
	const struct statefile_parse_options *o = p->o;
	uint64_t id, owner, expires;
	char msg[256];

	if (!parse_u64(w[1], STATEFILE_ID_MAX, &id) || id == 0) {
		bad(p, "boost id '%s' out of range (1 to %u)", w[1], STATEFILE_ID_MAX);
		return false;
	}
	r->id = (unsigned)id;
	if (!parse_u64(w[2], (uid_t)-1 - 1, &owner) ||
	    !parse_u64(w[3], INT64_MAX, &expires)) {
		bad(p, "boost #%u: owner '%s' or expiry '%s' is not a valid number",
		    r->id, w[2], w[3]);
		return false;
	}
	r->owner = (uid_t)owner;
	r->expires = (int64_t)expires;
	if (r->expires > o->now + (int64_t)o->max_seconds) {
		bad(p, "boost #%u: expiry %lld is more than %lds from now", r->id,
		    (long long)r->expires, o->max_seconds);
		return false;
	}
	if (!decode(p, w[4], p->hier, sizeof(p->hier)) ||
	    !decode(p, w[5], p->dest, sizeof(p->dest)) ||
	    !decode(p, w[6], p->profile, sizeof(p->profile))) {
		bad(p,
		    "boost #%u: malformed or too long hierarchy, destination or profile",
		    r->id);
		return false;
	}
	r->hier = p->hier;
	r->dest = p->dest;
	r->profile = p->profile[0] != '\0' ? p->profile : NULL;
	r->n = 1; /* members are checked separately */
	if (field_problem(r, msg, sizeof(msg)) != NULL) {
		bad(p, "boost #%u: %s", r->id, msg);
		return false;
	}
	return true;
}

/* One "boost" line (already split); 0, or a negative value to stop. */
static int
boost_line(struct parser *p, char **w, size_t nw)
{
	struct statefile_record r = { .line = p->line };
	unsigned first;

	if (nw < 8) {
		bad(p, "a boost needs ID OWNER EXPIRES HIERARCHY DESTINATION PROFILE "
		       "and at least one PID:START");
		return 0;
	}
	if (!parse_fields(p, w, &r))
		return 0;
	long n = parse_members(p, w + 7, nw - 7);
	if (n == -ENOMEM)
		return -ENOMEM;
	if (n < 0)
		return 0;
	r.m = p->m;
	r.n = (size_t)n;
	if (idset_add(&p->ids, r.id, p->line, &first) < 0)
		return -ENOMEM;
	if (first != 0) {
		bad(p, "boost #%u listed again (first on line %u); ignored", r.id, first);
		return 0;
	}
	int rc = p->o->record ? p->o->record(p->o->arg, &r) : 0;
	if (rc < 0)
		return rc;
	p->delivered++;
	return 0;
}

/* The flags word of a sticky line ("-", "children", "root",
 * "children,root"); false if it is not one. */
static bool
parse_sticky_flags(char *w, unsigned *flags)
{
	char *save = NULL;

	*flags = 0;
	if (strcmp(w, "-") == 0)
		return true;
	if (w[0] == ',' || w[strlen(w) - 1] == ',' || strstr(w, ",,") != NULL)
		return false;
	for (char *f = strtok_r(w, ",", &save); f != NULL; f = strtok_r(NULL, ",", &save)) {
		unsigned bit = strcmp(f, "children") == 0 ? STATEFILE_STICKY_CHILDREN
			       : strcmp(f, "root") == 0	  ? STATEFILE_STICKY_ROOT
							  : 0;
		if (bit == 0 || (*flags & bit))
			return false;
		*flags |= bit;
	}
	return true;
}

/* One "sticky" line (already split); 0, or a negative value to stop. */
static int
sticky_line(struct parser *p, char **w, size_t nw)
{
	struct statefile_sticky st = { .line = p->line };
	unsigned first;

	if (nw != 3) {
		bad(p, "a sticky process needs PID:START and FLAGS");
		return 0;
	}
	if (!parse_member(w[1], &st.who)) {
		bad(p, "sticky process '%s' is not PID:START (PID 1 to %d)", w[1],
		    STATEFILE_PID_MAX);
		return 0;
	}
	char word[64];
	snprintf(word, sizeof(word), "%s", w[2]);
	if (!parse_sticky_flags(w[2], &st.flags)) {
		bad(p, "sticky pid %d: flags '%s' are not -, children, root or children,root",
		    (int)st.who.pid, word);
		return 0;
	}
	if (p->nsticky >= STATEFILE_MAX_STICKY) {
		bad(p, "more than %u sticky processes; ignored", STATEFILE_MAX_STICKY);
		return 0;
	}
	if (idset_add(&p->sticky_pids, (uint32_t)st.who.pid, p->line, &first) < 0)
		return -ENOMEM;
	if (first != 0) {
		bad(p, "sticky pid %d listed again (first on line %u); ignored",
		    (int)st.who.pid, first);
		return 0;
	}
	int rc = p->o->sticky ? p->o->sticky(p->o->arg, &st) : 0;
	if (rc < 0)
		return rc;
	p->nsticky++;
	p->delivered++;
	return 0;
}

/* A comment: the header sets the format.  false to stop reading. */
static bool
comment_line(struct parser *p, const char *s)
{
	uint64_t v;

	if (strncmp(s, HEADER_PREFIX, strlen(HEADER_PREFIX)) != 0)
		return true;
	if (!parse_u64(s + strlen(HEADER_PREFIX), 1000, &v) || v < 1 ||
	    v > STATEFILE_FORMAT) {
		bad(p, "unsupported state file format '%s'; nothing restored",
		    s + strlen(HEADER_PREFIX));
		return false;
	}
	p->version = (unsigned)v;
	return true;
}

/* One complete line of len bytes (no newline); negative to stop. */
static int
one_line(struct parser *p, const char *s, size_t len)
{
	char **w = p->word;

	if (len > STATEFILE_MAX_LINE) {
		bad(p, "line longer than %u bytes; ignored", STATEFILE_MAX_LINE);
		return 0;
	}
	memcpy(p->text, s, len);
	p->text[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f) {
			bad(p, "control character or NUL byte; line ignored");
			return 0;
		}
	if (p->text[0] == '#')
		return comment_line(p, p->text) ? 0 : -ECANCELED;
	size_t nw = split(p->text, w, p->nwords);
	if (nw == 0)
		return 0;
	if (strcmp(w[0], "sticky") == 0 && p->version >= 3)
		return sticky_line(p, w, nw);
	if (strcmp(w[0], "boost") != 0) {
		bad(p, "unknown record '%.40s'; ignored", w[0]);
		return 0;
	}
	if (p->delivered - (int)p->nsticky >= (int)STATEFILE_MAX_RECORDS) {
		bad(p, "more than %u boosts; the rest is ignored", STATEFILE_MAX_RECORDS);
		return -ECANCELED;
	}
	return boost_line(p, w, nw);
}

int
statefile_parse(const char *buf, size_t len, const struct statefile_parse_options *o)
{
	struct parser p = { .o = o, .version = 1 };

	map_init(&p.ids, sizeof(unsigned));
	map_init(&p.sticky_pids, sizeof(unsigned));
	size_t off = 0;
	int rc = 0;

	/* a line is at most the whole buffer, and has at most len/2+1 words */
	size_t longest = len < STATEFILE_MAX_LINE ? len : STATEFILE_MAX_LINE;
	p.nwords = longest / 2 + 1 < MAX_WORDS ? longest / 2 + 1 : MAX_WORDS;
	p.text = malloc(longest + 1);
	p.word = malloc(p.nwords * sizeof(*p.word));
	if (p.text == NULL || p.word == NULL)
		rc = -ENOMEM;
	while (off < len && rc >= 0) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;

		p.line++;
		if (nl == NULL)
			bad(&p, "incomplete last line (truncated file?); ignored");
		else
			rc = one_line(&p, buf + off, n);
		off += n + 1;
	}
	if (p.problems > STATEFILE_MAX_MESSAGES)
		report_msg(o->rep, "%s: %u more problems not listed", o->name,
			   p.problems - STATEFILE_MAX_MESSAGES);
	free(p.text);
	free(p.word);
	free(p.m);
	free(p.sorted);
	map_free(&p.ids);
	map_free(&p.sticky_pids);
	if (rc == -ECANCELED)
		rc = 0;
	return rc < 0 ? rc : p.delivered;
}

/* ---- writing ------------------------------------------------------------------ */

/* " " then s encoded: "-" for empty/NULL, %XX for blanks, controls, '%'. */
static void
out_field(struct strbuf *o, const char *s)
{
	strbuf_add(o, " ", 1);
	if (s == NULL || s[0] == '\0') {
		strbuf_add(o, "-", 1);
		return;
	}
	if (strcmp(s, "-") == 0) {
		strbuf_add(o, "%2D", 3);
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c == 0x7f || c == '%')
			strbuf_printf(o, "%%%02X", c);
		else
			strbuf_add(o, s, 1);
	}
}

/* Why the parser would refuse r's members, or NULL. */
static const char *
member_problem(const struct statefile_record *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->m[i].pid <= 0 || r->m[i].pid > STATEFILE_PID_MAX)
			return "a member pid is out of range";
	return NULL;
}

/* The sticky processes src gives, as "sticky" lines into o. */
static void
format_sticky(struct strbuf *o, const struct statefile_source *src, const char *name,
	      const struct report *rep)
{
	const struct statefile_sticky *st;
	unsigned n = 0, over = 0;

	while ((st = src->sticky(src->arg)) != NULL) {
		if (st->who.pid <= 0 || st->who.pid > STATEFILE_PID_MAX ||
		    (st->flags & ~STATEFILE_STICKY_FLAGS) != 0) {
			report_msg(rep, "%s: sticky pid %d not saved: pid or flags out of range",
				   name, (int)st->who.pid);
			continue;
		}
		if (n >= STATEFILE_MAX_STICKY) {
			over++;
			continue;
		}
		n++;
		strbuf_printf(o, "sticky %d:%llu %s\n", (int)st->who.pid,
			      (unsigned long long)st->who.start,
			      st->flags == 0				? "-"
			      : st->flags == STATEFILE_STICKY_CHILDREN ? "children"
			      : st->flags == STATEFILE_STICKY_ROOT	? "root"
									: "children,root");
	}
	if (over > 0)
		report_msg(rep, "%s: %u sticky processes beyond %u not saved", name, over,
			   STATEFILE_MAX_STICKY);
}

int
statefile_format(const struct statefile_source *src, const char *name,
		 const struct report *rep, char **buf, size_t *buflen)
{
	struct strbuf o = { 0 };
	const struct statefile_record *r;
	char msg[256];

	strbuf_printf(&o, HEADER_PREFIX "%d\n", STATEFILE_FORMAT);
	while ((r = src->boost(src->arg)) != NULL) {
		const char *why = field_problem(r, msg, sizeof(msg));

		if (why == NULL)
			why = member_problem(r);
		if (why != NULL) {
			report_msg(rep, "%s: boost #%u not saved: %s", name, r->id, why);
			continue;
		}
		strbuf_printf(&o, "boost %u %u %lld", r->id, (unsigned)r->owner,
			   (long long)r->expires);
		out_field(&o, r->hier);
		out_field(&o, r->dest);
		out_field(&o, r->profile);
		for (size_t i = 0; i < r->n; i++)
			strbuf_printf(&o, " %d:%llu", (int)r->m[i].pid,
				   (unsigned long long)r->m[i].start);
		strbuf_add(&o, "\n", 1);
	}
	if (src->sticky != NULL)
		format_sticky(&o, src, name, rep);
	if (o.failed) {
		free(o.p);
		return -ENOMEM;
	}
	*buf = o.p;
	*buflen = o.len;
	return 0;
}

/* ---- files -------------------------------------------------------------------- */

/* Is the open file fd one we may trust?  0, or -errno after a message. */
static int
check_file(int fd, const char *path, const struct report *rep)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		report_msg(rep, "%s: cannot read the boost state: %s", path,
			   strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		report_msg(rep, "%s: not a regular file; boosts not restored", path);
		return -EINVAL;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		report_msg(
			rep,
			"%s: owned by uid %u or writable by others; boosts not restored",
			path, (unsigned)st.st_uid);
		return -EPERM;
	}
	if (st.st_size > (off_t)STATEFILE_MAX_BYTES) {
		report_msg(rep, "%s: larger than %u bytes; boosts not restored", path,
			   STATEFILE_MAX_BYTES);
		return -EFBIG;
	}
	return 0;
}

int
statefile_read(const char *path, const struct report *rep, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	int rc;

	if (fd < 0) {
		rc = -errno;
		if (rc == -ELOOP)
			report_msg(rep, "%s: a symbolic link; boosts not restored", path);
		else if (rc != -ENOENT)
			report_msg(rep, "%s: cannot read the boost state: %s", path,
				   strerror(-rc));
		return rc;
	}
	char *p = NULL;
	size_t n = 0;
	if ((rc = check_file(fd, path, rep)) < 0)
		goto out;
	/* the size may change under us: read at most the limit, plus one */
	if ((p = malloc(STATEFILE_MAX_BYTES + 1)) == NULL) {
		rc = -ENOMEM;
		report_msg(rep, "%s: out of memory", path);
		goto out;
	}
	for (;;) {
		ssize_t got = read(fd, p + n, STATEFILE_MAX_BYTES + 1 - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = -errno;
			report_msg(rep, "%s: cannot read the boost state: %s", path,
				   strerror(errno));
			goto out;
		}
		n += (size_t)got;
		if (got == 0 || n > STATEFILE_MAX_BYTES)
			break;
	}
	if (n > STATEFILE_MAX_BYTES) {
		rc = -EFBIG;
		report_msg(rep, "%s: larger than %u bytes; boosts not restored", path,
			   STATEFILE_MAX_BYTES);
		goto out;
	}
	char *small = realloc(p, n + 1);
	*buf = small ? small : p;
	*len = n;
	p = NULL;
out:
	free(p);
	close(fd);
	return rc;
}

/* Write all of buf to fd; 0 or -errno. */
static int
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* fsync the directory holding path, so the rename lasts; 0 or -errno. */
static int
sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash == NULL   ? strdup(".")
		    : slash == path ? strdup("/")
				    : strndup(path, (size_t)(slash - path));
	int fd, rc = 0;

	if (dir == NULL)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

/* Write buf to a fresh tmp (fsync'd when durable) and rename it over
 * path; 0 or -errno. */
static int
replace_file(const char *path, const char *tmp, const char *buf, size_t len, bool durable)
{
	int rc = 0;

	/* a left-over tmp, perhaps a symbolic link someone planted: unlink
	 * removes the link itself, and O_EXCL|O_NOFOLLOW refuses anything
	 * that appears again before open */
	if (unlink(tmp) < 0 && errno != ENOENT)
		return -errno;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = write_all(fd, buf, len);
	if (rc == 0 && durable && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
}

int
statefile_save(const char *path, const struct statefile_source *src,
	       const struct report *rep, bool durable)
{
	size_t plen = strlen(path), len = 0;
	char *tmp = malloc(plen + sizeof(".tmp")), *buf = NULL;
	int rc;

	if (tmp == NULL || statefile_format(src, path, rep, &buf, &len) < 0) {
		rc = -ENOMEM;
	} else {
		memcpy(tmp, path, plen);
		memcpy(tmp + plen, ".tmp", sizeof(".tmp"));
		rc = replace_file(path, tmp, buf, len, durable);
		if (rc == 0 && durable)
			(void)sync_dir(path); /* best effort: some file systems refuse */
	}
	if (rc < 0)
		report_msg(rep, "%s: cannot write the boost state: %s", path,
			   strerror(-rc));
	free(tmp);
	free(buf);
	return rc;
}
