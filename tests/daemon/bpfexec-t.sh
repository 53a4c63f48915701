#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# On the eBPF event source an exec is classified from what the BPF
# program read at the exec (credentials, comm, the parent, the
# executable's path), not from /proc: the path is the one /proc/PID/exe
# gives (through a symlinked directory, across a mount), the daemon
# opens no status and reads no exe link for such an exec, and the
# program the exec ran decides even when /proc has changed its mind
# since (the binary renamed before the daemon looked); nor does it read
# /proc/PID/cgroup before a move: the record tells the groups it was in
# at the exec.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 11

mount_hier cls; MANAGED="cls"
add_user "${TAG}u"
P="${TAG}p"
program "$P"; program "${P}r"
mkdir -p "$T/mnt"; ln -s bin "$T/link"
cat >"$T/cgrules.conf" <<RULES
*:$T/bin/$P name=${TAG}cls /bin
*:$T/mnt/$P name=${TAG}cls /mnt
*:$T/bin/${P}r name=${TAG}cls /renamed
RULES
write_config 'event-source = "auto"'
daemon_start || bail "daemon"
if ! grep -q "event source: bpf" "$T/daemon.log"; then
	skip 11 "the BPF program does not load here"
	done_testing
fi
ok "the BPF program runs" true

traced() { grep -q "^TracerPid:[[:space:]]*[1-9]" "/proc/$DAEMON_PID/status"; }
TRACER=""
if command -v strace >/dev/null; then
	strace -f -qq -p "$DAEMON_PID" -e trace=openat,open,readlink,readlinkat \
		-o "$T/strace.out" &
	TRACER=$!
	if ! wait_until 10 traced; then # ptrace not allowed here (Yama)
		kill "$TRACER" 2>/dev/null; wait "$TRACER" 2>/dev/null; TRACER=""
	fi
fi

# a symlinked directory: the path is the link's target's
run_as "${TAG}u" "$T/link/$P" 300; viasym=$LAST
ok "an exec through a symlinked directory is placed by its real path" \
	wait_group "$viasym" cls /bin
# a bind mount, in a mount namespace of its own: the path through it
unshare -m --propagation private sh -c \
	"mount --bind '$T/bin' '$T/mnt' && exec setpriv --reuid='${TAG}u' --regid='${TAG}u' \
	--init-groups '$T/mnt/$P' 300" &
viamnt=$!; KIDS="$KIDS $viamnt"
ok "an exec across a mount is placed by the path through the mount" \
	wait_group "$viamnt" cls /mnt

if [ -n "$TRACER" ]; then
	daemon_sync
	kill "$TRACER"; wait "$TRACER" 2>/dev/null
	ok "the trace saw the daemon open where it moved them" \
		grep -q "cgroup.procs" "$T/strace.out"
	is "" "$(grep -E "/proc/($viasym|$viamnt)/cgroup" "$T/strace.out")" \
		"no groups read for them: the record tells where they were"
	is "" "$(grep -E "/proc/($viasym|$viamnt)/status" "$T/strace.out")" \
		"no status opened for them"
	is "" "$(grep -E "/proc/($viasym|$viamnt)/exe" "$T/strace.out")" \
		"no exe link read for them"
else
	skip 4 "no strace, or it cannot attach"
fi

# already where its rule sends it (its shell put itself there): the
# record's group id is the destination's, so nothing moves
sh -c "echo \$\$ >'$T/h/cls/bin/cgroup.procs' && exec setpriv --reuid='${TAG}u' \
	--regid='${TAG}u' --init-groups '$T/bin/$P' 300" &
inplace=$!; KIDS="$KIDS $inplace"
ok "a process already in place is left there, as the record says" \
	wait_log "pid $inplace ([^)]*) already in name=${TAG}cls:/bin"
is "" "$(grep "moved pid $inplace " "$T/daemon.log")" "it is not moved"

# renamed after the exec, before the daemon looks: /proc says the new
# name, the exec ran the old one
kill -STOP "$DAEMON_PID"
run_as "${TAG}u" "$T/bin/${P}r" 300; renamed=$LAST
wait_until 10 runs "$renamed" "$T/bin/${P}r" || bail "no exec"
mv "$T/bin/${P}r" "$T/bin/${P}x"
is "$T/bin/${P}x" "$(readlink "/proc/$renamed/exe")" "/proc now names the binary otherwise"
kill -CONT "$DAEMON_PID"
ok "the exec is placed by what it ran" wait_group "$renamed" cls /renamed
daemon_stop; stop_kids
done_testing
