/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * task.c -- what a hook sees: the task userdata (fields read on
 * demand, cmdline only if asked for), the decision table, the
 * read-only why table, and reading the hook's answer back.  Runs in
 * the helper; what is not in the call message (cmdline, task:cgroup(),
 * names) is asked of the caller when the hook reads it.
 */
#include "hooks_private.h"

#include <string.h>

#define TASK_META "cgengine.task"

static const struct hooks_task *
current(lua_State *L)
{
	struct sandbox *h = sandbox_of(L);

	if (h->cur == NULL)
		luaL_error(L, "a task is only valid during the classify() call");
	return h->cur;
}

static int
task_cgroup(lua_State *L)
{
	const char *hier = luaL_checkstring(L, 2);
	char buf[HOOKS_DEST_MAX * 2];

	(void)current(L);
	if (child_ask(sandbox_of(L), ASK_CGROUP, 0, hier, buf, sizeof(buf)) >= 0)
		lua_pushstring(L, buf);
	else
		lua_pushnil(L);
	return 1;
}

static void
push_cmdline(lua_State *L)
{
	/* scratch space Lua owns (and counts against the memory cap) */
	char *buf = lua_newuserdatauv(L, HOOKS_CMDLINE_MAX + 1, 0);
	int n = child_ask(sandbox_of(L), ASK_CMDLINE, 0, NULL, buf,
			  HOOKS_CMDLINE_MAX + 1);

	lua_newtable(L);
	for (int off = 0, i = 1; n > 0 && off < n; i++) {
		size_t len = strnlen(buf + off, (size_t)(n - off));

		lua_pushlstring(L, buf + off, len);
		lua_rawseti(L, -2, i);
		off += (int)len + 1;
	}
	lua_remove(L, -2); /* the scratch space */
}

/* Fields computed once per call are cached in a per-call table. */
static bool
cached(lua_State *L, struct sandbox *h, const char *key)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, h->cache_ref);
	lua_getfield(L, -1, key);
	lua_remove(L, -2);
	if (!lua_isnil(L, -1))
		return true;
	lua_pop(L, 1);
	return false;
}

static void
cache(lua_State *L, struct sandbox *h, const char *key)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, h->cache_ref);
	lua_pushvalue(L, -2);
	lua_setfield(L, -2, key);
	lua_pop(L, 1);
}

static int
task_index(lua_State *L)
{
	struct sandbox *h = sandbox_of(L);
	const struct hooks_task *t = current(L);
	const char *k = luaL_checkstring(L, 2);

	if (strcmp(k, "pid") == 0)
		lua_pushinteger(L, t->pid);
	else if (strcmp(k, "ppid") == 0)
		lua_pushinteger(L, t->ppid);
	else if (strcmp(k, "uid") == 0)
		lua_pushinteger(L, t->uid);
	else if (strcmp(k, "euid") == 0)
		lua_pushinteger(L, t->euid);
	else if (strcmp(k, "gid") == 0)
		lua_pushinteger(L, t->gid);
	else if (strcmp(k, "egid") == 0)
		lua_pushinteger(L, t->egid);
	else if (strcmp(k, "comm") == 0)
		lua_pushstring(L, t->comm ? t->comm : "");
	else if (strcmp(k, "exe") == 0)
		lua_pushstring(L, t->exe ? t->exe : "");
	else if (strcmp(k, "user") == 0) {
		if (t->user != NULL)
			lua_pushstring(L, t->user);
		else if (!cached(L, h, k)) {
			sandbox_push_user(L, t->euid);
			cache(L, h, k);
		}
	} else if (strcmp(k, "group") == 0) {
		if (t->group != NULL)
			lua_pushstring(L, t->group);
		else if (!cached(L, h, k)) {
			sandbox_push_group(L, t->egid);
			cache(L, h, k);
		}
	} else if (strcmp(k, "cgroup") == 0)
		lua_pushcfunction(L, task_cgroup);
	else if (strcmp(k, "groups") == 0) {
		if (!cached(L, h, k)) {
			lua_createtable(L, (int)t->ngroups, 0);
			for (size_t i = 0; i < t->ngroups; i++) {
				lua_pushinteger(L, t->groups[i]);
				lua_rawseti(L, -2, (lua_Integer)i + 1);
			}
			cache(L, h, k);
		}
	} else if (strcmp(k, "cmdline") == 0) {
		if (!cached(L, h, k)) {
			push_cmdline(L);
			cache(L, h, k);
		}
	} else
		lua_pushnil(L);
	return 1;
}

