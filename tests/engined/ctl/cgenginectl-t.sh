#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cgenginectl against a fake daemon that hangs up: each way a
# conversation can end early is told as such (once it said
# "no answer ...: Success"), with exit status 3.  No root needed.
: "${SRCDIR:=.}" "${BUILDDIR:=.}"
. "$SRCDIR/tests/tap/tap.sh"
plan 6

CTL="$BUILDDIR/cgenginectl"; ONESHOT="$BUILDDIR/tests/lib/oneshot"
T=$(mktemp -d /tmp/cgenginectl-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
S="$T/fake.sock"

# converse GREETING [ANSWER]: run cgenginectl status against a fake
# daemon; its stderr in $T/err, its exit status in $rc
converse() {
	timeout 60 "$ONESHOT" "$S" "$@" & fake=$!
	wait_until 30 test -S "$S" || diag "the fake daemon did not start"
	"$CTL" -s "$S" status >/dev/null 2>"$T/err"; rc=$?
	wait "$fake"
}

converse ""
is 3 "$rc" "closed before the greeting: exit 3"
is "cgenginectl: no greeting from $S: the daemon closed the connection without answering" \
	"$(cat "$T/err")" "and says so"
converse "CGENGINE 1
"
is 3 "$rc" "closed after the request: exit 3"
is "cgenginectl: no answer from $S: the daemon closed the connection without answering" \
	"$(cat "$T/err")" "and says so (not 'Success')"
converse "CGENGINE 1
" "OK 100
short"
is 3 "$rc" "closed in the middle of an answer: exit 3"
is "cgenginectl: $S: the daemon closed the connection in the middle of the answer" \
	"$(cat "$T/err")" "and says so"
done_testing
