#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd backend, second part (systemd-t.sh is the first): what
# works as on the cgroupfs backend though PID 1 places the processes.
# - nft sets: the university example's firewall, its levels moved up
#   one (the classes start at /cgengine.slice, level 1), and a test set
#   at the scope level.  The daemon puts the ids of the slices and
#   scopes systemd made into the sets; real connections from a
#   classified browser are counted and dropped by them; a scope that
#   systemd collected leaves its set at once (UnitRemoved), made again
#   it has a new id there; a start with the sets emptied fills them
#   from the units there.
# - A unit with Delegate=yes whose process is in the unit's own group
#   is left alone (systemd's trusted.delegate mark), explain says why;
#   the same program in a plain service is moved.
# - A boost moves a browser into the boost's scope and back when it
#   ends; a sticky process stays where it was started.
# - kill -9 of the daemon: every classified process stays in a unit
#   systemd has active (a boosted one in its boost's scope), systemd
#   restarts the daemon, which moves none of them and restores the
#   boost; processes started just before the kill are placed.
#
# The browser is a copy of bash (named firefox) that blocks on a fifo
# and connects where the test asks, as in nft-t.sh; the guest's
# tcp_syn_retries is 1, so a dropped connection times out in about 3 s.
. ./lib.sh
plan 46

install_dest
EX=/usr/share/doc/cgengine/examples/university
getent group profs >/dev/null || groupadd profs || bail "groupadd profs"
getent group students >/dev/null || groupadd students || bail "groupadd students"
id stud1 >/dev/null 2>&1 || useradd -m -s /bin/sh -G students stud1 || bail "useradd stud1"
# the v2 example on the systemd backend, with a set for the students'
# www scope (the example gives that level no settings)
sed -e 's/^backend = .*/backend = "systemd"/' \
	-e 's|^group "net_cls:/www/students".*|group "net_cls:/www/students" { nft-set = {"inet cgvm stud"} }|' \
	"$EX/real/cgengined-v2.conf" >/etc/cgengine/cgengined.conf
echo 'log-level = "debug"' >>/etc/cgengine/cgengined.conf
install -m 644 "$EX/hooks.lua" /etc/cgengine/hooks.lua
sed -e '/^\*[[:space:]]/d' "$EX/real/cgrules.conf" >/etc/cgrules.conf
cat >>/etc/cgrules.conf <<EOF
*:firefox          net_cls           /www
@students          net_cls           /others
EOF
# the example's firewall, one level up: www is the fourth level here,
#   /cgengine.slice/cgengine-students.slice/cgengine-students-default.slice/
#   1               2                       3
#     cgengine-students-default-www.slice/cgengine-students-default-www-students.scope
#     4                                   5
{
	sed -e 's/socket cgroupv2 level 5/socket cgroupv2 level 4/' "$EX/real/nftables.conf"
	cat <<'EOF'
table inet cgvm {
	set stud {
		type cgroupsv2
	}
	counter stud_out {
	}
	chain output {
		type filter hook output priority filter; policy accept;
		socket cgroupv2 level 5 @stud counter name stud_out
	}
}
EOF
} >/etc/nftables.conf
install -m 755 /bin/bash /usr/local/bin/firefox
cp /usr/bin/sleep /usr/local/bin/batch2
cgengined --check >/dev/null || bail "cgengined --check refuses the configuration"

D=/run/cgvm-sd2
rm -rf "$D" && mkdir -m 755 "$D" && chown stud1 "$D"
SYN=$(cat /proc/sys/net/ipv4/tcp_syn_retries)
echo 1 >/proc/sys/net/ipv4/tcp_syn_retries

R=/cgengine.slice
WWW=$R/cgengine-students.slice/cgengine-students-default.slice/cgengine-students-default-www.slice
SCOPE_S=$WWW/cgengine-students-default-www-students.scope
SCOPE_SP=$WWW/cgengine-students-default-www-profs.scope
SCOPE_B=$R/cgengine-students.slice/cgengine-students-stud1.slice/cgengine-students-stud1-others.slice/cgengine-students-stud1-others-default.scope

