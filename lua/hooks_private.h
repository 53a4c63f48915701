/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hooks_private.h -- shared between the files of lua/ only.
 *
 * Two processes: the caller (hooks.c, helper.c) holds a struct hooks
 * and never runs Lua; the helper (child.c, sandbox.c, task.c) holds a
 * struct sandbox with the Lua state.  wire.c is the protocol between
 * them: one request or answer per SOCK_SEQPACKET message.
 */
#ifndef CGENGINE_HOOKS_PRIVATE_H
#define CGENGINE_HOOKS_PRIVATE_H

#include "hooks.h"

#include <lauxlib.h>
#include <lua.h>
#include <time.h>

#define HOOKS_MSG_MAX	  (160 * 1024) /* one message, either way */
#define HOOKS_CMDLINE_MAX 65536	       /* bytes of a command line */
#define HOOKS_TEXT_MAX	  1024	       /* a log line or error message */
#define HOOKS_WALL_FACTOR 5	       /* wall-clock limit / CPU limit */
#define HOOKS_LOGS_MAX	  100	       /* log lines per call (or load) */

/* ---- the caller's side ----------------------------------------------- */

struct hooks {
	struct hooks_options opts;
	char *script; /* the path (opts.script points here) */
	char *text;   /* the script, read once, for every helper */
	size_t textlen;
	long timeout_ms;    /* per classify() call */
	bool has_classify;  /* as the first helper found it */
	pid_t pid;	    /* the helper, or -1 */
	int pidfd;	    /* its pidfd, or -1 */
	clockid_t cpuclock; /* its CPU-time clock, if has_cpuclock */
	bool has_cpuclock;
	int fd;			      /* our end of the socketpair, or -1 */
	pid_t owner;		      /* the process that started the helper */
	struct backoff restart;	      /* helpers lost in a row: at once, 1, 2 ... 60 s */
	double next_start;	      /* no new helper before this time */
	bool fresh;		      /* no helper started yet (a clone): no restart */
	char *tag;		      /* a clone's: starts each line it logs, or NULL */
	unsigned char *msg;	      /* HOOKS_MSG_MAX bytes */
	char *cmdline;		      /* HOOKS_CMDLINE_MAX bytes, read once per call */
	int cmdlen;		      /* its length, or -1 if not read in this call */
	const struct hooks_task *cur; /* the task of the call in progress */
	unsigned nlogs;		      /* log lines in this call */
	struct hooks_slot *scratch;   /* the answer before it is accepted */
	size_t nscratch;
	struct hooks_stats stats;
	double last_log;
	unsigned suppressed;
};

/* hooks.c */
void hooks_log(struct hooks *h, enum hooks_level level, const char *msg);
/* Log a failure at warning level, at most once a second. */
void hooks_log_failure(struct hooks *h, const char *what, const char *msg);

/* helper.c: the helper process seen from the caller */
/* Start a helper and wait until it has loaded the script; 0, or -errno
 * with err set ("file:line: message"): -ECANCELED when the script failed
 * to load, socketpair()'s or fork()'s errno, or as helper_wait().
 * *has_classify tells what it found. */
int helper_start(struct hooks *h, bool *has_classify, char *err, size_t errlen);
/* Kill and reap the helper (bounded wait), forget it. */
void helper_stop(struct hooks *h);
/* Is the helper there and alive, and ours? */
bool helper_alive(struct hooks *h);
/* Send one message; 0 or -errno. */
int helper_send(struct hooks *h, const void *buf, size_t len);
/*
 * Wait for the next message from the helper that is not a request
 * (those are served on the way: logs, names, cmdline, cgroup) until it
 * has used cpu_ms of CPU time in this wait, or HOOKS_WALL_FACTOR times
 * that of wall-clock time has passed.  Its length, or -ETIMEDOUT (CPU
 * limit), -ETIME (wall-clock limit), -EPIPE (the helper died), -EPROTO
 * (it broke the protocol); err says what.
 */
ssize_t helper_wait(struct hooks *h, long cpu_ms, char *err, size_t errlen);

/* ---- the helper's side ---------------------------------------------- */

struct sandbox {
	lua_State *L;
	const char *script;
	long instructions;
	size_t mem_used, mem_cap;
	long budget_left;
	long step;			/* instructions between two budget checks */
	int env_ref;			/* the sandbox's _ENV table */
	int classify_ref;		/* classify(), or LUA_NOREF */
	int task_ref;			/* the reusable task userdata */
	int cache_ref;			/* per-call cache of lazy task fields */
	int fd;				/* the socket to the caller */
	unsigned char *reply;		/* HOOKS_MSG_MAX bytes for answers to asks */
	const struct hooks_task *cur;	/* the task of the call in progress */
	const struct hooks_slot *slots; /* its input slots */
	struct hooks_slot *scratch;	/* the hook's answer */
	size_t n;
	char err[HOOKS_TEXT_MAX]; /* the last error */
};

