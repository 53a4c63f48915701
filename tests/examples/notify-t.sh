#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# systemd Type=notify: READY=1 once classification has started,
# RELOADING=1 then READY=1 around a reload, STOPPING=1 at exit --
# written to $NOTIFY_SOCKET, here a socket the test listens on.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 5

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
done_testing