# --- helpers (the client as in nft-t.sh) ------------------------------------------
CLIENT='exec <"$1"
while read -r tag ports; do
	for p in $ports; do
		(if err=$({ : <>"/dev/tcp/127.0.0.1/$p"; } 2>&1); then r=open
		 else case $err in *"timed out"*) r=timeout ;; *) r="error: ${err##*: }" ;; esac
		 fi
		 echo "$r" >"$2/$tag.$p.new" && mv "$2/$tag.$p.new" "$2/$tag.$p") &
	done
	wait
done'
# client FD: start a browser as stud1 with its requests on fd FD; sets CPID
client() {
	rm -f "$D/in$1" && mkfifo -m 600 "$D/in$1" && chown stud1 "$D/in$1"
	eval "exec $1<>\"$D/in$1\""
	setpriv --reuid=stud1 --regid="$(id -g stud1)" --init-groups \
		/usr/local/bin/firefox -c "$CLIENT" firefox "$D/in$1" "$D" \
		</dev/null >/dev/null 2>>"$D/firefox.err" 3>&- 4>&- &
	CPID=$!
}
ask() { fd=$1; shift; echo "$*" >&"$fd"; }
answer() {
	wait_for 20 test -f "$D/$1.$2"
	cat "$D/$1.$2" 2>/dev/null || echo "no answer"
}
in_group() { test "$(cgroup_of "$1")" = "$2"; }
under() { cgroup_of "$1" | grep -q "^$2/"; }
all_in() { g=$1; shift; for p; do in_group "$p" "$g" || return 1; done; }
# set_has TABLE SET DIR|ID (nft prints an id as its path when it finds it)
set_has() {
	case $3 in
	/*) id=$(stat -c %i "$V2$3") || return 1; rel=${3#/} ;;
	*) id=$3 rel=$3 ;;
	esac
	nft -j list set inet "$1" "$2" | sed -n 's/.*"elem": *\[\([^]]*\)\].*/\1/p' |
		tr -d '" ' | tr , '\n' | grep -Fqx -e "$id" -e "$rel"
}
filled() { wait_for 20 set_has "$@"; }
no_id() { ! set_has "$@"; }
packets() { nft list counter inet "$1" "$2" | sed -n 's/.*packets \([0-9]*\).*/\1/p'; }
grew() { [ "$(packets "$1" "$2")" -gt "$3" ]; }
exited() { ! test -d "/proc/$1" || grep -q '^State:[[:space:]]*Z' "/proc/$1/status"; }
# unit_active PID: the unit holding the process is one systemd has active
unit_active() {
	u=$(cgroup_of "$1" | sed 's|.*/||')
	test -n "$u" && test "$(systemctl show -p ActiveState --value "$u")" = active
}
all_active() { for p; do unit_active "$p" || return 1; done; }
# sticky PID: libcgroup's sticky request (a pid_t, then an int flag)
sticky() {
	perl -MIO::Socket::UNIX -e '
		my $s = IO::Socket::UNIX->new(Peer => "/run/cgred.socket") or die "$!\n";
		print $s pack("ii", $ARGV[0], 0); my $a = ""; sysread($s, $a, 64);
		print $a' "$1"
}
LOOP='while :; do sleep 60; done' # keeps bash (firefox) as the process's program

# --- nft sets -----------------------------------------------------------------------
ok "the firewall loads (the example's, level 4, and the test's level 5 set)" \
	nft -f /etc/nftables.conf
perl -MIO::Socket::INET -MIO::Select -e '
	my $s = IO::Select->new;
	for my $p (@ARGV) {
		$s->add(IO::Socket::INET->new(LocalAddr => "127.0.0.1",
			LocalPort => $p, Listen => 64, ReuseAddr => 1)
			or die "listen on $p: $!\n");
	}
	open(my $f, ">", "'"$D"'/listening") or die; close $f;
	while (1) { for my $l ($s->can_read) { my $c = $l->accept; close $c if $c } }
	' 80 8080 </dev/null >/dev/null 2>"$D/listener.err" &
LISTENER=$!
wait_for 20 test -f "$D/listening" || bail "no listeners"
journal_mark
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "the daemon runs on the systemd backend"

client 3; F=$CPID
ok "a student's browser is placed in its scope" wait_for 30 in_group $F $SCOPE_S
ok "the www slice's id is in inet cgengine www" filled cgengine www "$WWW"
ok "the scope's id is in inet cgvm stud" filled cgvm stud "$SCOPE_S"
ok "the daemon logged adding the scope's id once systemd had made it" \
	journal_has "^nft set inet cgvm stud: added unified:$R/students/default/www/students \\(id $(stat -c %i "$V2$SCOPE_S")\\)\$"
