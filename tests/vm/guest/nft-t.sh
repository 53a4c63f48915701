#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Network classes on cgroup v2 with nftables: the university example's
# firewall (examples/university/real/nftables.conf) and its v2
# configuration, as installed.  The daemon keeps the cgroup ids of its
# www and nfs groups in the firewall's sets (nft-set); the rules
# "socket cgroupv2 level 5 @www" then let the www class reach only web
# ports and the nfs class only NFS.  Shown with real connections from
# classified programs to listeners on 127.0.0.1 (ports 80, 2049 and
# 8080): an allowed port connects, a dropped one times out and the
# drop rule's counter goes up.  Then the same for a group that is
# removed and made again (a template net class, "/web/%u", with its
# own set at level 6: a new group, a new id), for the nfs group removed
# behind the daemon's back and made again, after a set disappeared
# and the firewall was reloaded with "flush ruleset" (the daemon, told
# by nftables' notifications, fills the sets again), and after a
# restart of the daemon with the sets emptied meanwhile (it adopts its
# groups and fills the sets at start).
#
# The clients are copies of bash (named firefox, nfsd, w3m, so that the
# rules classify them) that block on a fifo until the test has seen
# them classified: a socket belongs to the group its process was in
# when it made the socket.  The guest's tcp_syn_retries is 1, so a
# connection whose SYN is dropped times out after about 3 s.
. ./lib.sh
plan 67

install_dest
EX=/usr/share/doc/cgengine/examples/university
getent group profs >/dev/null || groupadd profs || bail "groupadd profs"
getent group students >/dev/null || groupadd students || bail "groupadd students"
id stud1 >/dev/null 2>&1 || useradd -m -G students stud1 || bail "useradd stud1"
install -m 644 "$EX/real/cgengined-v2.conf" /etc/cgengine/cgengined.conf
install -m 644 "$EX/hooks.lua" /etc/cgengine/hooks.lua
# the example's rules without the catch-all lines (they would move every
# service of the guest), and a per-user template class for part 2
sed -e '/^\*[[:space:]]/d' "$EX/real/cgrules.conf" >/etc/cgrules.conf
echo '*:w3m  net_cls  /web/%u' >>/etc/cgrules.conf
cat >>/etc/cgengine/cgengined.conf <<'EOF'
# nft-t.sh: a template group, one per user; its set is the test's
group "net_cls:/web/%u" { nft-set = {"inet cgvm web"} }
EOF
# the example's firewall and the test's table for the template class
{
	cat "$EX/real/nftables.conf"
	cat <<'EOF'
table inet cgvm {
	set web {
		type cgroupsv2
	}
	counter web_ok {
	}
	counter web_dropped {
	}
	chain output {
		type filter hook output priority filter; policy accept;
		socket cgroupv2 level 6 @web tcp dport 80 counter name web_ok accept
		socket cgroupv2 level 6 @web counter name web_dropped drop
	}
}
EOF
} >/etc/nftables.conf
# (install unlinks first: an earlier scenario's firefox may still be exiting)
for p in firefox nfsd w3m; do install -m 755 /bin/bash /usr/local/bin/$p; done
cgengined --check >/dev/null || bail "cgengined --check refuses the configuration"

D=/run/cgvm-nft
# the clients' (stud1's) directory: not world-writable, where
# fs.protected_fifos would keep root from opening stud1's fifos
rm -rf "$D" && mkdir -m 755 "$D" && chown stud1 "$D"
SYN=$(cat /proc/sys/net/ipv4/tcp_syn_retries)
echo 1 >/proc/sys/net/ipv4/tcp_syn_retries

# --- the firewall, listeners, the daemon ----------------------------------------
ok "the example firewall loads (nft -f /etc/nftables.conf)" nft -f /etc/nftables.conf
perl -MIO::Socket::INET -MIO::Select -e '
	my $s = IO::Select->new;
	for my $p (@ARGV) {
		$s->add(IO::Socket::INET->new(LocalAddr => "127.0.0.1",
			LocalPort => $p, Listen => 64, ReuseAddr => 1)
			or die "listen on $p: $!\n");
	}
	open(my $f, ">", "'"$D"'/listening") or die; close $f;
	while (1) { for my $l ($s->can_read) { my $c = $l->accept; close $c if $c } }
	' 80 2049 8080 </dev/null >/dev/null 2>"$D/listener.err" &
