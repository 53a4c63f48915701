#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run.sh -- cgengined against libcgroup's cgrulesengd and against
# the floor (bench/floor: a bare proc-connector listener that only wakes
# up for each event and writes the test user's exec'd pids into the two
# groups), same machine, same run: exec storms of a tiny probe as a test
# user at concurrency 2, 8 and 32, with 10, 1,000 and 100,000 rules (the
# rule that matches the test user last).  Prints one table and the ratios.
#
# Run as root from a built source tree:  sh bench/run.sh [--quick]
# Optional, for a narrower run (defaults in brackets):
#   BENCH_SIZES="10"          rule counts ["10 1000 100000"]
#   BENCH_DAEMONS=cgengined   rows per rule count, in this order
#                             ["floor floor-f before cgengined cgrulesengd"];
#                             also floor-r (the floor, receive only)
#   BENCH_CONCS="8"           concurrencies ["2 8 32"]
#   BENCH_COUNT=1000          spawns per row [2000]
#   BENCH_ROUNDS=3            repeat each rule count's rows [1]
#   BENCH_NICE=-20            cgengined.conf's nice [unset: the default]
#   BENCH_SCHED="chrt -r 1"   command cgengined is started under [none]
#   BENCH_BEFORE=PATH         another cgengined binary, as rows "before"
#                             (add "before" to BENCH_DAEMONS; it is by default)
#   BENCH_SIDE=0              skip bench/side.sh (the daemons side by side)
# floor: every event wakes it; floor-f: with a socket filter passing
# only EXEC and UID events; floor-r: the floor without its writes.  The
# floor runs at cgengined's nice (BENCH_NICE, else its default -10).
# Safety: private named hierarchies, a throwaway user, daemons
# stopped by pid; /etc/cgrules.conf (read by cgrulesengd) is backed up
# and restored, /etc/cgconfig.conf and /etc/cgconfig.d are created only
# if missing and removed again.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$top/bench
[ "$(id -u)" -eq 0 ] || { echo "bench/run.sh: run as root" >&2; exit 1; }
for f in "$top/cgengined" "$B/loadgen" "$B/probe" "$B/floor"; do
	[ -x "$f" ] || { echo "bench/run.sh: build first (make); $f missing" >&2; exit 1; }
done
if ! command -v cgrulesengd >/dev/null; then
	apt-get install -y -qq cgroup-tools >/dev/null 2>&1 || echo "(cgroup-tools not installable: cgengine only)"
fi
QUICK=${1:-}
TAG=${BENCH_TAG:-cgbench}$$ # a prefix of your own: BENCH_TAG=...
D=$(mktemp -d "/tmp/cgengine-bench.XXXXXX"); chmod 755 "$D"
USER_=$TAG
RULES=/etc/cgrules.conf
DAEMON=""
made_cgconfig=""; made_cgconfigd=""; had_cgred="" 

. "$top/tests/tap/tap.sh"     # wait_until
. "$top/tests/lib/v1hier.sh"  # v1_release: hierarchies the kernel really lets go
. "$B/lib.sh"                 # bench_conf
stop_daemon() {
	[ -n "$DAEMON" ] || return 0
	kill "$DAEMON" 2>/dev/null; wait "$DAEMON" 2>/dev/null; DAEMON=""
}
cleanup() {
	stop_daemon
	v1_release "$D/a:${TAG}_a" "$D/b:${TAG}_b"
	if [ -e "$D/cgrules.conf.saved" ]; then cp -p "$D/cgrules.conf.saved" "$RULES"; else rm -f "$RULES"; fi
	[ -n "$made_cgconfig" ] && rm -f /etc/cgconfig.conf
	[ -n "$made_cgconfigd" ] && rmdir /etc/cgconfig.d 2>/dev/null
	# cgrulesengd leaves its socket behind when stopped
	[ -z "$had_cgred" ] && rm -f /var/run/cgred.socket
	userdel "$USER_" 2>/dev/null; groupdel "$USER_" 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
[ -e "$RULES" ] && cp -p "$RULES" "$D/cgrules.conf.saved"
[ -e /var/run/cgred.socket ] && had_cgred=1
[ -e /etc/cgconfig.conf ] || { touch /etc/cgconfig.conf; made_cgconfig=1; }
[ -d /etc/cgconfig.d ] || { mkdir /etc/cgconfig.d; made_cgconfigd=1; }
for h in a b; do
	mkdir -p "$D/$h"
	mount -t cgroup -o "none,name=${TAG}_$h" cgroup "$D/$h" || exit 1
done
useradd --system --no-create-home --user-group "$USER_" || exit 1
U=$(id -u "$USER_"); G=$(id -g "$USER_")

# rules: N-1 rules for other programs, then the test user's rule
write_rules() { # COUNT
	awk -v n="$1" -v t="$TAG" -v u="$USER_" 'BEGIN {
		for (i = 0; i < n - 1; i++)
			printf "*:benchprog%d name=%s_a /other%d\n", i, t, i
		printf "%s name=%s_a,name=%s_b /bench\n", u, t, t
	}' >"$RULES"
}
# without BENCH_NICE, an empty line where its nice would be
bench_conf "$D/cgengined.conf" "$RULES" "name=${TAG}_a name=${TAG}_b" \
	"$D/control.sock" "$D/cgengined.pid" warning "${BENCH_NICE:+nice = $BENCH_NICE}"

