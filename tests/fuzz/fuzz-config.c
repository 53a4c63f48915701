/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-config.c -- the daemon config (config_load, libconfuse behind
 * it) on any bytes, read from an in-memory file.
 *
 * Invariants: a config loads exactly when no error was reported; every
 * message starts with the file name; a loaded config has every string
 * set, valid durations for its boost profiles and well-formed group
 * titles.  libconfuse itself is not instrumented for coverage here.
 */
#include "engined/core/core.h"
#include "fuzz.h"

#include <string.h>

static const char *path;
static int nerrors;

static void
collect(void *arg, const char *msg)
{
	FUZZ_CHECK(strncmp(msg, path, strlen(path)) == 0);
	nerrors++;
}

static void
check_config(const struct config *c)
{
	FUZZ_CHECK(c->rules && c->rules_dir && c->control_socket && c->sticky_socket);
	FUZZ_CHECK(c->pidfile && c->state_file && c->log && c->lua_script);
	FUZZ_CHECK(c->lua_instructions > 0 && c->lua_memory > 0 && c->netlink_buffer > 0);
	FUZZ_CHECK(c->log_level >= LOG_LEVEL_ERROR && c->log_level <= LOG_LEVEL_DEBUG);
	for (size_t i = 0; i < c->nhierarchies; i++)
		FUZZ_CHECK(c->hierarchies[i] != NULL);
	for (size_t i = 0; i < c->ngroups; i++) {
		FUZZ_CHECK(c->groups[i].hier[0] != '\0' && c->groups[i].path[0] == '/');
		for (size_t j = 0; j < c->groups[i].nset; j++)
			FUZZ_CHECK(strchr(c->groups[i].set[j], '=') != NULL);
	}
	for (size_t i = 0; i < c->nprofiles; i++) {
		const struct boost_profile *p = &c->profiles[i];

		FUZZ_CHECK(p->max_seconds > 0 && p->max_seconds <= 365L * 86400);
		FUZZ_CHECK(p->hier[0] != '\0' && p->dest[0] == '/');
		for (size_t j = 0; j < p->nallow; j++)
			FUZZ_CHECK(p->allow[j] != NULL);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report rep = { .fn = collect };

	path = fuzz_memfile(data, size);
	nerrors = 0;
	struct config *c = config_load(path, false, &rep);
	FUZZ_CHECK((c == NULL) == (nerrors > 0));
	if (c != NULL) {
		FUZZ_CHECK(strcmp(c->file, path) == 0);
		check_config(c);
	}
	config_free(c);
	return 0;
}
