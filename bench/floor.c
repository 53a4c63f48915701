/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor.c -- the floor of any asynchronous classifier: a bare
 * proc-connector listener that wakes up for each event and, when a
 * process of the test user execs, writes its pid into the groups given.
 * No /proc reads, no rules, no buffering beyond one datagram per read.
 * bench/run.sh runs it under the same storms as the daemons and
 * measures its CPU time the same way (loadgen -d).
 *
 * Usage: floor [-r] [-f] [-n NICE] -u UID CGROUP.PROCS...
 *   -u UID  the test user: a UID event with this effective uid marks
 *           the process; its next EXEC is written into every file
 *           (only processes the benchmark started are ever moved)
 *   -r      receive only: wake up and decode, never write
 *   -f      filtered: a classic-BPF socket filter passes only EXEC and
 *           UID events, as a listener that needs nothing else would
 *           (the kernel drops the rest before it wakes the listener)
 *   -n NICE run at this nice value, as the daemon it is compared with
 *           does (cgengined's default is -10): how often a listener is
 *           woken depends on whether it preempts the processes it serves
 * Runs until killed; prints "ready" on stdout once subscribed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/filter.h>
#include <linux/netlink.h>

#define MAX_FILES 8

/* Offsets of the fields read below, in the datagram as received. */
#define OFF_WHAT  (NLMSG_HDRLEN + sizeof(struct cn_msg) + offsetof(struct proc_event, what))
#define OFF_DATA  (NLMSG_HDRLEN + sizeof(struct cn_msg) + offsetof(struct proc_event, event_data))

static uint8_t *marked; /* one bit per pid: its last UID event was the test user */
static unsigned long pid_max = 4194304;

static int
subscribe(int fd)
{
	char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))]
		__attribute__((aligned(8)));
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct cn_msg *cn = NLMSG_DATA(nh);
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;

	memset(buf, 0, sizeof(buf));
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	nh->nlmsg_type = NLMSG_DONE;
	nh->nlmsg_pid = (uint32_t)getpid();
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	return send(fd, buf, nh->nlmsg_len, 0) == (ssize_t)nh->nlmsg_len ? 0 : -1;
}

/* Pass EXEC and UID events whole, drop everything else. */
static int
attach_filter(int fd)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_WHAT),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_EXEC), 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_UID), 1, 0),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

static int
open_socket(int filtered)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC,
				  .nl_pid = (uint32_t)getpid() };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	int size = 4 << 20;

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	/* as big a buffer as the daemon may grow to: no loss under the storm */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (filtered && attach_filter(fd) < 0)
		return -1;
	return subscribe(fd) < 0 ? -1 : fd;
}

static void
mark(pid_t pid, int on)
{
	if (pid <= 0 || (unsigned long)pid >= pid_max)
		return;
	if (on)
		marked[pid / 8] |= (uint8_t)(1u << (pid % 8));
	else
		marked[pid / 8] &= (uint8_t)~(1u << (pid % 8));
}

static int
marked_pid(pid_t pid)
{
	return pid > 0 && (unsigned long)pid < pid_max && (marked[pid / 8] >> (pid % 8)) & 1;
}

/* The pid in decimal, as cgroup.procs wants it. */
static size_t
format_pid(char *buf, size_t len, pid_t pid)
{
	char tmp[16];
	size_t n = 0, k = 0;
	unsigned v = (unsigned)pid;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0 && n < sizeof(tmp));
	while (n > 0 && k < len)
		buf[k++] = tmp[--n];
	return k;
}

static void
handle(const char *buf, ssize_t len, uid_t uid, const int *fds, int nfds)
{
	struct proc_event ev;

	if (len < (ssize_t)OFF_DATA)
		return;
	memset(&ev, 0, sizeof(ev));
	memcpy(&ev, buf + NLMSG_HDRLEN + sizeof(struct cn_msg),
	       (size_t)len - NLMSG_HDRLEN - sizeof(struct cn_msg) < sizeof(ev)
		       ? (size_t)len - NLMSG_HDRLEN - sizeof(struct cn_msg)
		       : sizeof(ev));
	if (ev.what == PROC_EVENT_UID) {
		mark(ev.event_data.id.process_tgid, ev.event_data.id.e.euid == uid);
	} else if (ev.what == PROC_EVENT_EXEC && marked_pid(ev.event_data.exec.process_tgid)) {
		char num[16];
		pid_t pid = ev.event_data.exec.process_tgid;
		size_t n = format_pid(num, sizeof(num), pid);

		mark(pid, 0);
		for (int i = 0; i < nfds; i++)
			if (write(fds[i], num, n) < 0 && errno != ESRCH)
				perror("floor: write");
	}
}

int
main(int argc, char **argv)
{
	int receive_only = 0, filtered = 0, ch, fds[MAX_FILES], nfds = 0;
	long uid = -1;
	FILE *f;

	while ((ch = getopt(argc, argv, "rfn:u:")) != -1) {
		switch (ch) {
		case 'n':
			if (setpriority(PRIO_PROCESS, 0, atoi(optarg)) < 0)
				perror("floor: setpriority");
			break;
		case 'r':
			receive_only = 1;
			break;
		case 'f':
			filtered = 1;
			break;
		case 'u':
			uid = atol(optarg);
			break;
		default:
			return 2;
		}
	}
	if (uid < 0 || argc - optind > MAX_FILES) {
		fprintf(stderr, "usage: floor [-r] [-f] [-n NICE] -u UID CGROUP.PROCS...\n");
		return 2;
	}
	for (int i = optind; i < argc && !receive_only; i++)
		if ((fds[nfds++] = open(argv[i], O_WRONLY | O_CLOEXEC)) < 0) {
			perror(argv[i]);
			return 1;
		}
	if ((f = fopen("/proc/sys/kernel/pid_max", "r")) != NULL) {
		if (fscanf(f, "%lu", &pid_max) != 1)
			pid_max = 4194304;
		fclose(f);
	}
	if ((marked = calloc(pid_max / 8 + 1, 1)) == NULL)
		return 1;
	int fd = open_socket(filtered);
	if (fd < 0) {
		perror("floor: proc connector (run as root)");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		char buf[1024] __attribute__((aligned(8)));
		ssize_t n = recv(fd, buf, sizeof(buf), 0); /* one event per wake-up */

		if (n < 0) {
			if (errno == ENOBUFS)
				fprintf(stderr, "floor: events lost\n");
			else if (errno != EINTR)
				return 1;
			continue;
		}
		handle(buf, n, (uid_t)uid, fds, nfds);
	}
}
