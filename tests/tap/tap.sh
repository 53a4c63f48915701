# SPDX-License-Identifier: GPL-2.0-or-later
# tap.sh -- the TAP helper for shell tests; the twin of tap.c.
#   . "$SRCDIR/tests/tap/tap.sh"
#   plan 3; ok "desc" test -f x; is "want" "$got" "desc"; ...; done_testing
_tap_n=0
_tap_failed=0

_tap_plan=""
_tap_final="" # checks a helper library adds to the end of every test
# tap_final FUNCTION: done_testing runs FUNCTION as one more check after
# the test's own (plan counts it); it prints its own ok / not ok line
tap_final() { _tap_final="$_tap_final $1"; }
plan() {
	_tap_plan=$1
	for _f in $_tap_final; do _tap_plan=$((_tap_plan + 1)); done
	echo "1..$_tap_plan"
}
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
diag() { echo "# $*" >&2; }
bail() { echo "Bail out! $*"; exit 255; }

_tap_result() { # $1 = 0 for pass, rest = description
	_tap_n=$((_tap_n + 1))
	_tap_r=$1; shift
	if [ "$_tap_r" -eq 0 ]; then
		echo "ok $_tap_n - $*"
	else
		echo "not ok $_tap_n - $*"
		_tap_failed=$((_tap_failed + 1))
	fi
	return "$_tap_r"
}

# ok DESC CMD...: passes when CMD succeeds
ok() {
	d=$1; shift
	"$@" >/dev/null 2>&1
	_tap_result $? "$d"
}

# is WANT GOT DESC
is() {
	if [ "$1" = "$2" ]; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3"
		diag "    wanted: '$1'"
		diag "       got: '$2'"
		return 1
	fi
}

skip() { # skip N REASON
	i=0
	while [ $i -lt "$1" ]; do
		_tap_n=$((_tap_n + 1)); i=$((i + 1))
		echo "ok $_tap_n # skip $2"
	done
}

# wait_until SECONDS CMD...: run CMD until it succeeds, every 0.05 s;
# fail if it has not within SECONDS.  For what the test waits on (a
# move, a log line, a socket): a generous deadline costs nothing when
# all goes well and keeps a loaded machine from failing the test, where
# a fixed sleep would be too short under load and too long otherwise.
wait_until() {
	local end
	end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.05
	done
}

done_testing() {
	for _f in $_tap_final; do "$_f"; done
	if [ -n "$_tap_plan" ] && [ "$_tap_plan" -ne "$_tap_n" ]; then
		diag "planned $_tap_plan tests but ran $_tap_n"
		exit 1
	fi
	[ "$_tap_failed" -eq 0 ]
	exit $?
}
