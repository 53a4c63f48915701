#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Prometheus exporter against the real daemon: "metrics --http"
# through a pipe answers the exposition, which python3's
# prometheus_client parses and whose every metric passes the naming
# lint (tests/lib/promlint.py); the fleet's metrics count what happened
# (rule hits by file and line, moves by hierarchy, boosts by profile,
# the fingerprints of configuration and rules, the last reload); the
# metrics verb is granted to metrics-group -- also when the group is
# only a supplementary group of the connecting process, as systemd's
# SupplementaryGroups= gives a DynamicUser -- and nothing else is;
# --textfile is never read half-written; cgengined has no inet socket.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" -c 'import prometheus_client' 2>/dev/null || skip_all "needs python3-prometheus-client"
plan 39

mount_hier cpu; MANAGED="cpu"
add_group "${TAG}m"
add_user "${TAG}a"
add_user "${TAG}r" "${TAG}m"
program "${TAG}job"; program "${TAG}two"
cat >"$T/cgrules.conf" <<EOF
*:${TAG}job name=${TAG}cpu /jobs
*:${TAG}two name=${TAG}cpu /two
EOF
write_config "metrics-group = \"${TAG}m\"
boost-profile \"fast\" {
    allow = {\"${TAG}a\"}
    hierarchy = \"name=${TAG}cpu\"
    destination = \"/fast\"
    max-duration = \"1m\"
}"
CTL="$BUILDDIR/cgenginectl"; SOCK="$T/control.sock"
as() { u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups "$@"; }

daemon_start || bail "daemon"
events_done "$T/bin/${TAG}job" cpu /jobs
events_done "$T/bin/${TAG}job" cpu /jobs
events_done "$T/bin/${TAG}two" cpu /two
started=$(date +%s)

# scrape: GET through a pipe; the answer in $T/resp, its body in $T/body
scrape() {
	printf 'GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n' | "$@" "$CTL" -s "$SOCK" metrics --http \
		>"$T/resp" 2>"$T/err"
	sed '1,/^\r$/d' "$T/resp" >"$T/body"
}
scrape
is "HTTP/1.1 200 OK" "$(head -1 "$T/resp" | tr -d '\r')" "GET /metrics of the real daemon: 200"
is "Content-Type: text/plain; version=0.0.4" "$(sed -n 2p "$T/resp" | tr -d '\r')" \
	"... in Prometheus' text format"
is "Content-Length: $(wc -c <"$T/body")" "$(sed -n 3p "$T/resp" | tr -d '\r')" \
	"... its length said"
"$PY" "$SRCDIR/tests/lib/promlint.py" 21 <"$T/body" >"$T/lint"
is 0 "$?" "prometheus_client parses it and every name passes the lint"
ok "... all of them ($(cat "$T/lint"))" grep -q '^ok [1-9][0-9] families$' "$T/lint"

is "" "$(sed -n 's/^# TYPE \(cgengine_[a-z0-9_]*\) .*/\1/p' "$T/body" | while read -r m; do
	case $m in cgengine_placed_*) continue ;; esac # documented as a range
	grep -q "^| \`$m\` |" "$SRCDIR/docs/metrics.md" || echo "$m"; done)" \
	"every metric of the exposition is in docs/metrics.md"

m() { grep -c -x -F "$1" "$T/body"; }
is 1 "$(m "cgengine_rule_hits_total{file=\"$T/cgrules.conf\",line=\"1\"} 2")" \
	"rule hits by file and line"
is 1 "$(m "cgengine_rule_hits_total{file=\"$T/cgrules.conf\",line=\"2\"} 1")" "... each rule"
is 1 "$(m 'cgengine_rule_hits_total{file="other",line=""} 0')" "... and the rest as other"
is 1 "$(m "cgengine_hierarchy_moves_total{hierarchy=\"name=${TAG}cpu\"} 3")" \
	"moves by hierarchy"
is 1 "$(m "cgengine_hierarchy_move_failures_total{hierarchy=\"name=${TAG}cpu\"} 0")" \
	"failed moves by hierarchy"
is 1 "$(m 'cgengine_profile_boosts{profile="fast"} 0')" "boosts by profile"
# execs come from the BPF program where it runs, from the connector otherwise
src=proc_connector
"$CTL" -s "$T/control.sock" status | grep -q '^event source: *bpf' && src=bpf
is 1 "$(m "cgengine_lost_events_total{source=\"$src\"} 0")" "lost events by source"
ok "events by source and type" grep -q \
	"^cgengine_events_total{source=\"$src\",type=\"exec\"} [1-9]" "$T/body"
ok "forks from the connector" grep -q \
	'^cgengine_events_total{source="proc_connector",type="fork"} ' "$T/body"
ok "the exec gate's counters" grep -q '^cgengine_gate_execs_total 0$' "$T/body"
version=$("$CTL" --version | cut -d' ' -f2)
info=$(grep '^cgengine_info{' "$T/body")
ok "the info metric: version and two fingerprints ($info)" sh -c "echo '$info' | grep -q -x \
	'cgengine_info{version=\"$version\",config_hash=\"[0-9a-f]\{16\}\",rules_hash=\"[0-9a-f]\{16\}\"} 1'"
loaded=$(sed -n 's/^cgengine_config_last_reload_success_timestamp_seconds //p' "$T/body")
ok "the last load's time ($loaded)" test "$loaded" -le "$started"