/* child.c */
/* The helper's main: never returns. */
void child_main(struct hooks *h, int fd) ATTR_NORETURN;

/* Load Lua's library (luaload.c): in the helper, before its limits and
 * its drop of privileges; 0, or -1 with dlerror()'s words in err. */
int luaload_open(char *err, size_t errlen);
/* Ask the caller (ASK_* below); the answer is copied into buf (NUL
 * added), its length returned, or -ENOENT when there is none
 * (-ENAMETOOLONG: key is too long to ask about). */
int child_ask(struct sandbox *s, int what, long long id, const char *key, char *buf,
	      size_t len);
/* Send a log line to the caller. */
void child_log(struct sandbox *s, enum hooks_level level, const char *msg);

/* sandbox.c */
lua_State *sandbox_new(struct sandbox *s);
/* Reset the instruction budget before a call. */
void sandbox_arm(struct sandbox *s);
/* Run the function below its nargs arguments under a message handler;
 * 0, or with the error message in s->err -ENOMEM (the memory cap) or
 * -ECANCELED (any other error).  The stack is restored. */
int sandbox_pcall(struct sandbox *s, int nargs);
struct sandbox *sandbox_of(lua_State *L);
/* Names asked of the caller, pushed, or nil when unknown. */
void sandbox_push_user(lua_State *L, uid_t uid);
void sandbox_push_group(lua_State *L, gid_t gid);

/* task.c */
void task_register(lua_State *L);
/* Lua C function: run one classify() call for the sandbox's current
 * task; the answer goes to s->scratch. */
int task_classify_body(lua_State *L);

/* ---- wire.c: the protocol ------------------------------------------------ */

enum wire_type {
	/* caller -> helper */
	W_CALL = 1, /* task, slots */
	W_REPLY,    /* to W_ASK: u8 present, bytes */
	W_DEPTH,    /* what is the Lua stack depth? */
	/* helper -> caller */
	W_LOADED,   /* u8 has_classify */
	W_FAILED,   /* bytes: message (load or call failed) */
	W_ANSWER,   /* u32 n, n x (u8 set, [str dest]) */
	W_LOG,	    /* u8 level, bytes: message */
	W_ASK,	    /* u8 what, i64 id, str key */
	W_DEPTH_IS, /* i64 depth */
};

enum wire_ask {
	ASK_CMDLINE = 1,
	ASK_CGROUP, /* key = hierarchy */
	ASK_USER,   /* id = uid */
	ASK_GROUP,  /* id = gid */
};

struct wbuf {
	unsigned char *p;
	size_t len, cap;
	bool full; /* something did not fit */
};

struct rbuf {
	const unsigned char *p;
	size_t len, off;
	bool bad; /* read past the end, or a malformed string */
};

void wput_u8(struct wbuf *w, unsigned v);
void wput_u32(struct wbuf *w, uint32_t v);
void wput_i64(struct wbuf *w, int64_t v);
void wput_bytes(struct wbuf *w, const void *p, size_t len);
void wput_str(struct wbuf *w, const char *s); /* NULL = absent */
unsigned rget_u8(struct rbuf *r);
uint32_t rget_u32(struct rbuf *r);
int64_t rget_i64(struct rbuf *r);
/* Bytes as put by wput_bytes; a pointer into the buffer. */
const void *rget_bytes(struct rbuf *r, size_t *len);
/* A string as put by wput_str: NUL-terminated in the buffer, no NUL
 * inside; NULL if it was absent (or the buffer is bad). */
const char *rget_str(struct rbuf *r);

/* A call: the task's eager fields and the slots. */
void wire_put_call(struct wbuf *w, const struct hooks_task *t,
		   const struct hooks_slot *slots, size_t n);
/* Decode a call into t (groups into *groups, realloc'd) and *slots
 * (realloc'd, *nslots updated); strings point into the buffer.  0,
 * -EPROTO (malformed) or -ENOMEM. */
int wire_get_call(struct rbuf *r, struct hooks_task *t, gid_t **groups,
		  struct hooks_slot **slots, size_t *nslots, size_t *n);
void wire_put_answer(struct wbuf *w, const struct hooks_slot *slots, size_t n);
/* Why a destination chosen by a hook is unacceptable, or NULL. */
const char *hooks_dest_problem(const char *s, size_t len);
/* Copy text into buf, control characters replaced by '?'. */
void wire_clean(char *buf, size_t size, const char *text, size_t len);

#endif
