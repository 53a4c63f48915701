#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The daemon under attack and mishaps, each with a clear log line,
# nothing lost and the daemon alive: a managed group removed behind its
# back, its hierarchy lazily unmounted, a SIGHUP storm during an exec
# storm, too few descriptors (ulimit -n 64) for 100 groups, and '..' in
# a boost destination.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 15

mount_hier cpu; MANAGED="cpu"
program "${TAG}st"; program "${TAG}job"; program "${TAG}late"; program "${TAG}many"
cat >"$T/cgrules.conf" <<EOF
*:${TAG}st      name=${TAG}cpu  /static
*:${TAG}job     name=${TAG}cpu  /jobs
*:${TAG}many    name=${TAG}cpu  /many/%P
*:${TAG}late    name=${TAG}cpu  /late/%p
EOF
write_config
CTL="$BUILDDIR/cgenginectl"; SOCK="$T/control.sock"

# 1. a managed group removed while the daemon runs is made again
daemon_start || bail "daemon"
start "$T/bin/${TAG}st" 300; s1=$LAST
wait_group "$s1" cpu /static || diag "first st not placed"
kill "$s1"; wait "$s1" 2>/dev/null
rmdir "$T/h/cpu/static"
start "$T/bin/${TAG}st" 300; s2=$LAST
ok "a group removed behind the daemon's back is made again" wait_group "$s2" cpu /static

# 2. a SIGHUP storm during an exec storm: nothing lost, still alive
pids=""
( for i in $(seq 40); do kill -HUP "$DAEMON_PID" 2>/dev/null; sleep 0.02; done ) &
hup=$!
for i in $(seq 30); do start "$T/bin/${TAG}job" 300; pids="$pids $LAST"; done
wait "$hup"
bad=0
for p in $pids; do wait_group "$p" cpu /jobs 10 || bad=$((bad + 1)); done
is 0 "$bad" "30 programs started during 40 reloads are all classified"
ok "the daemon is alive after the storm" kill -0 "$DAEMON_PID"
ok "and answers" "$CTL" -s "$SOCK" status
ok "SIGUSR1 (libcgroup's signal) reloads instead of killing the daemon" reload_daemon USR1

# 3. '..' in a boost destination is refused
"$CTL" -s "$SOCK" boost "$s2" "name=${TAG}cpu:/../../x" 1m >/dev/null 2>"$T/err"
ok "a boost into '..' is refused" grep -q "must not contain '..'" "$T/err"
ok "and nothing was made above the hierarchy" sh -c "! test -e '$T/h/x' && ! test -e '$T/x'"
daemon_stop
stop_kids

# 4. descriptors: ulimit -n 64, 100 processes into 100 groups
: >"$T/daemon.log"
( ulimit -n 64 && exec "$CGENGINED" -n -c "$T/cgengined.conf" -l "$T/daemon.log" \
	2>>"$T/daemon.log" ) &
DAEMON_PID=$!
wait_log "ready: running processes classified" 10 || bail "daemon under ulimit -n 64"
pids=""
for i in $(seq 100); do start "$T/bin/${TAG}many" 300; pids="$pids $LAST"; done
bad=0
for p in $pids; do wait_group "$p" cpu "/many/$p" 10 || bad=$((bad + 1)); done
is 0 "$bad" "with 64 descriptors, 100 processes land in 100 groups"
ok "the daemon still answers" "$CTL" -s "$SOCK" status
stop_kids
daemon_stop
is 0 "$DAEMON_RC" "it stopped cleanly"

# 5. the hierarchy lazily unmounted under the daemon
daemon_start || bail "daemon"
umount -l "$T/h/cpu"
start "$T/bin/${TAG}late" 300
ok "the lost hierarchy is reported" wait_log "is no longer mounted at $T/h/cpu" 5
ok "no group was made on the root file system" sh -c "! test -e '$T/h/cpu/late'"
ok "the daemon is alive" kill -0 "$DAEMON_PID"
ok "and answers" "$CTL" -s "$SOCK" status
daemon_stop
stop_kids
# mount the hierarchy again so that cleanup can release it
mount -t cgroup -o "none,name=${TAG}cpu" cgroup "$T/h/cpu" || diag "cannot remount"
is 0 "$DAEMON_RC" "the daemon exited with status 0"
done_testing
