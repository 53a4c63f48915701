/*
 * sandbox.c -- a Lua state that cannot hurt the daemon: a counting
 * allocator with a cap, an instruction budget through a count hook,
 * and a fresh _ENV built from an allow-list.
 */
#include "hooks_private.h"

#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUDGET_STEP 1000 /* instructions between two budget checks */

static void *
sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct hooks *h = ud;
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

static struct hooks *
hooks_of(lua_State *L)
{
	void *ud;

	lua_getallocf(L, &ud);
	return ud;
}

static void
budget_hook(lua_State *L, lua_Debug *ar)
{
	struct hooks *h = hooks_of(L);

	h->budget_left -= h->step;
	if (h->budget_left >= 0)
		return;
	if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
		luaL_error(L, "%s:%d: instruction budget exceeded", ar->short_src,
			   ar->currentline);
	luaL_error(L, "instruction budget exceeded");
}

void
sandbox_arm(struct hooks *h)
{
	h->budget_left = h->opts.instructions;
}

void
sandbox_log(struct hooks *h, enum hooks_level level, const char *msg)
{
	if (h->opts.log != NULL)
		h->opts.log(h->opts.arg, level, msg);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Log a hook failure, at most once a second. */
static void
log_failure(struct hooks *h, const char *what, const char *msg)
{
	char line[1024];
	double t = now();

	if (h->last_log != 0 && t - h->last_log < 1.0) {
		h->suppressed++;
		return;
	}
	if (h->suppressed > 0)
		snprintf(line, sizeof(line), "%s: %s (and %u more failures)", what, msg,
			 h->suppressed);
	else
		snprintf(line, sizeof(line), "%s: %s", what, msg);
	h->last_log = t;
	h->suppressed = 0;
	sandbox_log(h, HOOKS_WARNING, line);
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
sandbox_pcall(struct hooks *h, int nargs, const char *what)
{
	lua_State *L = h->L;
	int func = lua_gettop(L) - nargs;

	lua_pushcfunction(L, message_handler);
	lua_insert(L, func); /* below the function */
	sandbox_arm(h);
	int rc = lua_pcall(L, nargs, 0, func);
	if (rc != LUA_OK) {
		h->stats.errors++;
		log_failure(h, what,
			    lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
							   : "error");
	}
	lua_settop(L, func - 1);
	return rc == LUA_OK ? 0 : -1;
}

/* ---- the cgengine table ---------------------------------------------- */

static int
l_log(lua_State *L)
{
	static const char *const levels[] = { "error", "warning", "notice",
					      "info",  "debug",	  NULL };
	int level = luaL_checkoption(L, 1, "info", levels);
	const char *msg = luaL_checkstring(L, 2);

	sandbox_log(hooks_of(L), (enum hooks_level)level, msg);
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
	sandbox_log(hooks_of(L), HOOKS_INFO, lua_tostring(L, -1));
	return 0;
}

const char *
hooks_user(struct hooks *h, uid_t uid)
{
	return h->opts.user_name ? h->opts.user_name(h->opts.arg, uid) : NULL;
}

const char *
hooks_group(struct hooks *h, gid_t gid)
{
	return h->opts.group_name ? h->opts.group_name(h->opts.arg, gid) : NULL;
}

void
push_string_or_nil(lua_State *L, const char *s)
{
	if (s != NULL)
		lua_pushstring(L, s);
	else
		lua_pushnil(L);
}

static int
l_user(lua_State *L)
{
	push_string_or_nil(L, hooks_user(hooks_of(L), (uid_t)luaL_checkinteger(L, 1)));
	return 1;
}

static int
l_group(lua_State *L)
{
	push_string_or_nil(L, hooks_group(hooks_of(L), (gid_t)luaL_checkinteger(L, 1)));
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
	struct hooks *h = hooks_of(L);

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
	luaL_newlib(L, cgengine_lib);
	lua_setfield(L, -2, "cgengine");
	lua_pushvalue(L, -1);
	lua_setfield(L, -2, "_G");
	h->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);

	task_register(L);
	return 0;
}

lua_State *
sandbox_new(struct hooks *h)
{
	lua_State *L = lua_newstate(sandbox_alloc, h);

	if (L == NULL)
		return NULL;
	h->L = L;
	h->step = h->opts.instructions < BUDGET_STEP ? h->opts.instructions : BUDGET_STEP;
	if (h->step < 1)
		h->step = 1;
	lua_sethook(L, budget_hook, LUA_MASKCOUNT, (int)h->step);
	lua_pushcfunction(L, build_env);
	if (sandbox_pcall(h, 0, "sandbox") < 0) {
		lua_close(L);
		h->L = NULL;
		return NULL;
	}
	return L;
}
