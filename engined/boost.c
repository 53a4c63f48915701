/*
 * boost.c -- temporary boosts: "put this process in HIER:PATH for two
 * hours, then back".  A boost protects its processes (the one it was
 * given for and every child forked while it lasts) from the rules on
 * its hierarchy; when it expires or is cancelled they are classified
 * by the rules again.  Processes are identified by pid and start time,
 * so a reused pid never inherits a boost.  Active boosts are kept in a
 * state file, written atomically, and restored after a restart.
 */
#include "engined.h"
#include "engined_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_HEADER "# cgengine boosts, format 1\n"

struct boost *
boost_find(struct engine *e, unsigned id)
{
	struct boost *b;

	TAILQ_FOREACH(b, &e->boosts, link)
	if (b->id == id)
		return b;
	return NULL;
}

size_t
boost_count(const struct engine *e)
{
	const struct boost *b;
	size_t n = 0;

	TAILQ_FOREACH(b, &e->boosts, link)
	n++;
	return n;
}

static bool
has_member(const struct boost *b, pid_t pid)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->m[i].pid == pid)
			return true;
	return false;
}

const struct boost *
boost_of(const struct engine *e, pid_t pid, const char *hier)
{
	const struct boost *b;

	if (!(tasktab_flags(e->tasks, pid) & TASK_BOOSTED))
		return NULL;
	TAILQ_FOREACH(b, &e->boosts, link)
	if (strcmp(b->hier, hier) == 0 && has_member(b, pid))
		return b;
	return NULL;
}

static int
add_member(struct boost *b, pid_t pid, uint64_t start)
{
	if (has_member(b, pid))
		return 0;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4;
		struct boost_member *m = realloc(b->m, cap * sizeof(*m));

		if (m == NULL)
			return -ENOMEM;
		b->m = m;
		b->cap = cap;
	}
	b->m[b->n++] = (struct boost_member){ .pid = pid, .start = start };
	return 0;
}

/* Set or clear the BOOSTED flag of pid to match the boost list. */
static void
update_flag(struct engine *e, pid_t pid, uint64_t start)
{
	const struct boost *b;
	bool member = false;

	TAILQ_FOREACH(b, &e->boosts, link)
	member = member || has_member(b, pid);
	unsigned flags = tasktab_flags(e->tasks, pid) & ~TASK_BOOSTED;
	if (tasktab_set(e->tasks, pid, start, flags | (member ? TASK_BOOSTED : 0)) < 0)
		log_warning("out of memory while tracking boosted pid %d", (int)pid);
}

static void
boost_free(struct boost *b)
{
	free(b->hier);
	free(b->dest);
	free(b->profile);
	free(b->m);
	free(b);
}

/* ---- the state file ------------------------------------------------------ */

