#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A process whose command line cannot be read does not stop the daemon:
# tests/lib/fusestuck makes a read of its /proc/PID/cmdline wait for
# ever (its mm lock queued behind a read of a FUSE file whose server
# never answers).  Explaining it -- which reads its cmdline, as any
# classification of it would -- answers after the bounded wait, as for
# a process without a command line, and the log says so; the control
# socket answers, a new process is still placed, and the daemon stops
# (exit 0) with that read still stuck.  Before the bound, the daemon's
# loop stopped in that read.  The stuck process lives a few seconds:
# other readers of its cmdline on the machine (ps) wait that long.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 7

[ -c /dev/fuse ] || { skip 7 "no /dev/fuse"; done_testing; }
CTL="$BUILDDIR/cgenginectl"; SOCK="$T/control.sock"
mount_hier cls; MANAGED="cls"
P="${TAG}p"
program "$P"
printf '*:%s name=%scls /byname\n' "$P" "$TAG" >"$T/cgrules.conf"
write_config
# a sanitizer build: LeakSanitizer stops every thread at exit (ptrace),
# and a thread stuck in the read never stops -- no leak check here
ldd "$CGENGINED" 2>/dev/null | grep -q libasan &&
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
daemon_start || bail "daemon"

mkdir "$T/fuse"
start "$BUILDDIR/tests/lib/fusestuck" "$T/fuse" 60 >"$T/fusestuck.out" 2>&1; stuck=$LAST
if ! wait_until 10 grep -q ready "$T/fusestuck.out"; then
	diag "$(cat "$T/fusestuck.out")"
	stop_kids; skip 7 "fusestuck could not set up"; done_testing
fi
# the stuck process is real: a plain read of its cmdline waits
timeout -s KILL 2 cat "/proc/$stuck/cmdline" >/dev/null 2>&1
is 137 "$?" "a read of its cmdline blocks (killed after 2 s)"

# all of it well within the stuck process's 60 s: before the bound,
# every step failed
ok "explaining it answers" timeout 10 "$CTL" -s "$SOCK" explain "$stuck"
start "$T/bin/$P" 300; byname=$LAST
ok "a new process is still placed" wait_group "$byname" cls /byname 5
ok "the control socket answers" timeout 5 "$CTL" -s "$SOCK" status
ok "the log says it was classified without its command line" \
	wait_log "pid $stuck (uid 0) classified without its command line: reading it or checking the files it names is stuck or too slow" 2
kill "$DAEMON_PID"
ok "the daemon stops with a read still stuck" wait_until 10 gone "$DAEMON_PID"
# the stuck process first: before the bound, the daemon waits until it is gone
stop_kids
daemon_stop
is 0 "$DAEMON_RC" "... and exits 0"
done_testing
