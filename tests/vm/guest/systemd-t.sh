#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The university example on the systemd backend (backend = "systemd"):
# the daemon decides, PID 1 places.  Each class level is a slice systemd
# owns (cgengine.slice, cgengine-students.slice, ...), each composed
# group a scope in them, the classes' settings unit properties.  Then:
# the CPU shared by the weights; systemctl set-property wins over the
# daemon's settings, across a reload and a restart; stopping the daemon
# leaves every process in its unit, starting it moves nothing; a login
# session keeps its leader; the user's manager and PID 1 are left
# alone.  Last, PID 1's CPU time per placement and the placement
# latency, beside the cgroupfs backend's (bench/README.md).
. ./lib.sh
plan 36

install_dest
EX=/usr/share/doc/cgengine/examples/university
groupadd profs && groupadd students || bail "groupadd"
useradd -m -G profs prof1 && useradd -m -s /bin/sh -G students stud1 || bail "useradd"
# the v2 example as it is, on the systemd backend (its nft sets need
# the firewall, which nft-t.sh tests; the cgroupfs backend keeps them)
sed -e '/nft-set/d' -e 's/^backend = .*/backend = "systemd"/' "$EX/real/cgengined-v2.conf" \
	>/etc/cgengine/cgengined.conf
echo 'log-level = "debug"' >>/etc/cgengine/cgengined.conf
install -m 644 "$EX/hooks.lua" /etc/cgengine/hooks.lua
sed -e '/^\*[[:space:]]/d' "$EX/real/cgrules.conf" >/etc/cgrules.conf
cat >>/etc/cgrules.conf <<EOF
*:firefox          net_cls           /www
root:caphog        cpu               /system
@profs             net_cls           /others
@students          net_cls           /others
EOF
for p in firefox batch1 caphog cgvm-place; do cp /usr/bin/sleep /usr/local/bin/$p; done
cp /bin/dash /usr/local/bin/hog

R=/cgengine.slice
SCOPE_S=$R/cgengine-students.slice/cgengine-students-default.slice/cgengine-students-default-www.slice/cgengine-students-default-www-students.scope
SCOPE_P=$R/cgengine-profs.slice/cgengine-profs-default.slice/cgengine-profs-default-www.slice/cgengine-profs-default-www-profs.scope
SCOPE_B=$R/cgengine-students.slice/cgengine-students-stud1.slice/cgengine-students-stud1-others.slice/cgengine-students-stud1-others-default.scope
in_group() { test "$(cgroup_of "$1")" = "$2"; }

journal_mark
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "the daemon runs on the systemd backend"
G=$(prop cgengined ControlGroup)
ok "it stays in its own unit's group (nothing delegated is used)" \
	sh -c "cgroup_of() { sed -n 's/^0:://p' /proc/\$1/cgroup; }; cgroup_of $(prop cgengined MainPID) | grep -q '^$G'"

as() { # as USER PROGRAM ARGS...: exec PROGRAM as USER (same pid)
	u=$1; shift
	setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups "$@" </dev/null &
}
as stud1 /usr/local/bin/firefox 900; S=$!
as prof1 /usr/local/bin/firefox 900; P=$!
as stud1 /usr/local/bin/batch1 900; B=$!
ok "a student's browser: in the students/www/students scope" wait_for 30 in_group $S $SCOPE_S
ok "a professor's browser: in the profs/www/profs scope" wait_for 30 in_group $P $SCOPE_P
ok "a student's batch job: its own %u slice" wait_for 30 in_group $B $SCOPE_B
ok "systemctl status cgengine-students.slice lists the students' processes" \
	sh -c "systemctl status --no-pager cgengine-students.slice | grep -qw $S && systemctl status --no-pager cgengine-students.slice | grep -qw $B"
ok "systemd-cgls shows the classes" \
	sh -c "systemd-cgls --no-pager $R | grep -q cgengine-profs.slice"
