# SPDX-License-Identifier: GPL-2.0-or-later
# daemon.sh -- shared set-up for the cgengined integration tests, safe
# on a shared machine:
#   - private named v1 hierarchies mounted under a temporary directory
#   - throwaway users and groups with a unique prefix
#   - test-only program names (copies of sleep/true) in the temp dir
#   - the daemon manages only the test's hierarchies, with test-local
#     socket, pid and log paths, and is stopped by its pid
# Everything is undone at the end: by done_testing, which then checks,
# as one more test, that no hierarchy of the test is left in the kernel
# (see tests/lib/v1hier.sh), or by the EXIT trap if the test stops early.
#
# Needs: SRCDIR, BUILDDIR in the environment (set by make check).

: "${SRCDIR:=.}" "${BUILDDIR:=.}"
BUILDDIR=$(cd "$BUILDDIR" && pwd) # daemons and scripts run from elsewhere
. "$SRCDIR/tests/tap/tap.sh"
. "$SRCDIR/tests/lib/v1hier.sh"

CGENGINED="$BUILDDIR/cgengined"
TAG="cgt$$"
T=$(mktemp -d "/tmp/cgetest-$TAG.XXXXXX")
HIERS=""      # mount points
USERS=""      # users and groups to delete
GROUPS_=""
KIDS=""       # pids of processes the test started
DAEMON_PID=""

cleanup() {
	daemon_stop
	stop_kids
	set --
	for m in $HIERS; do set -- "$@" "$m:$TAG$(basename "$m")"; done
	HIERS=""
	[ $# -eq 0 ] || v1_release "$@"
	for u in $USERS; do userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
	for g in $GROUPS_; do groupdel "$g" >/dev/null 2>&1; done
	USERS="" GROUPS_=""
	rm -rf "$T"
}
# the names of this test's hierarchies the kernel still has
lingering() {
	grep -o ":name=$TAG[a-z][^:]*:" /proc/self/cgroup | tr -d : | tr '\n' ' '
}
# the last check of every test: tear down, and no hierarchy is left
teardown_check() {
	cleanup
	left=$(lingering)
	is "" "$left" "teardown: no hierarchy of this test is left in /proc/self/cgroup"
}
tap_final teardown_check
trap 'cleanup; [ -z "$(lingering)" ] || diag "left in the kernel: $(lingering)"' EXIT
trap 'exit 1' INT TERM

# v2_subtree NAME: make the private sub-tree $V2/$SUB (SUB=NAME) of the
# cgroup2 mount, removed (with every group below it) at exit after
# cleanup; 1 when there is no cgroup2 mount
v2_subtree() {
	V2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	[ -n "$V2" ] || return 1
	SUB=$1
	mkdir "$V2/$SUB" || bail "cannot make a private sub-tree of $V2"
	trap v2cleanup EXIT
}
v2cleanup() {
	cleanup
	[ -d "$V2/$SUB" ] && find "$V2/$SUB" -depth -type d -exec rmdir {} \; 2>/dev/null
	[ ! -d "$V2/$SUB" ] || diag "$V2/$SUB left behind"
}

require_root() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root"
	command -v useradd >/dev/null || skip_all "needs useradd"
	command -v setpriv >/dev/null || skip_all "needs setpriv"
	[ -x "$CGENGINED" ] || skip_all "cgengined not built"
	mkdir -p "$T/probe"
	if ! mount -t cgroup -o "none,name=${TAG}probe" cgroup "$T/probe" 2>/dev/null; then
		skip_all "cannot mount a named cgroup v1 hierarchy"
	fi
	v1_release "$T/probe:${TAG}probe"
}

# mount_hier SHORT: mounts name=$TAG$SHORT at $T/h/SHORT; sets $H_<SHORT>
mount_hier() {
	mkdir -p "$T/h/$1"
	mount -t cgroup -o "none,name=$TAG$1" cgroup "$T/h/$1" || bail "mount $1"
	HIERS="$T/h/$1 $HIERS"
}

# add_group NAME
add_group() {
	groupadd --system "$1" || bail "groupadd $1"
	GROUPS_="$GROUPS_ $1"
}

# add_user NAME [EXTRA-GROUPS]
add_user() {
	useradd --system --no-create-home --user-group --shell /bin/sh \
		${2:+--groups "$2"} "$1" || bail "useradd $1"
	USERS="$USERS $1"
}

# program NAME [SOURCE]: a test-only copy of sleep (or SOURCE) at $T/bin/NAME
program() {
	mkdir -p "$T/bin"
	cp "${2:-$(command -v sleep)}" "$T/bin/$1"
	chmod 755 "$T" "$T/bin" "$T/bin/$1"
}

# run_as USER PROG ARGS...: start in the background as USER; sets $LAST
run_as() {
	u=$1; shift
	setpriv --reuid="$u" --regid="$u" --init-groups "$@" &
	LAST=$!
	KIDS="$KIDS $LAST"
}

# start PROG ARGS...: start in the background as root; sets $LAST
start() {
	"$@" &
	LAST=$!
	KIDS="$KIDS $LAST"
}

