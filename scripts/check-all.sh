#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build cgengine from scratch twice with GCC -- plain and with
# ASan+UBSan -- in separate build directories, run the whole test suite
# in each (and the root tests of the plain one again on the proc
# connector: make check-root-netlink), build the whole tree (tests and benchmarks too) a third time
# with clang and run the unit tests there, run the unit tests' programs
# under valgrind, and print one summary line: "N passed, N failed, N
# skipped".  Every build is made with --enable-werror: a compiler
# warning fails it.  Which tests are unit tests, Makefile.am says
# (make check-unit, make -s print-unit-tests); this script names none.
# With --fuzz SECONDS, each libFuzzer target also runs that long
# (tests/fuzz/run.sh, clang); each target counts as one test.
# With --vm, the VM lane (make check-vm: a Debian guest with systemd
# and pure cgroup v2 under QEMU, and the Debian package) runs too; each
# of its checks counts as one test.
# Usage: scripts/check-all.sh [--distcheck] [--fuzz SECONDS] [--vm]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
[ -x configure ] || autoreconf -fi || exit 1
# the builds below are out of tree; an in-tree configure would stop them
if [ -f config.status ]; then
	echo "check-all: cleaning the in-tree build first (make distclean)"
	make -s distclean >/dev/null 2>&1 || rm -f config.status
fi

pass=0 fail=0 skip=0 status=0
tally() { # $1 = make output file
	p=$(sed -n 's/^# PASS: *//p' "$1" | tail -1)
	f=$(sed -n 's/^# FAIL: *//p' "$1" | tail -1)
	e=$(sed -n 's/^# ERROR: *//p' "$1" | tail -1)
	s=$(sed -n 's/^# SKIP: *//p' "$1" | tail -1)
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0} + ${e:-0})); skip=$((skip + ${s:-0}))
}

for variant in plain sanitizers; do
	dir="$top/build-$variant"
	rm -rf "$dir" && mkdir -p "$dir" || exit 1
	flags="--enable-werror"
	[ "$variant" = sanitizers ] && flags="$flags --enable-sanitizers"
	echo "=== $variant build ==="
	(cd "$dir" && "$top/configure" -q $flags && make -j2 >/dev/null) || { echo "build failed ($variant)"; status=1; fail=$((fail + 1)); continue; }
	(cd "$dir" && make -j2 check) >"$dir/check.out" 2>&1 || status=1
	grep -E '^(PASS|FAIL|ERROR|SKIP|XFAIL|XPASS):' "$dir/check.out" | grep -v '^PASS' | sed "s/^/[$variant] /"
	sed -n '/^# TOTAL/,/^# ERROR/p' "$dir/check.out" | sed "s/^/[$variant] /"
	[ $status -ne 0 ] && [ -f "$dir/test-suite.log" ] && sed -n '1,200p' "$dir/test-suite.log"
	tally "$dir/check.out"
	# plain: the root tests a second time on the other event source (the
	# runs above use the BPF program where it loads: event-source = auto)
	[ "$variant" = plain ] || continue
	(cd "$dir" && make -j2 check-root-netlink) >"$dir/check-netlink.out" 2>&1 || status=1
	grep -E '^(FAIL|ERROR|XPASS):' "$dir/check-netlink.out" | sed "s/^/[$variant, netlink] /"
	sed -n '/^# TOTAL/,/^# ERROR/p' "$dir/check-netlink.out" | sed "s/^/[$variant, netlink] /"
	tally "$dir/check-netlink.out"
done

# clang: the whole tree, tests and benchmarks included, without a
# warning; the unit tests run there too (the rest of the suite would
# repeat the GCC runs above for CI time that is better spent elsewhere),
# as an unprivileged user when one can read the tree: a unit test that
# needs root, or writes outside its own directories, fails there
echo "=== clang build ==="
dir="$top/build-clang"
rm -rf "$dir" && mkdir -p "$dir" || exit 1
as_user=""
if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null &&
	runuser -u nobody -- test -r "$top/configure" 2>/dev/null; then
	as_user="runuser -u nobody --"
fi
if ! command -v clang >/dev/null; then
	echo "clang: not installed (scripts/install-deps.sh installs it)"; fail=$((fail + 1)); status=1
