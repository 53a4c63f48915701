#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The exec gate on the systemd backend (backend = "systemd", exec-gate =
# true): the scopes the gated rules can compose are made ahead, each
# held by a keeper (a child of the daemon that never execs), and a held
# exec is placed by a write of the scope's cgroup.procs, never waiting
# on PID 1.  Checked with a real PID 1:
#   - the scopes are units systemd lists under their class slices, with
#     Delegate=yes and their keeper in them
#   - N gated execs as a student and N as root each read their own
#     /proc/self/cgroup as their first action: every one is already in
#     its scope (0 misplaced), every one placed at the gate, none late
#   - an exec that fails after the gate (ENOEXEC): the process is moved
#     out of the gate's scope again, and classified as it is
#   - a scope stopped by hand: the next gated exec is placed after its
#     exec (late), a new keeper is started and the following ones are
#     placed at the gate again
#   - stopping the daemon: the keepers exit, a process placed at the
#     gate runs on in its scope, the scope that held only its keeper is
#     collected, no cgengine unit is left failed and no keeper is left
#   - a restart makes the scopes again (joining the one that has a
#     process) and places at the gate again
#   - the daemon stopped as a whole (SIGSTOP): a gated exec waits until
#     systemd's watchdog ends the daemon, then runs; the unit restarts
#     and keeps its groups ready again, with new keepers only
# The unit gets the gate's capabilities from a drop-in, as the docs say.
. ./lib.sh
plan 31

install_dest
getent group students >/dev/null || groupadd students || bail "groupadd students"
id stud1 >/dev/null 2>&1 || useradd -m -s /bin/sh -G students stud1 || bail "useradd stud1"
mkdir -p /etc/systemd/system/cgengined.service.d
cat >/etc/systemd/system/cgengined.service.d/gate.conf <<'EOF'
[Service]
CapabilityBoundingSet=CAP_SYS_ADMIN CAP_IPC_LOCK
EOF
systemctl daemon-reload
cat >/etc/cgengine/cgengined.conf <<'EOF'
rules = "/etc/cgrules.conf"
unified-layout = {"cpu", "net_cls"}
backend = "systemd"
exec-gate = true
log-level = "debug"
group "cpu:/students" { set = {"cpu.weight=50"} }
EOF
cat >/etc/cgrules.conf <<'EOF'
@students                    cpu      /students
*:/usr/local/bin/gateprobe   net_cls  /www
*:/usr/local/bin/gatesleep   net_cls  /www
*:/usr/local/bin/gatebad     net_cls  /www
EOF
# gateprobe's first action after the exec is to print its own group
cp /bin/cat /usr/local/bin/gateprobe
cp /usr/bin/sleep /usr/local/bin/gatesleep
printf 'this is not a program\n' >/usr/local/bin/gatebad # ENOEXEC
chmod 755 /usr/local/bin/gatebad
cgengined --check >/dev/null || bail "cgengined --check refuses the configuration"

R=/cgengine.slice
ST=cgengine-students-www.scope
DF=cgengine-default-www.scope
SCOPE_S=$R/cgengine-students.slice/$ST
SCOPE_D=$R/cgengine-default.slice/$DF
keeper_in() { # keeper_in CGROUP: a keeper is in that group
	for p in $(cat "$V2$1/cgroup.procs" 2>/dev/null); do
		[ "$(cat /proc/"$p"/comm 2>/dev/null)" = cgengine-keep ] && return 0
	done
	return 1
}
as_stud1() { setpriv --reuid=stud1 --regid="$(id -g stud1)" --init-groups "$@"; }
# misplaced N WANT [RUNNER]: of N execs of gateprobe, how many did not
# start in WANT
misplaced() {
	_n=0 _bad=0
	while [ $_n -lt "$1" ]; do
		got=$($3 /usr/local/bin/gateprobe /proc/self/cgroup </dev/null)
		[ "$got" = "0::$2" ] || { _bad=$((_bad + 1)); diag "exec $_n started in $got"; }
		_n=$((_n + 1))
	done
	echo $_bad
}
counter() { cgenginectl --json status | sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p"; }

journal_mark
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "the daemon runs on the systemd backend with exec-gate = true"
ok "its gate is open, holds the three binaries and keeps two groups ready" \
	sh -c 'cgenginectl status | grep -q "exec gate: *3 of 3 binaries held" &&
		cgenginectl status | grep -q "2 groups kept ready"'
ok "the students' scope is made ahead, with its keeper in it" wait_for 30 keeper_in $SCOPE_S
ok "and the default class's" wait_for 30 keeper_in $SCOPE_D
is "active cgengine-students.slice yes" "$(prop $ST ActiveState) $(prop $ST Slice) $(prop $ST Delegate)" \
	"the scope is an active unit in its class slice, delegated"
ok "systemctl status of the class slice lists the scope" \
	sh -c "systemctl status --no-pager cgengine-students.slice | grep -q $ST"
K=$(for p in $(cat $V2$SCOPE_S/cgroup.procs); do
	[ "$(cat /proc/"$p"/comm)" = cgengine-keep ] && echo "$p"; done | head -n 1)
ok "the keeper is the daemon's child and never classified (sticky)" \
	sh -c "test \"\$(ps -o ppid= -p $K | tr -d ' ')\" = $(prop cgengined MainPID) &&
		cgenginectl --json explain $K | grep -Eq '\"sticky\": ?true'"

N=40
m0=$(counter gate_moves) l0=$(counter gate_late)
is 0 "$(misplaced $N $SCOPE_S as_stud1)" "$N gated execs as a student: none starts outside $ST"
is 0 "$(misplaced $N $SCOPE_D)" "$N gated execs as root: none starts outside $DF"
m1=$(counter gate_moves) l1=$(counter gate_late)
ok "each was placed at the gate ($((m1 - m0)) moves)" test $((m1 - m0)) -ge $((2 * N))
is 0 $((l1 - l0)) "none late"
{ # what the daemon did, for a failure's diagnosis
	cgenginectl status; systemctl list-units --no-pager --all 'cgengine*'
	systemd-cgls --no-pager $R
} >out/sdgate-diag.txt 2>&1

# an exec that fails after the gate: execfail (tests/lib/execfail.c,
# built by the host) execs the file that is not a program, then prints
# its group at once and 4 s later
u0=$(counter gate_undone)
res=$(as_stud1 ./execfail /usr/local/bin/gatebad "" 4000)
is 0 "$?" "a student's exec of a gated file that is not a program fails (ENOEXEC)"
is "$SCOPE_S" "${res% *}" "the gate had placed the process in $ST"
is "$R/cgengine-students.slice/cgengine-students-default.scope" "${res#* }" \
	"... and it left that scope when the exec did not happen (classified as it is)"
diag "undone by the gate: $(($(counter gate_undone) - u0)); $(journal_since -u cgengined |
	grep 'did not run the binary' | tail -n 1)"

