# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lib.sh -- what the root benchmarks share; sourced, not run.
#
#   bench_release MOUNTPOINT NAME
#       unmount a private named v1 hierarchy so that the kernel lets it
#       go: it keeps one alive while a group just removed is still dying,
#       so unmount, and while it is still listed, mount it again, empty,
#       and repeat (as tests/lib/v1hier.sh does for the tests)
#   bench_gate_setup SCRATCH-PREFIX
#       the exec gate benchmarks' world (TAG set by the caller): a
#       scratch directory D=/tmp/SCRATCH-PREFIX.XXXXXX with bin/, the
#       private named hierarchy name=$TAG mounted at $D/h, the throwaway
#       user $TAG (U, G), and a trap that stops the daemon (DAEMON, by
#       its pid) and removes all of it again
#   bench_gate_count NAME
#       one of the gate daemon's counters, gate_NAME, as its control
#       socket $D/control.sock tells it (cgenginectl of the tree $top)
#   bench_conf FILE RULES HIERARCHIES SOCKET PIDFILE LOG-LEVEL [LINE...]
#       write the daemon's cgengined.conf FILE: rules = RULES, no
#       rules-dir, hierarchies = the names in HIERARCHIES (one word,
#       names separated by spaces: "name=X_a name=X_b" is written
#       {"name=X_a", "name=X_b"}), no sticky-socket, control-socket =
#       SOCKET, pidfile = PIDFILE, no state-file, log-level = LOG-LEVEL,
#       in that order; then each LINE as it is, one a line (an empty
#       LINE, an empty line): the keys a benchmark sets on top
#       (event-source, nice, exec-gate, ...)

bench_release() {
	for try in $(seq 50); do
		find "$1" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
		umount "$1" 2>/dev/null
		sleep 0.1
		grep -q "name=$2:" /proc/self/cgroup || return 0
		mount -t cgroup -o "none,name=$2" cgroup "$1" 2>/dev/null || return 1
	done
	umount "$1" 2>/dev/null
}

bench_gate_cleanup() {
	[ -n "$DAEMON" ] && { kill "$DAEMON" 2>/dev/null; wait "$DAEMON" 2>/dev/null; }
	sleep 0.2
	mountpoint -q "$D/h" && bench_release "$D/h" "$TAG"
	userdel "$TAG" 2>/dev/null; groupdel "$TAG" 2>/dev/null
	rm -rf "$D"
}

bench_gate_setup() {
	D=$(mktemp -d "/tmp/$1.XXXXXX") || exit 1
	chmod 755 "$D"
	DAEMON=""
	trap bench_gate_cleanup EXIT
	trap 'exit 1' INT TERM HUP PIPE
	mkdir -p "$D/h" "$D/bin"
	mount -t cgroup -o "none,name=$TAG" cgroup "$D/h" || exit 1
	useradd --system --no-create-home --user-group "$TAG" || exit 1
	U=$(id -u "$TAG"); G=$(id -g "$TAG")
}

bench_gate_count() {
	"$top/cgenginectl" -s "$D/control.sock" --json status |
		sed -n "s/.*\"gate_$1\": *\([0-9]*\).*/\1/p"
}

bench_conf() {
	bench_conf_h=""
	for bench_conf_n in $3; do
		bench_conf_h="$bench_conf_h${bench_conf_h:+, }\"$bench_conf_n\""
	done
	{
		cat <<EOF
rules = "$2"
rules-dir = ""
hierarchies = {$bench_conf_h}
sticky-socket = ""
control-socket = "$4"
pidfile = "$5"
state-file = ""
log-level = "$6"
EOF
		shift 6
		[ $# -eq 0 ] || printf '%s\n' "$@"
	} >"$1"
}
