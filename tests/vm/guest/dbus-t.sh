#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The D-Bus door (docs/dbus.md) under a real systemd, system bus,
# polkitd and logind: the installed bus policy lets the daemon own
# org.cgengine.Engine1 (and com.system76.Scheduler); a polkit rule
# grants one user boost-own and set-foreground; that user boosts its
# own process with busctl, is refused another user's (boost-any asks
# for an administrator), and sets its foreground through the s76
# method from a logind session; a user the rule does not grant, with
# no active session, is refused with AccessDenied.  With
# gnome-foreground on a cgroup2 tree of the test's own (user-UID.slice/
# user@UID.service/app.slice/app-a.scope), Mutter's xattr "-1" on the
# scope moves the foreground to its process.  On a systemd desktop, an
# app of the user's own manager (a transient service in its app.slice)
# made the foreground by SetForeground with a real pidfd (./fgcall,
# from the user's logind session) gets the profile's CPUWeight through
# that manager and the profile's nice on the app itself, nothing moved,
# and has its own again when the caller exits, and when the daemon
# stops.
. ./lib.sh
plan 31

G=cgvm_dbg # granted by the polkit rule
N=cgvm_dbn # not granted
useradd -m "$G" || bail "useradd $G"
useradd -m "$N" || bail "useradd $N"
install_dest
ok "the bus policy and polkit's actions are installed" \
	test -f /usr/share/dbus-1/system.d/org.cgengine.Engine1.conf -a \
	-f /usr/share/polkit-1/actions/org.cgengine.Engine1.policy
cat >/etc/cgengine/cgengined.conf <<EOF
hierarchies = {"unified"}
rules = "/etc/cgrules.conf"
rules-dir = ""
dbus = "system"
foreground-profile = "fg"
dbus-s76 = true
gnome-foreground = "/sys/fs/cgroup/cgvm-gnome"
boost-profile "fast" {
	allow = {"$G", "$N"}
	hierarchy = "unified"
	destination = "/cgvm/fast"
	max-duration = "1h"
}
boost-profile "fg" {
	allow = {"$G", "$N"}
	hierarchy = "unified"
	destination = "/cgvm/fg"
	max-duration = "1d"
	process = {"nice=-3"}
}
group "unified:/cgvm/fg" {
	set = {"cpu.weight=777"}
}
EOF
: >/etc/cgrules.conf
mkdir -p /etc/polkit-1/rules.d
cat >/etc/polkit-1/rules.d/50-cgvm.rules <<EOF
polkit.addRule(function(action, subject) {
	if ((action.id == "org.cgengine.Engine1.boost-own" ||
	     action.id == "org.cgengine.Engine1.set-foreground") && subject.user == "$G")
		return polkit.Result.YES;
});
EOF
systemctl reload dbus
systemctl restart polkit
mkdir -p /sys/fs/cgroup/cgvm-gnome
journal_mark
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "the daemon runs"
# owned NAME: a connection owns NAME (not merely activatable)
owned() {
	busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
		NameHasOwner s "$1" | grep -qx 'b true'
}
ok "it owns org.cgengine.Engine1 on the system bus" wait_for 20 owned org.cgengine.Engine1
ok "and com.system76.Scheduler" wait_for 20 owned com.system76.Scheduler

D="org.cgengine.Engine1 /org/cgengine/Engine1 org.cgengine.Engine1"
# as USER CMD: CMD as USER without a logind session (setpriv)
as() { u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups sh -c "$*" 2>&1; }
start_of() { awk '{print $22}' "/proc/$1/stat"; }
setpriv --reuid="$G" --regid="$G" --clear-groups sleep 600 &
PG=$!
setpriv --reuid="$N" --regid="$N" --clear-groups sleep 601 &
PN=$!
sleep 0.5

