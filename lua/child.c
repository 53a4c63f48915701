/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * child.c -- the Lua helper process: give up what it does not need
 * (signal handlers, file descriptors, privileges, resources), load the
 * script, then serve one request at a time until the caller goes.
 *
 * It trusts nothing but the socket to its parent, and its parent trusts
 * nothing it says.  It never returns; it leaves with _exit() so that
 * nothing of the caller's (stdio buffers, atexit handlers) runs twice.
 */
#include "hooks_private.h"

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHILD_FD  3
#define CPU_LIMIT 3600 /* s of CPU in a helper's life: a backstop only */
#define AS_SLACK  (64L << 20)

static void
send_msg(struct sandbox *s, const struct wbuf *w)
{
	if (w->full || send(s->fd, w->p, w->len, MSG_NOSIGNAL) < 0)
		_exit(3); /* the caller is gone, or a bug: either way, stop */
}

static void ATTR_NORETURN fail(struct sandbox *s, const char *fmt, ...)
	ATTR_PRINTF(2, 3);

static void
fail(struct sandbox *s, const char *fmt, ...)
{
	unsigned char buf[HOOKS_TEXT_MAX + 16];
	struct wbuf w = { .p = buf, .cap = sizeof(buf) };
	char m[HOOKS_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	wput_u8(&w, W_FAILED);
	wput_bytes(&w, m, strlen(m));
	send_msg(s, &w);
	_exit(1);
}

void
child_log(struct sandbox *s, enum hooks_level level, const char *msg)
{
	unsigned char buf[HOOKS_TEXT_MAX + 16];
	struct wbuf w = { .p = buf, .cap = sizeof(buf) };
	size_t len = strnlen(msg, HOOKS_TEXT_MAX);

	wput_u8(&w, W_LOG);
	wput_u8(&w, level);
	wput_bytes(&w, msg, len);
	send_msg(s, &w);
}

int
child_ask(struct sandbox *s, int what, long long id, const char *key, char *buf,
	  size_t len)
{
	unsigned char q[HOOKS_DEST_MAX * 4 + 64];
	struct wbuf w = { .p = q, .cap = sizeof(q) };

	wput_u8(&w, W_ASK);
	wput_u8(&w, (unsigned)what);
	wput_i64(&w, id);
	wput_str(&w, key);
	if (w.full)
		return -ENAMETOOLONG; /* a key that long names nothing */
	send_msg(s, &w);

	ssize_t n = recv(s->fd, s->reply, HOOKS_MSG_MAX, 0);
	if (n <= 0)
		_exit(0); /* the caller gave up on us */
	struct rbuf r = { .p = s->reply, .len = (size_t)n };
	size_t blen;
	if (rget_u8(&r) != W_REPLY)
		_exit(2);
	bool present = rget_u8(&r) != 0;
	const void *b = rget_bytes(&r, &blen);
	if (r.bad)
		_exit(2);
	if (!present || len == 0)
		return -ENOENT;
	if (blen > len - 1)
		blen = len - 1;
	memcpy(buf, b, blen);
	buf[blen] = '\0';
	return (int)blen;
}

/* ---- setting up ------------------------------------------------------------- */

static void
reset_signals(void)
{
	sigset_t all;

	/* all blocked since the fork: reset the caller's handlers, unblock */
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL); /* fails harmlessly for SIGKILL and the like */
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
}

/* Keep only stdin/out/err and the socket, as CHILD_FD; CHILD_FD or
 * -errno. */
static int
close_fds(int fd)
{
	if (fd != CHILD_FD) {
		if (dup2(fd, CHILD_FD) < 0)
			return -errno;
	}
#ifdef SYS_close_range
	if (syscall(SYS_close_range, CHILD_FD + 1, ~0U, 0) == 0)
		return CHILD_FD;
#endif
	struct rlimit rl;
	long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
			   ? (long)rl.rlim_cur
			   : 65536;
	for (long i = CHILD_FD + 1; i < max && i < 1048576; i++)
		close((int)i);
	return CHILD_FD;
}

