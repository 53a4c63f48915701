/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hooks.c -- the hooks object as the caller sees it; see hooks.h.
 *
 * Why a helper process: an instruction budget (a count hook) only
 * counts Lua instructions.  Time spent inside one C function -- a
 * pattern match with backtracking over a user-controlled command line,
 * string.rep of an empty string a trillion times -- is not counted,
 * and finalizers (__gc) run with hooks off.  Neither can be stopped
 * from inside the process without longjmp-ing out of arbitrary C code.
 * A separate process can be: the caller waits with poll() until the
 * helper has used timeout_ms of CPU time (or five times that has passed
 * on the clock, for a helper that gets no CPU), then SIGKILLs it.  CPU
 * time rather than only the clock, so that a busy machine, where a
 * healthy hook may wait long for a CPU, does not get its hooks killed.
 * The helper also runs without privileges, so a bug in Lua or in a
 * hook cannot act as root.
 *
 * No Lua runs in this process, and nothing here waits without a
 * deadline.
 */
#include "hooks_private.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A lost helper is started again at once, then after 1, 2, 4 ... 60 s. */
static const struct backoff helper_backoff = { .first = 1, .max = 60, .free = 1 };

#define SCRIPT_MAX  (1 << 20)

void
hooks_log(struct hooks *h, enum hooks_level level, const char *msg)
{
	char line[HOOKS_TEXT_MAX + 256];

	if (h->opts.log == NULL)
		return;
	if (h->tag != NULL) {
		snprintf(line, sizeof(line), "%s%s", h->tag, msg);
		msg = line;
	}
	h->opts.log(h->opts.arg, level, msg);
}

void
hooks_log_failure(struct hooks *h, const char *what, const char *msg)
{
	char line[HOOKS_TEXT_MAX + 256];
	double t = mono_s();

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
	hooks_log(h, HOOKS_WARNING, line);
}

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

struct hooks *
hooks_load(const struct hooks_options *opts, char *err, size_t errlen)
{
	struct hooks *h = calloc(1, sizeof(*h));

	if (h == NULL) {
		snprintf(err, errlen, "%s: out of memory", opts->script);
		return NULL;
	}
	h->opts = *opts;
	h->restart = helper_backoff;
	h->pid = -1;
	h->pidfd = h->fd = -1;
	h->cmdlen = -1;
	h->timeout_ms =
		opts->timeout_ms > 0 ? opts->timeout_ms : HOOKS_TIMEOUT_DEFAULT_MS;
	h->script = strdup(opts->script);
	h->msg = malloc(HOOKS_MSG_MAX);
	h->cmdline = malloc(HOOKS_CMDLINE_MAX);
	if (h->script == NULL || h->msg == NULL || h->cmdline == NULL) {
		snprintf(err, errlen, "%s: out of memory", opts->script);
		goto fail;
	}
	h->opts.script = h->script;
	if ((h->text = slurp(h->script, &h->textlen, err, errlen)) == NULL)
		goto fail;
	if (helper_start(h, &h->has_classify, err, errlen) < 0)
		goto fail;
	if (!h->has_classify)
		helper_stop(h); /* init() ran; nothing will be asked of it */
	return h;
fail:
	hooks_free(h);
	return NULL;
}

struct hooks *
hooks_clone(const struct hooks *h, const char *tag)
{
	struct hooks *c = h != NULL ? calloc(1, sizeof(*c)) : NULL;

	if (c == NULL)
		return NULL;
	c->opts = h->opts;
	c->restart = helper_backoff;
	c->pid = -1;
	c->pidfd = c->fd = -1;
	c->cmdlen = -1;
	c->timeout_ms = h->timeout_ms;
	c->has_classify = h->has_classify;
	c->fresh = true;
	c->script = strdup(h->script);
	c->tag = tag != NULL ? strdup(tag) : NULL;
	c->text = malloc(h->textlen + 1);
	c->msg = malloc(HOOKS_MSG_MAX);
	c->cmdline = malloc(HOOKS_CMDLINE_MAX);
	if (c->script == NULL || c->text == NULL || c->msg == NULL ||
	    c->cmdline == NULL || (tag != NULL && c->tag == NULL)) {
		hooks_free(c);
		return NULL;
	}
	c->opts.script = c->script;
	memcpy(c->text, h->text, h->textlen);
	c->text[h->textlen] = '\0';
	c->textlen = h->textlen;
	return c;
}

void
hooks_free(struct hooks *h)
{
	if (h == NULL)
		return;
	helper_stop(h);
	free(h->scratch);
	free(h->text);
	free(h->cmdline);
	free(h->msg);
	free(h->script);
	free(h->tag);
	free(h);
}

bool
hooks_has_classify(const struct hooks *h)
{
	return h != NULL && h->has_classify;
}

/* The helper is gone (or never answered in time): note it for the
 * back-off.  The first restart is immediate, then 1 s, 2 s, 4 s, ... */
static void
lost_helper(struct hooks *h)
{
	helper_stop(h);
	h->next_start = mono_s() + backoff_fail(&h->restart);
}

/* Make sure a helper is there; 0, or -errno with err set: -EAGAIN
 * while the back-off holds, else what helper_start() returned. */
