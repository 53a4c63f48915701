#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The control socket and cgenginectl: every verb, the permission model,
# JSON output, and clients that misbehave (malformed, oversized,
# half-written, stalled, many at once) without stopping classification;
# the per-user connection cap with a real `nobody` peer and root's
# reserve; a trickle that does not extend the deadline; a client that
# writes without reading, which neither grows the daemon nor its log.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
command -v jq >/dev/null || skip_all "needs jq"
plan 54

mount_hier cpu; MANAGED="cpu"
add_user "${TAG}a"; add_user "${TAG}b"; add_user "${TAG}c"; add_user "${TAG}d"
program "${TAG}job"
echo "*:${TAG}job name=${TAG}cpu /jobs" >"$T/cgrules.conf"
write_config
CTL="$BUILDDIR/cgenginectl"; SOCK="$T/control.sock"; RAW="$BUILDDIR/tests/lib/rawctl"
ctl() { "$CTL" -s "$SOCK" "$@"; }
as() { u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups "$@"; }

ctl status >/dev/null 2>"$T/err"
is 3 "$?" "without a daemon cgenginectl exits 3"
ok "and says the daemon is not running" grep -q "is cgengined running?" "$T/err"

daemon_start || bail "daemon"
ok "the control socket is world-connectable" sh -c "stat -c %a '$SOCK' | grep -q 666"
ok "status" sh -c "'$CTL' -s '$SOCK' status | grep -q '^rules: *1 (per-hierarchy)'"
is 1 "$(ctl --json status | jq '.rules')" "status --json parses and counts the rules"

start "$T/bin/${TAG}job" 300; j=$LAST
wait_group "$j" cpu /jobs
out=$(ctl explain "$j")
ok "explain shows current, wanted and why" sh -c "echo '$out' | grep -q '^name=${TAG}cpu *\/jobs *\/jobs *$T/cgrules.conf:1'"
is "/jobs" "$(ctl --json explain "$j" | jq -r '.hierarchies[0].current')" "explain --json: current"
is "$T/cgrules.conf:1" "$(ctl --json explain "$j" | jq -r '.hierarchies[0].why')" "explain --json: why"
ctl explain 999999999 >/dev/null 2>"$T/err"
is 1 "$?" "explain of a missing pid fails"
is "cgenginectl: no process 999999999" "$(cat "$T/err")" "with a clear message"

is "/jobs" "$(ctl --json test --user "${TAG}a" --exe "/opt/${TAG}job" | jq -r '.hierarchies[0].wanted')" \
	"test: what-if for a program that is not running"
is "null" "$(ctl --json test --user "${TAG}a" --exe /bin/true | jq -r '.hierarchies[0].wanted')" \
	"test: no rule, left alone"

run_as "${TAG}a" "$T/bin/${TAG}job" 300; ja=$LAST
wait_group "$ja" cpu /jobs
ok "a user may explain its own process" as "${TAG}a" "$CTL" -s "$SOCK" explain "$ja"
as "${TAG}a" "$CTL" -s "$SOCK" explain "$j" >/dev/null 2>"$T/err"
is 1 "$?" "but not another user's"
is "cgenginectl: no process $j of uid $(id -u "${TAG}a")" "$(cat "$T/err")" \
	"refusal message: as for no process (no oracle past hidepid)"
ok "denials are logged" grep -q "control: uid $(id -u "${TAG}a") denied: explain of pid $j" "$T/daemon.log"
ok "a user may run status and test" as "${TAG}a" "$CTL" -s "$SOCK" test --user "${TAG}a"
for v in reload pause resume rules metrics; do
	as "${TAG}b" "$CTL" -s "$SOCK" $v >/dev/null 2>"$T/err"
	is "cgenginectl: permission denied: '$v' needs root" "$(cat "$T/err")" "a user may not $v"
done

