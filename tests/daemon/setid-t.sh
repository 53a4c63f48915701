#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# UID and GID changes without exec reclassify -- also in the middle of
# a storm of execs, when the daemon reads uid changes only as the next
# exec wakes it up; %u templates create groups on demand with their
# configured settings and remove them once they are empty.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 11

mount_hier cpu; MANAGED="cpu"
add_group "${TAG}studs"
add_user "${TAG}s" "${TAG}studs"
add_user "${TAG}x"
uid=$(id -u "${TAG}s"); gid=$(id -g "${TAG}s")
xuid=$(id -u "${TAG}x"); sgid=$(getent group "${TAG}studs" | cut -d: -f3)
cat >"$T/cgrules.conf" <<EOF
${TAG}s               name=${TAG}cpu   /students/%u
@${TAG}studs          name=${TAG}cpu   /studs-by-gid
EOF
write_config "group \"name=${TAG}cpu:/students/%u\" {
    set = {\"notify_on_release=1\"}
}"
daemon_start || bail "daemon"
SETID="$BUILDDIR/tests/lib/setid"

start "$SETID" "$uid" "$gid" 0.3 300; p1=$LAST
ok "setuid without exec: classified by the new uid" wait_group "$p1" cpu "/students/${TAG}s"
ok "the %u group was created" test -d "$T/h/cpu/students/${TAG}s"
is "1" "$(cat "$T/h/cpu/students/${TAG}s/notify_on_release" 2>/dev/null)" \
	"settings configured for the template were applied"
ok "creation is logged" grep -F "created group name=${TAG}cpu:/students/${TAG}s" "$T/daemon.log"

start "$SETID" - "$sgid" 0.3 300; p2=$LAST
ok "setgid without exec: classified by the new egid" wait_group "$p2" cpu /studs-by-gid

start "$SETID" "$xuid" - 0.3 300; p3=$LAST
uid_is() { [ "$(awk '/^Uid:/ { print $2 }' "/proc/$1/status")" = "$2" ]; }
wait_until 30 uid_is "$p3" "$xuid"
# events are handled in order: once a later change is, so was this one
start "$SETID" - "$sgid" 0 300
wait_group "$LAST" cpu /studs-by-gid || diag "the later setgid was not classified"
is "/" "$(cgroup_of "$p3" cpu)" "a uid no rule names is left alone"

# execs one after another (root's: no rule moves them) keep the daemon
# from watching uid changes on their own
program "${TAG}short" /bin/true
sh -c "i=0; while [ \$i -lt 5000 ]; do '$T/bin/${TAG}short'; i=\$((i+1)); done" & s=$!
KIDS="$KIDS $s"
sleep 0.5
start "$SETID" "$uid" "$gid" 0.2 300; p4=$LAST
ok "setuid without exec during a storm of execs: classified" \
	wait_group "$p4" cpu "/students/${TAG}s" 5
kill "$s" "$p4" 2>/dev/null; wait "$s" "$p4" 2>/dev/null

kill "$p1"; wait "$p1" 2>/dev/null
ok "the empty template group is removed" wait_log "removed empty group name=${TAG}cpu:/students/${TAG}s" 10
ok "and its directory is gone" sh -c "! test -d '$T/h/cpu/students/${TAG}s'"
ok "the parent of the template group is kept" test -d "$T/h/cpu/students"
ok "groups not made from templates are never removed" test -d "$T/h/cpu/studs-by-gid"
done_testing