static int
ensure_helper(struct hooks *h, char *err, size_t errlen)
{
	bool has_classify;
	int rc;

	if (helper_alive(h))
		return 0;
	if (h->pid != -1 && h->owner != getpid()) {
		/* we are a forked copy: the helper is our parent's */
		helper_stop(h);
	} else {
		if (h->pid != -1)
			lost_helper(h); /* it died between two calls */
		double wait = h->next_start - mono_s();
		if (wait > 0) {
			snprintf(err, errlen,
				 "the Lua helper is down (next start in %.0f s)",
				 wait < 1 ? 1 : wait);
			return -EAGAIN;
		}
		if (!h->fresh) /* a clone's first helper is no restart */
			h->stats.restarts++;
		h->fresh = false;
	}
	if ((rc = helper_start(h, &has_classify, err, errlen)) < 0) {
		char line[HOOKS_TEXT_MAX + 128];

		lost_helper(h);
		snprintf(line, sizeof(line), "cannot start the Lua helper again: %s",
			 err);
		hooks_log(h, HOOKS_ERROR, line);
		snprintf(err, errlen, "the Lua helper failed to start");
		return rc;
	}
	return 0;
}

/* One exchange: send the call, wait for the answer, validate it.  0, or
 * -errno with err set: -EMSGSIZE, helper_send()'s, helper_wait()'s, or
 * hooks_answer_parse()'s (-ECANCELED: the hook failed). */
static int
call(struct hooks *h, const struct hooks_task *task, struct hooks_slot *slots, size_t n,
     char *err, size_t errlen)
{
	struct wbuf w = { .p = h->msg, .cap = HOOKS_MSG_MAX };

	wire_put_call(&w, task, slots, n);
	if (w.full) {
		snprintf(err, errlen, "the task and decision do not fit in one message");
		return -EMSGSIZE;
	}
	h->cur = task;
	h->cmdlen = -1;
	int rc = helper_send(h, w.p, w.len);
	ssize_t len = rc < 0 ? rc : helper_wait(h, h->timeout_ms, err, errlen);
	h->cur = NULL;
	if (rc < 0)
		snprintf(err, errlen, "cannot reach the Lua helper: %s", strerror(-rc));
	if (len == -ETIMEDOUT || len == -ETIME)
		h->stats.timeouts++;
	if (len == -ETIMEDOUT)
		snprintf(
			err, errlen,
			"timed out after %ld ms of CPU time (lua-timeout); helper killed",
			h->timeout_ms);
	if (len == -ETIME)
		snprintf(
			err, errlen,
			"no answer within %ld ms (%d x lua-timeout; the helper got too little CPU time); helper killed",
			h->timeout_ms * HOOKS_WALL_FACTOR, HOOKS_WALL_FACTOR);
	if (len < 0) {
		lost_helper(h);
		return (int)len;
	}
	rc = hooks_answer_parse(h->msg, (size_t)len, slots, h->scratch, n, err, errlen);
	if (rc == -EPROTO) {
		char m[HOOKS_TEXT_MAX + 64];

		snprintf(m, sizeof(m),
			 "invalid answer from the Lua helper (%s); helper killed", err);
		snprintf(err, errlen, "%.*s", (int)(errlen - 1), m);
		lost_helper(h);
	}
	if (rc == -EPROTO)
		return rc;
	backoff_reset(&h->restart); /* a helper that answers is a healthy one */
	if (rc < 0)
		return rc; /* the hook failed: its message is in err */
	memcpy(slots, h->scratch, n * sizeof(*slots));
	return 0;
}

int
hooks_classify(struct hooks *h, const struct hooks_task *task, struct hooks_slot *slots,
	       size_t n)
{
	char err[HOOKS_TEXT_MAX];
	int rc;

	if (!hooks_has_classify(h))
		return 0;
	if (n > h->nscratch) {
		struct hooks_slot *s = realloc(h->scratch, n * sizeof(*s));

		if (s == NULL)
			return -ENOMEM;
		h->scratch = s;
		h->nscratch = n;
	}
	h->stats.calls++;
	if ((rc = ensure_helper(h, err, sizeof(err))) == 0)
		rc = call(h, task, slots, n, err, sizeof(err));
	if (rc < 0) {
		h->stats.errors++;
		hooks_log_failure(h, "Lua hook classify() failed", err);
	}
	return rc;
}

const struct hooks_stats *
hooks_stats(const struct hooks *h)
{
	return &h->stats;
}

pid_t
hooks_helper_pid(const struct hooks *h)
{
	return h != NULL ? h->pid : -1;
}

int
hooks_stack_depth(struct hooks *h)
{
	unsigned char q = W_DEPTH;
	char err[HOOKS_TEXT_MAX];
	int rc;

	if (h->fd < 0)
		return -ESRCH;
	if ((rc = helper_send(h, &q, 1)) < 0)
		return rc;
	ssize_t len = helper_wait(h, h->timeout_ms, err, sizeof(err));
	if (len < 0) {
		lost_helper(h); /* an answer arriving later would confuse a call */
		return (int)len;
	}
	struct rbuf r = { .p = h->msg, .len = (size_t)len };
	int type = (int)rget_u8(&r);
	int64_t d = rget_i64(&r);
	return type != W_DEPTH_IS || r.bad ? -EPROTO : (int)d;
}
