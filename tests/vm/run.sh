#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh -- the VM lane (make check-vm, make check-deb): scenarios that
# need a whole machine with systemd as PID 1 and pure cgroup v2, run in a
# throwaway Debian guest under QEMU (see lane.sh).  Prints one TAP
# stream: the host's own checks and every guest scenario's results,
# numbered in sequence, with the plan at the end.
#
#   tests/vm/run.sh [install|deb|all]       (default: all)
#
#   install  make install (Debian paths) into the guest; the systemd
#            unit for real (guest/unit-t.sh), classification on v2 and
#            how it lives with systemd (guest/v2-t.sh), cpu.weight
#            (guest/weight-t.sh), the university example
#            (guest/university-t.sh), its nftables firewall with the
#            sets the daemon fills (guest/nft-t.sh), the exec gate with
#            that firewall and systemd's watchdog (guest/gate-t.sh); the
#            same example on the systemd backend, with PID 1's cost per
#            placement (guest/systemd-t.sh, guest/place-bench.sh), and
#            its firewall, a Delegate=yes unit, boosts, a sticky process
#            and kill -9 of the daemon there (guest/systemd2-t.sh), and
#            the exec gate on it, with scopes made ahead (guest/sdgate-t.sh);
#            the D-Bus door with polkitd and logind (guest/dbus-t.sh);
#            the Prometheus exporter's socket unit (guest/exporter-t.sh);
#            per-process priorities of an app in user@UID.service, which
#            stays in its unit (guest/prio-t.sh); ananicy-cpp's types as
#            classes with their weights, and its cgroup's quota
#            (guest/ananicy-t.sh)
#   deb      dpkg-buildpackage and lintian on the host, then install,
#            upgrade, remove and purge in the guest (guest/deb-t.sh)
#
# Needs root and qemu-system-x86 qemu-utils mmdebstrap e2fsprogs
# xz-utils (the deb lane also dpkg-dev debhelper lintian); skips with
# status 77 otherwise.  SRCDIR/BUILDDIR as in make check (defaults: this
# tree, the current directory).  CGVM_KEEP=1 keeps the work directory;
# CGVM_ONLY="v2 weight" runs only those scenarios of the install lane.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "${SRCDIR:-$HERE/../..}" && pwd)
BUILDDIR=$(cd "${BUILDDIR:-.}" && pwd)
WHAT=${1:-all}
T0=$SECONDS

skip_lane() { echo "1..0 # SKIP $*"; exit 77; }
case $WHAT in install | deb | all) ;; *) echo "usage: $0 [install|deb|all]" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || skip_lane "needs root"
for t in qemu-system-x86_64 mmdebstrap mkfs.ext4 xz; do
	command -v $t >/dev/null ||
		skip_lane "needs $t (apt-get install qemu-system-x86 qemu-utils mmdebstrap e2fsprogs xz-utils)"
done
if [ "$WHAT" != install ]; then
	for t in dpkg-buildpackage dh lintian; do
		command -v $t >/dev/null || skip_lane "needs $t (apt-get install dpkg-dev debhelper lintian)"
	done
fi
[ -f "$BUILDDIR/Makefile" ] || skip_lane "no Makefile in $BUILDDIR (run from a configured build tree)"

. "$HERE/lane.sh"
WORK=$(mktemp -d /tmp/cgengine-vm.XXXXXX)
chmod 755 "$WORK"
finish() {
	if [ "${CGVM_KEEP:-}" = 1 ] || [ "$FAILED" -gt 0 ]; then
		echo "# work directory kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap finish EXIT

# --- TAP: one stream, numbered here ---------------------------------------------
N=0
FAILED=0
result() { # result 0|1 DESCRIPTION
	N=$((N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $N - $2"
	else
		echo "not ok $N - $2"
		FAILED=$((FAILED + 1))
	fi
}
# relay NAME FILE: a guest scenario's TAP, renumbered; its plan checked
relay() {
	local name=$1 file=$2 plan="" ran=0 line
	echo "# $name"
	if [ ! -f "$file" ]; then
		result 1 "$name: no results came back from the guest"
		return
	fi
	while IFS= read -r line; do
		case $line in
		1..*) plan=${line#1..}; plan=${plan%% *}
		      case $line in *SKIP*) echo "# $name: ${line#*SKIP}" ;; esac ;;
		"ok "* | "not ok "*)
			ran=$((ran + 1))
			local st=0 text=${line#ok }
			case $line in "not ok "*) st=1 text=${line#not ok } ;; esac
			text=${text#* } # drop the scenario's own number
			case $text in
			"# skip"*) N=$((N + 1)); echo "ok $N $text" ;;
			*) result $st "$name: ${text#- }" ;;
			esac ;;
		"Bail out!"*) result 1 "$name: ${line#Bail out! }" ;;
		*) echo "$line" ;;
		esac
	done <"$file"
	[ -n "$plan" ] && [ "$plan" -eq "$ran" ] ||
		result 1 "$name: planned ${plan:-no} tests, ran $ran"
}

