/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdgate.c -- the exec gate on the systemd backend (see sdgate.h).
 *
 * A scope lives while it has a process.  So each group the gate needs
 * ready gets a keeper: a child of the daemon that never execs (an exec
 * of a gated binary would wait on the daemon itself), closes every
 * descriptor but the read end of one pipe, and blocks reading it.  When
 * the daemon exits or dies, the pipe's write end closes and every
 * keeper exits (PR_SET_PDEATHSIG backs that up): a scope that held only
 * its keeper empties and systemd collects it; one with processes stays.
 *
 * The core places a keeper as any process (its scope made with
 * Delegate=yes, as every scope of the backend), and makes it sticky.
 * A group is ready once its keeper is seen in the scope's control group
 * (/proc/KEEPER/cgroup, read only until it is); from then on a held
 * exec is placed by writing its pid into the scope's cgroup.procs.  A
 * keeper that has exited (its scope stopped by hand), or a write that
 * finds the scope gone, makes the group not ready: the exec is placed
 * after it, the core asks for the group again and a new keeper is
 * started.  A keeper that lives but never reached its scope (PID 1
 * refused the move, the connection was lost) is placed again then.
 */
#include "engined/backend/systemd/sdgate.h"
#include "kernel/execgate.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RESTART_GAP 1.0 /* seconds between starts of one group's keeper, at least */

struct keeper {
	char *path;   /* the layout's group */
	char *cgroup; /* its scope's control group */
	pid_t pid;    /* 0: none */
	int pidfd;    /* -1 without pidfds (Linux < 5.3) */
	bool ready;   /* seen in its scope */
	double started;
};

struct sdgate {
	struct keeper *v;
	size_t n;
	int rfd, wfd; /* the keepers read rfd: EOF once the daemon has gone */
	int maxfd;    /* descriptors a keeper closes: below this */
	sdgate_scope_fn scope;
	sdgate_busy_fn busy;
	void *arg;
};

static int
pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

static bool
alive(const struct keeper *k)
{
	if (k->pid <= 0)
		return false;
	if (k->pidfd >= 0)
		return execgate_alive(k->pidfd);
	return kill(k->pid, 0) == 0;
}

static void
stop_keeper(struct keeper *k)
{
	if (alive(k)) {
#ifdef SYS_pidfd_send_signal
		if (k->pidfd < 0 ||
		    syscall(SYS_pidfd_send_signal, k->pidfd, SIGKILL, NULL, 0) < 0)
#endif
			(void)kill(k->pid, SIGKILL);
	}
	if (k->pidfd >= 0)
		close(k->pidfd);
	k->pidfd = -1;
	k->pid = 0;
	k->ready = false;
}

/* ---- the keeper: a child that never execs ------------------------------------------ */

/* Close every descriptor but fd (close_range where the kernel has it). */
static void
close_all_but(int fd, int maxfd)
{
#ifdef SYS_close_range
	if ((fd == 0 || syscall(SYS_close_range, 0u, (unsigned)fd - 1, 0u) == 0) &&
	    syscall(SYS_close_range, (unsigned)fd + 1, ~0u, 0u) == 0)
		return;
#endif
	for (int i = 0; i < maxfd; i++)
		if (i != fd)
			(void)close(i);
}

static void ATTR_NORETURN
keep(int rfd, int maxfd, pid_t parent)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	char b;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	(void)prctl(PR_SET_NAME, "cgengine-keep");
	for (int sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &dfl, NULL); /* systemctl stop's SIGTERM ends it */
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	close_all_but(rfd, maxfd); /* the fanotify group too: nothing held */
	for (;;) {
		ssize_t r = read(rfd, &b, 1);
		if (r == 0 || (r < 0 && errno != EINTR))
			_exit(0);
	}
}

/* Start k's keeper; its pid, or -errno. */
static pid_t
start_keeper(struct sdgate *g, struct keeper *k)
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		keep(g->rfd, g->maxfd, parent);
	k->pid = pid;
	k->pidfd = pidfd_of(pid);
	k->ready = false;
	k->started = mono_s();
	return pid;
}

/* ---- what the backend's table calls ------------------------------------------------- */

static bool in_scope(struct keeper *k);

static struct keeper *
find(struct sdgate *g, const char *path)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->v[i].path, path) == 0)
			return &g->v[i];
	return NULL;
}

static bool
wanted(const char *const *paths, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(paths[i], path) == 0)
			return true;
	return false;
}

/* Keepers of groups no longer wanted go. */
static void
drop_unwanted(struct sdgate *g, const char *const *paths, size_t n)
{
	size_t kept = 0;

	for (size_t i = 0; i < g->n; i++) {
		struct keeper *k = &g->v[i];

		if (wanted(paths, n, k->path)) {
			g->v[kept++] = *k;
			continue;
		}
		log_info("exec gate: unified:%s is no longer kept ready (keeper pid %d)",
			 k->path, (int)k->pid);
		stop_keeper(k);
		free(k->path);
		free(k->cgroup);
	}
	g->n = kept;
}

