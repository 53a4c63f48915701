#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# GNOME's focused app (gnome-foreground, engined/daemon/gnomefg.c) in
# the real daemon: the watcher is given a tree of plain directories the
# test makes in its own directory (user-UID.slice/user@UID.service/
# app.slice/SCOPE, each scope's cgroup.procs naming the test's own
# processes) and the test sets Mutter's xattr on them: a scope focused
# before the start is the foreground once the daemon is ready, "-1" on
# another moves it, another value changes nothing, a removed scope ends
# its grant.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
SETX="$BUILDDIR/tests/lib/setxattr"
"$SETX" "$T" user.cgetest 1 2>/dev/null || skip_all "$T has no user xattrs"
plan 9

mount_hier net; MANAGED="net"
add_user "${TAG}a"
program "${TAG}job"
cat >"$T/cgrules.conf" <<EOF
*:${TAG}job   name=${TAG}net   /jobs
EOF
write_config "foreground-profile = \"fg\"
gnome-foreground = \"$T/users\"
boost-profile \"fg\" {
    allow = {\"${TAG}a\"}
    hierarchy = \"name=${TAG}net\"
    destination = \"/fg\"
    max-duration = \"1d\"
}"
uid=$(id -u "${TAG}a")
APPS="$T/users/user-$uid.slice/user@$uid.service/app.slice"
mkdir -p "$APPS"
# scope NAME PID: a scope holding PID
scope() { mkdir "$APPS/$1" && echo "$2" >"$APPS/$1/cgroup.procs"; }
mark() { "$SETX" "$APPS/$1" user.xdg.inactive-since "$2"; }

run_as "${TAG}a" "$T/bin/${TAG}job" 300; pa=$LAST
run_as "${TAG}a" "$T/bin/${TAG}job" 301; pb=$LAST
scope app-a.scope "$pa"
mark app-a.scope -1
daemon_start || bail "daemon"
ok "a scope focused before the start is the foreground" wait_group "$pa" net /fg
ok "the daemon says so" \
	wait_log "gnome: uid $uid focused $APPS/app-a.scope: pid $pa is the foreground"

scope app-b.scope "$pb"
daemon_sync
ok "B is placed by the rules" wait_group "$pb" net /jobs
mark app-b.scope -1
ok "\"-1\" on B moves the foreground to it" wait_group "$pb" net /fg
ok "A loses it" wait_group "$pa" net /jobs
mark app-a.scope 1733460000000000
daemon_sync
is /fg "$(cgroup_of "$pb" net)" "another value on A changes nothing"
is /jobs "$(cgroup_of "$pa" net)" "A stays where it is"

rm "$APPS/app-b.scope/cgroup.procs"; rmdir "$APPS/app-b.scope"
ok "a removed scope ends its grant" wait_log "gnome: $APPS/app-b.scope was removed"
ok "its process is back in its class" wait_group "$pb" net /jobs
done_testing
