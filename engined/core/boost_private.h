/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * boost_private.h -- between boost.c (the boosts) and booststate.c
 * (their state file): struct boosts and what each file lends the other.
 * No other file includes it.
 */
#ifndef CGENGINE_BOOST_PRIVATE_H
#define CGENGINE_BOOST_PRIVATE_H

#include "core_private.h"
#include "statefile.h"

/* The longest a boost can last; a state file promising more is forged. */
#define BOOST_MAX_SECONDS (366L * 86400)
#define BOOST_MAX_ID	  STATEFILE_ID_MAX

#define BOOST_SAVE_INTERVAL    0.5  /* the state file is written at most this often */
#define BOOST_MEMBERS_INTERVAL 10.0 /* STATE.members at most this often */
#define BOOST_SAVE_RETRY_MAX   60.0 /* a failed write is retried at least this often */

/* The boosts and the writing of their state (c->boosts). */
struct boosts {
	struct boost_list list;
	struct expiry_heap expiries; /* the same boosts, by expiry */
	unsigned next_id;
	double save_at, last_save; /* the state file: write at save_at (0: nothing to) */
	bool state_dirty;	   /* the boosts changed: write durably, soon */
	bool members_dirty;	   /* only members changed: write lazily */
	struct backoff save_backoff; /* failed writes in a row: retried after 1, 2 ... 60 s */
	double save_retry_at, save_logged;
};

/* ---- boost.c ------------------------------------------------------------------- */

/* A boost of no member yet, or NULL without memory; freed by boost_free
 * (NULL is fine). */
struct boost *boost_new(const char *hier, const char *dest, const char *profile);
void boost_free(struct boost *b);
/* Add id to b's members (nothing if it is one); 0 or -ENOMEM. */
int boost_add_member(struct boost *b, struct procid id) ATTR_WUR;
/* Set or clear the BOOSTED flag of id to match the boost list. */
void boost_update_flag(struct core *c, struct procid id);
/* The most processes one boost holds: what the state file keeps. */
size_t boost_members_max(const struct core *c);

/* ---- booststate.c -------------------------------------------------------------- */

/* A boost started, ended or was restored: write the state file durably
 * soon (at most twice a second). */
void boost_changed(struct core *c);
/* Only members changed (fork, exit): write STATE.members, without fsync,
 * at most every BOOST_MEMBERS_INTERVAL seconds. */
void boost_members_changed(struct core *c);
/* Write what changed, now (a failure is retried later). */
void boost_save_now(struct core *c);

#endif
