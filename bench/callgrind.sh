#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/callgrind.sh -- deterministic cost of one classified exec: the
# instructions (user space, counted by callgrind) and the system calls
# the daemon's core spends on the fixed replay of bench/replay.c, for
# 10, 1,000 and 100,000 rules, and at 10 rules none of which matches
# (the process no rule is about); and the same on the eBPF event source
# (rows "-bpf": each EXEC carries the BPF program's record, so the core
# reads no status or exe link).  No root needed.
#
# LINES/EXEC is the memory one classified exec touches, in 64-byte
# lines: the misses of a simulated 16 KiB cache (callgrind's cache
# simulation, code and data), which holds little of one exec's work
# from the exec before.  A daemon woken once per exec in a storm starts
# with caches the storm has filled with its own, so each line it touches
# is a miss to the next level; the instruction count does not tell that.
#
#   sh bench/callgrind.sh [BUILDDIR [EXECS]]
#
# Build first: make bench/replay (it is built by make check too).
# The replay's cgroupfs only counts moves, so add one write(2) per
# hierarchy moved for the real daemon (the replay moves on every exec,
# into one hierarchy), plus its wake-ups (epoll_wait, recvmmsg).
set -u
B=${1:-.}
E=${2:-2000}
R=$B/bench/replay
[ -x "$R" ] || { echo "callgrind.sh: $R missing (make bench/replay)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind missing" >&2; exit 1; }
T=$(mktemp -d /tmp/cgengine-callgrind.XXXXXX)
trap 'rm -rf "$T"' EXIT

printf '%-8s %8s %10s %12s %11s %14s\n' RULES EXECS CLASSIFIED INSTR/EXEC LINES/EXEC SYSCALLS/EXEC
measure() { # RULES MATCH LABEL [SOURCE]
	n=$1
	src=${4:-netlink}
	out=$(valgrind --tool=callgrind --collect-atstart=no --toggle-collect=replay_run \
		--cache-sim=yes --I1=4096,2,64 --D1=4096,2,64 --LL=16384,2,64 \
		--callgrind-out-file="$T/cg.out" "$R" "$n" "$E" 1000 1 "$2" "$src" 2>"$T/vg.err") ||
		{ cat "$T/vg.err" >&2; exit 1; }
	cls=$(echo "$out" | sed -n 's/.*classified=\([0-9]*\).*/\1/p')
	# the events line names the summary's columns: Ir, and the last
	# level's misses (instruction fetches, data reads, data writes)
	v=$(awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i }
		/^(summary|totals):/ { print $(col["Ir"]), $(col["ILmr"]) + $(col["DLmr"]) + $(col["DLmw"]); exit }' "$T/cg.out")
	ir=${v% *} lines=${v#* }
	# system calls: the difference between EXECS and 2*EXECS spawns, so
	# set-up (fixture, rules, the first scan) cancels out
	sc=""
	if command -v strace >/dev/null; then
		strace -f -qq -o "$T/s1" "$R" "$n" "$E" 1000 1 "$2" "$src" >/dev/null 2>&1
		strace -f -qq -o "$T/s2" "$R" "$n" $((E * 2)) 1000 1 "$2" "$src" >/dev/null 2>&1
		a=$(grep -vc 'exited with\|killed by' "$T/s1"); b=$(grep -vc 'exited with\|killed by' "$T/s2")
		sc=$(awk -v a="$a" -v b="$b" -v e="$E" 'BEGIN { printf "%.2f", (b - a) / e }')
		if [ "$3" = 10 ] || [ "$3" = 10-bpf ]; then
			sed 's/^[0-9]* *//; s/(.*//' "$T/s1" | sort | uniq -c >"$T/c1"
			sed 's/^[0-9]* *//; s/(.*//' "$T/s2" | sort | uniq -c >"$T/c2"
			bd=$(join -1 2 -2 2 -a 2 -e 0 -o 0,1.1,2.1 \
				"$(sort -k2 "$T/c1" >"$T/c1s"; echo "$T/c1s")" \
				"$(sort -k2 "$T/c2" >"$T/c2s"; echo "$T/c2s")" |
				awk -v e="$E" '{ d = ($3 - $2) / e; if (d > 0.001) printf "  %-16s %.2f\n", $1, d }')
			if [ "$3" = 10 ]; then breakdown=$bd; else breakdown_bpf=$bd; fi
		fi
	fi
	awk -v n="$3" -v e="$E" -v c="$cls" -v ir="$ir" -v li="$lines" -v sc="$sc" \
		'BEGIN { printf "%-8s %8s %10s %12.0f %11.0f %14s\n", n, e, c, (e > 0 ? ir / e : 0),
			 (e > 0 ? li / e : 0), sc }'
}
for n in 10 1000 100000; do
	measure "$n" 1 "$n"
done
measure 10 0 "10-none"
for n in 10 1000 100000; do
	measure "$n" 1 "$n-bpf" bpf
done
[ -n "${breakdown:-}" ] && { echo "system calls per exec by name (10 rules):"; echo "$breakdown"; }
[ -n "${breakdown_bpf:-}" ] && { echo "... on the eBPF event source:"; echo "$breakdown_bpf"; }
exit 0