int
boost_save(struct engine *e)
{
	const char *path = e->pol->cfg->state_file;
	char tmp[4200];
	const struct boost *b;
	FILE *f;

	if (path[0] == '\0')
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (mkdir_parents(path) < 0 || (f = fopen(tmp, "we")) == NULL) {
		log_warning("%s: cannot write the boost state: %s", path,
			    strerror(errno));
		return -errno;
	}
	fputs(STATE_HEADER, f);
	TAILQ_FOREACH(b, &e->boosts, link)
	{
		fprintf(f, "boost %u %u %lld %s %s %s", b->id, (unsigned)b->owner,
			(long long)b->expires, b->hier, b->dest,
			b->profile ? b->profile : "-");
		for (size_t i = 0; i < b->n; i++)
			fprintf(f, " %d:%llu", (int)b->m[i].pid,
				(unsigned long long)b->m[i].start);
		fputc('\n', f);
	}
	int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) < 0) {
		log_warning("%s: cannot write the boost state: %s", path,
			    strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

/* ---- starting and ending ---------------------------------------------------- */

static void
timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct boost *b = (struct boost *)((char *)w - offsetof(struct boost, timer));

	(void)boost_end(w->data, b->id, "expired");
}

static void
arm(struct engine *e, struct boost *b)
{
	double left = difftime(b->expires, time(NULL));

	ev_timer_init(&b->timer, timer_cb, left > 0 ? left : 0, 0);
	b->timer.data = e;
	ev_timer_start(e->loop, &b->timer);
}

/* A boost destination: a valid group path, without blanks (the state
 * file is blank-separated). */
static const char *
bad_dest(const char *d)
{
	if (strpbrk(d, " \t\n") != NULL)
		return "must not contain blanks";
	return rules_dest_problem(d);
}

long
boost_start(struct engine *e, const struct boost_request *r, char *err, size_t errlen)
{
	const struct hier *h = hier_find(&e->pol->all, r->hier);
	struct task t;
	uint64_t start;
	const char *why;

	if (h == NULL || managed_by_name(e->pol, h->name) != h) {
		snprintf(err, errlen, "hierarchy '%s' is not managed", r->hier);
		return -1;
	}
	if ((why = bad_dest(r->dest)) != NULL) {
		snprintf(err, errlen, "destination '%s' %s", r->dest, why);
		return -1;
	}
	if (r->seconds <= 0) {
		snprintf(err, errlen, "the duration must be positive");
		return -1;
	}
	if (task_read("/proc", r->pid, 0, &t) < 0 ||
	    task_start_time("/proc", r->pid, &start) < 0) {
		snprintf(err, errlen, "no process %d", (int)r->pid);
		return -1;
	}
	if (t.kthread) {
		snprintf(err, errlen, "pid %d is a kernel thread", (int)r->pid);
		return -1;
	}
	if (classify_known(e, r->pid) &&
	    (tasktab_flags(e->tasks, r->pid) & TASK_STICKY)) {
		snprintf(err, errlen, "pid %d is sticky", (int)r->pid);
		return -1;
	}
	const struct boost *old = boost_of(e, r->pid, h->name);
	if (old != NULL) {
		snprintf(err, errlen, "pid %d already has boost #%u on %s", (int)r->pid,
			 old->id, h->name);
		return -1;
	}

	struct boost *b = calloc(1, sizeof(*b));
	if (b == NULL || (b->hier = strdup(h->name)) == NULL ||
	    (b->dest = strdup(r->dest)) == NULL ||
	    (r->profile && (b->profile = strdup(r->profile)) == NULL) ||
	    add_member(b, r->pid, start) < 0) {
		if (b != NULL)
			boost_free(b);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	b->id = e->next_boost++;
	b->owner = r->owner;
	b->expires = time(NULL) + r->seconds;
	TAILQ_INSERT_TAIL(&e->boosts, b, link);
	update_flag(e, r->pid, start);
	arm(e, b);
	log_notice("boost #%u: pid %d (%s) to %s:%s for %lds, asked by uid %u%s%s", b->id,
		   (int)r->pid, t.comm, b->hier, b->dest, r->seconds, (unsigned)r->owner,
		   r->profile ? ", profile " : "", r->profile ? r->profile : "");
	(void)boost_save(e);
	classify(e, r->pid);
	return b->id;
}

/* Take b out of the list; its former members get their flags updated. */
static void
unlink_boost(struct engine *e, struct boost *b)
{
	TAILQ_REMOVE(&e->boosts, b, link);
	if (e->loop != NULL)
		ev_timer_stop(e->loop, &b->timer);
	for (size_t i = 0; i < b->n; i++)
		update_flag(e, b->m[i].pid, b->m[i].start);
}

int
boost_end(struct engine *e, unsigned id, const char *why)
{
	struct boost *b = boost_find(e, id);

	if (b == NULL)
		return -ENOENT;
	unlink_boost(e, b);
	log_notice("boost #%u ended (%s); %zu process%s back to the rules", b->id, why,
		   b->n, b->n == 1 ? "" : "es");
	(void)boost_save(e);
	for (size_t i = 0; i < b->n; i++)
		classify(e, b->m[i].pid);
	boost_free(b);
	return 0;
}

void
boost_fork(struct engine *e, pid_t parent, pid_t child)
{
	struct boost *b;
	uint64_t start;
	bool joined = false;

	if (task_start_time("/proc", child, &start) < 0)
		return; /* already gone */
	TAILQ_FOREACH(b, &e->boosts, link)
	if (has_member(b, parent) && add_member(b, child, start) == 0)
		joined = true;
	if (joined) {
		update_flag(e, child, start);
		(void)boost_save(e);
	}
}

void
boost_exit(struct engine *e, pid_t pid)
{
	struct boost *b, *next;
	bool changed = false;

	for (b = TAILQ_FIRST(&e->boosts); b != NULL; b = next) {
		next = TAILQ_NEXT(b, link);
		for (size_t i = 0; i < b->n; i++) {
			if (b->m[i].pid != pid)
				continue;
			b->m[i] = b->m[--b->n];
			changed = true;
			break;
		}
		if (b->n == 0) {
			TAILQ_REMOVE(&e->boosts, b, link);
			if (e->loop != NULL)
				ev_timer_stop(e->loop, &b->timer);
			log_notice("boost #%u ended: its processes exited", b->id);
			boost_free(b);
		}
	}
	if (changed)
		(void)boost_save(e);
}

/* ---- restoring ------------------------------------------------------------------ */

/* Parse "pid:start" members into b, keeping those still alive. */
static void
restore_members(struct boost *b, char *list)
{
	for (char *tok = strtok(list, " \n"); tok; tok = strtok(NULL, " \n")) {
		unsigned long long st, now;
		int pid;

		if (sscanf(tok, "%d:%llu", &pid, &st) != 2)
			continue;
		uint64_t cur;
		if (task_start_time("/proc", pid, &cur) < 0)
			continue;
		now = cur;
		if (now == st && add_member(b, pid, cur) < 0)
			return;
	}
}

static void
restore_line(struct engine *e, char *line, unsigned *max_id)
{
	char hier[256], dest[RULES_DEST_MAX], profile[256];
	unsigned id, owner;
	long long expires;
	int used = 0;

	if (sscanf(line, "boost %u %u %lld %255s %1023s %255s %n", &id, &owner, &expires,
		   hier, dest, profile, &used) < 6 ||
	    used == 0)
		return;
	if (id > *max_id)
		*max_id = id;
	if (expires <= (long long)time(NULL)) {
		log_notice(
			"boost #%u expired while cgengined was stopped; its processes return to the rules",
			id);
		return;
	}
	if (managed_by_name(e->pol, hier) == NULL) {
		log_warning("boost #%u dropped: hierarchy %s is no longer managed", id,
			    hier);
		return;
	}
	struct boost *b = calloc(1, sizeof(*b));
	if (b == NULL)
		return;
	b->id = id;
	b->owner = owner;
	b->expires = (time_t)expires;
	b->hier = strdup(hier);
	b->dest = strdup(dest);
	b->profile = strcmp(profile, "-") != 0 ? strdup(profile) : NULL;
	restore_members(b, line + used);
	if (b->hier == NULL || b->dest == NULL || b->n == 0) {
		if (b->n == 0)
			log_notice("boost #%u dropped: its processes are gone", id);
		boost_free(b);
		return;
	}
	TAILQ_INSERT_TAIL(&e->boosts, b, link);
	for (size_t i = 0; i < b->n; i++)
		update_flag(e, b->m[i].pid, b->m[i].start);
	arm(e, b);
	log_notice("boost #%u restored: %zu process%s in %s:%s for %.0fs more", id, b->n,
		   b->n == 1 ? "" : "es", b->hier, b->dest,
		   difftime(b->expires, time(NULL)));
}

void
boost_restore(struct engine *e)
{
	const char *path = e->pol->cfg->state_file;
	char *line = NULL;
	size_t cap = 0;
	unsigned max_id = 0;
	FILE *f;

	if (path[0] == '\0' || (f = fopen(path, "re")) == NULL)
		return;
	while (getline(&line, &cap, f) >= 0)
		if (strncmp(line, "boost ", 6) == 0)
			restore_line(e, line, &max_id);
	free(line);
	fclose(f);
	if (max_id >= e->next_boost)
		e->next_boost = max_id + 1;
	(void)boost_save(e); /* without the dropped ones */
}

void
boost_free_all(struct engine *e)
{
	struct boost *b;

	while ((b = TAILQ_FIRST(&e->boosts)) != NULL) {
		TAILQ_REMOVE(&e->boosts, b, link);
		if (e->loop != NULL)
			ev_timer_stop(e->loop, &b->timer);
		boost_free(b);
	}
}