start_daemon() { # NAME
	case $1 in
	cgengined) ${BENCH_SCHED:-} "$top/cgengined" -n -c "$D/cgengined.conf" -l "$D/cgengined.log" & DAEMON=$! ;;
	before) ${BENCH_SCHED:-} "$BENCH_BEFORE" -n -c "$D/cgengined.conf" -l "$D/cgengined.log" & DAEMON=$! ;;
	cgrulesengd) cgrulesengd -n -Q & DAEMON=$! ;;
	floor*)	mkdir -p "$D/a/bench" "$D/b/bench"
		case $1 in floor-r) fl=-r ;; floor-f) fl=-f ;; *) fl="" ;; esac
		"$B/floor" $fl -n "${BENCH_NICE:--10}" -u "$U" "$D/a/bench/cgroup.procs" "$D/b/bench/cgroup.procs" \
			>"$D/floor.out" & DAEMON=$! ;;
	esac
	# wait until it has loaded the rules (its CPU use settles)
	sleep 1
	i=0; while [ $i -lt 600 ]; do
		a=$(awk '{print $1}' /proc/$DAEMON/schedstat 2>/dev/null) || return 1
		sleep 0.5
		b=$(awk '{print $1}' /proc/$DAEMON/schedstat 2>/dev/null) || return 1
		[ $((b - a)) -lt 50000000 ] && return 0
		i=$((i + 1))
	done
}

# system calls and context switches of the daemon, counted by perf
# (linux-perf) while a storm runs; "-" without it
PERF=""
command -v perf >/dev/null 2>&1 &&
	perf stat -e raw_syscalls:sys_enter -x, -o /dev/null -- true >/dev/null 2>&1 && PERF=perf
perf_start() { # DAEMON-PID
	[ -n "$PERF" ] || return 0
	perf stat -e raw_syscalls:sys_enter,context-switches -x, -o "$D/perf" -p "$1" &
	PERF_PID=$!
	sleep 0.3 # attached
}
perf_stop() { # COUNT -> sets sc_per_exec cs_per_exec
	sc_per_exec=-; cs_per_exec=-
	[ -n "$PERF" ] || return 0
	kill -INT "$PERF_PID" 2>/dev/null; wait "$PERF_PID" 2>/dev/null
	sc_per_exec=$(awk -F, -v n="$1" '$3 == "raw_syscalls:sys_enter" { printf "%.1f", $1 / n }' "$D/perf")
	cs_per_exec=$(awk -F, -v n="$1" '$3 == "context-switches" { printf "%.1f", $1 / n }' "$D/perf")
}

# cgengined's own count of placement latency (kernel's time of the exec
# to the end of the classification), from its control socket
CTL=$top/cgenginectl
placed() { # -> "b0 b1 ... b6" (cumulative counts), or nothing
	{ [ "$1" = cgengined ] || [ "$1" = before ]; } && command -v jq >/dev/null 2>&1 || return 0
	"$CTL" -s "$D/control.sock" --json status 2>/dev/null | jq -r '.counters |
		[.placed_0_50us, .placed_50_100us, .placed_100_250us, .placed_250_500us,
		 .placed_500us_1ms, .placed_1_10ms, .placed_over_10ms] | map(tostring) | join(" ")'
}
# -> "PCT DP99": share placed within 1 ms, and the bucket holding the 99th percentile
placed_delta() { # BEFORE AFTER
	[ -n "$1" ] && [ -n "$2" ] || { echo "- -"; return; }
	echo "$1 $2" | awk '{ n = 0; for (i = 1; i <= 7; i++) { d[i] = $(i + 7) - $i; n += d[i] }
		if (n == 0) { print "- -"; exit }
		split("50us 100us 250us 500us 1ms 10ms >10ms", lim, " ")
		le1 = d[1] + d[2] + d[3] + d[4] + d[5]; c = 0
		for (i = 1; i <= 7; i++) { c += d[i]; if (c >= 0.99 * n) { p = lim[i]; break } }
		printf "%.1f <=%s\n", 100 * le1 / n, p }'
}

# LOAD: the 1-minute load average at the end of the row's storm (the
# storm itself adds to it: about its concurrency, less what waits)
printf '%-12s %7s %5s %6s %7s %8s %8s %8s %8s %10s %8s %9s %8s %8s %8s %5s\n' DAEMON RULES CONC COUNT CLASS% \
	P50_US P90_US P99_US MAX_US CPU_US/EXEC RSS_KIB SYSC/EXEC CSW/EXEC IN1MS% DP99 LOAD | tee "$D/table"