# reloads: the same files, the same fingerprints; other rules, another
sleep 1
reload_daemon
scrape
is "$info" "$(grep '^cgengine_info{' "$T/body")" "a reload of the same files: the same info"
ok "... and a later load time" test "$(sed -n \
	's/^cgengine_config_last_reload_success_timestamp_seconds //p' "$T/body")" -gt "$loaded"
echo "*:${TAG}job name=${TAG}cpu /jobs2" >>"$T/cgrules.conf"
reload_daemon
scrape
new=$(grep '^cgengine_info{' "$T/body")
is "$(echo "$info" | sed 's/.*config_hash="\([^"]*\)".*/\1/')" \
	"$(echo "$new" | sed 's/.*config_hash="\([^"]*\)".*/\1/')" "another rule: config_hash stays"
isnt_rules=$(echo "$info" | sed 's/.*rules_hash="\([^"]*\)".*/\1/')
ok "... rules_hash changes" sh -c "! echo '$new' | grep -q 'rules_hash=\"$isnt_rules\"'"
is 1 "$(m 'cgengine_reloads_total 2')" "reloads are counted"
is 1 "$(m "cgengine_hierarchy_moves_total{hierarchy=\"name=${TAG}cpu\"} 3")" \
	"moves by hierarchy go on across reloads (no reset)"

# who may ask: root, members of metrics-group, nobody else
as "${TAG}a" "$CTL" -s "$SOCK" metrics >/dev/null 2>"$T/err"
is "1 cgenginectl: permission denied: 'metrics' needs root" "$? $(cat "$T/err")" \
	"a user outside metrics-group may not read the metrics"
scrape as "${TAG}a"
is "HTTP/1.1 503 Service Unavailable" "$(head -1 "$T/resp" | tr -d '\r')" \
	"... nor through the exporter (503)"
scrape as "${TAG}r"
is "HTTP/1.1 200 OK" "$(head -1 "$T/resp" | tr -d '\r')" "a member of metrics-group may"
scrape setpriv --reuid="${TAG}a" --regid="${TAG}a" --groups="${TAG}m"
is "HTTP/1.1 200 OK" "$(head -1 "$T/resp" | tr -d '\r')" \
	"so may a process given the group only as a supplementary group (SO_PEERGROUPS)"
for v in reload pause rules; do
	as "${TAG}r" "$CTL" -s "$SOCK" $v >/dev/null 2>"$T/err"
	is "1 cgenginectl: permission denied: '${v%% *}' needs root" "$? $(cat "$T/err")" \
		"but not ${v%% *}"
done
as "${TAG}r" "$CTL" -s "$SOCK" boost $$ "name=${TAG}cpu:/x" 1m >/dev/null 2>"$T/err"
is "1 cgenginectl: permission denied: a boost without --profile needs root" "$? $(cat "$T/err")" \
	"nor boost"
as "${TAG}r" "$CTL" -s "$SOCK" boost --profile fast $$ >/dev/null 2>"$T/err"; rc=$?
is "1 cgenginectl: permission denied: boost profile 'fast' is not granted to uid $(id -u "${TAG}r")" \
	"$rc $(cat "$T/err")" "nor a boost through a profile not granted to it"

# --textfile: a reader never sees half a file while writers replace it
mkdir "$T/tf"; chown "${TAG}r" "$T/tf"
as "${TAG}r" "$CTL" -s "$SOCK" metrics --textfile "$T/tf"
is 0 "$?" "--textfile as a member of metrics-group"
(i=0; while [ $i -lt 100 ]; do "$CTL" -s "$SOCK" metrics --textfile "$T/tf"; i=$((i + 1)); done) &
writer=$!
reads=0; torn=0
while kill -0 "$writer" 2>/dev/null; do
	# (cp refuses a file replaced between its stat and its open: no read)
	cat "$T/tf/cgengine.prom" >"$T/read" 2>/dev/null || continue
	reads=$((reads + 1))
	{ head -1 "$T/read" | grep -q '^# HELP cgengine_events_total ' &&
		tail -1 "$T/read" | grep -q '^cgengine_profile_boosts{profile="'; } ||
		{ torn=$((torn + 1)); cp "$T/read" "$T/torn"; }
done
wait "$writer"
is "0" "$torn" "no read of $reads saw a partial file"
[ -f "$T/torn" ] && diag "a torn read: $(wc -c <"$T/torn") bytes, first line '$(head -1 "$T/torn")', last '$(tail -1 "$T/torn")'"
is "cgengine.prom" "$(ls -A "$T/tf")" "no temporary file is left"
"$PY" "$SRCDIR/tests/lib/promlint.py" 21 <"$T/tf/cgengine.prom" >/dev/null
is 0 "$?" "the file passes the lint too"

# the root daemon opens no network socket: none of its sockets is in
# the kernel's tables of TCP, UDP or raw sockets
socks=$(ls -l "/proc/$DAEMON_PID/fd" | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p')
ok "the daemon has sockets ($(echo $socks | wc -w)), so the check can see them" test -n "$socks"
inet=0
for i in $socks; do
	for f in tcp tcp6 udp udp6 udplite udplite6 raw raw6; do
		[ -r "/proc/$DAEMON_PID/net/$f" ] || continue
		awk -v i="$i" 'NR > 1 && $10 == i { f = 1 } END { exit !f }' \
			"/proc/$DAEMON_PID/net/$f" && inet=$((inet + 1))
	done
done
is 0 "$inet" "none of them is an inet socket"

done_testing
