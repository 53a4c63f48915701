/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * luaload.c -- Lua 5.4, loaded at its first use.  Only the hooks'
 * helper, a child the daemon forks when lua-script is set, runs Lua;
 * liblua5.4 and the libm it brings were about 0.4 MiB of the daemon's
 * resident memory from the start, for nothing without a script.  So the
 * daemon does not link it: each Lua function the hooks call is defined
 * here, with lua.h's prototype, and calls the library's own, found with
 * dlsym() in liblua5.4.so.0, which the helper opens (luaload_open())
 * before it limits itself.  Without the library the helper says so and
 * exits; every function needs a state, which lua_newstate() makes only
 * with it, so their failure values (0, -1, NULL, nothing) are not seen.
 * luaL_error formats through lua_pushvfstring, as the library does.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "hooks_private.h"
#include "util/util.h"
#include <lualib.h>

static struct dlib lib = { .soname = "liblua5.4.so.0" };

int
luaload_open(char *err, size_t errlen)
{
	const char *why;

	if (dlib_open(&lib) == 0)
		return 0;
	why = dlerror();
	snprintf(err, errlen, "%s", why != NULL ? why : "cannot load liblua5.4.so.0");
	return -1;
}

/* Set *fn, a function pointer, to the library's function name once;
 * 0, or -1 without the library or the function. */
static int
lookup(void *fn, const char *name)
{
	return dlib_sym(&lib, fn, name);
}

int
luaL_error(lua_State *L, const char *fmt, ...)
{
	static const char *(*vf)(lua_State *, const char *, va_list);
	static void (*where)(lua_State *, int);
	static void (*concat)(lua_State *, int);
	static int (*error)(lua_State *);
	va_list ap;

	if (lookup(&vf, "lua_pushvfstring") < 0 || lookup(&where, "luaL_where") < 0 ||
	    lookup(&concat, "lua_concat") < 0 || lookup(&error, "lua_error") < 0)
		return 0;
	where(L, 1);
	va_start(ap, fmt);
	vf(L, fmt, ap);
	va_end(ap);
	concat(L, 2);
	return error(L); /* does not return: it unwinds to the protected call */
}

/* ---- the others, one to one ---------------------------------------------- */

void
luaL_addvalue(luaL_Buffer *B)
{
	static void (*real)(luaL_Buffer *);

	if (lookup(&real, "luaL_addvalue") == 0)
		real(B);
}

void
luaL_buffinit(lua_State *L, luaL_Buffer *B)
{
	static void (*real)(lua_State *, luaL_Buffer *);

	if (lookup(&real, "luaL_buffinit") == 0)
		real(L, B);
}

lua_Integer
luaL_checkinteger(lua_State *L, int arg)
{
	static lua_Integer (*real)(lua_State *, int);

	return lookup(&real, "luaL_checkinteger") < 0 ? 0 : real(L, arg);
}

const char *
luaL_checklstring(lua_State *L, int arg, size_t *l)
{
	static const char *(*real)(lua_State *, int, size_t *);

	return lookup(&real, "luaL_checklstring") < 0 ? NULL : real(L, arg, l);
}

int
luaL_checkoption(lua_State *L, int arg, const char *def, const char *const lst[])
{
	static int (*real)(lua_State *, int, const char *, const char *const *);

	return lookup(&real, "luaL_checkoption") < 0 ? -1 : real(L, arg, def, lst);
}

void
luaL_checkversion_(lua_State *L, lua_Number ver, size_t sz)
{
	static void (*real)(lua_State *, lua_Number, size_t);

	if (lookup(&real, "luaL_checkversion_") == 0)
		real(L, ver, sz);
}

int
luaL_loadbufferx(lua_State *L, const char *buff, size_t sz, const char *name,
		 const char *mode)
{
	static int (*real)(lua_State *, const char *, size_t, const char *, const char *);

	return lookup(&real, "luaL_loadbufferx") < 0 ? -1 : real(L, buff, sz, name, mode);
}

int
luaL_newmetatable(lua_State *L, const char *tname)
{
	static int (*real)(lua_State *, const char *);

	return lookup(&real, "luaL_newmetatable") < 0 ? -1 : real(L, tname);
}

char *
luaL_prepbuffsize(luaL_Buffer *B, size_t sz)
{
	static char *(*real)(luaL_Buffer *, size_t);

	return lookup(&real, "luaL_prepbuffsize") < 0 ? NULL : real(B, sz);
}

void
luaL_pushresult(luaL_Buffer *B)
{
	static void (*real)(luaL_Buffer *);

	if (lookup(&real, "luaL_pushresult") == 0)
		real(B);
}

