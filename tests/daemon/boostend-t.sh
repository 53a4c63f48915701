#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every boost ends with its processes back in their classes (issue 32,
# item 6 and the reload of item 8): a thread id is refused, naming its
# process, so a boost never holds a thread whose exit leaves its
# process in the boost's group or the boost listed against the user's
# quota; a reload that changes a profile's destination re-targets the
# boosts running through it, one that removes the profile ends them.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
command -v jq >/dev/null || skip_all "needs jq"
plan 20

mount_hier net; MANAGED="net"
add_user "${TAG}a"
program "${TAG}job"
program "${TAG}thr" "$BUILDDIR/tests/lib/threadtid"
cat >"$T/cgrules.conf" <<EOF
*:${TAG}job   name=${TAG}net   /jobs
*:${TAG}thr   name=${TAG}net   /jobs
EOF
profile() { # profile DESTINATION: the config with profile fast going there
	write_config "boosts-per-user = 1
boost-profile \"fast\" {
    allow = {\"${TAG}a\"}
    hierarchy = \"name=${TAG}net\"
    destination = \"$1\"
    max-duration = \"1m\"
}"
}
profile /fast
CTL="$BUILDDIR/cgenginectl"; SOCK="$T/control.sock"
ctl() { "$CTL" -s "$SOCK" "$@"; }
as() { u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups "$@"; }
NET="name=${TAG}net"
daemon_start || bail "daemon"

# a process of the user's whose second thread exits after 3 s
uid=$(id -u "${TAG}a")
setpriv --reuid="${TAG}a" --regid="${TAG}a" --init-groups "$T/bin/${TAG}thr" 300 3 >"$T/tid" &
p=$!; KIDS="$KIDS $p"
wait_until 30 test -s "$T/tid"; tid=$(cat "$T/tid")
ok "the process is placed by the rules" wait_group "$p" net /jobs
as "${TAG}a" "$CTL" -s "$SOCK" boost --profile fast "$tid" 1m >/dev/null 2>"$T/err"
is "cgenginectl: pid $tid is a thread of process $p; boost the process" "$(cat "$T/err")" \
	"a boost of a thread id is refused, naming its process"
ctl boost "$tid" "$NET:/fast" 1m >/dev/null 2>"$T/err"
is "cgenginectl: pid $tid is a thread of process $p; boost the process" "$(cat "$T/err")" \
	"root's boost of a thread id too"
daemon_sync
is /jobs "$(cgroup_of "$p" net)" "the process stays in its class"
# the thread exits (after 3 s): nothing of it may linger
wait_until 30 sh -c "! test -e /proc/$p/task/$tid"
daemon_sync
is /jobs "$(cgroup_of "$p" net)" "after the thread's exit the process is in its class"
is 0 "$(as "${TAG}a" "$CTL" -s "$SOCK" --json boosts | jq length)" "no boost is listed"
ok "the user's quota is free: a boost of the process itself" \
	as "${TAG}a" "$CTL" -s "$SOCK" boost --profile fast "$p" 1m
ok "moves it" wait_group "$p" net /fast
as "${TAG}a" "$CTL" -s "$SOCK" unboost "$p" >/dev/null
ok "and ends with the process back in its class" wait_group "$p" net /jobs

# a boost whose process is gone frees the quota (its exit seen)
run_as "${TAG}a" "$T/bin/${TAG}job" 300; q=$LAST
wait_group "$q" net /jobs
as "${TAG}a" "$CTL" -s "$SOCK" boost --profile fast "$q" 1m >/dev/null
wait_group "$q" net /fast
kill "$q"; wait "$q" 2>/dev/null
wait_log "ended: its processes exited"
ok "after its process exited the user may boost again" \
	as "${TAG}a" "$CTL" -s "$SOCK" boost --profile fast "$p" 1m
ok "and the process moves" wait_group "$p" net /fast

# a reload that changes the profile's destination re-targets the boost
profile /faster
reload_daemon
ok "a reload re-targets the running boost" \
	wait_log "re-targeted from $NET:/fast to $NET:/faster: profile fast changed"
ok "its process moves to the profile's new destination" wait_group "$p" net /faster
is /faster "$(ctl --json boosts | jq -r '.[0].destination')" "boosts shows it"
ok "the state file too" wait_until 30 grep -q "^boost [0-9]* $uid [0-9]* $NET /faster fast $p:" \
	"$T/state/boosts.state"
daemon_stop
daemon_start || bail "restart"
daemon_sync
is /faster "$(cgroup_of "$p" net)" "after a restart the re-targeted boost holds"
# a profile changed while the daemon was stopped: restored, re-targeted
daemon_stop
profile /fastest
daemon_start || bail "restart"
ok "a boost restored after its profile changed follows it" wait_group "$p" net /fastest

# a reload that removes the profile ends its boosts
write_config "boosts-per-user = 1"
reload_daemon
ok "a reload that removes the profile ends the boost" \
	wait_log "ended (its boost profile no longer exists); 1 process back to the rules"
ok "its process is back in its class" wait_group "$p" net /jobs
is 0 "$(ctl --json boosts | jq length)" "and no boost is listed"
done_testing