static int
task_newindex(lua_State *L)
{
	return luaL_error(L, "task fields are read-only");
}

static int
task_tostring(lua_State *L)
{
	struct sandbox *h = sandbox_of(L);

	if (h->cur != NULL)
		lua_pushfstring(L, "task %d (%s)", (int)h->cur->pid, h->cur->comm);
	else
		lua_pushliteral(L, "task (expired)");
	return 1;
}

static int
readonly_error(lua_State *L)
{
	return luaL_error(L, "why is read-only");
}

void
task_register(lua_State *L)
{
	struct sandbox *h = sandbox_of(L);
	static const luaL_Reg meta[] = {
		{ "__index", task_index },
		{ "__newindex", task_newindex },
		{ "__tostring", task_tostring },
		{ NULL, NULL },
	};

	luaL_newmetatable(L, TASK_META);
	luaL_setfuncs(L, meta, 0);
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable"); /* hide the metatable */
	lua_pop(L, 1);
	lua_newuserdatauv(L, 0, 0);
	luaL_setmetatable(L, TASK_META);
	h->task_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_newtable(L);
	h->cache_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

/* Read the hook's answer (table at index t) into h->scratch; the
 * caller checks it again, this is for clear messages. */
static void
read_answer(lua_State *L, struct sandbox *h, int t)
{
	for (size_t i = 0; i < h->n; i++) {
		const struct hooks_slot *in = &h->slots[i];
		struct hooks_slot *out = &h->scratch[i];
		size_t len;

		*out = *in;
		out->changed = false;
		lua_pushstring(L, in->hier);
		int type = lua_rawget(L, t); /* no metamethods: no hook code runs */
		if (type == LUA_TNIL) {
			out->set = false;
			out->dest[0] = '\0';
		} else if (type == LUA_TSTRING) {
			const char *s = lua_tolstring(L, -1, &len);
			const char *why = hooks_dest_problem(s, len);
			if (why != NULL) {
				char shown[128];
				wire_clean(shown, sizeof(shown), s, len);
				luaL_error(L, "classify: decision[\"%s\"] = \"%s\" %s",
					   in->hier, shown, why);
			}
			out->set = true;
			memcpy(out->dest, s, len + 1);
		} else {
			luaL_error(
				L,
				"classify: decision[\"%s\"] must be a string or nil, not a %s",
				in->hier, lua_typename(L, type));
		}
		lua_pop(L, 1);
		out->changed = out->set != in->set ||
			       (out->set && strcmp(out->dest, in->dest) != 0);
	}
}

int
task_classify_body(lua_State *L)
{
	struct sandbox *h = sandbox_of(L);

	lua_newtable(L); /* a fresh per-call cache */
	lua_rawseti(L, LUA_REGISTRYINDEX, h->cache_ref);

	lua_rawgeti(L, LUA_REGISTRYINDEX, h->classify_ref);
	lua_rawgeti(L, LUA_REGISTRYINDEX, h->task_ref);
	lua_createtable(L, 0, (int)h->n); /* decision */
	int decision = lua_gettop(L);
	lua_createtable(L, 0, (int)h->n); /* why, behind a read-only proxy */
	for (size_t i = 0; i < h->n; i++) {
		if (h->slots[i].set) {
			lua_pushstring(L, h->slots[i].dest);
			lua_setfield(L, decision, h->slots[i].hier);
		}
		if (h->slots[i].why != NULL) {
			lua_pushstring(L, h->slots[i].why);
			lua_setfield(L, -2, h->slots[i].hier);
		}
	}
	lua_newtable(L);	  /* proxy */
	lua_createtable(L, 0, 3); /* its metatable */
	lua_pushvalue(L, -3);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, readonly_error);
	lua_setfield(L, -2, "__newindex");
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
	lua_remove(L, -2); /* the real why table */
	lua_pushvalue(L, decision);
	lua_insert(L, 1); /* keep a reference below the call */
	decision = 1;

	lua_call(L, 3, 1);
	int type = lua_type(L, -1);
	if (type == LUA_TTABLE)
		read_answer(L, h, lua_gettop(L));
	else if (type == LUA_TNIL || type == LUA_TNONE)
		read_answer(L, h, decision);
	else
		luaL_error(L, "classify must return a table or nothing, not a %s",
			   lua_typename(L, type));
	return 0;
}
