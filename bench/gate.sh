#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/gate.sh -- the exec gate (exec-gate) against the asynchronous
# path, one daemon, one run:
#   1. misplaced: a storm of COUNT execs of a probe at 8 concurrent
#      spawners; each probe looks at /proc/self/cgroup once, as its
#      first action, and says whether it is in its group already --
#      with the gate off, then on (a reload), then off again; then, the
#      daemon at real-time priority 10, a burst of 2,000 execs at once
#      (loadgen -s), each probe looking until it is placed: the burst's
#      own latency (its execs beyond the user's 16 held go on at once
#      and are placed after them)
#   2. what an exec costs the exec'ing process (fork to the probe's
#      main(), one spawner, EXECS execs): a gated binary and an unmarked
#      one, gate off and on, alternating; the daemon, the spawner and
#      the probes run at real-time priority 10 (SCHED_RR/SCHED_FIFO) for
#      this part, so that the machine's other load does not drown a
#      difference of a tenth of a millisecond
#   3. with strace installed: the daemon's system calls per exec (its
#      threads included), a gated and an unmarked binary, gate off and
#      on -- a figure that does not depend on the machine's load
# Prints one table.  Run as root from a built tree:
#   sh bench/gate.sh            (COUNT=1000 EXECS=1000; BENCH_GATE_QUICK=1: 200/200)
# or, built out of the tree:  BUILDDIR=/path/to/build sh bench/gate.sh
# Safety (SPEC 9): a private named hierarchy, a throwaway user, binaries
# in a temporary directory, the daemon stopped by its pid.
set -u
top=$(cd "${BUILDDIR:-$(dirname "$0")/..}" && pwd)
B=$top/bench
[ "$(id -u)" -eq 0 ] || { echo "bench/gate.sh: run as root" >&2; exit 1; }
for f in "$top/cgengined" "$top/cgenginectl" "$B/loadgen" "$B/probe"; do
	[ -x "$f" ] || { echo "bench/gate.sh: build first (make); $f missing" >&2; exit 1; }
done
COUNT=1000; EXECS=1000
[ -n "${BENCH_GATE_QUICK:-}" ] && { COUNT=200; EXECS=200; }
TAG=${BENCH_TAG:-cggate}$$
. "$(dirname "$0")/lib.sh"
bench_gate_setup cgengine-gate
cp "$B/probe" "$D/bin/gated"    # named by path: marked when the gate is on
cp "$B/probe" "$D/bin/unmarked" # placed by the user's rule, never marked
chmod 755 "$D/bin" "$D/bin/gated" "$D/bin/unmarked"
cat >"$D/cgrules.conf" <<EOF
$TAG:$D/bin/gated   name=$TAG   /gated
$TAG                name=$TAG   /user
EOF
config() { # GATE
	bench_conf "$D/cgengined.conf" "$D/cgrules.conf" "name=$TAG" "$D/control.sock" \
		"$D/cgengined.pid" notice "exec-gate = $1" "realtime-priority = ${RT:-0}"
}
gate_lines() { grep -c "exec gate: 1 of 1 binary" "$D/cgengined.log"; }
gate() { # on|off: set exec-gate and reload; on, wait for the gate's own
	# line too: it marks the binaries after "reloaded:", on every reload
	n=$(grep -c "reloaded: " "$D/cgengined.log") m=$(gate_lines)
	config "$([ "$1" = on ] && echo true || echo false)"
	kill -HUP "$DAEMON"
	i=0; while [ "$(grep -c 'reloaded: ' "$D/cgengined.log")" -le "$n" ] && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1)); done
	[ "$1" = on ] || { sleep 0.5; return; }
	i=0; while [ "$(gate_lines)" -le "$m" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	if [ "$(gate_lines)" -le "$m" ]; then
		echo "bench/gate.sh: the gate did not open:" >&2
		grep "exec gate" "$D/cgengined.log" >&2
		exit 1
	fi
	sleep 0.5
}
config false
"$top/cgengined" -n -c "$D/cgengined.conf" -l "$D/cgengined.log" & DAEMON=$!
sleep 1
kill -0 "$DAEMON" || exit 1

