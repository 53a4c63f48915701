#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Lost events: with a tiny receive buffer a storm makes the kernel drop
# process events (ENOBUFS).  The daemon must count and log the loss,
# grow its buffer, rescan /proc, and still leave every long-lived
# process in its group.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 8

mount_hier cls; MANAGED="cls"
add_user "${TAG}u"
program "${TAG}long"; program "${TAG}short" /bin/true
echo "${TAG}u:${TAG}long name=${TAG}cls /long" >"$T/cgrules.conf"
write_config 'netlink-buffer = 1
bpf-buffer = 1
log-level = "notice"'
daemon_start || bail "daemon"

# stop the daemon reading for a moment so the kernel must drop events
kill -STOP "$DAEMON_PID"
storm() {
	setpriv --reuid="${TAG}u" --regid="${TAG}u" --init-groups sh -c \
		"i=0; while [ \$i -lt 400 ]; do '$T/bin/${TAG}short' || exit 1; i=\$((i+1)); done"
}
storm & s1=$!; KIDS="$KIDS $s1"
longs=""
for n in 1 2 3; do
	run_as "${TAG}u" "$T/bin/${TAG}long" 300; longs="$longs $LAST"
done
wait $s1
kill -CONT "$DAEMON_PID"
ok "the loss is logged" wait_log "kernel dropped process events" 5
ok "and a rescan follows" wait_log "rescanning /proc after lost events" 5
n=0
for p in $longs; do
	n=$((n + 1))
	ok "long-lived process $n is in /long despite the lost events" wait_group "$p" cls /long 10
done
ok "the daemon is still running" kill -0 "$DAEMON_PID"
run_as "${TAG}u" "$T/bin/${TAG}long" 300
ok "and classifies new processes" wait_group "$LAST" cls /long
ok "the buffer grew" grep -q "receive buffer now" "$T/daemon.log"
done_testing
