/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixture.c -- see fixture.h.
 */
#include "tests/lib/fixture.h"
#include "tests/tap/tap.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fixture *fixture_current;

static void
put(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
put(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "w");
	va_list ap;

	if (f == NULL)
		bail("cannot write %s", path);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void
rm_rf(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char sub[1024];

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	if ((d = opendir(path)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			rm_rf(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

/* ---- the fake cgroupfs -------------------------------------------------------- */

static int
mkdir_p(const char *path)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0755) < 0 ? -errno : 0;
}

static void
group_dir_of(struct fixture *f, const struct hier *h, const char *path, char *out,
	     size_t len)
{
	snprintf(out, len, "%s%s", h != NULL && h->version == HIER_V2 ? f->cg2 : f->cg,
		 strcmp(path, "/") == 0 ? "" : path);
}

/* Read a small file into buf ("" if none), newline removed. */
static const char *
slurp(const char *file, char *buf, size_t len)
{
	FILE *in = fopen(file, "r");
	size_t n = 0;

	if (in != NULL) {
		n = fread(buf, 1, len - 1, in);
		fclose(in);
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* Replace (or add) the line of hierarchy name hier in pid's cgroup file. */
static void
set_cgroup_line(struct fixture *f, pid_t pid, const char *hier, const char *path)
{
	char file[300], buf[1024], out[4096], line[1100];
	FILE *in;
	size_t used = 0;
	bool done = false;

	snprintf(file, sizeof(file), "%s/%d/cgroup", f->proc, (int)pid);
	if ((in = fopen(file, "r")) == NULL)
		return;
	while (fgets(buf, sizeof(buf), in) != NULL) {
		char *colon = strchr(buf, ':');
		size_t hl = strlen(hier);

		if (colon != NULL && strncmp(colon + 1, hier, hl) == 0 &&
		    colon[1 + hl] == ':') {
			snprintf(line, sizeof(line), "%.*s%s\n",
				 (int)(colon + 2 + hl - buf), buf, path);
			done = true;
		} else {
			snprintf(line, sizeof(line), "%s", buf);
		}
		used += (size_t)snprintf(out + used, sizeof(out) - used, "%s", line);
	}
	fclose(in);
	if (!done)
		used += (size_t)snprintf(out + used, sizeof(out) - used, "0:%s:%s\n",
					 hier, path);
	put(file, "%s", out);
}

static bool fake_is_empty(void *arg, const struct hier *h, const char *path);

static int
fake_mkdir(void *arg, const struct hier *h, const char *path, bool *created)
{
	char dir[512];

	group_dir_of(arg, h, path, dir, sizeof(dir));
	int rc = mkdir_p(dir);
	*created = rc == 0;
	return rc == -EEXIST ? 0 : rc;
}

static bool
fake_listed(const char *list, const char *tok)
{
	size_t n = strlen(tok);

	for (const char *a = list; *a; a += strcspn(a, " "), a += *a == ' ')
		if (strcspn(a, " ") == n && strncmp(a, tok, n) == 0)
			return true;
	return false;
}

static void
fake_unlist(const char *list, const char *tok, char *out, size_t len)
{
	size_t used = 0, n;

	out[0] = '\0';
	for (const char *a = list; *a; a += n, a += *a == ' ') {
		n = strcspn(a, " ");
		if (n == strlen(tok) && strncmp(a, tok, n) == 0)
			continue;
		used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? " " : "",
					 (int)n, a);
	}
}

/* Does a child group of dir have tok in its cgroup.subtree_control? */
static bool
fake_child_enables(const char *dir, const char *tok)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char file[1024], buf[512];
	bool found = false;

	while (d != NULL && !found && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s/cgroup.subtree_control", dir, e->d_name);
		found = fake_listed(slurp(file, buf, sizeof(buf)), tok);
	}
	if (d != NULL)
		closedir(d);
	return found;
}

static int
fake_children(void *arg, const struct hier *h, const char *path,
	      int (*fn)(void *fnarg, const char *name), void *fnarg)
{
	char dir[512];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int rc = 0;

	group_dir_of(arg, h, path, dir, sizeof(dir));
	if ((d = opendir(dir)) == NULL)
		return -errno;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char sub[1024];

		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.' && stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			rc = fn(fnarg, e->d_name);
	}
	closedir(d);
	return rc;
}

static int
fake_set(void *arg, const struct hier *h, const char *path, const char *key,
	 const char *value)
{
	struct fixture *f = arg;
	char dir[512], file[700], old[512], now[640] = "";
	struct stat st;

	group_dir_of(f, h, path, dir, sizeof(dir));
	snprintf(file, sizeof(file), "%s/%s", dir, key);
	if (f->nsets < sizeof(f->sets) / sizeof(f->sets[0]))
		snprintf(f->sets[f->nsets++], sizeof(f->sets[0]), "%s %s %s", path, key,
			 value);
	if (stat(dir, &st) < 0)
		return -ENOENT;
	if (strcmp(key, "cgroup.subtree_control") != 0) {
		put(file, "%s\n", value);
		return 0;
	}
	slurp(file, old, sizeof(old));
	for (const char *s = value; *s; s += strcspn(s, " "), s += *s == ' ') {
		size_t n = strcspn(s, " ") - 1;
		char tok[64];

		snprintf(tok, sizeof(tok), "%.*s", (int)n, s + 1);
		if (*s == '+' && !fake_listed(old, tok)) {
			/* the kernel: no controllers below a group with processes */
			if (!fake_is_empty(f, h, path))
				return -EBUSY;
			snprintf(now, sizeof(now), "%.500s%s%.60s", old, old[0] ? " " : "", tok);
		} else if (*s == '-' && fake_listed(old, tok)) {
			/* the kernel: not while a child still enables it */
			if (fake_child_enables(dir, tok))
				return -EBUSY;
			fake_unlist(old, tok, now, sizeof(now));
		} else {
			continue;
		}
		snprintf(old, sizeof(old), "%.500s", now);
	}
	put(file, "%s\n", old);
	return 0;
}

static int
fake_get(void *arg, const struct hier *h, const char *path, const char *key, char *buf,
	 size_t len)
{
	struct fixture *f = arg;
	char dir[512], file[700];

	group_dir_of(f, h, path, dir, sizeof(dir));
	snprintf(file, sizeof(file), "%s/%s", dir, key);
	if (access(file, F_OK) == 0) {
		slurp(file, buf, len);
		return 0;
	}
	if (strcmp(key, "cgroup.controllers") != 0 || strcmp(dir, f->cg2) == 0)
		return -ENOENT;
	/* what the parent enabled */
	char *slash = strrchr(dir, '/');
	*slash = '\0';
	snprintf(file, sizeof(file), "%s/cgroup.subtree_control", dir);
	slurp(file, buf, len);
	return 0;
}

static int
fake_move(void *arg, const struct hier *h, const char *path, pid_t tgid)
{
	struct fixture *f = arg;
	char dir[512], file[256];
	struct stat st;

	if (f->fail_move)
		return f->fail_move;
	group_dir_of(f, h, path, dir, sizeof(dir));
	if (stat(dir, &st) < 0)
		return -ENOENT;
	snprintf(file, sizeof(file), "%s/%d/cgroup", f->proc, (int)tgid);
	if (access(file, F_OK) < 0)
		return -ESRCH;
	if (h->version == HIER_V2) {
		char ctl[700], buf[256];

		/* the kernel: no process in a group with controllers below it */
		snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", dir);
		if (slurp(ctl, buf, sizeof(buf))[0] != '\0')
			return -EBUSY;
		set_cgroup_line(f, tgid, "", path);
	} else {
		set_cgroup_line(f, tgid, f->v1name, path);
	}
	return 0;
}

static bool
fake_is_empty(void *arg, const struct hier *h, const char *path)
{
	struct fixture *f = arg;
	DIR *d = opendir(f->proc);
	struct dirent *e;
	bool empty = true;

	while (d != NULL && (e = readdir(d)) != NULL) {
		pid_t pid = (pid_t)atoi(e->d_name);

		const char *g = h != NULL && h->version == HIER_V2
					? fixture_group_v2(f, pid)
					: fixture_group(f, pid);

		if (pid > 0 && strcmp(g, path) == 0)
			empty = false;
	}
	if (d != NULL)
		closedir(d);
	return empty;
}

/* Does dir have a sub-directory (a child group)? */
static bool
has_child(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	bool found = false;

	while (d != NULL && !found && (e = readdir(d)) != NULL) {
		char sub[1024];

		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		found = e->d_name[0] != '.' && stat(sub, &st) == 0 && S_ISDIR(st.st_mode);
	}
	if (d != NULL)
		closedir(d);
	return found;
}

static int
fake_rmdir(void *arg, const struct hier *h, const char *path)
{
	char dir[512];

	group_dir_of(arg, h, path, dir, sizeof(dir));
	/* the kernel: not with processes or child groups in it */
	if (!fake_is_empty(arg, h, path) || has_child(dir))
		return -EBUSY;
	rm_rf(dir);
	return 0;
}

static void
fake_flush(void *arg)
{
}

/* Ids: a counter, kept in a hidden file of the group's directory, so a
 * group removed and made again gets a new one, as in the kernel. */
static uint64_t fake_next_id = 1000;

static int
fake_id(void *arg, const struct hier *h, const char *path, uint64_t *id)
{
	char dir[512], file[600], buf[32];
	struct stat st;

	group_dir_of(arg, h, path, dir, sizeof(dir));
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return -ENOENT;
	snprintf(file, sizeof(file), "%s/.cgid", dir);
	if (slurp(file, buf, sizeof(buf))[0] == '\0')
		put(file, "%llu\n", (unsigned long long)fake_next_id++);
	*id = strtoull(slurp(file, buf, sizeof(buf)), NULL, 10);
	return 0;
}

/* Is there a directory below dir whose id is id? */
static bool
fake_find_id(const char *dir, uint64_t id)
{
	char file[1024], buf[32];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(file, sizeof(file), "%s/.cgid", dir);
	if (strtoull(slurp(file, buf, sizeof(buf)), NULL, 10) == id)
		return true;
	if ((d = opendir(dir)) == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		struct stat st;

		snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.' && stat(file, &st) == 0 && S_ISDIR(st.st_mode))
			found = fake_find_id(file, id);
	}
	closedir(d);
	return found;
}

static int
fake_id_live(void *arg, const struct hier *h, uint64_t id)
{
	char dir[512];

	group_dir_of(arg, h, "/", dir, sizeof(dir));
	return fake_find_id(dir, id) ? 1 : 0;
}

static time_t
fake_wall(void)
{
	struct fixture *f = fixture_current;

	if (f->vanish_on_wall > 0) {
		fixture_gone(f, f->vanish_on_wall);
		f->vanish_on_wall = 0;
	}
	return f->wall;
}

const char fixture_rules[] = "root            name=cgecore  /admins\n"
			    "nobody:fx-www   name=cgecore  /www\n"
			    "nobody          name=cgecore  /users/%u\n";

const char fixture_profile[] = "boost-profile \"fast\" {\n"
			       "  allow = {\"nobody\"}\n"
			       "  hierarchy = \"name=cgecore\"\n"
			       "  destination = \"/fast\"\n"
			       "  max-duration = \"1h\"\n"
			       "}\n";

/* ---- set-up ---------------------------------------------------------------- */

void
fixture_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	const char *tmp = getenv("TMPDIR"); /* a bench may want a tmpfs */

	if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > 32)
		tmp = "/tmp";
	snprintf(f->dir, sizeof(f->dir), "%s/cgetest-core.XXXXXX", tmp);
	if (mkdtemp(f->dir) == NULL)
		bail("mkdtemp");
	snprintf(f->proc, sizeof(f->proc), "%s/proc", f->dir);
	snprintf(f->cg, sizeof(f->cg), "%s/cg", f->dir);
	snprintf(f->mountinfo, sizeof(f->mountinfo), "%s/mountinfo", f->dir);
	snprintf(f->conf, sizeof(f->conf), "%s/cgengined.conf", f->dir);
	snprintf(f->rules, sizeof(f->rules), "%s/cgrules.conf", f->dir);
	snprintf(f->state, sizeof(f->state), "%s/state/boosts.state", f->dir);
	if (mkdir(f->proc, 0755) < 0 || mkdir(f->cg, 0755) < 0)
		bail("mkdir in %s", f->dir);
	put(f->mountinfo,
	    "35 25 0:99 / %s rw,relatime shared:99 - cgroup cgroup rw,%s\n", f->cg,
	    FIXTURE_HIER);
	f->cgfs = (struct backend){
		.place = { .mkdir = fake_mkdir,
			   .set = fake_set,
			   .move = fake_move,
			   .rmdir = fake_rmdir,
			   .is_empty = fake_is_empty,
			   .flush = fake_flush },
		.look = { .get = fake_get, .children = fake_children },
		.ids = { .id = fake_id, .id_live = fake_id_live },
		.gate = { .move_now = fake_move },
		.arg = f,
	};
	snprintf(f->v1name, sizeof(f->v1name), "%s", FIXTURE_HIER);
	f->wall = 1700000000;
	fixture_current = f;
}