ok "explain names the www set at level 4" \
	sh -c "cgenginectl explain $F | grep -q 'inet cgengine www (level 4, unified:$R/students/default/www)'"
w0=$(packets cgengine www_web) d0=$(packets cgengine www_dropped) s0=$(packets cgvm stud_out)
ask 3 f1 80 8080
is "open timeout" "$(answer f1 80) $(answer f1 8080)" "the browser reaches port 80, not 8080"
ok "counted as web traffic" grew cgengine www_web "$w0"
ok "the www class's drop rule counted the other" grew cgengine www_dropped "$d0"
ok "the scope-level rule counted both" grew cgvm stud_out "$((s0 + 1))"

# the scope collected, made again: a new id
ID1=$(stat -c %i "$V2$SCOPE_S")
exec 3>&-
wait_for 10 exited $F
wait $F
ok "with its only process gone, systemd collects the scope" \
	wait_for 20 sh -c "! test -d $V2$SCOPE_S"
ok "systemd says so (UnitRemoved): the old id leaves the set before any new browser" \
	wait_for 5 no_id cgvm stud "$ID1"
ok "the daemon logged deleting it" \
	journal_has "^nft set inet cgvm stud: deleted unified:$R/students/default/www/students \\(id $ID1\\)\$"
client 3; F=$CPID
ok "a new browser: the scope is made again" wait_for 30 in_group $F $SCOPE_S
ID2=$(stat -c %i "$V2$SCOPE_S")
ok "with a new id ($ID1 before, $ID2 now)" test -n "$ID2" -a "$ID1" != "$ID2"
ok "the new id is in the set" filled cgvm stud "$SCOPE_S"
ok "the old one is not" wait_for 10 no_id cgvm stud "$ID1"
s0=$(packets cgvm stud_out) d0=$(packets cgengine www_dropped)
ask 3 f2 80 8080
is "open timeout" "$(answer f2 80) $(answer f2 8080)" "the new scope's browser: port 80, not 8080"
ok "counted by the scope-level rule and the www drop rule" \
	sh -c "[ $(packets cgvm stud_out) -gt $((s0 + 1)) ] && [ $(packets cgengine www_dropped) -gt $d0 ]"

# a start fills the emptied sets from the units that are there
systemctl stop cgengined
nft flush set inet cgengine www
nft flush set inet cgvm stud
ok "with the daemon stopped, the sets are emptied by hand" \
	sh -c "! nft list set inet cgvm stud | grep -q elements"
journal_mark
timeout 120 systemctl start cgengined
ok "a start puts the www slice's id back" filled cgengine www "$WWW"
ok "and the scope's" filled cgvm stud "$SCOPE_S"
sleep 2
ok "it moved nothing" \
	sh -c "! journalctl --no-pager -o cat --after-cursor='$JOURNAL_CURSOR' -u cgengined | grep -q 'moving pid'"

# --- Delegate=yes: the unit's own group ---------------------------------------------
systemd-run -q -p Delegate=yes --unit=cgvm-deleg /usr/local/bin/firefox -c "$LOOP"
systemd-run -q --unit=cgvm-plain /usr/local/bin/firefox -c "$LOOP"
DP=$(prop cgvm-deleg MainPID) PP=$(prop cgvm-plain MainPID)
ok "the same program in a plain service is moved (the rule applies to it)" \
	wait_for 30 under "$PP" $R
ok "in a Delegate=yes service it stays in the service's group" \
	in_group "$DP" /system.slice/cgvm-deleg.service
ok "explain says why: the unit is delegated" \
	sh -c "cgenginectl explain $DP | grep -q 'left alone: its unit is delegated (Delegate=yes)'"
ok "the daemon tried nothing for it" \
	sh -c "! journalctl --no-pager -o cat --after-cursor='$JOURNAL_CURSOR' -u cgengined | grep -q 'moving pid $DP '"
systemctl stop cgvm-deleg cgvm-plain

# --- boosts and sticky processes -----------------------------------------------------
ok "the student boosts the browser for 8 s (profile fast-www)" \
	setpriv --reuid=stud1 --regid="$(id -g stud1)" --init-groups \
	cgenginectl boost --profile fast-www "$F" 8s
