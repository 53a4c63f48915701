#!/bin/sh
# libcgroup's sticky protocol: cgexec --sticky and cgclassify --sticky
# from Debian's cgroup-tools keep a process (and with the children flag
# its later children) where it was put; requests are checked against
# the caller's uid; stalled clients do not stop classification.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 16

mount_hier cls; MANAGED="cls"
program "${TAG}job"
add_user "${TAG}u"
echo "*:${TAG}job name=${TAG}cls /ruled" >"$T/cgrules.conf"
mkdir -p "$T/h/cls/manual" "$T/h/cls/manual2"

# cgexec and cgclassify only know libcgroup's fixed socket path
REAL=/var/run/cgred.socket
use_real=no
# a socket file nobody answers on is stale (the daemon replaces it)
if command -v cgexec >/dev/null &&
   ! { [ -S "$REAL" ] && printf '' | "$BUILDDIR/tests/lib/rawctl" "$REAL" 1 >/dev/null 2>&1; }; then
	STICKY=$REAL; use_real=yes
fi
write_config
daemon_start || bail "daemon"

start "$T/bin/${TAG}job" 300; plain=$LAST
ok "the rules are active" wait_group "$plain" cls /ruled

if [ $use_real = yes ]; then
	start cgexec --sticky -g "name=${TAG}cls:/manual" "$T/bin/${TAG}job" 300; p1=$LAST
	ok "cgexec --sticky puts the program where asked" wait_group "$p1" cls /manual
	ok "the daemon recorded it as sticky" wait_log "pid $p1 (cgexec) is sticky"
	sleep 0.5
	is /manual "$(cgroup_of "$p1" cls)" "and did not move it after its exec"

	start cgexec --sticky -g "name=${TAG}cls:/manual" sh -c "'$T/bin/${TAG}job' 300 & echo \$! >'$T/child.pid'; wait"
	i=0; while [ ! -s "$T/child.pid" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
	child=$(cat "$T/child.pid"); KIDS="$KIDS $child"
	sleep 0.5
	is /manual "$(cgroup_of "$child" cls)" "a child forked and exec'd later stays too"

	start "$T/bin/${TAG}job" 300; p2=$LAST
	wait_group "$p2" cls /ruled
	cgclassify --sticky -g "name=${TAG}cls:/manual2" "$p2"
	ok "cgclassify --sticky moves a running process" wait_group "$p2" cls /manual2
	reload_daemon
	sleep 0.3
	is /manual2 "$(cgroup_of "$p2" cls)" "the rescan after a reload leaves it alone"
else
	skip 6 "cgexec missing or $REAL in use by another daemon"
fi
SOCK=$(sed -n 's/^sticky-socket = "\(.*\)"$/\1/p' "$T/cgengined.conf")
REQ="$BUILDDIR/tests/lib/stickyreq"

start "$T/bin/${TAG}job" 300; p3=$LAST
wait_group "$p3" cls /ruled
is "SUCCESS_STORE_PID (18 bytes)" "$($REQ "$SOCK" "$p3" 0)" "the answer is the 18 bytes libcgroup expects"
echo "$(cgroup_of "$p3" cls)" >/dev/null
echo $p3 >"$T/h/cls/manual/cgroup.procs"
kill -HUP "$DAEMON_PID"; sleep 0.5
is /manual "$(cgroup_of "$p3" cls)" "a sticky process is not reclassified"
is "SUCCESS_STORE_PID (18 bytes)" "$($REQ "$SOCK" "$p3" 2)" "flag 2 cancels"
kill -HUP "$DAEMON_PID"
ok "after cancelling, the rules apply again" wait_group "$p3" cls /ruled || { sed "s/^/#/" "$T/daemon.log" >&2; }

start "$T/bin/${TAG}job" 300; p4=$LAST
is "(none)" "$(setpriv --reuid="${TAG}u" --regid="${TAG}u" --clear-groups "$REQ" "$SOCK" "$p4" 0)" \
	"a user cannot make another user's process sticky"
ok "the denial is logged" wait_log "sticky request for pid $p4 (flag 0) from uid $(id -u "${TAG}u") denied"

STALL="$BUILDDIR/tests/lib/stall"
"$STALL" "$SOCK" 3 8 80 >"$T/stall.out" & KIDS="$KIDS $!"
sleep 0.5
start "$T/bin/${TAG}job" 300; p5=$LAST
ok "80 stalled clients do not stop classification" wait_group "$p5" cls /ruled
ok "clients beyond the cap are refused" wait_log "too many clients"
ok "stalled clients are dropped after their deadline" wait_log "client too slow" 5
done_testing
