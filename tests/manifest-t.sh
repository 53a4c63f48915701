#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The test manifest cannot drift: every test under tests/ (a *-t.c
# program or a *-t.sh script; the VM lane's guest tests aside) is in
# exactly one of Makefile.am's two lists, unit_tests or root_tests;
# every test listed exists; a unit script never asks for root and a
# root test skips without it; scripts/check-all.sh names no test of
# its own but reads the lists from make.
: "${SRCDIR:=.}" "${BUILDDIR:=.}"
. "$SRCDIR/tests/tap/tap.sh"
[ -f "$BUILDDIR/Makefile" ] || skip_all "no Makefile in $BUILDDIR"
plan 8

T=$(mktemp -d /tmp/manifest-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
# a make of its own: not a sub-make of make check (no jobserver, no
# "Entering directory")
list() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$BUILDDIR" "print-$1-tests" |
		tr ' ' '\n' | sed '/^$/d'
}
list unit >"$T/unit"
list root >"$T/root"
ok "make print-unit-tests names tests" test -s "$T/unit"
ok "make print-root-tests names tests" test -s "$T/root"

# the tests on disk, named as the lists name them (a program without .c)
(cd "$SRCDIR" && find tests -path tests/vm -prune -o -type f \( -name '*-t.c' -o -name '*-t.sh' \) -print) |
	sed 's/\.c$//' | sort >"$T/disk"
sort "$T/unit" "$T/root" >"$T/listed"
is "" "$(comm -23 "$T/disk" "$T/listed" | tr '\n' ' ')" "every test under tests/ is in a list"
is "" "$(uniq -d "$T/listed" | tr '\n' ' ')" "no test is in both lists, nor twice in one"
is "" "$(comm -13 "$T/disk" "$T/listed" | tr '\n' ' ')" "every test listed exists"

# a unit script runs as anyone; a root test says so and skips otherwise
asks_root='require_root|"\$\(id -u\)" -eq 0|geteuid\(\) != 0|testenv_unavailable'
bad=""
for t in $(grep '\.sh$' "$T/unit"); do
	[ "$t" = tests/manifest-t.sh ] && continue # names the words above
	grep -Eq "$asks_root" "$SRCDIR/$t" && bad="$bad $t"
done
is "" "$bad" "no unit script skips without root"
bad=""
for t in $(cat "$T/root"); do
	case $t in *.sh) f=$t ;; *) f=$t.c ;; esac
	grep -Eq "$asks_root" "$SRCDIR/$f" || bad="$bad $t"
done
is "" "$bad" "every root test skips without root"

# check-all.sh runs Makefile.am's lists, never one of its own
named=""
for t in $(cat "$T/listed"); do
	n=$(basename "$t")
	grep -q -- "$n" "$SRCDIR/scripts/check-all.sh" && named="$named $n"
done
is "" "$named" "scripts/check-all.sh names no test"
