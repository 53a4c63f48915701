#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/replay (the deterministic figure of bench/callgrind.sh) drives
# the daemon's core over the unit tests' fixture, without root: each
# spawn of bench/loadgen (FORK, GID, UID, EXEC, EXIT, one wake-up per
# event) is classified once, after its exec, and moved once.
: "${SRCDIR:=.}" "${BUILDDIR:=.}"
. "$SRCDIR/tests/tap/tap.sh"
plan 5
out=$("$BUILDDIR/bench/replay" 10 300)
is 0 "$?" "the replay runs"
is "execs=300 classified=300 moves=300" "$out" "every spawn is classified once and moved once"
out=$("$BUILDDIR/bench/replay" 1000 300 20)
is "execs=300 classified=300 moves=300" "$out" "with 1,000 rules and 20 pids reused too"
out=$("$BUILDDIR/bench/replay" 10 300 1000 1 0)
is "execs=300 classified=300 moves=0" "$out" "with no rule matching: classified, not moved"
out=$("$BUILDDIR/bench/replay" 10 300 1000 1 1 bpf)
is "execs=300 classified=300 moves=300" "$out" "with the BPF program's records"
done_testing
