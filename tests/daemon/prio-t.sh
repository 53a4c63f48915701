#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Per-process priorities as part of a class (process = {...} in a group
# section or a boost profile), on the test's own programs only: nice,
# I/O class and level, policy, realtime priority and oom_score_adj read
# back from /proc, ionice and chrt, for every thread of a threaded
# program; a program no rule names keeps its own; a class change sets
# what the new class names and leaves the rest; a boost's priorities
# hold during the boost and are given back after it; explain, test,
# --check and the counters.  Then the same on the unified layout in a
# private sub-tree of this machine's cgroup2 mount.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
command -v jq >/dev/null || skip_all "needs jq"
command -v ionice >/dev/null || skip_all "needs ionice"
command -v chrt >/dev/null || skip_all "needs chrt"
plan 37

mount_hier cpu; MANAGED="cpu"
CPU="name=${TAG}cpu"
add_user "${TAG}u"
program "${TAG}game"
program "${TAG}bg" "$BUILDDIR/tests/lib/threadtid"
program "${TAG}rt"
program "${TAG}other"
cat >"$T/cgrules.conf" <<EOF
*:${TAG}game  $CPU  /games
*:${TAG}bg    $CPU  /bg
*:${TAG}rt    $CPU  /rt
*:${TAG}never $CPU  /games
EOF
write_config "group \"$CPU:/games\" {
    process = {\"nice=-5\", \"ioclass=best-effort\", \"ionice=2\", \"oom_score_adj=500\"}
}
group \"$CPU:/plain\" {
    process = {\"nice=3\"}
}
group \"$CPU:/bg\" {
    process = {\"nice=15\", \"ioclass=idle\", \"sched=idle\", \"oom_score_adj=900\", \"latency_nice=5\"}
}
group \"$CPU:/rt\" {
    process = {\"sched=rr\", \"rtprio=10\"}
}
boost-profile \"turbo\" {
    allow = {\"${TAG}u\"}
    hierarchy = \"$CPU\"
    destination = \"/turbo\"
    process = {\"nice=-10\", \"ioclass=realtime\", \"ionice=1\"}
}"
CONF="$T/cgengined.conf"
line_of() { grep -n "$1" "$CONF" | head -1 | cut -d: -f1; }
GAMES_LINE=$(line_of '"nice=-5"'); PLAIN_LINE=$(line_of '"nice=3"')
CTL="$BUILDDIR/cgenginectl"; SOCK="$T/control.sock"
ctl() { "$CTL" -s "$SOCK" "$@"; }
daemon_start || bail "daemon"

# the values read back: nice from stat (field 19), the I/O priority and
# the policy as ionice and chrt print them
nice_of() { awk '{ print $19 }' "/proc/$1/stat"; }
tnice_of() { awk '{ print $19 }' "/proc/$1/task/$2/stat"; }
io_of() { ionice -p "$1"; }
oom_of() { cat "/proc/$1/oom_score_adj"; }
policy_of() { chrt -p "$1" | sed -n 's/.*scheduling policy: //p'; }
rtprio_of() { chrt -p "$1" | sed -n 's/.*scheduling priority: //p'; }
has_nice() { [ "$(nice_of "$1")" = "$2" ]; }

# a program no rule names, started first: by the time a named one is
# placed, the daemon has handled its exec
run_as "${TAG}u" "$T/bin/${TAG}other" 300; o=$LAST
# what it inherits from this shell, and keeps
o_nice=$(nice_of $$) o_io=$(io_of $$) o_oom=$(oom_of $$) o_pol=$(policy_of $$)
run_as "${TAG}u" "$T/bin/${TAG}game" 300; g=$LAST
wait_group "$g" cpu /games
wait_until 30 has_nice "$g" -5
is -5 "$(nice_of "$g")" "a user's game gets its class's nice"
is "best-effort: prio 2" "$(io_of "$g")" "and its I/O class and level"
is 500 "$(oom_of "$g")" "and its oom_score_adj"
is "$o_pol" "$(policy_of "$g")" "a policy its class does not name is left alone"
is "$o_nice" "$(nice_of "$o")" "a program no rule names keeps its nice"
is "$o_io" "$(io_of "$o")" "and its I/O priority"
is "$o_oom" "$(oom_of "$o")" "and its oom_score_adj"
ok "the settings are logged" \
	grep -q "set nice=-5 ioclass=best-effort ionice=2 oom_score_adj=500 on pid $g (${TAG}game): 1 of 1 thread" "$T/daemon.log"

# a threaded program: every thread it has
run_as "${TAG}u" "$T/bin/${TAG}bg" 300 >"$T/bg.tid"; b=$LAST
wait_until 30 test -s "$T/bg.tid"; bt=$(cat "$T/bg.tid")
wait_group "$b" cpu /bg
wait_until 30 has_nice "$b" 15
is 2 "$(ls "/proc/$b/task" | wc -l)" "the threaded program has two threads"
is "15 15" "$(tnice_of "$b" "$b") $(tnice_of "$b" "$bt")" "both threads get nice 15"
is "idle idle" "$(io_of "$b") $(io_of "$bt")" "both get the idle I/O class"
is "SCHED_IDLE SCHED_IDLE" "$(policy_of "$b") $(policy_of "$bt")" "both get SCHED_IDLE"
is 900 "$(oom_of "$b")" "the process gets its oom_score_adj"
if grep -q "this kernel has no latency_nice" "$T/daemon.log"; then
	ok "latency_nice: this kernel has none, said once at notice" \
		test "$(grep -c 'has no latency_nice' "$T/daemon.log")" -eq 1
else
	ok "latency_nice: this kernel has it (no notice)" true
fi

# a realtime class
start "$T/bin/${TAG}rt" 300; r=$LAST
wait_group "$r" cpu /rt
has_rr() { [ "$(policy_of "$1")" = SCHED_RR ]; }
wait_until 30 has_rr "$r"
is "SCHED_RR 10" "$(policy_of "$r") $(rtprio_of "$r")" "a realtime class: SCHED_RR, priority 10"

# explain and test: wanted, current, and the line that decided
ex=$(ctl explain "$g")
ok "explain shows nice: current, wanted, file:line" \
	sh -c "echo '$ex' | grep -q '^nice  *-5  *-5  *$CONF:$GAMES_LINE\$'"
ok "and ioclass" sh -c "echo '$ex' | grep -q '^ioclass  *best-effort  *best-effort  *$CONF:$GAMES_LINE\$'"
is "oom_score_adj 500 500" "$(ctl --json explain "$g" |
	jq -r '.priorities[] | select(.priority == "oom_score_adj") | "\(.priority) \(.current) \(.wanted)"')" \
	"explain's JSON has the priorities"