elif (cd "$dir" && "$top/configure" -q CC=clang --enable-werror && make -j2 >build.out 2>&1 &&
	make -j2 check TESTS= >>build.out 2>&1); then
	if [ -n "$as_user" ]; then
		echo "clang: the unit tests run as nobody (make check-unit)"
		chown -R nobody "$dir"
	else
		echo "clang: the unit tests run as $(id -un) (nobody cannot read $top)"
	fi
	(cd "$dir" && $as_user make -j2 check-unit) >"$dir/check.out" 2>&1 || status=1
	grep -E '^(FAIL|ERROR|XPASS):' "$dir/check.out" | sed "s/^/[clang] /"
	sed -n '/^# TOTAL/,/^# ERROR/p' "$dir/check.out" | sed "s/^/[clang] /"
	tally "$dir/check.out"
else
	grep -E 'error|warning' "$dir/build.out" | head -40
	echo "build failed (clang)"; fail=$((fail + 1)); status=1
fi

# the unit tests must be valgrind-clean too
if command -v valgrind >/dev/null && [ -d "$top/build-plain" ]; then
	echo "=== valgrind on the unit tests ==="
	# Makefile.am's list; valgrind runs the programs, not the scripts
	unit_tests=$(cd "$top/build-plain" && make -s --no-print-directory print-unit-tests)
	[ -n "$unit_tests" ] || { echo "valgrind: no unit tests listed"; fail=$((fail + 1)); status=1; }
	for t in $unit_tests; do
		case $t in *.sh) continue ;; esac
		if (cd "$top/build-plain" && SRCDIR="$top" valgrind -q --leak-check=full \
			--errors-for-leak-kinds=definite,indirect --error-exitcode=9 \
			"./$t" >/dev/null 2>"$top/build-plain/valgrind.err"); then
			pass=$((pass + 1))
		else
			echo "valgrind: $t FAILED"; sed -n '1,40p' "$top/build-plain/valgrind.err"
			fail=$((fail + 1)); status=1
		fi
	done
fi

distcheck=false fuzz="" vm=false
while [ $# -gt 0 ]; do
	case $1 in
	--distcheck) distcheck=true ;;
	--fuzz) fuzz=${2:?--fuzz needs a number of seconds}; shift ;;
	--vm) vm=true ;;
	*) echo "usage: $0 [--distcheck] [--fuzz SECONDS] [--vm]" >&2; exit 2 ;;
	esac
	shift
done

if [ -n "$fuzz" ]; then
	echo "=== fuzzing, ${fuzz} s per target ==="
	rm -rf "$top/build-fuzz"
	FUZZ_BUILDDIR="$top/build-fuzz" FUZZ_CONFIGURE=--enable-werror \
		sh "$top/tests/fuzz/run.sh" "$fuzz" >"$top/fuzz.out" 2>&1
	cat "$top/fuzz.out" | grep -v '^fuzz: .* for [0-9]*s$'
	p=$(grep -c '^fuzz-.*: ok' "$top/fuzz.out")
	f=$(grep -c '^fuzz-.*: FAILED' "$top/fuzz.out")
	grep -q '^fuzz: build failed' "$top/fuzz.out" && f=$((f + 1))
	pass=$((pass + p)); fail=$((fail + f))
	[ "$f" -gt 0 ] && status=1
fi

if $vm && [ -f "$top/build-plain/Makefile" ]; then
	echo "=== the VM lane (make check-vm) ==="
	(cd "$top/build-plain" && make check-vm) >"$top/vm.out" 2>&1
	grep -E '^(not ok|# vm|# timing|# work directory)|SKIP' "$top/vm.out"
	p=$(grep -c '^ok ' "$top/vm.out")
	f=$(grep -c '^not ok ' "$top/vm.out")
	if grep -q '^1\.\.0 # SKIP' "$top/vm.out"; then
		skip=$((skip + 1))
	elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		f=1; echo "vm: no result (see vm.out)"; tail -20 "$top/vm.out"
	fi
	pass=$((pass + p)); fail=$((fail + f))
	[ "$f" -gt 0 ] && status=1
fi

if $distcheck; then
	echo "=== make distcheck ==="
	if (cd "$top/build-plain" &&
		make -j2 distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror >distcheck.out 2>&1); then
		echo "distcheck: ok"; pass=$((pass + 1))
	else
		tail -40 "$top/build-plain/distcheck.out"; echo "distcheck: FAILED"
		fail=$((fail + 1)); status=1
	fi
fi
echo "$pass passed, $fail failed, $skip skipped"
exit $status