is "20 8589934592 100" \
	"$(prop cgengine-profs.slice CPUWeight) $(prop cgengine-profs.slice MemoryMax) $(prop cgengine-profs.slice IOWeight)" \
	"the professors' settings are the slice's properties (cpu.shares 512, 8G, blkio 500)"
is 10 "$(prop cgengine-students.slice CPUWeight)" "the students' CPUWeight (cpu.shares 256)"
is "20 10" "$(cat $V2$R/cgengine-profs.slice/cpu.weight $V2$R/cgengine-students.slice/cpu.weight | tr '\n' ' ' | sed 's/ $//')" \
	"systemd wrote them to cgroupfs"
ok "the classes' slices are transient units" \
	sh -c "prop() { systemctl show -p \$2 --value \$1; }; test \"\$(prop cgengine-profs.slice Transient)\" = yes"
ok "one scope per composed group, not per process" \
	sh -c "test \$(systemctl list-units --no-legend --all 'cgengine-*.scope' | wc -l) -le 4"
ok "explain shows the unit a process is in and should be in" \
	sh -c "cgenginectl explain $S | grep -q 'unit: cgengine-students-default-www-students.scope, wanted: cgengine-students-default-www-students.scope'"
/usr/local/bin/caphog 900 </dev/null & C=$!
ok "a root process with all capabilities is placed too (its system class)" \
	wait_for 30 sh -c "sed -n 's/^0:://p' /proc/$C/cgroup | grep -q '^$R/cgengine-system.slice/'"
kill $C $B
ok "the student's empty template slice is stopped" \
	wait_for 30 sh -c "! systemctl is-active -q cgengine-students-stud1.slice"

# never moved: PID 1, the user's own manager, a session's leader
systemctl start user@"$(id -u stud1)".service
UM=$(prop user@"$(id -u stud1)".service MainPID)
sleep 3
ok "the user's manager (user@UID.service) stays in its unit" \
	sh -c "sed -n 's/^0:://p' /proc/$UM/cgroup | grep -q 'user@$(id -u stud1).service'"
is /init.scope "$(cgroup_of 1)" "PID 1 stays in init.scope"
ok "explain says why the user's manager is left alone" \
	sh -c "cgenginectl explain $UM | grep -q 'left alone: .*user@UID.service'"
su -l stud1 -c '/usr/local/bin/firefox 900' </dev/null >/dev/null 2>&1 &
wait_for 30 sh -c "test \$(pgrep -u stud1 -c -x firefox) -ge 2"
SID=$(loginctl list-sessions --no-legend | awk '$3 == "stud1" { print $1; exit }')
L=$(loginctl show-session "$SID" -p Leader --value 2>/dev/null)
F=$(pgrep -u stud1 -n -x firefox)
ok "su -l opened a logind session" test -n "$SID" -a -n "$L"
ok "its browser was placed in the students' scope" wait_for 30 in_group "$F" $SCOPE_S
ok "logind still lists the session with its leader, in its scope" \
	sh -c "loginctl session-status $SID | grep -qw $L && sed -n 's/^0:://p' /proc/$L/cgroup | grep -q 'session-$SID.scope'"

# CPU: a professor's and a student's hog on one CPU, weights 20:10
HP=$(hog /usr/local/bin/hog prof1)
HS=$(hog /usr/local/bin/hog stud1)
ok "both hogs placed in their classes" wait_for 30 sh -c \
	"sed -n 's/^0:://p' /proc/$HP/cgroup | grep -q '^$R/cgengine-profs.slice/' && sed -n 's/^0:://p' /proc/$HS/cgroup | grep -q '^$R/cgengine-students.slice/'"
{ # what the daemon did, for a failure's diagnosis
	cgenginectl explain "$HS"; cgenginectl status; systemctl list-units --no-pager --all 'cgengine*'
	journalctl -u cgengined --no-pager -o short-monotonic
} >out/systemd-diag.txt 2>&1
usage() { usage_usec "$V2$R/cgengine-$1.slice"; }
sleep 1
p0=$(usage profs) s0=$(usage students)
sleep 10
p1=$(usage profs) s1=$(usage students)
dp=$((p1 - p0)) ds=$((s1 - s0))
diag "in 10s: profs ${dp}us, students ${ds}us"
ratio=$((dp * 100 / (ds > 0 ? ds : 1)))
diag "ratio profs/students = $ratio/100 (want 200/100, 160..240 accepted)"
ok "the CPU is shared 2:1 by the slices' CPUWeight" test "$ratio" -ge 160 -a "$ratio" -le 240
kill "$HP" "$HS"

