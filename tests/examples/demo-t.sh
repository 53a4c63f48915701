#!/bin/sh
# The README's first command ends in examples/university/run-demo.sh:
# run it and check every placement it prints, and that it cleans up.
: "${SRCDIR:=.}" "${BUILDDIR:=.}"
. "$SRCDIR/tests/tap/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v setpriv >/dev/null || skip_all "needs setpriv"
if grep -q '^cgdemo_' /etc/passwd || grep -q 'name=cgdemo_' /proc/mounts; then
	skip_all "a demo is already running here"
fi
plan 12
out=$(CGENGINED="$BUILDDIR/cgengined" sh "$SRCDIR/examples/university/run-demo.sh" 2>&1)
is 0 "$?" "the demo runs to the end"
row() { echo "$out" | awk -v u="$1" -v p="$2" '$1 == u && $2 == p { print $3, $4, $5 }'; }
is "/profs /profs /others" "$(row cgdemo_prof cgdemo-shell)" "professor's shell"
is "/profs /profs /www/profs" "$(row cgdemo_prof cgdemo-browser)" "professor's browser"
is "/profs /profs /nfs" "$(row cgdemo_prof cgdemo-nfsd)" "professor's nfsd"
is "/profs /profs /others" "$(row cgdemo_prof cgdemo-batch)" "professor's batch job"
is "/students /students /others" "$(row cgdemo_stud cgdemo-shell)" "student's shell"
is "/students /students /www/students" "$(row cgdemo_stud cgdemo-browser)" "student's browser"
is "/students /students /nfs" "$(row cgdemo_stud cgdemo-nfsd)" "student's nfsd"
is "/students/cgdemo_stud /students /others" "$(row cgdemo_stud cgdemo-batch)" "student's batch job in its own group"
is 1 "$(echo "$out" | grep -c 'removed empty group name=cgdemo_cpu:/students/cgdemo_stud')" \
	"the empty per-user group was removed"
ok "no demo hierarchy is left mounted" sh -c "! grep -q 'name=cgdemo_' /proc/mounts"
ok "no demo user is left" sh -c "! grep -q '^cgdemo_' /etc/passwd"
done_testing
