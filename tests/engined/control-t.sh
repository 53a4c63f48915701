#!/bin/sh
# The control socket and cgenginectl: every verb, the permission model,
# JSON output, and clients that misbehave (malformed, oversized,
# half-written, stalled, many at once) without stopping classification.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
command -v jq >/dev/null || skip_all "needs jq"
plan 41

mount_hier cpu; MANAGED="cpu"
add_user "${TAG}a"; add_user "${TAG}b"
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
is "cgenginectl: permission denied: pid $j belongs to another user" "$(cat "$T/err")" "denial message"
ok "denials are logged" grep -q "control: uid $(id -u "${TAG}a") denied: explain of pid $j" "$T/daemon.log"
ok "a user may run status and test" as "${TAG}a" "$CTL" -s "$SOCK" test --user "${TAG}a"
for v in reload pause resume rules metrics; do
	as "${TAG}b" "$CTL" -s "$SOCK" $v >/dev/null 2>"$T/err"
	is "cgenginectl: permission denied: '$v' needs root" "$(cat "$T/err")" "a user may not $v"
done

ctl pause >/dev/null
start "$T/bin/${TAG}job" 300; p=$LAST
sleep 0.5
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

"$BUILDDIR/tests/lib/stall" "$SOCK" 3 20 70 >"$T/stall.out" & stall=$!; KIDS="$KIDS $stall"
sleep 0.5
start "$T/bin/${TAG}job" 300; s=$LAST
ok "70 stalled clients do not stop classification" wait_group "$s" cpu /jobs
refused() { # the stalling clients may still be connecting: try for a while
	for i in $(seq 25); do
		printf 'status\n' | "$RAW" "$SOCK" 1 | grep -q 'too many clients' && return 0
		sleep 0.2
	done
	return 1
}
ok "clients beyond the cap are turned away" refused
kill "$stall"; wait "$stall" 2>/dev/null; sleep 0.3

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
ctl --json explain "$u" >"$T/bad.json"
ok "explain --json of a process whose exe is not UTF-8 parses with jq" jq -e . "$T/bad.json"
is "${TAG}job-$(printf '\357\277\275\357\277\275')" \
	"$(jq -r '.exe' "$T/bad.json" | sed 's|.*/||')" "the invalid bytes are shown as U+FFFD"
ok "the daemon is alive" kill -0 "$DAEMON_PID"
daemon_stop
ok "the control socket is removed at exit" sh -c "! test -e '$SOCK'"
done_testing
