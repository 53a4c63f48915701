#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# On the proc connector an exec is classified from /proc, and only what
# the rules need is read: where no rule names a user or a group, an exec
# (one no UID event told of: a root's shell starting a program) is read
# from comm and the exe link, and the daemon opens no status for it --
# the credentials would decide nothing; where a rule names a user,
# status is read.  Both are placed by the program's name.  strace
# watches the daemon's opens.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 8

command -v strace >/dev/null || { skip 8 "no strace"; done_testing; }
mount_hier cls; MANAGED="cls"
add_user "${TAG}u"
P="${TAG}p"
program "$P"
printf '*:%s name=%scls /byname\n' "$P" "$TAG" >"$T/cgrules.conf"
write_config 'event-source = "netlink"'

traced() { grep -q "^TracerPid:[[:space:]]*[1-9]" "/proc/$DAEMON_PID/status"; }
# trace_start: strace the daemon's opens into $T/strace.out (TRACER)
trace_start() {
	strace -f -qq -p "$DAEMON_PID" -e trace=openat,open,readlink,readlinkat \
		-o "$T/strace.out" &
	TRACER=$!
	wait_until 10 traced && return 0
	kill "$TRACER" 2>/dev/null; wait "$TRACER" 2>/dev/null
	return 1
}
trace_stop() { daemon_sync; kill "$TRACER"; wait "$TRACER" 2>/dev/null; }
# opened PID LEAF: did the trace see /proc/PID/LEAF
opened() { grep -q "/proc/$1/$2\"" "$T/strace.out"; }
unopened() { ! opened "$@"; }

daemon_start || bail "daemon"
trace_start || { skip 8 "strace cannot attach here (Yama)"; daemon_stop; done_testing; }
start "$T/bin/$P" 300; byname=$LAST
ok "rules by name alone: the exec is placed by its name" wait_group "$byname" cls /byname
trace_stop
ok "its comm was read" opened "$byname" comm
ok "and its exe link" opened "$byname" exe
ok "no status opened for it: no rule needs its credentials" unopened "$byname" status
daemon_stop; stop_kids

printf '%su name=%scls /user\n*:%s name=%scls /byname\n' "$TAG" "$TAG" "$P" "$TAG" \
	>"$T/cgrules.conf"
daemon_start || bail "daemon"
trace_start || bail "strace attached before, not now"
start "$T/bin/$P" 300; byuser=$LAST
ok "a rule names a user: the exec is placed by its name" wait_group "$byuser" cls /byname
trace_stop
ok "its status was read: the rules need its uid" opened "$byuser" status
ok "and its exe link" opened "$byuser" exe
ok "no comm besides: status says it" unopened "$byuser" comm
daemon_stop; stop_kids
done_testing
