#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The exec gate's log at start and reload when the rules name binaries
# whose directories do not exist (issue 32: 100,000 such rules logged
# 25,000 "cannot watch" warnings at start): one warning with the count
# and the first three directories, each one at debug level.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 5

mount_hier cls; MANAGED="cls"
program "${TAG}here" /bin/true
: >"$T/cgrules.conf"
k=0
while [ $k -lt 200 ]; do
	echo "*:$T/missing$k/prog   name=${TAG}cls   /gated" >>"$T/cgrules.conf"
	k=$((k + 1))
done
echo "*:$T/bin/${TAG}here   name=${TAG}cls   /gated" >>"$T/cgrules.conf"
write_config 'exec-gate = true'
daemon_start || bail "daemon"
if ! grep -q "exec gate open" "$T/daemon.log"; then
	diag "$(grep 'exec gate' "$T/daemon.log")"
	skip_all "no exec gate here (fanotify permission events unavailable)"
fi

enoent="No such file or directory"
summary="warning: exec gate: cannot watch the directories of 200 binaries the rules name: $T/missing0 ($enoent), $T/missing1 ($enoent), $T/missing2 ($enoent), ...; they are not held again if replaced (each at debug level)"
is 1 "$(grep 'exec gate: cannot watch' "$T/daemon.log" | grep -vc ' debug: ')" \
	"one line above debug level for 200 directories"
is "$summary" "$(grep 'warning: exec gate: cannot watch' "$T/daemon.log" | sed 's/^[^ ]* //')" \
	"... with the count and the first three"
is 200 "$(grep -c "debug: exec gate: cannot watch $T/missing[0-9]*: $enoent; $T/missing[0-9]*/prog is not held again if it is replaced" "$T/daemon.log")" \
	"each one at debug level"
summaries() { grep -c 'warning: exec gate: cannot watch the directories of 200 binaries' "$T/daemon.log"; }
twice() { [ "$(summaries)" -eq 2 ]; }
kill -HUP "$DAEMON_PID"
wait_until 30 twice
is 2 "$(summaries)" "a reload says it once more"
ok "the binary that exists is held" grep -q "exec gate: 1 of 201 binaries the rules name held" "$T/daemon.log"
done_testing
