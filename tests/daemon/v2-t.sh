#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The cgroup v2 tree, managed only when listed ("unified"), on a
# private sub-tree of the existing cgroup2 mount: a rule naming
# "unified" moves a program of the test's into it.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
v2_subtree "cgetest_$$" || skip_all "no cgroup2 mount"
plan 6
program "${TAG}job"
echo "*:${TAG}job unified /$SUB/jobs" >"$T/cgrules.conf"
MANAGED=""
write_config
sed -i 's|^hierarchies = .*|hierarchies = {"unified"}|' "$T/cgengined.conf"
daemon_start || bail "daemon"
ok "the v2 tree is managed as 'unified'" grep -q "managing unified at $V2" "$T/daemon.log"
start "$T/bin/${TAG}job" 300; j=$LAST
v2_of() { sed -n 's/^0::\(.*\)$/\1/p' "/proc/$1/cgroup"; }
in_v2() { [ "$(v2_of "$1")" = "$2" ]; }
wait_until 30 in_v2 "$j" "/$SUB/jobs"
is "/$SUB/jobs" "$(v2_of "$j")" "a rule naming 'unified' moves the program into the v2 group"
ok "the group was created on demand" test -d "$V2/$SUB/jobs"
ok "the move is logged as unified" grep -q "moved pid $j (${TAG}job) to unified:/$SUB/jobs" "$T/daemon.log"
ok "explain shows it" sh -c "'$BUILDDIR/cgenginectl' -s '$T/control.sock' explain $j | grep -q '^unified *\/$SUB\/jobs *\/$SUB\/jobs'"
ok "nothing else was moved" test "$(grep -c '^.*moved pid' "$T/daemon.log")" -eq 1
done_testing
