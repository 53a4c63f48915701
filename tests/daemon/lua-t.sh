#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Lua hooks with the real daemon: the shipped examples change decisions
# for real processes; a hook that clears, keeps, raises, loops or stalls
# inside C (stopped by the helper's deadline); the helper runs as nobody;
# a broken script on reload keeps the old one; --check reports it.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 31

mount_hier cpu; mount_hier net; MANAGED="cpu net"
add_group "${TAG}profs"; add_group "${TAG}studs"
add_user "${TAG}p" "${TAG}profs"; add_user "${TAG}s" "${TAG}studs"
for p in browser nfs keep boom loop; do program "${TAG}$p"; done
program "${TAG}job" "$BUILDDIR/tests/lib/setid" # ignores extra arguments
cat >"$T/cgrules.conf" <<EOF
@${TAG}profs          name=${TAG}cpu   /profs
@${TAG}studs          name=${TAG}cpu   /students
*:${TAG}browser       name=${TAG}net   /www
*:${TAG}nfs           name=${TAG}net   /nfs
*:${TAG}keep          name=${TAG}net   /www
*:${TAG}boom          name=${TAG}net   /www
*:${TAG}loop          name=${TAG}net   /www
*:${TAG}job           name=${TAG}net   /jobs
EOF
example() { # the shipped example, pointed at the test's hierarchies
	sed -e "s|^local CPU = .*|local CPU = \"name=${TAG}cpu\"|" \
	    -e "s|^local NET = .*|local NET = \"name=${TAG}net\"|" \
	    "$SRCDIR/examples/lua/$1" >"$T/$1"
}
example www-split.lua; example batch-arg.lua
write_config "lua-script = \"$T/www-split.lua\"
lua-instructions = 100000"
daemon_start || bail "daemon"
ok "init() ran" grep -q "www-split: WWW traffic is split by CPU class" "$T/daemon.log"

run_as "${TAG}p" "$T/bin/${TAG}browser" 300; pb=$LAST
run_as "${TAG}s" "$T/bin/${TAG}browser" 300; sb=$LAST
run_as "${TAG}s" "$T/bin/${TAG}nfs" 300; sn=$LAST
ok "www-split: a professor's browser goes to /www/profs" wait_group "$pb" net /www/profs
ok "www-split: a student's browser goes to /www/students" wait_group "$sb" net /www/students
ok "www-split: the CPU class is the rules' one" wait_group "$sb" cpu /students
ok "www-split: other decisions are kept" wait_group "$sn" net /nfs
# (the command name may still be setpriv's when a uid change is classified mid-exec)
ok "the move log names the hook" grep -q "moved pid $pb ([^)]*) to name=${TAG}net:/www/profs (Lua hook $T/www-split.lua)" "$T/daemon.log"

sed -i "s|^lua-script = .*|lua-script = \"$T/batch-arg.lua\"|" "$T/cgengined.conf"
reload_daemon || bail "reload to batch-arg.lua"
run_as "${TAG}p" "$T/bin/${TAG}job" - - 0 300 --batch; bj=$LAST
run_as "${TAG}p" "$T/bin/${TAG}job" - - 0 300; nj=$LAST
ok "batch-arg: a job started with --batch goes to /batch" wait_group "$bj" cpu /batch
ok "batch-arg: the same job without it stays in /profs" wait_group "$nj" cpu /profs
ok "batch-arg: the network decision of the rules stands" wait_group "$bj" net /jobs

# A pattern match on the user's command line that backtracks for ever:
# the instruction budget does not see time inside C, the deadline does.
cat >"$T/stall.lua" <<EOF
local NET = "name=${TAG}net"
function classify(task, decision, why)
  if task.comm ~= "${TAG}job" then goto done end
  for _, a in ipairs(task.cmdline) do
    if a:find(".-.-.-.-#") then decision[NET] = "/never" end
  end
  ::done::
  if task.comm == "${TAG}browser" then decision[NET] = "/www/hooked" end
end
EOF
sed -i "s|^lua-script = .*|lua-script = \"$T/stall.lua\"|" "$T/cgengined.conf"
reload_daemon || bail "reload to stall.lua"
helpers() { ps -o pid= --ppid "$DAEMON_PID" | tr -d ' '; }
is "$(id -u nobody)" "$(awk '/^Uid:/ { print $3 }' "/proc/$(helpers)/status")" \
	"the Lua helper runs as nobody"
start "$T/bin/${TAG}job" - - 0 300 "$(printf '%2000s' '' | tr ' ' a)"; sj=$LAST
start "$T/bin/${TAG}browser" 300; sb2=$LAST
ok "a hook stalled in a pattern match: the rules' decision stands" wait_group "$sj" net /jobs
# (on a busy machine the helper may reach the wall-clock cap first)
ok "it is stopped and logged as a timeout" \
	wait_log "Lua hook classify() failed: \(timed out after 100 ms of CPU time (lua-timeout)\|no answer within 500 ms (5 x lua-timeout; the helper got too little CPU time)\); helper killed"
