#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The exec gate is fair between users (exec-gate = true, the real daemon,
# real fanotify, four private named hierarchies):
#   - user A's 2,000 children exec a gated binary at once (loadgen -s);
#     meanwhile user B execs a gated probe 40 times, one after another,
#     each probe reading its own /proc/self/cgroup once, as its first
#     action: all 40 are already in B's groups
# The daemon holds at most GATE_USER_BUDGET (16) of A's execs and
# answers the rest at once (placed after their exec; status counts
# them as gate_over_budget), and serves A's and B's in turn.  What this
# tests is fairness, not speed: the daemon runs at real-time priority,
# B just below it, so that B's execs happen while A's burst waits for
# the CPUs (checked).
. "$SRCDIR/tests/lib/daemon.sh"
require_root
LOADGEN="$BUILDDIR/bench/loadgen"
PROBE="$BUILDDIR/bench/probe"
[ -x "$LOADGEN" ] && [ -x "$PROBE" ] || skip_all "bench/loadgen and bench/probe not built"
plan 4

# four hierarchies: each move at the gate is four writes
HS="cls mem net io"
for h in $HS; do mount_hier "$h"; done
MANAGED="$HS"
add_user "${TAG}a"
add_user "${TAG}b"
UA=$(id -u "${TAG}a"); GA=$(id -g "${TAG}a")
UB=$(id -u "${TAG}b"); GB=$(id -g "${TAG}b")
program "${TAG}probe" "$PROBE"
program "${TAG}true" /bin/true
: >"$T/cgrules.conf"
WANT_A="" WANT_B=""
for h in $HS; do
	printf '%s\n' "${TAG}a:$T/bin/${TAG}true    name=${TAG}$h   /a" \
		"${TAG}b:$T/bin/${TAG}probe   name=${TAG}$h   /b" >>"$T/cgrules.conf"
	WANT_A="$WANT_A name=${TAG}$h=/a" WANT_B="$WANT_B name=${TAG}$h=/b"
done
# notice: a log line per move would be a write per exec
write_config 'log-level = "notice"
realtime-priority = 10
exec-gate = true'
daemon_start || bail "daemon"
CTL() { "$BUILDDIR/cgenginectl" -s "$T/control.sock" "$@"; }
counter() { CTL --json status | sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p"; }
if ! grep -q "exec gate open" "$T/daemon.log"; then
	diag "$(grep 'exec gate' "$T/daemon.log")"
	skip_all "no exec gate here (fanotify permission events unavailable)"
fi
ok "the gate holds the two binaries" grep -q "2 of 2 binaries the rules name held" "$T/daemon.log"

# the burst: 2,000 children of one spawner, each A already, exec a gated
# copy of true together once $T/go exists (loadgen -s)
execs0=$(counter gate_execs)
"$LOADGEN" -d "$DAEMON_PID" -u "$UA" -g "$GA" -n 2000 -c 2000 -t 0 -s "$T/go" \
	-p "$T/bin/${TAG}true" $WANT_A >/dev/null 2>>"$T/loadgen.err" &
A=$!
KIDS="$KIDS $A"
i=0; while [ "$(pgrep -c -P "$A")" -lt 2000 ] && [ $i -lt 1200 ]; do
	sleep 0.05; i=$((i + 1)); done
# B's 40 execs of the probe, one after another, start with the burst;
# B runs at real-time priority (below the daemon's), so that its execs
# happen while the burst's 2,000 processes wait for the CPUs
touch "$T/go"
b=$(chrt -f 5 "$LOADGEN" -d "$DAEMON_PID" -u "$UB" -g "$GB" -n 40 -c 1 -t 0 \
	-p "$T/bin/${TAG}probe" $WANT_B 2>>"$T/loadgen.err")
during=no; kill -0 "$A" 2>/dev/null && during=yes
wait "$A"
diag "B, 40 execs one after another: $(echo "$b" | head -n 1)"
eval "$(echo "$b" | head -n 1)"
ok "B's 40 execs ran while A's burst was going on" test "$during" = yes
is 40 "$count" "B: 40 probes ran"
is 40 "$classified" "B: 40 of 40 probes in B's group at their first instruction"
# how long B's slowest exec took is a figure, not a check: a move that
# waits in the kernel (cgroup.procs behind the burst's exits) or a
# loaded machine holds every exec alike
diag "B's slowest exec, fork to its first instruction: $max_us us"
diag "A's burst and B's: gate: execs $(($(counter gate_execs) - execs0)), moves $(counter gate_moves), over budget $(counter gate_over_budget), watchdog $(counter gate_watchdog), late $(counter gate_late)"
grep -E "warning|error" "$T/daemon.log" | sed 's/^/# /' >&2
done_testing
