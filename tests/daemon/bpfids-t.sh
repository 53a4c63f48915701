#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# On the eBPF event source, uid and gid changes without exec come
# through the BPF program's socket filter on the connector, filtered by
# the same keys as the execs: a change to a uid some rule names reaches
# the daemon and is classified, one to a uid no rule names never
# reaches it -- unless the process's exec passed (it may not be
# classified yet); and where that filter cannot load, the daemon reads
# the connector's events as before, saying so.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 12

mount_hier cls; MANAGED="cls"
add_user "${TAG}a"; add_user "${TAG}b"; add_group "${TAG}g"
auid=$(id -u "${TAG}a"); buid=$(id -u "${TAG}b"); bgid=$(id -g "${TAG}b")
cat >"$T/cgrules.conf" <<EOF
${TAG}a name=${TAG}cls /a
@${TAG}g name=${TAG}cls /g
EOF
SETID="$BUILDDIR/tests/lib/setid"
CTL="$BUILDDIR/cgenginectl"

# status: the UID events the daemon has read
uids() {
	"$CTL" -s "$T/control.sock" status | sed -n 's/^events: .* uid \([0-9]*\),.*/\1/p'
}
uids_are() { [ "$(uids)" = "$1" ]; }
uids_above() { [ "$(uids)" -gt "$1" ]; }

write_config 'event-source = "bpf"'
daemon_start || bail "daemon"
if grep -q "uid and gid changes: netlink" "$T/daemon.log"; then
	diag "$(grep "uid and gid changes" "$T/daemon.log")"
	skip 11 "the BPF filter on uid and gid changes does not load here"
	done_testing
fi
ok "the BPF program takes the uid and gid changes" \
	grep -q "uid and gid changes: bpf" "$T/daemon.log"

before=$(uids)
start "$SETID" "$auid" - 0.2 300; p1=$LAST
ok "setuid without exec to a uid a rule names: classified" wait_group "$p1" cls /a
is "$((before + 1))" "$(uids)" "its change reached the daemon"

# a change to a uid no rule names, then one to a uid a rule names:
# handled in order, so once the second is, the first never came
before=$(uids)
start "$SETID" "$buid" - 0 300; p2=$LAST
uid_is() { [ "$(awk '/^Uid:/ { print $2 }' "/proc/$1/status")" = "$2" ]; }
wait_until 30 uid_is "$p2" "$buid"
start "$SETID" "$auid" - 0 300; p3=$LAST
wait_group "$p3" cls /a || diag "the second change was not classified"
is "$((before + 1))" "$(uids)" "a change to a uid no rule names never reaches the daemon"
is "/" "$(cgroup_of "$p2" cls)" "and that process is left alone"

# exec'd by root with the effective gid g, placed, then b's gid and
# uid: its exec passed, so its changes do
before=$(uids)
setpriv --egid="${TAG}g" --keep-groups "$SETID" "$buid" "$bgid" 0.5 300 &
p4=$!; KIDS="$KIDS $p4"
ok "a process exec'd with a gid a rule names is placed" wait_group "$p4" cls /g
ok "its change to ids no rule names reaches the daemon" wait_until 30 uids_are "$((before + 1))"
ok "it is classified by its new ids: left where it is" in_group "$p4" cls /g
daemon_stop; stop_kids

# the filter cannot load: the connector's events, as before
CGENGINED_TEST_BPF_NOIDS=1 daemon_start || bail "daemon"
ok "without the BPF filter the log says so, and why" grep -q \
	"uid and gid changes: netlink (their BPF filter did not load: Operation not permitted)" \
	"$T/daemon.log"
is "event source: bpf" "$("$CTL" -s "$T/control.sock" status | grep '^event source:')" \
	"execs still come from the BPF program"
before=$(uids)
start "$SETID" "$buid" - 0 300
ok "a change to a uid no rule names reaches the daemon then" wait_until 30 uids_above "$before"
start "$SETID" "$auid" - 0.2 300
ok "and setuid without exec is classified" wait_group "$LAST" cls /a
done_testing
