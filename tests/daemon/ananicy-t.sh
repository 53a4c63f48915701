#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ananicy-cpp's rules (ananicy-dir) on the test's own programs only: a
# small tree in ananicy's format (types, a cgroups file, rules in
# directories named with spaces and '&', a name longer than 15 bytes, a
# name with spaces, a Wine-style argv[0] with backslashes, a malformed
# line); nice, I/O priority, policy and oom_score_adj read back from
# /proc, ionice and chrt; a program no rule names is untouched;
# cgrules.conf's class decides first; explain names the ananicy file and
# line; --check lists the malformed line and counts; a reload reads an
# edited file; with ananicy-cgroup-hierarchy a type's cgroup places its
# programs in the test's named hierarchy (no cpu controller: no quota,
# said once) where cgrules.conf placed them nowhere, and in a private
# sub-tree of cgroup2 (the unified layout) with its cpu.max when that
# sub-tree is offered the cpu controller.  Every rule names a $TAG
# program: the daemon gives no other process of the machine anything.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
command -v ionice >/dev/null || skip_all "needs ionice"
command -v chrt >/dev/null || skip_all "needs chrt"
command -v bash >/dev/null || skip_all "needs bash (exec -a)"
plan 29

mount_hier cls; MANAGED="cls"
CLS="name=${TAG}cls"
add_user "${TAG}u"
LONG="${TAG}_a_long_game_name"	# over comm's 15 bytes
SPACED="${TAG} Spaced Game.exe"
program "$LONG"
program "$SPACED"
program "${TAG}wine"		# started with argv[0] C:\Games\$TAG Wine.exe
program "${TAG}rt"
program "${TAG}classed"
program "${TAG}other"

A="$T/ananicy.d"
mkdir -p "$A/00-default/Games/wine & proton" "$A/00-default/Games/linux native"
cat >"$A/00-types.types" <<'EOF'
# types as ananicy-rules writes them
{ "type": "Game", "nice": -5, "ioclass": "best-effort", "sched": "normal", "cgroup": "cpu80" }
{ "type": "BG_CPUIO", "nice": 16, "ioclass": "idle", "sched": "idle" }
{ "type": "OOM_NO_KILL", "oom_score_adj": -1000 }
EOF
cat >"$A/00-cgroups.cgroups" <<'EOF'
{ "cgroup": "cpu80", "CPUQuota": 80 }
EOF
cat >"$A/00-default/Games/linux native/native.rules" <<EOF
{ "name": "$LONG", "type": "Game" }
{ "name": "${TAG}rt", "sched": "fifo", "oom_score_adj": 300 }
{ "name": "${TAG}classed", "type": "Game", "oom_score_adj": 600 }
{ "name": "${TAG}broken", "type": "Game"
EOF
cat >"$A/00-default/Games/wine & proton/wine.rules" <<EOF
{ "name": "$SPACED", "type": "BG_CPUIO", "oom_score_adj": 700 }
{ "name": "${TAG} Wine.exe", "type": "Game", "ionice": 3 }
EOF
WINE_RULES="$A/00-default/Games/wine & proton/wine.rules"

cat >"$T/cgrules.conf" <<EOF
*:${TAG}classed $CLS /classed
EOF
write_config "ananicy-dir = \"$A\"
ananicy-cgroup-hierarchy = \"$CLS\"
group \"$CLS:/classed\" {
    process = {\"nice=3\"}
}"
CTL="$BUILDDIR/cgenginectl"; SOCK="$T/control.sock"
ctl() { "$CTL" -s "$SOCK" "$@"; }

out=$("$CGENGINED" --check -c "$T/cgengined.conf" 2>&1)
ok "--check lists the malformed line as file:line" \
	grep -qF "$A/00-default/Games/linux native/native.rules:4: invalid JSON" <<EOF
$out
EOF
ok "--check counts rules, types and cgroups" \
	grep -qF "$A: 5 ananicy rules, 3 types, 1 cgroups, 1 lines skipped: OK" <<EOF
$out
EOF

daemon_start || bail "daemon"

# a field of /proc/PID/stat counted from 1, read after the last ')':
# comm may hold blanks ("$SPACED")
stat_field() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f$(($2 - 2)); }
nice_of() { stat_field "$1" 19; }
io_of() { ionice -p "$1"; }
oom_of() { cat "/proc/$1/oom_score_adj"; }
policy_of() { chrt -p "$1" | sed -n 's/.*scheduling policy: //p'; }
has_nice() { [ "$(nice_of "$1")" = "$2" ]; }
has_oom() { [ "$(oom_of "$1")" = "$2" ]; }

# a program no rule names, started first: once a later one has its
# priorities, the daemon has handled this one's exec too
run_as "${TAG}u" "$T/bin/${TAG}other" 300; o=$LAST
o_nice=$(nice_of $$) o_io=$(io_of $$) o_oom=$(oom_of $$) o_pol=$(policy_of $$)