counts() { echo "$(bench_gate_count execs) $(bench_gate_count watchdog)"; }
row() { # WHAT GATE "EXECS WATCHDOG" (before): one line of the table from loadgen's $r
	eval "$r"
	set -- "$1" "$2" $3 $(counts)
	printf '%-28s %-5s %6s %9s %5s %5s %9s %12s %8s %5s\n' "$1" "$2" "$count" \
		"$((count - classified))" "$(($5 - $3))" "$(($6 - $4))" "$start_p50_us" \
		"$start_p99_us" "$cpu_us_per_exec" "$(cut -d' ' -f1 /proc/loadavg)"
}
storm() { # GATE: COUNT execs of the gated probe at 8 spawners, one look each
	w=$(counts)
	r=$("$B/loadgen" -d "$DAEMON" -u "$U" -g "$G" -n "$COUNT" -c 8 -t 0 \
		-p "$D/bin/gated" "name=$TAG=/gated") || return
	row "storm, 8 spawners" "$1" "$w"
}
burst() { # GATE: 2,000 execs of the gated probe at once (loadgen -s), each
	# looking until it is in its group (1 s at most): the burst's own latency
	gate=$1 w=$(counts) over=$(bench_gate_count over_budget)
	touch "$D/go"
	r=$("$B/loadgen" -d "$DAEMON" -u "$U" -g "$G" -n 2000 -c 2000 -t 1000 -s "$D/go" \
		-p "$D/bin/gated" "name=$TAG=/gated") || return
	eval "$r"
	set -- $w $(counts)
	printf '%-28s %-5s %6s  exec to placed: p50 %s us, p99 %s us, max %s us; %s not placed within 1 s; held %s, watchdog %s, over budget %s\n' \
		"burst of 2,000 at once" "$gate" "$count" "$p50_us" "$p99_us" "$max_us" \
		"$((count - classified))" "$(($3 - $1))" "$(($4 - $2))" "$(($(bench_gate_count over_budget) - over))"
	rm -f "$D/go"
}
serial() { # GATE BINARY GROUP: EXECS execs, one spawner
	w=$(counts)
	r=$(chrt -f 10 "$B/loadgen" -d "$DAEMON" -u "$U" -g "$G" -n "$EXECS" -c 1 -t 0 \
		-p "$D/bin/$2" "name=$TAG=$3") || return
	row "$2, 1 spawner" "$1" "$w"
}

echo "cgengined exec gate, $(nproc) CPUs, $(uname -r), load at start $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %-5s %6s %9s %5s %5s %9s %12s %8s %5s\n' WHAT GATE EXECS MISPLACED HELD WDOG \
	START_P50 START_P99_US CPU_US LOAD
storm off
gate on; storm on
gate off; storm off
RT=10; gate off # from here on the daemon runs at real-time priority too
gate on; burst on; gate off
for round in 1 2; do
	serial off gated /gated; serial off unmarked /user
	gate on
	serial on gated /gated; serial on unmarked /user
	gate off
done
syscalls() { # GATE BINARY GROUP: the daemon's system calls per exec (strace -c)
	command -v strace >/dev/null 2>&1 || return 0
	strace -f -c -o "$D/strace" -p "$DAEMON" 2>/dev/null & s=$!
	sleep 1
	"$B/loadgen" -d "$DAEMON" -u "$U" -g "$G" -n 300 -c 1 -t 0 -p "$D/bin/$2" \
		"name=$TAG=$3" >/dev/null
	sleep 0.5
	kill -INT "$s"; wait "$s"
	printf '%-28s %-5s %6s  system calls per exec: %s\n' "$2, strace" "$1" 300 \
		"$(awk '$NF == "total" { printf "%.1f", $4 / 300 }' "$D/strace")"
}
RT=0; gate off
syscalls off gated /gated; syscalls off unmarked /user
gate on
syscalls on gated /gated; syscalls on unmarked /user
echo "(MISPLACED: probes not in their group at their first look; HELD: execs the"
echo " gate held (the daemon's count); WDOG: of those, let go unplaced by its watchdog"
echo " after 100 ms; START: fork to the"
echo " probe's main(), us; CPU_US: the daemon's CPU per exec, us.  The unmarked probe"
echo " is placed by the asynchronous path whatever the gate: it is misplaced at its"
echo " first look unless the daemon was faster than its start.  The 1-spawner rows run"
echo " at real-time priority 10, daemon included.)"
