/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * statefile.h -- the boost state file (engined/ only): a pure parser,
 * a writer, and the file I/O around them.
 *
 * The file is text, one boost or sticky process to a line:
 *
 *   # cgengine boosts, format 3
 *   boost ID OWNER EXPIRES HIER DEST PROFILE PID:START [PID:START...]
 *   sticky PID:START FLAGS
 *
 * ID is 1..STATEFILE_ID_MAX, OWNER a uid, EXPIRES wall-clock seconds
 * since the epoch.  HIER, DEST and PROFILE are written with every byte
 * below '!', DEL and '%' as %XX; a lone "-" is the empty hierarchy name
 * (the cgroup v2 tree) or no profile.  A sticky process (libcgroup's
 * sticky requests) is never classified; FLAGS is "-" or a comma-
 * separated list of "children" (its children forked later are sticky
 * too) and "root" (root made it sticky: only root may undo it).
 * Format 1 files (written before the encoding) and format 2 files
 * (before sticky processes were kept) are read too; a "sticky" line in
 * them is refused.  Nothing in the file is trusted: every
 * field is checked, and a line that fails a check is reported and
 * skipped while the others are kept.
 *
 * Reading: statefile_read() (refuses symbolic links, FIFOs and other
 * non-regular files, files writable by others and files larger than
 * STATEFILE_MAX_BYTES) and then statefile_parse().  Writing:
 * statefile_save() (a fresh 0600 temporary file, fsync, rename).
 * Both take time linear in the size of the file.
 */
#ifndef CGENGINE_STATEFILE_H
#define CGENGINE_STATEFILE_H

#include "core.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STATEFILE_FORMAT       3
#define STATEFILE_ID_MAX       0x7fffffffu /* ids stay far from wrapping */
#define STATEFILE_MAX_BYTES    (64u << 20) /* whole file */
#define STATEFILE_MAX_LINE     (512u << 10)
#define STATEFILE_MAX_RECORDS  100000u /* boosts in one file */
#define STATEFILE_MAX_MEMBERS  16384u  /* processes in one boost */
#define STATEFILE_NAME_MAX     255u    /* hierarchy and profile names */
#define STATEFILE_PID_MAX      4194304 /* the kernel's PID_MAX_LIMIT */
#define STATEFILE_MAX_MESSAGES 20u     /* then one "N more problems" */
#define STATEFILE_MAX_STICKY   100000u /* sticky processes in one file */

#define STATEFILE_STICKY_CHILDREN 0x1u /* "children" */
#define STATEFILE_STICKY_ROOT	  0x2u /* "root" */
#define STATEFILE_STICKY_FLAGS	  0x3u /* every flag there is */

/* A process in a boost: its pid and start time (its identity). */
struct statefile_member {
	pid_t pid;	/* 1..STATEFILE_PID_MAX */
	uint64_t start; /* start time, clock ticks after boot */
};

/* One boost.  In the parser's callback every pointer is borrowed and
 * valid only during the call; for the writer, the caller's. */
struct statefile_record {
	unsigned id;	     /* 1..STATEFILE_ID_MAX */
	uid_t owner;	     /* who asked for it; never (uid_t)-1 */
	int64_t expires;     /* wall clock; <= now + max_seconds when parsed */
	const char *hier;    /* as /proc/PID/cgroup names it; "" = v2 tree */
	const char *dest;    /* passes rules_dest_problem(), no blanks */
	const char *profile; /* NULL: root's direct boost */
	const struct statefile_member *m; /* distinct pids */
	size_t n;			  /* 1..STATEFILE_MAX_MEMBERS */
	unsigned line;			  /* parser: its line in the file */
};

/* A sticky process (format 3). */
struct statefile_sticky {
	struct statefile_member who; /* distinct pids in one file */
	unsigned flags;		     /* STATEFILE_STICKY_* */
	unsigned line;		     /* parser: its line in the file */
};