ok "it runs in the boost's scope (www/profs)" wait_for 20 in_group $F $SCOPE_SP
ok "and is back in the students' scope when the boost ends" wait_for 40 in_group $F $SCOPE_S
sh -c 'sleep 6; exec /usr/local/bin/firefox -c "$1"' sh "$LOOP" </dev/null >/dev/null 2>&1 &
ST=$!
sh -c 'sleep 6; exec /usr/local/bin/firefox -c "$1"' sh "$LOOP" </dev/null >/dev/null 2>&1 &
NS=$!
G0=$(cgroup_of $ST)
sticky $ST >"$D/sticky.out"
diag "sticky request: $(cat "$D/sticky.out")"
ok "a process made sticky, then exec'ing a program a rule names" \
	wait_for 20 sh -c "grep -qx firefox /proc/$ST/comm && grep -qx firefox /proc/$NS/comm"
ok "the same program without the request is moved" wait_for 30 under $NS $R
sleep 2
is "$G0" "$(cgroup_of $ST)" "the sticky process stays where it was started"
ok "explain says it is sticky" sh -c "cgenginectl explain $ST | grep -q sticky"
kill $ST

# --- kill -9 of the daemon -----------------------------------------------------------
ok "a boost that will outlive the daemon (root, 10 min)" \
	cgenginectl boost "$F" net_cls:/www/profs 10m
ok "the browser is in the boost's scope" wait_for 20 in_group $F $SCOPE_SP
BF=$(cgroup_of $F) BN=$(cgroup_of $NS)
M0=$(prop cgengined MainPID) N0=$(prop cgengined NRestarts)
for i in 1 2 3; do
	setpriv --reuid=stud1 --regid="$(id -g stud1)" --init-groups \
		/usr/local/bin/batch2 900 </dev/null >/dev/null 2>&1 &
	eval "B$i=\$!"
done
journal_mark
kill -9 "$M0"
ok "every classified process is in a unit systemd has active" all_active $F $NS
# (a move PID 1 was making at the kill may still be on its way: under
# emulation, with one CPU, a scope took more than a second to become
# active in CI's run)
ok "the processes started just before the kill are in active units too" \
	wait_for 10 all_active $B1 $B2 $B3
for p in $B1 $B2 $B3; do
	u=$(cgroup_of $p | sed 's|.*/||')
	diag "pid $p ($(cat /proc/$p/comm 2>/dev/null)) in $u: $(systemctl show -p ActiveState --value "$u")"
done
ok "systemd restarts the daemon (Restart=on-failure)" \
	wait_for 60 sh -c "test \"\$(systemctl show -p NRestarts --value cgengined)\" -gt $N0 && \
		test \"\$(systemctl show -p ActiveState --value cgengined)\" = active"
ok "and it places the processes started before the kill" \
	wait_for 30 all_in $SCOPE_B $B1 $B2 $B3
sleep 2
is "$BF $BN" "$(cgroup_of $F) $(cgroup_of $NS)" \
	"the placed processes are where they were before the kill (/proc/PID/cgroup)"
ok "the restarted daemon moved none of them" \
	sh -c "! journalctl --no-pager -o cat --after-cursor='$JOURNAL_CURSOR' -u cgengined | grep -Eq 'moving pid ($F|$NS) '"
ok "the boost survived the crash" sh -c "cgenginectl boosts | grep -q www/profs"
cgenginectl unboost "$F" >/dev/null
ok "unboost: the browser is back in the students' scope" wait_for 30 in_group $F $SCOPE_S
{
	cgenginectl status; systemctl list-units --no-pager --all 'cgengine*'
	journalctl -u cgengined --no-pager -o short-monotonic
} >out/systemd2-diag.txt 2>&1

# --- clean up -------------------------------------------------------------------------
exec 3>&-
kill $NS $B1 $B2 $B3 $LISTENER 2>/dev/null
wait_for 10 exited $F
nft flush ruleset
echo "$SYN" >/proc/sys/net/ipv4/tcp_syn_retries
systemctl stop cgengined
is inactive "$(prop cgengined ActiveState)" "the daemon stops"
[ -s "$D/firefox.err" ] && sed 's/^/# /' "$D/firefox.err" >&2
done_testing