# a scope stopped by hand: the keeper goes with it, and comes back
systemctl stop $DF
ok "stopping the default class's scope by hand ends its keeper" \
	wait_for 30 sh -c "! systemctl is-active -q $DF"
got=$(/usr/local/bin/gateprobe /proc/self/cgroup </dev/null)
diag "the first exec after it started in ${got#0::}"
ok "the next gated exec is placed after its exec, counted late" \
	test "$(counter gate_late)" -gt "$l1"
ok "the scope is made again, with a new keeper" wait_for 30 keeper_in $SCOPE_D
sleep 1
is 0 "$(misplaced 10 $SCOPE_D)" "gated execs are placed at the gate again"

# stop: keepers exit, placed processes stay, nothing failed
setpriv --reuid=stud1 --regid="$(id -g stud1)" --init-groups \
	/usr/local/bin/gatesleep 600 </dev/null &
S=$! # setpriv's pid: it execs gatesleep
in_group() { test "$(cgroup_of "$1")" = "$2"; }
ok "a long gated process started in the students' scope" wait_for 10 in_group $S $SCOPE_S
systemctl stop cgengined
is inactive "$(prop cgengined ActiveState)" "the daemon stops"
ok "no keeper is left" wait_for 30 sh -c '! pgrep -x cgengine-keep'
ok "the process runs on in its scope" \
	sh -c "kill -0 $S && test \"\$(sed -n 's/^0:://p' /proc/$S/cgroup)\" = $SCOPE_S"
ok "the scope that held only its keeper is collected" \
	wait_for 30 sh -c "! systemctl is-active -q $DF"
is "" "$(systemctl list-units --no-legend --failed 'cgengine*')" "no cgengine unit failed"

# a restart: the scope with a process is joined, the other made again
timeout 120 systemctl start cgengined
ok "started again: a keeper joins the scope that has a process" \
	wait_for 30 sh -c "keeper_in() { for p in \$(cat $V2\$1/cgroup.procs); do
		[ \"\$(cat /proc/\$p/comm)\" = cgengine-keep ] && return 0; done; return 1; }
		keeper_in $SCOPE_S && keeper_in $SCOPE_D"
sleep 1
is 0 "$(misplaced 10 $SCOPE_S as_stud1)" "and gated execs are placed at the gate again"

# the daemon stopped as a whole: systemd's watchdog (WatchdogSec=)
MAIN=$(prop cgengined MainPID)
kill -STOP "$MAIN"
rm -f /tmp/sdgate-ran
(/usr/local/bin/gateprobe /proc/self/cgroup >/tmp/sdgate-ran </dev/null &)
sleep 3
ok "a gated exec waits for the stopped daemon" test ! -s /tmp/sdgate-ran
ok "until systemd's watchdog ends the daemon, and then it runs" \
	wait_for 60 test -s /tmp/sdgate-ran
ok "the unit is started again, its groups made ready again" \
	wait_for 90 sh -c '[ "$(systemctl show -p MainPID --value cgengined)" != "'"$MAIN"'" ] &&
		[ "$(systemctl show -p ActiveState --value cgengined)" = active ] &&
		cgenginectl status | grep -q "2 groups kept ready"'
ok "with new keepers only (the stopped daemon's exited with it)" \
	wait_for 30 sh -c '[ "$(pgrep -c -x cgengine-keep)" = 2 ]'

kill $S
systemctl stop cgengined
rm -rf /etc/systemd/system/cgengined.service.d
systemctl daemon-reload
systemctl reset-failed cgengined 2>/dev/null
ok "stopped and cleaned up" sh -c '! pgrep -x cgengine-keep'
done_testing
