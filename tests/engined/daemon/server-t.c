/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * server-t.c -- unit tests for engined/server.c (and the socket
 * helpers in files.c, and control_parse_line): a real libev loop,
 * clients on socketpairs handed to server_adopt() with whatever uid a
 * case needs, stub request callbacks instead of the engine.  No root.
 *
 * Covered: framing of lines and records, over-long and unfinished
 * requests, the deadline that trickling bytes do not extend, per-uid
 * caps and root's reserve, output back-pressure and the single drop,
 * the refusal log limiter, back-off when accept4 fails with EMFILE,
 * the socket file's mode and refusing symbolic links; and the requests
 * control.c refuses itself, with control_parse_line.
 */
#include "engined/core/core_private.h"
#include "engined/daemon/server.h"

#include <ev.h>
#include "tests/tap/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static struct ev_loop *loop;
static char dir[64], logpath[128];
static unsigned served; /* requests the stub callbacks saw */

/* ---- stubs and helpers ------------------------------------------------------------ */

/* Lines: echo; "quit" closes; "big" answers 1000 bytes; blank: nothing. */
static enum server_verdict
echo_cb(struct server_client *c, char *req, size_t len)
{
	static char big[1000];

	if (len == 0)
		return SERVER_IGNORE;
	served++;
	if (strcmp(req, "quit") == 0)
		return SERVER_CLOSE;
	if (strcmp(req, "big") == 0) {
		memset(big, 'x', sizeof(big));
		return server_send(c, big, sizeof(big)) == 0 ? SERVER_NEXT : SERVER_CLOSE;
	}
	if (server_printf(c, "%s:%zu\n", req, len) < 0)
		return SERVER_CLOSE;
	return SERVER_NEXT;
}

/* Records of 8 bytes: answered with their sum, then closed. */
static enum server_verdict
record_cb(struct server_client *c, char *req, size_t len)
{
	unsigned sum = 0;

	served++;
	for (size_t i = 0; i < len; i++)
		sum += (unsigned char)req[i];
	server_printf(c, "sum %u", sum);
	return SERVER_CLOSE;
}

static const struct server_proto lines = {
	.name = "lines",
	.max_line = 16,
	.deadline = 0.5,
	.max_clients = 6,
	.root_reserve = 2,
	.max_per_uid = 2,
	.max_output = 64,
	.greeting = "HI\n",
	.refusal = "FULL\n",
	.too_long = "LONG\n",
	.partial = "PARTIAL\n",
	.request = echo_cb,
};

static void
stop_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	ev_break(l, EVBREAK_ALL);
}

/* Run the loop for about `seconds`. */
static void
run_for(double seconds)
{
	ev_timer t;

	ev_timer_init(&t, stop_cb, seconds, 0.);
	ev_timer_start(loop, &t);
	ev_run(loop, 0);
	ev_timer_stop(loop, &t);
}

/* A client of s with the given uid: the test's end of a socketpair. */
static int
client(struct server *s, uid_t uid, int *rc)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		bail("socketpair: %s", strerror(errno));
	int r = server_adopt(s, sv[0], uid, 4242);
	if (rc != NULL)
		*rc = r;
	return sv[1];
}

static void
say(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		bail("write: %s", strerror(errno));
}

/* What the server has sent so far (non-blocking), into a static buffer;
 * *eof is set when the server closed. */
static const char *
heard(int fd, bool *eof)
{
	static char buf[65536];
	size_t n = 0;
	ssize_t r;

	*eof = false;
	while (n + 1 < sizeof(buf) && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) != 0) {
		if (r < 0)
			break;
		n += (size_t)r;
	}
	if (r == 0 || (r < 0 && errno == ECONNRESET)) /* reset: closed with unread data */
		*eof = true;
	buf[n] = '\0';
	return buf;
}

static bool
closed(int fd)
{
	bool eof;

	heard(fd, &eof);
	return eof;
}

/* Log lines (after the "level: " prefix) equal to msg. */
static int
logged(const char *msg)
{
	FILE *f = fopen(logpath, "r");
	char line[2048];
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		char *p = strstr(line, ": ");
		if (p != NULL && strcmp(p + 2, msg) == 0)
			n++;
	}
	fclose(f);
	return n;
}

/* Log lines containing s. */
static int
logged_like(const char *s)
{
	FILE *f = fopen(logpath, "r");
	char line[2048];
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, s) != NULL;
	fclose(f);
	return n;
}

static struct server *
server_up(const struct server_proto *p)
{
	struct server *s = server_new(p, NULL);

	if (s == NULL)
		bail("server_new");
	server_start(s, loop);
	return s;
}

