#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The exec gate (exec-gate = true) under the real unit, on cgroup v2 with
# the university example's firewall:
#   - a socket opened by a gated program at once lands in the www group
#     and is matched by the firewall's www set: N execs of a copy of
#     bash that sends one UDP datagram as its first command, N packets
#     counted by the www class's drop rule (the same with the gate off
#     is reported, not asserted: it depends on who wins the race)
#   - the daemon stopped with SIGSTOP under the unit: a gated exec waits;
#     systemd's watchdog (WatchdogSec=) kills the daemon, the exec goes
#     on, and the unit is started again
# The unit gets the gate's capabilities from a drop-in, as the docs say.
. ./lib.sh
plan 14

install_dest
EX=/usr/share/doc/cgengine/examples/university
getent group profs >/dev/null || groupadd profs || bail "groupadd profs"
getent group students >/dev/null || groupadd students || bail "groupadd students"
id stud1 >/dev/null 2>&1 || useradd -m -G students stud1 || bail "useradd stud1"
mkdir -p /etc/systemd/system/cgengined.service.d
cat >/etc/systemd/system/cgengined.service.d/gate.conf <<'EOF'
[Service]
CapabilityBoundingSet=CAP_SYS_ADMIN CAP_IPC_LOCK
EOF
systemctl daemon-reload
install -m 644 "$EX/real/cgengined-v2.conf" /etc/cgengine/cgengined.conf
echo 'exec-gate = true' >>/etc/cgengine/cgengined.conf
# no Lua hook here: the gate does not consult it (and it would move the
# process again after its exec)
sed -i 's/^lua-script.*$/lua-script = ""/' /etc/cgengine/cgengined.conf
# the example's rules without the catch-all lines (they would move every
# service of the guest), so that the layout is the firewall's (www at
# level 5: .../cgengined.service/students/default/www), and the gated one
sed -e '/^\*[[:space:]]/d' "$EX/real/cgrules.conf" >/etc/cgrules.conf
echo 'stud1:/usr/local/bin/gatenet  net_cls  /www' >>/etc/cgrules.conf
install -m 755 /bin/bash /usr/local/bin/gatenet
cgengined --check >/dev/null || bail "cgengined --check refuses the configuration"
ok "the example firewall loads" nft -f "$EX/real/nftables.conf"

journal_mark
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "the daemon runs with exec-gate = true"
ok "its gate is open and holds the binary" \
	sh -c 'cgenginectl status | grep -q "exec gate: *1 of 1 binaries held"'

dropped() { nft list counter inet cgengine www_dropped | sed -n 's/.*packets \([0-9]*\).*/\1/p'; }
# N execs of gatenet as stud1, each sending a datagram to port 9 as its
# first command: the www chain drops (and counts) what comes from www
burst() {
	i=0
	while [ $i -lt "$1" ]; do
		setpriv --reuid=stud1 --regid="$(id -g stud1)" --init-groups \
			/usr/local/bin/gatenet -c 'echo x >/dev/udp/127.0.0.1/9' 2>/dev/null
		i=$((i + 1))
	done
}
N=40
before=$(dropped)
burst $N
got=$(($(dropped) - before))
is "$N" "$got" "gate on: every one of $N datagrams sent at once came from the www group"
moves=$(cgenginectl --json status | sed -n 's/.*"gate_moves": *\([0-9]*\).*/\1/p')
ok "the gate placed them ($moves moves at the gate)" test "${moves:-0}" -ge "$N"

sed -i 's/^exec-gate = true$/exec-gate = false/' /etc/cgengine/cgengined.conf
systemctl reload cgengined
before=$(dropped)
burst $N
diag "gate off: $(($(dropped) - before)) of $N datagrams came from the www group"
sed -i 's/^exec-gate = false$/exec-gate = true/' /etc/cgengine/cgengined.conf
systemctl reload cgengined
ok "the gate is open again after a reload" \
	sh -c 'cgenginectl status | grep -q "exec gate: *1 of 1 binaries held"'

# --- the daemon stopped as a whole: systemd's watchdog -------------------------------
is 10s "$(prop cgengined WatchdogUSec)" "the unit sets WatchdogSec=10s"
MAIN=$(prop cgengined MainPID)
journal_mark
kill -STOP "$MAIN"
rm -f /tmp/gate-ran
(/usr/local/bin/gatenet -c 'date +%s >/tmp/gate-ran' &)
t0=$(date +%s)
sleep 3
ok "a gated exec waits for the stopped daemon" test ! -e /tmp/gate-ran
ok "until systemd's watchdog ends the daemon, and then it runs" wait_for 60 test -s /tmp/gate-ran
diag "it ran $(($(cat /tmp/gate-ran 2>/dev/null || echo "$t0") - t0)) s after the daemon was stopped"
ok "systemd says why" sh -c "journalctl --no-pager -u cgengined --since '-2min' | grep -q -i 'watchdog timeout'"
ok "the unit is started again (Restart=on-failure)" \
	wait_for 60 sh -c '[ "$(systemctl show -p MainPID --value cgengined)" != "'"$MAIN"'" ] &&
		[ "$(systemctl show -p ActiveState --value cgengined)" = active ]'
ok "with its gate open" \
	wait_for 30 sh -c 'cgenginectl status | grep -q "exec gate: *1 of 1 binaries held"'
is 0 "$(cgenginectl --json status | sed -n 's/.*"gate_watchdog": *\([0-9]*\).*/\1/p')" \
	"(a new daemon: its watchdog answered nothing)"

systemctl stop cgengined
rm -rf /etc/systemd/system/cgengined.service.d
systemctl daemon-reload
systemctl reset-failed cgengined 2>/dev/null
nft flush ruleset
ok "stopped and cleaned up" test "$(prop cgengined ActiveState)" != active
done_testing
