/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdbus.c -- the systemd backend's transport (see sdbus.h): each call of
 * the move queue becomes a Manager method call to PID 1, sent
 * asynchronously; its answer, read into a struct mq_error, and the end
 * of a start job (JobRemoved) go back to the queue; a unit of the
 * layout that systemd unloaded (UnitRemoved: a scope collected) goes
 * to the loop, so that its id leaves the nft sets.  PID 1's private
 * socket when it can be used (root, no broker between), else the system
 * bus, where only PID 1's signals count.  A lost connection ends the
 * calls in flight; the next one is made after 1, 2, 4 ... 30 s.
 */
#include "engined/backend/systemd/sdbus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

#define CALL_TIMEOUT_US MQ_JOB_WAIT_US /* a call PID 1 has not answered by then is lost */
#define PRIVATE_SOCKET	"unix:path=/run/systemd/private"

struct sdbus {
	sd_bus *bus;
	struct movequeue *q;
	struct sdplace_hooks hooks;
	sdbus_describe_fn *describe;
	sdbus_group_fn *group_of;
	void *arg;	   /* describe's and group_of's */
	uint64_t retry_at; /* reconnect then (monotonic us; 0: connected) */
	bool direct;	   /* on PID 1's private socket (no broker, no sender names) */
	char pid1[64];	   /* on the system bus: PID 1's unique name, from its answers */
	struct backoff reconnect; /* 1, 2, 4 ... 30 s between reconnection attempts */
};

static int connect_bus(struct sdbus *b);
static double backoff(struct sdbus *b);

/* ---- the calls ------------------------------------------------------------------------ */

static int
append_props(sd_bus_message *m, const struct mq_unit *d)
{
	int rc = 0;

	for (size_t i = 0; d != NULL && i < d->nprops && rc >= 0; i++) {
		const struct sdprop *p = &d->props[i];

		if (p->type == 't') {
			rc = sd_bus_message_append(m, "(sv)", p->name, "t", p->u);
			continue;
		}
		if ((rc = sd_bus_message_open_container(m, 'r', "sv")) < 0 ||
		    (rc = sd_bus_message_append(m, "s", p->name)) < 0 ||
		    (rc = sd_bus_message_open_container(m, 'v', "ay")) < 0 ||
		    (rc = sd_bus_message_append_array(m, 'y', p->mask, p->masklen)) < 0 ||
		    (rc = sd_bus_message_close_container(m)) < 0)
			break;
		rc = sd_bus_message_close_container(m);
	}
	return rc;
}

/* StartTransientUnit(name, "fail", properties, no auxiliary units). */
static int
msg_start(struct sdbus *b, struct mq_call *k, sd_bus_message *m)
{
	char slice[SDUNIT_NAME_MAX], desc[RULES_DEST_MAX + 32];
	int rc = b->describe(b->arg, k, slice, sizeof(slice), desc, sizeof(desc));

	if (rc < 0)
		return rc;
	if ((rc = sd_bus_message_append(m, "ss", k->unit, "fail")) < 0 ||
	    (rc = sd_bus_message_open_container(m, 'a', "(sv)")) < 0 ||
	    (rc = sd_bus_message_append(m, "(sv)", "Description", "s", desc)) < 0)
		return rc;
	/* a slice's parent is implied by its name (systemd refuses Slice=
	 * for slices); a scope is put in its level's slice, delegated:
	 * systemd attaches processes (AttachProcessesToUnit) only to
	 * delegated units ("Process migration not available on
	 * non-delegated units"); nothing is ever made below the scope */
	if (k->op == MQ_SCOPE &&
	    ((rc = sd_bus_message_append(m, "(sv)", "Slice", "s", slice)) < 0 ||
	     (rc = sd_bus_message_append(m, "(sv)", "PIDs", "au", 1, (uint32_t)k->pid)) <
		     0 ||
	     (rc = sd_bus_message_append(m, "(sv)", "Delegate", "b", 1)) < 0))
		return rc;
	if ((rc = append_props(m, k->def)) < 0 ||
	    (rc = sd_bus_message_close_container(m)) < 0)
		return rc;
	return sd_bus_message_append(m, "a(sa(sv))", 0);
}