/* ---- framing ----------------------------------------------------------------------- */

static void
test_lines(void)
{
	struct server *s = server_up(&lines);
	bool eof;
	int fd = client(s, 1000, NULL);

	is_string("HI\n", heard(fd, &eof), "lines: greeting on connect");
	say(fd, "abc\nde");
	run_for(0.05);
	is_string("abc:3\n", heard(fd, &eof), "lines: a complete line is served");
	say(fd, "f\n\ng\n");
	run_for(0.05);
	is_string("def:3\ng:1\n", heard(fd, &eof), "lines: split and pipelined lines");
	say(fd, "123456789012345\n");
	run_for(0.05);
	is_string("123456789012345:15\n", heard(fd, &eof),
		  "lines: a line of max_line bytes with its newline is served");
	say(fd, "1234567890123456");
	run_for(0.05);
	is_string("LONG\n", heard(fd, &eof), "lines: a longer one is refused");
	ok(eof, "lines: and the connection closed");
	close(fd);

	fd = client(s, 1000, NULL);
	say(fd, "ab");
	shutdown(fd, SHUT_WR);
	run_for(0.05);
	is_string("HI\nPARTIAL\n", heard(fd, &eof),
		  "lines: end of file inside a request");
	ok(eof, "lines: closed after it");
	close(fd);

	fd = client(s, 1000, NULL);
	say(fd, "a\nquit\nb\n");
	run_for(0.05);
	is_string("HI\na:1\n", heard(fd, &eof),
		  "lines: SERVER_CLOSE ends the connection");
	ok(eof, "lines: and nothing after it is served");
	close(fd);
	run_for(0.01);
	is_int(0, server_clients(s), "lines: every client is gone");
	server_free(s);
}

static void
test_records(void)
{
	struct server_proto p = { .name = "records",
				  .record = 8,
				  .deadline = 0.5,
				  .max_clients = 4,
				  .max_per_uid = 4,
				  .max_output = 64,
				  .request = record_cb };
	struct server *s = server_up(&p);
	bool eof;
	int fd = client(s, 1000, NULL);

	say(fd, "\1\1\1");
	run_for(0.05);
	is_string("", heard(fd, &eof), "records: nothing before the record is complete");
	say(fd, "\1\1\1\1\2");
	run_for(0.05);
	is_string("sum 9", heard(fd, &eof), "records: one answer for 8 bytes");
	ok(eof, "records: closed after the answer");
	close(fd);

	/* one byte every 0.2 s of the loop's clock: 8 bytes would take 1.6 s,
	 * the deadline is 0.5 (counted in rounds, not wall-clock time, which
	 * a busy machine stretches) */
	served = 0;
	fd = client(s, 1000, NULL);
	bool dropped = false;
	int rounds = 0;
	while (rounds < 8 && !dropped) {
		if (write(fd, "\1", 1) != 1)
			dropped = true;
		run_for(0.2);
		rounds++;
		dropped = dropped || closed(fd);
	}
	ok(dropped && served == 0 && rounds <= 4,
	   "records: a trickling client is dropped at its deadline (after %d rounds of 0.2 s)",
	   rounds);
	is_int(1,
	       logged("records: pid 4242 (uid 1000) too slow, no complete request within 0.5 s, dropped"),
	       "records: logged once");
	close(fd);
	server_free(s);
}

/* ---- the deadline ------------------------------------------------------------------ */

