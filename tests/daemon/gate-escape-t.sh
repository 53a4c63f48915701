#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The exec gate (issue 32, items 1 and 2): a placement at the gate holds
# only for an exec the kernel carried out as the gate foresaw.  A user
# execs a set-user-ID copy of sleep owned by another test user, whose
# rule names it (/owner); no rule names the user itself:
#   - the exec works: placed at the gate, and stays
#   - the exec fails after the gate (EFAULT argv) and another program is
#     exec'd at once: moved back, and stays back
#   - the exec fails, then the process forks: the child goes back too
#   - traced by an unprivileged tracer (PTRACE_TRACEME): never /owner
#   - from a new user namespace (unshare -U), where the owner has no
#     mapping: never /owner
#   - through a mount of another mount namespace (/proc/PID/root of the
#     user's own process in one): never /owner
. "$SRCDIR/tests/lib/daemon.sh"
require_root
PROBE="$BUILDDIR/tests/lib/gateprobe"
[ -x "$PROBE" ] || skip_all "tests/lib/gateprobe not built"
plan 19

mount_hier cls; MANAGED="cls"
add_user "${TAG}u"
add_user "${TAG}o"
U=$(id -u "${TAG}u"); G=$(id -g "${TAG}u")
program "${TAG}suid" # a copy of sleep, set-user-ID the owner
chown "${TAG}o" "$T/bin/${TAG}suid"
chmod 4755 "$T/bin/${TAG}suid"
program "${TAG}next" # a copy of sleep no rule names
if findmnt -no OPTIONS -T "$T/bin" | grep -qw nosuid; then
	skip_all "$T is on a nosuid mount"
fi
printf '%s\n' "${TAG}o:$T/bin/${TAG}suid   name=${TAG}cls   /owner" >"$T/cgrules.conf"
# info: the gate says when it decides by the caller's own credentials
write_config 'log-level = "info"
realtime-priority = 10
exec-gate = true'
daemon_start || bail "daemon"
if ! grep -q "exec gate open" "$T/daemon.log"; then
	diag "$(grep 'exec gate' "$T/daemon.log")"
	skip_all "no exec gate here (fanotify permission events unavailable)"
fi
# as the user; in the background: "$AS_U" ... & (not a function: $! is
# then the process itself, not a subshell)
AS_U="setpriv --reuid=$U --regid=$G --init-groups"
SUID="$T/bin/${TAG}suid"
W="$T/w"
mkdir -p "$W" && chmod 777 "$W"

# the set-user-ID exec that works: placed at the gate, and stays
$AS_U "$SUID" 300 &
good=$!; KIDS="$KIDS $good"
ok "a set-user-ID exec that works is placed in the owner's group" wait_group "$good" cls /owner 5
sleep 1
is "/owner" "$(cgroup_of "$good" cls)" "... and stays there"

# 1. the exec fails (EFAULT), and another program is exec'd at once
$AS_U "$PROBE" efault-exec "$SUID" "name=${TAG}cls" "$T/bin/${TAG}next" 300 >"$W/a" &
a=$!; KIDS="$KIDS $a"
wait_until 5 test -s "$W/a"
is "/owner" "$(cat "$W/a")" "a failed exec: the gate had moved the process while it was held"
ok "followed at once by another exec: moved back" wait_group "$a" cls / 5
sleep 1
is "/" "$(cgroup_of "$a" cls)" "... and it stays back"
ok "the log says so" grep -qF "pid $a did not run the binary its exec was held for; moved back to name=${TAG}cls:/" "$T/daemon.log"

# 2. the exec fails, then the process forks
$AS_U "$PROBE" efault-fork "$SUID" "name=${TAG}cls" >"$W/b" &
b=$!; KIDS="$KIDS $b"
wait_until 5 test -s "$W/b"
read -r bgroup bchild <"$W/b"
KIDS="$KIDS $bchild"
is "/owner" "$bgroup" "a failed exec, then a fork: the gate had moved the process"
ok "the process is moved back" wait_group "$b" cls / 5
ok "... and the child it forked meanwhile too" wait_group "$bchild" cls / 5
sleep 1
is "/ /" "$(cgroup_of "$b" cls) $(cgroup_of "$bchild" cls)" "... and they stay back"
ok "the log says so" grep -qF "pid $bchild was forked while the exec of pid $b was on its way; moved back to name=${TAG}cls:/" "$T/daemon.log"

# 3. under ptrace by an unprivileged tracer the kernel does not apply
# set-user-ID: the caller's code would run in the owner's class
$AS_U "$PROBE" traceme "$SUID" "name=${TAG}cls" suid 300 >"$W/c"
read -r cgroup ceuid cchild <"$W/c"
KIDS="$KIDS $cchild"
is "$U" "$ceuid" "a traced set-user-ID exec runs with the caller's uid"
is "/" "$cgroup" "... and is not in the owner's group after its exec"
sleep 1
is "/" "$(cgroup_of "$cchild" cls)" "... nor later"
ok "the log says why" grep -qF "exec gate: pid $cchild: the kernel may not apply the set-id bits of $SUID (traced, another user namespace, or sharing its filesystem information); decided by its own credentials" "$T/daemon.log"

# 4. from a new user namespace, where the owner has no mapping
if ! $AS_U unshare -U true 2>/dev/null; then
	skip 2 "unprivileged user namespaces are not allowed here (unshare -U failed)"
else
	$AS_U unshare -U "$SUID" 300 &
	d=$!; KIDS="$KIDS $d"
	sleep 1
	is "/" "$(cgroup_of "$d" cls)" "a set-user-ID exec from a new user namespace is not in the owner's group"
	ok "the log says why" grep -qF "exec gate: pid $d: the kernel may not apply the set-id bits of $SUID" "$T/daemon.log"
fi
# 5. through a mount of another mount namespace (the user's own, by
# /proc/PID/root): the kernel does not apply set-user-ID there
if ! $AS_U unshare -U -m true 2>/dev/null; then
	skip 2 "unprivileged user and mount namespaces are not allowed here"
else
	$AS_U unshare -U -m "$T/bin/${TAG}next" 300 &
	ns=$!; KIDS="$KIDS $ns"
	runs_next() { [ "$(readlink "/proc/$ns/exe")" = "$T/bin/${TAG}next" ]; }
	wait_until 5 runs_next
	$AS_U "/proc/$ns/root$SUID" 300 &
	e=$!; KIDS="$KIDS $e"
	sleep 1
	is "$U" "$(awk '/^Uid:/ { print $3 }' "/proc/$e/status")" \
		"a set-user-ID exec through another mount namespace's mount runs with the caller's uid"
	is "/" "$(cgroup_of "$e" cls)" "... and is not in the owner's group"
fi
done_testing