sizes=${BENCH_SIZES:-10 1000 100000}; concs=${BENCH_CONCS:-2 8 32}
rounds=${BENCH_ROUNDS:-1}; COUNT=${BENCH_COUNT:-2000}
[ "$QUICK" = "--quick" ] && { sizes="10"; concs="2"; }
row() { # DAEMON RULES CONC COUNT PCT P50 P90 P99 MAX CPU RSS SYSC CSW IN1MS DP99
	printf '%-12s %7s %5s %6s %7s %8s %8s %8s %8s %10s %8s %9s %8s %8s %8s %5s\n' "$@" \
		"$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$D/table"
	echo "$round $*" >>"$D/rows"
}
# No daemon, and probes that wait for the groups they start in.  Their
# "latency" is exec plus the probe's own start-up under the same storm:
# what no daemon can go below in this measurement.
round=0
for c in $concs; do
	r=$("$B/loadgen" -d $$ -u "$U" -g "$G" -n "$COUNT" -c "$c" -t 1000 \
		-p "$B/probe" "name=${TAG}_a=/" "name=${TAG}_b=/") || continue
	eval "$r"
	row "(no-daemon)" - "$c" "$count" "$pct" "$p50_us" "$p90_us" "$p99_us" "$max_us" - - - - - -
done
for n in $sizes; do
	write_rules "$n"
	round=0
	while [ $round -lt "$rounds" ]; do
	round=$((round + 1))
	for d in ${BENCH_DAEMONS:-floor floor-f before cgengined cgrulesengd}; do
		case $d in
		cgengined | floor*) ;;
		before) [ -x "${BENCH_BEFORE:-}" ] || continue ;;
		*) command -v "$d" >/dev/null 2>&1 || continue ;;
		esac
		# cgrulesengd scans its rules linearly: fewer probes for big files
		count=$COUNT
		[ "$d" = cgrulesengd ] && [ "$n" -ge 1000 ] && count=$((COUNT / 10))
		[ "$d" = cgrulesengd ] && [ "$n" -ge 100000 ] && count=$((COUNT / 50))
		[ "$QUICK" = "--quick" ] && count=200
		start_daemon "$d" || { echo "$d did not start" >&2; continue; }
		for c in $concs; do
			pl0=$(placed "$d")
			perf_start "$DAEMON"
			# floor-r moves nothing: its probes wait for the groups they start in
			want=/bench; [ "$d" = floor-r ] && want=/
			r=$("$B/loadgen" -d "$DAEMON" -u "$U" -g "$G" -n "$count" -c "$c" -t 1000 \
				-p "$B/probe" "name=${TAG}_a=$want" "name=${TAG}_b=$want")
			rc=$?
			perf_stop "$count"
			[ $rc -eq 0 ] || continue
			set -- $(placed_delta "$pl0" "$(placed "$d")")
			eval "$r" # sets count classified pct p50_us ... rss_kib
			row "$d" "$n" "$c" "$count" "$pct" "$p50_us" "$p90_us" "$p99_us" "$max_us" \
				"$cpu_us_per_exec" "$rss_kib" "$sc_per_exec" "$cs_per_exec" "$1" "$2"
		done
		stop_daemon
		sleep 0.5
	done
	done
done
echo
echo "ratios, CPU per exec and probe p99, within each round (same rules and concurrency):"
awk '{ k = $1 " " $3 " " $4; cpu[$2, k] = $11; p99[$2, k] = $9; keys[k] = 1 }
     function r(a, b) { return (a + 0 > 0 && b + 0 > 0) ? sprintf("x%.2f", a / b) : "-" }
     END { for (k in keys) { split(k, f, " ")
		if (!(("cgengined", k) in cpu)) continue
		e = "cgengined"
		printf "  round %s rules %-7s conc %-3s  cgengined/floor cpu %s p99 %s   cgengined/floor-f cpu %s p99 %s   before/floor cpu %s p99 %s   cgrulesengd/cgengined cpu %s p99 %s\n",
			f[1], f[2], f[3], r(cpu[e, k], cpu["floor", k]), r(p99[e, k], p99["floor", k]),
			r(cpu[e, k], cpu["floor-f", k]), r(p99[e, k], p99["floor-f", k]),
			r(cpu["before", k], cpu["floor", k]), r(p99["before", k], p99["floor", k]),
			r(cpu["cgrulesengd", k], cpu[e, k]), r(p99["cgrulesengd", k], p99[e, k]) } }' \
	"$D/rows" | sort -n -k4 -k6 -k2
echo
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r)"
echo "load average at the start: $LOAD0; at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cgengined's replay (bench/callgrind.sh):"
if [ -x "$B/replay" ] && command -v valgrind >/dev/null; then
	sh "$B/callgrind.sh" "$top" | sed 's/^/  /'
else
	echo "  (make bench/replay, and valgrind, for the deterministic figure)"
fi
echo "matcher alone:"
"$B/matchbench" 100000 | sed 's/^/  /'
if [ "${BENCH_SIDE:-1}" != 0 ] && [ "$QUICK" != "--quick" ]; then
	echo
	echo "side by side (bench/side.sh):"
	SIDE_BEFORE=${BENCH_BEFORE:-} sh "$B/side.sh"
fi