# the administrator's systemctl set-property wins
systemctl set-property cgengine-students.slice CPUWeight=30
is 30 "$(cat $V2$R/cgengine-students.slice/cpu.weight)" "systemctl set-property takes effect"
journal_mark
systemctl reload cgengined
ok "the daemon reloaded" journal_has 'reloaded: '
is 30 "$(cat $V2$R/cgengine-students.slice/cpu.weight)" "and the administrator's weight stays"

# stop: everything stays in its unit, weighted; start: nothing moves
systemctl stop cgengined
is inactive "$(prop cgengined ActiveState)" "the daemon stops"
ok "its classified processes keep running in their scopes" \
	sh -c "kill -0 $S $P && test \"\$(sed -n 's/^0:://p' /proc/$S/cgroup)\" = $SCOPE_S"
is "20 30" "$(prop cgengine-profs.slice CPUWeight) $(prop cgengine-students.slice CPUWeight)" \
	"the slices keep their weights while it is stopped"
journal_mark
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "it starts again"
sleep 2
ok "a start moves nothing" sh -c "! journalctl --no-pager -o cat --after-cursor='$JOURNAL_CURSOR' -u cgengined | grep -q 'moving pid'"
is 30 "$(cat $V2$R/cgengine-students.slice/cpu.weight)" "and the administrator's weight stays"

# measured: PID 1's CPU time per placement, and the latency from exec
# to placed, 25 processes one after another (bench/README.md), for a
# scope that exists (AttachProcessesToUnit), a scope made for each
# (StartTransientUnit), and the cgroupfs backend
R2=cgengine-students-default-others-default.scope
as stud1 /usr/local/bin/cgvm-place 900; K=$!
ok "a process keeps the scope the measured ones join" wait_for 30 grep -q $R2 /proc/$K/cgroup
bash ./place-bench.sh systemd-attach 25 stud1 /usr/local/bin/cgvm-place $R2 >out/bench-attach.txt 2>&1
ok "placements measured: joining a scope (AttachProcessesToUnit)" grep -q '^placed' out/bench-attach.txt
kill $K
sleep 2
bash ./place-bench.sh systemd-start 25 stud1 /usr/local/bin/cgvm-place $R2 >out/bench-start.txt 2>&1
ok "placements measured: a new scope each (StartTransientUnit)" grep -q '^placed' out/bench-start.txt
systemctl stop cgengined
sed -i 's/^backend = "systemd"/backend = "cgroupfs"/' /etc/cgengine/cgengined.conf
timeout 120 systemctl start cgengined
as stud1 /usr/local/bin/cgvm-place 900; K=$!
wait_for 30 grep -q students/default/others/default /proc/$K/cgroup
bash ./place-bench.sh cgroupfs 25 stud1 /usr/local/bin/cgvm-place students/default/others/default >out/bench-cgroupfs.txt 2>&1
ok "and on the cgroupfs backend (the unit's delegated group)" grep -q '^placed' out/bench-cgroupfs.txt
cat out/bench-attach.txt out/bench-start.txt out/bench-cgroupfs.txt | sed 's/^/# /' >&2
kill $K
systemctl stop cgengined
kill $S $P $F 2>/dev/null
done_testing
