/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.c -- one logging function for the whole daemon.  Messages go to
 * stderr (foreground), syslog (daemon), or a file with timestamps.
 */
#include "core_private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

enum sink {
	SINK_STDERR,
	SINK_SYSLOG,
	SINK_FILE,
};

static enum sink sink = SINK_STDERR;
static enum log_level threshold = LOG_LEVEL_INFO;
static FILE *file;

static const char *const names[] = { "error", "warning", "notice", "info", "debug" };
static const int priorities[] = { LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG };

int
log_level_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

int
log_open(const char *target, enum log_level level)
{
	FILE *f = NULL;

	if (strcmp(target, "syslog") != 0 && strcmp(target, "-") != 0 &&
	    strcmp(target, "stderr") != 0) {
		if ((f = fopen(target, "ae")) == NULL)
			return -errno;
		setvbuf(f, NULL, _IOLBF, 0);
	}
	log_close();
	threshold = level;
	if (f != NULL) {
		file = f;
		sink = SINK_FILE;
	} else if (strcmp(target, "syslog") == 0) {
		openlog("cgengined", LOG_PID | LOG_NDELAY, LOG_DAEMON);
		sink = SINK_SYSLOG;
	} else {
		sink = SINK_STDERR;
	}
	return 0;
}

void
log_set_level(enum log_level level)
{
	threshold = level;
}

enum log_level
log_get_level(void)
{
	return threshold;
}

void
log_close(void)
{
	if (sink == SINK_FILE && file != NULL)
		fclose(file);
	else if (sink == SINK_SYSLOG)
		closelog();
	file = NULL;
	sink = SINK_STDERR;
}

/*
 * A log line is one line: control characters that came in through a
 * field (a process name with a newline and a fake time stamp, a Lua
 * destination) are written as \xNN, so nobody can forge log lines.
 */
size_t
log_escape(const char *in, char *out, size_t outlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (; *in && o + 5 < outlen; in++) {
		unsigned char ch = (unsigned char)*in;

		if (ch < 0x20 || ch == 0x7f) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		} else {
			out[o++] = (char)ch;
		}
	}
	out[o] = '\0';
	return o;
}

void
log_msg(enum log_level level, const char *fmt, ...)
{
	char raw[2048], msg[2048 * 4 + 1];
	va_list ap;

	if (level > threshold)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	log_escape(raw, msg, sizeof(msg));
	switch (sink) {
	case SINK_SYSLOG:
		syslog(priorities[level], "%s", msg);
		break;
	case SINK_FILE: {
		char stamp[32];
		time_t now = time(NULL);
		struct tm tm;

		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S",
			 localtime_r(&now, &tm));
		fprintf(file, "%s %s: %s\n", stamp, names[level], msg);
		break;
	}
	case SINK_STDERR:
		fprintf(stderr, "cgengined: %s: %s\n", names[level], msg);
		break;
	}
}

/* ---- the rate limiter ------------------------------------------------------- */

bool
log_limit_pass(struct log_limit *l, double now, unsigned long *held)
{
	if (now - l->window >= 1.0) {
		l->window = now;
		l->lines = 0;
	}
	if (l->lines >= l->burst) {
		l->held++;
		return false;
	}
	l->lines++;
	*held = log_limit_take(l);
	return true;
}

unsigned long
log_limit_take(struct log_limit *l)
{
	unsigned long n = l->held;

	l->held = 0;
	return n;
}
