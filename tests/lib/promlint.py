#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""promlint.py -- parse a Prometheus text exposition (format 0.0.4) from
standard input with python3's prometheus_client and lint every metric
against the naming rules cgengine keeps (docs/metrics.md):

  - names are snake_case and start with cgengine_;
  - every family has its HELP and TYPE;
  - counters, and only counters, end in _total;
  - units are base units in the name: a time is _seconds (a timestamp is
    _timestamp_seconds), never ms, minutes or the like;
  - an _info metric is a gauge of value 1;
  - labels are snake_case, from a known set, never per process or per
    user (pid, uid, comm, exe, ...), and a family has a bounded number of
    series (RULES_CAP for rule hits: the top N plus "other");
  - no series twice; every value is finite, counters not negative.

Prints one line per problem and exits 1, or prints "ok N families" and
exits 0.  Usage: promlint.py [RULES_CAP] <exposition
"""
import math
import re
import sys

from prometheus_client.parser import text_string_to_metric_families

NAME = re.compile(r"^cgengine_[a-z][a-z0-9]*(_[a-z0-9]+)*$")
LABEL = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
KNOWN_LABELS = {"source", "type", "hierarchy", "file", "line", "profile", "version",
                "config_hash", "rules_hash"}
UNBOUNDED = {"pid", "tid", "uid", "gid", "user", "group", "comm", "exe", "cmdline",
             "path", "cgroup", "id", "boost"}
NOT_BASE_UNITS = {"ms", "msec", "millis", "milliseconds", "usec", "microseconds", "ns",
                  "nanoseconds", "minutes", "hours", "days", "kb", "mb", "gb", "kib",
                  "mib", "gib", "kilobytes", "megabytes", "percent"}
TIME_WORDS = {"uptime", "timestamp", "duration", "latency", "age", "time"}
SERIES_CAP = 64


def lint(text, rules_cap):
    problems = []
    typed = set(re.findall(r"^# TYPE (\S+) ", text, re.M))
    helped = set(re.findall(r"^# HELP (\S+) ", text, re.M))
    # the parser adds _total to a counter's samples: read the TYPE lines
    for name in re.findall(r"^# TYPE (\S+) counter$", text, re.M):
        if not name.endswith("_total"):
            problems.append("%s: a counter must end in _total" % name)
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as e:  # the parser's own words
        return ["does not parse: %s" % e], 0
    for fam in families:
        kind = fam.type
        # the parser names a counter's family without _total: its samples
        # keep the name as written
        name = fam.samples[0].name if kind == "counter" and fam.samples else fam.name
        if not NAME.match(name):
            problems.append("%s: not a snake_case cgengine_ name" % name)
        if name not in typed or name not in helped:
            problems.append("%s: no TYPE or no HELP" % name)
        if kind == "counter" and not name.endswith("_total"):
            problems.append("%s: a counter must end in _total" % name)
        if kind != "counter" and name.endswith("_total"):
            problems.append("%s: only counters end in _total" % name)
        if kind not in ("counter", "gauge"):
            problems.append("%s: type %s (counters and gauges only)" % (name, kind))
        words = name.split("_")
        for w in words:
            if w in NOT_BASE_UNITS:
                problems.append("%s: '%s' is not a base unit (seconds, bytes)" % (name, w))
        if TIME_WORDS & set(words) and not re.search(r"_seconds(_total)?$", name):
            problems.append("%s: a time must be in _seconds" % name)
        seen = set()
        cap = rules_cap if name == "cgengine_rule_hits_total" else SERIES_CAP
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in seen:
                problems.append("%s: series %s twice" % (name, dict(key[1])))
            seen.add(key)
            for label in s.labels:
                if not LABEL.match(label) or label not in KNOWN_LABELS:
                    problems.append("%s: label '%s' is not a known label" % (name, label))
                if label in UNBOUNDED:
                    problems.append("%s: label '%s' is unbounded" % (name, label))
            if math.isnan(s.value) or math.isinf(s.value):
                problems.append("%s: value %s" % (name, s.value))
            if kind == "counter" and s.value < 0:
                problems.append("%s: a negative counter" % name)
            if name.endswith("_info") and s.value != 1:
                problems.append("%s: an info metric's value is 1" % name)
        if name.endswith("_info") and kind != "gauge":
            problems.append("%s: an info metric is a gauge" % name)
        if len(seen) > cap:
            problems.append("%s: %d series (at most %d)" % (name, len(seen), cap))
    return problems, len(families)


def main():
    cap = int(sys.argv[1]) if len(sys.argv) > 1 else SERIES_CAP
    problems, n = lint(sys.stdin.read(), cap)
    for p in problems:
        print(p)
    if problems:
        return 1
    print("ok %d families" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
