#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ananicy-cpp's rules on the systemd backend, on a real kernel with the
# cpu and io controllers: ananicy's types as classes (ananicy-type-
# hierarchy) are slices whose cpu.weight and io.weight the kernel shows
# as the type's nice and I/O level say, and ananicy's cgroup line
# (ananicy-cgroup-hierarchy) a slice whose cpu.max is its CPUQuota of
# all CPUs; a program of a type gets its type's priorities as well.  On
# the eBPF event source, whose exec records tell argv[0]: a program
# named by its argv[0] alone (exec -a) is placed by it.
. ./lib.sh
plan 11

install_dest
id ana1 >/dev/null 2>&1 || useradd -m -s /bin/sh ana1 || bail "useradd ana1"
A=/etc/cgvm-ananicy.d
rm -rf "$A"
mkdir -p "$A/00-default/Games"
cat >"$A/00-types.types" <<'EOT'
# two of ananicy-rules' types
{ "type": "Game", "nice": -5, "ioclass": "best-effort" }
{ "type": "BG_CPUIO", "nice": 16, "ioclass": "idle", "sched": "idle" }
{ "type": "OOM_NO_KILL", "oom_score_adj": -1000 }
EOT
echo '{ "cgroup": "cpu80", "CPUQuota": 80 }' >"$A/00-cgroups.cgroups"
cat >"$A/00-default/Games/cgvm.rules" <<'EOT'
{ "name": "cgvm-anagame", "type": "Game" }
{ "name": "cgvm-anabg", "type": "BG_CPUIO", "cgroup": "cpu80" }
{ "name": "cgvm-anakeep", "type": "OOM_NO_KILL" }
{ "name": "cgvm-anaargv", "type": "Game" }
EOT
cat >/etc/cgengine/cgengined.conf <<EOC
unified-layout = {"classes", "quota"}
backend = "systemd"
log-level = "debug"
ananicy-dir = "$A"
ananicy-type-hierarchy = "classes"
ananicy-cgroup-hierarchy = "quota"
EOC
: >/etc/cgrules.conf
cp /usr/bin/sleep /usr/local/bin/cgvm-anagame
cp /usr/bin/sleep /usr/local/bin/cgvm-anabg
cp /usr/bin/sleep /usr/local/bin/cgvm-anakeep
timeout 120 systemctl restart cgengined
is active "$(prop cgengined ActiveState)" "the daemon runs on the systemd backend with ananicy-dir"
ok "on the eBPF event source" sh -c "cgenginectl status | grep -q '^event source: bpf'"

as_ana() { setpriv --reuid=ana1 --regid="$(id -g ana1)" --init-groups "$@" </dev/null >/dev/null 2>&1 & }
as_ana /usr/local/bin/cgvm-anagame 900
GP=$!
as_ana /usr/local/bin/cgvm-anabg 900
BP=$!
as_ana /usr/local/bin/cgvm-anakeep 900
KP=$!
as_ana bash -c 'exec -a cgvm-anaargv /usr/bin/sleep 900'
AP=$!
# in_unit PID NAME: the process's group or one above it has NAME in its name
in_unit() { cgroup_of "$1" | grep -q "$2"; }
# of PID PATTERN FILE: FILE of the nearest group above the process (or
# its own) whose name matches the shell PATTERN
of() {
	d=/sys/fs/cgroup$(cgroup_of "$1")
	while [ "$d" != /sys/fs/cgroup ]; do
		case ${d##*/} in $2) cat "$d/$3"; return ;; esac
		d=${d%/*}
	done
	return 1
}
ok "the game is placed in its type's class" wait_for 60 in_unit $GP Game
ok "so is sleep exec'd with the game's argv[0]" wait_for 60 in_unit $AP Game
both() { in_unit $BP BG_CPUIO && in_unit $BP cpu80; }
ok "the background program in its type's class and in ananicy's cgroup" wait_for 60 both
diag "game: $(cgroup_of $GP)"
diag "background: $(cgroup_of $BP)"
is 305 "$(of $GP "*-Game.slice" cpu.weight)" "the Game class's cpu.weight is nice -5's (305)"
is "default 200" "$(of $GP "*-Game.slice" io.weight)" "its io.weight is best-effort level 0's (200)"
is "3 1" "$(of $BP "*-BG_CPUIO.slice" cpu.weight) $(of $BP "*-BG_CPUIO.slice" io.weight | awk '{ print $2 }')" \
	"the BG_CPUIO class's weights: nice 16's (3) and idle's (1)"
is "80000 100000" "$(of $BP "*cpu80*" cpu.max)" \
	"ananicy's cgroup cpu80 has its CPUQuota of all CPUs (80 % of 1)"
is "-5 16 idle" "$(awk '{ print $19 }' /proc/$GP/stat) $(awk '{ print $19 }' /proc/$BP/stat) \
$(ionice -p $BP | cut -d: -f1)" "and the programs have their types' nice and I/O class"
# lowering oom_score_adj below 0 needs CAP_SYS_RESOURCE, which the
# unit grants
keep() { test "$(cat /proc/$KP/oom_score_adj)" = -1000; }
ok "an OOM_NO_KILL program's oom_score_adj is -1000 (the unit grants CAP_SYS_RESOURCE)" \
	wait_for 60 keep
kill $GP $BP $KP $AP
systemctl stop cgengined
rm -rf "$A" /usr/local/bin/cgvm-anagame /usr/local/bin/cgvm-anabg /usr/local/bin/cgvm-anakeep
done_testing