void
fixture_v1_controllers(struct fixture *f, const char *controllers)
{
	snprintf(f->v1name, sizeof(f->v1name), "%s,%s", controllers, FIXTURE_HIER);
	put(f->mountinfo,
	    "35 25 0:99 / %s rw,relatime shared:99 - cgroup cgroup rw,%s\n", f->cg,
	    f->v1name);
}

const char *
fixture_v1_file(struct fixture *f, const char *group, const char *file)
{
	static char buf[512];
	char path[700];

	snprintf(path, sizeof(path), "%s%s/%s", f->cg, strcmp(group, "/") == 0 ? "" : group,
		 file);
	return slurp(path, buf, sizeof(buf));
}

void
fixture_v2(struct fixture *f, const char *controllers, const char *self)
{
	char file[300];
	FILE *m;

	snprintf(f->cg2, sizeof(f->cg2), "%s/cg2", f->dir);
	if (mkdir(f->cg2, 0755) < 0)
		bail("mkdir %s", f->cg2);
	snprintf(file, sizeof(file), "%s/cgroup.controllers", f->cg2);
	put(file, "%s\n", controllers);
	if (strcmp(self, "/") != 0) { /* delegated: the root enabled them for self */
		char dir[512], on[512] = "";

		snprintf(dir, sizeof(dir), "%s%s", f->cg2, self);
		if (mkdir_p(dir) < 0)
			bail("mkdir %s", dir);
		snprintf(file, sizeof(file), "%s/cgroup.subtree_control", f->cg2);
		snprintf(on, sizeof(on), "%s", controllers);
		put(file, "%s\n", on);
	}
	if ((m = fopen(f->mountinfo, "a")) == NULL)
		bail("cannot append to %s", f->mountinfo);
	fprintf(m, "36 25 0:98 / %s rw,relatime shared:98 - cgroup2 cgroup2 rw\n",
		f->cg2);
	fclose(m);
	snprintf(file, sizeof(file), "%s/self", f->proc);
	mkdir(file, 0755);
	snprintf(file, sizeof(file), "%s/self/cgroup", f->proc);
	put(file, "0::%s\n", self);
}

