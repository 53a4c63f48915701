# SPDX-License-Identifier: GPL-2.0-or-later
# daemon.sh -- shared set-up for the cgengined integration tests, safe
# on a shared machine (SPEC section 9):
#   - private named v1 hierarchies mounted under a temporary directory
#   - throwaway users and groups with a unique prefix
#   - test-only program names (copies of sleep/true) in the temp dir
#   - the daemon manages only the test's hierarchies, with test-local
#     socket, pid and log paths, and is stopped by its pid
# Everything is undone by an EXIT trap.
#
# Needs: SRCDIR, BUILDDIR in the environment (set by make check).

: "${SRCDIR:=.}" "${BUILDDIR:=.}"
BUILDDIR=$(cd "$BUILDDIR" && pwd) # daemons and scripts run from elsewhere
. "$SRCDIR/tests/tap/tap.sh"

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
	for p in $KIDS; do kill -9 "$p" 2>/dev/null; done
	for p in $KIDS; do wait "$p" 2>/dev/null; done
	sleep 0.1
	for m in $HIERS; do
		release_hier "$m" "$TAG$(basename "$m")" || diag "hierarchy at $m not released"
	done
	for u in $USERS; do userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
	for g in $GROUPS_; do groupdel "$g" >/dev/null 2>&1; done
	rm -rf "$T"
}
# release_hier MOUNTPOINT NAME: remove the groups (deepest first) and
# unmount.  The kernel keeps a v1 hierarchy alive if it still has a
# child group at unmount time -- even one just removed and still dying
# -- so check that it is really gone, and if not, mount it again and
# repeat.
release_hier() {
	for try in $(seq 50); do
		find "$1" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
		umount "$1" 2>/dev/null
		sleep 0.1
		grep -q "name=$2:" /proc/self/cgroup || { rmdir "$1" 2>/dev/null; return 0; }
		mount -t cgroup -o "none,name=$2" cgroup "$1" 2>/dev/null || return 1
	done
	find "$1" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
	umount "$1" 2>/dev/null # never leave it mounted
	return 1
}

trap cleanup EXIT
trap 'exit 1' INT TERM

require_root() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root"
	command -v useradd >/dev/null || skip_all "needs useradd"
	command -v setpriv >/dev/null || skip_all "needs setpriv"
	[ -x "$CGENGINED" ] || skip_all "cgengined not built"
	mkdir -p "$T/probe"
	if ! mount -t cgroup -o "none,name=${TAG}probe" cgroup "$T/probe" 2>/dev/null; then
		skip_all "cannot mount a named cgroup v1 hierarchy"
	fi
	umount "$T/probe"
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

# wait_group PID SHORT WANT [SECONDS]: wait until PID is in WANT
wait_group() {
	i=0; lim=$(( ${4:-5} * 20 ))
	while [ $i -lt $lim ]; do
		[ "$(cgroup_of "$1" "$2")" = "$3" ] && return 0
		sleep 0.05; i=$((i + 1))
	done
	return 1
}

# write_config EXTRA-LINES: config for the managed test hierarchies
write_config() {
	hl=""
	for h in $MANAGED; do hl="$hl${hl:+, }\"name=$TAG$h\""; done
	cat >"$T/cgengined.conf" <<EOC
rules = "$T/cgrules.conf"
rules-dir = ""
hierarchies = {$hl}
sticky-socket = "${STICKY:-$T/cgred.socket}"
control-socket = "$T/control.sock"
pidfile = "$T/cgengined.pid"
log-level = "debug"
$1
EOC
}

# daemon_start [ARGS...]: run cgengined in the foreground, wait until ready
daemon_start() {
	: >"$T/daemon.log"
	# start-up messages (before the log file is opened) go to stderr
	"$CGENGINED" -n -c "$T/cgengined.conf" -l "$T/daemon.log" "$@" 2>>"$T/daemon.log" &
	DAEMON_PID=$!
	i=0
	while [ $i -lt 100 ]; do
		grep -q "ready: running processes classified" "$T/daemon.log" && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.05; i=$((i + 1))
	done
	diag "daemon did not start:"; sed 's/^/#   /' "$T/daemon.log" >&2
	return 1
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
	i=0; lim=$(( ${2:-5} * 20 ))
	while [ $i -lt $lim ]; do
		grep -q -- "$1" "$T/daemon.log" && return 0
		sleep 0.05; i=$((i + 1))
	done
	return 1
}

# reload_daemon: SIGHUP, then wait until the log shows one more
# successful reload than before (an older "reloaded" line must not count)
reload_daemon() {
	before=$(grep -c "reloaded: " "$T/daemon.log")
	kill -HUP "$DAEMON_PID"
	i=0
	while [ "$(grep -c 'reloaded: ' "$T/daemon.log")" -le "$before" ] && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
	[ "$(grep -c 'reloaded: ' "$T/daemon.log")" -gt "$before" ]
}

# alive PID: running, not a zombie (an orphaned daemon that exited
# stays a zombie until init reaps it, which may take a while)
alive() {
	st=$(ps -o stat= -p "$1" 2>/dev/null)
	[ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

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
