/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rules_private.h -- shared between the files of rules/ only.
 */
#ifndef CGENGINE_RULES_PRIVATE_H
#define CGENGINE_RULES_PRIVATE_H

#include "rules.h"

/* How a rule's process field is matched (rules_rule.pmode). */
enum {
	PMODE_NONE,    /* no process field */
	PMODE_NAME,    /* exact name: basename of exe/script, or comm */
	PMODE_PATH,    /* exact full path of exe or script */
	PMODE_PATTERN, /* glob over names or paths */
};

/* Index key kinds: key kind x process mode. */
enum {
	IDX_GENERAL, /* no process field, or a pattern */
	IDX_NAME,
	IDX_PATH,
};

/* A bump allocator: strings live as long as the rule set. */
struct arena {
	struct arena_chunk *head;
};

char *arena_strdup(struct arena *a, const char *s);
void arena_free(struct arena *a);

/* Sorted list of rule numbers: n of them, in u.v (malloc'd for cap) or,
 * while there is only one (cap 0), in u.one -- as under most keys of a
 * large rules file, which so take no allocation of their own. */
struct rule_list {
	union {
		uint32_t *v;
		uint32_t one;
	} u;
	uint32_t n, cap;
};

/* Rule number i of l (i < l->n). */
static inline uint32_t
rule_list_at(const struct rule_list *l, uint32_t i)
{
	return l->cap == 0 ? l->u.one : l->u.v[i];
}

struct rules_index;
struct rules_index *index_new(void);
void index_free(struct rules_index *ix);
/* Append rule number r under (kind, pmode, id, name); 0 or -ENOMEM. */
int index_add(struct rules_index *ix, int kind, int pmode, uint32_t id, const char *name,
	      uint32_t r);
const struct rule_list *index_get(const struct rules_index *ix, int kind, int pmode,
				  uint32_t id, const char *name);

/* A position in one candidate list while merging (match.c). */
struct cursor {
	const struct rule_list *list;
	uint32_t pos;
};

struct rules_set {
	struct rules_rule *rules;
	size_t n, cap;
	struct cursor *cursors; /* rules_match's scratch, grown on demand */
	size_t ncursors;
	struct arena strings;
	struct rules_index *index;
	enum rules_semantics semantics;
	size_t nhiers;
	uint64_t named; /* union of bound rule masks */
	bool need_rt;
	bool need_process; /* a rule has a process field: match by names */
	bool need_pname;   /* a destination expands %p: the process's name */
	bool need_cgroups; /* an ignore rule: matching reads task.cgroups */
	unsigned need_ids; /* RULES_NEED_* */
	uid_t *members;	   /* the listed members of every @group rule (rules_members) */
	size_t nmembers, capmembers;
	unsigned char key[SIPHASH_KEY_LEN]; /* template values' hash key (options) */
};

/*
 * Glob match of a process field against a task (pattern or exact), by
 * the names the semantics compares (see struct rules_task).
 */
bool process_matches(const struct rules_rule *r, const struct rules_task *t,
		     enum rules_semantics sem);
/*
 * Most cursors rules_match keeps (default: no limit but memory); past
 * it the merge goes on without cursors.  Tests lower it to run that
 * path.
 */
extern size_t match_cursor_limit;

/* Pointer to the last path component of p. */
const char *base_name(const char *p);

#endif