void
fixture_proc_v2(struct fixture *f, pid_t pid, const char *path)
{
	set_cgroup_line(f, pid, "", path);
}

const char *
fixture_group_v2(struct fixture *f, pid_t pid)
{
	static char out[512];
	char file[300], buf[512];
	FILE *in;

	snprintf(file, sizeof(file), "%s/%d/cgroup", f->proc, (int)pid);
	out[0] = '\0';
	if ((in = fopen(file, "r")) == NULL)
		return out;
	while (fgets(buf, sizeof(buf), in) != NULL)
		if (strncmp(buf, "0::", 3) == 0) {
			buf[strcspn(buf, "\n")] = '\0';
			snprintf(out, sizeof(out), "%s", buf + 3);
		}
	fclose(in);
	return out;
}

const char *
fixture_v2_file(struct fixture *f, const char *group, const char *file)
{
	static char buf[512];
	char path[700];

	snprintf(path, sizeof(path), "%s%s/%s", f->cg2,
		 strcmp(group, "/") == 0 ? "" : group, file);
	return slurp(path, buf, sizeof(buf));
}

void
fixture_v2_write(struct fixture *f, const char *group, const char *file, const char *value)
{
	char path[700];

	snprintf(path, sizeof(path), "%s%s/%s", f->cg2,
		 strcmp(group, "/") == 0 ? "" : group, file);
	put(path, "%s", value);
}

