#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# libcgroup's sticky protocol: cgexec --sticky and cgclassify --sticky
# from Debian's cgroup-tools keep a process (and with the children flag
# its later children) where it was put, across a restart of the
# daemon too; requests are checked against
# the caller's uid; stalled clients do not stop classification, one
# user cannot take every connection, refusals are logged sparingly.
# The machine's real sticky socket (/var/run/cgred.socket) is never
# touched: see in_ns below.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 29

mount_hier cls; MANAGED="cls"
program "${TAG}job"
add_user "${TAG}u"
echo "*:${TAG}job name=${TAG}cls /ruled" >"$T/cgrules.conf"
mkdir -p "$T/h/cls/manual" "$T/h/cls/manual2"

# cgexec and cgclassify only know libcgroup's fixed path,
# /var/run/cgred.socket.  The daemon listens on a private path instead,
# and they run in a private mount namespace where the directory of that
# path is mounted over /var/run (that is, /run).
REAL=/var/run/cgred.socket
mkdir -p "$T/run"
STICKY="$T/run/cgred.socket"
cat >"$T/in_ns" <<EOF
#!/bin/sh
# in_ns CMD...: run CMD (as the same process) where /var/run is $T/run
exec unshare --mount --propagation private \\
	sh -c 'mount --bind "\$0" /var/run && exec "\$@"' "$T/run" "\$@"
EOF
chmod 755 "$T/in_ns"
in_ns() { "$T/in_ns" "$@"; }
use_ns=no
if command -v cgexec >/dev/null && command -v cgclassify >/dev/null &&
   in_ns true 2>/dev/null; then
	use_ns=yes