int
luaL_ref(lua_State *L, int t)
{
	static int (*real)(lua_State *, int);

	return lookup(&real, "luaL_ref") < 0 ? -1 : real(L, t);
}

void
luaL_requiref(lua_State *L, const char *modname, lua_CFunction openf, int glb)
{
	static void (*real)(lua_State *, const char *, lua_CFunction, int);

	if (lookup(&real, "luaL_requiref") == 0)
		real(L, modname, openf, glb);
}

void
luaL_setfuncs(lua_State *L, const luaL_Reg *l, int nup)
{
	static void (*real)(lua_State *, const luaL_Reg *, int);

	if (lookup(&real, "luaL_setfuncs") == 0)
		real(L, l, nup);
}

void
luaL_setmetatable(lua_State *L, const char *tname)
{
	static void (*real)(lua_State *, const char *);

	if (lookup(&real, "luaL_setmetatable") == 0)
		real(L, tname);
}

const char *
luaL_tolstring(lua_State *L, int idx, size_t *len)
{
	static const char *(*real)(lua_State *, int, size_t *);

	return lookup(&real, "luaL_tolstring") < 0 ? NULL : real(L, idx, len);
}

void
lua_callk(lua_State *L, int nargs, int nresults, lua_KContext ctx, lua_KFunction k)
{
	static void (*real)(lua_State *, int, int, lua_KContext, lua_KFunction);

	if (lookup(&real, "lua_callk") == 0)
		real(L, nargs, nresults, ctx, k);
}

void
lua_createtable(lua_State *L, int narr, int nrec)
{
	static void (*real)(lua_State *, int, int);

	if (lookup(&real, "lua_createtable") == 0)
		real(L, narr, nrec);
}

lua_Alloc
lua_getallocf(lua_State *L, void **ud)
{
	static lua_Alloc (*real)(lua_State *, void **);

	return lookup(&real, "lua_getallocf") < 0 ? NULL : real(L, ud);
}

int
lua_getfield(lua_State *L, int idx, const char *k)
{
	static int (*real)(lua_State *, int, const char *);

	return lookup(&real, "lua_getfield") < 0 ? -1 : real(L, idx, k);
}

int
lua_getglobal(lua_State *L, const char *name)
{
	static int (*real)(lua_State *, const char *);

	return lookup(&real, "lua_getglobal") < 0 ? -1 : real(L, name);
}

int
lua_getinfo(lua_State *L, const char *what, lua_Debug *ar)
{
	static int (*real)(lua_State *, const char *, lua_Debug *);

	return lookup(&real, "lua_getinfo") < 0 ? -1 : real(L, what, ar);
}

int
lua_gettop(lua_State *L)
{
	static int (*real)(lua_State *);

	return lookup(&real, "lua_gettop") < 0 ? 0 : real(L);
}

lua_State *
lua_newstate(lua_Alloc f, void *ud)
{
	static lua_State *(*real)(lua_Alloc, void *);

	return lookup(&real, "lua_newstate") < 0 ? NULL : real(f, ud);
}

void *
lua_newuserdatauv(lua_State *L, size_t sz, int nuvalue)
{
	static void *(*real)(lua_State *, size_t, int);

	return lookup(&real, "lua_newuserdatauv") < 0 ? NULL : real(L, sz, nuvalue);
}

int
lua_pcallk(lua_State *L, int nargs, int nresults, int errfunc, lua_KContext ctx,
	   lua_KFunction k)
{
	static int (*real)(lua_State *, int, int, int, lua_KContext, lua_KFunction);

	return lookup(&real, "lua_pcallk") < 0
		       ? -1
		       : real(L, nargs, nresults, errfunc, ctx, k);
}

void
lua_pushboolean(lua_State *L, int b)
{
	static void (*real)(lua_State *, int);

	if (lookup(&real, "lua_pushboolean") == 0)
		real(L, b);
}

void
lua_pushcclosure(lua_State *L, lua_CFunction fn, int n)
{
	static void (*real)(lua_State *, lua_CFunction, int);

	if (lookup(&real, "lua_pushcclosure") == 0)
		real(L, fn, n);
}

const char *
lua_pushfstring(lua_State *L, const char *fmt, ...)
{
	static const char *(*real)(lua_State *, const char *, va_list);
	va_list ap;
	const char *s;

	if (lookup(&real, "lua_pushvfstring") < 0)
		return NULL;
	va_start(ap, fmt);
	s = real(L, fmt, ap);
	va_end(ap);
	return s;
}

