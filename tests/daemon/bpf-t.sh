#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The eBPF event source (event-source): auto falls back to the proc
# connector with one line when the BPF program cannot load, bpf refuses
# to start then; on BPF an exec no rule can decide never reaches the
# daemon, a reload changes which do, and a full ring buffer is a loss
# of events (logged, rescanned) like the connector's.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 27

mount_hier cls; MANAGED="cls"
add_user "${TAG}a"; add_user "${TAG}b"
program "${TAG}long"; program "${TAG}short" /bin/true
echo "${TAG}a name=${TAG}cls /a" >"$T/cgrules.conf"
CTL="$BUILDDIR/cgenginectl"

# status: the execs the daemon has read
execs() {
	"$CTL" -s "$T/control.sock" status | sed -n 's/^events: .* exec \([0-9]*\),.*/\1/p'
}

# auto, and the BPF program cannot load: the connector, one line
write_config 'event-source = "auto"'
CGENGINED_TEST_BPF_FAIL=1 daemon_start || bail "daemon"
is 1 "$(grep -c "event source: " "$T/daemon.log")" "auto: one line says which source runs"
ok "that it is the connector, and why" grep -q \
	"event source: netlink (event-source = auto; the BPF program did not load: Operation not permitted)" \
	"$T/daemon.log"
is "event source: netlink" "$("$CTL" -s "$T/control.sock" status | grep '^event source:')" \
	"status says so"
ok "metrics too" sh -c "'$CTL' -s '$T/control.sock' metrics |
	grep -qx 'cgengine_event_source{source=\"netlink\"} 1'"
run_as "${TAG}a" "$T/bin/${TAG}long" 300
ok "and it classifies" wait_group "$LAST" cls /a
daemon_stop; stop_kids

if grep -q "this build has no BPF support" "$T/daemon.log" ||
	! grep -q "did not load: Operation not permitted" "$T/daemon.log"; then
	skip 22 "built without BPF"
	done_testing
fi

# bpf, and it cannot load: no start
write_config 'event-source = "bpf"'
: >"$T/daemon.log"
CGENGINED_TEST_BPF_FAIL=1 "$CGENGINED" -n -c "$T/cgengined.conf" -l "$T/daemon.log" 2>>"$T/daemon.log"
is 1 "$?" "event-source = bpf: no start when the program cannot load"
ok "saying why" grep -q \
	"event-source = bpf: cannot load the BPF program: Operation not permitted" "$T/daemon.log"
# the loader (a child, kernel/bpfload.c) killed before it hands anything over
: >"$T/daemon.log"
CGENGINED_TEST_BPF_FAIL=killed "$CGENGINED" -n -c "$T/cgengined.conf" -l "$T/daemon.log" 2>>"$T/daemon.log"
is 1 "$?" "event-source = bpf: no start when the loader is killed"
ok "saying so" grep -q \
	"cannot load the BPF program: its loader, a child process, ended without handing it over" \
	"$T/daemon.log"

# bpf: only the execs some rule can decide are read
daemon_start || bail "daemon"
is "event source: bpf" "$("$CTL" -s "$T/control.sock" status | grep '^event source:')" \
	"event-source = bpf: status says so"
ok "the filter names one uid" grep -q "BPF filter: execs of 1 uids, 0 gids, 0 names" \
	"$T/daemon.log"
# the program is loaded by a child of the daemon (kernel/bpfload.c),
# which hands its descriptors over and is waited for
is "" "$(cat /proc/"$DAEMON_PID"/task/*/children)" "the loader's child is gone, not a zombie"
run_as "${TAG}a" "$T/bin/${TAG}long" 300
ok "a's program is placed" wait_group "$LAST" cls /a
before=$(execs)
setpriv --reuid="${TAG}b" --regid="${TAG}b" --init-groups sh -c \
	"for i in 1 2 3 4 5; do '$T/bin/${TAG}short'; done"
daemon_sync
is "$before" "$(execs)" "six execs of a user no rule names never reach the daemon"

echo "${TAG}b name=${TAG}cls /b" >>"$T/cgrules.conf"
reload_daemon || bail "reload"
ok "a reload names another uid" grep -q "BPF filter: execs of 2 uids" "$T/daemon.log"
setpriv --reuid="${TAG}b" --regid="${TAG}b" --init-groups sh -c \
	"for i in 1 2 3 4 5; do '$T/bin/${TAG}short'; done"
run_as "${TAG}b" "$T/bin/${TAG}long" 300
ok "then b's program is placed" wait_group "$LAST" cls /b
daemon_sync
is "$((before + 7))" "$(execs)" "and b's execs reach the daemon (the shell, five, the long one)"
daemon_stop; stop_kids

