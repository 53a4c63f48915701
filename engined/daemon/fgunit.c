/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fgunit.c -- the foreground's unit on a systemd desktop (foreground.h,
 * docs/dbus.md): a session's apps run in units of the user's own
 * manager (user@UID.service), delegated to it, which the daemon never
 * moves.  There the foreground-profile's properties are set on the
 * app's own unit by that manager, as uresourced does: Properties.Get
 * says what the unit has, SetUnitProperties (runtime) sets the
 * profile's values, and the values read are set again when the grant
 * ends (replaced, its caller gone, its process exited).
 *
 * The manager is reached on its private socket,
 * /run/user/UID/systemd/private, as systemctl --user reaches it; the
 * manager takes root's calls there.  That directory is the user's: the
 * daemon talks only to a peer running as that uid (SO_PEERCRED), so a
 * socket the user put there, or a link to another manager's, gets
 * nothing the user could not do to its own units.  Every call is
 * asynchronous with a deadline, one connection per user, made at first
 * use and closed once nothing waits on it; the connections and the
 * grant's pidfd sit in one epoll descriptor the loop watches.  Only
 * an error's name is logged, never its message: the peer is the user's.
 */
#include "foreground.h"
#include "engined/backend/systemd/sdunit.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#define CALL_US	 (10 * 1000000ULL) /* a call unanswered by then is lost */
#define MGRS_MAX 8		   /* managers connected at once */
#define MANAGER	 "org.freedesktop.systemd1"
#define MGR_PATH "/org/freedesktop/systemd1"

/* One user's manager, connected. */
struct umgr {
	LIST_ENTRY(umgr) link;
	uid_t uid;
	sd_bus *bus;
	size_t calls; /* unanswered (a call's context counts until freed) */
};

enum ustage {
	U_READING, /* the unit's values asked for */
	U_SETTING, /* the profile's asked for */
	U_SET,	   /* set (or unanswered: maybe), restored at the end */
};

/* The grant in force: one unit's properties. */
struct ugrant {
	unsigned id;
	struct umgr *m;
	char unit[SDUNIT_NAME_MAX];
	int pidfd;
	enum ustage stage;
	struct sdprop want[FGUNIT_PROPS_MAX], before[FGUNIT_PROPS_MAX];
	size_t n, got;
	sd_bus_slot *gets[FGUNIT_PROPS_MAX]; /* the reads in flight */
};

struct fgunit {
	char *address;
	bool is_bus;
	int ep; /* epoll: the connections and the grant's pidfd */
	LIST_HEAD(, umgr) mgrs;
	size_t nmgrs;
	struct ugrant *g; /* NULL: none */
};

/* One call's context, freed with its slot (ucall_free). */
struct ucall {
	struct fgunit *u;
	struct umgr *m;
	unsigned id;  /* its grant's */
	size_t index; /* a read's property */
	bool restore;
	char unit[SDUNIT_NAME_MAX];
};

static void
ucall_free(void *p)
{
	struct ucall *k = p;

	k->m->calls--;
	free(k);
}

/* ---- values --------------------------------------------------------------------------- */

/* "CPUWeight=1000 IOWeight=100" of p[n], for the log. */
static void
describe(const struct sdprop *p, size_t n, char *out, size_t len)
{
	size_t at = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++) {
		int w = p[i].type == 't' && p[i].u == UINT64_MAX
				? snprintf(out + at, len - at, "%s%s=", i ? " " : "",
					   p[i].name)
			: p[i].type == 't'
				? snprintf(out + at, len - at, "%s%s=%" PRIu64,
					   i ? " " : "", p[i].name, p[i].u)
				: snprintf(out + at, len - at, "%s%s=(%zu bytes)",
					   i ? " " : "", p[i].name, p[i].masklen);
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

/* The unit's object path, as systemd escapes a unit name into one. */
static void
unit_path(const char *unit, char *out, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t at = (size_t)snprintf(out, len, "%s/unit/", MGR_PATH);

	for (const unsigned char *c = (const unsigned char *)unit; *c && at + 4 < len;
	     c++)
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9')) {
			out[at++] = (char)*c;
		} else {
			out[at++] = '_';
			out[at++] = hex[*c >> 4];
			out[at++] = hex[*c & 15];
		}
	out[at] = '\0';
}

/* The interface of unit's type that carries its cgroup properties. */
static const char *
unit_interface(const char *unit)
{
	static const char *const types[][2] = {
		{ ".scope", "org.freedesktop.systemd1.Scope" },
		{ ".service", "org.freedesktop.systemd1.Service" },
		{ ".slice", "org.freedesktop.systemd1.Slice" },
	};
	size_t n = strlen(unit);

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t k = strlen(types[i][0]);
		if (n > k && strcmp(unit + n - k, types[i][0]) == 0)
			return types[i][1];
	}
	return NULL;
}

