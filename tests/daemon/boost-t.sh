#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Boosts: immediate move, expiry, cancel, coexistence on two
# hierarchies, children forked meanwhile, restart with an active or an
# expired boost, processes that end, and the profile rules for users.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
command -v jq >/dev/null || skip_all "needs jq"
plan 34

mount_hier cpu; mount_hier net; MANAGED="cpu net"
add_group "${TAG}studs"
add_user "${TAG}a" "${TAG}studs"; add_user "${TAG}b"
program "${TAG}job"
cat >"$T/cgrules.conf" <<EOF
*:${TAG}job   name=${TAG}cpu   /jobs
*:${TAG}job   name=${TAG}net   /jobs
EOF
write_config "state-file = \"$T/state/boosts.state\"
boost-profile \"fast\" {
    allow = {\"@${TAG}studs\"}
    hierarchy = \"name=${TAG}net\"
    destination = \"/fast\"
    max-duration = \"1m\"
}
boost-profile \"other\" {
    allow = {\"${TAG}b\"}
    hierarchy = \"name=${TAG}net\"
    destination = \"/other\"
    max-duration = \"1m\"
}"
CTL="$BUILDDIR/cgenginectl"; SOCK="$T/control.sock"
ctl() { "$CTL" -s "$SOCK" "$@"; }
as() { u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups "$@"; }
NET="name=${TAG}net"; CPU="name=${TAG}cpu"
daemon_start || bail "daemon"

start "$T/bin/${TAG}job" 300; j=$LAST
wait_group "$j" net /jobs
out=$(ctl boost "$j" "$NET:/fast" 1m)
ok "boost prints the id and expiry" sh -c "echo '$out' | grep -q '^boost #1: $NET:/fast until '"
ok "the process moves at once" wait_group "$j" net /fast
is /jobs "$(cgroup_of "$j" cpu)" "other hierarchies keep the rules' decision"
ok "boosts lists it" sh -c "'$CTL' -s '$SOCK' boosts | grep -q '^#1 .*/fast .* $j\$'"
# (the state file is written soon after a change, not at once)
state_has() { grep -q "$1" "$T/state/boosts.state" 2>/dev/null; }
state_lacks() { ! grep -q "$1" "$T/state/boosts.state" 2>/dev/null; }
ok "the state file records it" wait_until 30 state_has "^boost 1 0 [0-9]* $NET /fast - $j:[0-9]*\$"
ctl unboost "#1" >/dev/null; wait_group "$j" net /jobs
ctl boost "$j" "$NET:/fast" 2s >/dev/null
ok "a boost of 2 s expires by itself" wait_log "boost #2 ended (expired); 1 process back to the rules"
ok "the process is back where the rules put it" wait_group "$j" net /jobs
is "" "$(ctl boosts | sed 1d)" "and it is gone from the list"
ok "and from the state file" wait_until 30 state_lacks '^boost'

id=$(ctl --json boost "$j" "$NET:/fast" 1m | jq .id)
wait_group "$j" net /fast
ctl unboost "#$id" >/dev/null
ok "unboost #ID cancels" wait_group "$j" net /jobs

ctl boost "$j" "$NET:/fast" 1m >/dev/null; ctl boost "$j" "$CPU:/fastcpu" 1m >/dev/null
wait_group "$j" net /fast; wait_group "$j" cpu /fastcpu
is "/fast /fastcpu" "$(cgroup_of "$j" net) $(cgroup_of "$j" cpu)" "boosts on two hierarchies coexist"
ctl boost "$j" "$NET:/faster" 1m >/dev/null 2>"$T/err"
ok "a second boost on the same hierarchy is refused" grep -q "already has boost" "$T/err"
ctl unboost "$j" >/dev/null
ok "unboost PID ends all its boosts" wait_group "$j" cpu /jobs
is /jobs "$(cgroup_of "$j" net)" "both of them"