# --- the project, built with Debian's paths -------------------------------------
debian_layout() { # the build tree was configured for /usr, /etc, /var, /run
	local m=$BUILDDIR/Makefile
	grep -qx 'prefix = /usr' "$m" && grep -qx 'sysconfdir = /etc' "$m" &&
		grep -qx 'localstatedir = /var' "$m" && grep -qx 'runstatedir = /run' "$m"
}
TARBALL=""
make_dist() { # the release tarball: a clean tree for the other builds
	[ -n "$TARBALL" ] && return 0
	make -s -C "$BUILDDIR" dist >"$WORK/dist.log" 2>&1 || return 1
	TARBALL=$(ls -t "$BUILDDIR"/cgengine-*.tar.gz | head -n 1)
	mv "$TARBALL" "$WORK/" && TARBALL=$WORK/$(basename "$TARBALL")
}
# make install DESTDIR=$1 with --prefix=/usr --sysconfdir=/etc ...
install_into() {
	local dest=$1 b=$BUILDDIR
	if ! debian_layout; then
		make_dist || return 1
		tar -C "$WORK" -xzf "$TARBALL" || return 1
		b=$WORK/$(basename "$TARBALL" .tar.gz)
		(cd "$b" && ./configure -q --prefix=/usr --sysconfdir=/etc \
			--localstatedir=/var --runstatedir=/run) >"$WORK/configure.log" 2>&1 ||
			return 1
	fi
	nice make -s -C "$b" -j2 >"$WORK/build.log" 2>&1 &&
		make -s -C "$b" install DESTDIR="$dest" >>"$WORK/build.log" 2>&1
}

# job DIR SCENARIO...: a job directory for one boot that runs the scenarios
job() {
	local dir=$1 s
	shift
	mkdir -p "$dir"
	cp "$SRCDIR/tests/tap/tap.sh" "$HERE/guest/lib.sh" "$HERE/guest/place-bench.sh" "$dir/"
	# a failed exec for sdgate-t.sh (the guest is Debian 12 as the host)
	cc -O2 -o "$dir/execfail" "$SRCDIR/tests/lib/execfail.c" 2>>"$WORK/build.log" ||
		echo "# cannot build tests/lib/execfail.c for the guest"
	# Mutter's xattr for dbus-t.sh (the guest has no setfattr)
	cc -O2 -o "$dir/setxattr" "$SRCDIR/tests/lib/setxattr.c" 2>>"$WORK/build.log" ||
		echo "# cannot build tests/lib/setxattr.c for the guest"
	# SetForeground with a pidfd for dbus-t.sh (busctl sends none)
	cc -O2 -o "$dir/fgcall" "$SRCDIR/tests/lib/fgcall.c" -lsystemd 2>>"$WORK/build.log" ||
		echo "# cannot build tests/lib/fgcall.c for the guest"
	{
		echo "# written by tests/vm/run.sh: the scenarios of one boot"
		for s; do
			cp "$HERE/guest/$s-t.sh" "$dir/"
			echo "sh ./$s-t.sh >out/$s.tap 2>out/$s.err"
		done
	} >"$dir/job.sh"
}
# boot DIR SECS SCENARIO...: boot once, then relay each scenario's TAP
boot() {
	local dir=$1 secs=$2 s t=$SECONDS
	shift 2
	lane_boot "$dir" "$secs"
	local rc=$?
	[ $rc -eq 125 ] && echo "# the guest sent no status; console: $dir/console.log"
	for s; do
		relay "guest/$s-t.sh" "$dir/out/$s.tap"
		[ -s "$dir/out/$s.err" ] && sed '/^#/!s/^/# /' "$dir/out/$s.err"
	done
	took "boot ($(basename "$dir"))" $t
}
TIMES=""
took() { TIMES="$TIMES$1 $((SECONDS - $2)) s, "; } # took WHAT START

lane_install() {
	local j=$WORK/install s=${CGVM_ONLY:-unit v2 weight university nft gate systemd systemd2 sdgate dbus exporter prio ananicy} t=$SECONDS
	job "$j" $s
	install_into "$j/dest"
	result $? "the project builds and installs with Debian's paths"
	took "build" $t
	if [ -x "$j/dest/usr/sbin/cgengined" ]; then
		boot "$j" 900 $s
	else
		tail -n 20 "$WORK"/*.log | sed 's/^/# /'
	fi
}

t=$SECONDS
lane_image
result $? "the guest image is ready (Debian $(. /etc/os-release && echo "$VERSION_CODENAME"), systemd, cgroup v2)"
took image $t
if [ -f "$LANE_IMAGE/rootfs.img" ]; then
	case $WHAT in
	install) lane_install ;;
	deb) . "$HERE/deb.sh" && lane_deb ;;
	all) lane_install; . "$HERE/deb.sh" && lane_deb ;;
	esac
fi
echo "# timing: ${TIMES}total $((SECONDS - T0)) s"
echo "1..$N"
[ "$FAILED" -eq 0 ]