static int
append_props(sd_bus_message *m, const struct sdprop *p, size_t n)
{
	int rc = sd_bus_message_open_container(m, 'a', "(sv)");

	for (size_t i = 0; i < n && rc >= 0; i++) {
		if (p[i].type == 't') {
			rc = sd_bus_message_append(m, "(sv)", p[i].name, "t", p[i].u);
			continue;
		}
		if ((rc = sd_bus_message_open_container(m, 'r', "sv")) < 0 ||
		    (rc = sd_bus_message_append(m, "s", p[i].name)) < 0 ||
		    (rc = sd_bus_message_open_container(m, 'v', "ay")) < 0 ||
		    (rc = sd_bus_message_append_array(m, 'y', p[i].mask, p[i].masklen)) <
			    0 ||
		    (rc = sd_bus_message_close_container(m)) < 0)
			break;
		rc = sd_bus_message_close_container(m);
	}
	return rc < 0 ? rc : sd_bus_message_close_container(m);
}

/* ---- calls ------------------------------------------------------------------------------- */

static int get_cb(sd_bus_message *r, void *userdata, sd_bus_error *e);
static int set_cb(sd_bus_message *r, void *userdata, sd_bus_error *e);

/* Send m on k's manager, answered to cb with k (freed with the slot;
 * floating when slot is NULL); 0 or -errno (k freed). */
static int
call(struct ucall *k, sd_bus_message *m, sd_bus_message_handler_t cb, sd_bus_slot **slot)
{
	sd_bus_slot *s = NULL;
	int rc = sd_bus_call_async(k->m->bus, &s, m, cb, k, CALL_US);

	if (rc < 0) {
		free(k);
		return rc;
	}
	k->m->calls++;
	sd_bus_slot_set_destroy_callback(s, ucall_free);
	if (slot != NULL) {
		*slot = s;
		return 0;
	}
	sd_bus_slot_set_floating(s, 1);
	sd_bus_slot_unref(s);
	return 0;
}

static struct ucall *
ucall_new(struct fgunit *u, struct umgr *m, unsigned id, const char *unit)
{
	struct ucall *k = calloc(1, sizeof(*k));

	if (k == NULL)
		return NULL;
	k->u = u;
	k->m = m;
	k->id = id;
	str_copy(k->unit, sizeof(k->unit), unit);
	return k;
}

/* SetUnitProperties(unit, runtime, p[n]) on m: the profile's, or the
 * values kept (restore); 0 or -errno. */
static int
set_props(struct fgunit *u, struct umgr *m, unsigned id, const char *unit,
	  const struct sdprop *p, size_t n, bool restore)
{
	struct ucall *k = ucall_new(u, m, id, unit);
	sd_bus_message *msg = NULL;
	int rc;

	if (k == NULL)
		return -ENOMEM;
	k->restore = restore;
	rc = sd_bus_message_new_method_call(m->bus, &msg, MANAGER, MGR_PATH,
					    "org.freedesktop.systemd1.Manager",
					    "SetUnitProperties");
	if (rc >= 0 && (rc = sd_bus_message_append(msg, "sb", unit, 1)) >= 0 &&
	    (rc = append_props(msg, p, n)) >= 0) {
		rc = call(k, msg, set_cb, NULL);
		k = NULL;
	}
	free(k);
	sd_bus_message_unref(msg);
	return rc;
}

/* Ask what g's unit has of property i. */
static int
get_prop(struct fgunit *u, struct ugrant *g, size_t i)
{
	struct ucall *k = ucall_new(u, g->m, g->id, g->unit);
	char path[SDUNIT_NAME_MAX * 3 + 64];
	sd_bus_message *msg = NULL;
	int rc;

	if (k == NULL)
		return -ENOMEM;
	k->index = i;
	unit_path(g->unit, path, sizeof(path));
	rc = sd_bus_message_new_method_call(g->m->bus, &msg, MANAGER, path,
					    "org.freedesktop.DBus.Properties", "Get");
	if (rc >= 0 && (rc = sd_bus_message_append(msg, "ss", unit_interface(g->unit),
						   g->want[i].name)) >= 0) {
		rc = call(k, msg, get_cb, &g->gets[i]);
		k = NULL;
	}
	free(k);
	sd_bus_message_unref(msg);
	return rc;
}

