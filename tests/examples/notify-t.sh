#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# systemd Type=notify: READY=1 once classification has started,
# RELOADING=1 then READY=1 around a reload, STOPPING=1 at exit, and
# WATCHDOG=1 twice per WatchdogSec= when systemd asks for it -- written
# to $NOTIFY_SOCKET, here a socket the test listens on.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 8

mount_hier cls; MANAGED="cls"
echo "root:${TAG}nothing name=${TAG}cls /x" >"$T/cgrules.conf"
write_config
"$BUILDDIR/tests/lib/notifyrecv" "$T/notify.sock" >"$T/notify.out" & KIDS="$KIDS $!"
wait_until 30 test -S "$T/notify.sock"
NOTIFY_SOCKET="$T/notify.sock" daemon_start || bail "daemon"
waitfor() { wait_until 30 grep -q "$1" "$T/notify.out"; }
ok "READY=1 at start" waitfor "^READY=1$"
kill -HUP "$DAEMON_PID"
ok "RELOADING=1 with MONOTONIC_USEC on reload" waitfor "^RELOADING=1 MONOTONIC_USEC=[0-9]*$"
readies() { [ "$(grep -c '^READY=1$' "$T/notify.out")" -eq "$1" ]; }
ok "READY=1 again after it" wait_until 30 readies 2
daemon_stop
ok "STOPPING=1 at exit" waitfor "^STOPPING=1$"
is "READY=1 RELOADING=1 READY=1 STOPPING=1" "$(sed 's/ MONOTONIC_USEC=.*//' "$T/notify.out" | tr '\n' ' ' | sed 's/ $//')" \
	"in that order, nothing else"

# WatchdogSec=400ms: WATCHDOG_USEC in the environment, a ping every 200 ms
: >"$T/notify.out"
WATCHDOG_USEC=400000 NOTIFY_SOCKET="$T/notify.sock" daemon_start || bail "daemon"
# counted over a measured spell (a busy machine stretches the sleep)
n0=$(grep -c '^WATCHDOG=1$' "$T/notify.out"); t0=$(date +%s%N)
sleep 1.1
n1=$(grep -c '^WATCHDOG=1$' "$T/notify.out"); t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 )); n=$((n1 - n0))
ok "WATCHDOG=1 every half period ($n in $ms ms)" test "$n" -ge $((ms / 200 - 2)) -a "$n" -le $((ms / 200 + 2))
daemon_stop
: >"$T/notify.out"
WATCHDOG_PID=1 WATCHDOG_USEC=400000 NOTIFY_SOCKET="$T/notify.sock" daemon_start || bail "daemon"
sleep 0.6
is 0 "$(grep -c '^WATCHDOG=1$' "$T/notify.out")" "none when WATCHDOG_PID names another process"
daemon_stop
: >"$T/notify.out"
NOTIFY_SOCKET="$T/notify.sock" daemon_start || bail "daemon"
sleep 0.6
is 0 "$(grep -c '^WATCHDOG=1$' "$T/notify.out")" "none without WatchdogSec="
done_testing