static void
test_deadline(void)
{
	struct server_proto p = lines;
	struct server *s;
	ev_tstamp start;
	bool eof;
	int fd;

	p.name = "deadline";
	p.deadline = 1.0;
	s = server_up(&p);
	/* a request trickled a byte at a time: "x" every 0.1 s of the loop's
	 * clock, for 4 s at most; closed after 1 s and within 12 rounds (a
	 * busy machine stretches the wall-clock time, not the rounds) */
	start = ev_now(loop); /* the clock the server's deadline runs on */
	fd = client(s, 1000, NULL);
	int rounds = 0;
	while (!closed(fd) && rounds < 40) {
		if (write(fd, "x", 1) != 1)
			break;
		run_for(0.1);
		rounds++;
	}
	double took = ev_now(loop) - start;
	ok(took >= 0.95 && rounds <= 12,
	   "a trickle does not extend the deadline (closed after %.2f s, %d rounds)", took,
	   rounds);
	close(fd);

	/* blank lines are no requests: they do not extend it either */
	start = ev_now(loop);
	fd = client(s, 1000, NULL);
	rounds = 0;
	while (!closed(fd) && rounds < 40) {
		if (write(fd, "\n", 1) != 1)
			break;
		run_for(0.1);
		rounds++;
	}
	took = ev_now(loop) - start;
	ok(took >= 0.95 && rounds <= 12, "nor do blank lines (closed after %.2f s, %d rounds)",
	   took, rounds);
	close(fd);

	/* each served request starts it again */
	fd = client(s, 1000, NULL);
	heard(fd, &eof);
	for (int i = 0; i < 4; i++) {
		say(fd, "a\n");
		run_for(0.4);
	}
	is_string("a:1\na:1\na:1\na:1\n", heard(fd, &eof),
		  "served requests restart the deadline");
	ok(!eof, "so a client asking every 0.4 s stays for longer than it");
	run_for(1.5);
	ok(closed(fd), "and an idle one is closed");
	close(fd);
	is_int(1,
	       logged("deadline: pid 4242 (uid 1000) too slow, no complete request within 1 s, dropped"),
	       "the trickling client was logged as too slow");
	server_free(s);
}

/* ---- caps --------------------------------------------------------------------------- */

static void
test_caps(void)
{
	struct server *s = server_up(&lines);
	int a[2], b[2], r[3], rc, x;
	bool eof;

	a[0] = client(s, 1000, &rc);
	a[1] = client(s, 1000, &rc);
	is_int(0, rc, "caps: uid 1000 gets max_per_uid connections");
	x = client(s, 1000, &rc);
	is_int(-EUSERS, rc, "caps: one more is refused");
	is_string("FULL\n", heard(x, &eof), "caps: with the refusal message");
	ok(eof, "caps: and closed");
	close(x);
	is_int(1,
	       logged("lines: too many clients of uid 1000 (at most 2), refused pid 4242 (uid 1000)"),
	       "caps: the refusal names the uid and its cap");

	b[0] = client(s, 1001, &rc);
	b[1] = client(s, 1001, &rc);
	is_int(0, rc, "caps: another uid still gets in");
	x = client(s, 1002, &rc);
	is_int(-EUSERS, rc,
	       "caps: at max_clients - root_reserve, other users are refused");
	close(x);
	is_int(1,
	       logged("lines: too many clients (the last slots are root's), refused pid 4242 (uid 1002)"),
	       "caps: logged as root's reserve");
	r[0] = client(s, 0, &rc);
	r[1] = client(s, 0, &rc);
	is_int(0, rc, "caps: root gets the reserved slots");
	is_string("HI\n", heard(r[1], &eof), "caps: and is served");
	r[2] = client(s, 0, &rc);
	is_int(-EUSERS, rc, "caps: past max_clients even root is refused");
	is_int(6, server_clients(s), "caps: six clients");
	close(r[2]);

	close(a[0]);
	run_for(0.05);
	is_int(5, server_clients(s), "caps: a client that left frees its slot");
	a[0] = client(s, 1000, &rc);
	is_int(0, rc, "caps: which its uid may take again");
	for (int i = 0; i < 2; i++) {
		close(a[i]);
		close(b[i]);
		close(r[i]);
	}
	server_free(s);
}

/* ---- output ------------------------------------------------------------------------- */

/* The server's end of a socketpair with a small send buffer: the
 * server's own queue fills after a few KB. */
static int
small_client(struct server *s, uid_t uid)
{
	int sv[2], size = 4096;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		bail("socketpair: %s", strerror(errno));
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (server_adopt(s, sv[0], uid, 4242) < 0)
		bail("adopt");
	return sv[1];
}

static void
test_output(void)
{
	struct server_proto p = lines;
	struct server *s;
	char many[800];
	bool eof;

	p.name = "output";
	p.deadline = 1.0;
	s = server_up(&p);
	for (size_t i = 0; i < sizeof(many); i += 4)
		memcpy(many + i, "big\n", 4);

	served = 0;
	int fd = small_client(s, 1000);
	if (write(fd, many, sizeof(many)) != (ssize_t)sizeof(many))
		bail("write");
	run_for(0.2);
	ok(served > 0 && served < 60,
	   "output: a client that does not read is not served further (%u of 200)",
	   served);
	size_t total = 0;
	ev_tstamp start = ev_time();
	while (ev_time() - start < 30.0 && total < 200 * 1000 + 3) { /* at once if idle */
		total += strlen(heard(fd, &eof));
		run_for(0.01);
	}
	is_int(200 * 1000 + 3, (long long)total,
	       "output: once it reads, every request is answered");
	is_int(200, served, "output: all 200 served");
	close(fd);

	/* a client that never reads: dropped once, at the deadline */
	served = 0;
	fd = small_client(s, 1000);
	if (write(fd, many, sizeof(many)) != (ssize_t)sizeof(many))
		bail("write");
	run_for(1.8);
	ok(closed(fd), "output: a client that never reads is dropped at the deadline");
	ok(served < 60, "output: after few requests (%u)", served);
	is_int(1, logged("output: pid 4242 (uid 1000) reads too slowly, dropped"),
	       "output: logged once for the client");
	close(fd);
	server_free(s);
}