/* ---- the grant ------------------------------------------------------------------------ */

/* g is over: its reads are dropped, its pidfd closed. */
static void
grant_free(struct fgunit *u, struct ugrant *g)
{
	if (u->g == g)
		u->g = NULL;
	for (size_t i = 0; i < g->n; i++)
		g->gets[i] = sd_bus_slot_unref(g->gets[i]);
	if (g->pidfd >= 0)
		close(g->pidfd); /* leaves the epoll set */
	free(g);
}

/* Is the manager's error e the unit's absence? */
static bool
unit_gone(const sd_bus_error *e)
{
	return sd_bus_error_has_name(e, "org.freedesktop.systemd1.NoSuchUnit") ||
	       sd_bus_error_has_name(e, "org.freedesktop.systemd1.LoadFailed") ||
	       sd_bus_error_has_name(e, SD_BUS_ERROR_UNKNOWN_OBJECT);
}

/* Is error e the connection's rather than the manager's answer? */
static bool
unanswered(const sd_bus_error *e)
{
	return sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY) ||
	       sd_bus_error_has_name(e, SD_BUS_ERROR_TIMEOUT) ||
	       sd_bus_error_has_name(e, SD_BUS_ERROR_DISCONNECTED);
}

/* Every value was read: ask for the profile's. */
static void
all_read(struct fgunit *u, struct ugrant *g)
{
	char what[512];
	int rc;

	describe(g->before, g->n, what, sizeof(what));
	log_debug("foreground: %s of uid %u had %s", g->unit, (unsigned)g->m->uid, what);
	if ((rc = set_props(u, g->m, g->id, g->unit, g->want, g->n, false)) < 0) {
		log_warning("foreground: %s of uid %u: cannot ask its manager: %s",
			    g->unit, (unsigned)g->m->uid, strerror(-rc));
		grant_free(u, g);
		return;
	}
	g->stage = U_SETTING;
}

static int
get_cb(sd_bus_message *r, void *userdata, sd_bus_error *ret)
{
	struct ucall *k = userdata;
	struct fgunit *u = k->u;
	struct ugrant *g = u->g;
	const sd_bus_error *e = sd_bus_message_get_error(r);
	size_t i = k->index;
	int rc;

	if (g == NULL || g->id != k->id)
		return 0; /* a grant over */
	struct sdprop *p = &g->before[i];
	*p = g->want[i];
	if (e != NULL) {
		log_warning("foreground: %s of uid %u: %s", g->unit, (unsigned)g->m->uid,
			    unit_gone(e)    ? "the unit is gone"
			    : unanswered(e) ? "its manager does not answer"
					    : e->name);
		grant_free(u, g); /* nothing was set: nothing to restore */
		return 0;
	}
	if (p->type == 't') {
		rc = sd_bus_message_read(r, "v", "t", &p->u);
	} else {
		const void *a = NULL;
		size_t n = 0;
		if ((rc = sd_bus_message_enter_container(r, 'v', "ay")) >= 0 &&
		    (rc = sd_bus_message_read_array(r, 'y', &a, &n)) >= 0) {
			p->masklen = n < sizeof(p->mask) ? n : sizeof(p->mask);
			if (p->masklen > 0)
				memcpy(p->mask, a, p->masklen);
		}
	}
	if (rc < 0) {
		log_warning("foreground: %s of uid %u: %s is not what systemd says",
			    g->unit, (unsigned)g->m->uid, p->name);
		grant_free(u, g);
		return 0;
	}
	g->gets[i] = sd_bus_slot_unref(g->gets[i]); /* k goes after this callback */
	if (++g->got == g->n)
		all_read(u, g);
	return 0;
}

static int
set_cb(sd_bus_message *r, void *userdata, sd_bus_error *ret)
{
	struct ucall *k = userdata;
	struct fgunit *u = k->u;
	const sd_bus_error *e = sd_bus_message_get_error(r);
	struct ugrant *g = u->g != NULL && u->g->id == k->id && !k->restore ? u->g : NULL;
	unsigned uid = (unsigned)k->m->uid;

	if (k->restore) {
		if (e == NULL)
			log_info("foreground: %s of uid %u has its values again", k->unit,
				 uid);
		else if (unit_gone(e))
			log_info("foreground: %s of uid %u is gone: nothing to restore",
				 k->unit, uid);
		else
			log_warning(
				"foreground: %s of uid %u: cannot restore its values: %s",
				k->unit, uid, e->name);
		return 0;
	}
	if (g == NULL)
		return 0; /* over already: its restore follows on the connection */
	if (e == NULL || unanswered(e)) {
		char what[512];
		describe(g->want, g->n, what, sizeof(what));
		g->stage = U_SET; /* unanswered: maybe set, restored all the same */
		if (e == NULL)
			log_info("foreground: %s of uid %u gets %s", g->unit, uid, what);
		else
			log_warning(
				"foreground: %s of uid %u: its manager does not answer",
				g->unit, uid);
		return 0;
	}
	log_warning("foreground: %s of uid %u: %s", g->unit, uid,
		    unit_gone(e) ? "the unit is gone" : e->name);
	grant_free(u, g); /* refused: nothing to restore */
	return 0;
}