# ananicy's rules: execs pass by the name ananicy-cpp matches (argv[0]'s
# last part, whole), not every exec (before, ananicy-dir let all through)
mkdir -p "$T/ana"
printf '{ "name": "%s Game.exe", "nice": 7 }\n' "$TAG" >"$T/ana/t.rules"
echo "${TAG}a name=${TAG}cls /a" >"$T/cgrules.conf"
write_config "event-source = \"bpf\"
ananicy-dir = \"$T/ana\""
daemon_start || bail "daemon"
ok "ananicy-dir: the filter stays narrow" grep -q \
	"BPF filter: execs of 1 uids, 0 gids, 0 names and by ananicy's rule names" "$T/daemon.log"
before=$(execs)
setpriv --reuid="${TAG}b" --regid="${TAG}b" --init-groups sh -c \
	"for i in 1 2 3 4 5; do '$T/bin/${TAG}short'; done"
daemon_sync
is "$before" "$(execs)" "execs of programs no rule names still never reach the daemon"
# a Windows program under Wine: argv[0] a path with backslashes
run_as "${TAG}b" bash -c 'exec -a "$0" "$@"' "C:\\Games\\$TAG Game.exe" \
	"$T/bin/${TAG}long" 300
nice7() { test "$(awk '{ print $19 }' "/proc/$LAST/stat")" = 7; }
wait_until 10 nice7
ok "one whose argv[0] ananicy names does, and gets the rule's nice" nice7
daemon_stop; stop_kids

# rules naming programs: an interpreter's exec passes by the script its
# arguments give, not because it is an interpreter (before, every sh,
# python, perl... on the machine reached the daemon)
printf '#!/bin/sh\nexit 0\n' >"$T/bin/${TAG}other.sh"
printf '#!/bin/sh\nsleep 300\n' >"$T/bin/${TAG}named.sh"
chmod 755 "$T/bin/${TAG}other.sh" "$T/bin/${TAG}named.sh"
echo "*:${TAG}named.sh name=${TAG}cls /script" >"$T/cgrules.conf"
write_config 'event-source = "bpf"'
daemon_start || bail "daemon"
ok "the filter names the script" grep -q "BPF filter: execs of 0 uids, 0 gids, 1 names" \
	"$T/daemon.log"
before=$(execs)
opts=$(printf ' -e%.0s' $(seq 100)) # 300 bytes of options
setpriv --reuid="${TAG}b" --regid="${TAG}b" --init-groups sh -c \
	"sh -c 'exit 0'; sh '$T/bin/${TAG}other.sh'; sh -e -- '$T/bin/${TAG}other.sh';
	'$T/bin/${TAG}other.sh'; sh -c ': $T/bin/${TAG}named.sh'"
daemon_sync
is "$before" "$(execs)" \
	"interpreters running a script no rule names (or a command string) never reach the daemon"
run_as "${TAG}b" sh "$T/bin/${TAG}named.sh"
ok "sh running the named script is placed" wait_group "$LAST" cls /script
# its sleep, which holds the test's output: stopped with it
KIDS="$KIDS $(ps -o pid= --ppid "$LAST")"
setpriv --reuid="${TAG}b" --regid="${TAG}b" --init-groups sh $opts "$T/bin/${TAG}other.sh"
daemon_sync
is "$((before + 2))" "$(execs)" \
	"so is one whose script lies past what the filter reads (the daemon decides it)"
daemon_stop; stop_kids
echo "${TAG}a name=${TAG}cls /a" >"$T/cgrules.conf"

# a ring buffer too small for a storm: lost events, a rescan
write_config 'event-source = "bpf"
bpf-buffer = 1
log-level = "notice"'
daemon_start || bail "daemon"
kill -STOP "$DAEMON_PID"
setpriv --reuid="${TAG}a" --regid="${TAG}a" --init-groups sh -c \
	"i=0; while [ \$i -lt 400 ]; do '$T/bin/${TAG}short' || exit 1; i=\$((i+1)); done"
longs=""
for n in 1 2; do
	run_as "${TAG}a" "$T/bin/${TAG}long" 300; longs="$longs $LAST"
done
kill -CONT "$DAEMON_PID"
ok "a full ring buffer is a loss" \
	wait_log "kernel dropped process events: the BPF ring buffer was full; rescanning" 5
ok "and a rescan follows" wait_log "rescanning /proc after lost events" 5
placed=0
for p in $longs; do wait_group "$p" cls /a 10 && placed=$((placed + 1)); done
is 2 "$placed" "the processes whose execs were lost are placed"
daemon_stop; stop_kids
done_testing
