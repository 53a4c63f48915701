# SPDX-License-Identifier: GPL-2.0-or-later
# deb.sh -- the package lane of tests/vm/run.sh (sourced; bash): build
# the Debian package from the release tarball (a clean tree) twice, the
# second time as a newer version, lint it, then install, upgrade, remove
# and purge it in the guest (guest/deb-t.sh).
#
# The package builds run with DEB_BUILD_OPTIONS=nocheck: the test suite
# is make check's job, and as root it would mount hierarchies during the
# build.

# build_deb TREE: dpkg-buildpackage -us -uc -b in TREE
build_deb() {
	(cd "$1" && DEB_BUILD_OPTIONS="nocheck parallel=2" nice dpkg-buildpackage -us -uc -b) \
		>"$1.log" 2>&1
}

# bump_version TREE: a changelog entry for a newer local build
bump_version() {
	local v
	v=$(cd "$1" && dpkg-parsechangelog -S Version)+vmtest1
	{
		printf 'cgengine (%s) unstable; urgency=medium\n\n' "$v"
		printf '  * Local rebuild for the VM lane'"'"'s upgrade test.\n\n'
		printf ' -- cgengine VM lane <vmlane@localhost>  %s\n\n' "$(date -R)"
		cat "$1/debian/changelog"
	} >"$1/debian/changelog.new" && mv "$1/debian/changelog.new" "$1/debian/changelog"
	echo "$v"
}

lane_deb() {
	local j=$WORK/deb dir old new v lint t=$SECONDS
	if ! make_dist; then
		result 1 "make dist makes the release tarball"
		return
	fi
	dir=$(basename "$TARBALL" .tar.gz)
	mkdir -p "$WORK/deb1" "$WORK/deb2"
	tar -C "$WORK/deb1" -xzf "$TARBALL" && tar -C "$WORK/deb2" -xzf "$TARBALL"
	build_deb "$WORK/deb1/$dir"
	result $? "dpkg-buildpackage -us -uc -b builds the package from the release tarball"
	old=$(ls "$WORK"/deb1/cgengine_*.deb 2>/dev/null)
	if [ -z "$old" ]; then
		tail -n 20 "$WORK/deb1/$dir.log" | sed 's/^/# /'
		return
	fi
	lint=$(lintian --info "$WORK"/deb1/cgengine_*.changes 2>&1)
	echo "$lint" | grep -v '^running with root' | sed 's/^/# lintian: /'
	! echo "$lint" | grep -q '^E: '
	result $? "lintian reports no errors"
	! echo "$lint" | grep -q '^W: '
	result $? "lintian reports no warnings (the overrides say why)"
	v=$(bump_version "$WORK/deb2/$dir")
	build_deb "$WORK/deb2/$dir"
	result $? "a newer build ($v) builds too"
	new=$(ls "$WORK"/deb2/cgengine_*.deb 2>/dev/null)
	[ -n "$new" ] || return
	took "package builds and lintian" $t
	job "$j" deb
	mkdir -p "$j/debs"
	cp "$old" "$j/debs/old.deb" && cp "$new" "$j/debs/new.deb"
	echo "$v" >"$j/debs/new.version"
	boot "$j" 900 deb
}
