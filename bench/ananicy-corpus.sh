#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ananicy-corpus.sh DIR [RULES] -- write a synthetic ananicy-cpp corpus of
# the real one's shape into DIR (made; must not exist): 15 types as
# ananicy-rules has them, 3 cgroups, RULES rules (default 16000) spread
# over ~120 files in directories whose names hold spaces and '&', 46% of
# the names longer than 15 bytes, 16% with spaces (".exe" names under
# "wine & proton"), comments every 40 lines and one malformed line.
# The names are cgebench_* words, so no real program matches them.
set -eu
dir=$1
n=${2:-16000}
[ ! -e "$dir" ] || { echo "$dir exists" >&2; exit 1; }
mkdir -p "$dir/00-default/Games/wine & proton" "$dir/00-default/Games/linux native" \
	"$dir/00-default/Audio & Video" "$dir/00-default/System Tools"
cat >"$dir/00-types.types" <<'T'
# types, as ananicy-rules writes them
{ "type": "Game", "nice": -5, "ioclass": "best-effort", "sched": "normal" }
{ "type": "Player-Audio", "nice": -4 }
{ "type": "Player-Video", "nice": -4 }
{ "type": "Image-View", "nice": -4 }
{ "type": "Doc-View",   "nice": -4 }
{ "type": "LowLatency_RT", "nice": -12, "ioclass": "best-effort" }
{ "type": "BG_CPUIO", "nice": 16, "ioclass": "idle", "sched": "idle" }
{ "type": "BG_CPU", "nice": 14, "ioclass": "best-effort", "sched": "idle" }
{ "type": "Launcher", "nice": 16, "ioclass": "idle", "sched": "normal" }
{ "type": "Heavy_CPU", "nice": 9, "ioclass": "best-effort", "ionice": 7 }
{ "type": "Chat", "nice": -3, "ioclass": "best-effort", "ionice": 7 }
{ "type": "Service", "nice": 10, "ioclass": "best-effort", "ionice": 6 }
{ "type": "IN_DIFF", "nice": 0, "ioclass": "best-effort", "ionice": 7 }
{ "type": "OOM_KILL", "oom_score_adj": 1000 }
{ "type": "OOM_NO_KILL", "oom_score_adj": -1000 }
T
cat >"$dir/00-cgroups.cgroups" <<'T'
{ "cgroup": "cpu90", "CPUQuota": 90 }
{ "cgroup": "cpu85", "CPUQuota": 85 }
{ "cgroup": "cpu80", "CPUQuota": 80 }
T
awk -v n="$n" -v dir="$dir" 'BEGIN {
	split("Game Game Game Game Game Game Game Game BG_CPUIO Service Doc-View " \
	      "LowLatency_RT Chat Heavy_CPU Player-Audio", types, " ")
	for (i = 0; i < n; i++) {
		r = i % 100
		if (r < 16) {		# spaces: a Windows game under Proton
			part = "00-default/Games/wine & proton"
			name = sprintf("Cgebench Game %d Edition.exe", i)
		} else if (r < 46) {	# long
			part = "00-default/Games/linux native"
			name = sprintf("cgebench_long_program_%d", i)
		} else if (r < 70) {
			part = "00-default/Audio & Video"
			name = sprintf("cgeb%d", i)
		} else {
			part = "00-default/System Tools"
			name = sprintf("cgebt%d", i)
		}
		f = sprintf("%s/%s/part_%02d.rules", dir, part, i % 30)
		if (i % 40 == 0)
			print "# a comment, as the corpus has them" > f
		extra = (i % 500 == 7) ? ", \"nice\": 3" : ""
		printf "{ \"name\": \"%s\", \"type\": \"%s\"%s }\n", name,
		       types[i % 15 + 1], extra > f
	}
	print "{ \"name\": \"cgebench_malformed\", \"type\": " > (dir "/00-default/System Tools/part_00.rules")
}'
