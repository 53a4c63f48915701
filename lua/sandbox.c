/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sandbox.c -- the Lua state inside the helper: a counting allocator
 * with a cap, an instruction budget through a count hook (for clear
 * "file:line: instruction budget exceeded" errors; the caller's
 * deadline covers what the count hook cannot see), a fresh _ENV built
 * from an allow-list, and no __gc metamethods.
 */
#include "hooks_private.h"

#include <errno.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET_STEP 1000 /* instructions between two budget checks */

static void *
sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct sandbox *h = ud;
	size_t old = ptr != NULL ? osize : 0;

	if (nsize == 0) {
		free(ptr);
		h->mem_used -= old;
		return NULL;
	}
	if (nsize > old && h->mem_used + (nsize - old) > h->mem_cap)
		return NULL; /* Lua raises "not enough memory" */
	void *p = realloc(ptr, nsize);
	if (p != NULL)
		h->mem_used = h->mem_used - old + nsize;
	return p;
}

struct sandbox *
sandbox_of(lua_State *L)
{
	void *ud;

	lua_getallocf(L, &ud);
	return ud;
}

static void
budget_hook(lua_State *L, lua_Debug *ar)
{
	struct sandbox *h = sandbox_of(L);

	h->budget_left -= h->step;
	if (h->budget_left >= 0)
		return;
	if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
		luaL_error(L, "%s:%d: instruction budget exceeded", ar->short_src,
			   ar->currentline);
	luaL_error(L, "instruction budget exceeded");
}

void
sandbox_arm(struct sandbox *s)
{
	s->budget_left = s->instructions;
}

static int
message_handler(lua_State *L)
{
	if (lua_type(L, 1) != LUA_TSTRING) {
		const char *m = luaL_tolstring(L, 1, NULL);
		lua_pushstring(L, m);
	}
	return 1;
}

int
sandbox_pcall(struct sandbox *s, int nargs)
{
	lua_State *L = s->L;
	int func = lua_gettop(L) - nargs;

	lua_pushcfunction(L, message_handler);
	lua_insert(L, func); /* below the function */
	sandbox_arm(s);
	int rc = lua_pcall(L, nargs, 0, func);
	if (rc != LUA_OK)
		snprintf(s->err, sizeof(s->err), "%s",
			 lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error");
	lua_settop(L, func - 1);
	return rc == LUA_OK ? 0 : rc == LUA_ERRMEM ? -ENOMEM : -ECANCELED;
}

/* ---- the cgengine table ---------------------------------------------- */

static int
l_log(lua_State *L)
{
	static const char *const levels[] = { "error", "warning", "notice",
					      "info",  "debug",	  NULL };
	int level = luaL_checkoption(L, 1, "info", levels);
	const char *msg = luaL_checkstring(L, 2);

	child_log(sandbox_of(L), (enum hooks_level)level, msg);
	return 0;
}

static int
l_print(lua_State *L)
{
	luaL_Buffer b;
	int n = lua_gettop(L);

	luaL_buffinit(L, &b);
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			luaL_addchar(&b, '\t');
		luaL_tolstring(L, i, NULL);
		luaL_addvalue(&b);
	}
	luaL_pushresult(&b);
	child_log(sandbox_of(L), HOOKS_INFO, lua_tostring(L, -1));
	return 0;
}

/* A name asked of the caller (which caches them), pushed or nil. */
static void
push_name(lua_State *L, int what, long long id)
{
	char buf[HOOKS_DEST_MAX];

	if (child_ask(sandbox_of(L), what, id, NULL, buf, sizeof(buf)) >= 0)
		lua_pushstring(L, buf);
	else
		lua_pushnil(L);
}

void
sandbox_push_user(lua_State *L, uid_t uid)
{
	push_name(L, ASK_USER, uid);
}

void
sandbox_push_group(lua_State *L, gid_t gid)
{
	push_name(L, ASK_GROUP, gid);
}

