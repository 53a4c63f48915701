/*
 * engined_private.h -- small helpers shared inside engined/.
 */
#ifndef CGENGINE_ENGINED_PRIVATE_H
#define CGENGINE_ENGINED_PRIVATE_H

#include "engined.h"

/* names.c: id -> name caches for the %u and %g templates */
struct name_table {
	struct name_entry *v;
	size_t cap, n;
};

const char *names_user(struct name_table *t, uid_t uid);
const char *names_group(struct name_table *t, gid_t gid);
void names_clear(struct name_table *t);

/* pidfile.c */
int pidfile_write(const char *path) ENGINED_WUR;
void pidfile_remove(const char *path);

#endif
