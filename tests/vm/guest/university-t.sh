#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The university example on pure cgroup v2 under systemd, as installed:
# examples/university/real/cgengined-v2.conf composes the rules' cpu and
# net_cls decisions into one group per process below the daemon's own
# delegated unit group, enables the controllers and writes cpu.weight,
# memory.max and io.weight for the classes.  The rules are the
# example's, without its catch-all lines for every user (on v2 those
# would move every service of the guest, see docs/systemd.md).  Then
# two CPU hogs, a professor's and a student's, share one CPU by the
# classes' cpu.weight (2:1).
. ./lib.sh
plan 18

install_dest
EX=/usr/share/doc/cgengine/examples/university
getent group profs >/dev/null || groupadd profs || bail "groupadd profs"
getent group students >/dev/null || groupadd students || bail "groupadd students"
id prof1 >/dev/null 2>&1 || useradd -m -G profs prof1 || bail "useradd prof1"
id stud1 >/dev/null 2>&1 || useradd -m -G students stud1 || bail "useradd stud1"
install -m 644 "$EX/real/cgengined-v2.conf" /etc/cgengine/cgengined.conf
install -m 644 "$EX/hooks.lua" /etc/cgengine/hooks.lua
sed -e '/^\*[[:space:]]/d' "$EX/real/cgrules.conf" >/etc/cgrules.conf
cat >>/etc/cgrules.conf <<EOF
*:firefox          net_cls           /www
*:nfsd             net_cls           /nfs
root:caphog        cpu               /system
@profs             net_cls           /others
@students          net_cls           /others
EOF
for p in firefox batch1 caphog; do cp /usr/bin/sleep /usr/local/bin/$p; done
cp /bin/dash /usr/local/bin/hog

journal_mark
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "the daemon runs with the v2 layout"
ok "on the eBPF event source (the unit grants CAP_BPF and CAP_PERFMON)" \
	sh -c "cgenginectl status | grep -q '^event source: bpf'"
G=$(prop cgengined ControlGroup)
ok "it moved itself (and its Lua helper) into its unit's leaf daemon/" \
	grep -qx "$(prop cgengined MainPID)" "$V2$G/daemon/cgroup.procs"
ok "it enabled cpu, memory and io below its group" \
	sh -c "grep -qw cpu $V2$G/cgroup.subtree_control && grep -qw memory $V2$G/cgroup.subtree_control && grep -qw io $V2$G/cgroup.subtree_control"

as() { # as USER PROGRAM ARGS...: exec PROGRAM as USER (same pid)
	u=$1; shift
	setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups "$@" </dev/null &
}
as stud1 /usr/local/bin/firefox 600; S=$!
as prof1 /usr/local/bin/firefox 600; P=$!
as stud1 /usr/local/bin/batch1 600; B=$!
ok "a student's browser: students, www, the hook's student class" \
	wait_for 20 sh -c "test \"\$(sed -n 's/^0:://p' /proc/$S/cgroup)\" = '$G/students/default/www/students'"
ok "a professor's browser: profs, www, the professors' class" \
	wait_for 20 sh -c "test \"\$(sed -n 's/^0:://p' /proc/$P/cgroup)\" = '$G/profs/default/www/profs'"
ok "a student's batch job: its own %u group, others" \
	wait_for 20 sh -c "test \"\$(sed -n 's/^0:://p' /proc/$B/cgroup)\" = '$G/students/stud1/others/default'"
is "20 8589934592 default 100" \
	"$(cat $V2$G/profs/cpu.weight $V2$G/profs/memory.max $V2$G/profs/io.weight 2>/dev/null | tr '\n' ' ' | sed 's/ $//')" \
	"the professors' settings in v2 terms (cpu.shares 512, 8G, blkio 500)"
is 10 "$(cat $V2$G/students/cpu.weight 2>/dev/null)" "the students' cpu.weight (cpu.shares 256)"
ok "explain shows the composed group" sh -c "cgenginectl explain $S | grep -q '$G/students/default/www/students'"
# root's process holds every capability, more than the daemon's bounding
# set: moving it needs CAP_SYS_NICE (the kernel's cap_safe_nice check on
# attach); a unit without it fails with EPERM
/usr/local/bin/caphog 600 </dev/null & R=$!
ok "a process of root's with all capabilities is moved too (its system class)" \
	wait_for 20 sh -c "sed -n 's/^0:://p' /proc/$R/cgroup | grep -q '^$G/system/'"
kill $R
kill $B
ok "the student's empty template group is removed" \
	wait_for 15 sh -c "! test -d $V2$G/students/stud1"

# CPU: a professor's and a student's hog on one CPU, weights 20:10
HP=$(hog /usr/local/bin/hog prof1)
HS=$(hog /usr/local/bin/hog stud1)
ok "the professor's hog is in the profs class" \
	wait_for 20 sh -c "sed -n 's/^0:://p' /proc/$HP/cgroup | grep -q '^$G/profs/'"
ok "the student's hog is in the students class" \
	wait_for 20 sh -c "sed -n 's/^0:://p' /proc/$HS/cgroup | grep -q '^$G/students/'"
usage() { usage_usec "$V2$G/$1"; }
sleep 1
p0=$(usage profs) s0=$(usage students)
sleep 10
p1=$(usage profs) s1=$(usage students)
kill "$HP" "$HS"
dp=$((p1 - p0)) ds=$((s1 - s0))
diag "in 10s: profs ${dp}us, students ${ds}us"
ratio=$((dp * 100 / (ds > 0 ? ds : 1)))
diag "ratio profs/students = $ratio/100 (want 200/100, 160..240 accepted)"
ok "the CPU is shared 2:1 by the classes' cpu.weight" test "$ratio" -ge 160 -a "$ratio" -le 240

systemctl restart cgengined
is active "$(prop cgengined ActiveState)" "a restart succeeds with classified processes left"
ok "and they stay where they are" \
	sh -c "test \"\$(sed -n 's/^0:://p' /proc/$S/cgroup)\" = '$G/students/default/www/students'"
systemctl stop cgengined
ok "stopping the daemon does not kill them (KillMode=process)" kill -0 $S $P
kill $S $P
done_testing
