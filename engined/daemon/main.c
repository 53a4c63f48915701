/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c -- cgengined: command line, --check, daemonizing, start-up.
 */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

enum {
	OPT_CHECK = 256,
	OPT_DRY_RUN,
};

static const struct option longopts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "rules", required_argument, NULL, 'r' },
	{ "foreground", no_argument, NULL, 'n' },
	{ "pidfile", required_argument, NULL, 'p' },
	{ "socket", required_argument, NULL, 's' },
	{ "log", required_argument, NULL, 'l' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: cgengined [options]\n"
		"Classify processes into control groups by rules.\n"
		"\n"
		"  -c, --config FILE    daemon config (default %s/cgengine/cgengined.conf)\n"
		"  -r, --rules FILE     rules file (overrides the config)\n"
		"  -n, --foreground     do not daemonize; log to stderr\n"
		"  -p, --pidfile FILE   pid file\n"
		"  -s, --socket PATH    control socket\n"
		"  -l, --log TARGET     '-' or 'stderr', 'syslog', or a file\n"
		"  -v, --verbose        log more (repeatable)\n"
		"  -q, --quiet          log less (repeatable)\n"
		"      --check          validate config and rules, then exit\n"
		"      --dry-run        decide and log, never move a process\n"
		"  -V, --version        print the version\n"
		"  -h, --help           print this help\n",
		SYSCONFDIR);
}

static void
print_report(void *arg, const char *msg)
{
	int *count = arg;

	fprintf(stderr, "%s\n", msg);
	(*count)++;
}

static void
print_warning(void *arg, const char *msg)
{
	fprintf(stderr, "%s\n", msg);
}

/* --check: build the whole policy, print every problem. */
static int
check(const struct overrides *ov)
{
	int errors = 0;
	struct report rep = { .fn = print_report, .warn = print_warning, .arg = &errors };
	char summary[4096 + 64];

	if (log_open("stderr", LOG_LEVEL_WARNING) < 0)
		return 1;
	if (core_check(ov, &rep, summary, sizeof(summary)) < 0) {
		if (errors == 0)
			fprintf(stderr, "cgengined: invalid configuration\n");
		return 1;
	}
	printf("%s: OK\n", summary);
	return 0;
}

/*
 * Fork into the background.  The parent waits until the child reports
 * that classification has started (exit 0) or failed (exit 1), so init
 * scripts see start-up errors.  Returns the fd the child writes to.
 */
static int
daemonize(void)
{
	int p[2];
	char c;

	if (pipe2(p, O_CLOEXEC) < 0) {
		log_error("pipe: %s", strerror(errno));
		exit(1);
	}
	pid_t pid = fork();
	if (pid < 0) {
		log_error("fork: %s", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		close(p[1]);
		exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	if (setsid() < 0 || chdir("/") < 0)
		exit(1);
	umask(022);
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	return p[1];
}

int
main(int argc, char **argv)
{
	struct engine_options eo = { .ov = { .verbosity = 0 } };
	bool foreground = false, do_check = false;
	int ch;

	while ((ch = getopt_long(argc, argv, "c:r:np:s:l:vqVh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			eo.ov.config = optarg;
			eo.ov.config_explicit = true;
			break;
		case 'r':
			eo.ov.rules = optarg;
			break;
		case 'n':
			foreground = true;
			break;
		case 'p':
			eo.ov.pidfile = optarg;
			break;
		case 's':
			eo.ov.control_socket = optarg;
			break;
		case 'l':
			eo.ov.log = optarg;
			break;
		case 'v':
			eo.ov.verbosity++;
			break;
		case 'q':
			eo.ov.verbosity--;
			break;
		case OPT_CHECK:
			do_check = true;
			break;
		case OPT_DRY_RUN:
			eo.dry_run = true;
			break;
		case 'V':
			printf("cgengined %s\n", PACKAGE_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cgengined: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	/* backend "auto" asks whether PID 1 is systemd (as sd_booted() does) */
	eo.ov.systemd_booted = access("/run/systemd/system/", F_OK) == 0;
	eo.ov.layout_root = engine_layout_root; /* the backends' roots */
	if (do_check)
		return check(&eo.ov);

	signal(SIGPIPE, SIG_IGN);
	if (foreground && eo.ov.log == NULL)
		eo.ov.log = "stderr";
	/* start-up messages go to stderr until the configured target is known */
	if (log_open("stderr", LOG_LEVEL_INFO) < 0)
		return 1;
	struct engine *e = engine_new(&eo);
	if (e == NULL)
		return 1;
	int ready = foreground ? -1 : daemonize();
	const struct config *cfg = engine_config(e);
	int rc = log_open(cfg->log, cfg->log_level);
	if (rc < 0) {
		if (log_open(foreground ? "stderr" : "syslog", cfg->log_level) < 0)
			return 1;
		log_error("%s: cannot open log: %s", cfg->log, strerror(-rc));
	}
	engine_set_ready_fd(e, ready);
	rc = engine_run(e);
	engine_free(e);
	log_close();
	return rc;
}
