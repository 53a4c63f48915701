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
out=$(ctl boost "$j" "$NET:/fast" 2s)
ok "boost prints the id and expiry" sh -c "echo '$out' | grep -q '^boost #1: $NET:/fast until '"
ok "the process moves at once" wait_group "$j" net /fast
is /jobs "$(cgroup_of "$j" cpu)" "other hierarchies keep the rules' decision"
ok "boosts lists it" sh -c "'$CTL' -s '$SOCK' boosts | grep -q '^#1 .*/fast .* $j\$'"
ok "the state file records it" grep -q "^boost 1 0 [0-9]* $NET /fast - $j:[0-9]*\$" "$T/state/boosts.state"
ok "it expires by itself" wait_group "$j" net /jobs 5
ok "the end is logged" grep -q "boost #1 ended (expired); 1 process back to the rules" "$T/daemon.log"
is "" "$(ctl boosts | sed 1d)" "and it is gone from the list"
ok "and from the state file" sh -c "! grep -q '^boost' '$T/state/boosts.state'"

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

# a child forked while the parent is boosted shares the boost
start sh -c "sleep 1; '$T/bin/${TAG}job' 300 & echo \$! >'$T/child.pid'; wait"; sh=$LAST
ctl boost "$sh" "$NET:/fast" 1m >/dev/null
i=0; while [ ! -s "$T/child.pid" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
child=$(cat "$T/child.pid"); KIDS="$KIDS $child"
sleep 0.5
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
sleep 0.3
is /fast "$(cgroup_of "$j" net)" "and still holds"
ctl unboost "$j" >/dev/null; wait_group "$j" net /jobs
ctl boost "$j" "$NET:/fast" 1s >/dev/null; wait_group "$j" net /fast
daemon_stop
sleep 1.5
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
# (the state is written at most twice a second: give it that long)
ok "and the state file forgot it" sh -c "for i in \$(seq 20); do
	grep -q '^boost' '$T/state/boosts.state' || exit 0; sleep 0.1; done; exit 1"

# users and profiles
run_as "${TAG}a" "$T/bin/${TAG}job" 300; ja=$LAST
run_as "${TAG}b" "$T/bin/${TAG}job" 300; jb=$LAST
wait_group "$ja" net /jobs; wait_group "$jb" net /jobs
ok "a user boosts its own process through a granted profile" \
	as "${TAG}a" "$CTL" -s "$SOCK" boost --profile fast "$ja" 30s
ok "and it moves" wait_group "$ja" net /fast
is 1 "$(as "${TAG}a" "$CTL" -s "$SOCK" --json boosts | jq length)" "the user sees its own boost"
as "${TAG}a" "$CTL" -s "$SOCK" boost --profile fast "$jb" >/dev/null 2>"$T/err"
is "cgenginectl: permission denied: pid $jb belongs to another user" "$(cat "$T/err")" "not for another user's process"
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