void
fixture_files(struct fixture *f, const char *extra_conf, const char *rules)
{
	put(f->conf,
	    "rules = \"%s\"\nrules-dir = \"\"\nhierarchies = {\"%s\"}\n"
	    "control-socket = \"\"\nsticky-socket = \"\"\nstate-file = \"%s\"\n"
	    "pidfile = \"%s/pid\"\nlog = \"stderr\"\n%s\ntemplate-key = \"%s/template.key\"\n",
	    f->rules, FIXTURE_HIER, f->state, f->dir, extra_conf ? extra_conf : "", f->dir);
	put(f->rules, "%s", rules);
}

static void
report_diag(void *arg, const char *msg)
{
	diag("%s", msg);
}

struct core *
fixture_core(struct fixture *f)
{
	struct report rep = { .fn = report_diag };
	struct core_options o = {
		.ov = { .config = f->conf, .config_explicit = true },
		.env = { .procroot = f->proc,
			 .mountinfo = f->mountinfo,
			 .cgfs = &f->cgfs,
			 .wall = fake_wall,
			 .nft = f->nft,
			 .boost_members = f->boost_members,
			 .want_events = f->want_events,
			 .between = f->between,
			 .loop_arg = f->want_arg,
			 .prio = f->prio },
	};

	fixture_current = f;
	return core_new(&o, &rep);
}

