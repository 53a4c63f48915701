#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# place-bench.sh LABEL N USER PROGRAM PATTERN -- placement measured in
# the VM lane's guest (systemd-t.sh runs it; bench/README.md has the
# figures).  Starts PROGRAM as USER N times, one after another, and each
# time waits (1 ms naps on a FIFO, no busy loop on the guest's one CPU)
# until its /proc/PID/cgroup contains PATTERN.  Prints the latency
# percentiles from spawn to placed, and the CPU time PID 1 and the
# daemon used per placement (their utime + stime, in clock ticks).
label=$1 n=$2 user=$3 prog=$4 pat=$5
hz=$(getconf CLK_TCK)
ticks() {
	local f
	read -r -a f <"/proc/$1/stat"
	echo $((f[13] + f[14]))
}
fifo=$(mktemp -u)
mkfifo "$fifo" && exec 9<>"$fifo" && rm -f "$fifo"
d=$(systemctl show -p MainPID --value cgengined)
c0=$(ticks 1) d0=$(ticks "$d") gone=0
lat=()
for ((i = 0; i < n; i++)); do
	t0=$EPOCHREALTIME
	setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups "$prog" 60 </dev/null &
	p=$!
	l=""
	for ((k = 0; k < 5000; k++)); do
		read -r l <"/proc/$p/cgroup" || break
		[[ $l == *"$pat"* ]] && break
		read -r -t 0.001 -u 9
	done
	t1=$EPOCHREALTIME
	[[ $l == *"$pat"* ]] || gone=$((gone + 1))
	lat+=($((${t1/./} - ${t0/./})))
	kill "$p"
	wait "$p" 2>/dev/null
done
c1=$(ticks 1) d1=$(ticks "$d")
printf '%s\n' "${lat[@]}" | sort -n | awk -v l="$label" -v n="$n" -v g="$gone" '
	{ v[NR] = $1 }
	END { printf "placed %s: %d of %d, latency us p50 %d p90 %d max %d\n",
		l, n - g, n, v[int(NR * 0.5) + 1], v[int(NR * 0.9) + 1], v[NR] }'
echo "cpu $label: PID 1 $(((c1 - c0) * 1000000 / hz / n)) us, cgengined $(((d1 - d0) * 1000000 / hz / n)) us per placement (ticks of $((1000000 / hz)) us)"
