#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Prometheus exporter under a real systemd: cgengine-exporter.socket
# is installed off, enabled by hand, and a scrape of port 9857 (curl,
# or bash's /dev/tcp where the guest has no curl) answers the metrics;
# each connection's cgengine-exporter@.service runs as a dynamic user
# in the group cgengine-metrics, which may read the metrics and may not
# reload, pause or boost; cgengined has no inet socket.
. ./lib.sh
plan 17

install_dest
ok "the socket and service units are installed" test -f \
	/usr/lib/systemd/system/cgengine-exporter.socket -a -f \
	/usr/lib/systemd/system/cgengine-exporter@.service
is disabled "$(systemctl is-enabled cgengine-exporter.socket)" "the socket is off after installation"
systemd-sysusers cgengine.conf
ok "sysusers.d/cgengine.conf makes the group cgengine-metrics" getent group cgengine-metrics

timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "cgengined runs"
systemctl enable --now cgengine-exporter.socket 2>/dev/null
is "enabled active" "$(systemctl is-enabled cgengine-exporter.socket) \
$(prop cgengine-exporter.socket ActiveState)" "the administrator enables the socket"

# get METHOD: one request to port 9857; the answer (CRs removed) in /tmp/scrape
get() {
	if command -v curl >/dev/null; then
		if [ "$1" = HEAD ]; then
			curl -s -S -m 30 -I http://127.0.0.1:9857/metrics
		else
			curl -s -S -m 30 -i http://127.0.0.1:9857/metrics
		fi
	else
		bash -c 'exec 3<>/dev/tcp/127.0.0.1/9857 &&
			printf "%s /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n" "$1" >&3 &&
			timeout 30 cat <&3' bash "$1"
	fi | tr -d '\r' >/tmp/scrape
}
get GET
is "HTTP/1.1 200 OK" "$(head -1 /tmp/scrape)" \
	"a scrape of port 9857 answers 200 ($(command -v curl >/dev/null && echo curl || echo bash /dev/tcp))"
is "Content-Type: text/plain; version=0.0.4" "$(grep '^Content-Type:' /tmp/scrape)" \
	"in Prometheus' text format"
ok "with the fleet's metrics" grep -q '^cgengine_info{version="[^"]*",config_hash="[0-9a-f]*",rules_hash="[0-9a-f]*"} 1$' /tmp/scrape
get HEAD
is "HTTP/1.1 200 OK" "$(head -1 /tmp/scrape)" "HEAD answers 200"
ok "without a body" sh -c '! grep -q "^cgengine_" /tmp/scrape'

# the service as it runs: hold a connection open without a request, so
# that its instance waits (up to 10 s) and can be looked at
# (wait_for runs a function: "test -n $(...)" as its arguments would be
# expanded once, before the instance started, as in CI's failed run)
bash -c 'exec 3<>/dev/tcp/127.0.0.1/9857 && sleep 9' &
holder=$!
inst() { find /sys/fs/cgroup/system.slice -maxdepth 2 -type d \
	-name 'cgengine-exporter@*.service' | awk 'NR == 1 { print }'; }
inst_pid() { d=$(inst) && test -n "$d" && awk 'NR == 1 { print }' "$d/cgroup.procs"; }
has_inst() { test -n "$(inst_pid)"; }
wait_for 10 has_inst
unit=$(basename "$(inst)")
pid=$(inst_pid)
uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
ok "an instance runs for the connection ($unit, pid $pid, uid $uid)" test -n "$uid"
ok "as a dynamic user, not root (uid $uid in 61184-65519)" test "${uid:-0}" -ge 61184 -a "${uid:-0}" -le 65519
ok "in the group cgengine-metrics" sh -c "awk '/^Groups:/' /proc/$pid/status |
	grep -qw $(getent group cgengine-metrics | cut -d: -f3)"
is 0000000000000000 "$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status")" "with no capability"
wait "$holder"

# the same identity, asked for more than the metrics: refused
as_exporter() {
	systemd-run --quiet --wait --pipe -p DynamicUser=yes -p User=cgengine-exporter \
		-p SupplementaryGroups=cgengine-metrics /usr/bin/cgenginectl "$@" 2>&1
}
ok "the exporter's user reads the metrics" sh -c \
	"$(command -v systemd-run) --quiet --wait --pipe -p DynamicUser=yes -p User=cgengine-exporter \
	-p SupplementaryGroups=cgengine-metrics /usr/bin/cgenginectl metrics | grep -q '^cgengine_moves_total '"
is "cgenginectl: permission denied: 'reload' needs root
cgenginectl: permission denied: 'pause' needs root
cgenginectl: permission denied: a boost without --profile needs root" \
	"$(as_exporter reload; as_exporter pause; as_exporter boost 1 unified:/x 1m)" \
	"but may not reload, pause or boost"

# cgengined itself opens no inet socket
main=$(prop cgengined MainPID)
inet=0
for i in $(ls -l "/proc/$main/fd" | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p'); do
	for f in tcp tcp6 udp udp6 raw raw6; do
		awk -v i="$i" 'NR > 1 && $10 == i { f = 1 } END { exit !f }' "/proc/$main/net/$f" &&
			inet=$((inet + 1))
	done
done
is 0 "$inet" "cgengined has no TCP, UDP or raw socket"

systemctl disable --now cgengine-exporter.socket 2>/dev/null
systemctl stop cgengined
done_testing
