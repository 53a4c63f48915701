#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The metrics' examples and documentation agree with the code: the
# alerting rules pass promtool (where installed) or a YAML parser and
# the shape Prometheus wants; the Grafana dashboard is valid JSON with
# the panels an operator looks at first; every metric they use is in
# docs/metrics.md, and every metric documented there is written by the
# renderer (engined/render/).  tests/daemon/exporter-t.sh checks that
# the real exposition documents every metric it has.
: "${SRCDIR:=.}" "${BUILDDIR:=.}"
. "$SRCDIR/tests/tap/tap.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" -c 'import yaml' 2>/dev/null || skip_all "needs python3-yaml"
plan 8

RULES="$SRCDIR/examples/prometheus/cgengine.rules.yml"
DASH="$SRCDIR/examples/grafana/cgengine.json"
DOC="$SRCDIR/docs/metrics.md"

if command -v promtool >/dev/null; then
	ok "promtool check rules accepts the alerting rules" promtool check rules "$RULES"
else
	skip 1 "promtool is not installed"
fi

# the rules' shape, as Prometheus reads it
is "" "$("$PY" - "$RULES" <<'PYEOF' 2>&1
import re, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
bad = []
groups = doc.get("groups") if isinstance(doc, dict) else None
if not groups:
    bad.append("no groups")
for g in groups or []:
    if set(g) - {"name", "rules", "interval"} or not g.get("name"):
        bad.append("group %r: keys %s" % (g.get("name"), sorted(g)))
    for r in g.get("rules", []):
        name = r.get("alert")
        if not name or not re.match(r"^[A-Z][A-Za-z0-9]*$", name):
            bad.append("rule %r: no CamelCase alert name" % name)
        if set(r) - {"alert", "expr", "for", "labels", "annotations"}:
            bad.append("%s: keys %s" % (name, sorted(r)))
        if not isinstance(r.get("expr"), str) or not r["expr"].strip():
            bad.append("%s: no expr" % name)
        if "for" in r and not re.match(r"^[0-9]+[smhd]$", str(r["for"])):
            bad.append("%s: for %r" % (name, r["for"]))
        if r.get("labels", {}).get("severity") not in ("info", "warning", "critical"):
            bad.append("%s: no severity" % name)
        if not r.get("annotations", {}).get("summary"):
            bad.append("%s: no summary" % name)
        if r.get("expr", "").count("(") != r.get("expr", "").count(")"):
            bad.append("%s: unbalanced parentheses" % name)
print("\n".join(bad))
PYEOF
)" "the alerting rules have the shape Prometheus reads (groups, alert, expr, for, labels, annotations)"

# the dashboard: valid JSON, its panels, their queries
is "" "$("$PY" - "$DASH" <<'PYEOF' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
titles = [p.get("title") for p in d.get("panels", [])]
for want in ("Placements per second", "Lost events", "Failed moves by hierarchy",
             "Exec gate: holds and watchdog answers", "Rule hits, top 10",
             "Configuration and rules by host"):
    if want not in titles:
        bad.append("no panel %r" % want)
ids = [p.get("id") for p in d["panels"]]
if len(set(ids)) != len(ids):
    bad.append("panel ids repeat")
for p in d["panels"]:
    if not p.get("targets") or not all(t.get("expr") for t in p["targets"]):
        bad.append("%s: a target without a query" % p.get("title"))
    if p.get("datasource", {}).get("uid") != "${datasource}":
        bad.append("%s: not on the datasource variable" % p.get("title"))
print("\n".join(bad))
PYEOF
)" "the dashboard is valid JSON with the operator's first panels, each with its queries"

# metric names: used by the examples, documented, written by the code
used() {
	grep -o 'cgengine_[a-z0-9_]*' "$RULES" "$DASH" | sed 's/^[^:]*://' | sort -u
}
documented() {
	sed -n 's/^| `\(cgengine_[a-z0-9_]*\)`.*/\1/p' "$DOC" | sort -u
}
n=$(used | wc -l)
ok "the examples use metrics ($n)" test "$n" -ge 15
is "" "$(used | while read -r m; do
	case $m in cgengine_placed_*) continue ;; esac # documented as a range
	documented | grep -qx "$m" || echo "$m"; done)" "every metric the examples use is documented"
d=$(documented | wc -l)
ok "docs/metrics.md documents metrics ($d)" test "$d" -ge 30
written() { # the names as the renderer writes them, without cgengine_
	cat "$SRCDIR/engined/render/metrics.c" "$SRCDIR/engined/render/fleet.c"
}
is "" "$(documented | while read -r m; do
	written | grep -q "\"${m#cgengine_}\"\|cgengine_${m#cgengine_}[{ ]" || echo "$m"; done)" \
	"every documented metric is written by engined/render/"
ok "the placement buckets are documented as a range of seven" \
	grep -q '^| `cgengine_placed_0_50us_total` \.\.\. `cgengine_placed_over_10ms_total` |' "$DOC"
done_testing
