#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run-demo.sh -- the university scenario, end to end, on any machine.
#
# Mounts four private named cgroup hierarchies (cgdemo_cpu, _mem, _disk,
# _net), creates demo users (cgdemo_prof, cgdemo_stud, cgdemo_sys),
# starts cgengined in the foreground on them with this directory's
# rules and hooks.lua, runs sample programs as each user, shows where
# every process landed and why (cgenginectl explain), grants a boost,
# then removes everything it made.  Run as root after building.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CGENGINED=${CGENGINED:-$top/cgengined}
CGENGINECTL=${CGENGINECTL:-$top/cgenginectl}
[ "$(id -u)" -eq 0 ] || { echo "run-demo.sh: run as root" >&2; exit 1; }
for b in "$CGENGINED" "$CGENGINECTL"; do
	[ -x "$b" ] || { echo "run-demo.sh: build first ($b missing)" >&2; exit 1; }
done
HIERS="cpu mem disk net"
USERS="cgdemo_prof cgdemo_stud cgdemo_sys"
PROGS="shell browser nfsd batch"

D=$(mktemp -d /tmp/cgengine-demo.XXXXXX)
chmod 755 "$D"
KIDS=""; DAEMON=""
# Remove a hierarchy's groups and unmount it.  The kernel keeps a v1
# hierarchy alive when a child group (even a dying one) exists at
# unmount time, so make sure it is gone and retry if it is not.
release() { # MOUNTPOINT NAME
	for try in $(seq 50); do
		find "$1" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
		umount "$1" 2>/dev/null
		sleep 0.1
		grep -q "name=$2:" /proc/self/cgroup || return 0
		mount -t cgroup -o "none,name=$2" cgroup "$1" 2>/dev/null || return 1
	done
	umount "$1" 2>/dev/null # never leave it mounted
	echo "run-demo.sh: could not release hierarchy $2" >&2
}
cleanup() {
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
	for p in $KIDS; do kill "$p" 2>/dev/null; done
	for p in $KIDS; do wait "$p" 2>/dev/null; done
	sleep 0.2
	for h in $HIERS; do
		mountpoint -q "$D/$h" && release "$D/$h" "cgdemo_$h"
	done
	for u in $USERS; do userdel "$u" 2>/dev/null; done
	for g in cgdemo_profs cgdemo_students; do groupdel "$g" 2>/dev/null; done
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

say() { printf '\n==> %s\n' "$*"; }
ctl() { "$CGENGINECTL" -s "$D/control.sock" "$@"; }

say "mounting private hierarchies name=cgdemo_{cpu,mem,disk,net} under $D"
for h in $HIERS; do
	mkdir -p "$D/$h"
	mount -t cgroup -o "none,name=cgdemo_$h" cgroup "$D/$h" || exit 1
done

say "creating demo users: cgdemo_prof (group cgdemo_profs), cgdemo_stud (cgdemo_students), cgdemo_sys"
groupadd --system cgdemo_profs && groupadd --system cgdemo_students || exit 1
useradd --system --no-create-home --user-group -G cgdemo_profs cgdemo_prof || exit 1
useradd --system --no-create-home --user-group -G cgdemo_students cgdemo_stud || exit 1
useradd --system --no-create-home --user-group cgdemo_sys || exit 1

mkdir -p "$D/bin"
for p in $PROGS; do cp "$(command -v sleep)" "$D/bin/cgdemo-$p"; done
chmod -R a+rx "$D/bin"
sed "s|@DIR@|$D|g" "$here/cgengined.conf.in" >"$D/cgengined.conf"
cp "$here/cgrules.conf.in" "$D/cgrules.conf"
sed -e 's|^local CPU = .*|local CPU = "name=cgdemo_cpu"|' \
    -e 's|^local NET = .*|local NET = "name=cgdemo_net"|' "$here/hooks.lua" >"$D/hooks.lua"

say "the rules ($D/cgrules.conf, comments left out)"
grep -v '^#' "$D/cgrules.conf"

say "checking config, rules and Lua hook: cgengined --check"
"$CGENGINED" --check -c "$D/cgengined.conf" || exit 1

say "starting cgengined in the foreground (its log follows)"
"$CGENGINED" -n -c "$D/cgengined.conf" &
DAEMON=$!
i=0; while [ ! -S "$D/control.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
sleep 0.5

say "starting sample programs as each user"
for u in $USERS; do
	for p in $PROGS; do
		setpriv --reuid="$u" --regid="$u" --init-groups "$D/bin/cgdemo-$p" 600 &
		KIDS="$KIDS $!"
		eval "pid_$(echo "$u" | tr -d _)_$p=$!"
	done
done
sleep 1

pid_of() { eval "echo \$pid_$(echo "$1" | tr -d _)_$2"; }
g() { sed -n "s/^[0-9]*:name=cgdemo_$2:\(.*\)$/\1/p" "/proc/$1/cgroup"; }

say "where each process landed"
printf '%-12s %-16s %-22s %-10s %-10s %-16s\n' USER PROGRAM CPU MEM DISK NET
for u in $USERS; do
	for p in $PROGS; do
		pid=$(pid_of "$u" "$p")
		printf '%-12s %-16s %-22s %-10s %-10s %-16s\n' "$u" "cgdemo-$p" \
			"$(g "$pid" cpu)" "$(g "$pid" mem)" "$(g "$pid" disk)" "$(g "$pid" net)"
	done
done

for u in cgdemo_prof cgdemo_stud; do
	for p in browser batch; do
		pid=$(pid_of "$u" "$p")
		say "cgenginectl explain $pid   ($u's cgdemo-$p)"
		ctl explain "$pid"
	done
done

pid=$(pid_of cgdemo_stud browser)
say "the student boosts its own browser through the fast-www profile for 15m"
setpriv --reuid=cgdemo_stud --regid=cgdemo_stud --init-groups \
	"$CGENGINECTL" -s "$D/control.sock" boost --profile fast-www "$pid" 15m
ctl boosts
echo "student's browser is now in net: $(g "$pid" net)"
say "and ends it early; the rules (and hook) take over again"
ctl unboost "$pid"
sleep 0.3
echo "student's browser is back in net: $(g "$pid" net)"

say "cgenginectl status"
ctl status

say "stopping the sample programs; empty per-user groups are removed"
for p in $KIDS; do kill "$p" 2>/dev/null; done
sleep 3
kill "$DAEMON"; wait "$DAEMON" 2>/dev/null; DAEMON=""
say "done; cleaning up"