# a child forked while the parent is boosted shares the boost (the
# parent forks it once told to through a FIFO, after the boost)
mkfifo "$T/go"
start sh -c "read go <'$T/go'; '$T/bin/${TAG}job' 300 & echo \$! >'$T/child.pid'; wait"; sh=$LAST
ctl boost "$sh" "$NET:/fast" 1m >/dev/null
wait_group "$sh" net /fast || diag "the boost did not move pid $sh"
timeout 30 sh -c 'echo go >"$1"' sh "$T/go"
wait_until 30 test -s "$T/child.pid"
child=$(cat "$T/child.pid"); KIDS="$KIDS $child"
wait_group "$child" cpu /jobs || diag "pid $child was not classified after its exec"
is /fast "$(cgroup_of "$child" net)" "a child forked during the boost stays boosted after its exec"
is /jobs "$(cgroup_of "$child" cpu)" "while the rules still place it elsewhere"
ok "the boost lists both processes" sh -c "'$CTL' -s '$SOCK' --json boosts | jq -e '.[0].pids | length == 2'"
ctl unboost "$sh" >/dev/null
ok "the child ends with the boost" wait_group "$child" net /jobs

# restart with an active boost, and with one that expired meanwhile
ctl boost "$j" "$NET:/fast" 1m >/dev/null; wait_group "$j" net /fast
daemon_stop
daemon_start || bail "restart"
ok "an active boost is restored after a restart" grep -q "boost #[0-9]* restored: 1 process in $NET:/fast" "$T/daemon.log"
daemon_sync
is /fast "$(cgroup_of "$j" net)" "and still holds"
ctl unboost "$j" >/dev/null; wait_group "$j" net /jobs
# a boost of 5 s that runs out while the daemon is down (5 s leave
# room for a busy machine between the boost and the stop)
t0=$(date +%s)
ctl boost "$j" "$NET:/fast" 5s >/dev/null; t1=$(date +%s)
wait_group "$j" net /fast
daemon_stop
[ $(($(date +%s) - t0)) -lt 4 ] || diag "the boost may have run out before the daemon stopped"
while [ "$(date +%s)" -lt $((t1 + 7)) ]; do sleep 0.2; done # now it has
is /fast "$(cgroup_of "$j" net)" "(while the daemon is down nothing moves)"
daemon_start || bail "restart"
ok "a boost that expired meanwhile is reverted at start" wait_group "$j" net /jobs
ok "saying so" grep -q "expired while cgengined was stopped" "$T/daemon.log"

# a process that ends takes its boost with it; its pid can never inherit it
start "$T/bin/${TAG}job" 300; p=$LAST
ctl boost "$p" "$NET:/fast" 1m >/dev/null
kill "$p"; wait "$p" 2>/dev/null
ok "when the process ends the boost ends" wait_log "ended: its processes exited"
is "" "$(ctl boosts | sed 1d)" "it is no longer listed"
ok "and the state file forgot it" wait_until 30 state_lacks '^boost'

# users and profiles
run_as "${TAG}a" "$T/bin/${TAG}job" 300; ja=$LAST
run_as "${TAG}b" "$T/bin/${TAG}job" 300; jb=$LAST
wait_group "$ja" net /jobs; wait_group "$jb" net /jobs
ok "a user boosts its own process through a granted profile" \
	as "${TAG}a" "$CTL" -s "$SOCK" boost --profile fast "$ja" 30s
ok "and it moves" wait_group "$ja" net /fast
is 1 "$(as "${TAG}a" "$CTL" -s "$SOCK" --json boosts | jq length)" "the user sees its own boost"
as "${TAG}a" "$CTL" -s "$SOCK" boost --profile fast "$jb" >/dev/null 2>"$T/err"
is "cgenginectl: no process $jb of uid $(id -u "${TAG}a")" "$(cat "$T/err")" "not for another user's process"
as "${TAG}a" "$CTL" -s "$SOCK" boost --profile other "$ja" >/dev/null 2>"$T/err"
is "cgenginectl: permission denied: boost profile 'other' is not granted to uid $(id -u "${TAG}a")" \
	"$(cat "$T/err")" "not through a profile not granted to it"
as "${TAG}a" "$CTL" -s "$SOCK" unboost "$ja" >/dev/null
as "${TAG}a" "$CTL" -s "$SOCK" boost --profile fast "$ja" 5m >/dev/null 2>"$T/err"
is "cgenginectl: permission denied: 5m00s exceeds the maximum of profile 'fast' (1m00s)" \
	"$(cat "$T/err")" "not beyond the profile's maximum duration"
as "${TAG}a" "$CTL" -s "$SOCK" boost "$ja" "$NET:/x" 1m >/dev/null 2>"$T/err"
is "cgenginectl: permission denied: a boost without --profile needs root" "$(cat "$T/err")" \
	"not without a profile"
ok "every denial is logged" test "$(grep -c 'control: uid .* denied' "$T/daemon.log")" -ge 4
done_testing