tst=$(ctl test --user "${TAG}u" --exe "${TAG}game_not_running")
ok "test for a name no rule names: no priorities" sh -c "! echo '$tst' | grep -q '^PRIORITY'"
is "nice -5 $CONF:$GAMES_LINE" "$(ctl --json test --user "${TAG}u" --exe "${TAG}never" |
	jq -r '.priorities[0] | "\(.priority) \(.wanted) \(.why)"')" \
	"test --exe NAME, never run: the priorities of its class"

# a class change: what the new class names is set, the rest is left
sed -i "s|/games\$|/plain|" "$T/cgrules.conf"
reload_daemon || diag "no reload"
wait_group "$g" cpu /plain
wait_until 30 has_nice "$g" 3
is 3 "$(nice_of "$g")" "moved to another class: its nice"
is "best-effort: prio 2" "$(io_of "$g")" "the I/O priority the new class does not name is left"
is 500 "$(oom_of "$g")" "and so is oom_score_adj"
ok "explain names the new class's line" \
	sh -c "'$CTL' -s '$SOCK' explain $g | grep -q '^nice  *3  *3  *$CONF:$PLAIN_LINE\$'"

# a boost with priorities, and the end of it
id=$(setpriv --reuid="${TAG}u" --regid="${TAG}u" --init-groups \
	"$CTL" -s "$SOCK" --json boost --profile turbo "$g" 1m | jq .id)
wait_group "$g" cpu /turbo
wait_until 30 has_nice "$g" -10
is -10 "$(nice_of "$g")" "during a boost: the profile's nice"
is "realtime: prio 1" "$(io_of "$g")" "and its I/O class and level"
is 500 "$(oom_of "$g")" "what the profile does not name is left"
ctl unboost "#$id" >/dev/null
wait_group "$g" cpu /plain
wait_until 30 has_nice "$g" 3
is 3 "$(nice_of "$g")" "after the boost: the class's nice again"
has_io() { [ "$(io_of "$1")" = "$2" ]; }
wait_until 30 has_io "$g" "best-effort: prio 2"
is "best-effort: prio 2" "$(io_of "$g")" "the I/O priority only the boost named is given back"

# counters, and --check names the file, line and item
st=$(ctl --json status)
ok "priorities_applied counts" sh -c "echo '$st' | jq -e '.counters.priorities_applied >= 6' >/dev/null"
is 0 "$(echo "$st" | jq .counters.priorities_failed)" "nothing failed"
ok "metrics has them" sh -c "'$CTL' -s '$SOCK' metrics | grep -q '^cgengine_priorities_applied_total [1-9]'"
cp "$CONF" "$T/bad.conf"
sed -i 's|"nice=3"|"nice=-30"|' "$T/bad.conf"
is "$T/bad.conf:$PLAIN_LINE: group \"$CPU:/plain\": process: nice=-30: nice must be between -20 and 19" \
	"$("$CGENGINED" --check -c "$T/bad.conf" 2>&1)" "--check: file:line, the group and the item"
daemon_stop
chrt -o -p 0 "$r" # so it ends at once, even while realtime tasks hold every CPU
stop_kids

# ---- the unified layout in a private sub-tree of cgroup2 ----------------
if ! v2_subtree "cgetest_prio_$$"; then
	skip 4 "no cgroup2 mount"
	done_testing
fi
echo "*:${TAG}game cpu /games" >"$T/cgrules.conf"
write_config "unified-layout = {\"cpu\"}
backend = \"cgroupfs\"
unified-root = \"/$SUB\"
group \"cpu:/games\" {
    process = {\"nice=7\", \"ioclass=idle\"}
}"
daemon_start || bail "daemon"
v2_of() { sed -n 's/^0::\(.*\)$/\1/p' "/proc/$1/cgroup"; }
in_v2() { [ "$(v2_of "$1")" = "$2" ]; }
run_as "${TAG}u" "$T/bin/${TAG}game" 300; g=$LAST
wait_until 30 in_v2 "$g" "/$SUB/games"
is "/$SUB/games" "$(v2_of "$g")" "the unified layout: placed in its composed group"
wait_until 30 has_nice "$g" 7
is 7 "$(nice_of "$g")" "and given its class's nice"
is idle "$(io_of "$g")" "and I/O class"
ok "explain names the dimension's group section" \
	sh -c "'$CTL' -s '$SOCK' explain $g | grep -q '^nice  *7  *7  *$T/cgengined.conf:[0-9]*\$'"
done_testing