/* ---- connections ----------------------------------------------------------------------- */

/* u's address for uid: "%u" replaced (the one conversion it may hold). */
static int
address_of(const struct fgunit *u, uid_t uid, char *out, size_t len)
{
	const char *at = strstr(u->address, "%u");
	int n;

	if (at == NULL)
		n = snprintf(out, len, "%s", u->address);
	else
		n = snprintf(out, len, "%.*s%u%s", (int)(at - u->address), u->address,
			     (unsigned)uid, at + 2);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The peer on m's socket must run as m's uid (the user's manager, or
 * on a test's bus the broker the test runs as that user). */
static int
check_peer(const struct umgr *m)
{
	struct ucred cr;
	socklen_t n = sizeof(cr);
	int fd = sd_bus_get_fd(m->bus);

	if (fd < 0)
		return -ENOTCONN;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &n) < 0)
		return -errno;
	if (cr.uid != m->uid) {
		log_warning(
			"foreground: the manager socket of uid %u is uid %u's: not used",
			(unsigned)m->uid, (unsigned)cr.uid);
		return -EPERM;
	}
	return 0;
}

static void
mgr_close(struct fgunit *u, struct umgr *m)
{
	if (u->g != NULL && u->g->m == m)
		grant_free(u, u->g); /* its reads hold the connection */
	LIST_REMOVE(m, link);
	u->nmgrs--;
	/* nothing is flushed: a peer that does not read would block the loop;
	 * the calls' contexts go with their slots */
	m->bus = sd_bus_close_unref(m->bus);
	free(m);
}

/* uid's manager, connected now if it was not. */
static int
manager(struct fgunit *u, uid_t uid, struct umgr **out)
{
	char address[512];
	struct umgr *m;
	int rc;

	LIST_FOREACH (m, &u->mgrs, link)
		if (m->uid == uid) {
			*out = m;
			return 0;
		}
	if (u->nmgrs >= MGRS_MAX)
		return -EBUSY;
	if ((rc = address_of(u, uid, address, sizeof(address))) < 0)
		return rc;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return -ENOMEM;
	m->uid = uid;
	if ((rc = sd_bus_new(&m->bus)) < 0 ||
	    (rc = sd_bus_set_address(m->bus, address)) < 0 ||
	    (rc = sd_bus_set_bus_client(m->bus, u->is_bus)) < 0 ||
	    (rc = sd_bus_start(m->bus)) < 0 || (rc = check_peer(m)) < 0) {
		sd_bus_close_unref(m->bus);
		free(m);
		return rc;
	}
	struct epoll_event ev = { .events = EPOLLIN };
	if (epoll_ctl(u->ep, EPOLL_CTL_ADD, sd_bus_get_fd(m->bus), &ev) < 0) {
		rc = -errno;
		sd_bus_close_unref(m->bus);
		free(m);
		return rc;
	}
	LIST_INSERT_HEAD(&u->mgrs, m, link);
	u->nmgrs++;
	*out = m;
	return 0;
}

/* ---- the module ------------------------------------------------------------------------ */

int
fgunit_set(struct fgunit *u, unsigned id, uid_t uid, const char *unit, int pidfd,
	   const struct sdprop *props, size_t n)
{
	struct ugrant *g = NULL;
	struct umgr *m = NULL;
	int rc = -EINVAL;

	if (u->g != NULL)
		fgunit_end(u, "the foreground changed");
	/* no properties (a profile of priorities only): no manager needed */
	if (unit_interface(unit) != NULL && n <= FGUNIT_PROPS_MAX &&
	    (rc = n > 0 ? manager(u, uid, &m) : 0) >= 0 &&
	    (g = calloc(1, sizeof(*g))) == NULL)
		rc = -ENOMEM;
	if (rc < 0) {
		if (pidfd >= 0)
			close(pidfd);
		return rc;
	}
	g->id = id;
	g->m = m;
	g->pidfd = pidfd;
	g->n = n;
	str_copy(g->unit, sizeof(g->unit), unit);
	if (n > 0)
		memcpy(g->want, props, n * sizeof(*props));
	struct epoll_event ev = { .events = EPOLLIN };
	if (pidfd >= 0)
		(void)epoll_ctl(u->ep, EPOLL_CTL_ADD, pidfd, &ev);
	u->g = g;
	g->stage = n > 0 ? U_READING : U_SET;
	for (size_t i = 0; i < n; i++)
		if ((rc = get_prop(u, g, i)) < 0) {
			grant_free(u, g);
			return rc;
		}
	return 0;
}