LISTENER=$!
ok "listeners on 127.0.0.1 ports 80, 2049 and 8080" wait_for 20 test -f "$D/listening"
ok "an unclassified process reaches all three (other traffic is untouched)" \
	bash -c ': <>/dev/tcp/127.0.0.1/80 && : <>/dev/tcp/127.0.0.1/2049 && : <>/dev/tcp/127.0.0.1/8080'

journal_mark
timeout 120 systemctl start cgengined
is active "$(prop cgengined ActiveState)" "the daemon runs with the example's v2 configuration"
G=$(prop cgengined ControlGroup)

# --- helpers ---------------------------------------------------------------------
# The client: requests "TAG PORT..." on the fifo $1; for each port it
# connects from a subshell (in parallel) and writes open, timeout or the
# error to $2/TAG.PORT.
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
# client NAME FD: start NAME as stud1 with its requests on fd FD; sets CPID
client() {
	rm -f "$D/$1.in" && mkfifo -m 600 "$D/$1.in" && chown stud1 "$D/$1.in"
	eval "exec $2<>\"$D/$1.in\""
	setpriv --reuid=stud1 --regid="$(id -g stud1)" --init-groups \
		"/usr/local/bin/$1" -c "$CLIENT" "$1" "$D/$1.in" "$D" \
		</dev/null >/dev/null 2>>"$D/$1.err" 3>&- 4>&- 5>&- &
	CPID=$!
}
# ask FD TAG PORT...: send a request; answer TAG PORT: its result
ask() { fd=$1; shift; echo "$*" >&"$fd"; }
answer() {
	wait_for 20 test -f "$D/$1.$2"
	cat "$D/$1.$2" 2>/dev/null || echo "no answer"
}
in_group() { test "$(cgroup_of "$1")" = "$2"; }
# set_has TABLE SET DIR|ID: the set holds the group's id (a cgroup's id
# is its directory's inode number; nft prints an id as the path below
# /sys/fs/cgroup when it finds it)
set_has() {
	case $3 in
	/*) id=$(stat -c %i "$V2$3") || return 1; rel=${3#/} ;;
	*) id=$3 rel=$3 ;;
	esac
	nft -j list set inet "$1" "$2" | sed -n 's/.*"elem": *\[\([^]]*\)\].*/\1/p' |
		tr -d '" ' | tr , '\n' | grep -Fqx -e "$id" -e "$rel"
}
# filled TABLE SET DIR: the daemon has put DIR's id into the set
filled() { wait_for 10 set_has "$@"; }
packets() { # packets TABLE COUNTER
	nft list counter inet "$1" "$2" | sed -n 's/.*packets \([0-9]*\).*/\1/p'
}
grew() { [ "$(packets "$1" "$2")" -gt "$3" ]; } # grew TABLE COUNTER BEFORE
# counted TABLE ACCEPTED DROPPED A0 D0: both counters grew (from A0, D0)
counted() { grew "$1" "$2" "$4" && grew "$1" "$3" "$5"; }
# exited PID: a child of ours has exited (a zombie until waited for)
exited() { ! test -d "/proc/$1" || grep -q '^State:[[:space:]]*Z' "/proc/$1/status"; }
all_exited() { for p; do exited "$p" || return 1; done; }
no_id() { ! set_has "$@"; }
explain_sets() { cgenginectl explain "$1" | sed -n 's/^ *nft sets: //p'; }

WWW=$G/students/default/www NFS=$G/students/default/nfs WEB=$G/students/default/web/stud1

# --- part 1: the example's classes ------------------------------------------------
client firefox 3; F=$CPID
client nfsd 4; N=$CPID
ok "a student's browser is in the www class" wait_for 20 in_group $F "$WWW/students"
ok "a student's nfsd is in the nfs class" wait_for 20 in_group $N "$NFS/default"
ok "the www group's id is in inet cgengine www" filled cgengine www "$WWW"
ok "the nfs group's id is in inet cgengine nfs" filled cgengine nfs "$NFS"
diag "$(nft list set inet cgengine www | grep elements)"
ok "it logged adding the www group's id when it made the group" \
	journal_has "^nft set inet cgengine www: added unified:$WWW \\(id $(stat -c %i "$V2$WWW")\\)\$"
