#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package on a real Debian system: install (the service
# starts under systemd), a configuration change survives an upgrade to a
# newer build, upgrades succeed with the template conffile deleted or
# /etc/cgrules.conf a dangling symbolic link, remove stops the daemon
# and keeps the configuration, purge removes it.  debs/old.deb and debs/new.deb come from the host.
. ./lib.sh
plan 44

export DEBIAN_FRONTEND=noninteractive
apt() { apt-get -q -y -o Dpkg::Use-Pty=0 "$@" >>/tmp/apt.log 2>&1; }
conf=/etc/cgengine/cgengined.conf

# --- install -----------------------------------------------------------------
apt install ./debs/old.deb
is 0 "$?" "apt-get install the package"
is "install ok installed" "$(dpkg-query -W -f '${Status}' cgengine)" "dpkg has it installed"
is "enabled active" "$(systemctl is-enabled cgengined) $(prop cgengined ActiveState)" \
	"the service is enabled and started under systemd"
ok "the daemon and the client run" sh -c 'cgengined --version && cgenginectl status'
is "disabled inactive" \
	"$(systemctl is-enabled cgengine-exporter.socket) $(prop cgengine-exporter.socket ActiveState)" \
	"the exporter's socket is installed, off until the administrator enables it"
ok "the group granted the metrics verb exists" getent group cgengine-metrics
# (the guest's dpkg skips /usr/share/man and /usr/share/doc: look in the .deb)
ok "manuals and documentation are in the package" sh -c 'dpkg-deb -c debs/old.deb |
	grep -c "usr/share/man/man[58]/cg.*\\.gz\\|doc/cgengine/examples/university/hooks.lua" |
	grep -qx 5'
ok "bash completion is installed" test -f /usr/share/bash-completion/completions/cgenginectl
is "/etc/cgengine/cgengined.conf /etc/cgengine/cgrules.conf /etc/init.d/cgengined" \
	"$(dpkg-query -W -f '${Conffiles}' cgengine | awk 'NF { print $1 }' | sort | tr '\n' ' ' | sed 's/ $//')" \
	"the example configuration and the init script are conffiles"
ok "/etc/cgrules.conf was created from the annotated template" \
	cmp /etc/cgengine/cgrules.conf /etc/cgrules.conf
ok "the SysV script is registered for non-systemd boots" sh -c 'ls /etc/rc2.d/S*cgengined'
cgengined --foreground --log stderr -p /tmp/second.pid -s /tmp/second.sock 2>/tmp/second.err
ok "a second daemon (as cgrulesengd would be) is refused the sticky socket" grep -q \
	'/var/run/cgred.socket: sticky socket already in use (is cgrulesengd or another cgengined running?)' \
	/tmp/second.err

# --- an administrator's change, then an upgrade -----------------------------------
sed -i 's/^match = "per-hierarchy"/match = "first-match"/' $conf
systemctl restart cgengined
ok "the administrator switches to first-match" sh -c 'cgenginectl status | grep -q "^rules: .*(first-match)"'
OLDPID=$(prop cgengined MainPID)
apt install ./debs/new.deb
is 0 "$?" "apt-get install the newer build"
is "$(cat debs/new.version)" "$(dpkg-query -W -f '${Version}' cgengine)" "the newer version is installed"
ok "the changed conffile is kept" grep -q '^match = "first-match"' $conf
ok "without a .dpkg-dist copy (the packaged file did not change)" sh -c '! ls /etc/cgengine/*.dpkg-*'
is active "$(prop cgengined ActiveState)" "the service runs after the upgrade"
ok "it was restarted with the new build" test "$(prop cgengined MainPID)" != "$OLDPID"
ok "with the administrator's configuration" sh -c 'cgenginectl status | grep -q "(first-match)"'

# --- files the administrator removed or redirected: upgrades never fail over them ---
# (installing the same build again runs the maintainer scripts of an upgrade)
dpkgi() { dpkg --force-confold "$@" >>/tmp/apt.log 2>&1; }
rm /etc/cgengine/cgrules.conf /etc/cgrules.conf
dpkgi -i debs/new.deb
is 0 "$?" "an upgrade with the template conffile deleted and no /etc/cgrules.conf"
is "install ok installed" "$(dpkg-query -W -f '${Status}' cgengine)" "leaves the package configured"
ok "the deleted conffile stays deleted" sh -c '! test -e /etc/cgengine/cgrules.conf'
ok "and no /etc/cgrules.conf is made from nothing" \
	sh -c '! test -e /etc/cgrules.conf && ! test -L /etc/cgrules.conf'
ln -s /nonexistent/cgrules.conf /etc/cgrules.conf
dpkgi --force-confmiss -i debs/new.deb
is 0 "$?" "an upgrade with /etc/cgrules.conf a dangling symbolic link"
is "install ok installed" "$(dpkg-query -W -f '${Status}' cgengine)" "leaves the package configured"
is /nonexistent/cgrules.conf "$(readlink /etc/cgrules.conf)" "the link is left as the administrator made it"
ok "(the template is back: --force-confmiss)" test -f /etc/cgengine/cgrules.conf
rm /etc/cgrules.conf
dpkgi -i debs/new.deb
is 0 "$?" "an upgrade with the template back and /etc/cgrules.conf missing"
ok "makes /etc/cgrules.conf from the template again" cmp /etc/cgengine/cgrules.conf /etc/cgrules.conf
is active "$(prop cgengined ActiveState)" "and the service runs again"

# --- remove: stop, keep the configuration -----------------------------------------
MAIN=$(prop cgengined MainPID)
apt remove cgengine
is 0 "$?" "apt-get remove"
ok "the daemon is stopped" sh -c "! kill -0 $MAIN && ! pgrep -x cgengined"
ok "the programs are gone" sh -c '! test -e /usr/sbin/cgengined && ! test -e /usr/bin/cgenginectl'
is "deinstall ok config-files" "$(dpkg-query -W -f '${Status}' cgengine)" \
	"dpkg keeps its configuration files"
ok "with the administrator's change" grep -q '^match = "first-match"' $conf
ok "and the rules file" test -f /etc/cgrules.conf

# --- purge: everything goes ----------------------------------------------------
apt purge cgengine
is 0 "$?" "apt-get purge"
ok "the package is gone from dpkg" sh -c '! dpkg-query -W cgengine'
ok "/etc/cgengine is gone" sh -c '! test -e /etc/cgengine'
ok "/etc/cgrules.conf, created by the package and not edited, is gone" sh -c '! test -e /etc/cgrules.conf'
ok "the state directory and the unit's enablement are gone" sh -c \
	'! test -e /var/lib/cgengine && ! test -e /etc/systemd/system/multi-user.target.wants/cgengined.service'

# an edited /etc/cgrules.conf is libcgroup's file as much as ours: it stays
apt install ./debs/new.deb
echo '@cgvm_nobody  *  /cgvm' >>/etc/cgrules.conf
apt purge cgengine
ok "an /etc/cgrules.conf the administrator edited survives purge" grep -q '^@cgvm_nobody' /etc/cgrules.conf
ok "while the rest is gone" sh -c '! test -e /etc/cgengine && ! dpkg-query -W cgengine'
sed 's/^/# apt: /' /tmp/apt.log | grep -i 'warn\|error\|conffile' >&2
done_testing