void
fgunit_end(struct fgunit *u, const char *why)
{
	struct ugrant *g = u->g;
	int rc;

	if (g == NULL)
		return;
	u->g = NULL;
	if (g->stage == U_READING) {
		log_info(
			"foreground: %s of uid %u: the grant ends (%s) before its values "
			"were set",
			g->unit, (unsigned)g->m->uid, why);
	} else if (g->n > 0) {
		char what[512];
		describe(g->before, g->n, what, sizeof(what));
		log_info("foreground: %s of uid %u: the grant ends (%s): %s again",
			 g->unit, (unsigned)g->m->uid, why, what);
		if ((rc = set_props(u, g->m, g->id, g->unit, g->before, g->n, true)) < 0)
			log_warning(
				"foreground: %s of uid %u: cannot restore its values: %s",
				g->unit, (unsigned)g->m->uid, strerror(-rc));
	}
	grant_free(u, g);
}

unsigned
fgunit_grant(const struct fgunit *u)
{
	return u->g != NULL ? u->g->id : 0;
}

int
fgunit_fd(const struct fgunit *u)
{
	return u->ep;
}

uint64_t
fgunit_deadline(const struct fgunit *u)
{
	uint64_t at = UINT64_MAX, t;
	struct umgr *m;

	LIST_FOREACH (m, &u->mgrs, link)
		if (sd_bus_get_timeout(m->bus, &t) >= 0 && t < at)
			at = t;
	return at;
}

void
fgunit_prepare(struct fgunit *u)
{
	struct umgr *m;

	LIST_FOREACH (m, &u->mgrs, link) {
		int ev = sd_bus_get_events(m->bus);
		struct epoll_event e = {
			.events = (ev > 0 && (ev & POLLOUT) ? EPOLLOUT : 0u) | EPOLLIN
		};
		(void)epoll_ctl(u->ep, EPOLL_CTL_MOD, sd_bus_get_fd(m->bus), &e);
	}
}

void
fgunit_process(struct fgunit *u)
{
	struct umgr *m, *next;
	int rc = 0;

	for (m = LIST_FIRST(&u->mgrs); m != NULL; m = next) {
		next = LIST_NEXT(m, link);
		/* bounded: each round handles one message */
		for (int i = 0; i < 256 && (rc = sd_bus_process(m->bus, NULL)) > 0; i++)
			;
		if (rc < 0 || !sd_bus_is_open(m->bus)) {
			log_warning("foreground: the manager of uid %u: connection lost",
				    (unsigned)m->uid);
			mgr_close(u, m);
		} else if (m->calls == 0 && (u->g == NULL || u->g->m != m)) {
			mgr_close(u, m); /* nothing waits on it */
		}
	}
	struct pollfd p = { .fd = u->g != NULL ? u->g->pidfd : -1, .events = POLLIN };
	if (p.fd >= 0 && poll(&p, 1, 0) > 0)
		fgunit_end(u, "its process exited");
}

size_t
fgunit_pending(const struct fgunit *u)
{
	size_t n = 0;
	struct umgr *m;

	LIST_FOREACH (m, &u->mgrs, link)
		n += m->calls;
	return n;
}

int
fgunit_new(struct fgunit **out, const char *address, bool is_bus)
{
	struct fgunit *u = calloc(1, sizeof(*u));

	if (u == NULL || (u->address = strdup(address)) == NULL) {
		free(u);
		return -ENOMEM;
	}
	u->is_bus = is_bus;
	LIST_INIT(&u->mgrs);
	if ((u->ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		int rc = -errno;
		free(u->address);
		free(u);
		return rc;
	}
	*out = u;
	return 0;
}

void
fgunit_free(struct fgunit *u)
{
	if (u == NULL)
		return;
	if (u->g != NULL)
		grant_free(u, u->g);
	while (!LIST_EMPTY(&u->mgrs))
		mgr_close(u, LIST_FIRST(&u->mgrs));
	close(u->ep);
	free(u->address);
	free(u);
}
