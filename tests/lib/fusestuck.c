/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fusestuck.c -- test helper: a process whose command line, or the
 * files it names, cannot be read.
 *
 * fusestuck DIR SECONDS: its command line.  In a mount namespace of
 * its own it mounts a FUSE file system on DIR whose server (a child)
 * answers everything but reads, and maps its one file.  A second
 * child reads that mapping through /proc/PID/mem: the read waits for
 * the server for ever, holding the process's mm lock for reading; a
 * thread of the process then wants it for writing (an mmap) and waits
 * behind it; every later reader of the mm -- a read of
 * /proc/PID/cmdline among them -- waits behind the writer.  The
 * process renames itself "stuck-argv" (its command name is then not
 * its executable's, so a classification reads its cmdline), says
 * "ready" on stdout and sleeps SECONDS; all of it ends with the
 * process (its children die with it).  Any user can do the same with
 * fusermount3 on their own processes; done here as root, with no FUSE
 * library.
 *
 * FUSESTUCK_NAMES=DIR fusestuck -c ARG...: the files its command line
 * names.  It mounts the same file system on DIR, holds its file f open
 * (fd N) and makes DIR its working directory; then the server answers
 * nothing more (it reads no more requests: whoever looks a name up in
 * DIR, or stats f, waits for ever -- killably).  It drops the "-c"
 * from its command line, says "ready fd N" and sleeps 60 s.  Its
 * arguments are not its own but what a classification checks: run a
 * copy of it named as an interpreter ("sh") and give it a script "./x"
 * (looked up in DIR) or "-e FILE" (then f, held open, is stat'd).  At
 * its exec, its command line "sh -c ..." names a command string, which
 * no classification checks: the daemons that classify the exec (those
 * of other tests too) are not stuck on it.  (The mount is root's, as
 * the daemon is: the kernel refuses root on another user's FUSE mount
 * unless it was mounted allow_other, without asking its server.)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fuse.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define FILE_NODE 2

static void
reply(int fd, uint64_t unique, int error, const void *body, size_t len)
{
	struct fuse_out_header h = { .len = (uint32_t)(sizeof(h) + len),
				     .error = error,
				     .unique = unique };
	struct iovec v[2] = { { &h, sizeof(h) }, { (void *)body, len } };

	(void)writev(fd, v, body != NULL ? 2 : 1);
}

static void
attr_of(uint64_t node, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->nlink = 1;
	a->blksize = 4096;
	if (node == FILE_NODE) {
		a->mode = S_IFREG | 0644;
		a->size = 65536;
		a->blocks = 128;
	} else {
		a->mode = S_IFDIR | 0755;
	}
}

/* One request: answered, but for reads (and what needs no answer). */
static void
serve_one(int fd, const struct fuse_in_header *in, const void *arg)
{
	switch (in->opcode) {
	case FUSE_INIT: {
		const struct fuse_init_in *i = arg;
		struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION,
					   .minor = FUSE_KERNEL_MINOR_VERSION,
					   .max_readahead = i->max_readahead,
					   .max_write = 4096 };
		reply(fd, in->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_LOOKUP: {
		struct fuse_entry_out e = { .nodeid = FILE_NODE, .generation = 1 };
		if (strcmp(arg, "f") != 0) {
			reply(fd, in->unique, -ENOENT, NULL, 0);
			break;
		}
		attr_of(FILE_NODE, &e.attr);
		reply(fd, in->unique, 0, &e, sizeof(e));
		break;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out a = { .attr_valid = 0 }; /* asked again */
		attr_of(in->nodeid, &a.attr);
		reply(fd, in->unique, 0, &a, sizeof(a));
		break;
	}
	case FUSE_OPEN: {
		struct fuse_open_out o = { .fh = 1 };
		reply(fd, in->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_READ:	     /* never answered: the point */
	case FUSE_INTERRUPT: /* of a read: not answered either */
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
		break;
	case FUSE_FLUSH: /* never asked again: a close then waits for nothing */
		reply(fd, in->unique, -ENOSYS, NULL, 0);
		break;
	case FUSE_RELEASE:
	case FUSE_DESTROY:
		reply(fd, in->unique, 0, NULL, 0);
		break;
	default:
		reply(fd, in->unique, -ENOSYS, NULL, 0);
	}
}

/* Serve /dev/fuse fd until a byte on socket ctl (-1: none) says to go
 * silent: then a byte back, and no request is read any more. */
static void
serve(int fd, int ctl)
{
	static char buf[1 << 18]; /* more than max_write and FUSE_MIN_READ_BUFFER */
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
			       { .fd = ctl, .events = POLLIN } };
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents != 0) {
			if (read(ctl, &c, 1) == 1 && write(ctl, &c, 1) == 1)
				for (;;)
					pause(); /* until the process is gone */
			_exit(1);
		}
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)sizeof(struct fuse_in_header))
			_exit(0); /* unmounted, or aborted */
		serve_one(fd, (const struct fuse_in_header *)buf,
			  buf + sizeof(struct fuse_in_header));
	}
}

