/*
 * hooks.c -- load a hook script and call it; see hooks.h.
 */
#include "hooks_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCRIPT_MAX (1 << 20)

/* Read the whole script; a malloc'd buffer or NULL with err set. */
static char *
slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf;

	if (f == NULL) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if ((buf = malloc(SCRIPT_MAX + 1)) == NULL) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	*len = fread(buf, 1, SCRIPT_MAX + 1, f);
	bool bad = ferror(f) || *len > SCRIPT_MAX;
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "%s: %s", path,
			 *len > SCRIPT_MAX ? "larger than 1 MiB" : "read error");
		free(buf);
		return NULL;
	}
	return buf;
}

/* Copy the error at the top of the stack, prefixed by the file name
 * when Lua did not put a position in it. */
static void
take_error(struct hooks *h, char *err, size_t errlen)
{
	const char *m =
		lua_type(h->L, -1) == LUA_TSTRING ? lua_tostring(h->L, -1) : "error";
	size_t n = strlen(h->script);

	if (strncmp(m, h->script, n) == 0 && m[n] == ':')
		snprintf(err, errlen, "%s", m);
	else
		snprintf(err, errlen, "%s: %s", h->script, m);
	lua_pop(h->L, 1);
}

static int
compile(struct hooks *h, const char *buf, size_t len, char *err, size_t errlen)
{
	lua_State *L = h->L;
	char chunk[4096];

	snprintf(chunk, sizeof(chunk), "@%s", h->script);
	if (luaL_loadbufferx(L, buf, len, chunk, "t") != LUA_OK) {
		take_error(h, err, errlen);
		return -1;
	}
	lua_rawgeti(L, LUA_REGISTRYINDEX, h->env_ref);
	lua_setupvalue(L, -2, 1); /* the chunk's _ENV */
	return 0;
}

/* Run the function on the stack (no args); 0 or -1 with err set. */
static int
run(struct hooks *h, char *err, size_t errlen)
{
	lua_State *L = h->L;

	sandbox_arm(h);
	if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
		take_error(h, err, errlen);
		return -1;
	}
	return 0;
}

/* Push env[name] if it is a function; true if pushed. */
static bool
get_function(struct hooks *h, const char *name)
{
	lua_rawgeti(h->L, LUA_REGISTRYINDEX, h->env_ref);
	lua_getfield(h->L, -1, name);
	lua_remove(h->L, -2);
	if (lua_type(h->L, -1) == LUA_TFUNCTION)
		return true;
	lua_pop(h->L, 1);
	return false;
}

struct hooks *
hooks_load(const struct hooks_options *opts, char *err, size_t errlen)
{
	struct hooks *h = calloc(1, sizeof(*h));
	size_t len;
	char *buf = NULL;

	if (h == NULL) {
		snprintf(err, errlen, "%s: out of memory", opts->script);
		return NULL;
	}
	h->opts = *opts;
	h->mem_cap = (size_t)opts->memory;
	h->classify_ref = LUA_NOREF;
	if ((h->script = strdup(opts->script)) == NULL ||
	    (buf = slurp(opts->script, &len, err, errlen)) == NULL)
		goto fail;
	if (sandbox_new(h) == NULL) {
		snprintf(err, errlen,
			 "%s: cannot create the Lua state (lua-memory too small?)",
			 opts->script);
		goto fail;
	}
	if (compile(h, buf, len, err, errlen) < 0 || run(h, err, errlen) < 0)
		goto fail;
	if (get_function(h, "init") && run(h, err, errlen) < 0)
		goto fail;
	if (get_function(h, "classify"))
		h->classify_ref = luaL_ref(h->L, LUA_REGISTRYINDEX);
	free(buf);
	return h;
fail:
	free(buf);
	hooks_free(h);
	return NULL;
}

void
hooks_free(struct hooks *h)
{
	if (h == NULL)
		return;
	if (h->L != NULL)
		lua_close(h->L); /* releases every registry reference */
	free(h->scratch);
	free(h->script);
	free(h);
}

bool
hooks_has_classify(const struct hooks *h)
{
	return h != NULL && h->classify_ref != LUA_NOREF;
}

int
hooks_classify(struct hooks *h, const struct hooks_task *task, struct hooks_slot *slots,
	       size_t n)
{
	struct classify_ctx ctx = { .h = h, .slots = slots, .n = n };

	if (!hooks_has_classify(h))
		return 0;
	if (n > h->nscratch) {
		struct hooks_slot *s = realloc(h->scratch, n * sizeof(*s));

		if (s == NULL)
			return -1;
		h->scratch = s;
		h->nscratch = n;
	}
	h->stats.calls++;
	h->cur = task;
	lua_pushcfunction(h->L, task_classify_body);
	lua_pushlightuserdata(h->L, &ctx);
	int rc = sandbox_pcall(h, 1, "Lua hook classify() failed");
	h->cur = NULL;
	if (rc < 0)
		return -1;
	memcpy(slots, h->scratch, n * sizeof(*slots));
	return 0;
}

const struct hooks_stats *
hooks_stats(const struct hooks *h)
{
	return &h->stats;
}

int
hooks_stack_depth(const struct hooks *h)
{
	return lua_gettop(h->L);
}
