#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Reload: a broken rules file keeps the old rules in force (and says
# where the error is); a fixed file applies the new rules, to new and
# running processes; SIGUSR2 reloads like SIGHUP.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 10

mount_hier cls; MANAGED="cls"
program "${TAG}job"
echo "*:${TAG}job name=${TAG}cls /one" >"$T/cgrules.conf"
write_config
daemon_start || bail "daemon"

start "$T/bin/${TAG}job" 300; p1=$LAST
ok "first rules apply" wait_group "$p1" cls /one

printf '# broken\n*:%sjob name=%scls /two bogus\n' "$TAG" "$TAG" >"$T/cgrules.conf"
kill -HUP "$DAEMON_PID"
ok "the reload error names file and line" wait_log "$T/cgrules.conf:2: unknown option 'bogus'"
ok "and says the old rules stay" wait_log "reload failed; the previous configuration and rules stay in force"
start "$T/bin/${TAG}job" 300; p2=$LAST
ok "a new process still gets the old rule" wait_group "$p2" cls /one
ok "the daemon is still running" kill -0 "$DAEMON_PID"

echo "*:${TAG}job name=${TAG}cls /two" >"$T/cgrules.conf"
kill -HUP "$DAEMON_PID"
ok "a fixed file is loaded" wait_log "reloaded: 1 rules"
start "$T/bin/${TAG}job" 300; p3=$LAST
ok "new processes get the new rule" wait_group "$p3" cls /two
ok "running processes are reclassified by the new rules" wait_group "$p1" cls /two

echo "*:${TAG}job name=${TAG}cls /three" >"$T/cgrules.conf"
kill -USR2 "$DAEMON_PID"
start "$T/bin/${TAG}job" 300; p4=$LAST
ok "SIGUSR2 reloads too" wait_group "$p4" cls /three

printf 'hierarchies = {"name=%snope"}\n' "$TAG" >>"$T/cgengined.conf"
kill -HUP "$DAEMON_PID"
ok "a broken daemon config on reload is reported, old config kept" \
	wait_log "$T/cgengined.conf: hierarchies: \"name=${TAG}nope\" is not mounted"
done_testing
