#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The university scenario: CPU class by user, network class by program,
# at the same time (per-hierarchy semantics); the same file under
# first-match semantics behaves like libcgroup's cgrulesengd.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 17

mount_hier cpu; mount_hier net; MANAGED="cpu net"
add_group "${TAG}profs"; add_group "${TAG}studs"
add_user "${TAG}p" "${TAG}profs"; add_user "${TAG}s" "${TAG}studs"
program "${TAG}browser"; program "${TAG}nfs"; program "${TAG}shell"
cat >"$T/cgrules.conf" <<EOF
# university server
@${TAG}profs          name=${TAG}cpu   /profs
@${TAG}studs          name=${TAG}cpu   /students
*:${TAG}browser       name=${TAG}net   /www
*:$T/bin/${TAG}nfs    name=${TAG}net   /nfs
EOF
write_config

run_as "${TAG}s" "$T/bin/${TAG}shell" 300; early=$LAST
wait_until 30 runs "$early" "$T/bin/${TAG}shell" # before the daemon starts
daemon_start || bail "daemon"
ok "a student shell started before the daemon is classified" wait_group "$early" cpu /students

run_as "${TAG}p" "$T/bin/${TAG}browser" 300; pb=$LAST
run_as "${TAG}p" "$T/bin/${TAG}nfs" 300; pn=$LAST
run_as "${TAG}s" "$T/bin/${TAG}browser" 300; sb=$LAST
run_as "${TAG}s" "$T/bin/${TAG}nfs" 300; sn=$LAST
ok "professor's browser: cpu /profs" wait_group "$pb" cpu /profs
ok "professor's browser: net /www" wait_group "$pb" net /www
ok "professor's nfs: cpu /profs" wait_group "$pn" cpu /profs
ok "professor's nfs: net /nfs" wait_group "$pn" net /nfs
ok "student's browser: cpu /students" wait_group "$sb" cpu /students
ok "student's browser: net /www" wait_group "$sb" net /www
ok "student's nfs: cpu /students" wait_group "$sn" cpu /students
ok "student's nfs: net /nfs" wait_group "$sn" net /nfs
# (the command name may still be setpriv's: a uid change waits at most
# 2 ms for its exec, then is classified on its own)
ok "every move is logged with pid, comm, hierarchy, destination and rule" \
	grep -q "moved pid $pb ([^)]*) to name=${TAG}net:/www ($T/cgrules.conf:4)" "$T/daemon.log"
ok "an unrelated process of ours is left alone" sh -c "! grep -q 'moved pid $$ ' '$T/daemon.log'"

# the same rules, libcgroup's first-match semantics
daemon_stop
stop_kids
write_config 'match = "first-match"'
daemon_start || bail "daemon"
run_as "${TAG}p" "$T/bin/${TAG}browser" 300; pb=$LAST
run_as "${TAG}s" "$T/bin/${TAG}nfs" 300; sn=$LAST
start "$T/bin/${TAG}browser" 300; rb=$LAST
ok "first-match: professor's browser: cpu /profs" wait_group "$pb" cpu /profs
is "/" "$(cgroup_of "$pb" net)" "first-match: professor's browser: net left alone"
ok "first-match: student's nfs: cpu /students" wait_group "$sn" cpu /students
is "/" "$(cgroup_of "$sn" net)" "first-match: student's nfs: net left alone"
ok "first-match: root's browser: net /www" wait_group "$rb" net /www
is "/" "$(cgroup_of "$rb" cpu)" "first-match: root's browser: cpu left alone"
done_testing
