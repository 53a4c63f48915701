#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/ananicy.sh -- ananicy-cpp's rules in cgengined, no root needed:
#  1. loading a synthetic corpus of 16,000 rules of the real one's shape
#     (bench/ananicy-corpus.sh) -- and CORPUS too when given, e.g. a
#     checkout of CachyOS's ananicy-rules -- time and memory (ananicybench);
#  2. the core's cost per exec on bench/replay.c's fixed replay with the
#     synthetic corpus loaded and without (callgrind: instructions; strace:
#     system calls), at 10 and 1,000 cgrules.conf rules.
#
#   sh bench/ananicy.sh [BUILDDIR [CORPUS]]
#
# Build first: make bench/ananicybench bench/replay.
set -u
B=${1:-.}
CORPUS=${2:-}
S=$(dirname "$0")
E=2000
for p in bench/ananicybench bench/replay; do
	[ -x "$B/$p" ] || { echo "ananicy.sh: $B/$p missing (make $p)" >&2; exit 1; }
done
T=$(mktemp -d /tmp/cgengine-ananicy.XXXXXX)
trap 'rm -rf "$T"' EXIT
sh "$S/ananicy-corpus.sh" "$T/synthetic" 16000

echo "== loading (best and median of 20 loads; set_kib: resident memory of one set)"
echo "-- synthetic, 16000 rules"
"$B/bench/ananicybench" "$T/synthetic" 20
if [ -n "$CORPUS" ]; then
	echo "-- $CORPUS"
	"$B/bench/ananicybench" "$CORPUS" 20
fi

command -v valgrind >/dev/null || { echo "ananicy.sh: valgrind missing: no per-exec figures" >&2; exit 0; }
echo "== per exec (bench/replay, $E execs; the replay's processes have no rule)"
printf '%-8s %-10s %12s %14s\n' RULES ANANICY INSTR/EXEC SYSCALLS/EXEC
per_exec() { # RULES LABEL CONFIG
	out=$(REPLAY_CONFIG=$3 valgrind --tool=callgrind --collect-atstart=no \
		--toggle-collect=replay_run --callgrind-out-file="$T/cg.out" \
		"$B/bench/replay" "$1" "$E" 1000 1 1 2>"$T/vg.err") || { cat "$T/vg.err" >&2; exit 1; }
	ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$T/cg.out")
	sc=""
	if command -v strace >/dev/null; then
		REPLAY_CONFIG=$3 strace -f -qq -o "$T/s1" "$B/bench/replay" "$1" "$E" 1000 1 1 \
			>/dev/null 2>&1
		REPLAY_CONFIG=$3 strace -f -qq -o "$T/s2" "$B/bench/replay" "$1" $((E * 2)) 1000 1 1 \
			>/dev/null 2>&1
		a=$(wc -l <"$T/s1"); b=$(wc -l <"$T/s2")
		sc=$(awk -v a="$a" -v b="$b" -v e="$E" 'BEGIN { printf "%.2f", (b - a) / e }')
	fi
	awk -v n="$1" -v l="$2" -v e="$E" -v ir="$ir" -v sc="$sc" \
		'BEGIN { printf "%-8s %-10s %12.0f %14s\n", n, l, ir / e, sc }'
}
for n in 10 1000; do
	per_exec "$n" none ""
	per_exec "$n" 16k "ananicy-dir = \"$T/synthetic\""
done