ctl pause >/dev/null
start "$T/bin/${TAG}job" 300; p=$LAST
# nothing can show that a paused daemon has seen the exec: wait until it
# is done and a request has gone through the daemon's loop after it
wait_until 30 runs "$p" "$T/bin/${TAG}job"; daemon_sync
is "/" "$(cgroup_of "$p" cpu)" "paused: nothing is moved"
ok "status says so" sh -c "'$CTL' -s '$SOCK' status | grep -q PAUSED"
ctl resume >/dev/null
ok "resume catches up" wait_group "$p" cpu /jobs

ok "rules shows hit counts" sh -c "'$CTL' -s '$SOCK' rules | grep -q 'hits=[1-9]'"
ok "metrics in Prometheus text" sh -c "'$CTL' -s '$SOCK' metrics | grep -q '^cgengine_moves_total [1-9]'"

# misbehaving clients
is "CGENGINE 1
ERR unknown request 'bogus' (try 'help')" "$(printf 'bogus\n' | "$RAW" "$SOCK")" "a malformed request gets an error"
head -c 5000 /dev/zero | tr '\0' x | "$RAW" "$SOCK" >"$T/raw"
is "ERR request too long (at most 4096 bytes)" "$(sed -n 2p "$T/raw")" "an oversized request is refused"
is "ERR incomplete request (no newline)" "$(printf 'status' | "$RAW" "$SOCK" | sed -n 2p)" "a half-written request"
is "2" "$(printf 'version\nversion\n' | "$RAW" "$SOCK" | grep -c '^OK')" "several requests on one connection"

# the daemon's descriptors: back to this many once the clients below are gone
daemon_fds() { ls "/proc/$DAEMON_PID/fd" | wc -l; }
fds0=$(daemon_fds)
fds_back() { [ "$(daemon_fds)" -le "$fds0" ]; }
"$BUILDDIR/tests/lib/stall" "$SOCK" 3 20 70 >"$T/stall.out" & stall=$!; KIDS="$KIDS $stall"
wait_until 30 test -s "$T/stall.out" # its connections are made
start "$T/bin/${TAG}job" 300; s=$LAST
ok "70 stalled clients do not stop classification" wait_group "$s" cpu /jobs
refused() { printf 'status\n' | "$RAW" "$SOCK" 1 | grep -q 'too many clients'; }
ok "clients beyond the cap are turned away" wait_until 30 refused
kill "$stall"; wait "$stall" 2>/dev/null
wait_until 30 fds_back || diag "the daemon still holds $(daemon_fds) descriptors, not $fds0"

: >"$T/many"
pids=""
for i in $(seq 30); do ( ctl status >/dev/null && echo ok >>"$T/many" ) & pids="$pids $!"; done
for p in $pids; do wait "$p"; done
is 30 "$(wc -l <"$T/many" | tr -d ' ')" "30 concurrent clients are all served"
seq 100 | sed 's/.*/version/' | as "${TAG}b" "$RAW" "$SOCK" >"$T/rate"
ok "a user making 100 requests at once is rate-limited" grep -q "^ERR rate limit exceeded" "$T/rate"
ok "after its burst was served" test "$(grep -c '^OK' "$T/rate")" -ge 30
seq 100 | sed 's/.*/version/' | "$RAW" "$SOCK" >"$T/rate"
is 100 "$(grep -c '^OK' "$T/rate")" "root is not rate-limited"
# a program whose path is not UTF-8: --json must still be valid JSON
bad=$(printf '%s/bin/%sjob-\377\376' "$T" "$TAG")
cp "$T/bin/${TAG}job" "$bad"
start "$bad" 300; u=$LAST
wait_until 30 runs "$u" "$bad" # until the exec is done
ctl --json explain "$u" >"$T/bad.json"
ok "explain --json of a process whose exe is not UTF-8 parses with jq" jq -e . "$T/bad.json"
is "${TAG}job-$(printf '\357\277\275\357\277\275')" \
	"$(jq -r '.exe' "$T/bad.json" | sed 's|.*/||')" "the invalid bytes are shown as U+FFFD"

