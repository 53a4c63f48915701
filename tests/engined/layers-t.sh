#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# engined/ keeps its walls: only the event-loop files include <ev.h>,
# and neither the includes nor the calls between its files form a
# cycle (checked with tsort over a file-level graph).
. "$SRCDIR/tests/tap/tap.sh"
plan 3
cd "$SRCDIR/engined" || bail "no engined/"

LOOP_FILES="engine.c listener.h server.c server.h control.c sticky.c files.c"
bad=""
for f in $(grep -l '^#include <ev.h>' ./*.c ./*.h | sed 's|^\./||'); do
	case " $LOOP_FILES " in *" $f "*) ;; *) bad="$bad $f" ;; esac
done
is "" "$bad" "only the event-loop files include <ev.h>"

# include graph: "A B" when A includes "B" (both in engined/)
for f in ./*.c ./*.h; do
	sed -n 's/^#include "\([a-z_]*\.h\)"$/\1/p' "$f" | while read -r h; do
		[ -e "$h" ] && echo "${f#./} $h"
	done
done >"${TMPDIR:-/tmp}/layers-inc.$$"
ok "no include cycle" tsort "${TMPDIR:-/tmp}/layers-inc.$$"

# call graph: "A B" when file A calls a function defined (not static) in B
defs=${TMPDIR:-/tmp}/layers-defs.$$
for f in ./*.c; do
	awk -v f="${f#./}" 'prev !~ /^static/ && /^[a-z_][a-z0-9_]*\(/ {
		sub(/\(.*/, ""); print $0, f } { prev = $0 }' "$f"
done >"$defs"
for f in ./*.c; do
	case "$f" in ./main.c | ./cgenginectl.c) continue ;; esac
	grep -o '\b[a-z_][a-z0-9_]*(' "$f" | tr -d '(' | sort -u |
		join - "$(sort "$defs" >"$defs.s" && echo "$defs.s")" |
		awk -v f="${f#./}" '$2 != f { print f, $2 }'
done | sort -u >"${TMPDIR:-/tmp}/layers-calls.$$"
if tsort "${TMPDIR:-/tmp}/layers-calls.$$" >/dev/null 2>"${TMPDIR:-/tmp}/layers-err.$$"; then
	ok "no call cycle between the files of engined/" true
else
	ok "no call cycle between the files of engined/" false
	sed 's/^/# /' "${TMPDIR:-/tmp}/layers-err.$$"
fi
rm -f "${TMPDIR:-/tmp}"/layers-*."$$" "$defs.s"
done_testing
