# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh -- shared helpers for the scenarios that run inside the VM
# lane's guest (tests/vm/run.sh boots it).  The guest is a throwaway
# machine that each boot starts fresh: a scenario owns it and
# may install into /, use systemd and the real cgroup v2 root.
#
# The job directory (the 9p share, the scenario's working directory)
# holds tap.sh, these scripts, and dest/ (make install DESTDIR=dest) or
# the packages in debs/.
. ./tap.sh

V2=/sys/fs/cgroup

# The journal from here on: journal_mark, then journal_since [ARGS].
journal_mark() {
	JOURNAL_CURSOR=$(journalctl -n 0 --show-cursor --no-pager |
		sed -n 's/^-- cursor: //p')
}
journal_since() {
	journalctl --no-pager -o cat --after-cursor="$JOURNAL_CURSOR" "$@"
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	_w_end=$(($(date +%s) + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$_w_end" ] || return 1
		sleep 0.1
	done
}

# journal_has PATTERN [SECONDS]: a grep -E pattern shows up in the
# daemon's journal since the last mark (messages arrive asynchronously).
journal_has() {
	wait_for "${2:-10}" sh -c "journalctl --no-pager -o cat \
		--after-cursor='$JOURNAL_CURSOR' | grep -Eq -- \"\$1\"" sh "$1"
}

# prop UNIT NAME: one property of a unit, as systemctl show prints it.
prop() { systemctl show -p "$2" --value "$1"; }

# cgroup_of PID: the process's group in the v2 tree.
cgroup_of() { sed -n 's/^0:://p' "/proc/$1/cgroup" 2>/dev/null; }

# hog PROGRAM USER: a busy loop as USER on CPU 0 (PROGRAM, a copy of
# dash, so that rules can name it); prints its pid.
hog() {
	setpriv --reuid="$2" --regid="$(id -g "$2")" --init-groups \
		taskset -c 0 "$1" -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
	echo $!
}

# usage_usec DIR: the CPU time v2 group DIR (a path) has used, in us.
usage_usec() { sed -n 's/^usage_usec //p' "$1/cpu.stat"; }

# Install what make install put in dest/ (usr/, etc/) into the system.
install_dest() {
	cp -a dest/. / && systemctl daemon-reload
}

# Scenarios share one boot: each starts without the daemon running and
# without drop-ins an earlier one left.
systemctl stop cgengined 2>/dev/null
rm -rf /etc/systemd/system/cgengined.service.d
systemctl daemon-reload
systemctl reset-failed 2>/dev/null