static struct keeper *
add(struct sdgate *g, const char *path)
{
	char cg[4096];
	struct keeper *v;

	if (g->scope(g->arg, path, cg, sizeof(cg)) < 0)
		return NULL;
	if ((v = realloc(g->v, (g->n + 1) * sizeof(*v))) == NULL)
		return NULL;
	g->v = v;
	v[g->n] = (struct keeper){ .path = strdup(path), .cgroup = strdup(cg), .pidfd = -1 };
	if (v[g->n].path == NULL || v[g->n].cgroup == NULL) {
		free(v[g->n].path);
		free(v[g->n].cgroup);
		return NULL;
	}
	return &v[g->n++];
}

int
sdgate_prepare(struct sdgate *g, const char *const *paths, size_t n,
	       void (*keeper)(void *karg, pid_t pid, const char *path), void *karg)
{
	int rc = 0;

	drop_unwanted(g, paths, n);
	for (size_t i = 0; i < n; i++) {
		struct keeper *k = find(g, paths[i]);

		if (k == NULL && (k = add(g, paths[i])) == NULL) {
			rc = -ENOMEM;
			continue;
		}
		if (mono_s() - k->started < RESTART_GAP && k->pid > 0)
			continue;
		if (alive(k)) {
			/* its placement was refused or lost: it never gets there
			 * by itself (a keeper is never classified) */
			if (!in_scope(k) && !g->busy(g->arg, k->pid)) {
				log_notice("exec gate: the keeper of unified:%s (pid %d) is "
					   "not in its scope; placing it again",
					   k->path, (int)k->pid);
				k->started = mono_s();
				keeper(karg, k->pid, k->path);
			}
			continue;
		}
		if (k->pid > 0)
			log_notice("exec gate: the keeper of unified:%s (pid %d) has gone; "
				   "starting another",
				   k->path, (int)k->pid);
		stop_keeper(k);
		pid_t pid = start_keeper(g, k);
		if (pid < 0) {
			log_warning("exec gate: cannot start a keeper for unified:%s: %s",
				    k->path, strerror(-pid));
			rc = (int)pid;
			continue;
		}
		keeper(karg, pid, k->path);
	}
	return rc;
}

/* Is k's keeper in its scope?  (Read until it is.) */
static bool
in_scope(struct keeper *k)
{
	char file[64], line[4096];
	FILE *f;

	if (!alive(k)) /* one poll(): its scope stopped by hand ends it */
		return k->ready = false;
	if (k->ready)
		return true;
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)k->pid);
	if ((f = fopen(file, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			k->ready = strcmp(line + 3, k->cgroup) == 0;
			break;
		}
	fclose(f);
	if (k->ready)
		log_info("exec gate: unified:%s is ready (%s, keeper pid %d)", k->path,
			 k->cgroup, (int)k->pid);
	return k->ready;
}

int
sdgate_move(struct sdgate *g, const struct hier *h, const char *path, pid_t tgid)
{
	struct keeper *k = find(g, path);

	if (k == NULL || !in_scope(k))
		return -EAGAIN;
	int rc = cgfs_move(h, k->cgroup, tgid);
	if (rc == -ENOENT || rc == -ENODEV) { /* the scope was stopped */
		log_notice("exec gate: %s has gone; unified:%s is not ready until its "
			   "keeper is placed again",
			   k->cgroup, k->path);
		k->ready = false;
		return -EAGAIN;
	}
	return rc;
}

/* ---- life cycle ------------------------------------------------------------------------ */

int
sdgate_new(struct sdgate **out, sdgate_scope_fn scope, sdgate_busy_fn busy, void *arg)
{
	struct sdgate *g = calloc(1, sizeof(*g));
	struct rlimit rl;
	int fds[2];

	if (g == NULL)
		return -ENOMEM;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		int rc = -errno;
		free(g);
		return rc;
	}
	g->rfd = fds[0];
	g->wfd = fds[1];
	g->maxfd = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536
			   ? (int)rl.rlim_cur
			   : 65536;
	g->scope = scope;
	g->busy = busy;
	g->arg = arg;
	*out = g;
	return 0;
}

void
sdgate_free(struct sdgate *g)
{
	if (g == NULL)
		return;
	close(g->wfd); /* every keeper reads the end and exits */
	close(g->rfd);
	for (size_t i = 0; i < g->n; i++) {
		if (g->v[i].pidfd >= 0)
			close(g->v[i].pidfd);
		free(g->v[i].path);
		free(g->v[i].cgroup);
	}
	free(g->v);
	free(g);
}
