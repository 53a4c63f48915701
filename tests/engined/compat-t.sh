#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# libcgroup compatibility on real processes (first-match mode): an
# ignore rule never moves anything -- a process outside its destination
# falls through to the next rule, one inside stays; the lines of a
# multi-line rule apply in turn, a later '%' line overriding; a plain
# destination that does not exist is not created.  Then the same file
# in per-hierarchy mode, where missing groups are created.
. "$SRCDIR/tests/lib/daemon.sh"
TAG="${TAG}rc" # rules-compat's own prefix, for users and hierarchies
require_root
plan 16

mount_hier cls; mount_hier mem; MANAGED="cls mem"
U="${TAG}u"
add_user "$U"
program "${TAG}job"; program "${TAG}ab"; program "${TAG}all"; program "${TAG}miss"
# first-match creates templated groups only, as libcgroup: make the rest
for g in IgnoreCgroup DefaultCgroup a b all; do mkdir "$T/h/cls/$g"; done
for g in all mem; do mkdir "$T/h/mem/$g"; done
cat >"$T/cgrules.conf" <<EOF
$U:${TAG}ab     name=${TAG}cls  a
%               name=${TAG}cls  b
$U:${TAG}all    *               all
%               name=${TAG}mem  mem
$U:${TAG}miss   name=${TAG}cls  missing
$U              name=${TAG}cls  IgnoreCgroup ignore
$U              name=${TAG}cls  DefaultCgroup
EOF
write_config 'match = "first-match"'
daemon_start || bail "daemon"

run_as "$U" "$T/bin/${TAG}job" 300; p1=$LAST
ok "ignore: a process outside /IgnoreCgroup falls through to the next rule" \
	wait_group "$p1" cls /DefaultCgroup
ok "the ignore rule created nothing" test ! -e "$T/h/cls/DefaultCgroup/IgnoreCgroup"

# a shell of the user, put in /IgnoreCgroup by hand, then execs the job
# (once told to through a FIFO)
mkfifo -m 644 "$T/go"
run_as "$U" sh -c "read go <'$T/go'; exec '$T/bin/${TAG}job' 300"; p2=$LAST
wait_group "$p2" cls /DefaultCgroup || diag "the shell was not classified"
echo "$p2" >"$T/h/cls/IgnoreCgroup/cgroup.procs"
timeout 30 sh -c 'echo go >"$1"' sh "$T/go"
wait_until 30 runs "$p2" "$T/bin/${TAG}job"
# events are handled in order: once a later process is classified, so was the exec
run_as "$U" "$T/bin/${TAG}job" 300; p3=$LAST
wait_group "$p3" cls /DefaultCgroup || diag "the probe was not classified"
is "/IgnoreCgroup" "$(cgroup_of "$p2" cls)" "ignore: a process in /IgnoreCgroup stays after exec"

run_as "$U" "$T/bin/${TAG}ab" 300; pab=$LAST
ok "'%' line: the later line overrides (cls /b)" wait_group "$pab" cls /b
ok "the multi-line rule is logged with the deciding line" \
	grep -q "moved pid $pab ([^)]*) to name=${TAG}cls:/b ($T/cgrules.conf:2)" "$T/daemon.log"

run_as "$U" "$T/bin/${TAG}all" 300; pall=$LAST
ok "'*' then '% mem': cls /all" wait_group "$pall" cls /all
ok "'*' then '% mem': mem /mem" wait_group "$pall" mem /mem

run_as "$U" "$T/bin/${TAG}miss" 300; pmiss=$LAST
ok "a missing plain destination is reported" \
	wait_log "cannot move pid $pmiss (${TAG}miss) to name=${TAG}cls:/missing"
ok "and not created" test ! -e "$T/h/cls/missing"
# where it was: "/", or /DefaultCgroup when setpriv's setuid was
# classified before its exec (cgrulesengd does the same)
where=$(cgroup_of "$pmiss" cls)
ok "the process stays where it was ($where)" \
	sh -c "[ '$where' = / ] || [ '$where' = /DefaultCgroup ]"
is "/" "$(cgroup_of "$p1" mem)" "first-match: the user's rule names cls only"

# per-hierarchy: ignore falls through the same way; missing groups are created
daemon_stop
stop_kids
write_config ""
daemon_start || bail "daemon"
run_as "$U" "$T/bin/${TAG}job" 300; q1=$LAST
ok "per-hierarchy: outside /IgnoreCgroup falls through" wait_group "$q1" cls /DefaultCgroup
run_as "$U" "$T/bin/${TAG}miss" 300; qmiss=$LAST
ok "per-hierarchy: a missing destination is created and used" wait_group "$qmiss" cls /missing
run_as "$U" "$T/bin/${TAG}ab" 300; qab=$LAST
ok "per-hierarchy: '%' lines apply in turn too" wait_group "$qab" cls /b
run_as "$U" "$T/bin/${TAG}all" 300; qall=$LAST
ok "per-hierarchy: '% mem' overrides '*' in mem" wait_group "$qall" mem /mem
ok "the daemon never logged a move to an ignore destination" \
	sh -c "! grep -q 'to name=${TAG}cls:/IgnoreCgroup' '$T/daemon.log'"
done_testing