S=$(explain_sets $F)
is "inet cgengine www (level 5, unified:$WWW)" "$S" "explain names the browser's set, its level and group"
L=$(echo "$S" | sed -n 's/.*(level \([0-9]*\),.*/\1/p')
ok "the example firewall matches www at that level" \
	grep -q "socket cgroupv2 level $L @www" /etc/nftables.conf
is "inet cgengine nfs (level 5, unified:$NFS)" "$(explain_sets $N)" "explain names nfsd's set"
w0=$(packets cgengine www_web) d0=$(packets cgengine www_dropped)
n0=$(packets cgengine nfs_nfs) e0=$(packets cgengine nfs_dropped)
ask 3 f1 80 2049 8080
ask 4 n1 2049 80
is open "$(answer f1 80)" "www: the browser connects to port 80"
is timeout "$(answer f1 2049)" "www: its connection to 2049 (NFS) times out"
is timeout "$(answer f1 8080)" "www: and to 8080"
ok "www: counted as web traffic" grew cgengine www_web "$w0"
ok "www: the drop rule's counter went up" grew cgengine www_dropped "$d0"
is open "$(answer n1 2049)" "nfs: nfsd connects to port 2049"
is timeout "$(answer n1 80)" "nfs: its connection to 80 times out"
ok "nfs: counted as NFS traffic" grew cgengine nfs_nfs "$n0"
ok "nfs: the drop rule's counter went up" grew cgengine nfs_dropped "$e0"

# --- part 2: a template group, removed and made again ---------------------------
client w3m 5; W=$CPID
ok "a student's w3m is in its own template group /web/stud1" wait_for 20 in_group $W "$WEB"
ok "the template group's id is in inet cgvm web" filled cgvm web "$WEB"
ID1=$(stat -c %i "$V2$WEB")
o0=$(packets cgvm web_ok) x0=$(packets cgvm web_dropped)
ask 5 w1 80 2049
is open "$(answer w1 80)" "web: w3m connects to port 80"
is timeout "$(answer w1 2049)" "web: its connection to 2049 times out"
ok "web: counted by the level 6 rules" counted cgvm web_ok web_dropped "$o0" "$x0"
exec 5>&- # w3m reads the end of its requests and exits
ok "w3m exits" wait_for 10 exited $W
wait $W
ok "its empty template group is removed" wait_for 15 sh -c "! test -d $V2$WEB"
ok "and its id leaves the set" wait_for 10 no_id cgvm web "$ID1"
ok "the daemon logged deleting it" \
	journal_has "^nft set inet cgvm web: deleted unified:$WEB \\(id $ID1\\)\$"
client w3m 5; W=$CPID
ok "a new w3m: the group is made again" wait_for 20 in_group $W "$WEB"
ID2=$(stat -c %i "$V2$WEB")
ok "with a new id ($ID1 before, $ID2 now)" test "$ID1" != "$ID2"
ok "the new id is in inet cgvm web" filled cgvm web "$WEB"
o0=$(packets cgvm web_ok) x0=$(packets cgvm web_dropped)
ask 5 w2 80 2049
is open "$(answer w2 80)" "web, new group: w3m connects to port 80"
is timeout "$(answer w2 2049)" "web, new group: its connection to 2049 times out"
ok "web, new group: counted by the level 6 rules" counted cgvm web_ok web_dropped "$o0" "$x0"

# --- part 2b: a group removed behind the daemon's back ------------------------------
exec 4>&- # nfsd reads the end of its requests and exits
wait_for 10 exited $N
wait $N
NID1=$(stat -c %i "$V2$NFS")
ok "with nfsd gone, its (non-template) groups are removed by hand" \
	rmdir "$V2$NFS/default" "$V2$NFS"
client nfsd 4; N=$CPID
ok "a new nfsd: the daemon makes the nfs group again" wait_for 20 in_group $N "$NFS/default"
ok "its new id is in inet cgengine nfs" filled cgengine nfs "$NFS"
ok "the old id ($NID1) is not" wait_for 10 no_id cgengine nfs "$NID1"
n0=$(packets cgengine nfs_nfs) e0=$(packets cgengine nfs_dropped)
ask 4 n1b 2049 80
is "open timeout" "$(answer n1b 2049) $(answer n1b 80)" "nfs, new group: nfsd reaches 2049, not 80"
ok "nfs, new group: both counters went up" counted cgengine nfs_nfs nfs_dropped "$n0" "$e0"

