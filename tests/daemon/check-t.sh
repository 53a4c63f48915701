#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cgengined --check: exit status and the exact messages for good and
# bad daemon configs and rules files.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 27

mount_hier a; MANAGED="a"
check() { "$CGENGINED" --check -c "$T/cgengined.conf" >"$T/out" 2>&1; echo $?; }

echo "root name=${TAG}a /x" >"$T/cgrules.conf"
write_config
is 0 "$(check)" "a valid setup: exit 0"
is "$T/cgrules.conf: 1 rules, 1 managed hierarchies: OK" "$(cat "$T/out")" "and says so"

cat >"$T/cgrules.conf" <<EOF
root name=${TAG}a /x bogus
root
% name=${TAG}a /x
"root name=${TAG}a /x
nosuchuser${TAG} name=${TAG}a /y
EOF
is 1 "$(check)" "bad rules: exit 1"
is "$T/cgrules.conf:1: unknown option 'bogus'" "$(sed -n 1p "$T/out")" "message 1"
is "$T/cgrules.conf:2: expected '<key> <controllers> <destination> [<options>]'" "$(sed -n 2p "$T/out")" "message 2"
is "$T/cgrules.conf:4: unterminated quote" "$(sed -n 3p "$T/out")" "message 3 (the % line after an error is not reported again)"
is "$T/cgrules.conf:5: warning: unknown user 'nosuchuser${TAG}'; rule skipped" \
	"$(sed -n 4p "$T/out")" "unknown users are a warning"
is 4 "$(wc -l <"$T/out" | tr -d ' ')" "nothing else"

echo "root name=${TAG}a /x" >"$T/cgrules.conf"
write_config 'colour = "blue"'
is 1 "$(check)" "unknown config key: exit 1"
is "$T/cgengined.conf:8: no such option 'colour'" "$(sed -n 1p "$T/out")" "names file and line"

write_config 'match = "best-match"'
check >/dev/null
is "$T/cgengined.conf:8: match: expected \"per-hierarchy\" or \"first-match\", not \"best-match\"" \
	"$(sed -n 1p "$T/out")" "bad match value"

write_config 'group "nopath" { set = {"a=b"} }'
check >/dev/null
is "$T/cgengined.conf:8: group \"nopath\": expected \"HIERARCHY:/PATH\"" "$(sed -n 1p "$T/out")" "bad group title"

# issue 22: what the third attack run got past --check
write_config 'group "name='"$TAG"'a:/.." { nft-set = {"inet t s"} }'
is 1 "$(check)" "a group above its hierarchy's root: exit 1"
is "$T/cgengined.conf:8: group \"name=${TAG}a:/..\": the path must not contain '..'" \
	"$(cat "$T/out")" "named with file and line"
write_config 'lua-timeout = 9223372036854775807'
check >/dev/null
is "$T/cgengined.conf:8: lua-timeout: 9223372036854775807 is not a time from 1 to 10000 ms" \
	"$(cat "$T/out")" "a lua-timeout out of range"
write_config 'boost-profile "p" { hierarchy = "name='"$TAG"'a" destination = "/../../../x" }'
is 1 "$(check)" "a boost profile's destination above the root: exit 1"
is "$T/cgengined.conf:8: boost-profile \"p\": destination \"/../../../x\" must not contain '..'" \
	"$(cat "$T/out")" "named with file and line"
write_config 'boost-profile "p" {
	hierarchy = "name='"$TAG"'nosuch"
	destination = "/fast"
}'
is 1 "$(check)" "a boost profile for a hierarchy that does not exist: exit 1"
is "$T/cgengined.conf:11: boost-profile \"p\": hierarchy \"name=${TAG}nosuch\" is not managed" \
	"$(cat "$T/out")" "named with file and line"

# issue 32: an empty list managed every v1 hierarchy of the machine
write_config 'hierarchies = {}'
is 1 "$(check)" "hierarchies = {}: exit 1"
is "$T/cgengined.conf:8: hierarchies: the list is empty; write {\"all\"} to manage every v1 hierarchy, or name them" \
	"$(cat "$T/out")" "says to write {\"all\"}, with file and line"
write_config 'hierarchies = {"all", "name='"$TAG"'a"}'
is 1 "$(check)" "\"all\" with a hierarchy: exit 1"
is "$T/cgengined.conf:8: hierarchies: \"all\" cannot be listed with other hierarchies" \
	"$(cat "$T/out")" "named with file and line"

# issue 32: a composed v2 group over 1,023 bytes was left alone silently
dims=""; : >"$T/cgrules.conf"
for k in 0 1 2 3 4 5 6 7 8 9 10; do
	dims="$dims${dims:+, }\"d$k\""
	echo "* d$k /%p/%p" >>"$T/cgrules.conf"
done
write_config "unified-layout = {$dims}
unified-root = \"/cgetest\""
if grep -q " - cgroup2 " /proc/self/mountinfo; then
	is 1 "$(check)" "a layout that can compose 1,086 bytes: exit 1"
	is "$T/cgengined.conf:8: unified-layout: a composed group can be 1086 bytes long, over the limit of 1023 (11 dimensions; the longest part is d0's, 98 bytes, from $T/cgrules.conf:1, /%p/%p): use fewer dimensions or levels, or shorter destinations (a template's value takes up to 48 bytes)" \
		"$(cat "$T/out")" "says why, with file and line"
else
	skip 2 "no cgroup2 mount"
fi

"$CGENGINED" --check -c "$T/missing.conf" >"$T/out" 2>&1
is 1 "$?" "an explicit -c file that is missing: exit 1"
is "$T/missing.conf: cannot open: No such file or directory" "$(cat "$T/out")" "and says so"
done_testing