/* Address space now, from our own /proc/self/statm; 0 if unknown. */
static unsigned long
vm_size(void)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long pages = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu", &pages) != 1)
		pages = 0;
	fclose(f);
	return pages * (unsigned long)sysconf(_SC_PAGESIZE);
}

/* Backstops; the real limits are the memory cap and the caller's
 * deadline.  A helper that cannot set one does not run at all. */
static void
set_limits(struct sandbox *s, const struct hooks *h)
{
	struct rlimit cpu = { CPU_LIMIT, CPU_LIMIT }, zero = { 0, 0 };
	unsigned long vm = vm_size();

	if (setrlimit(RLIMIT_CPU, &cpu) < 0)
		fail(s, "%s: Lua helper: RLIMIT_CPU: %s", h->script, strerror(errno));
	if (setrlimit(RLIMIT_CORE, &zero) < 0)
		fail(s, "%s: Lua helper: RLIMIT_CORE: %s", h->script, strerror(errno));
	if (vm == 0)
		fail(s, "%s: Lua helper: cannot read its own size for RLIMIT_AS", h->script);
	/* room for the Lua state (twice: realloc copies) and some slack */
	struct rlimit as;
	as.rlim_cur = as.rlim_max = vm + 2 * (unsigned long)h->opts.memory + AS_SLACK;
	if (setrlimit(RLIMIT_AS, &as) < 0)
		fail(s, "%s: Lua helper: RLIMIT_AS: %s", h->script, strerror(errno));
}

static void
drop_privileges(struct sandbox *s, const struct hooks *h)
{
	uid_t u = h->opts.run_uid;
	gid_t g = h->opts.run_gid;

	if (!h->opts.drop_privileges)
		return;
	if (setgroups(0, NULL) < 0)
		fail(s, "%s: Lua helper: setgroups: %s", h->script, strerror(errno));
	if (setresgid(g, g, g) < 0)
		fail(s, "%s: Lua helper: cannot switch to gid %ld: %s", h->script,
		     (long)g, strerror(errno));
	if (setresuid(u, u, u) < 0)
		fail(s, "%s: Lua helper: cannot switch to uid %ld: %s", h->script,
		     (long)u, strerror(errno));
	if (u != 0 && setuid(0) == 0)
		fail(s, "%s: Lua helper: could get root back", h->script);
}

static void
set_up(struct sandbox *s, struct hooks *h, pid_t parent)
{
	/* as nobody this process is not dumpable: others of that user
	 * cannot ptrace it; the death signal is set after the id change,
	 * which would clear it */
	set_limits(s, h);
	drop_privileges(s, h);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail(s, "%s: Lua helper: no-new-privs: %s", h->script, strerror(errno));
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		fail(s, "%s: Lua helper: non-dumpable: %s", h->script, strerror(errno));
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(0);
}

/* ---- the script ------------------------------------------------------------- */

/* The error at the top of the stack, prefixed by the file name when
 * Lua did not put a position in it; then fail. */
static void ATTR_NORETURN load_error(struct sandbox *s, const char *m)
{
	size_t n = strlen(s->script);

	if (strncmp(m, s->script, n) == 0 && m[n] == ':')
		fail(s, "%s", m);
	fail(s, "%s: %s", s->script, m);
}

/* Compile, run the main chunk, then init(); tells the caller. */
static void
load(struct sandbox *s, const struct hooks *h)
{
	lua_State *L = s->L;
	char chunk[4096];

	snprintf(chunk, sizeof(chunk), "@%s", s->script);
	if (luaL_loadbufferx(L, h->text, h->textlen, chunk, "t") != LUA_OK)
		load_error(s, lua_tostring(L, -1));
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->env_ref);
	lua_setupvalue(L, -2, 1); /* the chunk's _ENV */
	if (sandbox_pcall(s, 0) < 0)
		load_error(s, s->err);
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->env_ref);
	if (lua_getfield(L, -1, "init") == LUA_TFUNCTION && sandbox_pcall(s, 0) < 0)
		load_error(s, s->err);
	lua_settop(L, 0);
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->env_ref);
	if (lua_getfield(L, -1, "classify") == LUA_TFUNCTION)
		s->classify_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_settop(L, 0);

	unsigned char buf[16];
	struct wbuf w = { .p = buf, .cap = sizeof(buf) };
	wput_u8(&w, W_LOADED);
	wput_u8(&w, s->classify_ref != LUA_NOREF);
	send_msg(s, &w);
}

