#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/side.sh -- the daemons side by side: the floor (bench/floor),
# the floor with its socket filter, cgengined, and optionally an older
# cgengined to compare with, each placing the probes into two named
# hierarchies of its own, all running at once under the same storms.
# Every daemon sees the same events -- the storm's and whatever else the
# machine runs meanwhile -- so their CPU per exec compare even on a busy
# machine, where one daemon after the other would each meet another
# background.  The probes wait until all of them placed them.
#
# Run as root from a built tree:  sh bench/side.sh
# Optional (defaults in brackets):
#   SIDE_SIZES="10 1000"       rule counts [10 1000]
#   SIDE_CONCS="2 8"           concurrencies [2 8]
#   SIDE_COUNT=1000            spawns per storm [1000]
#   SIDE_ROUNDS=3              storms per rule count and concurrency [3]
#   SIDE_BEFORE=PATH           another cgengined binary, shown as "before"
#   SIDE_MORE="NAME=PATH ..."  more cgengined binaries, shown by NAME
#   SIDE_NICE=-10              every daemon's nice [-10, cgengined's default]
#   SIDE_ANANICY=DIR           two more cgengined with ananicy-dir = DIR
#                              (e.g. a corpus made by bench/ananicy-corpus.sh,
#                              whose names no real program has): "an-bpf"
#                              beside cgengined, "an-netlink" beside
#                              cg-netlink [none]
#   SIDE_NOISE=9000            execs no rule names (/bin/true as a second
#                              throwaway user) run beside each storm: 9000
#                              beside 1000 probes is "10 % of execs relevant" [0]
#   SIDE_BYNAME=1              the probes' rule names their program (a copy
#                              of bench/probe named after SIDE_TAG) instead
#                              of their user: no rule names a user or group,
#                              so the daemons need no credential [0]
#   SIDE_ONLY="floor cgengined"  only these of the daemons above run (the
#                              floor among them): fewer daemons moving the
#                              same probe at once, in fewer hierarchies
#                              [all]
#   SIDE_ROTATE=0              start the daemons once per rule count, in
#                              the order above, instead of again before
#                              each round with the daemons other than
#                              the floors rotated by one: where a daemon
#                              stands in that order moves its figure
#                              (bench/README.md: the one started first
#                              of two on BPF spent ~20 % less), so by
#                              default each stands in each place in
#                              turn [1]
#   SIDE_RECVONLY=1            one more floor, "floor-r", that wakes and
#                              decodes as the floor does but never writes
#                              (floor -r): the floor's cost without its two
#                              moves per probe, in this very storm (it
#                              batches a little more: fewer wake-ups) [0]
# cgengined runs on the BPF event source (event-source = bpf), cg-netlink
# is the same binary on the proc connector (event-source = netlink).
# KBPF_US is the BPF program's own CPU per probe in the kernel (its
# run_time_ns with kernel.bpf_stats_enabled, for the programs cgengined
# holds; needs bpftool and jq), beside the daemon's CPU_US/EXEC.
# P99_US is each daemon's own: the probes' exec to seeing themselves in
# both of that daemon's groups (they wait for all daemons; each daemon
# is timed by when its groups appeared).  OWN_P99 is each cgengined's own
# count, the bucket its 99th percentile falls in (from the kernel's exec
# event to the move: "<=250" means within 250 us), and IN1MS% its share
# of execs placed within 1 ms of the kernel's exec event (every exec on
# the machine, not only the probes'; needs jq).
# Safety: private named hierarchies and a throwaway user (and, with
# SIDE_BYNAME, the probes' program), all named after SIDE_TAG (default
# cgside) and this shell's pid, so a rule moves nothing else; daemons
# stopped by pid; everything removed again.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$top/bench
[ "$(id -u)" -eq 0 ] || { echo "bench/side.sh: run as root" >&2; exit 1; }
for f in "$top/cgengined" "$B/loadgen" "$B/probe" "$B/floor"; do
	[ -x "$f" ] || { echo "bench/side.sh: build first (make); $f missing" >&2; exit 1; }
