#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The SysV init script drives the real daemon: start, start again,
# status, reload (and a refused reload of a broken file), restart,
# stop, and LSB exit codes.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
command -v start-stop-daemon >/dev/null || skip_all "needs start-stop-daemon"
[ -r "$BUILDDIR/cgengined.init" ] || skip_all "cgengined.init not built"
plan 19

mount_hier cls; MANAGED="cls"
program "${TAG}job"
echo "*:${TAG}job name=${TAG}cls /jobs" >"$T/cgrules.conf"
write_config "log = \"$T/daemon.log\""
export CGENGINED_DAEMON="$CGENGINED" CGENGINED_OPTS="-c $T/cgengined.conf" \
	CGENGINED_PIDFILE="$T/cgengined.pid"
init() { sh "$BUILDDIR/cgengined.init" "$@" >"$T/init.out" 2>&1; }

CGENGINED_DAEMON=/nonexistent/cgengined init start
is 1 "$?" "start of a daemon that is not installed: exit 1"
init start
is 0 "$?" "start: exit 0"
pid=$(cat "$T/cgengined.pid" 2>/dev/null)
DAEMON_PID=$pid # so the clean-up stops it whatever happens
is cgengined "$(cat /proc/$pid/comm 2>/dev/null)" "the pid file names the running daemon"
start "$T/bin/${TAG}job" 300; j=$LAST
ok "it classifies" wait_group "$j" cls /jobs
init start
is 0 "$?" "start when running: exit 0"
is "$pid" "$(cat "$T/cgengined.pid")" "and no second daemon"
init status
is 0 "$?" "status when running: exit 0"
ok "status names the pid" grep -q "cgengined is running (pid $pid)" "$T/init.out"

echo "*:${TAG}job name=${TAG}cls /jobs2" >"$T/cgrules.conf"
init reload
is 0 "$?" "reload: exit 0"
ok "the daemon reloaded" wait_log "reloaded: 1 rules"
ok "and applies the new rules" wait_group "$j" cls /jobs2
echo "*:${TAG}job name=${TAG}cls /jobs3 bogus" >"$T/cgrules.conf"
init reload
is 1 "$?" "reload of a broken file: exit 1, nothing sent"
ok "the daemon still runs" alive "$pid"

echo "*:${TAG}job name=${TAG}cls /jobs" >"$T/cgrules.conf"
init restart
is 0 "$?" "restart: exit 0"
new=$(cat "$T/cgengined.pid" 2>/dev/null)
[ "$new" != "$pid" ] && alive "$new"
_tap_result $? "a new daemon runs"
DAEMON_PID=$new

init stop
is 0 "$?" "stop: exit 0"
! alive "$new" && ! test -e "$T/cgengined.pid"
_tap_result $? "the daemon is gone and its pid file too"
DAEMON_PID=""
init status
is 3 "$?" "status when stopped: exit 3"
init frobnicate
is 2 "$?" "an unknown action: exit 2"
done_testing
