#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make DESTDIR=... install puts every file where the README and the man
# pages say, with paths substituted, and does not overwrite an
# administrator's configuration.
: "${SRCDIR:=.}" "${BUILDDIR:=.}"
. "$SRCDIR/tests/tap/tap.sh"
[ -f "$BUILDDIR/Makefile" ] || skip_all "no Makefile in $BUILDDIR"
plan 17
T=$(mktemp -d /tmp/cgetest-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
inst() { make -s -C "$BUILDDIR" DESTDIR="$T/dest" install >"$T/log" 2>&1; }
inst
is 0 "$?" "make DESTDIR install succeeds"
# make check exports the installation directories
[ -n "${sbindir:-}" ] || skip_all "run under make check (installation directories unknown)"
D="$T/dest"
ok "cgengined in sbindir" test -x "$D$sbindir/cgengined"
ok "cgenginectl in bindir" test -x "$D$bindir/cgenginectl"
for m in man8/cgengined.8 man8/cgenginectl.8 man5/cgengined.conf.5 man5/cgrules.conf.5; do
	ok "man page $m" test -f "$D$mandir/$m"
done
ok "cgengined.conf under sysconfdir/cgengine" test -f "$D$sysconfdir/cgengine/cgengined.conf"
ok "the annotated cgrules.conf there too" test -f "$D$sysconfdir/cgengine/cgrules.conf"
ok "the installed cgengined.conf passes --check syntax" \
	grep -q "^rules *= \"$sysconfdir/cgrules.conf\"" "$D$sysconfdir/cgengine/cgengined.conf"
ok "the init script, with the real daemon path" grep -q "^DAEMON=$sbindir/cgengined\$" "$D$sysconfdir/init.d/cgengined"
ok "the systemd unit, with paths filled in" grep -q "^ExecStart=$sbindir/cgengined --foreground" "$D$prefix/lib/systemd/system/cgengined.service"
ok "no placeholder is left in it" sh -c "! grep -q '@' '$D$prefix/lib/systemd/system/cgengined.service'"
ok "bash completion for cgenginectl" test -f "$D$datadir/bash-completion/completions/cgenginectl"
ok "documentation and examples" test -f "$D$docdir/examples/university/hooks.lua"
echo "# edited by the admin" >>"$D$sysconfdir/cgengine/cgengined.conf"
inst
ok "a second install keeps the admin's configuration" grep -q "edited by the admin" "$D$sysconfdir/cgengine/cgengined.conf"
"$D$sbindir/cgengined" --version >"$T/v" 2>&1
ok "the installed daemon runs" grep -q "^cgengined " "$T/v"
done_testing