static int
msg_body(struct sdbus *b, struct mq_call *k, sd_bus_message *m)
{
	int rc;

	switch (k->op) {
	case MQ_SLICE:
	case MQ_SCOPE:
		return msg_start(b, k, m);
	case MQ_ATTACH:
		return sd_bus_message_append(m, "ssau", k->unit, "", 1, (uint32_t)k->pid);
	case MQ_SET:
		if ((rc = sd_bus_message_append(m, "sb", k->unit, 1)) < 0 ||
		    (rc = sd_bus_message_open_container(m, 'a', "(sv)")) < 0 ||
		    (rc = append_props(m, k->def)) < 0)
			return rc;
		return sd_bus_message_close_container(m);
	case MQ_STOP:
		return sd_bus_message_append(m, "ss", k->unit, "fail");
	case MQ_RESET:
		return sd_bus_message_append(m, "s", k->unit);
	}
	return -EINVAL;
}

static int reply_cb(sd_bus_message *m, void *userdata, sd_bus_error *ret);

int
sdbus_send(void *arg, struct mq_call *k)
{
	struct sdbus *b = arg;
	sd_bus_message *m = NULL;
	int rc;

	if (b->bus == NULL && b->retry_at == 0 && (rc = connect_bus(b)) < 0) {
		log_warning("systemd: cannot connect: %s", strerror(-rc));
		backoff(b);
	}
	if (b->bus == NULL) {
		b->q->lost = true; /* classify again once connected */
		return -ENOTCONN;
	}
	rc = sd_bus_message_new_method_call(
		b->bus, &m, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
		"org.freedesktop.systemd1.Manager", mq_method(k->op));
	if (rc >= 0)
		rc = msg_body(b, k, m);
	if (rc >= 0)
		rc = sd_bus_call_async(b->bus, NULL, m, reply_cb, k, CALL_TIMEOUT_US);
	sd_bus_message_unref(m);
	return rc < 0 ? rc : 0;
}

/* ---- answers ------------------------------------------------------------------------- */

static bool
is_error(const sd_bus_error *e, const char *name)
{
	return sd_bus_error_has_name(e, name);
}

/* The queue's reading of error e. */
static enum mq_answer
answer_of(const sd_bus_error *e)
{
	int err = sd_bus_error_get_errno(e);

	if (is_error(e, SD_BUS_ERROR_NO_REPLY) ||
	    is_error(e, SD_BUS_ERROR_DISCONNECTED) || is_error(e, SD_BUS_ERROR_TIMEOUT) ||
	    err == ECONNRESET || err == ENOTCONN || err == ETIMEDOUT)
		return MQ_NO_ANSWER; /* the connection, not PID 1, failed the call */
	if (is_error(e, "org.freedesktop.systemd1.UnitExists"))
		return MQ_UNIT_EXISTS;
	if (is_error(e, "org.freedesktop.systemd1.NoSuchUnit"))
		return MQ_NO_SUCH_UNIT;
	if (is_error(e, "org.freedesktop.systemd1.UnitInactive") ||
	    (is_error(e, SD_BUS_ERROR_INVALID_ARGS) && e->message != NULL &&
	     strstr(e->message, "not active") != NULL))
		return MQ_UNIT_INACTIVE;
	return MQ_REFUSED;
}

/*
 * A start call was answered: the unit's start job is queued.  Whether
 * it worked (a scope's process is attached when the job runs) comes
 * with the job's JobRemoved signal; true when k waits for it.
 */
static bool
await_job(struct sdbus *b, struct mq_call *k, sd_bus_message *m)
{
	const char *job;

	if ((k->op != MQ_SCOPE && k->op != MQ_SLICE) ||
	    sd_bus_message_read(m, "o", &job) < 0 || strlen(job) >= sizeof(k->job))
		return false;
	mq_job_queued(k, job);
	const char *from = sd_bus_message_get_sender(m);
	if (!b->direct && from != NULL && strlen(from) < sizeof(b->pid1))
		memcpy(b->pid1, from, strlen(from) + 1); /* the broker's word */
	return true;
}

static int
reply_cb(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct mq_call *k = userdata;
	struct sdbus *b = k->q->env.send_arg;
	const sd_bus_error *e = sd_bus_message_get_error(m);

	if (e == NULL && await_job(b, k, m))
		return 0; /* the job's end says the rest */
	if (e == NULL) {
		mq_answered(k, NULL);
		return 0;
	}
	struct mq_error err = { .kind = answer_of(e),
				.err = sd_bus_error_get_errno(e),
				.name = e->name,
				.message = e->message };
	mq_answered(k, &err);
	return 0;
}

