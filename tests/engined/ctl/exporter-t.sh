#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cgenginectl metrics --http and --textfile against a fake daemon
# (tests/lib/oneshot): one HTTP request through a pipe -- GET, HEAD, a
# wrong path, a wrong method, garbage, a 1 MiB request line, a client
# that never sends -- each answered within its bound; the text file
# replaced whole or not at all.  No root needed.
: "${SRCDIR:=.}" "${BUILDDIR:=.}"
. "$SRCDIR/tests/tap/tap.sh"
plan 38

CTL="$BUILDDIR/cgenginectl"; ONESHOT="$BUILDDIR/tests/lib/oneshot"
T=$(mktemp -d /tmp/exporter-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
S="$T/fake.sock"
BODY='# TYPE cgengine_x_total counter
cgengine_x_total 7
'
LEN=$(printf %s "$BODY" | wc -c)
CRLF=$(printf '\r\n')

# fake: a daemon that answers one "metrics" with $BODY
fake() {
	timeout 60 "$ONESHOT" "$S" "CGENGINE 1
" "OK $LEN
$BODY" & fake=$!
	wait_until 30 test -S "$S" || diag "the fake daemon did not start"
}
unfake() { kill "$fake" 2>/dev/null; wait "$fake" 2>/dev/null; rm -f "$S"; }

# http [ARGS...] <REQUEST: the answer (CRs removed) in $T/out, its
# exit status and the seconds it took in $T/rc (at the end of a pipe,
# http runs in a subshell); then "got" sets $rc and $took
http() {
	t0=$(date +%s)
	timeout 60 "$CTL" -s "$S" metrics --http "$@" >"$T/raw" 2>"$T/err"
	echo "$? $(($(date +%s) - t0))" >"$T/rc"
	tr -d '\r' <"$T/raw" >"$T/out"
}
got() { read -r rc took <"$T/rc"; }

fake
printf 'GET /metrics HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n' | http; got
is 0 "$rc" "GET /metrics: exit 0"
is "HTTP/1.1 200 OK
Content-Type: text/plain; version=0.0.4
Content-Length: $LEN
Connection: close

${BODY%?}" "$(cat "$T/out")" "GET /metrics: 200, Prometheus' content type, the metrics"
ok "the header lines end in CRLF" grep -q "^Connection: close$CRLF\$" "$T/raw"
unfake

fake
printf 'HEAD /metrics?x=1 HTTP/1.0\r\n\r\n' | http; got
is 0 "$rc" "HEAD /metrics: exit 0"
is "HTTP/1.1 200 OK
Content-Type: text/plain; version=0.0.4
Content-Length: $LEN
Connection: close" "$(cat "$T/out")" "HEAD: the headers of GET (query ignored), no body"
unfake

# the daemon is not asked for what is not GET or HEAD of /metrics: no fake
printf 'GET / HTTP/1.1\r\n\r\n' | http; got
is 1 "$rc" "GET /: exit 1"
is "HTTP/1.1 404 Not Found
Content-Type: text/plain
Content-Length: 14
Connection: close

404 Not Found" "$(cat "$T/out")" "GET /: 404"
printf 'GET /metricsX HTTP/1.1\r\n\r\n' | http; got
is "HTTP/1.1 404 Not Found" "$(head -1 "$T/out")" "GET /metricsX: 404"

printf 'POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc' | http; got
is "HTTP/1.1 405 Method Not Allowed
Content-Type: text/plain
Content-Length: 23
Allow: GET, HEAD
Connection: close

405 Method Not Allowed" "$(cat "$T/out")" "POST: 405 with Allow"

for req in 'garbage' 'GET /metrics\r\n\r\n' 'GET /metrics HTTP/2.0\r\n\r\n' \
	'GET metrics HTTP/1.1\r\n\r\n' 'get /metrics HTTP/1.1\r\n\r\n' '\r\n\r\n' \
	'GET  /metrics HTTP/1.1\r\n\r\n'; do
	printf "$req" | http; got
	is "HTTP/1.1 400 Bad Request 1" "$(head -1 "$T/out") $rc" "'$req': 400, exit 1"
done
: | http; got
is "HTTP/1.1 400 Bad Request" "$(head -1 "$T/out")" "nothing at all: 400"

# a 1 MiB request line: cut after 8 KiB, answered, its writer let go
{ head -c 1048576 /dev/zero | tr '\0' a; printf '\r\n\r\n'; } | http --timeout 5; got
is "HTTP/1.1 414 URI Too Long" "$(head -1 "$T/out")" "a 1 MiB request line: 414"
ok "... within the bound ($took s)" test "$took" -le 20
{ printf 'GET /metrics HTTP/1.1\r\n'; i=0; while [ $i -lt 400 ]; do
	printf 'X-Filler-%03d: %s\r\n' $i aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; i=$((i + 1)); done
  printf '\r\n'; } | http; got
is "HTTP/1.1 431 Request Header Fields Too Large" "$(head -1 "$T/out")" "headers past 8 KiB: 431"

# a client that never sends (and one that stops half-way), cut at the bound
sleep 8 | http --timeout 1; got
is "HTTP/1.1 408 Request Timeout 1" "$(head -1 "$T/out") $rc" "a silent client: 408, exit 1"
ok "... after about the bound ($took s), not when it hangs up" test "$took" -le 5
{ printf "GET /metrics HTTP/1.1\r\nHost:"; sleep 8; } | http --timeout 1; got
is "HTTP/1.1 408 Request Timeout" "$(head -1 "$T/out")" "a request that stops half-way: 408"
ok "... within the bound ($took s)" test "$took" -le 5

# the daemon down: 503, and the reason in the log (stderr)
printf 'GET /metrics HTTP/1.1\r\n\r\n' | http; got
is "HTTP/1.1 503 Service Unavailable 3" "$(head -1 "$T/out") $rc" "no daemon: 503, exit 3"
is "cgengined did not answer; see the exporter's log" "$(tail -1 "$T/out")" "... says where to look"
is "cgenginectl: cannot connect to $S: No such file or directory (is cgengined running?)" \
	"$(cat "$T/err")" "... and the log says why"

"$CTL" -s "$S" metrics --http --timeout 0 </dev/null >/dev/null 2>"$T/err"
is "2 cgenginectl: --timeout wants seconds, 0 to 3600: '0'" "$? $(cat "$T/err")" "a bad --timeout"
"$CTL" -s "$S" metrics --http extra </dev/null >/dev/null 2>"$T/err"
is "2 cgenginectl: usage: metrics --http [--timeout SECONDS]" "$? $(cat "$T/err")" \
	"--http takes no other argument"

# --textfile: written whole through a temporary file and a rename
mkdir "$T/tf"
fake
"$CTL" -s "$S" metrics --textfile "$T/tf" 2>"$T/err"
is 0 "$?" "--textfile: exit 0"
unfake
is "$BODY" "$(cat "$T/tf/cgengine.prom")
" "the file holds the metrics"
is "644" "$(stat -c %a "$T/tf/cgengine.prom")" "readable by node_exporter (0644)"
is "cgengine.prom" "$(ls -A "$T/tf")" "no temporary file is left"
ino=$(stat -c %i "$T/tf/cgengine.prom")
fake
"$CTL" -s "$S" metrics --textfile "$T/tf"
unfake
ok "a second run replaces the file (a new inode, renamed over it)" \
	test "$(stat -c %i "$T/tf/cgengine.prom")" != "$ino"

# a run that fails leaves the last complete file, and nothing else
timeout 60 "$ONESHOT" "$S" "CGENGINE 1
" "OK 100
# TYPE cgengine_cut" & fake=$!
wait_until 30 test -S "$S"
"$CTL" -s "$S" metrics --textfile "$T/tf" 2>"$T/err"
is 3 "$?" "an answer cut short: exit 3"
wait "$fake"
is "$BODY" "$(cat "$T/tf/cgengine.prom")
" "the previous file stays whole"
is "cgengine.prom" "$(ls -A "$T/tf")" "and the partial temporary file is removed"
"$CTL" -s "$S" metrics --textfile "$T/none" 2>"$T/err"
is "1 cgenginectl: cannot write in $T/none: No such file or directory" "$? $(cat "$T/err")" \
	"a missing directory is said"
done_testing
