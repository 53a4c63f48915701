#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# libcgroup compatibility on real processes (first-match mode): an
# ignore rule never moves anything -- a process outside its destination
# falls through to the next rule, one inside stays, and (as libcgroup)
# its group in any v1 hierarchy counts, whatever the rule's controllers
# and whether the daemon manages that hierarchy or not, "/" being the
# root group; the lines of a multi-line rule apply in turn, a later '%'
# line overriding; a plain destination that does not exist is not
# created, one with an escaped "\%" is; an unknown "%y" draws a warning
# and is copied as written.  Then the same file in per-hierarchy mode,
# which refuses the unknown template, and without it, where missing
# groups are created.
. "$SRCDIR/tests/lib/daemon.sh"
TAG="${TAG}rc" # rules-compat's own prefix, for users and hierarchies
require_root
plan 29

# oth is mounted but not managed: libcgroup's ignore rules look there too
mount_hier cls; mount_hier mem; mount_hier oth; MANAGED="cls mem"
U="${TAG}u"
add_user "$U"
program "${TAG}job"; program "${TAG}ab"; program "${TAG}all"; program "${TAG}miss"
for p in esc unk pre oth root; do program "${TAG}$p"; done
# first-match creates templated groups only, as libcgroup: make the rest
for g in IgnoreCgroup DefaultCgroup a b all othdef rootdef sub 'pre%v'; do
	mkdir "$T/h/cls/$g"
done
for g in all mem sub; do mkdir "$T/h/mem/$g"; done
mkdir "$T/h/oth/X"
cat >"$T/cgrules.conf" <<EOF
$U:${TAG}ab     name=${TAG}cls  a
%               name=${TAG}cls  b
$U:${TAG}all    *               all
%               name=${TAG}mem  mem
$U:${TAG}miss   name=${TAG}cls  missing
$U:${TAG}esc    name=${TAG}cls  lit\\%e
$U:${TAG}unk    name=${TAG}cls  unk%y
$U:${TAG}pre    name=${TAG}cls  pre%v
$U:${TAG}oth    name=${TAG}cls  X ignore
$U:${TAG}oth    name=${TAG}cls  othdef
$U:${TAG}root   name=${TAG}cls  / ignore
$U:${TAG}root   name=${TAG}cls  rootdef
$U              name=${TAG}cls  IgnoreCgroup ignore
$U              name=${TAG}cls  DefaultCgroup
EOF
write_config 'match = "first-match"'
"$CGENGINED" --check -c "$T/cgengined.conf" >"$T/out" 2>&1
is 0 "$?" "first-match: --check accepts unknown templates"
is "$T/cgrules.conf:7: warning: unknown template '%y' in destination; copied as written" \
	"$(sed -n 1p "$T/out")" "and warns with file and line"
daemon_start || bail "daemon"

# placed PROG [SHORT GROUP]...: a shell of the user, classified, put in
# GROUP of each hierarchy SHORT by hand, then exec'ing PROG (once told
# to through a FIFO); returns (pid in $LAST) once a later process is
# classified: events are handled in order, so the exec was too
gates=0
placed() {
	prog=$1; shift
	gates=$((gates + 1)); mkfifo -m 644 "$T/go$gates"
	run_as "$U" sh -c "read go <'$T/go$gates'; exec '$T/bin/$prog' 300"; pp=$LAST
	wait_group "$pp" cls /DefaultCgroup || diag "the shell was not classified"
	# (again while a late classification of the shell -- its exec after
	# its uid change -- still sends it to its own group meanwhile)
	while [ $# -ge 2 ]; do
		for try in 1 2 3 4 5; do
			echo "$pp" >"$T/h/$1$2/cgroup.procs"
			sleep 0.2
			[ "$(cgroup_of "$pp" "$1")" = "$2" ] && break
		done
		shift 2
	done
	timeout 30 sh -c 'echo go >"$1"' sh "$T/go$gates"
	wait_until 30 runs "$pp" "$T/bin/$prog"
	run_as "$U" "$T/bin/${TAG}job" 300
	wait_group "$LAST" cls /DefaultCgroup || diag "the probe was not classified"
	LAST=$pp
}

run_as "$U" "$T/bin/${TAG}job" 300; p1=$LAST
ok "ignore: a process outside /IgnoreCgroup falls through to the next rule" \
	wait_group "$p1" cls /DefaultCgroup
ok "the ignore rule created nothing" test ! -e "$T/h/cls/DefaultCgroup/IgnoreCgroup"

placed "${TAG}job" cls /IgnoreCgroup; p2=$LAST
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

run_as "$U" "$T/bin/${TAG}esc" 300; pesc=$LAST
ok "an escaped '\\%': the group is created, the '%' literal" wait_group "$pesc" cls '/lit%e'
ok "and logged as made" grep -q "created group name=${TAG}cls:/lit%e" "$T/daemon.log"
ok "an unknown template: the daemon warned at start with file and line" \
	grep -q "$T/cgrules.conf:7: warning: unknown template '%y' in destination" "$T/daemon.log"
run_as "$U" "$T/bin/${TAG}unk" 300; punk=$LAST
ok "its destination is copied as written" \
	wait_log "cannot move pid $punk (${TAG}unk) to name=${TAG}cls:/unk%y"
ok "and, a plain one, not created" test ! -e "$T/h/cls/unk%y"
run_as "$U" "$T/bin/${TAG}pre" 300; ppre=$LAST
ok "a group of that name that exists is used" wait_group "$ppre" cls '/pre%v'

run_as "$U" "$T/bin/${TAG}oth" 300; poth=$LAST
ok "ignore X: a process in no X falls through (cls /othdef)" wait_group "$poth" cls /othdef
placed "${TAG}oth" oth /X; poth2=$LAST
is "/DefaultCgroup" "$(cgroup_of "$poth2" cls)" \
	"ignore X: one in X of a hierarchy neither named nor managed stays"
placed "${TAG}root" cls /sub mem /sub; proot=$LAST
is "/sub" "$(cgroup_of "$proot" cls)" \
	"ignore /: one at the root of a hierarchy neither named nor managed stays"

# per-hierarchy: unknown templates are errors; without them, ignore
# falls through the same way and missing groups are created
daemon_stop
stop_kids
write_config ""
"$CGENGINED" --check -c "$T/cgengined.conf" >"$T/out" 2>&1
is 1 "$?" "per-hierarchy: --check refuses unknown templates"
is "$T/cgrules.conf:7: unknown template '%y' in destination" "$(sed -n 1p "$T/out")" \
	"naming file and line"
sed -i '/%[yv]/d' "$T/cgrules.conf"
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