out=$(as "$G" busctl call $D BoostPid utsu $PG "$(start_of $PG)" fast 600)
ok "the granted user boosts its own process ($out)" sh -c "echo '$out' | grep -Eq '^u [0-9]+\$'"
ID=${out#u }
ok "it runs in the profile's group" wait_for 10 sh -c "[ \"\$(sed -n 's/^0:://p' /proc/$PG/cgroup)\" = /cgvm/fast ]"
# busctl prints an AccessDenied error as "Access denied"; the daemon
# logs why
denied() { # denied UID REASON: the daemon's log line of a denial
	journal_has "dbus: uid $1 \\(:[0-9.]+\\) denied: $2"
}
out=$(as "$G" busctl call $D BoostPid utsu $PN "$(start_of $PN)" fast 600)
is "Call failed: Access denied" "$out" "another user's process is refused"
ok "as boost-any needs an administrator" \
	denied "$(id -u "$G")" "org.cgengine.Engine1.boost-any: not authorized by polkit"
out=$(as "$N" busctl call $D BoostPid utsu $PN "$(start_of $PN)" fast 600)
is "Call failed: Access denied" "$out" "a user the rule does not grant is refused"
ok "by polkit" denied "$(id -u "$N")" "org.cgengine.Engine1.boost-own: not authorized by polkit"
out=$(as "$G" busctl call $D BoostPid utsu $PG "$(($(start_of $PG) + 1))" fast 600)
is "Call failed: pid $PG is not the process started at $(($(start_of $PG) + 1))" "$out" \
	"a pid with another start time is refused"
out=$(as "$G" busctl call $D Unboost u "$ID")
is "" "$out" "the user ends its boost"

# the foreground, from a logind session of the user's (su through PAM)
S76="com.system76.Scheduler /com/system76/Scheduler com.system76.Scheduler"
out=$(su -s /bin/sh "$G" -c "busctl call $S76 SetForegroundProcess u $PG" 2>&1)
is "" "$out" "s76's SetForegroundProcess from the user's session"
ok "the process gets the foreground profile" \
	wait_for 10 sh -c "[ \"\$(sed -n 's/^0:://p' /proc/$PG/cgroup)\" = /cgvm/fg ]"
out=$(su -s /bin/sh "$G" -c "busctl call $S76 SetForegroundProcess u $PN" 2>&1)
is "Call failed: Access denied" "$out" "another user's process cannot be the foreground"
ok "the daemon says so" \
	denied "$(id -u "$G")" "the foreground is only ever the caller's own process"

# GNOME: the other user's app scope, focused (./setxattr: run.sh builds
# tests/lib/setxattr.c, the guest has no setfattr)
UN=$(id -u "$N")
SCOPE=/sys/fs/cgroup/cgvm-gnome/user-$UN.slice/user@$UN.service/app.slice/app-a.scope
if [ -x ./setxattr ] && mkdir -p "$SCOPE" && echo "$PN" >"$SCOPE/cgroup.procs"; then
	journal_mark
	./setxattr "$SCOPE" user.xdg.inactive-since -1
	ok "a scope marked \"-1\" is the foreground" \
		wait_for 10 sh -c "[ \"\$(sed -n 's/^0:://p' /proc/$PN/cgroup)\" = /cgvm/fg ]"
	ok "the daemon says so" journal_has "gnome: uid $UN focused $SCOPE: pid $PN is the foreground"
	ok "the previous foreground (s76's) loses it" \
		journal_has "boost #[0-9]+ ended \\(the foreground changed\\)"
else
	skip 3 "no ./setxattr or no scope of the test's"
fi

# a systemd desktop: the user's app in its own manager's app.slice
UG=$(id -u "$G")
APPU=app-cgvmfg.service
# as_user CMD: CMD in a logind session of G's (su through PAM), with
# the runtime directory that reaches the user's manager
as_user() { su -s /bin/sh "$G" -c "XDG_RUNTIME_DIR=/run/user/$UG $*" 2>&1; }
weight() { as_user systemctl --user show -p CPUWeight --value $APPU; }
weight_is() { [ "$(weight)" = "$1" ]; }
# the nice of process $1 (field 19 of its stat), and a check of it
nice_of() { sed 's/.*) //' /proc/$1/stat | cut -d' ' -f17; }
nice_is() { [ "$(nice_of "$APP")" = "$1" ]; }
app_pid() { APP=$(as_user systemctl --user show -p MainPID --value $APPU); [ "${APP:-0}" -gt 0 ]; }
loginctl enable-linger "$G"
if [ -x ./fgcall ] && install -m 755 ./fgcall /tmp/cgvm-fgcall &&
	wait_for 120 systemctl is-active -q "user@$UG.service" &&
	as_user systemd-run --user --unit=$APPU --slice=app.slice sleep 600 >/dev/null &&
	wait_for 60 app_pid; then
	is "/user.slice/user-$UG.slice/user@$UG.service/app.slice/$APPU" "$(cgroup_of "$APP")" \
		"the user's app runs in its manager's app.slice"
	before=$(weight)
	nbefore=$(nice_of "$APP")
	journal_mark
	su -s /bin/sh "$G" -c "/tmp/cgvm-fgcall $APP" >/tmp/cgvm-fgcall.out 2>&1 &
	wait_for 60 sh -c "sed -n 2p /tmp/cgvm-fgcall.out | grep -q ."
	is "OK" "$(sed -n 2p /tmp/cgvm-fgcall.out)" "SetForeground with a pidfd of the app, from the user's session"
	ok "its unit gets the profile's CPUWeight through the user's manager (was $before)" \
		wait_for 60 weight_is 777
	ok "and the app the profile's nice, where it is (was $nbefore)" wait_for 30 nice_is -3
	is "/user.slice/user-$UG.slice/user@$UG.service/app.slice/$APPU" "$(cgroup_of "$APP")" \
		"nothing is moved"
	ok "the daemon says so" journal_has "foreground: pid $APP of $APPU is the foreground"
	kill "$(sed -n 's/^pid //p' /tmp/cgvm-fgcall.out)"
	ok "the caller exits: the unit has its own CPUWeight again ($before)" \
		wait_for 60 weight_is "$before"
	ok "and the app its own nice" wait_for 30 nice_is "$nbefore"
	ok "the daemon says so" journal_has "foreground: $APPU of uid $UG has its values again" 30
	# the daemon stops while the app is the foreground: its values again
	su -s /bin/sh "$G" -c "/tmp/cgvm-fgcall $APP" >/tmp/cgvm-fgcall.out 2>&1 &
	ok "the app is the foreground again" wait_for 60 weight_is 777
	systemctl stop cgengined
	ok "the daemon stops: the unit has its own CPUWeight again" wait_for 30 weight_is "$before"
	ok "and the app its own nice" wait_for 30 nice_is "$nbefore"
	kill "$(sed -n 's/^pid //p' /tmp/cgvm-fgcall.out)"
else
	skip 12 "no ./fgcall, no manager of the user's or no app of its"
	journalctl --no-pager -n 30 -u "user@$UG.service" >&2
fi
as_user systemctl --user stop $APPU >/dev/null
loginctl disable-linger "$G"
rm -f /tmp/cgvm-fgcall /tmp/cgvm-fgcall.out

kill $PG $PN
systemctl stop cgengined
rmdir "$SCOPE" "${SCOPE%/*}" "${SCOPE%/*/*}" "${SCOPE%/*/*/*}" /sys/fs/cgroup/cgvm-gnome 2>/dev/null
rm -f /etc/polkit-1/rules.d/50-cgvm.rules
