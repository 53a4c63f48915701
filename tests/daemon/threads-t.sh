#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A process whose main thread exits (pthread_exit) while another thread
# runs on is still alive: it keeps its sticky pin.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 4

mount_hier cpu; MANAGED="cpu"
echo "*:leaderexit name=${TAG}cpu /threads" >"$T/cgrules.conf"
write_config
daemon_start || bail "daemon"
CTL="$BUILDDIR/cgenginectl"; SOCK="$T/control.sock"

start "$BUILDDIR/tests/lib/leaderexit" 1 300; p=$LAST
wait_group "$p" cpu /threads || diag "not classified"
is "SUCCESS_STORE_PID (18 bytes)" "$("$BUILDDIR/tests/lib/stickyreq" "$T/cgred.socket" "$p" 0)" \
	"the process is pinned"
# wait for the main thread to exit: the leader turns into a zombie
wait_until 30 grep -q '^State:.*Z' "/proc/$p/status"
ok "its main thread has exited, another runs on" sh -c "grep -q '^Threads:.*2' /proc/$p/status"
daemon_sync # the exit of the main thread came first
is "true" "$("$CTL" -s "$SOCK" --json explain "$p" | jq -r .sticky)" \
	"the daemon still knows it as sticky"
ok "the exit of the main thread was seen" sh -c "'$CTL' -s '$SOCK' --json status | jq -e '.counters.exit >= 1'"
done_testing