void
fixture_stuck_cmdline(struct fixture *f, pid_t pid)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%d/cmdline", f->proc, (int)pid);
	unlink(path);
	if (mkfifo(path, 0600) < 0)
		bail("mkfifo %s", path);
}

void
fixture_proc(struct fixture *f, pid_t pid, uid_t uid, gid_t gid, const char *exe,
	     uint64_t start, const char *group)
{
	char dir[256], file[300];
	const char *base = strrchr(exe, '/');

	snprintf(dir, sizeof(dir), "%s/%d", f->proc, (int)pid);
	rm_rf(dir);
	if (mkdir(dir, 0755) < 0)
		bail("mkdir %s", dir);
	snprintf(file, sizeof(file), "%s/status", dir);
	put(file,
	    "Name:\t%.15s\nState:\tS (sleeping)\nTgid:\t%d\nPid:\t%d\nPPid:\t1\n"
	    "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nGroups:\t%u\nKthread:\t0\n"
	    "Threads:\t1\n",
	    base ? base + 1 : exe, (int)pid, (int)pid, uid, uid, uid, uid, gid, gid, gid,
	    gid, gid);
	snprintf(file, sizeof(file), "%s/stat", dir);
	put(file,
	    "%d (%.15s) S 1 %d %d 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %llu 1000 100\n",
	    (int)pid, base ? base + 1 : exe, (int)pid, (int)pid, (unsigned long long)start);
	snprintf(file, sizeof(file), "%s/comm", dir);
	put(file, "%.15s\n", base ? base + 1 : exe);
	snprintf(file, sizeof(file), "%s/cgroup", dir);
	put(file, "1:%s:%s\n", f->v1name, group);
	snprintf(file, sizeof(file), "%s/cmdline", dir);
	put(file, "%s", exe);
	snprintf(file, sizeof(file), "%s/exe", dir);
	if (symlink(exe, file) < 0)
		bail("symlink %s", file);
}