/* The mm's lock wanted for writing (an mmap) once told to (a byte on
 * the pipe arg), queued behind the reader that holds it: every later
 * reader of the mm waits behind it.  Started before the reader: the
 * thread's own stack is mapped. */
static void *
writer(void *arg)
{
	char c;

	if (read(*(int *)arg, &c, 1) == 1)
		(void)mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return NULL;
}

/* A child that reads the parent's memory at addr through /proc/PID/mem:
 * the read waits for the FUSE server, holding the parent's mm lock. */
static pid_t
stuck_reader(unsigned long addr)
{
	char path[64], c;
	pid_t parent = getpid(), pid = fork();

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)parent);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, &c, 1, (off_t)addr) < 0)
		perror("fusestuck: reader");
	_exit(1); /* once the server is gone */
}

/* In a mount namespace of its own, DIR mounted with its server started
 * (serving until a byte on ctl, -1 for never): the /dev/fuse fd is the
 * server's alone.  0, or 1 with why on stderr. */
static int
mount_stuck(const char *dir, int ctl)
{
	char opts[128];
	int fd;

	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    (fd = open("/dev/fuse", O_RDWR | O_CLOEXEC)) < 0) {
		perror("fusestuck: namespace or /dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("fusestuck", dir, "fuse", MS_NOSUID | MS_NODEV, opts) < 0) {
		perror("fusestuck: mount");
		return 1;
	}
	pid_t server = fork();
	if (server == 0)
		serve(fd, ctl);
	close(fd);
	if (server < 0) {
		perror("fusestuck: server");
		return 1;
	}
	return 0;
}

/* The mm lock held: see the top. */
static int
stuck_mm(const char *dir, unsigned seconds)
{
	char path[4096];
	pthread_t w;
	void *map;
	int file, go[2];

	if (mount_stuck(dir, -1) != 0)
		return 1;
	snprintf(path, sizeof(path), "%s/f", dir);
	if ((file = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    (map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, file, 0)) == MAP_FAILED) {
		perror("fusestuck: file or mapping");
		return 1;
	}
	prctl(PR_SET_NAME, "stuck-argv");
	if (pipe(go) < 0 || pthread_create(&w, NULL, writer, &go[0]) != 0 ||
	    stuck_reader((unsigned long)map) < 0)
		return 1;
	/* from here on nothing may map memory (stdio's buffer, malloc,
	 * a thread's stack): this process would wait behind the reader */
	usleep(200000); /* the reader is in its read */
	if (write(go[1], "w", 1) != 1)
		return 1;
	usleep(200000); /* the writer waits, and has waited long enough that
			   no reader passes it (the kernel's rwsem hand-off) */
	if (write(1, "ready\n", 6) != 6)
		return 1;
	while (seconds > 0)
		seconds = sleep(seconds);
	return 0;
}

/* Drop argv[1] from the process's argument area (what
 * /proc/PID/cmdline shows): the words after it move over it, the end
 * is zeroed. */
static void
drop_first_arg(int argc, char **argv)
{
	char *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	size_t skip = strlen(argv[1]) + 1;

	memmove(argv[1], argv[1] + skip, (size_t)(end - argv[1]) - skip);
	memset(end - skip, 0, skip);
}

/* The files named stuck: see the top. */
static int
stuck_names(const char *dir, int argc, char **argv)
{
	char path[PATH_MAX], c = 's';
	unsigned seconds = 60;
	int ctl[2], file;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) < 0 ||
	    mount_stuck(dir, ctl[1]) != 0)
		return 1;
	snprintf(path, sizeof(path), "%s/f", dir);
	/* a first close asks the server to flush, once: its exit's close
	 * of f would wait for the silent server for ever */
	if ((file = open(path, O_RDONLY | O_CLOEXEC)) < 0 || close(file) < 0 ||
	    (file = open(path, O_RDONLY | O_CLOEXEC)) < 0 || chdir(dir) < 0) {
		perror("fusestuck: file or working directory");
		return 1;
	}
	/* silent from here on: the byte back says the server read its last */
	if (write(ctl[0], &c, 1) != 1 || read(ctl[0], &c, 1) != 1) {
		perror("fusestuck: silence");
		return 1;
	}
	drop_first_arg(argc, argv);
	printf("ready fd %d\n", file);
	fflush(stdout);
	while (seconds > 0)
		seconds = sleep(seconds);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *names = getenv("FUSESTUCK_NAMES");

	if (names != NULL && argc >= 3 && strcmp(argv[1], "-c") == 0)
		return stuck_names(names, argc, argv);
	if (names != NULL || argc != 3) {
		fprintf(stderr, "usage: fusestuck DIR SECONDS\n"
				"       FUSESTUCK_NAMES=DIR fusestuck -c ARG...\n");
		return 2;
	}
	return stuck_mm(argv[1], (unsigned)atoi(argv[2]));
}