/* ---- the log limiter ---------------------------------------------------------------- */

static void
test_log_limit(void)
{
	struct server_proto p = lines;
	struct server *s;
	int fds[100], rc;

	p.name = "flood";
	p.deadline = 10.0;
	p.max_clients = 1;
	p.root_reserve = 0;
	s = server_up(&p);
	int keep = client(s, 1000, &rc);
	for (int i = 0; i < 100; i++)
		fds[i] = client(s, 2000, &rc);
	is_int(-EUSERS, rc, "log: a connect flood is refused");
	is_int(SERVER_LOG_BURST, logged_like("flood: too many clients, refused"),
	       "log: only the first %d refusals are logged", SERVER_LOG_BURST);
	run_for(1.1);
	is_int(1, logged("flood: 95 more messages suppressed in the last second"),
	       "log: then one line counts the rest");
	for (int i = 0; i < 100; i++)
		close(fds[i]);
	fds[0] = client(s, 2000, &rc);
	close(fds[0]);
	is_int(SERVER_LOG_BURST + 1, logged_like("flood: too many clients, refused"),
	       "log: a second later refusals are logged again");
	close(keep);
	server_free(s);
}

/* ---- accepting ---------------------------------------------------------------------- */

static int
connect_to(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (strlen(path) >= sizeof(a.sun_path))
		bail("socket path too long: %s", path);
	memcpy(a.sun_path, path, strlen(path) + 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		bail("connect %s: %s", path, strerror(errno));
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

/* Valgrind lowers RLIMIT_NOFILE only in appearance: the kernel accepts
 * the connection and valgrind closes it, answering EMFILE. */
static bool
under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p != NULL && strstr(p, "vgpreload") != NULL;
}

static void
test_emfile(void)
{
	struct server_proto p = lines;
	char path[128];
	struct rlimit old, low;
	int fill[256], nfill = 0;
	bool eof;

	p.name = "emfile";
	p.deadline = 10.0;
	snprintf(path, sizeof(path), "%s/emfile.sock", dir);
	struct server *s = server_new(&p, NULL);
	ok(s != NULL && server_listen(s, path, 8) == 0, "accept: listening");
	server_start(s, loop);
	int fd = connect_to(path);

	if (getrlimit(RLIMIT_NOFILE, &old) < 0)
		bail("getrlimit");
	low = old;
	low.rlim_cur = 200;
	if (setrlimit(RLIMIT_NOFILE, &low) < 0)
		bail("setrlimit: %s", strerror(errno));
	while (nfill < 256 && (fill[nfill] = dup(0)) >= 0)
		nfill++;
	ok(nfill < 256 && errno == EMFILE, "accept: out of file descriptors");
	unsigned before = ev_iteration(loop);
	run_for(0.5);
	unsigned spins = ev_iteration(loop) - before;
	ok(spins < 30,
	   "accept: the loop does not spin on EMFILE (%u iterations in 0.5 s)", spins);
	is_int(0, server_clients(s), "accept: nobody accepted meanwhile");
	close(fill[--nfill]);
	close(fill[--nfill]);
	is_int(1,
	       logged("emfile: cannot accept clients: Too many open files; pausing 0.1 s"),
	       "accept: the failure is logged with the pause");
	run_for(1.2);
	if (under_valgrind()) {
		skip(2,
		     "valgrind enforces RLIMIT_NOFILE by closing what the kernel accepted");
	} else {
		is_int(1, server_clients(s),
		       "accept: accepting resumes once descriptors are free");
		is_string("HI\n", heard(fd, &eof),
			  "accept: and the waiting client is served");
	}
	while (nfill > 0)
		close(fill[--nfill]);
	if (setrlimit(RLIMIT_NOFILE, &old) < 0)
		bail("setrlimit: %s", strerror(errno));
	close(fd);
	server_free(s);
	ok(access(path, F_OK) < 0, "accept: the socket file is removed at the end");
}

/* ---- the socket file ---------------------------------------------------------------- */

static void
test_socket_file(void)
{
	struct server_proto p = lines;
	char path[128], target[128];
	struct stat st;
	struct server *s;

	p.name = "file socket";
	snprintf(path, sizeof(path), "%s/sub/mode.sock", dir);
	mode_t um = umask(077);
	s = server_new(&p, NULL);
	ok(server_listen(s, path, 8) == 0, "file: listening under umask 077");
	umask(um);
	if (stat(path, &st) < 0)
		st.st_mode = 0;
	is_int(0666, st.st_mode & 07777, "file: the socket is created 0666");
	server_free(s);

	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(path, sizeof(path), "%s/link.sock", dir);
	FILE *f = fopen(target, "w");
	if (f == NULL || fclose(f) != 0 || symlink(target, path) < 0)
		bail("fixture: %s", strerror(errno));
	s = server_new(&p, NULL);
	ok(server_listen(s, path, 8) < 0, "file: a symbolic link at the path is refused");
	char msg[512];
	snprintf(msg, sizeof(msg), "%s: file socket path is a symbolic link, refusing it",
		 path);
	is_int(1, logged(msg), "file: with a message");
	ok(lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(target, &st) == 0 &&
		   (st.st_mode & 07777) != 0666,
	   "file: the link and its target are untouched");
	ok(server_listen(s, target, 8) < 0, "file: so is a regular file");
	ok(access(target, F_OK) == 0, "file: which is not removed");
	server_free(s);
	unlink(path);
	unlink(target);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
}

/* ---- the control socket on the server ------------------------------------------------ */

/* Requests control.c refuses before they reach the engine (so no engine). */
static void
test_control(void)
{
	char path[128], line[512] = "";
	bool eof;

	snprintf(path, sizeof(path), "%s/control.sock", dir);
	struct control_server *cs = control_open(path, NULL);
	ok(cs != NULL, "control: listening");
	control_start(cs, loop);
	int fd = connect_to(path);
	run_for(0.05);
	is_string("CGENGINE 1\n", heard(fd, &eof), "control: the greeting");
	if (write(fd, "a\0b\n", 4) != 4)
		bail("write");
	run_for(0.05);
	is_string("ERR request contains a NUL byte\n", heard(fd, &eof),
		  "control: a NUL byte in a request");
	for (int i = 0; i < 65; i++)
		strcat(line, "w ");
	strcat(line, "\n \t \njson\n");
	say(fd, line);
	run_for(0.05);
	is_string("ERR too many words (at most 64)\nERR empty request\n", heard(fd, &eof),
		  "control: too many words; a blank line is ignored; 'json' alone");
	close(fd);
	control_close(cs);
	ok(access(path, F_OK) < 0, "control: the socket file is removed at the end");
}

/* ---- control_parse_line ------------------------------------------------------------- */

static void
test_parse_line(void)
{
	char line[512], *argv[64];

	strcpy(line, "  json\tstatus \r x ");
	int n = control_parse_line(line, argv, 64);
	ok(n == 3 && strcmp(argv[0], "json") == 0 && strcmp(argv[1], "status") == 0 &&
		   strcmp(argv[2], "x") == 0,
	   "parse: words split on blanks, tabs and CR");
	strcpy(line, " \t \r");
	is_int(0, control_parse_line(line, argv, 64), "parse: a blank line has no words");
	line[0] = '\0';
	for (int i = 0; i < 64; i++)
		strcat(line, "w ");
	is_int(64, control_parse_line(line, argv, 64), "parse: max words");
	strcpy(line, "a b c");
	is_int(-E2BIG, control_parse_line(line, argv, 2), "parse: more than max words: -E2BIG");
}

int
main(void)
{
	plan(70);
	signal(SIGPIPE, SIG_IGN); /* clients write to connections the server dropped */
	snprintf(dir, sizeof(dir), "/tmp/server-t.XXXXXX");
	if (mkdtemp(dir) == NULL)
		bail("mkdtemp: %s", strerror(errno));
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
	if (log_open(logpath, LOG_LEVEL_INFO) < 0)
		bail("log_open");
	if ((loop = ev_loop_new(EVFLAG_AUTO)) == NULL)
		bail("ev_loop_new");

	test_lines();
	test_records();
	test_deadline();
	test_caps();
	test_output();
	test_log_limit();
	test_emfile();
	test_socket_file();
	test_control();
	test_parse_line();

	ev_loop_destroy(loop);
	log_close();
	unlink(logpath);
	rmdir(dir);
	return tap_done();
}