/* Was signal m sent by PID 1?  On the system bus anyone may send us a
 * signal: only PID 1's counts (the broker names the sender; the match's
 * well-known name is not checked for a signal sent to us directly). */
static bool
from_pid1(const struct sdbus *b, sd_bus_message *m)
{
	const char *from = sd_bus_message_get_sender(m);

	return b->direct || (from != NULL && strcmp(from, b->pid1) == 0);
}

static int
job_removed_cb(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct sdbus *b = userdata;
	const char *job, *unit, *result;
	uint32_t id;

	if (!from_pid1(b, m) ||
	    sd_bus_message_read(m, "uoss", &id, &job, &unit, &result) < 0)
		return 0;
	mq_job_end(b->q, job, result);
	return 0;
}

/* systemd unloaded a unit (a scope collected once its last process
 * exited, a unit stopped): one of the layout's goes to the loop. */
static int
unit_removed_cb(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct sdbus *b = userdata;
	const char *unit, *object;
	char path[RULES_DEST_MAX];

	if (b->hooks.removed == NULL || !from_pid1(b, m) ||
	    sd_bus_message_read(m, "so", &unit, &object) < 0 ||
	    b->group_of(b->arg, unit, path, sizeof(path)) < 0)
		return 0;
	log_debug("systemd: %s is gone", unit);
	b->hooks.removed(b->hooks.arg, path);
	return 0;
}

/* Subscribe was answered: on the system bus, by PID 1's unique name. */
static int
subscribed_cb(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct sdbus *b = userdata;
	const char *from = sd_bus_message_get_sender(m);

	if (!b->direct && !sd_bus_message_is_method_error(m, NULL) && from != NULL &&
	    strlen(from) < sizeof(b->pid1))
		memcpy(b->pid1, from, strlen(from) + 1); /* the broker's word */
	return 0;
}

/* ---- connection ------------------------------------------------------------------------- */

/* Hear of PID 1's signal member (handled by cb). */
static int
match(struct sdbus *b, const char *member, sd_bus_message_handler_t cb)
{
	return sd_bus_match_signal_async(
		b->bus, NULL, b->direct ? NULL : "org.freedesktop.systemd1",
		"/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", member,
		cb, NULL, b);
}

/* Hear when jobs end (JobRemoved) and units go (UnitRemoved): PID 1
 * signals the connections that subscribed (and every private one). */
static int
watch_jobs(struct sdbus *b)
{
	int rc = match(b, "JobRemoved", job_removed_cb);

	if (rc >= 0)
		rc = match(b, "UnitRemoved", unit_removed_cb);
	if (rc >= 0)
		rc = sd_bus_call_method_async(b->bus, NULL, "org.freedesktop.systemd1",
					      "/org/freedesktop/systemd1",
					      "org.freedesktop.systemd1.Manager",
					      "Subscribe", subscribed_cb, b, NULL);
	if (rc < 0) {
		b->bus = sd_bus_close_unref(b->bus);
		return rc;
	}
	return 0;
}

/* Connect: PID 1's private socket (root; no broker between), else the
 * system bus.  sd_bus_start() only starts the handshake: calls queue
 * until it is done, in sdbus_process(). */
static int
connect_bus(struct sdbus *b)
{
	const char *address = b->hooks.address; /* a test's, or NULL */
	sd_bus *bus = NULL;
	int rc;

	if ((rc = sd_bus_new(&bus)) < 0)
		return rc;
	if (address != NULL && b->hooks.address_is_bus) { /* the system bus's stand-in */
		if ((rc = sd_bus_set_address(bus, address)) < 0 ||
		    (rc = sd_bus_set_bus_client(bus, 1)) < 0 ||
		    (rc = sd_bus_start(bus)) < 0) {
			sd_bus_unref(bus);
			return rc;
		}
		b->bus = bus;
		b->direct = false;
		return watch_jobs(b);
	}
	if ((rc = sd_bus_set_address(bus, address ? address : PRIVATE_SOCKET)) >= 0 &&
	    (rc = sd_bus_start(bus)) >= 0) {
		b->bus = bus;
		b->direct = true;
		return watch_jobs(b);
	}
	sd_bus_unref(bus);
	if (address != NULL)
		return rc; /* a test's: no system bus */
	bus = NULL;
	log_info("systemd: %s: %s; using the system bus", PRIVATE_SOCKET, strerror(-rc));
	if ((rc = sd_bus_open_system(&bus)) < 0)
		return rc;
	b->bus = bus;
	b->direct = false;
	return watch_jobs(b);
}

