#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The exec gate is fair between users (exec-gate = true, the real daemon,
# real fanotify, a private named hierarchy):
#   - user A starts a burst of 2,000 execs of a gated probe at once (four
#     spawners of 500 concurrent children each); meanwhile user B execs
#     the gated probe 40 times, one after another, each probe reading
#     its own /proc/self/cgroup once, as its first action: all 40 of B's
#     are already in B's group
#   - A's execs beyond its budget of held execs were let go at once
#     (status: gate_over_budget), and are placed after their exec
# What this tests is fairness, not speed: the daemon runs at real-time
# priority, and B's probes are counted only while A's burst is going on.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
LOADGEN="$BUILDDIR/bench/loadgen"
PROBE="$BUILDDIR/bench/probe"
[ -x "$LOADGEN" ] && [ -x "$PROBE" ] || skip_all "bench/loadgen and bench/probe not built"
plan 6

# four hierarchies: a move at the gate is four writes, and a burst of
# them keeps the daemon busy for seconds
HS="cls mem net io"
for h in $HS; do mount_hier "$h"; done
MANAGED="$HS"
add_user "${TAG}a"
add_user "${TAG}b"
UA=$(id -u "${TAG}a"); GA=$(id -g "${TAG}a")
UB=$(id -u "${TAG}b"); GB=$(id -g "${TAG}b")
program "${TAG}probe" "$PROBE"
: >"$T/cgrules.conf"
WANT_A="" WANT_B=""
for h in $HS; do
	printf '%s\n' "${TAG}a:$T/bin/${TAG}probe   name=${TAG}$h   /a" \
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
ok "the gate holds the probe" grep -q "1 of 1 binary the rules name held" "$T/daemon.log"

# the burst: 2,000 children of one spawner, each A already, exec the
# probe together once $T/go exists (loadgen -s); each probe looks once
# (timeout 0) and reports whether it was in /a at that moment
"$LOADGEN" -d "$DAEMON_PID" -u "$UA" -g "$GA" -n 2000 -c 2000 -t 0 -s "$T/go" \
	-p "$T/bin/${TAG}probe" $WANT_A >"$T/burst" 2>>"$T/loadgen.err" &
A=$!
KIDS="$KIDS $A"
i=0; while [ "$(pgrep -c -P "$A")" -lt 2000 ] && [ $i -lt 1200 ]; do
	sleep 0.05; i=$((i + 1)); done
# B's 40 execs, one after another, start with the burst; B runs at
# real-time priority (below the daemon's) so that its execs happen while
# the burst's 2,000 processes wait for the CPUs, not after them
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

eval "$(sed -n 's/^count=\([0-9]*\) classified=\([0-9]*\) .*p99_us=\([0-9]*\) .*/a_count=\1 a_in=\2 a_p99=\3/p' "$T/burst")"
diag "A, the burst: $a_count execs, $a_in in A's group at their first instruction; gate: execs $(counter gate_execs), moves $(counter gate_moves), over budget $(counter gate_over_budget), watchdog $(counter gate_watchdog), late $(counter gate_late)"
is 2000 "$a_count" "A: 2,000 probes ran"
ok "A's execs beyond its budget were let go at once, counted" \
	test "$(counter gate_over_budget)" -gt 0
done_testing