done
TAG=${SIDE_TAG:-cgside}$$
D=$(mktemp -d "/tmp/cgengine-side.XXXXXX"); chmod 755 "$D"
NICE=${SIDE_NICE:--10}
NAMES="floor floor-f cgengined cg-netlink"
[ -n "${SIDE_BEFORE:-}" ] && NAMES="$NAMES before"
for m in ${SIDE_MORE:-}; do NAMES="$NAMES ${m%%=*}"; done
[ -n "${SIDE_ANANICY:-}" ] && NAMES="$NAMES an-bpf an-netlink"
[ "${SIDE_RECVONLY:-0}" = 1 ] && NAMES="$NAMES floor-r" # last: it places nothing
if [ -n "${SIDE_ONLY:-}" ]; then
	for o in $SIDE_ONLY; do
		case " $NAMES " in
		*" $o "*) ;;
		*) echo "bench/side.sh: SIDE_ONLY: no daemon \"$o\" in this run ($NAMES)" >&2; exit 1 ;;
		esac
	done
	case " $SIDE_ONLY " in
	*" floor "*) ;;
	*) echo "bench/side.sh: SIDE_ONLY must name the floor: every figure is over its" >&2; exit 1 ;;
	esac
	NAMES=$SIDE_ONLY
fi
PIDS=""

stop_all() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	PIDS=""
}
. "$(dirname "$0")/lib.sh" # bench_release, bench_conf
cleanup() {
	stop_all
	sleep 0.2
	for m in "$D"/h*; do
		[ -d "$m" ] || continue
		mountpoint -q "$m" && bench_release "$m" "${TAG}_${m##*/h}"
	done
	userdel "$TAG" 2>/dev/null; groupdel "$TAG" 2>/dev/null
	userdel "${TAG}n" 2>/dev/null; groupdel "${TAG}n" 2>/dev/null
	[ -n "${STATS0:-}" ] && sysctl -q kernel.bpf_stats_enabled="$STATS0"
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

useradd --system --no-create-home --user-group "$TAG" || exit 1
PROBE=$B/probe
if [ "${SIDE_BYNAME:-0}" = 1 ]; then # a name no other program has
	PROBE=$D/${TAG}p
	cp "$B/probe" "$PROBE" || exit 1
fi
U=$(id -u "$TAG"); G=$(id -g "$TAG")
useradd --system --no-create-home --user-group "${TAG}n" || exit 1
STATS0=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null) &&
	sysctl -q kernel.bpf_stats_enabled=1
i=0
for d in $NAMES; do # two hierarchies per daemon: h<i>a, h<i>b
	i=$((i + 1))
	for h in a b; do
		mkdir -p "$D/h$i$h"
		mount -t cgroup -o "none,name=${TAG}_$i$h" cgroup "$D/h$i$h" || exit 1
		mkdir "$D/h$i$h/bench"
	done
done

