/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prio.h -- per-process priorities as a class names them: nice, I/O
 * class and level, scheduling policy and realtime priority,
 * oom_score_adj and latency_nice.
 *
 * Pure, like the rest of rules/: words in, values out.  Who reads and
 * writes a process's priorities is kernel/ (kernel/prio.c); which ones
 * a process should have is the core's decision.
 *
 *   prio_parse_item(&p, "nice=-5", err, len);   one item of `process =`
 *   prio_set(&p, "ionice", "4", err, len);      one field by key and value
 *   prio_check(&p, err, len);                   fields that contradict
 *   prio_merge(&dst, &src);                     src fills what dst lacks
 *   prio_plan(&want, &cur, &todo);              what to write, and only that
 *   prio_format(&p, buf, len);                  "nice=-5 ioclass=idle"
 */
#ifndef CGENGINE_PRIO_H
#define CGENGINE_PRIO_H

#include <stdbool.h>
#include <stddef.h>

#include "util/attr.h"

/* Which fields a struct prio names (bits of prio.set). */
enum prio_field {
	PRIO_NICE = 1u << 0,	/* -20..19, setpriority per thread */
	PRIO_IOCLASS = 1u << 1, /* enum prio_ioclass, ioprio_set per thread */
	PRIO_IONICE = 1u << 2,	/* 0..7, the level within the I/O class */
	PRIO_SCHED = 1u << 3,	/* enum prio_sched, per thread */
	PRIO_RTPRIO = 1u << 4,	/* 1..99, with PRIO_SCHED_FIFO or _RR */
	PRIO_OOM = 1u << 5,	/* oom_score_adj -1000..1000, per process */
	PRIO_LATENCY = 1u << 6, /* latency_nice -20..19, where the kernel has it */
};
#define PRIO_NFIELDS 7
#define PRIO_ALL     ((1u << PRIO_NFIELDS) - 1)

/* I/O classes, numbered as the kernel's IOPRIO_CLASS_*. */
enum prio_ioclass {
	PRIO_IO_NONE = 0,
	PRIO_IO_REALTIME = 1,
	PRIO_IO_BEST_EFFORT = 2,
	PRIO_IO_IDLE = 3,
};

/* Scheduling policies, numbered as the kernel's SCHED_*. */
enum prio_sched {
	PRIO_SCHED_NORMAL = 0, /* SCHED_OTHER */
	PRIO_SCHED_FIFO = 1,
	PRIO_SCHED_RR = 2,
	PRIO_SCHED_BATCH = 3,
	PRIO_SCHED_IDLE = 5,
};

/*
 * Priorities; a field counts only when its bit is in set.  A zeroed
 * struct prio names nothing.
 */
struct prio {
	unsigned int set; /* enum prio_field bits */
	int nice, ioclass, ionice, sched, rtprio, oom_score_adj, latency_nice;
};

/* Longest prio_format() result, NUL included. */
#define PRIO_FORMAT_MAX 160

/*
 * One item of a `process =` list: "key=value" with key nice, ioclass,
 * ionice, sched, rtprio, oom_score_adj or latency_nice; values as
 * prio_set() takes them.  0, or -EINVAL with a message in err (len
 * bytes) that names the item, e.g. "nice=-50: nice must be between -20
 * and 19".  On error *p is unchanged.
 */
int prio_parse_item(struct prio *p, const char *item, char *err, size_t len) ATTR_WUR;

/*
 * One field by key and value: numbers in decimal (nice, ionice,
 * rtprio, oom_score_adj, latency_nice), ioclass none|realtime|
 * best-effort|idle, sched normal|batch|idle|fifo|rr.  0, or -EINVAL
 * with a message in err naming "key=value"; *p unchanged on error.
 * Setting a field twice keeps the last value.
 */
int prio_set(struct prio *p, const char *key, const char *value, char *err,
	     size_t len) ATTR_WUR;

/*
 * Fields of one struct prio that contradict each other: rtprio with
 * sched normal, batch or idle; ionice with ioclass none.  0, or
 * -EINVAL with a message in err.
 */
int prio_check(const struct prio *p, char *err, size_t len) ATTR_WUR;

/* Fills the fields dst does not name from src (dst wins). */
void prio_merge(struct prio *dst, const struct prio *src);

/*
 * What to write to a thread that has the priorities cur (every field
 * named, as kernel/ reads them) so that it has those of want: *todo
 * names the fields to write, with their values.  Fields that belong
 * together are written together and named together: ioclass with
 * ionice (one ioprio), sched with rtprio (one policy).  How a field
 * want does not name is filled in:
 *   ioclass alone keeps the current level in realtime and best-effort
 *     (4 when the thread had neither), level 0 for idle and none;
 *   ionice alone keeps the current class if it is realtime or
 *     best-effort, otherwise best-effort (as ionice(1) -n);
 *   sched fifo or rr alone keeps the current rtprio, or 1;
 *   sched normal, batch or idle has rtprio 0;
 *   rtprio alone changes only a thread that is fifo or rr already.
 * Returns true when there is anything to write.
 */
bool prio_plan(const struct prio *want, const struct prio *cur, struct prio *todo);

/*
 * "nice=-5 ioclass=best-effort ionice=4 ..." in the order of enum
 * prio_field, the fields p names; "" for none.  0, or -ENOSPC (buf cut).
 */
int prio_format(const struct prio *p, char *buf, size_t len) ATTR_WUR;

/* The value of one field p names, as prio_format writes it ("-5",
 * "best-effort") into buf; 0, -ENOENT (p does not name it, or field is
 * not one bit) or -ENOSPC. */
int prio_value(const struct prio *p, unsigned int field, char *buf, size_t len) ATTR_WUR;

/* The word for one value ("best-effort", "fifo"), or NULL if unknown. */
const char *prio_ioclass_name(int ioclass);
const char *prio_sched_name(int sched);
/* The key of one field ("nice", "oom_score_adj"), NULL if not one bit. */
const char *prio_field_name(unsigned int field);

#endif
