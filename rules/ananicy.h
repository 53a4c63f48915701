/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy.h -- ananicy-cpp's configuration read as it is: every
 * *.types, *.cgroups and *.rules file below a directory, one JSON object
 * per line.  Pure like the rest of rules/: it reads files and does no
 * other I/O.
 *
 * What a line is depends on its fields, not on its file's name (as in
 * ananicy-cpp): an object with a string "name" is a rule, else one with
 * a string "type" is a type, else one with a string "cgroup" is a
 * cgroup.  Blank lines and lines whose first non-blank is '#' are
 * comments; the object runs from the line's first '{' to its closing
 * '}' and anything after it is ignored.  A line that is not such an
 * object, or whose fields have the wrong kind or range, is reported as
 * "file:line: message" and skipped; the rest loads.  A later rule, type
 * or cgroup of the same name replaces the earlier one (files are read
 * in sorted order, depth first).
 *
 * Life cycle:
 *   s = ananicy_new();
 *   ananicy_add_dir(s, "/etc/ananicy.d", report, arg);   (or _add_buffer)
 *   ananicy_resolve(s, name, &values, &rule);            per process
 *   ananicy_free(s);
 */
#ifndef CGENGINE_ANANICY_H
#define CGENGINE_ANANICY_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/rules.h"

/* Which fields a value set names (the same order as struct prio's). */
#define ANANICY_NICE	0x01u /* nice -20..19 */
#define ANANICY_IOCLASS 0x02u /* ioclass: IOPRIO_CLASS_NONE/RT/BE/IDLE (0..3) */
#define ANANICY_IONICE	0x04u /* ionice 0..7 */
#define ANANICY_SCHED	0x08u /* sched: SCHED_OTHER/FIFO/RR/BATCH/IDLE */
#define ANANICY_RTPRIO	0x10u /* rtprio 1..99 */
#define ANANICY_OOM	0x20u /* oom_score_adj -1000..1000 */
#define ANANICY_LATENCY 0x40u /* latency_nice -20..19 */
#define ANANICY_CGROUP	0x80u /* cgroup: a name of a cgroup line */

/* I/O classes as ioprio_set(2) numbers them. */
#define ANANICY_IOCLASS_NONE 0
#define ANANICY_IOCLASS_RT   1
#define ANANICY_IOCLASS_BE   2
#define ANANICY_IOCLASS_IDLE 3

/* The priorities a rule or type names. */
struct ananicy_values {
	unsigned set; /* ANANICY_* bits */
	int nice, ioclass, ionice, sched, rtprio, oom_score_adj, latency_nice;
	const char *cgroup; /* with ANANICY_CGROUP; owned by the set */
};

enum ananicy_kind {
	ANANICY_RULE,	 /* { "name": ... } */
	ANANICY_TYPE,	 /* { "type": ... } */
	ANANICY_CGROUPS, /* { "cgroup": ..., "CPUQuota": ... } */
};

/* One line as read; owned by its set. */
struct ananicy_entry {
	enum ananicy_kind kind;
	const char *key;  /* the name, type or cgroup it defines */
	const char *type; /* a rule's "type", or NULL */
	const char *file; /* the file it came from */
	unsigned line;	  /* 1-based */
	int cpuquota;	  /* a cgroup's CPUQuota (percent of all CPUs), 0 = none */
	struct ananicy_values v;
};

/* Called once per problem with "file:line: message" (a warning reads
 * "file:line: warning: message"); may be NULL. */
typedef void ananicy_report_fn(void *arg, enum rules_severity sev, const char *msg);

/* A new, empty set (free with ananicy_free); NULL when out of memory. */
struct ananicy_set *ananicy_new(void) ATTR_WUR;
void ananicy_free(struct ananicy_set *s);

/*
 * Read every *.types, *.cgroups and *.rules file below dir, recursively
 * (symbolic links to files are read, to directories not).  Malformed
 * lines are reported and skipped.  0, or -errno when dir (or a file or
 * directory below it) cannot be read -- reported too -- or -ENOMEM.
 */
int ananicy_add_dir(struct ananicy_set *s, const char *dir, ananicy_report_fn *report,
		    void *arg) ATTR_WUR;
/* The lines of text[len], as file name; 0 or -ENOMEM. */
int ananicy_add_buffer(struct ananicy_set *s, const char *name, const char *text, size_t len,
		       ananicy_report_fn *report, void *arg) ATTR_WUR;

/*
 * After loading: warn (and count) rules naming a type, and rules or
 * types naming a cgroup, that no line defines.
 */
void ananicy_check(struct ananicy_set *s, ananicy_report_fn *report, void *arg);

struct ananicy_counts {
	size_t rules, types, cgroups; /* distinct names of each kind */
	size_t malformed;	      /* lines reported and skipped */
	size_t warnings;	      /* lines loaded with a warning */
	size_t files;		      /* files read */
};
void ananicy_counts(const struct ananicy_set *s, struct ananicy_counts *out);

/* The entry of that kind and name, or NULL. */
const struct ananicy_entry *ananicy_find(const struct ananicy_set *s, enum ananicy_kind kind,
					 const char *key);
/* fn(arg, e) for each entry of a kind, in no particular order. */
void ananicy_each(const struct ananicy_set *s, enum ananicy_kind kind,
		  void (*fn)(void *arg, const struct ananicy_entry *e), void *arg);

/*
 * What ananicy-cpp applies to a process named name: the rule's fields
 * over its type's, then ananicy-cpp's own completions -- ioclass without
 * ionice means level 0, ionice without ioclass sets nothing,
 * latency_nice follows nice when not named, fifo and rr without rtprio
 * mean rtprio 1.  Fills *out and *rule (may be NULL) and returns true,
 * or false when no rule names name.
 */
bool ananicy_resolve(const struct ananicy_set *s, const char *name, struct ananicy_values *out,
		     const struct ananicy_entry **rule);

/*
 * The name ananicy-cpp matches a process by: the last '/'-separated
 * part of argv[0] (a name ending in ".exe" also splits at '\', so that
 * Wine's "C:\Games\Hogwarts Legacy.exe" is "Hogwarts Legacy.exe"), or
 * when argv[0] is empty or NULL that of exe (without the kernel's
 * " (deleted)"), or comm.  Into buf[len] (cut if need be); returns buf.
 * Pure.
 */
const char *ananicy_name(const char *argv0, const char *exe, const char *comm, char *buf,
			 size_t len);

/*
 * A cgroup line's CPUQuota, percent of all ncpu CPUs as in ananicy-cpp
 * (80 on 4 CPUs is 3.2 CPUs), as a CFS quota per period: *period_us
 * 100000 (100 ms) and *quota_us percent * ncpu * 1000, at least 1000
 * (the kernel's least).  0, or -EINVAL for a percent outside 1..100 or
 * ncpu < 1.  Pure.
 */
int ananicy_cpu_quota(int percent, long ncpu, long long *quota_us, long *period_us) ATTR_WUR;

/*
 * Where ananicy's rules put a process named name in the hierarchy of
 * ananicy-cgroup-hierarchy: placed says cgrules.conf (or anything before
 * ananicy) placed it there already -- then nowhere, the admin decides
 * first.  Else the rule's cgroup (its own or its type's), when a cgroup
 * line defines it and it is one plain name (not "." or "..", no '/'):
 * "/NAME" into dest[len], the rule into *rule, true.  Pure.
 */
bool ananicy_cgroup_for(const struct ananicy_set *s, const char *name, bool placed,
			char *dest, size_t len, const struct ananicy_entry **rule);

/* "nice=-5 ioclass=best-effort ..." for explain and --check, into
 * buf[len]; the length it needed (as snprintf). */
int ananicy_format(const struct ananicy_values *v, char *buf, size_t len);

/* ---- ananicy_class.c: types as classes of cgroup v2 (ananicy-type-hierarchy) -- */

/*
 * The cpu.weight of a group whose weight is that of one task of nice
 * -20..19: the kernel's load weight of that nice (sched_prio_to_weight)
 * times 100 / 1024, rounded to the closest and kept in 1..10000, as the
 * kernel itself shows it in cpu.weight (nice 0 is 100, -5 is 305, 19 is
 * 1).  -EINVAL for a nice out of range.  Pure.
 */
int ananicy_cpu_weight(int nice);

/*
 * The io.weight of an I/O class and level 0..7 (ANANICY_IOCLASS_*):
 * best-effort (8 - level) * 25 (level 4, the kernel's default, is
 * io.weight's default 100; 0 is 200, 7 is 25), realtime (8 - level) *
 * 1250 (10000 .. 1250, above every best-effort level), idle 1.
 * -EINVAL for none or a level out of range.  Pure.
 */
int ananicy_io_weight(int ioclass, int level);

/* What the class of a type writes; 0: not written (the kernel's 100). */
struct ananicy_class {
	int cpu_weight; /* from the type's nice */
	int io_weight;	/* from its I/O class and level */
};

/*
 * The class of a type (its own fields, as a type line gives them):
 * cpu.weight from its nice; io.weight from its I/O class and level --
 * a class without "ionice" at level 0, as ananicy-cpp applies it; no
 * class or "none" as the kernel derives one from the processes' policy
 * and nice (sched idle: idle; fifo or rr: realtime; else best-effort,
 * at level (nice + 20) / 5).  Pure.
 */
void ananicy_class_plan(const struct ananicy_values *type, struct ananicy_class *out);

/* Is name one plain path segment (not "", ".", "..", no '/' or
 * newline), so that a group may be named by it? */
bool ananicy_class_name_ok(const char *name);

/*
 * The class ananicy's rules put a process named name in: placed says
 * something before ananicy (cgrules.conf, the Lua hook) placed it in
 * that hierarchy -- then none.  Else the group "/TYPE" of its rule's
 * type, when a type line defines it and its name is a plain segment:
 * into dest[len], the rule and the type into *rule and *type, true.
 * Pure.
 */
bool ananicy_class_for(const struct ananicy_set *s, const char *name, bool placed,
		       char *dest, size_t len, const struct ananicy_entry **rule,
		       const struct ananicy_entry **type);

#endif
