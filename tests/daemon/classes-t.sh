#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ananicy-type-hierarchy on the test's own programs only, in a private
# sub-tree of cgroup2 (a dimension of the unified layout): each ananicy
# type is a group whose cpu.weight follows the type's nice and io.weight
# its I/O level (read back when the sub-tree is offered the cpu and io
# controllers, else the daemon's attempt read from its log; the unit
# test engined/core/ananicy-t reads them back everywhere); a game and a compiler go to their types' classes and
# still get their priorities; cgrules.conf's class decides first; a
# program no rule names stays where it was; explain names the rule's
# and the type's lines; test --cmdline answers for a name not running.
# Every rule names a $TAG program: the daemon moves and reprioritises no
# other process of the machine.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
command -v bash >/dev/null || skip_all "needs bash"
mount_hier cls; MANAGED="cls"
v2_subtree "cgetest_cls_$$" || skip_all "no cgroup2 mount"
plan 15

add_user "${TAG}clsu"
program "${TAG}clsgame"
program "${TAG}clscc"
program "${TAG}clsadmin"
program "${TAG}clsother"

A="$T/ananicy.d"
mkdir -p "$A/00-default/Games"
cat >"$A/00-types.types" <<'EOF'
{ "type": "Game", "nice": -5, "ioclass": "best-effort", "sched": "normal" }
{ "type": "Heavy_CPU", "nice": 9, "ioclass": "best-effort", "ionice": 7 }
EOF
RULES="$A/00-default/Games/cls.rules"
cat >"$RULES" <<EOF
{ "name": "${TAG}clsgame", "type": "Game" }
{ "name": "${TAG}clscc", "type": "Heavy_CPU" }
{ "name": "${TAG}clsadmin", "type": "Game" }
EOF
cat >"$T/cgrules.conf" <<EOF
*:${TAG}clsadmin classes /admin
EOF
write_config "ananicy-dir = \"$A\"
ananicy-type-hierarchy = \"classes\"
unified-layout = {\"classes\"}
backend = \"cgroupfs\"
unified-root = \"/$SUB\""
CTL="$BUILDDIR/cgenginectl"; SOCK="$T/control.sock"
ctl() { "$CTL" -s "$SOCK" "$@"; }

out=$("$CGENGINED" --check -c "$T/cgengined.conf" 2>&1)
ok "--check reads the configuration" grep -qF "$A: 3 ananicy rules, 2 types, 0 cgroups, 0 lines skipped: OK" <<EOF
$out
EOF

v2_of() { sed -n 's/^0::\(.*\)$/\1/p' "/proc/$1/cgroup"; }
in_v2() { [ "$(v2_of "$1")" = "$2" ]; }
nice_of() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f17; }

daemon_start || bail "daemon"
# a program no rule names, started first: once a later one is in its
# class, the daemon has handled this one's exec too
run_as "${TAG}clsu" "$T/bin/${TAG}clsother" 300; o=$LAST
o_v2=$(v2_of "$o") o_nice=$(nice_of "$o")

run_as "${TAG}clsu" "$T/bin/${TAG}clsgame" 300; g=$LAST
run_as "${TAG}clsu" "$T/bin/${TAG}clscc" 300; cc=$LAST
run_as "${TAG}clsu" "$T/bin/${TAG}clsadmin" 300; ad=$LAST
wait_until 30 in_v2 "$g" "/$SUB/Game"
is "/$SUB/Game" "$(v2_of "$g")" "a game goes to its type's class"
wait_until 30 in_v2 "$cc" "/$SUB/Heavy_CPU"
is "/$SUB/Heavy_CPU" "$(v2_of "$cc")" "a compiler goes to its type's class"
is -5 "$(nice_of "$g")" "the game still gets its type's nice"
is 9 "$(nice_of "$cc")" "and the compiler its"
wait_until 30 in_v2 "$ad" "/$SUB/admin"
is "/$SUB/admin" "$(v2_of "$ad")" "cgrules.conf's class decides first"
is "$o_v2" "$(v2_of "$o")" "a program no rule names stays where it was"
is "$o_nice" "$(nice_of "$o")" "and keeps its nice"

# without the controller in the sub-tree the file is missing: the daemon
# says which value it could not write, once, when it made the group
tried() {
	is 1 "$(grep -c "cannot set $1 on unified:/$SUB/$2: No such file or directory" \
		"$T/daemon.log")" "$3 (no such file here: tried once)"
}
if grep -qw cpu "$V2/$SUB/cgroup.controllers"; then
	is 305 "$(cat "$V2/$SUB/Game/cpu.weight")" "Game: cpu.weight of nice -5"
	is 13 "$(cat "$V2/$SUB/Heavy_CPU/cpu.weight")" "Heavy_CPU: cpu.weight of nice 9"
else
	tried cpu.weight=305 Game "Game: cpu.weight of nice -5"
	tried cpu.weight=13 Heavy_CPU "Heavy_CPU: cpu.weight of nice 9"
fi
if [ -e "$V2/$SUB/Game/io.weight" ]; then
	is "default 200" "$(head -n 1 "$V2/$SUB/Game/io.weight")" "Game: io.weight of best-effort 0"
	is "default 25" "$(head -n 1 "$V2/$SUB/Heavy_CPU/io.weight")" \
		"Heavy_CPU: io.weight of best-effort 7"
else
	tried io.weight=200 Game "Game: io.weight of best-effort 0"
	tried io.weight=25 Heavy_CPU "Heavy_CPU: io.weight of best-effort 7"
fi

ex=$(ctl explain "$g")
ok "explain names the class, the rule's line and the type's" \
	grep -qF "$RULES:1, the class of type Game ($A/00-types.types:1)" <<EOF
$ex
EOF
ok "test --cmdline answers for a name not running" \
	sh -c '"$0" -s "$1" test --user root --cmdline "$2" | grep -qF "$3"' \
	"$CTL" "$SOCK" "/x/${TAG}clscc" "$RULES:2, the class of type Heavy_CPU"
ok "the daemon is still running" kill -0 "$DAEMON_PID"
daemon_stop
stop_kids
done_testing
