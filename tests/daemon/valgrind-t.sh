#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The real daemon under valgrind: start, classify, reload (good and
# broken rules), stop.  Catches what ASan cannot see, such as a freed
# path handed to unlink() (the pid file after a reload).
. "$SRCDIR/tests/lib/daemon.sh"
require_root
command -v valgrind >/dev/null || skip_all "needs valgrind"
# a sanitizer build cannot run under valgrind (and has ASan instead)
ldd "$CGENGINED" 2>/dev/null | grep -q 'libasan' && skip_all "sanitizer build"
plan 6

mount_hier cpu; MANAGED="cpu"
program "${TAG}job"
echo "*:${TAG}job name=${TAG}cpu /jobs/%p" >"$T/cgrules.conf"
# the proc connector: valgrind (3.19) does not model the bpf(2) system
# call libbpf makes (unhandled commands, a NULL first key taken for a
# bad address); the BPF source runs under ASan in the sanitizer build
write_config 'event-source = "netlink"'
: >"$T/daemon.log"
valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9 \
	--log-file="$T/valgrind.log" \
	"$CGENGINED" -n -c "$T/cgengined.conf" -l "$T/daemon.log" 2>>"$T/daemon.log" &
DAEMON_PID=$!
ok "the daemon starts under valgrind" wait_log "ready: running processes classified" 60
start "$T/bin/${TAG}job" 300; j=$LAST
ok "and classifies" wait_group "$j" cpu "/jobs/${TAG}job" 20
ok "reload with good rules" reload_daemon
echo "bogus line" >"$T/cgrules.conf"
kill -HUP "$DAEMON_PID"
ok "reload with broken rules keeps the old ones" wait_log "reload failed" 20
daemon_stop
is 0 "$DAEMON_RC" "it exits with status 0 (no valgrind error)"
is "" "$(grep -v '^==[0-9]*== *$' "$T/valgrind.log")" "valgrind reports nothing"
done_testing