static int
l_user(lua_State *L)
{
	sandbox_push_user(L, (uid_t)luaL_checkinteger(L, 1));
	return 1;
}

static int
l_group(lua_State *L)
{
	sandbox_push_group(L, (gid_t)luaL_checkinteger(L, 1));
	return 1;
}

/*
 * setmetatable without __gc: finalizers run with debug hooks off, so
 * no instruction budget would stop a looping one (the caller's
 * deadline would, at the price of the helper).  Lua marks an object
 * for finalization only when its metatable has __gc at the time of
 * setmetatable, so checking here is enough.
 */
static int
l_setmetatable(lua_State *L)
{
	if (lua_type(L, 2) == LUA_TTABLE) {
		lua_pushliteral(L, "__gc");
		if (lua_rawget(L, 2) != LUA_TNIL)
			return luaL_error(L, "__gc metamethods are not allowed");
		lua_pop(L, 1);
	}
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

static const luaL_Reg cgengine_lib[] = {
	{ "log", l_log },
	{ "user", l_user },
	{ "group", l_group },
	{ NULL, NULL },
};

/* ---- the environment ---------------------------------------------------- */

static const char *const allowed_base[] = {
	"assert", "error",  "getmetatable", "ipairs",	"next",
	"pairs",  "pcall",  "rawequal",	    "rawget",	"rawlen",
	"rawset", "select", "setmetatable", "tonumber", "tostring",
	"type",	  "xpcall", "_VERSION",	    NULL,
};

static const luaL_Reg safe_libs[] = {
	{ LUA_GNAME, luaopen_base },	   { LUA_STRLIBNAME, luaopen_string },
	{ LUA_TABLIBNAME, luaopen_table }, { LUA_MATHLIBNAME, luaopen_math },
	{ LUA_UTF8LIBNAME, luaopen_utf8 }, { NULL, NULL },
};

/* Runs protected: open the safe libraries and build _ENV. */
static int
build_env(lua_State *L)
{
	struct sandbox *h = sandbox_of(L);

	for (const luaL_Reg *lib = safe_libs; lib->func != NULL; lib++) {
		luaL_requiref(L, lib->name, lib->func, 1);
		lua_pop(L, 1);
	}
	/* string.dump makes bytecode; nothing here needs it */
	lua_getglobal(L, LUA_STRLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 1);

	lua_newtable(L); /* the new _ENV */
	for (size_t i = 0; allowed_base[i] != NULL; i++) {
		lua_getglobal(L, allowed_base[i]);
		lua_setfield(L, -2, allowed_base[i]);
	}
	for (const luaL_Reg *lib = safe_libs + 1; lib->func != NULL; lib++) {
		lua_getglobal(L, lib->name);
		lua_setfield(L, -2, lib->name);
	}
	lua_pushcfunction(L, l_print);
	lua_setfield(L, -2, "print");
	lua_getglobal(L, "setmetatable");
	lua_pushcclosure(L, l_setmetatable, 1);
	lua_setfield(L, -2, "setmetatable");
	luaL_newlib(L, cgengine_lib);
	lua_setfield(L, -2, "cgengine");
	lua_pushvalue(L, -1);
	lua_setfield(L, -2, "_G");
	h->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);

	task_register(L);
	return 0;
}

lua_State *
sandbox_new(struct sandbox *s)
{
	lua_State *L = lua_newstate(sandbox_alloc, s);

	if (L == NULL)
		return NULL;
	s->L = L;
	s->step = s->instructions < BUDGET_STEP ? s->instructions : BUDGET_STEP;
	if (s->step < 1)
		s->step = 1;
	lua_sethook(L, budget_hook, LUA_MASKCOUNT, (int)s->step);
	lua_pushcfunction(L, build_env);
	if (sandbox_pcall(s, 0) < 0)
		return NULL; /* the helper exits: no need to close the state */
	return L;
}
