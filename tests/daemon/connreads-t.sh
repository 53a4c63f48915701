#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# On the proc connector an exec is classified from /proc, and only what
# the rules need is read: where no rule names a user or a group, an exec
# (one no UID event told of: a root's shell starting a program) is read
# from comm and the exe link, and the daemon opens no status for it --
# the credentials would decide nothing; where a rule names a user,
# status is read.  Both are placed by the program's name.  With
# ananicy-dir, whose rules match argv[0]'s last part: on the connector
# the daemon reads /proc/PID/cmdline for it; on the eBPF event source
# the exec's record tells it, and no cmdline is opened.  A program
# exec'd with another argv[0] (exec -a) is matched by that name.  strace
# watches the daemon's opens (-f: command lines are read in worker
# threads).
. "$SRCDIR/tests/lib/daemon.sh"
require_root
command -v bash >/dev/null || skip_all "needs bash (exec -a)"
plan 12

command -v strace >/dev/null || { skip 12 "no strace"; done_testing; }
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
trace_start || { skip 12 "strace cannot attach here (Yama)"; daemon_stop; done_testing; }
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

# ananicy's rule names argv[0] alone: the program's comm and path are $P
A="$T/ananicy.d"
mkdir -p "$A"
printf '{ "name": "%sargv", "nice": 13 }\n' "$TAG" >"$A/argv.rules"
: >"$T/cgrules.conf"
# argv_exec: start $P as ${TAG}argv; nice13 PID: it has the rule's nice
argv_exec() { start bash -c "exec -a ${TAG}argv $T/bin/$P 300"; }
nice13() { [ "$(awk '{ print $19 }' "/proc/$1/stat" 2>/dev/null)" = 13 ]; }
write_config "ananicy-dir = \"$A\"
event-source = \"auto\""
daemon_start || bail "daemon"
if ! grep -q "event source: bpf" "$T/daemon.log"; then
	skip 2 "the BPF program does not load here"
else
	trace_start || bail "strace attached before, not now"
	argv_exec; onbpf=$LAST
	ok "on eBPF: a program exec'd as ${TAG}argv gets that ananicy rule's nice" \
		wait_until 10 nice13 "$onbpf"
	trace_stop
	ok "its argv[0] from the exec's record: no cmdline opened" unopened "$onbpf" cmdline
fi
daemon_stop; stop_kids

write_config "ananicy-dir = \"$A\"
event-source = \"netlink\""
daemon_start || bail "daemon"
trace_start || bail "strace attached before, not now"
argv_exec; onconn=$LAST
ok "on the connector: a program exec'd as ${TAG}argv gets that rule's nice" \
	wait_until 10 nice13 "$onconn"
trace_stop
ok "its cmdline was read for argv[0]" opened "$onconn" cmdline
daemon_stop; stop_kids
done_testing