void
lua_pushinteger(lua_State *L, lua_Integer n)
{
	static void (*real)(lua_State *, lua_Integer);

	if (lookup(&real, "lua_pushinteger") == 0)
		real(L, n);
}

const char *
lua_pushlstring(lua_State *L, const char *s, size_t len)
{
	static const char *(*real)(lua_State *, const char *, size_t);

	return lookup(&real, "lua_pushlstring") < 0 ? NULL : real(L, s, len);
}

void
lua_pushnil(lua_State *L)
{
	static void (*real)(lua_State *);

	if (lookup(&real, "lua_pushnil") == 0)
		real(L);
}

const char *
lua_pushstring(lua_State *L, const char *s)
{
	static const char *(*real)(lua_State *, const char *);

	return lookup(&real, "lua_pushstring") < 0 ? NULL : real(L, s);
}

void
lua_pushvalue(lua_State *L, int idx)
{
	static void (*real)(lua_State *, int);

	if (lookup(&real, "lua_pushvalue") == 0)
		real(L, idx);
}

int
lua_rawget(lua_State *L, int idx)
{
	static int (*real)(lua_State *, int);

	return lookup(&real, "lua_rawget") < 0 ? -1 : real(L, idx);
}

int
lua_rawgeti(lua_State *L, int idx, lua_Integer n)
{
	static int (*real)(lua_State *, int, lua_Integer);

	return lookup(&real, "lua_rawgeti") < 0 ? -1 : real(L, idx, n);
}

void
lua_rawseti(lua_State *L, int idx, lua_Integer n)
{
	static void (*real)(lua_State *, int, lua_Integer);

	if (lookup(&real, "lua_rawseti") == 0)
		real(L, idx, n);
}

void
lua_rotate(lua_State *L, int idx, int n)
{
	static void (*real)(lua_State *, int, int);

	if (lookup(&real, "lua_rotate") == 0)
		real(L, idx, n);
}

void
lua_setfield(lua_State *L, int idx, const char *k)
{
	static void (*real)(lua_State *, int, const char *);

	if (lookup(&real, "lua_setfield") == 0)
		real(L, idx, k);
}

void
lua_sethook(lua_State *L, lua_Hook func, int mask, int count)
{
	static void (*real)(lua_State *, lua_Hook, int, int);

	if (lookup(&real, "lua_sethook") == 0)
		real(L, func, mask, count);
}

int
lua_setmetatable(lua_State *L, int objindex)
{
	static int (*real)(lua_State *, int);

	return lookup(&real, "lua_setmetatable") < 0 ? -1 : real(L, objindex);
}

void
lua_settop(lua_State *L, int idx)
{
	static void (*real)(lua_State *, int);

	if (lookup(&real, "lua_settop") == 0)
		real(L, idx);
}

const char *
lua_setupvalue(lua_State *L, int funcindex, int n)
{
	static const char *(*real)(lua_State *, int, int);

	return lookup(&real, "lua_setupvalue") < 0 ? NULL : real(L, funcindex, n);
}

const char *
lua_tolstring(lua_State *L, int idx, size_t *len)
{
	static const char *(*real)(lua_State *, int, size_t *);

	return lookup(&real, "lua_tolstring") < 0 ? NULL : real(L, idx, len);
}

int
lua_type(lua_State *L, int idx)
{
	static int (*real)(lua_State *, int);

	return lookup(&real, "lua_type") < 0 ? 0 : real(L, idx);
}

const char *
lua_typename(lua_State *L, int tp)
{
	static const char *(*real)(lua_State *, int);

	return lookup(&real, "lua_typename") < 0 ? NULL : real(L, tp);
}

int
luaopen_base(lua_State *L)
{
	static int (*real)(lua_State *);

	return lookup(&real, "luaopen_base") < 0 ? -1 : real(L);
}

int
luaopen_math(lua_State *L)
{
	static int (*real)(lua_State *);

	return lookup(&real, "luaopen_math") < 0 ? -1 : real(L);
}

int
luaopen_string(lua_State *L)
{
	static int (*real)(lua_State *);

	return lookup(&real, "luaopen_string") < 0 ? -1 : real(L);
}

int
luaopen_table(lua_State *L)
{
	static int (*real)(lua_State *);

	return lookup(&real, "luaopen_table") < 0 ? -1 : real(L);
}

int
luaopen_utf8(lua_State *L)
{
	static int (*real)(lua_State *);

	return lookup(&real, "luaopen_utf8") < 0 ? -1 : real(L);
}
