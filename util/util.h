/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h -- small helpers every module may use; none knows cgroups,
 * rules or the daemon.
 *
 *   str_     bounded string copies and digits (inline here), comma lists (str.c)
 *   strv_    arrays of strings (str.c)
 *   array_room  room in a growable array (inline here)
 *   strbuf_  one growable printf buffer (strbuf.c)
 *   map_     the project's one hash table (map.c)
 *   nss_     the one wrapper around the passwd and group databases (nss.c)
 *   backoff_ the one exponential back-off (backoff.c)
 *   ratelimit_  the one per-user rate limiter (ratelimit.c)
 *   siphash24   a keyed hash (siphash.c); secret_file  a key kept on disk (file.c)
 *   mkdir_parents  directories above a file (file.c)
 *   mono_    the monotonic clock, in nanoseconds or seconds (inline here)
 *   dlib_    a shared library opened at its first use (dlib.c)
 *
 * Functions return 0 or -errno unless they say otherwise.
 */
#ifndef CGENGINE_UTIL_H
#define CGENGINE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "util/attr.h"

/* ---- the monotonic clock ------------------------------------------------ */

/* CLOCK_MONOTONIC now, in nanoseconds (the kernel's ktime of events). */
static inline uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC now, in seconds, for deadlines and rates. */
static inline double
mono_s(void)
{
	return (double)mono_ns() / 1e9;
}

/* ---- strings ------------------------------------------------------------ */

/* Copy string src into dst of len bytes, cut if need be (snprintf "%s"). */
static inline void
str_copy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Is tok (its first n bytes) one of the comma-separated items of list
 * ("cpu" of "cpu,cpuacct")? */
bool str_list_has(const char *list, const char *tok, size_t n);
/* Is s one of the n strings of v? */
bool strv_has(char *const *v, size_t n, const char *s);
/* Append a copy of s to the *n strings of *v (the caller frees each
 * and *v); 0 or -ENOMEM (*v and *n as they were, but for the room). */
int strv_add(char ***v, size_t *n, const char *s) ATTR_WUR;

/* The decimal digits of v, right-aligned at the end of num (no NUL);
 * their count: they start at num + STR_UINT_MAX - count. */
