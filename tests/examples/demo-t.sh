#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's first command ends in examples/university/run-demo.sh:
# run it, check every placement it prints, the explain output, the
# boost, and that it cleans up after itself.
: "${SRCDIR:=.}" "${BUILDDIR:=.}"
. "$SRCDIR/tests/tap/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v setpriv >/dev/null || skip_all "needs setpriv"
if grep -q '^cgdemo_' /etc/passwd || grep -q 'name=cgdemo_' /proc/mounts; then
	skip_all "a demo is already running here"
fi
plan 21
out=$(CGENGINED="$BUILDDIR/cgengined" CGENGINECTL="$BUILDDIR/cgenginectl" \
	sh "$SRCDIR/examples/university/run-demo.sh" 2>&1)
is 0 "$?" "the demo runs to the end"
row() { echo "$out" | awk -v u="$1" -v p="cgdemo-$2" '$1 == u && $2 == p { print $3, $4, $5, $6 }'; }
is "/profs /profs /profs /others" "$(row cgdemo_prof shell)" "professor's shell"
is "/profs /profs /profs /www/profs" "$(row cgdemo_prof browser)" "professor's browser: WWW split by the Lua hook"
is "/profs /profs /profs /nfs" "$(row cgdemo_prof nfsd)" "professor's nfsd"
is "/profs /profs /profs /others" "$(row cgdemo_prof batch)" "professor's batch job"
is "/students /students /students /others" "$(row cgdemo_stud shell)" "student's shell"
is "/students /students /students /www/students" "$(row cgdemo_stud browser)" "student's browser"
is "/students /students /students /nfs" "$(row cgdemo_stud nfsd)" "student's nfsd"
is "/students/cgdemo_stud /students /students /others" "$(row cgdemo_stud batch)" \
	"student's batch job in its own CPU group"
is "/system /system /system /others" "$(row cgdemo_sys shell)" "system user's shell"
is "/system /system /system /www" "$(row cgdemo_sys browser)" "system user's browser: no class, plain WWW"
is "/system /system /system /nfs" "$(row cgdemo_sys nfsd)" "system user's nfsd"
has() { echo "$out" | grep -q -- "$1"; }
ok "explain names the Lua hook for the WWW split" has 'name=cgdemo_net *\/www\/students *\/www\/students *Lua hook'
line=$(grep -n '^@cgdemo_students:cgdemo-batch' "$SRCDIR/examples/university/cgrules.conf.in" | cut -d: -f1)
ok "explain names the rule for the CPU class (line $line)" \
	has "name=cgdemo_cpu *\/students\/cgdemo_stud *\/students\/cgdemo_stud *.*cgrules.conf:$line\$"
ok "the student's boost through its profile" has "student's browser is now in net: /www/fast"
ok "and back after unboost" has "student's browser is back in net: /www/students"
ok "settings were applied to the template group" has "set notify_on_release=1 on name=cgdemo_cpu:/students/cgdemo_stud"
ok "the empty per-user group was removed" has 'removed empty group name=cgdemo_cpu:/students/cgdemo_stud'
ok "no demo hierarchy is left mounted" sh -c "! grep -q 'name=cgdemo_' /proc/mounts"
ok "none is left in the kernel either" sh -c "! grep -q 'name=cgdemo_' /proc/self/cgroup"
ok "no demo user is left" sh -c "! grep -q '^cgdemo_' /etc/passwd"
done_testing