ok "the next process goes through a new helper" wait_group "$sb2" net /www/hooked
is 1 "$(helpers | wc -l)" "the stalled helper is reaped"

cat >"$T/mixed.lua" <<EOF
local NET = "name=${TAG}net"
function classify(task, decision, why)
  if task.comm == "${TAG}keep" then decision[NET] = nil end
  if task.comm == "${TAG}boom" then error("boom for " .. task.pid) end
  if task.comm == "${TAG}loop" then while true do end end
end
EOF
sed -i "s|^lua-script = .*|lua-script = \"$T/mixed.lua\"|" "$T/cgengined.conf"
reload_daemon || bail "reload to mixed.lua"
start "$T/bin/${TAG}keep" 300; k=$LAST
start "$T/bin/${TAG}boom" 300; b=$LAST
ok "a hook that raises: the rules' decision stands" wait_group "$b" net /www
ok "the error is logged with file and line" wait_log "Lua hook classify() failed: $T/mixed.lua:4: boom for $b"
sleep 1.1 # failures are logged at most once a second
start "$T/bin/${TAG}loop" 300; l=$LAST
start "$T/bin/${TAG}browser" 300; after=$LAST
ok "a hook that loops: the rules' decision stands" wait_group "$l" net /www
ok "its failure is logged with where it looped" wait_log "mixed.lua:5: instruction budget exceeded"
ok "classification goes on after them" wait_group "$after" net /www
daemon_sync # the keep process came first: handled by now
is "/" "$(cgroup_of "$k" net)" "a hook that clears a decision: the process is left alone"
ok "the daemon is alive" kill -0 "$DAEMON_PID"

printf 'function init() string.rep("", 1e18) end\n' >"$T/initstall.lua"
# the two ways a stalled load is reported: CPU limit, or wall-clock cap
# when the helper got too little CPU (a busy machine)
STALLED="$T/initstall.lua: not loaded within \(1000 ms (10 x lua-timeout): the main chunk or init() is stuck or too slow\|5000 ms: the Lua helper got too little CPU time\)"
sed -i "s|^lua-script = .*|lua-script = \"$T/initstall.lua\"|" "$T/cgengined.conf"
kill -HUP "$DAEMON_PID"
ok "a reload whose init() stalls fails with a clear message" wait_log "$STALLED\$" 15
is 1 "$(helpers | wc -l)" "its helper is gone, the old one stays"

printf 'function classify(t, d)\n  d[ = 1\nend\n' >"$T/broken.lua"
sed -i "s|^lua-script = .*|lua-script = \"$T/broken.lua\"|" "$T/cgengined.conf"
kill -HUP "$DAEMON_PID"
ok "a broken script on reload is reported as file:line: message" \
	wait_log "$T/broken.lua:2: unexpected symbol near '='"
start "$T/bin/${TAG}keep" 300; k2=$LAST
events_done "$T/bin/${TAG}browser" net /www
is "/" "$(cgroup_of "$k2" net)" "and the old hook stays in force"
daemon_stop

"$CGENGINED" --check -c "$T/cgengined.conf" >"$T/check.out" 2>&1
is 1 "$?" "--check fails on a broken script"
is "$T/broken.lua:2: unexpected symbol near '='" "$(cat "$T/check.out")" "with the same message"
sed -i "s|^lua-script = .*|lua-script = \"$T/initstall.lua\"|" "$T/cgengined.conf"
"$CGENGINED" --check -c "$T/cgengined.conf" >"$T/check.out" 2>&1
is 1 "$?" "--check fails on a script whose init() stalls"
ok "with the same message as the daemon" grep -qx "$STALLED" "$T/check.out"

# In the background: the helper started before the daemon forked goes
# with the parent that exits; the daemon starts its own on first use.
write_config "lua-script = \"$T/www-split.lua\"
log = \"$T/bg.log\""
"$CGENGINED" -c "$T/cgengined.conf" || bail "background daemon"
DAEMON_PID=$(cat "$T/cgengined.pid")
run_as "${TAG}p" "$T/bin/${TAG}browser" 300; pb3=$LAST
ok "in the background too, the hook decides" wait_group "$pb3" net /www/profs
is 1 "$(ps -o pid= --ppid "$DAEMON_PID" | wc -l)" "through one helper, the daemon's child"
bg=$DAEMON_PID; daemon_stop
wait_until 30 gone "$bg" || diag "the background daemon did not stop"
done_testing
