#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One reload path: `cgenginectl reload` and SIGHUP take effect alike.
# Each reload here changes the daemon's nice and names an nftables set
# for a group; after either one the daemon runs at the new nice, fills
# the set, watches the ruleset (a flushed set is filled again) and tells
# systemd RELOADING=1 then READY=1.  (The control socket's reload used
# to skip all but the rules.)  A private sub-tree of this machine's
# cgroup2 mount and a private nftables table.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
command -v nft >/dev/null || skip_all "needs nft (nftables)"
V2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$V2" ] || skip_all "no cgroup2 mount"
NFT="cgetest_rp_$$"
nft add table inet "$NFT" 2>/dev/null || skip_all "cannot make an nftables table"
plan 13

SUB="cgetest_rp_$$"
mkdir "$V2/$SUB" || bail "cannot make a private sub-tree of $V2"
rpcleanup() {
	cleanup
	nft delete table inet "$NFT" 2>/dev/null
	[ -d "$V2/$SUB" ] && find "$V2/$SUB" -depth -type d -exec rmdir {} \; 2>/dev/null
	[ ! -d "$V2/$SUB" ] || diag "$V2/$SUB left behind"
}
trap rpcleanup EXIT
nft add set inet "$NFT" one '{ type cgroupsv2; }' && nft add set inet "$NFT" two '{ type cgroupsv2; }' ||
	bail "cannot make the sets"

mount_hier x; MANAGED="x"
program "${TAG}www"
echo "*:${TAG}www  net_cls  /www" >"$T/cgrules.conf"
config() { # NICE [SET]
	grp=""
	[ -z "${2:-}" ] || grp="group \"net_cls:/www\" { nft-set = {\"inet $NFT $2\"} }"
	write_config "nice = $1
unified-layout = {\"net_cls\"}
unified-root = \"/$SUB\"
$grp"
}
config 0
"$BUILDDIR/tests/lib/notifyrecv" "$T/notify.sock" >"$T/notify.out" & KIDS="$KIDS $!"
wait_until 30 test -S "$T/notify.sock"
NOTIFY_SOCKET="$T/notify.sock" daemon_start || bail "daemon"
start "$T/bin/${TAG}www" 300
ok "the program is in its v2 group" wait_until 30 grep -q "^0::/$SUB/www$" "/proc/$LAST/cgroup"

nice_is() { [ "$(ps -o ni= -p "$DAEMON_PID" | tr -d ' ')" = "$1" ]; }
filled() { nft list set inet "$NFT" "$1" | grep -q 'elements = '; }
until_ok() { wait_until 30 "$@"; }
readies() { grep -c '^READY=1$' "$T/notify.out"; }
reloads() { grep -c '^RELOADING=1' "$T/notify.out"; }

# check HOW NICE SET: the effects of one reload
check() {
	ok "$1: the daemon runs at nice $2" until_ok nice_is "$2"
	ok "$1: set $3 holds the group's id" until_ok filled "$3"
	nft flush set inet "$NFT" "$3"
	ok "$1: the ruleset is watched: a flushed set is filled again" until_ok filled "$3" ||
		{ diag "daemon log:"; tail -15 "$T/daemon.log" | sed "s/^/#   /" >&2; }
	ok "$1: systemd was told RELOADING=1" until_ok test "$(reloads)" -eq "$4"
	ok "$1: and READY=1 after it" until_ok test "$(readies)" -eq "$(($4 + 1))"
}

config 4 one
out=$("$BUILDDIR/cgenginectl" -s "$T/control.sock" reload)
is "reloaded: 1 rules" "$out" "cgenginectl reload answers"
check "cgenginectl reload" 4 one 1

config 7 two
reload_daemon
ok "SIGHUP reloads" true
check "SIGHUP" 7 two 2
daemon_stop
done_testing