# cgroup_of PID SHORT: the group of PID in hierarchy SHORT
cgroup_of() {
	sed -n "s/^[0-9]*:name=$TAG$2:\(.*\)$/\1/p" "/proc/$1/cgroup" 2>/dev/null
}

# in_group PID SHORT WANT: PID is in group WANT of hierarchy SHORT
in_group() {
	[ "$(cgroup_of "$1" "$2")" = "$3" ]
}
# wait_group PID SHORT WANT [SECONDS]: wait until PID is in WANT
wait_group() {
	wait_until "${4:-30}" in_group "$1" "$2" "$3"
}

# runs PID PROGRAM: PID has exec'd PROGRAM (a path)
runs() {
	[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ]
}

# events_done PROGRAM SHORT WANT: start PROGRAM, which a rule sends to
# WANT in hierarchy SHORT, and wait until it is there.  The daemon
# handles process events in order, so by then it has handled every
# event before it: what it has not moved until now, it did not move.
events_done() {
	start "$1" 300
	wait_group "$LAST" "$2" "$3"
}

# write_config EXTRA-LINES: config for the managed test hierarchies
# (the state file in $T/state unless EXTRA-LINES name one: never the
# machine's); CGENGINE_EVENT_SOURCE (auto, bpf, netlink) sets
# event-source unless EXTRA-LINES do (make check-root-netlink)
write_config() {
	hl=""
	for h in $MANAGED; do hl="$hl${hl:+, }\"name=$TAG$h\""; done
	case "$1" in
	*state-file*) state="" ;;
	*) state="state-file = \"$T/state/boosts.state\"" ;;
	esac
	# last, so no line a test writes moves (check-t names them)
	case "$1" in
	*event-source*) src="" ;;
	*) src=${CGENGINE_EVENT_SOURCE:+"event-source = \"$CGENGINE_EVENT_SOURCE\""} ;;
	esac
	cat >"$T/cgengined.conf" <<EOC
rules = "$T/cgrules.conf"
rules-dir = ""
hierarchies = {$hl}
sticky-socket = "${STICKY:-$T/cgred.socket}"
control-socket = "$T/control.sock"
pidfile = "$T/cgengined.pid"
log-level = "debug"
$1
template-key = "$T/template.key"
$state
$src
EOC
}

# daemon_start [ARGS...]: run cgengined in the foreground, wait until ready
daemon_start() {
	: >"$T/daemon.log"
	# start-up messages (before the log file is opened) go to stderr
	"$CGENGINED" -n -c "$T/cgengined.conf" -l "$T/daemon.log" "$@" 2>>"$T/daemon.log" &
	DAEMON_PID=$!
	wait_until 30 daemon_ready_or_dead
	grep -q "ready: running processes classified" "$T/daemon.log" && return 0
	diag "daemon did not start:"; sed 's/^/#   /' "$T/daemon.log" >&2
	return 1
}
daemon_ready_or_dead() {
	grep -q "ready: running processes classified" "$T/daemon.log" ||
		! kill -0 "$DAEMON_PID" 2>/dev/null
}

daemon_stop() {
	[ -n "$DAEMON_PID" ] || return 0
	kill "$DAEMON_PID" 2>/dev/null
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_RC=$?
	DAEMON_PID=""
}

# wait_log PATTERN [SECONDS]: wait for a line in the daemon log
wait_log() {
	wait_until "${2:-30}" grep -q -- "$1" "$T/daemon.log"
}

# reload_daemon [SIGNAL]: SIGHUP (or SIGNAL), then wait until the log
# shows one more successful reload than before (an older "reloaded" line
# must not count)
reload_daemon() {
	reloads_before=$(daemon_reloads)
	kill -"${1:-HUP}" "$DAEMON_PID"
	wait_until 30 daemon_reloaded_since "$reloads_before"
}
daemon_reloads() { grep -c "reloaded: " "$T/daemon.log"; }
daemon_reloaded_since() { [ "$(daemon_reloads)" -gt "$1" ]; }

# daemon_sync: one request through the control socket; whatever the
# daemon was doing when it was sent (a reload and its rescan, a signal,
# events already queued) is done when the answer comes
daemon_sync() {
	"$BUILDDIR/cgenginectl" -s "$T/control.sock" status >/dev/null 2>&1
}

# alive PID: running, not a zombie (an orphaned daemon that exited
# stays a zombie until init reaps it, which may take a while)
alive() {
	st=$(ps -o stat= -p "$1" 2>/dev/null)
	[ -n "$st" ] && [ "${st#Z}" = "$st" ]
}
gone() { ! alive "$1"; }

# stop_kids: kill every process the test started so far
stop_kids() {
	for p in $KIDS; do kill -9 "$p" 2>/dev/null; done
	for p in $KIDS; do wait "$p" 2>/dev/null; done
	KIDS=""
}

# log_quiet: wait until the daemon has logged nothing for over a second,
# so the socket servers' log limiter (a few lines a second) starts
# afresh and the next refusal is logged
log_quiet() {
	prev=-1
	for i in $(seq 30); do
		cur=$(wc -l <"$T/daemon.log")
		[ "$cur" = "$prev" ] && return 0
		prev=$cur
		sleep 1.2
	done
	return 1
}
