#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# corpus-t.sh -- replay every checked-in fuzz corpus (tests/fuzz/TARGET/)
# through its target once.  In a plain or sanitizer build the targets
# have replay.c's main(); in a --enable-fuzzers build, libFuzzer's main()
# runs the files given to it the same way.  Any crash or broken
# invariant aborts the target and fails its test.
. "$SRCDIR/tests/tap/tap.sh"

targets="rules config procev control lua statefile ananicy"
set -- $targets
plan $#
for t in $targets; do
	bin="$BUILDDIR/tests/fuzz/fuzz-$t"
	out="$BUILDDIR/tests/fuzz/corpus-$t.out"
	if "$bin" "$SRCDIR"/tests/fuzz/"$t"/* >"$out" 2>&1; then
		_tap_result 0 "fuzz-$t replays its corpus ($(ls "$SRCDIR/tests/fuzz/$t" | wc -l) inputs)"
	else
		_tap_result 1 "fuzz-$t replays its corpus"
		sed -n '1,40p' "$out" >&2
	fi
done
done_testing
