#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh -- build the fuzz targets with clang, libFuzzer, ASan and UBSan
# and run each for a bounded time; fails if any target crashes, leaks,
# breaks an invariant, times out or runs out of memory.
#
# Usage: tests/fuzz/run.sh [SECONDS [TARGET...]]
#   SECONDS  per target (default 60); TARGET: rules config procev
#            control lua statefile ananicy (default: all)
# Environment:
#   FUZZ_BUILDDIR  build directory (default: build-fuzz in the source tree)
#   FUZZ_WORKDIR   corpora, logs and crash files (default: $FUZZ_BUILDDIR/fuzz-work)
#   FUZZ_JOBS      targets run at the same time (default 1)
#   FUZZ_CONFIGURE more configure options (e.g. --enable-werror)
# Needs the Debian packages clang and libclang-rt-14-dev.
set -u
secs=${1:-60}
[ $# -gt 0 ] && shift
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILDDIR:-$top/build-fuzz}
work=${FUZZ_WORKDIR:-$build/fuzz-work}
jobs=${FUZZ_JOBS:-1}
targets=${*:-rules config procev control lua statefile ananicy}

[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi) || exit 1
if [ ! -f "$build/Makefile" ]; then
	mkdir -p "$build" &&
		(cd "$build" && "$top/configure" -q CC=clang --enable-fuzzers ${FUZZ_CONFIGURE:-}) ||
		exit 1
fi
bins=""
for t in $targets; do bins="$bins tests/fuzz/fuzz-$t"; done
(cd "$build" && make -j2 $bins >"$build/fuzz-build.log" 2>&1) ||
	{ tail -40 "$build/fuzz-build.log"; echo "fuzz: build failed"; exit 1; }

# LSan: libraries outside this tree that leak on their own error paths
LSAN_OPTIONS="suppressions=$top/tests/fuzz/lsan.supp:print_suppressions=0"
export LSAN_OPTIONS

run_one() { # $1 = target; writes $work/$1/{log,rc}
	d="$work/$1"
	mkdir -p "$d/corpus" "$d/artifacts"
	dict=""
	[ -f "$top/tests/fuzz/$1.dict" ] && dict="-dict=$top/tests/fuzz/$1.dict"
	"$build/tests/fuzz/fuzz-$1" $dict -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$d/artifacts/" "$d/corpus" "$top/tests/fuzz/$1" \
		>"$d/log" 2>&1
	echo $? >"$d/rc"
}

set -- $targets
while [ $# -gt 0 ]; do
	pids=""
	n=0
	while [ $# -gt 0 ] && [ $n -lt "$jobs" ]; do
		echo "fuzz: $1 for ${secs}s"
		run_one "$1" &
		pids="$pids $!"
		n=$((n + 1))
		shift
	done
	for p in $pids; do wait "$p"; done
done

status=0
for t in $targets; do
	rc=$(cat "$work/$t/rc" 2>/dev/null || echo 99)
	last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$work/$t/log" | tail -1)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log")
	if [ "$rc" -eq 0 ]; then
		echo "fuzz-$t: ok, ${runs:-?} runs; $last"
	else
		echo "fuzz-$t: FAILED (exit $rc); log $work/$t/log, inputs in $work/$t/artifacts/"
		grep -E 'ERROR|SUMMARY|invariant|runtime error' "$work/$t/log" | head -10
		status=1
	fi
done
exit $status