# --- part 3: a set missing, then the firewall reloaded ------------------------------
journal_mark
ok "the test's table is deleted (nft delete table inet cgvm)" nft delete table inet cgvm
exec 5>&-
wait_for 10 exited $W
wait $W
ok "w3m's group is removed again" wait_for 15 sh -c "! test -d $V2$WEB"
client w3m 5; W=$CPID
ok "a new w3m, a new group, while its set is missing" wait_for 20 in_group $W "$WEB"
ok "the daemon logs that it cannot add the group's id" \
	journal_has "^nft set inet cgvm web: cannot add unified:$WEB: it does not exist"
ask 5 w3 2049
is open "$(answer w3 2049)" "without its set, nothing restricts w3m"
journal_mark
ok "the firewall reloads (nft -f, flush ruleset: the sets start empty)" nft -f /etc/nftables.conf
t0=$(date +%s%N)
logger -t nft-t "nft -f /etc/nftables.conf returned" # for the journal's times
ok "the www set holds the www group's id again" filled cgengine www "$WWW"
ok "the nfs set holds the nfs group's id again" filled cgengine nfs "$NFS"
ok "the test's set is back and holds w3m's group id again" filled cgvm web "$WEB"
diag "the test saw the three sets full again $((($(date +%s%N) - t0) / 1000000)) ms after nft -f returned (polling, emulated; the journal has the daemon's times)"
ok "the daemon refilled them by itself (nftables' notifications)" \
	journal_has '^nft set inet cgengine www: 1 group id added, 0 deleted$'
ok "and says it found the missing set" journal_has '^nft set inet cgvm web: found$'
ask 3 f2 80 2049
ask 4 n2 2049 80
ask 5 w4 80 2049
is "open timeout" "$(answer f2 80) $(answer f2 2049)" "reloaded: the browser reaches 80, not 2049"
is "open timeout" "$(answer n2 2049) $(answer n2 80)" "reloaded: nfsd reaches 2049, not 80"
is "open timeout" "$(answer w4 80) $(answer w4 2049)" "reloaded: w3m reaches 80, not 2049"
ok "reloaded: the www class's drop counter counts again" grew cgengine www_dropped 0
ok "reloaded: the nfs class's drop counter counts again" grew cgengine nfs_dropped 0
ok "reloaded: the template class's drop counter counts again" grew cgvm web_dropped 0
ok "no errors in the daemon's journal since the reload" \
	sh -c "! journalctl -u cgengined --no-pager -o cat -p err --after-cursor='$JOURNAL_CURSOR' | grep -q ."

# --- part 4: a restart adopts the groups and fills the sets at start ----------------
systemctl stop cgengined
nft flush set inet cgengine www
ok "with the daemon stopped, the www set is emptied by hand" no_id cgengine www "$WWW"
ask 3 f0 2049
is open "$(answer f0 2049)" "then nothing stops the browser: the set is what restricts it"
journal_mark
timeout 120 systemctl start cgengined
ok "after a start the www set holds the (adopted) www group's id" filled cgengine www "$WWW"
d0=$(packets cgengine www_dropped)
ask 3 f3 80 2049
is "open timeout" "$(answer f3 80) $(answer f3 2049)" "restarted: the browser reaches 80, not 2049"
ok "restarted: the drop counter went up" grew cgengine www_dropped "$d0"

# --- clean up ---------------------------------------------------------------------
exec 3>&- 4>&- 5>&-
ok "the clients exit at the end of their requests" \
	wait_for 10 all_exited $F $N $W
wait $F $N $W
kill $LISTENER
nft flush ruleset
echo "$SYN" >/proc/sys/net/ipv4/tcp_syn_retries
systemctl stop cgengined
is inactive "$(prop cgengined ActiveState)" "the daemon stops"
for f in "$D"/*.err; do [ -s "$f" ] && sed 's/^/# /' "$f" >&2; done
done_testing
