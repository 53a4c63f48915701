#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Per-process priorities on the systemd backend: an app of a user's own
# manager (in user@UID.service, which the daemon never moves) gets the
# priorities of its class and stays in its unit -- setting a priority
# moves nothing --; the same program started outside it is placed in
# its class's scope and gets them too.
. ./lib.sh
plan 8

install_dest
id prio1 >/dev/null 2>&1 || useradd -m -s /bin/sh prio1 || bail "useradd prio1"
U=$(id -u prio1)
cat >/etc/cgengine/cgengined.conf <<EOC
unified-layout = {"cpu"}
backend = "systemd"
log-level = "debug"
group "cpu:/games" {
    process = {"nice=-4", "ioclass=idle", "oom_score_adj=321"}
}
EOC
echo "*:cgvm-game  cpu  /games" >/etc/cgrules.conf
cp /usr/bin/sleep /usr/local/bin/cgvm-game
timeout 120 systemctl restart cgengined
is active "$(prop cgengined ActiveState)" "the daemon runs on the systemd backend"

nice_of() { awk '{ print $19 }' "/proc/$1/stat"; }
systemctl start "user@$U.service"
# the user's own manager, through its private socket (no user bus needed)
user() {
	setpriv --reuid=prio1 --regid="$(id -g prio1)" --init-groups \
		env XDG_RUNTIME_DIR="/run/user/$U" "$@"
}
user systemd-run -q --user --unit=cgvm-game /usr/local/bin/cgvm-game 900
G=$(user systemctl --user show -p MainPID --value cgvm-game.service)
ok "the user's manager runs the app" test -n "$G" -a "$G" != 0
ok "the app gets its class's nice" wait_for 30 sh -c "test \"\$(awk '{ print \$19 }' /proc/$G/stat)\" = -4"
is "idle -4 321" "$(ionice -p "$G") $(nice_of "$G") $(cat "/proc/$G/oom_score_adj")" \
	"its I/O class and oom_score_adj too"
ok "and it stays in its unit (user@$U.service)" \
	grep -q "^0::/user.slice/user-$U.slice/user@$U.service/app.slice/cgvm-game.service\$" "/proc/$G/cgroup"
ok "explain: left alone, with the priorities wanted and current" \
	sh -c "cgenginectl explain $G | grep -q 'left alone: ' && cgenginectl explain $G | grep -q '^nice  *-4  *-4 '"

setpriv --reuid=prio1 --regid="$(id -g prio1)" --init-groups /usr/local/bin/cgvm-game 900 </dev/null &
P=$!
ok "the same program outside the user's manager is placed in its class's scope" \
	wait_for 30 sh -c "sed -n 's/^0:://p' /proc/$P/cgroup | grep -q '^/cgengine.slice/.*games'"
ok "and gets the same priorities" wait_for 30 sh -c "test \"\$(awk '{ print \$19 }' /proc/$P/stat)\" = -4"
kill "$P"
user systemctl --user stop cgvm-game.service
systemctl stop cgengined
done_testing