fi
write_config
daemon_start || bail "daemon"
# listens_on PATH: the daemon has a socket bound to PATH (other tests on
# the machine may come and go at the real path: look at our daemon only)
listens_on() {
	for ino in $(ls -l "/proc/$DAEMON_PID/fd" | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p'); do
		awk -v i="$ino" -v p="$1" '$7 == i && $8 == p { f = 1 } END { exit !f }' \
			/proc/net/unix && return 0
	done
	return 1
}
ok "the daemon listens on a private sticky socket" listens_on "$STICKY"
not_real() { ! listens_on /var/run/cgred.socket && ! listens_on /run/cgred.socket; }
ok "and not on the real $REAL" not_real

start "$T/bin/${TAG}job" 300; plain=$LAST
ok "the rules are active" wait_group "$plain" cls /ruled

if [ $use_ns = yes ]; then
	start "$T/in_ns" cgexec --sticky -g "name=${TAG}cls:/manual" "$T/bin/${TAG}job" 300; p1=$LAST
	ok "cgexec --sticky puts the program where asked" wait_group "$p1" cls /manual
	ok "the daemon recorded it as sticky" wait_log "pid $p1 (cgexec) is sticky"
	wait_until 30 runs "$p1" "$T/bin/${TAG}job"
	events_done "$T/bin/${TAG}job" cls /ruled
	is /manual "$(cgroup_of "$p1" cls)" "and did not move it after its exec"

	start "$T/in_ns" cgexec --sticky -g "name=${TAG}cls:/manual" sh -c "'$T/bin/${TAG}job' 300 & echo \$! >'$T/child.pid'; wait"
	wait_until 30 test -s "$T/child.pid"
	child=$(cat "$T/child.pid"); KIDS="$KIDS $child"
	wait_until 30 runs "$child" "$T/bin/${TAG}job"
	events_done "$T/bin/${TAG}job" cls /ruled
	is /manual "$(cgroup_of "$child" cls)" "a child forked and exec'd later stays too"

	start "$T/bin/${TAG}job" 300; p2=$LAST
	wait_group "$p2" cls /ruled
	in_ns cgclassify --sticky -g "name=${TAG}cls:/manual2" "$p2"
	ok "cgclassify --sticky moves a running process" wait_group "$p2" cls /manual2
	reload_daemon
	daemon_sync
	is /manual2 "$(cgroup_of "$p2" cls)" "the rescan after a reload leaves it alone"
else
	skip 6 "needs cgexec, cgclassify and unshare --mount"
fi
SOCK=$(sed -n 's/^sticky-socket = "\(.*\)"$/\1/p' "$T/cgengined.conf")
REQ="$BUILDDIR/tests/lib/stickyreq"

start "$T/bin/${TAG}job" 300; p3=$LAST
wait_group "$p3" cls /ruled
is "SUCCESS_STORE_PID (18 bytes)" "$($REQ "$SOCK" "$p3" 0)" "the answer is the 18 bytes libcgroup expects"
echo "$(cgroup_of "$p3" cls)" >/dev/null
echo $p3 >"$T/h/cls/manual/cgroup.procs"
reload_daemon; daemon_sync
is /manual "$(cgroup_of "$p3" cls)" "a sticky process is not reclassified"
is "SUCCESS_STORE_PID (18 bytes)" "$($REQ "$SOCK" "$p3" 2)" "flag 2 cancels"
reload_daemon
ok "after cancelling, the rules apply again" wait_group "$p3" cls /ruled || { sed "s/^/#/" "$T/daemon.log" >&2; }

start "$T/bin/${TAG}job" 300; p4=$LAST
is "(none)" "$(setpriv --reuid="${TAG}u" --regid="${TAG}u" --clear-groups "$REQ" "$SOCK" "$p4" 0)" \
	"a user cannot make another user's process sticky"
ok "the denial is logged" wait_log "sticky request for pid $p4 (flag 0) from uid $(id -u "${TAG}u") denied"

# sticky processes (root's: pinned) are kept in the state file: a restart leaves them
# where they are (and a sticky process's children forked after it too)
start "$T/bin/${TAG}job" 300; s1=$LAST
mkfifo "$T/go"
start sh -c "read go <'$T/go'; '$T/bin/${TAG}job' 300 & echo \$! >'$T/kid.pid'; wait"; s2=$LAST
start "$T/bin/${TAG}job" 300; s3=$LAST
wait_group "$s1" cls /ruled; wait_group "$s3" cls /ruled
is "SUCCESS_STORE_PID (18 bytes) SUCCESS_STORE_PID (18 bytes)" \
	"$($REQ "$SOCK" "$s1" 0) $($REQ "$SOCK" "$s2" 1)" "two sticky requests, one with the children flag"
$REQ "$SOCK" "$s3" 0 >/dev/null; $REQ "$SOCK" "$s3" 2 >/dev/null # sticky no longer
for p in $s1 $s2 $s3; do echo $p >"$T/h/cls/manual/cgroup.procs"; done
ok "the state file keeps them" wait_until 30 sh -c \
	"grep -q '^sticky $s1:[0-9]* root\$' '$T/state/boosts.state' &&
	 grep -q '^sticky $s2:[0-9]* children,root\$' '$T/state/boosts.state'"
daemon_stop
daemon_start || bail "restart"
daemon_sync
is "/manual /ruled" "$(cgroup_of "$s1" cls) $(cgroup_of "$s3" cls)" \
	"after a restart a sticky process stays where it is, one no longer sticky is classified"
ok "the restart says so" grep -q "sticky processes restored (0 gone meanwhile)" "$T/daemon.log"
timeout 30 sh -c 'echo go >"$1"' sh "$T/go"
wait_until 30 test -s "$T/kid.pid"; kid=$(cat "$T/kid.pid"); KIDS="$KIDS $kid"
wait_until 30 runs "$kid" "$T/bin/${TAG}job"
events_done "$T/bin/${TAG}job" cls /ruled
is /manual "$(cgroup_of "$kid" cls)" "a child forked and exec'd after the restart stays too"

STALL="$BUILDDIR/tests/lib/stall"
# one user's connections are capped (16); others, and root, still get in
log_quiet
setpriv --reuid=65534 --regid=65534 --clear-groups "$STALL" "$SOCK" 3 8 30 >"$T/nobody.out" &
KIDS="$KIDS $!"
ok "a user's connections beyond its cap are refused" \
	wait_log "sticky socket: too many clients of uid 65534 (at most 16), refused pid"
run_as "${TAG}u" "$T/bin/${TAG}job" 300; p6=$LAST
# exec'd, so setpriv has made it the user's
wait_group "$p6" cls /ruled || diag "pid $p6 was not classified"
is "SUCCESS_STORE_PID (18 bytes)" \
	"$(setpriv --reuid="${TAG}u" --regid="${TAG}u" --clear-groups "$REQ" "$SOCK" "$p6" 0)" \
	"meanwhile another user is served"
start "$T/bin/${TAG}job" 300; p7=$LAST
is "SUCCESS_STORE_PID (18 bytes)" "$($REQ "$SOCK" "$p7" 0)" "and root"
log_quiet # their deadline (2 s) drops them; then the log limiter starts afresh

"$STALL" "$SOCK" 3 8 80 >"$T/stall.out" & KIDS="$KIDS $!"
wait_until 30 test -s "$T/stall.out" # its connections are made
start "$T/bin/${TAG}job" 300; p5=$LAST
ok "80 stalled clients do not stop classification" wait_group "$p5" cls /ruled
ok "clients beyond the cap are refused" wait_log "too many clients, refused pid [0-9]* (uid 0)"
ok "stalled clients are dropped after their deadline" \
	wait_log "too slow, no complete request within 2 s, dropped" 5
ok "refusals and drops are logged a few lines a second" \
	wait_log "sticky socket: [0-9]* more messages suppressed in the last second"
ok "not one line per client" test "$(grep -c 'too slow' "$T/daemon.log")" -lt 40
ok "the daemon is alive" kill -0 "$DAEMON_PID"
daemon_stop
done_testing
