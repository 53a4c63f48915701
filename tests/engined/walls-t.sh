#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The walls the build keeps: the core library (engined/core/libcore.a)
# needs nothing of libev, sd-bus or the socket servers, its unit tests
# link without libev, and only engined/daemon/ includes <ev.h>; the
# core's verbs return values and hold no renderer (engined/render/
# writes them, on top of the core); every source, script and build file
# carries the licence's SPDX line.
. "$SRCDIR/tests/tap/tap.sh"
command -v nm >/dev/null || skip_all "needs nm (binutils)"
plan 9

lib="$BUILDDIR/engined/core/libcore.a"
undef=$(nm -u "$lib" 2>/dev/null | awk '{print $NF}' | sort -u)
ok "libcore.a exists and has undefined symbols to check" test -n "$undef"
is "" "$(echo "$undef" | grep -E '^(ev_|ev[A-Z]|sd_bus_|sd_notify)')" \
	"the core calls nothing of libev or sd-bus"
is "" "$(echo "$undef" | grep -E '^(server_|control_|sticky_|listener_|engine_|notify_|pidfile_)')" \
	"nor of the loop, the servers, notification or the pid file"
# linked without -lev: the link itself would have failed otherwise;
# ldd says what the dynamic linker would load
if command -v ldd >/dev/null; then
	is "" "$(ldd "$BUILDDIR/tests/engined/core/core-t" | grep -E 'libev|libsystemd')" \
		"core-t loads neither libev nor libsystemd"
else
	skip 1 "needs ldd"
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
