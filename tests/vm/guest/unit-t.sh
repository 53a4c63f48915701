#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The installed layout (make install with Debian's paths) under a real
# systemd: cgengined.service (Type=notify) starts, reloads a good and a
# broken rules file, stops, and refuses to start on a broken file.  The
# configuration is the installed default: on a pure cgroup v2 machine it
# manages no hierarchy, so the daemon runs for real but moves nothing.
. ./lib.sh
plan 31

install_dest
ok "the unit is installed where systemd finds it" \
	test -f /usr/lib/systemd/system/cgengined.service
is notify "$(prop cgengined Type)" "it is Type=notify"
is "/etc/cgrules.conf" "$(sed -n 's/^rules *= *"\(.*\)"/\1/p' /etc/cgengine/cgengined.conf)" \
	"the installed configuration reads /etc/cgrules.conf"

# --- start: READY=1 makes the unit active ---------------------------------
journal_mark
timeout 120 systemctl start cgengined
is 0 "$?" "systemctl start returns once the daemon is ready"
is active "$(prop cgengined ActiveState)" "ActiveState=active"
is running "$(prop cgengined SubState)" "SubState=running"
is success "$(prop cgengined Result)" "Result=success"
MAIN=$(prop cgengined MainPID)
is "$MAIN" "$(cat /run/cgengined.pid 2>/dev/null)" "MainPID is the daemon's pid file"
is cgengined "$(cat /proc/"$MAIN"/comm 2>/dev/null)" "MainPID is cgengined"
ok "the journal has its start-up message" journal_has '^started: 0 rules, 0 managed hierarchies$'
ok "and that it is ready" journal_has '^ready: running processes classified'
ok "the control socket answers" sh -c 'cgenginectl status | grep -q "^rules: *0 "'
ok "the sticky socket is there" test -S /run/cgred.socket

# --- reload, good file -------------------------------------------------------
cp /etc/cgrules.conf /tmp/cgrules.orig
echo '*:cgvm-nothing  *  /cgvm' >>/etc/cgrules.conf
journal_mark
systemctl reload cgengined
is 0 "$?" "systemctl reload with a good rules file"
ok "the daemon logs the reload" journal_has '^reloaded: 1 rules, 0 managed hierarchies$'
ok "and the new rule is in force" sh -c 'cgenginectl status | grep -q "^rules: *1 "'
is active "$(prop cgengined ActiveState)" "still active"
is "$MAIN" "$(prop cgengined MainPID)" "same main process"

# --- reload, broken file: the old rules stay --------------------------------
echo '*:cgvm-nothing  *  /cgvm  bogus' >>/etc/cgrules.conf
n=$(wc -l </etc/cgrules.conf)
journal_mark
systemctl reload cgengined
is 0 "$?" "systemctl reload with a broken rules file (the signal is sent)"
ok "the journal names file and line" \
	journal_has "^/etc/cgrules.conf:$n: unknown option 'bogus'\$"
ok "the old rules stay in force" sh -c \
	'cgenginectl status | grep -q "^rules: *1 " &&
	 cgenginectl status | grep -q "reloads 1 (1 failed)"'
is active "$(prop cgengined ActiveState)" "still active after the failed reload"
is "$MAIN" "$(prop cgengined MainPID)" "and still the same process"

# --- stop ----------------------------------------------------------------------
journal_mark
systemctl stop cgengined
is 0 "$?" "systemctl stop"
is "inactive dead success 0" "$(prop cgengined ActiveState) $(prop cgengined SubState) \
$(prop cgengined Result) $(prop cgengined MainPID)" "inactive, dead, Result=success, no MainPID"
ok "the daemon removed its sockets and pid file" sh -c \
	'! test -e /run/cgengine/control.sock && ! test -e /run/cgred.socket &&
	 ! test -e /run/cgengined.pid'
ok "the process is gone" sh -c "! kill -0 $MAIN"

# --- a broken file at start: ExecStartPre=cgengined --check refuses -----------
journal_mark
timeout 60 systemctl start cgengined 2>/dev/null
ok "systemctl start fails on a broken rules file" test "$?" -ne 0
ok "the journal says why, with file and line" \
	journal_has "^/etc/cgrules.conf:$n: unknown option 'bogus'\$"
cp /tmp/cgrules.orig /etc/cgrules.conf
systemctl reset-failed cgengined
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "once fixed, it starts again"
systemctl stop cgengined
is inactive "$(prop cgengined ActiveState)" "and stops"
done_testing
