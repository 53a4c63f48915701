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
# wait_for SECONDS CMD...: retry CMD until it succeeds or SECONDS pass
wait_for() {
	end=$(($(date +%s) + $1)); shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.05
	done
}
# Remove a hierarchy's groups and unmount it.  The kernel keeps a v1
# hierarchy alive, unmounted, when a child group (even one just removed
# and still dying) exists at unmount time; dying groups do not show, so
# give them time, and after the unmount make sure the hierarchy has left
# /proc/self/cgroup; while it has not, mount it again, wait, unmount.
listed() { grep -q "^[0-9]*:name=$1:" /proc/self/cgroup; }
unlisted() { ! listed "$1"; }
emptied() { # MOUNTPOINT: every group removed
	find "$1" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
	[ -z "$(find "$1" -mindepth 1 -type d | head -n 1)" ]
}
unmounted() { # MOUNTPOINT NAME: unmounted and gone, else mounted again
	umount "$1" 2>/dev/null
	wait_for 2 unlisted "$2" && return 0
	mount -t cgroup -o "none,name=$2" cgroup "$1" 2>/dev/null
	sleep 0.5
	return 1
}
release() { # MOUNTPOINT NAME
	wait_for 30 emptied "$1"
	sleep 0.5
	wait_for 60 unmounted "$1" "$2" && return 0
	umount "$1" 2>/dev/null # never leave it mounted
	echo "run-demo.sh: could not release hierarchy $2" >&2
}
cleanup() {
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
	for p in $KIDS; do kill "$p" 2>/dev/null; done
	for p in $KIDS; do wait "$p" 2>/dev/null; done
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
wait_for 30 ctl status >/dev/null 2>&1 || { echo "run-demo.sh: the daemon did not start" >&2; exit 1; }

say "starting sample programs as each user"
for u in $USERS; do
	for p in $PROGS; do
		setpriv --reuid="$u" --regid="$u" --init-groups "$D/bin/cgdemo-$p" 600 &
		KIDS="$KIDS $!"
		eval "pid_$(echo "$u" | tr -d _)_$p=$!"
	done
done

pid_of() { eval "echo \$pid_$(echo "$1" | tr -d _)_$2"; }
g() { sed -n "s/^[0-9]*:name=cgdemo_$2:\(.*\)$/\1/p" "/proc/$1/cgroup"; }
# placed PID PROGRAM: PID runs PROGRAM and is where the daemon wants it
# in every hierarchy (explain: CURRENT = WANTED on every row)
placed() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] || return 1
	out=$(ctl explain "$1" 2>/dev/null) || return 1
	echo "$out" | awk 'NR > 2 && $2 != $3 { bad = 1 } END { exit bad }'
}
in_net() { [ "$(g "$1" net)" = "$2" ]; }
for u in $USERS; do
	for p in $PROGS; do
		wait_for 30 placed "$(pid_of "$u" "$p")" "cgdemo-$p" ||
			echo "run-demo.sh: $u's cgdemo-$p was not placed in time" >&2
	done
done

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
wait_for 30 in_net "$pid" /www/fast
echo "student's browser is now in net: $(g "$pid" net)"
say "and ends it early; the rules (and hook) take over again"
ctl unboost "$pid"
wait_for 30 placed "$pid" cgdemo-browser
echo "student's browser is back in net: $(g "$pid" net)"

say "cgenginectl status"
ctl status

say "stopping the sample programs; empty per-user groups are removed"
for p in $KIDS; do kill "$p" 2>/dev/null; done
for p in $KIDS; do wait "$p" 2>/dev/null; done
KIDS=""
wait_for 30 test ! -d "$D/cpu/students/cgdemo_stud"
kill "$DAEMON"; wait "$DAEMON" 2>/dev/null; DAEMON=""
say "done; cleaning up"
