/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * paths.c -- the binaries a rule set names by full path (the exec gate
 * marks those).
 */
#include "rules_private.h"

void
rules_paths(const struct rules_set *set, void (*fn)(void *arg, const char *path),
	    void *arg)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct rules_rule *r = &set->rules[i];
		const struct rules_rule *head = &set->rules[r->head];

		/* a path without wildcards, deciding some bound hierarchy;
		 * an ignore rule never moves anything */
		if (r->pmode != PMODE_PATH || r->process[0] != '/' || r->mask == 0 ||
		    head->options != 0)
			continue;
		if (r->continuation && head->pmode == PMODE_PATH && head->mask != 0)
			continue; /* its head said it already */
		fn(arg, r->process);
	}
}
