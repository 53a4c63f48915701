#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Template values a user chooses (a program's name under /apps/%p) can
# neither name a control file of the group above nor share another
# value's group: a program named "tasks" or "cgroup.procs" is placed
# below /apps all the same (it could not be: "Not a directory"), two
# long names whose old 32-bit tails collide get two groups, and a name
# shaped like an encoded one does not get that one's group.  The hash
# is keyed by the installation's secret, made at the first start.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 9

mount_hier x; MANAGED="x"
add_user "${TAG}u"
# the test user's programs only: nothing else on the machine is moved
cat >"$T/cgrules.conf" <<EOF2
${TAG}u   name=${TAG}x   /apps/%p
EOF2
write_config ""
daemon_start || bail "daemon"
ok "the template key was made, owner only" \
	sh -c "[ \"\$(stat -c '%a %s' '$T/template.key')\" = '600 16' ]"

# the encoded name of a value: VALUE~ and 16 hex digits, nothing else
encoded() { # PID PREFIX
	cgroup_of "$1" x | grep -qx "/apps/$2~[0-9a-f]\{16\}"
}
placed_encoded() { wait_until 30 encoded "$1" "$2"; }

program tasks
run_as "${TAG}u" "$T/bin/tasks" 300; pt=$LAST
ok "a program named tasks is placed below /apps" placed_encoded "$pt" tasks
program cgroup.procs
run_as "${TAG}u" "$T/bin/cgroup.procs" 300; pc=$LAST
ok "so is one named cgroup.procs" placed_encoded "$pc" 'cgroup\.procs'
ok "and neither move failed" sh -c "! grep -q 'Not a directory' '$T/daemon.log'"

# two names whose FNV-1a-32 hashes (the tail used before) are equal
x40=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
n1=${x40}00000000000000462789
n2=${x40}00000000000000679192
program "$n1"; program "$n2"
run_as "${TAG}u" "$T/bin/$n1" 300; p1=$LAST
run_as "${TAG}u" "$T/bin/$n2" 300; p2=$LAST
x31=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
ok "a long name is cut to 31 bytes and a keyed tail" placed_encoded "$p1" "$x31"
placed_encoded "$p2" "$x31" || diag "the second long name was not placed"
g1=$(cgroup_of "$p1" x); g2=$(cgroup_of "$p2" x)
ok "two long names whose old tails collided get two groups ($g1, $g2)" \
	test -n "$g1" -a -n "$g2" -a "$g1" != "$g2"

# a program named exactly like the first one's group
shaped=$(basename "$g1")
program "$shaped"
run_as "${TAG}u" "$T/bin/$shaped" 300; p3=$LAST
# (setpriv, which run_as starts it through, is placed by the rule first)
ok "a program named like an encoded group is encoded in turn" placed_encoded "$p3" "$x31"
isnt_g1() { [ "$(cgroup_of "$p3" x)" != "$g1" ]; }
ok "and does not get that group" isnt_g1

# the same key after a restart: the same groups
daemon_stop
daemon_start || bail "daemon again"
run_as "${TAG}u" "$T/bin/$n1" 300; p4=$LAST
ok "after a restart the same name gets the same group" wait_group "$p4" x "$g1"
done_testing