/* Try to connect again later: 1, 2, 4 ... 30 seconds; that pause. */
static double
backoff(struct sdbus *b)
{
	double pause = backoff_fail(&b->reconnect);

	b->retry_at = mq_now(b->q) + (uint64_t)(pause * 1e6);
	b->q->lost = true;
	return pause;
}

/* The connection is gone: drop it (calls still unanswered are lost),
 * reconnect later. */
static void
disconnected(struct sdbus *b, int err)
{
	/* no callback runs after this; nothing is flushed (a write to a
	 * peer that does not read would block the loop) */
	b->bus = sd_bus_close_unref(b->bus);
	b->pid1[0] = '\0';
	size_t moves = mq_lose_all(b->q);
	double pause = backoff(b);
	log_warning("systemd: connection lost (%s); %zu more move%s lost, every process "
		    "classified again once connected; reconnecting in %.0f s",
		    strerror(-err), moves, moves == 1 ? "" : "s", pause);
}

static void
reconnect(struct sdbus *b)
{
	int rc = connect_bus(b);

	if (rc < 0) {
		disconnected(b, rc);
		return;
	}
	b->retry_at = 0;
	log_notice("systemd: connected again");
}

void
sdbus_process(struct sdbus *b)
{
	int rc = 0;

	if (b->bus == NULL) {
		if (b->retry_at != 0 && mq_now(b->q) >= b->retry_at)
			reconnect(b);
		return;
	}
	/* bounded: each round handles one message (or one lost call) */
	for (int i = 0; i < 256 && (rc = sd_bus_process(b->bus, NULL)) > 0; i++)
		;
	if (rc < 0 || !sd_bus_is_open(b->bus)) {
		/* the answers to calls in flight came as NoReply errors */
		disconnected(b, rc < 0 ? rc : -ECONNRESET);
		return;
	}
	mq_process(b->q);
	if (b->q->lost && !b->q->full && sd_bus_is_ready(b->bus) > 0 &&
	    mq_take_lost(b->q)) {
		backoff_reset(&b->reconnect);
		b->hooks.lost(b->hooks.arg);
	}
}

int
sdbus_fd(const struct sdbus *b)
{
	return b->bus != NULL ? sd_bus_get_fd(b->bus) : -1;
}

int
sdbus_events(const struct sdbus *b)
{
	int ev = b->bus != NULL ? sd_bus_get_events(b->bus) : 0;

	return ev < 0 ? 0 : ev;
}

uint64_t
sdbus_deadline(const struct sdbus *b)
{
	uint64_t t = UINT64_MAX;

	if (b->bus == NULL)
		return b->retry_at ? b->retry_at : UINT64_MAX;
	if (sd_bus_get_timeout(b->bus, &t) < 0)
		t = UINT64_MAX;
	return mq_deadline(b->q, t);
}

/* ---- life cycle ----------------------------------------------------------------------------- */

int
sdbus_new(struct sdbus **out, struct movequeue *q, const struct sdplace_hooks *hooks,
	  sdbus_describe_fn *describe, sdbus_group_fn *group_of, void *arg)
{
	struct sdbus *b = calloc(1, sizeof(*b));
	int rc;

	if (b == NULL)
		return -ENOMEM;
	b->q = q;
	b->hooks = *hooks;
	b->describe = describe;
	b->group_of = group_of;
	b->arg = arg;
	b->reconnect = (struct backoff){ .first = 1, .max = 30 };
	/* reachable?  The connection itself is made at first use: sd-bus
	 * refuses a connection made before the daemon forked */
	if ((rc = connect_bus(b)) < 0) {
		free(b);
		return rc;
	}
	b->bus = sd_bus_close_unref(b->bus);
	*out = b;
	return 0;
}

void
sdbus_free(struct sdbus *b)
{
	if (b == NULL)
		return;
	b->bus = sd_bus_close_unref(b->bus);
	free(b);
}
