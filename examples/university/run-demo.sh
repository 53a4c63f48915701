#!/bin/sh
# run-demo.sh -- the university scenario, end to end, on any machine.
#
# Mounts three private named cgroup hierarchies (cpu, mem, net), creates
# demo users (cgdemo_prof, cgdemo_stud) and groups, starts cgengined in
# the foreground on them, runs sample programs as each user and shows
# where every process landed.  Then removes everything it made.
# Run as root from the source tree after building.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CGENGINED=${CGENGINED:-$top/cgengined}
[ "$(id -u)" -eq 0 ] || { echo "run-demo.sh: run as root" >&2; exit 1; }
[ -x "$CGENGINED" ] || { echo "run-demo.sh: build first ($CGENGINED missing)" >&2; exit 1; }

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
	for h in cpu mem net; do
		mountpoint -q "$D/$h" && release "$D/$h" "cgdemo_$h"
	done
	for u in cgdemo_prof cgdemo_stud; do userdel "$u" 2>/dev/null; done
	for g in cgdemo_profs cgdemo_students; do groupdel "$g" 2>/dev/null; done
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

say() { printf '\n==> %s\n' "$*"; }

say "mounting private hierarchies name=cgdemo_cpu, name=cgdemo_mem, name=cgdemo_net under $D"
for h in cpu mem net; do
	mkdir -p "$D/$h"
	mount -t cgroup -o "none,name=cgdemo_$h" cgroup "$D/$h" || exit 1
done

say "creating demo users cgdemo_prof (group cgdemo_profs) and cgdemo_stud (group cgdemo_students)"
groupadd --system cgdemo_profs && groupadd --system cgdemo_students || exit 1
useradd --system --no-create-home --user-group -G cgdemo_profs cgdemo_prof || exit 1
useradd --system --no-create-home --user-group -G cgdemo_students cgdemo_stud || exit 1

mkdir -p "$D/bin"
for p in browser nfsd shell batch; do cp "$(command -v sleep)" "$D/bin/cgdemo-$p"; done
chmod -R a+rx "$D/bin"
sed "s|@DIR@|$D|g" "$here/cgengined.conf.in" >"$D/cgengined.conf"
cp "$here/cgrules.conf.in" "$D/cgrules.conf"

say "the rules ($D/cgrules.conf)"
grep -v '^#' "$D/cgrules.conf"

say "checking the setup: cgengined --check"
"$CGENGINED" --check -c "$D/cgengined.conf" || exit 1

say "starting cgengined in the foreground (its log follows)"
"$CGENGINED" -n -c "$D/cgengined.conf" &
DAEMON=$!
sleep 1

run() { # USER PROGRAM
	setpriv --reuid="$1" --regid="$1" --init-groups "$D/bin/cgdemo-$2" 600 &
	KIDS="$KIDS $!"
	eval "pid_$(echo "$1" | tr -d _)_$2=$!"
}
say "starting sample programs"
for u in cgdemo_prof cgdemo_stud; do
	for p in shell browser nfsd batch; do run "$u" "$p"; done
done
sleep 1

say "where each process landed"
printf '%-12s %-16s %-22s %-12s %-16s\n' USER PROGRAM CPU MEM NET
for u in cgdemo_prof cgdemo_stud; do
	for p in shell browser nfsd batch; do
		eval "pid=\$pid_$(echo "$u" | tr -d _)_$p"
		g() { sed -n "s/^[0-9]*:name=cgdemo_$1:\(.*\)$/\1/p" "/proc/$pid/cgroup"; }
		printf '%-12s %-16s %-22s %-12s %-16s\n' "$u" "cgdemo-$p" "$(g cpu)" "$(g mem)" "$(g net)"
	done
done

say "stopping; the student's /students/cgdemo_stud group is removed once empty"
for p in $KIDS; do kill "$p" 2>/dev/null; done
sleep 3
kill "$DAEMON"; wait "$DAEMON" 2>/dev/null; DAEMON=""
say "done; cleaning up"
