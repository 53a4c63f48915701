#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/gate-rename.sh -- the exec gate's window after a gated binary is
# replaced by rename (as a package upgrade does: the new file is written
# as NAME.new and renamed over NAME).  The new inode carries no mark
# until the daemon has read inotify's IN_MOVED_TO and marked it; an exec
# of NAME in between is not held, and the program starts outside its
# class.  COUNT times (default 100):
#   - a new copy of bench/probe is written to gated.new beside the gated
#     binary and renamed over it (rename(2));
#   - at once a process of the test user, waiting for that moment
#     (forked and set to the user's ids beforehand), execs the gated
#     path; the probe looks at /proc/self/cgroup once, as the first
#     thing its main() does, and says whether it is in its group;
#   - the time from the rename until the daemon's log line "was
#     replaced; the new binary is held" appears (written right after the
#     new mark is set), polled every 50 us by the renaming process.
# Prints how many probes started outside their group, how many execs
# the gate did not hold (the daemon's gate_execs counter), the rename
# to main() times and the rename to mark times.
# Run as root from a built tree:
#   sh bench/gate-rename.sh          (COUNT=100; RT=10: the daemon at
#                                     realtime-priority 10)
# or, built out of the tree:  BUILDDIR=/path/to/build sh bench/gate-rename.sh
# Safety (SPEC 9): a private named hierarchy, a throwaway user, binaries
# in a temporary directory, the daemon stopped by its pid.
set -u
top=$(cd "${BUILDDIR:-$(dirname "$0")/..}" && pwd)
B=$top/bench
[ "$(id -u)" -eq 0 ] || { echo "bench/gate-rename.sh: run as root" >&2; exit 1; }
for f in "$top/cgengined" "$top/cgenginectl" "$B/probe"; do
	[ -x "$f" ] || { echo "bench/gate-rename.sh: build first (make); $f missing" >&2; exit 1; }
done
command -v perl >/dev/null 2>&1 || { echo "bench/gate-rename.sh: needs perl" >&2; exit 1; }
COUNT=${COUNT:-100}
TAG=${BENCH_TAG:-cgren}$$
. "$(dirname "$0")/lib.sh"
bench_gate_setup cgengine-gate-rename
cp "$B/probe" "$D/bin/gated"
chmod 755 "$D/bin" "$D/bin/gated"
: >"$D/results"; chmod 666 "$D/results"
cat >"$D/cgrules.conf" <<EOF
$TAG:$D/bin/gated   name=$TAG   /gated
EOF
bench_conf "$D/cgengined.conf" "$D/cgrules.conf" "name=$TAG" "$D/control.sock" \
	"$D/cgengined.pid" notice "exec-gate = true" "realtime-priority = ${RT:-0}"
"$top/cgengined" -n -c "$D/cgengined.conf" -l "$D/cgengined.log" & DAEMON=$!
i=0; while ! grep -q "exec gate: 1 of 1 binary" "$D/cgengined.log" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1)); done
if ! grep -q "exec gate: 1 of 1 binary" "$D/cgengined.log"; then
	echo "bench/gate-rename.sh: the gate did not open:" >&2
	cat "$D/cgengined.log" >&2
	exit 1