void
fixture_status(struct fixture *f, pid_t pid, const char *key, const char *value)
{
	char file[300], buf[4096], head[64];
	FILE *in;
	size_t n;

	snprintf(file, sizeof(file), "%s/%d/status", f->proc, (int)pid);
	if ((in = fopen(file, "r")) == NULL)
		bail("no %s", file);
	n = fread(buf, 1, sizeof(buf) - 1, in);
	fclose(in);
	buf[n] = '\0';
	snprintf(head, sizeof(head), "%s:\t", key);
	char *line = buf;
	while (line != NULL && strncmp(line, head, strlen(head)) != 0)
		line = (line = strchr(line, '\n')) != NULL ? line + 1 : NULL;
	if (line == NULL) { /* no such line: added at the end */
		put(file, "%s%s%s\n", buf, head, value);
		return;
	}
	const char *rest = strchr(line, '\n');
	*line = '\0';
	put(file, "%s%s%s%s", buf, head, value, rest != NULL ? rest : "\n");
}

void
fixture_threads(struct fixture *f, pid_t pid, int threads)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", threads);
	fixture_status(f, pid, "Threads", num);
}

void
fixture_zombie(struct fixture *f, pid_t pid)
{
	char file[300], buf[1024];
	FILE *in;
	size_t n;

	snprintf(file, sizeof(file), "%s/%d/stat", f->proc, (int)pid);
	if ((in = fopen(file, "r")) == NULL)
		bail("no %s", file);
	n = fread(buf, 1, sizeof(buf) - 1, in);
	fclose(in);
	buf[n] = '\0';
	char *s = strrchr(buf, ')');
	if (s == NULL || s[1] != ' ')
		bail("no state in %s", file);
	s[2] = 'Z';
	put(file, "%s", buf);
}

void
fixture_gone(struct fixture *f, pid_t pid)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/%d", f->proc, (int)pid);
	rm_rf(dir);
}

const char *
fixture_group(struct fixture *f, pid_t pid)
{
	static char buf[512];
	char file[300];
	FILE *in;

	snprintf(file, sizeof(file), "%s/%d/cgroup", f->proc, (int)pid);
	buf[0] = '\0';
	if ((in = fopen(file, "r")) == NULL)
		return buf;
	if (fgets(buf, sizeof(buf), in) == NULL)
		buf[0] = '\0';
	fclose(in);
	buf[strcspn(buf, "\n")] = '\0';
	char *p = strchr(buf, ':');
	size_t n = strlen(f->v1name);
	return p != NULL && strncmp(p + 1, f->v1name, n) == 0 && p[1 + n] == ':' ? p + 2 + n
										  : "";
}

void
fixture_done(struct fixture *f)
{
	rm_rf(f->dir);
	fixture_current = NULL;
}

struct procev_event
fixture_event(enum procev_type type, pid_t pid, pid_t parent)
{
	return (struct procev_event){ .type = type,
				      .pid = pid,
				      .tgid = pid,
				      .parent_pid = parent,
				      .parent_tgid = parent };
}
