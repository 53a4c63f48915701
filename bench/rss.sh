#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/rss.sh -- cgengined's resident memory (VmRSS, and VmHWM, its
# peak) once it is ready, at 10, 1,000 and 100,000 rules, on each event
# source: the BPF program (libbpf and the skeleton mapped in) and the
# proc connector.  Idle: no storm, so the figure is the daemon's own.
#
# Run as root from a built tree:  sh bench/rss.sh
# Optional: RSS_SIZES="10 1000 100000"; RSS_SMAPS=DIR keeps each
# daemon's /proc/PID/smaps there, as DIR/smaps.RULES.SOURCE.
# Safety: two private named hierarchies and a throwaway user, named
# after this shell's pid; the daemon stopped by its pid; all removed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench/rss.sh: run as root" >&2; exit 1; }
[ -x "$top/cgengined" ] || { echo "bench/rss.sh: build first (make)" >&2; exit 1; }
. "$top/bench/lib.sh" # bench_release, bench_conf
TAG=cgrss$$
D=$(mktemp -d "/tmp/cgengine-rss.XXXXXX")
DAEMON=""
cleanup() {
	[ -n "$DAEMON" ] && { kill "$DAEMON" 2>/dev/null; wait "$DAEMON" 2>/dev/null; }
	sleep 0.2
	for h in a b; do mountpoint -q "$D/$h" && bench_release "$D/$h" "${TAG}_$h"; done
	userdel "$TAG" 2>/dev/null; groupdel "$TAG" 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE
for h in a b; do
	mkdir -p "$D/$h"
	mount -t cgroup -o "none,name=${TAG}_$h" cgroup "$D/$h" || exit 1
done
useradd --system --no-create-home --user-group "$TAG" || exit 1

printf '%-8s %-8s %10s %10s\n' RULES SOURCE RSS_KIB HWM_KIB
for n in ${RSS_SIZES:-10 1000 100000}; do
	awk -v n="$n" -v t="$TAG" 'BEGIN {
		for (i = 0; i < n - 1; i++)
			printf "*:benchprog%d name=%s_a /other%d\n", i, t, i
		printf "%s name=%s_a,name=%s_b /bench\n", t, t, t
	}' >"$D/rules"
	for src in bpf netlink; do
		bench_conf "$D/cgengined.conf" "$D/rules" "name=${TAG}_a name=${TAG}_b" \
			"$D/control.sock" "$D/cgengined.pid" notice "event-source = \"$src\""
		: >"$D/log"
		"$top/cgengined" -n -c "$D/cgengined.conf" -l "$D/log" &
		DAEMON=$!
		i=0
		until grep -q "ready:" "$D/log" || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
		grep -q "ready:" "$D/log" || { echo "bench/rss.sh: not ready:" >&2; cat "$D/log" >&2; exit 1; }
		sleep 1
		awk -v n="$n" -v s="$src" '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 }
			END { printf "%-8s %-8s %10s %10s\n", n, s, r, h }' "/proc/$DAEMON/status"
		[ -n "${RSS_SMAPS:-}" ] && cp "/proc/$DAEMON/smaps" "$RSS_SMAPS/smaps.$n.$src"
		kill "$DAEMON"; wait "$DAEMON" 2>/dev/null; DAEMON=""
	done
done
