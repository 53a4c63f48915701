#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The university example's CPU classes on cgroup v2: professors and
# students are classified into /cgvm-univ/profs and /cgvm-univ/students,
# groups the daemon creates with cpu.weight 300 and 100.  Two CPU hogs,
# one of each class, share one CPU; cpu.stat must show them getting CPU
# time in the ratio 3:1 (within 20 %).
#
# The daemon does not enable controllers in cgroup.subtree_control yet,
# so the test enables cpu in /cgvm-univ before the daemon creates the
# class groups below it (systemd keeps cpu enabled at the root).
. ./lib.sh
plan 9

SECS=10
install_dest
groupadd cgvm_profs && groupadd cgvm_students || bail "groupadd"
useradd -m -g cgvm_profs cgvm_prof && useradd -m -g cgvm_students cgvm_stud || bail "useradd"
cp /bin/dash /usr/local/bin/cgvm-hog
U=$V2/cgvm-univ
mkdir -p $U
ok "cpu is enabled at the root, by systemd" grep -qw cpu $V2/cgroup.subtree_control
echo +cpu >$U/cgroup.subtree_control
cat >/etc/cgengine/cgengined.conf <<EOF
hierarchies = {"unified"}
rules = "/etc/cgrules.conf"
rules-dir = ""
group "unified:/cgvm-univ/profs" {
    set = {"cpu.weight=300"}
}
group "unified:/cgvm-univ/students" {
    set = {"cpu.weight=100"}
}
EOF
cat >/etc/cgrules.conf <<EOF
@cgvm_profs:cgvm-hog     unified  /cgvm-univ/profs
@cgvm_students:cgvm-hog  unified  /cgvm-univ/students
EOF
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "the daemon runs"

P=$(hog /usr/local/bin/cgvm-hog cgvm_prof)
S=$(hog /usr/local/bin/cgvm-hog cgvm_stud)
ok "the professor's hog lands in /cgvm-univ/profs" \
	wait_for 20 sh -c "test \"\$(sed -n 's/^0:://p' /proc/$P/cgroup)\" = /cgvm-univ/profs"
ok "the student's hog lands in /cgvm-univ/students" \
	wait_for 20 sh -c "test \"\$(sed -n 's/^0:://p' /proc/$S/cgroup)\" = /cgvm-univ/students"
is "300 100" "$(cat $U/profs/cpu.weight) $(cat $U/students/cpu.weight)" \
	"the daemon set the weights when it created the groups"

usage() { usage_usec "$U/$1"; }
sleep 1
p0=$(usage profs) s0=$(usage students)
sleep $SECS
p1=$(usage profs) s1=$(usage students)
kill "$P" "$S"
dp=$((p1 - p0)) ds=$((s1 - s0))
diag "in ${SECS}s: profs ${dp}us, students ${ds}us"
ok "both hogs ran" test "$dp" -gt 0 -a "$ds" -gt 0
ok "together they had the CPU (at least 80 %)" \
	test $((dp + ds)) -ge $((SECS * 800000))
ratio=$((dp * 100 / (ds > 0 ? ds : 1)))
diag "ratio profs/students = $ratio/100 (want 300/100, 240..360 accepted)"
ok "CPU time is shared 3:1 by cpu.weight" test "$ratio" -ge 240 -a "$ratio" -le 360
systemctl stop cgengined
is inactive "$(prop cgengined ActiveState)" "the daemon stops"
done_testing