start_all() { # RULES
	i=0; WANT=""
	for d in $NAMES; do
		i=$((i + 1))
		[ "$d" = floor-r ] || WANT="$WANT name=${TAG}_${i}a=/bench name=${TAG}_${i}b=/bench"
		case $d in
		floor | floor-f | floor-r)
			fl=""; [ "$d" = floor-f ] && fl=-f; [ "$d" = floor-r ] && fl=-r
			"$B/floor" $fl -n "$NICE" -u "$U" "$D/h${i}a/bench/cgroup.procs" \
				"$D/h${i}b/bench/cgroup.procs" >/dev/null &
			;;
		*)
			key=$TAG; [ "$PROBE" = "$B/probe" ] || key="*:${PROBE##*/}"
			awk -v n="$1" -v t="${TAG}_$i" -v u="$key" 'BEGIN {
				for (k = 0; k < n - 1; k++) printf "*:benchprog%d name=%sa /other%d\n", k, t, k
				printf "%s name=%sa,name=%sb /bench\n", u, t, t }' >"$D/$i.rules"
			bench_conf "$D/$i.conf" "$D/$i.rules" "name=${TAG}_${i}a name=${TAG}_${i}b" \
				"$D/$i.sock" "$D/$i.pid" warning "nice = $NICE" \
				"event-source = \"$(case $d in *netlink) echo netlink ;; *) echo bpf ;; esac)\""
			case $d in an-*) echo "ananicy-dir = \"$SIDE_ANANICY\"" >>"$D/$i.conf" ;; esac
			bin=$top/cgengined; [ "$d" = before ] && bin=$SIDE_BEFORE
			for m in ${SIDE_MORE:-}; do [ "$d" = "${m%%=*}" ] && bin=${m#*=}; done
			"$bin" -n -c "$D/$i.conf" -l "$D/$i.log" &
			;;
		esac
		PIDS="$PIDS $!"
	done
	sleep 2
}
# each daemon's CPU (ns) and sleeps: all its threads (cgengined reads
# command lines in worker threads)
cpu() { for p in $PIDS; do cat /proc/"$p"/task/*/schedstat | awk '{ t += $1 } END { printf "%.0f ", t }'; done; }
# the BPF programs' run time in the kernel (ns), per daemon: those it
# holds a descriptor of (prog_id in /proc/PID/fdinfo); "-" without
# bpftool or jq
kbpf() {
	for p in $PIDS; do
		command -v bpftool >/dev/null && command -v jq >/dev/null || { printf -- '- '; continue; }
		t=0
		for id in $(cat /proc/"$p"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -u); do
			ns=$(bpftool -j prog show id "$id" 2>/dev/null | jq -r '.run_time_ns // 0')
			t=$((t + ${ns:-0}))
		done
		printf '%s ' "$t"
	done
}
# SIDE_NOISE execs of /bin/true as the second user, in the background
noise() {
	[ "${SIDE_NOISE:-0}" -gt 0 ] || return 0
	setpriv --reuid="${TAG}n" --regid="${TAG}n" --clear-groups sh -c \
		"i=0; while [ \$i -lt ${SIDE_NOISE} ]; do /bin/true; i=\$((i+1)); done" &
	NOISE=$!
}
# each cgengined's own count of placement latency (its placed_* counters,
# from the kernel's exec event to the move): the seven buckets, comma
# separated, per daemon; "-" for the floors
placed() {
	i=0
	for d in $NAMES; do
		i=$((i + 1))
		case $d in
		floor*) printf -- '- ' ;;
		*) "$top/cgenginectl" -s "$D/$i.sock" --json status 2>/dev/null | jq -r '.counters |
			"\(.placed_0_50us),\(.placed_50_100us),\(.placed_100_250us),\(.placed_250_500us),\(.placed_500us_1ms),\(.placed_1_10ms),\(.placed_over_10ms)"' | tr '\n' ' ' ;;
		esac
	done
}
sleeps() { for p in $PIDS; do cat /proc/"$p"/task/*/status | awk '/^voluntary_ctxt_switches/ { n += $2 } END { printf "%.0f ", n }'; done; }

printf '%-10s %6s %4s %5s %5s %11s %10s %7s %7s %9s %7s %8s %5s %8s\n' DAEMON RULES CONC ROUND COUNT \
	CPU_US/EXEC WAKES/EXEC xFLOOR xFLOOR-F P99_US IN1MS% OWN_P99 LOAD KBPF_US | tee "$D/table"