struct statefile_parse_options {
	const char *name; /* file name, for "name:line: message" */
	int64_t now;	  /* wall clock: time(NULL) */
	long max_seconds; /* longest duration a boost may have left */
	/* Called for every valid record, in file order; a negative return
	 * stops the parse and is returned.  An expired record (expires <=
	 * now) is valid: the caller says it expired while stopped. */
	int (*record)(void *arg, const struct statefile_record *r);
	/* Called the same way for every valid sticky line (NULL: they are
	 * checked, then skipped). */
	int (*sticky)(void *arg, const struct statefile_sticky *s);
	void *arg;		  /* for record and sticky */
	const struct report *rep; /* problems, one "name:line: message" each */
};

/*
 * Parse a state file held in memory (any bytes).  Reports each invalid
 * line and skips it; duplicate ids, ids beyond STATEFILE_ID_MAX, unsafe
 * destinations, expiries beyond now + max_seconds, bad members, over-
 * long lines, a truncated last line and records beyond
 * STATEFILE_MAX_RECORDS are all refused.  The first
 * STATEFILE_MAX_MESSAGES problems are reported one by one, the rest as
 * one "name: N more problems not listed", so a forged file cannot flood
 * the log.  Sticky lines with a bad PID:START or flags, a pid listed
 * twice, and lines beyond STATEFILE_MAX_STICKY are refused the same
 * way.  Returns the number of records passed to record() and sticky(),
 * -ENOMEM, or a callback's negative value.
 */
int statefile_parse(const char *buf, size_t len,
		    const struct statefile_parse_options *o) ATTR_WUR;

/*
 * The highest id parse can deliver is STATEFILE_ID_MAX, so the next id
 * (highest + 1) always fits.  Callers allocating ids refuse to go past
 * STATEFILE_ID_MAX themselves.
 */

/* Gives the records to write one at a time, NULL at the end.  The
 * record may be reused by the next call. */
typedef const struct statefile_record *statefile_next_fn(void *arg);
/* The same for sticky processes. */
typedef const struct statefile_sticky *statefile_next_sticky_fn(void *arg);

/* What to write: boosts, then sticky processes (sticky may be NULL). */
struct statefile_source {
	statefile_next_fn *boost;
	statefile_next_sticky_fn *sticky;
	void *arg; /* for both */
};

/*
 * Format every record src gives into a malloc'd buffer (*out, freed
 * by the caller; *outlen bytes, not NUL-terminated), header included.
 * A record the parser would refuse (bad id, destination, names with
 * control characters, no members, too many members) is reported
 * through rep as "name: boost #ID not saved: ..." and left out; the
 * expiry is not checked here.  A sticky process with a pid out of range
 * or unknown flags is left out the same way, and those beyond
 * STATEFILE_MAX_STICKY are counted in one message.  0 or -ENOMEM.
 */
int statefile_format(const struct statefile_source *src, const char *name,
		     const struct report *rep, char **out, size_t *outlen) ATTR_WUR;

/*
 * Read path into a malloc'd buffer (*buf, freed by the caller).  Opens
 * with O_NOFOLLOW|O_NONBLOCK and refuses, with a message through rep,
 * anything but a regular file owned by the effective uid and not
 * writable by group or others, or larger than STATEFILE_MAX_BYTES.
 * 0; -ENOENT without a message when there is no file; another -errno
 * after a message.
 */
int statefile_read(const char *path, const struct report *rep, char **buf,
		   size_t *len) ATTR_WUR;

/*
 * Replace path atomically with the records src gives: path.tmp is
 * removed if left over (it may be a symbolic link planted there), made
 * anew with O_CREAT|O_EXCL|O_NOFOLLOW and mode 0600, written, fsync'd
 * (when durable), renamed over path, and the directory fsync'd (when
 * durable).  The directory must exist.  Blocks for the fsyncs.  0, or -errno after a message through
 * rep ("path: cannot write the boost state: ..."); on failure path is
 * left as it was and no temporary file stays behind.
 */
int statefile_save(const char *path, const struct statefile_source *src,
		   const struct report *rep, bool durable) ATTR_WUR;

#endif
