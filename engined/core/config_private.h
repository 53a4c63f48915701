/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config_private.h -- shared between config.c (the parse) and
 * config_check.c (the checks of values and sections).
 */
#ifndef CGENGINE_CONFIG_PRIVATE_H
#define CGENGINE_CONFIG_PRIVATE_H

#include "core_private.h"

#include <confuse.h>

/*
 * libconfuse looks for a section of the same title before it adds one,
 * scanning every section kept: loading n sections costs n^2/2 string
 * comparisons (20,000 group sections took seconds).  So each group
 * and boost-profile section is checked and taken out of libconfuse as
 * soon as it is parsed (its validate callback), copied into the
 * config being loaded, and its title is looked up in a hash map here:
 * libconfuse never holds more than one, and a load is linear.
 * Begin before cfg_parse() (c receives the sections), end after it.
 */
void config_sections_begin(struct config *c);
void config_sections_end(void);
int config_take_group(cfg_t *cfg, cfg_opt_t *opt);
int config_take_profile(cfg_t *cfg, cfg_opt_t *opt);
/* Validate callback of a group's or profile's process = {...}: each
 * item and the fields together (rules/prio.h); its line is kept for the
 * section. */
int config_check_process(cfg_t *cfg, cfg_opt_t *opt);

/*
 * libconfuse parse callback of the integer keys with a range (every
 * count and size of cgengined.conf: lua-instructions, lua-memory,
 * lua-timeout, netlink-buffer, bpf-buffer, nice, realtime-priority, boosts-per-user,
 * a profile's max-boosts): decimal only,
 * refused outside its range with the range in the message.
 */
int config_parse_ranged(cfg_t *cfg, cfg_opt_t *opt, const char *value, void *result);

/* hierarchies = {"all"}: every v1 hierarchy but name=systemd, as
 * without the key (an empty list is an error: it once meant that). */
#define CONFIG_ALL_HIERARCHIES "all"

/* Copy list option name of sec into a new array; 0 or -ENOMEM. */
int config_copy_list(cfg_t *sec, const char *name, char ***out, size_t *n);

#endif