fi
sleep 0.5
# One perl process does the COUNT rounds, so that nothing but a write to
# a pipe lies between the rename and the waiting process's exec.  Each
# round: copy, fork the user's process (it opens the results file, takes
# the user's ids, waits on the pipe and execs with the file as fd 3),
# rename, write the rename's CLOCK_MONOTONIC time to the pipe (the
# probe's START_NS), poll the log for the daemon's line, reap the
# process, read the gate's counter of held execs.  One line per round
# on stdout: "ROUND RENAME_TO_LOG_US GATE_EXECS" (-1: no line within
# 2 s).
cat >"$D/rounds.pl" <<'EOF'
use strict;
use warnings;
use POSIX ();
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC usleep);
my ($count, $dir, $probe, $log, $results, $tag, $uid, $gid, $ctl) = @ARGV;
my $gated = "$dir/bin/gated";
$SIG{PIPE} = 'IGNORE'; # a process that failed to start shows as a missing record
my ($size, $lines) = (-1, 0);
sub log_lines { # the daemon's "was replaced" lines so far; read again only when the log grew
	my $s = -s $log // 0;
	return $lines if $s == $size;
	open(my $f, '<', $log) or return $lines;
	$lines = grep { /was replaced; the new binary is held/ } <$f>;
	close($f);
	$size = $s;
	return $lines;
}
for my $round (1 .. $count) {
	system('cp', $probe, "$gated.new") == 0 or die "cp: $?";
	chmod(0755, "$gated.new") or die "chmod: $!";
	pipe(my $r, my $w) or die "pipe: $!";
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		close($w);
		open(my $out, '>>', $results) or POSIX::_exit(3);
		POSIX::setgid($gid) or POSIX::_exit(3);
		$) = "$gid $gid";
		POSIX::setuid($uid) or POSIX::_exit(3);
		my $start = <$r>;
		POSIX::_exit(3) unless defined $start;
		chomp($start);
		POSIX::dup2(fileno($out), 3) or POSIX::_exit(3); # the pipe may be fd 3
		{ exec { $gated } $gated, $start, 0, "name=$tag=/gated" }
		POSIX::_exit(4);
	}
	close($r);
	my $before = log_lines();
	usleep(20000); # the child is waiting on the pipe by now
	rename("$gated.new", $gated) or die "rename: $!";
	my $t0 = clock_gettime(CLOCK_MONOTONIC);
	syswrite($w, sprintf("%d\n", $t0 * 1e9));
	close($w);
	my $us = -1;
	while (clock_gettime(CLOCK_MONOTONIC) - $t0 < 2) {
		if (log_lines() > $before) {
			$us = int((clock_gettime(CLOCK_MONOTONIC) - $t0) * 1e6);
			last;
		}
		usleep(50);
	}
	waitpid($pid, 0);
	my $held = `$ctl -s $dir/control.sock --json status`;
	$held = $held =~ /"gate_execs": *(\d+)/ ? $1 : -1;
	print "$round $us $held\n";
	usleep(100000); # let the daemon settle before the next round
}
EOF
load0=$(cut -d' ' -f1-3 /proc/loadavg)
held0=$(bench_gate_count execs); wdog0=$(bench_gate_count watchdog)
perl "$D/rounds.pl" "$COUNT" "$D" "$B/probe" "$D/cgengined.log" "$D/results" \
	"$TAG" "$U" "$G" "$top/cgenginectl" >"$D/marks" || exit 1
held=$(($(bench_gate_count execs) - held0)); wdog=$(($(bench_gate_count watchdog) - wdog0))
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# results: "<latency_us> <pid> <first_us> <seen_us>" per probe, latency -1
# when it was not in /gated at its one look; first_us: rename to main()
n=$(wc -l <"$D/results")
out=$(awk '$1 < 0' "$D/results" | wc -l)
pct() { # FILE COLUMN P: the P-th percentile of a column
	sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
		i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print v[i] }'
}
awk '$2 >= 0 { print $2 }' "$D/marks" >"$D/mark_us"
awk '{ print $3 }' "$D/results" >"$D/main_us"
awk '$1 < 0 { print $3 }' "$D/results" >"$D/out_main_us"
echo "cgengined exec gate, rename over a gated binary and exec at once: $(nproc) CPUs, $(uname -r), realtime-priority ${RT:-0}"
echo "load (1, 5, 15 min) at start $load0, at end $load1"
echo "rounds: $COUNT; probes that reported: $n"
echo "started outside their group (not in it at their first look): $out of $n"
echo "execs the gate held: $held of $COUNT (so $((COUNT - held)) not held); let go by its watchdog: $wdog"
echo "rename to the probe's main(), us: p50 $(pct "$D/main_us" 50) p90 $(pct "$D/main_us" 90) max $(pct "$D/main_us" 100)"
echo "  of those outside their group:   p50 $(pct "$D/out_main_us" 50) max $(pct "$D/out_main_us" 100)"
echo "rename to the daemon's log line (the new inode marked), us, polled every 50 us:"
echo "  p50 $(pct "$D/mark_us" 50) p90 $(pct "$D/mark_us" 90) p99 $(pct "$D/mark_us" 99) max $(pct "$D/mark_us" 100); missing: $(awk '$2 < 0' "$D/marks" | wc -l)"
# each round the gate did not hold (its counter did not grow), with the
# probe's record of that round (rounds and records are in the same order)
[ "$n" -eq "$COUNT" ] && paste -d' ' "$D/marks" "$D/results" | awk -v h="$held0" '
	{ if ($3 == h) printf "  not held: round %d, rename to mark %d us, to main() %d us, %s\n",
		$1, $2, $6, $4 < 0 ? "outside its group at its first look" : "already placed at its first look"
	  h = $3 }'
