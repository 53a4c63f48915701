#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The walls the build keeps: the core library (engined/core/libcore.a)
# needs nothing of libev, sd-bus, nf_tables' socket, fanotify or the
# socket servers, its unit test links none of libev, libsystemd, libmnl
# and libnftnl, the systemd backend's move queue is tested without
# libsystemd, only engined/daemon/ includes <ev.h> and only three
# transports <systemd/sd-bus.h>: the systemd backend's (at most 800
# lines), the D-Bus door's, engined/daemon/dbus.c (its decision
# table, dbusauth.c, is pure: no sd-bus), and the foreground's to the
# users' managers, engined/daemon/fgunit.c -- and the loader of their
# sd-bus functions, engined/daemon/sdload.c, so that the daemon does
# not load libsystemd at start; the
# core's verbs return values and hold no renderer (engined/render/
# writes them, on top of the core); no file of engined/ is longer than
# 1,000 lines; every source, script and build file carries the
# licence's SPDX line.
. "$SRCDIR/tests/tap/tap.sh"
command -v nm >/dev/null || skip_all "needs nm (binutils)"
plan 17

lib="$BUILDDIR/engined/core/libcore.a"
undef=$(nm -u "$lib" 2>/dev/null | awk '{print $NF}' | sort -u)
ok "libcore.a exists and has undefined symbols to check" test -n "$undef"
is "" "$(echo "$undef" | grep -E '^(ev_|ev[A-Z]|sd_bus_|sd_notify)')" \
	"the core calls nothing of libev or sd-bus"
is "" "$(echo "$undef" | grep -E '^(server_|control_|sticky_|listener_|engine_|notify_|pidfile_)')" \
	"nor of the loop, the servers, notification or the pid file"
# the backends' part of the kernel library: nf_tables' socket (kernel/nft.c)
# and the fanotify group (kernel/execgate.c) -- the names of sets
# (nftref.c) and what the gate asks of /proc (execproc.c) are the core's
kernel_io='^(fanotify_|inotify_|mnl_|nftnl_|sd_|cgroupfs_|sdplace_|nftset_(open|close|add|del|list|portid|monitor_)|execgate_(open|mark|unmark|read|stat|allow|close|dir))'
is "" "$(echo "$undef" | grep -E "$kernel_io")" \
	"nor of fanotify, nf_tables' socket or a backend (they are handed to it)"
# what a link of the core alone carries, defined or not: its unit test
is "" "$(nm "$BUILDDIR/tests/engined/core/core-t" | awk '{print $NF}' |
	grep -E '^(fanotify_|mnl_|nftnl_|sd_bus_|ev_)')" \
	"core-t carries no fanotify, libmnl, libnftnl, sd-bus or libev symbol"
# linked without -lev: the link itself would have failed otherwise;
# ldd says what the dynamic linker would load
if command -v ldd >/dev/null; then
	is "" "$(ldd "$BUILDDIR/tests/engined/core/core-t" | grep -E 'libev|libsystemd|libmnl|libnftnl')" \
		"core-t loads none of libev, libsystemd, libmnl, libnftnl"
	is "" "$(ldd "$BUILDDIR/cgengined" | grep -E 'libsystemd|liblua|libnftnl|libmnl')" \
		"cgengined loads no libsystemd, Lua, libnftnl or libmnl at start (sdload.c, luaload.c, nftload.c do when used)"
	mq="$BUILDDIR/tests/engined/backend/movequeue-t"
	ok "the move queue's test is built" test -x "$mq"
	is "" "$(ldd "$mq" 2>&1 | grep -E 'libsystemd|not a dynamic|No such file')" \
		"movequeue-t loads no libsystemd"
else
	skip 4 "needs ldd"
fi
is "" "$(cd "$SRCDIR" && grep -l '#include <ev.h>' engined/core/*.[ch] engined/render/*.[ch] rules/*.[ch] kernel/*.[ch] lua/*.[ch] util/*.[ch] 2>/dev/null)" \
	"<ev.h> only inside engined/daemon/"
is "" "$(cd "$SRCDIR" && grep -lE '^#include "(engined/daemon/.*|daemon\.h|server\.h|listener\.h)"' engined/core/*.[ch] 2>/dev/null)" \
	"no core file includes a header of the daemon"
# the renderers live in engined/render/: the core defines none (not
# even a static one) and includes nothing of theirs
is "" "$(nm "$lib" 2>/dev/null | awk '$2 ~ /^[Tt]$/ { print $3 }' | grep -E '^(t_|render_)')" \
	"the core library holds no text or Prometheus renderer"
is "" "$(cd "$SRCDIR" && grep -lE '^#include "(engined/render/.*|render\.h)"' engined/core/*.[ch] 2>/dev/null)" \
	"no core file includes a header of the renderers"
sdbus=$(cd "$SRCDIR" && grep -rl '#include <systemd/sd-bus.h>' engined | sort)
is "engined/backend/systemd/sdbus.c engined/daemon/dbus.c engined/daemon/fgunit.c engined/daemon/sdload.c" "$(echo $sdbus)" \
	"only the systemd backend's transport, the D-Bus door, the users' managers' and their loader include <systemd/sd-bus.h>"
lines=$(cd "$SRCDIR" && wc -l <engined/backend/systemd/sdbus.c)
ok "the systemd backend's sd-bus transport is at most 800 lines ($lines)" test "$lines" -le 800
is "" "$(cd "$SRCDIR" && find engined -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 1000')" \
	"no file of engined/ is longer than 1,000 lines"

# the licence: sources, scripts (anything starting with #!) and build
# files of the tree; not the generated ones (Makefile.in, configure)
nospdx=$(cd "$SRCDIR" && find configure.ac Makefile.am engined rules lua kernel util \
	tests bench examples scripts debian .ci -type f 2>/dev/null |
	while read -r f; do
		case "$f" in
		*.[ch] | *.sh | *.am | *.ac | *.lua | */run) ;;
		*) head -c 2 "$f" | grep -q '^#!' || continue ;;
		esac
		head -n 3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' || echo "$f"
	done)
is "" "$nospdx" "every source, script and build file has its SPDX line"
