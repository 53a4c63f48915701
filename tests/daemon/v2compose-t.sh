#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The unified layout on a private sub-tree of this machine's cgroup2
# mount: rules for the dimensions "cpu" and "net_cls" (no
# managed v1 hierarchy backs them here: the daemon manages only the
# test's own named hierarchy) compose into one v2 group per process
# below unified-root.  On a hybrid host the private sub-tree is offered
# no controllers, so this checks composition and placement; enabling
# controllers and the v2 settings are checked over the fixture
# (layout-t) and in a pure-v2 guest (the VM lane, docs/systemd.md).
. "$SRCDIR/tests/lib/daemon.sh"
require_root
v2_subtree "cgetest_v2c_$$" || skip_all "no cgroup2 mount"
plan 15

mount_hier x
add_group "${TAG}st"
add_user "${TAG}s" "${TAG}st"
program "${TAG}www"
program "${TAG}batch"
program "${TAG}other"
cat >"$T/cgrules.conf" <<EOR
@${TAG}st:${TAG}batch  cpu      /students/%u
@${TAG}st              cpu      /students
*:${TAG}www            net_cls  /www
@${TAG}st              net_cls  /others
EOR
MANAGED="x"
write_config "unified-layout = {\"cpu\", \"net_cls\"}
backend = \"cgroupfs\"
unified-root = \"/$SUB\"
group \"cpu:/students\" {
    set = {\"cpu.shares=512\"}
}"
daemon_start || bail "daemon"
ok "cpu is composed into the private sub-tree" \
	grep -q "composing cpu (2 levels) into unified:/$SUB/... at $V2" "$T/daemon.log"

v2_of() { sed -n 's/^0::\(.*\)$/\1/p' "/proc/$1/cgroup"; }
in_v2() { [ "$(v2_of "$1")" = "$2" ]; }
wait_v2() {
	wait_until 30 in_v2 "$1" "$2"
	is "$2" "$(v2_of "$1")" "$3"
}
run_as "${TAG}s" "$T/bin/${TAG}www" 300; w=$LAST
run_as "${TAG}s" "$T/bin/${TAG}batch" 300; b=$LAST
run_as "${TAG}s" "$T/bin/${TAG}other" 300; o=$LAST
wait_v2 "$w" "/$SUB/students/default/www" "a student's browser: students x www"
wait_v2 "$b" "/$SUB/students/${TAG}s/others" "a student's batch job: the template's level"
wait_v2 "$o" "/$SUB/students/default/others" "a student's other program"
# (the log line follows the move: wait for it; the name may still be
# setpriv's when a uid change is classified in the middle of the exec)
ok "one write per process, logged with each dimension's reason" \
	wait_log "moved pid $w (.*) to unified:/$SUB/students/default/www (cpu .*cgrules.conf:2, net_cls .*cgrules.conf:3)" ||
	grep "pid $w " "$T/daemon.log" | sed 's/^/#   /' >&2
ok "explain shows the composed group" sh -c "'$BUILDDIR/cgenginectl' -s '$T/control.sock' explain $w |
	grep -q '^unified *\/$SUB\/students\/default\/www *\/$SUB\/students\/default\/www *composed from cpu, net_cls'"
ok "explain shows a dimension's part" sh -c "'$BUILDDIR/cgenginectl' -s '$T/control.sock' explain $w |
	grep -q '^cpu *\/students\/default *\/students '"
ok "no process sits in an inner group" \
	test -z "$(cat "$V2/$SUB/cgroup.procs" "$V2/$SUB/students/cgroup.procs" "$V2/$SUB/students/default/cgroup.procs")"
# (a process may be moved twice: once after setpriv's setuid, once at exec)
others=$(sed -n 's/.*moved pid \([0-9]*\) .*/\1/p' "$T/daemon.log" | grep -v -x -e "$w" -e "$b" -e "$o")
is "" "$others" "nothing but the test's processes was moved"
kill -9 "$b"; wait "$b" 2>/dev/null
ok "the template's groups are removed once empty" wait_until 30 test ! -d "$V2/$SUB/students/${TAG}s"
ok "the configured class stays" test -d "$V2/$SUB/students/default"
# issue 22 5: a template group whose process exits while the daemon is
# stopped is removed when it starts again (the layout tells it was made)
run_as "${TAG}s" "$T/bin/${TAG}batch" 300; b2=$LAST
wait_v2 "$b2" "/$SUB/students/${TAG}s/others" "another batch job in the template's level"
daemon_stop
kill -9 "$b2"; wait "$b2" 2>/dev/null
ok "(stopped: the template's group outlives its process)" test -d "$V2/$SUB/students/${TAG}s/others"
daemon_start || bail "daemon restart"
ok "at the next start the empty template groups are removed" test ! -d "$V2/$SUB/students/${TAG}s"
ok "... the configured class and the groups in use stay" \
	test -d "$V2/$SUB/students/default/www" -a "$(v2_of "$w")" = "/$SUB/students/default/www"
if [ -n "$(cat "$V2/$SUB/cgroup.controllers")" ]; then
	diag "controllers offered here: $(cat "$V2/$SUB/cgroup.controllers")"
else
	diag "no controllers offered to $V2/$SUB: composition and placement only"
fi
done_testing
