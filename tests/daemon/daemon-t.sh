#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Running as a daemon: the starting command returns once classification
# has started, the pid file names the daemon, SIGTERM removes pid file
# and sockets; a second instance is refused; --dry-run moves nothing.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 19

mount_hier cls; MANAGED="cls"
program "${TAG}job"
echo "*:${TAG}job name=${TAG}cls /jobs" >"$T/cgrules.conf"
write_config "log = \"$T/daemon.log\""
"$CGENGINED" -c "$T/cgengined.conf"
is 0 "$?" "cgengined returns 0 once it runs in the background"
pid=$(cat "$T/cgengined.pid" 2>/dev/null)
ok "the pid file names a running process" kill -0 "$pid"
is "cgengined" "$(cat /proc/$pid/comm 2>/dev/null)" "and that process is cgengined"
is "$pid" "$(ps -o sid= -p "$pid" | tr -d ' ')" "it leads its own session"
ok "the sticky socket is there" test -S "$T/cgred.socket"
ok "it logs to the configured file" grep -q "ready: running processes classified" "$T/daemon.log"
start "$T/bin/${TAG}job" 300; j=$LAST
ok "and classifies" wait_group "$j" cls /jobs

sed -e 's|^sticky-socket = .*|sticky-socket = ""|' -e 's|^control-socket = .*|control-socket = ""|' "$T/cgengined.conf" >"$T/second.conf"
"$CGENGINED" -n -c "$T/second.conf" -l "$T/second.log"
is 1 "$?" "a second instance with the same pid file exits 1"
ok "saying who runs" grep -q "cgengined is already running as pid $pid" "$T/second.log"

kill -TERM "$pid"
ok "SIGTERM stops it" wait_until 30 gone "$pid"
ok "the pid file is removed" sh -c "! test -e '$T/cgengined.pid'"
ok "the sticky socket is removed" sh -c "! test -e '$T/cgred.socket'"

write_config
daemon_start --dry-run || bail "daemon"
start "$T/bin/${TAG}job" 300; j=$LAST
wait_log "would move pid $j (${TAG}job) to name=${TAG}cls:/jobs"
is "/" "$(cgroup_of "$j" cls)" "--dry-run logs the decision and moves nothing"
is "-10" "$(ps -o ni= -p "$DAEMON_PID" | tr -d ' ')" "it runs at nice -10 by default"
daemon_stop
write_config 'nice = 3'
daemon_start || bail "daemon"
is "3" "$(ps -o ni= -p "$DAEMON_PID" | tr -d ' ')" "or at the configured nice"
sched() { ps -o cls=,rtprio= -p "$1" | tr -s ' ' | sed 's/^ //; s/ $//'; }
is "TS -" "$(sched "$DAEMON_PID")" "with normal scheduling by default"
write_config 'realtime-priority = 2'
reload_daemon
sched_is() { [ "$(sched "$DAEMON_PID")" = "$1" ]; }
ok "realtime-priority = 2: SCHED_RR at priority 2 after a reload" wait_until 30 sched_is "RR 2"
ok "it says so" wait_log "running at real-time priority 2 (SCHED_RR)"
write_config
reload_daemon
ok "without it again: back to normal scheduling" wait_until 30 sched_is "TS -"
done_testing
