#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/scalebench (the scaling figures of bench/README.md) runs without
# root and does what it says: every boost started, every group's id back
# in the flushed set, the sync in more than one step.  Not timed.
: "${SRCDIR:=.}" "${BUILDDIR:=.}"
. "$SRCDIR/tests/tap/tap.sh"
plan 4
out=$("$BUILDDIR/bench/scalebench" boosts 50 2>/dev/null)
is 0 "$?" "the boost bench runs"
ok "50 boosts started and measured" sh -c "echo '$out' | grep -q '^boosts  *50 .* yes\$'"
out=$("$BUILDDIR/bench/scalebench" nft 600 2>/dev/null)
ok "600 group ids back in the flushed set" sh -c "echo '$out' | grep -q '^nft  *600 .* yes\$'"
calls=$(echo "$out" | awk '$1 == "nft" { print $5 }')
ok "the sync took more than one call ($calls)" test "${calls:-0}" -gt 1
done_testing