/* ---- serving ---------------------------------------------------------------- */

struct call_state {
	gid_t *groups;
	struct hooks_slot *slots, *scratch;
	size_t nslots;
};

static void
serve_call(struct sandbox *s, struct call_state *c, const unsigned char *msg, size_t len,
	   unsigned char *out)
{
	struct rbuf r = { .p = msg, .len = len };
	struct wbuf w = { .p = out, .cap = HOOKS_MSG_MAX };
	struct hooks_task t;
	size_t n, had = c->nslots;

	if (wire_get_call(&r, &t, &c->groups, &c->slots, &c->nslots, &n) < 0)
		_exit(2);
	if (c->nslots > had || c->scratch == NULL) {
		free(c->scratch);
		if ((c->scratch = calloc(c->nslots + 1, sizeof(*c->scratch))) == NULL)
			_exit(4);
	}
	s->cur = &t;
	s->slots = c->slots;
	s->scratch = c->scratch;
	s->n = n;
	if (s->classify_ref == LUA_NOREF) {
		snprintf(s->err, sizeof(s->err), "the script has no classify()");
	} else {
		lua_pushcfunction(s->L, task_classify_body);
		if (sandbox_pcall(s, 0) == 0)
			wire_put_answer(&w, c->scratch, n);
	}
	s->cur = NULL;
	if (w.len == 0) {
		wput_u8(&w, W_FAILED);
		wput_bytes(&w, s->err, strlen(s->err));
	}
	send_msg(s, &w);
}

static void ATTR_NORETURN serve(struct sandbox *s)
{
	unsigned char *in = malloc(HOOKS_MSG_MAX), *out = malloc(HOOKS_MSG_MAX);
	struct call_state c = { 0 };

	if (in == NULL || out == NULL)
		_exit(4);
	for (;;) {
		ssize_t n = recv(s->fd, in, HOOKS_MSG_MAX, 0);
		if (n <= 0)
			_exit(0); /* the caller closed the socket */
		if (in[0] == W_CALL) {
			serve_call(s, &c, in, (size_t)n, out);
		} else if (in[0] == W_DEPTH) {
			struct wbuf w = { .p = out, .cap = HOOKS_MSG_MAX };
			wput_u8(&w, W_DEPTH_IS);
			wput_i64(&w, lua_gettop(s->L));
			send_msg(s, &w);
		} else {
			_exit(2);
		}
	}
}

void
child_main(struct hooks *h, int fd)
{
	static struct sandbox sb;
	struct sandbox *s = &sb;
	pid_t parent = h->owner; /* set before the fork */

	reset_signals();
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->script = h->script;
	s->instructions = h->opts.instructions;
	s->mem_cap = (size_t)h->opts.memory;
	s->classify_ref = LUA_NOREF;
	int rc = close_fds(fd);
	if (rc < 0)
		fail(s, "%s: Lua helper: dup2: %s", h->script, strerror(-rc));
	s->fd = rc;
	char why[256];
	if (luaload_open(why, sizeof(why)) < 0)
		fail(s, "%s: Lua helper: %s", h->script, why);
	set_up(s, h, parent);
	if ((s->reply = malloc(HOOKS_MSG_MAX)) == NULL)
		fail(s, "%s: out of memory", h->script);
	if (sandbox_new(s) == NULL)
		fail(s, "%s: cannot create the Lua state (lua-memory too small?)",
		     h->script);
	load(s, h);
	serve(s);
}
