#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A fork/exec storm of a few thousand short-lived processes as a test
# user, with long-lived processes started in the middle of it: every
# long-lived process must end up in its group, and the daemon survives.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 12

mount_hier cls; MANAGED="cls"
add_user "${TAG}u"
program "${TAG}long"; program "${TAG}short" /bin/true
cat >"$T/cgrules.conf" <<EOF
${TAG}u:${TAG}long    name=${TAG}cls   /long
${TAG}u               name=${TAG}cls   /user
EOF
write_config 'log-level = "info"'
daemon_start || bail "daemon"

storm() { # 1000 execs of the short program, as the test user
	setpriv --reuid="${TAG}u" --regid="${TAG}u" --init-groups sh -c \
		"i=0; while [ \$i -lt 1000 ]; do '$T/bin/${TAG}short' || exit 1; i=\$((i+1)); done" \
		2>>"$T/storm.err"
}
storm & s1=$!; storm & s2=$!; storm & s3=$!
KIDS="$KIDS $s1 $s2 $s3"
longs=""
for n in 1 2 3 4 5; do
	sleep 0.3
	run_as "${TAG}u" "$T/bin/${TAG}long" 300; longs="$longs $LAST"
done
rc=0
for s in $s1 $s2 $s3; do wait $s || rc=1; done
is 0 "$rc" "3,000 short-lived processes ran"
n=0
for p in $longs; do
	n=$((n + 1))
	ok "long-lived process $n is in /long" wait_group "$p" cls /long 10
done
ok "the daemon survived the storm" kill -0 "$DAEMON_PID"
run_as "${TAG}u" "$T/bin/${TAG}long" 300
ok "and still classifies afterwards" wait_group "$LAST" cls /long
ok "nothing failed to move" sh -c "! grep -q 'cannot move' '$T/daemon.log'"
ok "the user's other processes went to /user" grep -q "to name=${TAG}cls:/user " "$T/daemon.log"

# spawns that drop privileges, then exec (setgroups, setresgid,
# setresuid, execve: a GID, a UID and an EXEC event each), 4 at a time:
# each is classified at its EXEC, and before only if the exec came more
# than 2 ms after the uid change -- so once or twice, never more (a
# classification is a move or, at debug level, "already in").  (Not at
# its EXEC when the probe saw itself placed before and ended first; and
# a move made while the process is in execve can be lost in the kernel,
# so the classification at its EXEC may move it again.)
mark=$(wc -l <"$T/daemon.log")
out=$("$BUILDDIR/bench/loadgen" -d "$DAEMON_PID" -u "$(id -u "${TAG}u")" -g "$(id -g "${TAG}u")" \
	-n 300 -c 4 -t 5000 -p "$BUILDDIR/bench/probe" "name=${TAG}cls=/user")
eval "$out"
is 300 "${classified:-0}" "300 spawns that drop privileges were classified"
tail -n +"$((mark + 1))" "$T/daemon.log" |
	sed -n 's/.*moved pid \([0-9]*\) .* to name=.*cls:\/user .*/\1/p;
		s/.* pid \([0-9]*\) (.*) already in name=.*cls:\/user$/\1/p' | sort | uniq -c >"$T/classified"
is "300 0" "$(awk '{ n++; if ($1 > 2) more++ } END { print n + 0, more + 0 }' "$T/classified")" \
	"each classified, none more than twice"
done_testing
