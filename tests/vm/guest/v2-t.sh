#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Classification on cgroup v2 under a real systemd, and what systemd
# makes of it.  The daemon runs as the installed cgengined.service with
# hierarchies = {"unified"} and a rule for a throwaway user.
#
# Part 1: the daemon writes into the v2 tree outside any delegated
#   subtree (its own top-level group /cgvm).  Classification works, but
#   systemd loses track of what was moved: a unit's forked children
#   survive "systemctl stop", a session's processes survive the session,
#   and a user's systemd --user manager, moved out of user@UID.service,
#   fails.  These are asserted as facts the v2 design must deal with.
# Part 2: the setup that works: the unit gets Delegate=yes and
#   KillMode=process, and the rules send processes below the unit's own
#   group (/system.slice/cgengined.service/...).  systemd then leaves the
#   subtree to the daemon, and stopping or restarting the daemon does
#   not kill what it classified (with the default KillMode it does).
. ./lib.sh
plan 33

U=cgvm_alice
useradd -m "$U" || bail "useradd $U"
UID_=$(id -u "$U")
install_dest
cat >/etc/cgengine/cgengined.conf <<EOF
hierarchies = {"unified"}
rules = "/etc/cgrules.conf"
rules-dir = ""
EOF
# procs PATTERN: pids of the user's processes whose command line matches
procs() { pgrep -u "$U" -f "$1" | sort -n | tr '\n' ' ' | sed 's/ $//'; }
has_proc() { pgrep -u "$U" -f "$1" >/dev/null; }
in_group() { # in_group GROUP PID...: every pid sits in GROUP
	g=$1; shift
	[ $# -gt 0 ] || return 1
	for p; do [ "$(cgroup_of "$p")" = "$g" ] || return 1; done
}
alive() { for p; do kill -0 "$p" 2>/dev/null || return 1; done; }
dead() { for p; do ! kill -0 "$p" 2>/dev/null || return 1; done; }

# --- part 1: a top-level group of the daemon's own ------------------------------
echo "$U unified /cgvm/jobs" >/etc/cgrules.conf
journal_mark
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "the daemon manages the v2 tree"
ok "it says so" journal_has "^managing unified at $V2\$"

setpriv --reuid="$U" --regid="$U" --clear-groups sleep 500 &
P=$!
ok "a process of the user's is moved to /cgvm/jobs" wait_for 10 in_group /cgvm/jobs $P
ok "the move is logged with its rule" \
	journal_has "^moved pid $P \\(.*\\) to unified:/cgvm/jobs \\(/etc/cgrules.conf:1\\)\$"
kill $P

systemd-run -q --unit=cgvm-svc -p User="$U" sh -c 'sleep 501 & exec sleep 502'
wait_for 10 has_proc '^sleep 501$'
wait_for 10 has_proc '^sleep 502$'
MAINP=$(procs '^sleep 502$') KID=$(procs '^sleep 501$')
ok "a service's processes are moved out of its unit" wait_for 10 in_group /cgvm/jobs $MAINP $KID
is "active $MAINP" "$(prop cgvm-svc ActiveState) $(prop cgvm-svc MainPID)" \
	"systemd still counts the unit active with its main pid"
is 0 "$(prop cgvm-svc TasksCurrent)" "but the unit's own group is empty"
systemctl stop cgvm-svc
ok "systemctl stop kills the main process (systemd tracks it by pid)" wait_for 5 dead $MAINP
ok "but the forked child escapes the unit and keeps running" alive $KID
kill $KID

journal_mark
runuser -l "$U" -c 'sleep 503 & wait' </dev/null 2>/dev/null &
wait_for 15 has_proc '^sleep 503$'
ok "a login session's processes are moved out of its scope" \
	wait_for 15 in_group /cgvm/jobs $(procs '^sleep 503$')
S=$(loginctl list-sessions --no-legend | awk -v u="$U" '$3 == u { print $1; exit }')
ok "logind still counts the session" test -n "$S"
# (often while it is still systemd's forked child "(systemd)": at its
# setuid, before it runs systemd --user)
ok "the user's systemd --user is moved too (the rule matches every process)" \
	journal_has "^moved pid [0-9]+ \\(\\(?systemd\\)?\\) to unified:/cgvm/jobs"
ok "... and user@$UID_.service fails: its manager left its delegated group" \
	wait_for 15 sh -c "systemctl show -p ActiveState --value user@$UID_.service | grep -qx failed"
SL=$(procs '^sleep 503$')
loginctl terminate-session "$S"
ok "the session's end does not reach the moved processes" sh -c "sleep 2; kill -0 $SL"
kill $SL 2>/dev/null
systemctl stop cgengined
no_procs() { test -z "$(procs .)"; }
wait_for 10 no_procs

# --- part 2: Delegate=yes, the daemon's rules stay below its own unit -------------
G=/system.slice/cgengined.service
mkdir -p /etc/systemd/system/cgengined.service.d
printf '[Service]\nDelegate=yes\nKillMode=process\n' \
	>/etc/systemd/system/cgengined.service.d/delegate.conf
systemctl daemon-reload
echo "$U:sleep unified $G/jobs" >/etc/cgrules.conf
journal_mark
timeout 120 systemctl start cgengined
is "yes active" "$(prop cgengined Delegate) $(prop cgengined ActiveState)" \
	"with Delegate=yes the unit starts"
systemd-run -q --unit=cgvm-svc2 -p User="$U" sh -c 'sleep 504 & exec sleep 505'
wait_for 10 has_proc '^sleep 504$'
wait_for 10 has_proc '^sleep 505$'
D1=$(procs '^sleep 50[45]$')
ok "processes are moved below the daemon's unit" wait_for 10 in_group $G/jobs $D1
ok "systemd shows them in the unit's tree" sh -c \
	"systemctl status cgengined --no-pager | grep -q 'jobs'"
systemctl stop cgengined
ok "KillMode=process: stopping the daemon does not kill them" alive $D1
journal_mark
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "the daemon starts again around them"
ok "systemd notes the left-over processes" journal_has "Found left-over process"
systemd-run -q --unit=cgvm-svc3 -p User="$U" sh -c 'exec sleep 506'
wait_for 10 has_proc '^sleep 506$'
ok "and the restarted daemon classifies again" wait_for 10 in_group $G/jobs $(procs '^sleep 506$')
systemctl stop cgvm-svc2 cgvm-svc3
kill $(procs '^sleep 50') 2>/dev/null

# the default KillMode (control-group) takes the classified processes
# along: why the shipped unit sets KillMode=process
printf '[Service]\nDelegate=yes\nKillMode=control-group\n' >/etc/systemd/system/cgengined.service.d/delegate.conf
systemctl daemon-reload
systemctl restart cgengined
systemd-run -q --unit=cgvm-svc4 -p User="$U" sh -c 'exec sleep 507'
wait_for 10 has_proc '^sleep 507$'
D2=$(procs '^sleep 507$')
ok "(default KillMode) classified into the unit's subtree" wait_for 10 in_group $G/jobs $D2
systemctl stop cgengined
ok "(default KillMode) stopping the daemon kills them" wait_for 10 dead $D2

# The daemon in a leaf of its own, so that the subtree may enable
# controllers (no process may sit in a group whose children use them):
# a wrapper moves the main process to .../daemon before the daemon
# starts.  ($$$$ is a literal $$ in a unit file.)
kill $(procs .) 2>/dev/null
cat >/etc/systemd/system/cgengined.service.d/delegate.conf <<EOF
[Service]
Delegate=yes
KillMode=process
ExecStart=
ExecStart=/bin/sh -c 'G=$V2$G; mkdir -p \$G/daemon && echo \$\$\$\$ >\$G/daemon/cgroup.procs && echo "+cpu +memory +io +pids" >\$G/cgroup.subtree_control && exec /usr/sbin/cgengined --foreground --log syslog'
EOF
systemctl daemon-reload
journal_mark
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "(own leaf) the daemon starts"
is "$G/daemon" "$(cgroup_of "$(prop cgengined MainPID)")" "(own leaf) it runs in $G/daemon"
is "cpu io memory pids" "$(cat $V2$G/cgroup.subtree_control)" \
	"(own leaf) the unit's group hands controllers to its children"
systemd-run -q --unit=cgvm-svc5 -p User="$U" sh -c 'exec sleep 508'
wait_for 10 has_proc '^sleep 508$'
D3=$(procs '^sleep 508$')
ok "(own leaf) classified into the subtree" wait_for 10 in_group $G/jobs $D3
ok "(own leaf) whose groups have cpu.weight" test -f $V2$G/jobs/cpu.weight
journal_mark
systemctl reload cgengined
is 0 "$?" "(own leaf) systemctl reload"
ok "(own leaf) the daemon reloaded" journal_has '^reloaded: 1 rules'
systemctl stop cgengined
ok "(own leaf) stopping the daemon leaves the classified process" alive $D3
# systemd 252 starts ExecStartPre= and the main process in the unit's own
# group, which now hands controllers down: the kernel refuses that while
# the subtree lives (DelegateSubgroup=, systemd 254, would place them).
journal_mark
timeout 120 systemctl start cgengined 2>/dev/null
ok "(own leaf) but no restart while classified processes remain (219/CGROUP)" \
	journal_has 'Control process exited, code=exited, status=219/CGROUP'
kill $D3
systemctl stop cgengined
systemctl reset-failed cgengined
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "(own leaf) once the subtree is empty, it starts again"
systemctl stop cgengined
systemctl stop cgvm-svc5 2>/dev/null
kill $(procs .) 2>/dev/null
rm -rf /etc/systemd/system/cgengined.service.d
systemctl daemon-reload
done_testing