# The daemons other than the floors one place on (the first goes last),
# the floors where they are: floor and floor-f first, floor-r last.
rotate() {
	first=""; rest=""; last=""; head=""
	for d in $NAMES; do
		case $d in
		floor | floor-f) first="$first $d" ;;
		floor-r) last=" floor-r" ;;
		*) if [ -z "$head" ]; then head=$d; else rest="$rest $d"; fi ;;
		esac
	done
	NAMES=$(echo $first $rest $head $last)
}
for n in ${SIDE_SIZES:-10 1000}; do
	start_all "$n"
	for c in ${SIDE_CONCS:-2 8}; do
		for r in $(seq "${SIDE_ROUNDS:-3}"); do
			if [ "${SIDE_ROTATE:-1}" = 1 ] && [ "$r" -gt 1 ]; then
				stop_all
				rotate
				start_all "$n"
			fi
			c0=$(cpu); s0=$(sleeps); l0=$(placed); k0=$(kbpf); NOISE=""
			noise
			out=$("$B/loadgen" -d $$ -u "$U" -g "$G" -n "${SIDE_COUNT:-1000}" -c "$c" -t 2000 \
				-k 2 -p "$PROBE" $WANT) || continue
			[ -n "$NOISE" ] && wait "$NOISE"
			c1=$(cpu); s1=$(sleeps); l1=$(placed); k1=$(kbpf)
			eval "$out"
			echo "$NAMES|$c0|$c1|$s0|$s1|$l0|$l1|$k0|$k1" | awk -F'|' -v n="$count" -v r="$r" -v c="$c" \
				-v rules="$n" -v p99="$group_p99_us" -v load="$(cut -d' ' -f1 /proc/loadavg)" '{
				k = split($1, nm, " "); split($2, a, " "); split($3, b, " ")
				split($4, x, " "); split($5, y, " "); split($6, p0, " "); split($7, p1, " ")
				split($8, kb0, " "); split($9, kb1, " ")
				split(p99, q, ",")
				split("<=50 <=100 <=250 <=500 <=1000 <=10000 >10000", bound, " ")
				for (i = 1; i <= k; i++) { cpu[nm[i]] = (b[i] - a[i]) / 1000 / n; wk[nm[i]] = (y[i] - x[i]) / n
					in1[nm[i]] = "-"; own[nm[i]] = "-"
					if (p0[i] != "-" && split(p0[i], u, ",") == 7 && split(p1[i], v, ",") == 7) {
						all = 0; for (j = 1; j <= 7; j++) { dl[j] = v[j] - u[j]; all += dl[j] }
						if (all > 0) {
							in1[nm[i]] = sprintf("%.1f", 100 * (all - dl[6] - dl[7]) / all)
							cum = 0; for (j = 1; j <= 7; j++) { cum += dl[j]; if (cum >= 0.99 * all) break }
							own[nm[i]] = bound[j > 7 ? 7 : j] } } }
				for (i = 1; i <= k; i++)
					printf "%-10s %6s %4s %5s %5s %11.1f %10.2f %7.2f %7.2f %9s %7s %8s %5s %8s\n", nm[i], rules, c,
						r, n, cpu[nm[i]], wk[nm[i]], cpu[nm[i]] / cpu["floor"], (cpu["floor-f"] > 0 ? cpu[nm[i]] / cpu["floor-f"] : 0),
						(i in q && q[i] != "" ? q[i] : "-"), in1[nm[i]], own[nm[i]], load,
						kb0[i] == "-" || kb1[i] - kb0[i] == 0 ? "-" : sprintf("%.2f", (kb1[i] - kb0[i]) / 1000 / n) }' | tee -a "$D/table"
		done
	done
	stop_all
done
echo
echo "medians over the rounds: CPU per exec over the floor's (over the filtered floor's), wake-ups per exec, p99 placed (probes), placed within 1 ms (own count), and each round's own p99 bucket:"
awk 'NR > 1 { k = $1 " rules " $2 " conc " $3; n[k]++; f[k, n[k]] = $8; g[k, n[k]] = $9; w[k, n[k]] = $7
	      h[k, n[k]] = $11; q[k, n[k]] = $10; o[k] = o[k] (o[k] == "" ? "" : " ") $12 }
     function med(arr, k, m,   i, j, t, v) { for (i = 1; i <= m; i++) v[i] = arr[k, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
     END { for (k in n) printf "  %-32s x%.2f (x%.2f)  %.2f wake-ups  p99 %d us  %s\n", k, med(f, k, n[k]),
		med(g, k, n[k]), med(w, k, n[k]), med(q, k, n[k]),
		h[k, 1] == "-" ? "" : sprintf("%.1f%% within 1 ms, p99 %s", med(h, k, n[k]), o[k]) }' "$D/table" | sort
echo "machine: $(nproc) cores, kernel $(uname -r); load average now $(cut -d' ' -f1-3 /proc/loadavg)"