run_as "${TAG}u" "$T/bin/$LONG" 300; g=$LAST
wait_until 30 has_nice "$g" -5
is -5 "$(nice_of "$g")" "a name longer than 15 bytes gets its type's nice"
is "best-effort: prio 0" "$(io_of "$g")" "and best-effort at level 0, as ananicy-cpp"
is "SCHED_OTHER" "$(policy_of "$g")" "sched normal"
wait_group "$g" cls /cpu80
is /cpu80 "$(cgroup_of "$g" cls)" "its type's cgroup places it in ananicy-cgroup-hierarchy"
is 1 "$(grep -c "ananicy-cgroup-hierarchy $CLS has no cpu controller: ananicy's cgroups place processes there without their CPUQuota" "$T/daemon.log")" \
	"a hierarchy without cpu: placed without the quota, said once"

run_as "${TAG}u" "$T/bin/$SPACED" 300; s=$LAST
wait_until 30 has_oom "$s" 700
is 16 "$(nice_of "$s")" "a name with spaces, under 'wine & proton': nice"
is "idle" "$(io_of "$s")" "its I/O class"
is "SCHED_IDLE" "$(policy_of "$s")" "its policy"
is 700 "$(oom_of "$s")" "its rule's oom_score_adj over its type's nothing"

run_as "${TAG}u" bash -c 'exec -a "$1" "$0" 300' "$T/bin/${TAG}wine" \
	"C:\\Games\\${TAG} Wine.exe"; w=$LAST
wait_until 30 has_nice "$w" -5
is -5 "$(nice_of "$w")" "a Wine argv[0] matches by its last part after '\\'"
is "best-effort: prio 3" "$(io_of "$w")" "the rule's ionice over its type's"

start "$T/bin/${TAG}rt" 300; fifo=$LAST
wait_until 30 has_oom "$fifo" 300
is "SCHED_FIFO" "$(policy_of "$fifo")" "sched fifo"
is 1 "$(chrt -p "$fifo" | sed -n 's/.*scheduling priority: //p')" \
	"at rtprio 1, as ananicy-cpp gives fifo without rtprio"

run_as "${TAG}u" "$T/bin/${TAG}classed" 300; c=$LAST
wait_group "$c" cls /classed
wait_until 30 has_oom "$c" 600
is 3 "$(nice_of "$c")" "cgrules.conf's class decides nice first"
is 600 "$(oom_of "$c")" "ananicy's rule gives what the class does not name"
is /classed "$(cgroup_of "$c" cls)" "cgrules.conf places first: not in its type's cgroup"

is "$o_nice" "$(nice_of "$o")" "a program no rule names keeps its nice"
is "$o_io" "$(io_of "$o")" "and its I/O priority"
is "$o_oom" "$(oom_of "$o")" "and its oom_score_adj"
is "$o_pol" "$(policy_of "$o")" "and its policy"
is / "$(cgroup_of "$o" cls)" "and its group"

ex=$(ctl explain "$w")
ok "explain names the ananicy file and line" grep -qF "$WINE_RULES:2" <<EOF
$ex
EOF
ok "test --cmdline answers for a name not running" \
	sh -c '"$0" -s "$1" test --user root --cmdline "$2" | grep -qF "$3"' \
	"$CTL" "$SOCK" "/x/$LONG" "native.rules:1"

# an edited file: a reload reads it again
sed -i "s/\"type\": \"Game\" }\$/\"type\": \"Game\", \"nice\": -2 }/" \
	"$A/00-default/Games/linux native/native.rules"
reload_daemon || bail "reload"
run_as "${TAG}u" "$T/bin/$LONG" 300; g2=$LAST
wait_until 30 has_nice "$g2" -2
is -2 "$(nice_of "$g2")" "after a reload the edited rule applies"
ok "the daemon is still running" kill -0 "$DAEMON_PID"
daemon_stop
stop_kids

# ---- a dimension of the unified layout, in a private sub-tree of cgroup2 ----
if ! v2_subtree "cgetest_ananicy_$$"; then
	skip 2 "no cgroup2 mount"
	done_testing
fi
write_config "ananicy-dir = \"$A\"
ananicy-cgroup-hierarchy = \"cpu\"
unified-layout = {\"cpu\"}
backend = \"cgroupfs\"
unified-root = \"/$SUB\""
daemon_start || bail "daemon (unified layout)"
v2_of() { sed -n 's/^0::\(.*\)$/\1/p' "/proc/$1/cgroup"; }
in_v2() { [ "$(v2_of "$1")" = "$2" ]; }
run_as "${TAG}u" "$T/bin/$LONG" 300; g3=$LAST
wait_until 30 in_v2 "$g3" "/$SUB/cpu80"
is "/$SUB/cpu80" "$(v2_of "$g3")" "a dimension of the unified layout: its type's cgroup"
if grep -qw cpu "$V2/$SUB/cgroup.controllers"; then
	is "$((80 * $(getconf _NPROCESSORS_ONLN) * 1000)) 100000" "$(cat "$V2/$SUB/cpu80/cpu.max")" \
		"cpu.max: CPUQuota 80 is 80% of all $(getconf _NPROCESSORS_ONLN) CPUs"
else
	skip 1 "no cpu controller offered to $V2/$SUB (cpu.max checked in the unit test)"
fi
daemon_stop
stop_kids
done_testing