# per-user connection caps: one user cannot lock others out, and the
# last slots are root's (16 per user, 64 in all, 8 kept for root)
STALL="$BUILDDIR/tests/lib/stall"
refused_through() { # RUNNER...: a new connection made through RUNNER is refused
	printf '' | "$@" "$RAW" "$SOCK" 1 | grep -q '^ERR too many clients'
}
turned_away() { # RUNNER...: the same, once the stalled clients are all in
	wait_until 30 refused_through "$@"
}
stalls() { # UID: 20 stalled connections of that user; wait until they are made
	setpriv --reuid="$1" --regid="$1" --clear-groups "$STALL" "$SOCK" 3 30 20 >"$T/stall.$1" &
	KIDS="$KIDS $!"; STALLS="$STALLS $!"
	wait_until 30 test -s "$T/stall.$1"
}
STALLS=""
log_quiet
stalls 65534
ok "nobody's 17th connection is turned away" \
	turned_away setpriv --reuid=65534 --regid=65534 --clear-groups
ok "the refusal is logged with the uid and its cap" \
	wait_log "control socket: too many clients of uid 65534 (at most 16), refused pid"
ok "root still gets in" ctl status
ok "another user still gets in" as "${TAG}a" "$CTL" -s "$SOCK" version
for u in "${TAG}a" "${TAG}b" "${TAG}c"; do stalls "$(id -u "$u")"; done
ok "with 56 connections from four users, a fifth user is turned away" \
	turned_away as "${TAG}d"
ok "root still gets in: the last 8 slots are its own" ctl status
for p in $STALLS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
wait_until 30 fds_back || diag "the daemon still holds $(daemon_fds) descriptors, not $fds0"
log_quiet

# a trickle of bytes does not extend the request deadline (10 s): a
# byte every 2 s for 30 s is dropped after 10, even on a busy machine
# long before the trickle ends; meanwhile six clients write requests
# and never read the answers
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$DAEMON_PID/status"; }
rss0=$(rss); lines0=$(wc -l <"$T/daemon.log")
t0=$(date +%s)
( for i in $(seq 15); do printf x; sleep 2; done ) | timeout 60 "$RAW" "$SOCK" 30 >"$T/trickle" &
trickle=$!
floods=""
for i in 1 2 3 4 5 6; do
	seq 2000000 | sed 's/.*/version/' | timeout 40 setpriv --reuid="${TAG}b" \
		--regid="${TAG}b" --init-groups "$RAW" "$SOCK" 1 >/dev/null 2>&1 &
	floods="$floods $!"
done
wait "$trickle"
took=$(( $(date +%s) - t0 ))
ok "a client trickling a byte every 2 s is dropped by the deadline (after ${took} s, not 30)" \
	test "$took" -lt 24
ok "logged as too slow" wait_log "pid [0-9]* (uid 0) too slow, no complete request within 10 s, dropped"
for p in $floods; do wait "$p"; done
ok "clients that never read are dropped" wait_log "(uid $(id -u "${TAG}b")) reads too slowly, dropped"
rss1=$(rss)
ok "and the daemon did not grow with their answers (RSS ${rss0} kB -> ${rss1} kB)" \
	test $((rss1 - rss0)) -lt 8192
ok "nor its log ($(( $(wc -l <"$T/daemon.log") - lines0 )) lines)" \
	test $(( $(wc -l <"$T/daemon.log") - lines0 )) -lt 40
ok "the rate limit is logged once, not per refused request" \
	test "$(grep -c "uid $(id -u "${TAG}b") over its rate limit" "$T/daemon.log")" -le 2
ok "status answers" ctl status
ok "the daemon is alive" kill -0 "$DAEMON_PID"
daemon_stop
ok "the control socket is removed at exit" sh -c "! test -e '$SOCK'"
done_testing
