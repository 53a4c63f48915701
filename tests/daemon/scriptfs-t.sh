#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A process whose script cannot be checked does not stop the daemon.
# An interpreter's script is checked by path, through the process's
# working directory, root and open files, and FUSESTUCK_NAMES makes
# tests/lib/fusestuck block those checks for ever: a FUSE mount whose
# server has stopped answering is its working directory, and it holds
# a file of it open.  One process runs as "sh ./x" (its script looked
# up in that directory), the other as "sh -e FILE" (FILE is real, but
# the file it holds open is stat'd to see whether it is FILE).
# Explaining each -- which checks its script, as any classification of
# it does -- answers as for a process without a command line (the
# first after the bounded wait, the second, root's too, at once: one
# stuck worker per user), and the log says so; the control socket
# answers, a new process is still placed, and the daemon stops (exit 0)
# with the checks still stuck.  Before the bound, the daemon's loop
# stopped in the first check.  (At their exec their command lines were
# "sh -c ...", a command string, which nothing checks: the daemons of
# other tests running meanwhile do not get stuck on them.)
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 10

[ -c /dev/fuse ] || { skip 10 "no /dev/fuse"; done_testing; }
CTL="$BUILDDIR/cgenginectl"; SOCK="$T/control.sock"
mount_hier cls; MANAGED="cls"
P="${TAG}p"
program "$P"
program sh "$BUILDDIR/tests/lib/fusestuck" # an interpreter, by its name
printf 'sleep 300\n' >"$T/script"
printf '*:%s name=%scls /byname\n' "$P" "$TAG" >"$T/cgrules.conf"
write_config
# a sanitizer build: LeakSanitizer stops every thread at exit (ptrace),
# and a thread stuck in a check never stops -- no leak check here
ldd "$CGENGINED" 2>/dev/null | grep -q libasan &&
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
daemon_start || bail "daemon"

# stuck NAME ARG...: "sh ARG..." with its working directory and an open
# file on the stuck mount $T/NAME; sets $stuck and $fd (the open file)
stuck() {
	name=$1; shift
	mkdir "$T/$name"
	start env FUSESTUCK_NAMES="$T/$name" "$T/bin/sh" -c "$@" >"$T/$name.out" 2>&1
	stuck=$LAST
	if ! wait_until 10 grep -q '^ready fd ' "$T/$name.out"; then
		diag "$(cat "$T/$name.out")"
		stop_kids; skip 10 "fusestuck could not set up"; done_testing
	fi
	fd=$(sed -n 's/^ready fd //p' "$T/$name.out")
	args=$(tr '\0' ' ' <"/proc/$stuck/cmdline" | sed 's/ *$//')
	[ "$args" = "$T/bin/sh $*" ] || bail "its command line: '$args'"
}

# said PID: the log says PID was classified without its command line
said() {
	wait_log "pid $1 (uid 0) classified without its command line: reading it or checking the files it names is stuck or too slow" 2
}

stuck cwd ./x
# the stuck process is real: a look-up in its working directory waits
timeout -s KILL 2 stat "/proc/$stuck/cwd/x" >/dev/null 2>&1
is 137 "$?" "sh ./x: a look-up of ./x blocks (killed after 2 s)"
ok "explaining it answers" timeout 10 "$CTL" -s "$SOCK" explain "$stuck"
ok "the log says it was classified without its command line" said "$stuck"
sleep 1.1 # the line is said once a second at most

stuck fd -e "$T/script"
timeout -s KILL 2 stat -L "/proc/$stuck/fd/$fd" >/dev/null 2>&1
is 137 "$?" "sh -e FILE: a stat of the file it holds open blocks (killed after 2 s)"
ok "explaining it answers" timeout 10 "$CTL" -s "$SOCK" explain "$stuck"
ok "the log says it was classified without its command line" said "$stuck"

# all of it well within the stuck processes' 60 s: before the bound,
# every step failed
start "$T/bin/$P" 300; byname=$LAST
ok "a new process is still placed" wait_group "$byname" cls /byname 5
ok "the control socket answers" timeout 5 "$CTL" -s "$SOCK" status
kill "$DAEMON_PID"
ok "the daemon stops with checks still stuck" wait_until 10 gone "$DAEMON_PID"
# the stuck processes first: before the bound, the daemon waits until they are gone
stop_kids
daemon_stop
is 0 "$DAEMON_RC" "... and exits 0"
done_testing