#define STR_UINT_MAX 12
static inline size_t
str_uint(char num[STR_UINT_MAX], unsigned v)
{
	size_t n = 0;

	do
		num[STR_UINT_MAX - 1 - n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	return n;
}

/* ---- growable arrays ------------------------------------------------------- */

/*
 * Room for one more element (of size bytes) after the n in array v of
 * *cap: v itself while n < *cap, else v moved to a block twice as large
 * (first elements for an empty one) and *cap updated.  NULL when out of
 * memory; v is then untouched and still the caller's to free.
 */
static inline void *
array_room(void *v, size_t n, size_t *cap, size_t size, size_t first)
{
	if (n < *cap)
		return v;
	size_t ncap = *cap ? *cap * 2 : first;
	void *p = realloc(v, ncap * size);

	if (p != NULL)
		*cap = ncap;
	return p;
}

/* ---- a growable buffer ---------------------------------------------------- */

/*
 * Text (or bytes) appended at the end, always NUL-terminated once
 * something was added.  When memory runs out, `failed` is set and every
 * later append is a no-op, so a caller may build a whole answer and
 * check once.  A zeroed struct is an empty buffer; strbuf_free() frees
 * the memory (and leaves an empty buffer).
 */
struct strbuf {
	char *p; /* NULL until something is added */
	size_t len, cap;
	bool failed;
};

/* Append n bytes of s; 0 or -ENOMEM. */
int strbuf_add(struct strbuf *b, const void *s, size_t n);
/* Append formatted text, whatever its length; 0, -ENOMEM or -EINVAL. */
int strbuf_printf(struct strbuf *b, const char *fmt, ...) ATTR_PRINTF(2, 3);
int strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
	ATTR_PRINTF(2, 0);
/* Empty it, keeping its memory (and clearing `failed`). */
void strbuf_reset(struct strbuf *b);
void strbuf_free(struct strbuf *b);

/* ---- the hash table --------------------------------------------------------- */

/*
 * A hash table of fixed-size values, stored inline.  A key is a 64-bit
 * hash: small integer keys (pids, uids, ids) are their own hash and
 * pass eq == NULL; compound keys pass an eq that compares the probe
 * with a stored value.  Pointers to values stay valid until the next
 * insert or remove.
 */
struct map {
	unsigned char *v;
	size_t vsize, slot; /* value size; bytes per slot */
	size_t cap, n;	    /* cap is 0 or a power of two */
};

typedef bool map_eq_fn(const void *value, const void *probe);

void map_init(struct map *m, size_t vsize);
/* Free the table (values owning memory must be freed before). */
void map_free(struct map *m);
/* The value under hash (and probe), or NULL. */
void *map_find(const struct map *m, uint64_t hash, map_eq_fn *eq,
		     const void *probe);
/* The value under hash, made (zeroed, *fresh = true) if missing; NULL
 * when out of memory. */
void *map_insert(struct map *m, uint64_t hash, map_eq_fn *eq,
		       const void *probe, bool *fresh);
/* Remove the entry holding value (a pointer from find or insert). */
void map_remove(struct map *m, void *value);
size_t map_count(const struct map *m);
/* Iterate: *cursor starts at 0; NULL at the end.  No insert or remove
 * while iterating. */
void *map_next(const struct map *m, size_t *cursor);
/* The hash of a string key (FNV-1a), for map_find and map_insert. */
uint64_t map_hash_str(const char *s);

/* ---- the system's user and group databases ----------------------------------- */

/*
 * Longest user or group name accepted, NUL excluded (LOGIN_NAME_MAX
 * less one).  Longer names are refused before any NSS call: some NSS
 * modules abort the process on absurd lengths.
 */
#define NSS_NAME_MAX 255

/*
 * Look-ups in the system's passwd and group databases, for every module
 * (they may block: call them off the hot path).  Each retries with a
 * larger buffer on ERANGE and refuses names longer than NSS_NAME_MAX
 * without asking NSS.  They return 0, -ENOENT (no such
 * entry), -ENAMETOOLONG (name too long, or the answer does not fit the
 * caller's buffer), -ENOMEM, or -EIO (NSS failed).
 */
/* User by name: uid and primary gid (gid may be NULL). */
int nss_user(const char *name, uid_t *uid, gid_t *gid) ATTR_WUR;
/* User by uid: the name into buf[len] and primary gid (may be NULL). */
int nss_user_name(uid_t uid, char *buf, size_t len, gid_t *gid) ATTR_WUR;
/*
 * Group by name: gid, and (when members is not NULL) the uids of the
 * listed members that resolve, in a malloc'd array the caller frees
 * (NULL when there are none).
 */
int nss_group(const char *name, gid_t *gid, uid_t **members, size_t *nmembers) ATTR_WUR;
/* Group by gid: the name into buf[len]. */
int nss_group_name(gid_t gid, char *buf, size_t len) ATTR_WUR;
/* The groups of user (primary gid included) into groups; how many (at
 * most max: the first max when there are more). */
size_t nss_grouplist(const char *user, gid_t gid, gid_t *groups, size_t max);

/* ---- an exponential back-off ------------------------------------------------------ */

/*
 * How long to wait before the next attempt after n failures in a row:
 * the first `free` failures are retried at once, then the pauses are
 * first, 2 * first, 4 * first ... seconds, never longer than max.  A
 * success resets the count.  Set first, max and free; failures starts
 * at 0 (a zeroed count: nothing failed).
 */
struct backoff {
	double first;	   /* the first pause, seconds */
	double max;	   /* no pause is longer */
	unsigned free;	   /* failures retried at once before the first pause */
	unsigned failures; /* in a row, since the last success */
};

/* The pause after the n-th failure in a row (0 for n <= free).  Pure:
 * a caller that counts its own attempts (one per request) asks this. */
double backoff_delay(const struct backoff *b, unsigned n);
/* One more failure: its pause. */
double backoff_fail(struct backoff *b);
/* A success: the next failure is the first again. */
void backoff_reset(struct backoff *b);

/* ---- a per-user rate limiter --------------------------------------------------------- */

/*
 * A token bucket per uid: a user may do something burst times at once
 * and rate times a second after that; root is never limited.  At most
 * max_users buckets are kept: when another user comes, every bucket is
 * forgotten (all start full again).  Times are seconds of any one
 * clock; a clock set back refills nothing.
 */
struct ratelimit {
	double rate, burst;
	size_t max_users;
	struct map users; /* uid -> bucket (ratelimit.c) */
};

void ratelimit_init(struct ratelimit *r, double rate, double burst, size_t max_users);
/*
 * May uid go now (a token is taken when it may)?  When it may not and
 * first is not NULL, *first says whether this refusal starts an
 * episode (the user was not refused since its bucket was last full),
 * so that a caller logs one line per episode, not one per refusal.
 * Out of memory: refused.
 */
bool ratelimit_take(struct ratelimit *r, uid_t uid, double now, bool *first);
void ratelimit_free(struct ratelimit *r);

/* ---- a library opened at its first use ----------------------------------------- */

/* Set soname; the rest starts zeroed.  The handle is never closed. */
struct dlib {
	const char *soname; /* e.g. "libsystemd.so.0" */
	void *handle;	    /* dlopen()'s, NULL until opened (or if it failed) */
	bool tried;	    /* opened, or tried: a failure is not tried again */
};

/* Open l once (RTLD_NOW, RTLD_LOCAL); 0, or -1 if it cannot be (the
 * first failure's reason is dlerror()'s). */
int dlib_open(struct dlib *l);
/* Set *fn, a function pointer, to l's function name once, opening l
 * first; 0, or -1 without the library or the function. */
int dlib_sym(struct dlib *l, void *fn, const char *name);

/* ---- files ----------------------------------------------------------------------- */

/* Create the missing directories above path (mode 0755); 0 or -errno. */
int mkdir_parents(const char *path) ATTR_WUR;
/*
 * A secret of len bytes kept in file path (mode 0600, owner only): read
 * it into buf; when the file is missing and create is true, make it
 * first from the kernel's random bytes (directories above made, written
 * durably, never over a file another process made meanwhile).  0,
 * -ENOENT (missing, not created), -EINVAL (a file of another size, or
 * not a regular file), -EPERM (others may read it) or -errno.
 */
int secret_file(const char *path, unsigned char *buf, size_t len, bool create) ATTR_WUR;

/* ---- a keyed hash ------------------------------------------------------------------ */

#define SIPHASH_KEY_LEN 16
/* SipHash-2-4 of data under key (siphash.c): 64 bits nobody without the
 * key can predict or make collide. */
uint64_t siphash24(const unsigned char key[SIPHASH_KEY_LEN], const void *data, size_t len);

#endif
