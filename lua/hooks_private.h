/*
 * hooks_private.h -- shared between the files of lua/ only.
 */
#ifndef CGENGINE_HOOKS_PRIVATE_H
#define CGENGINE_HOOKS_PRIVATE_H

#include "hooks.h"

#include <lauxlib.h>
#include <lua.h>

struct hooks {
	lua_State *L;
	struct hooks_options opts;
	char *script;
	size_t mem_used, mem_cap;
	long budget_left;
	long step;		      /* instructions between two budget checks */
	int env_ref;		      /* the sandbox's _ENV table */
	int classify_ref;	      /* classify(), or LUA_NOREF */
	int task_ref;		      /* the reusable task userdata */
	int cache_ref;		      /* per-call cache of lazy task fields */
	const struct hooks_task *cur; /* the task of the call in progress */
	struct hooks_slot *scratch;   /* the hook's answer before it is accepted */
	size_t nscratch;
	struct hooks_stats stats;
	double last_log;
	unsigned suppressed;
};

/* sandbox.c */
lua_State *sandbox_new(struct hooks *h);
/* Reset the instruction budget before a call. */
void sandbox_arm(struct hooks *h);
/* Run the function below its nargs arguments under a message handler;
 * 0, or -1 with the error message logged.  The stack is restored. */
int sandbox_pcall(struct hooks *h, int nargs, const char *what);
/* Names through the options' callbacks (cached by the caller); NULL
 * when unknown or when no callback was given. */
const char *hooks_user(struct hooks *h, uid_t uid);
const char *hooks_group(struct hooks *h, gid_t gid);
/* Push s, or nil for NULL. */
void push_string_or_nil(lua_State *L, const char *s);
/* Log through the options' callback. */
void sandbox_log(struct hooks *h, enum hooks_level level, const char *msg);

/* task.c */
void task_register(lua_State *L);
/* Lua C function: run one classify() call for the context at index 1. */
int task_classify_body(lua_State *L);

struct classify_ctx {
	struct hooks *h;
	struct hooks_slot *slots; /* input */
	size_t n;
};

#endif
