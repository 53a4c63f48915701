# SPDX-License-Identifier: GPL-2.0-or-later
# tap.sh -- the TAP helper for shell tests; the twin of tap.c.
#   . "$SRCDIR/tests/tap/tap.sh"
#   plan 3; ok "desc" test -f x; is "want" "$got" "desc"; ...; done_testing
_tap_n=0
_tap_failed=0

_tap_plan=""
plan() { _tap_plan=$1; echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
diag() { echo "# $*" >&2; }
bail() { echo "Bail out! $*"; exit 255; }

_tap_result() { # $1 = 0 for pass, rest = description
	_tap_n=$((_tap_n + 1))
	r=$1; shift
	if [ "$r" -eq 0 ]; then
		echo "ok $_tap_n - $*"
	else
		echo "not ok $_tap_n - $*"
		_tap_failed=$((_tap_failed + 1))
	fi
	return "$r"
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

done_testing() {
	if [ -n "$_tap_plan" ] && [ "$_tap_plan" -ne "$_tap_n" ]; then
		diag "planned $_tap_plan tests but ran $_tap_n"
		exit 1
	fi
	[ "$_tap_failed" -eq 0 ]
	exit $?
}
