#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A short smoke run of the benchmark tools (the benchmarks themselves
# are bench/run.sh, not part of the test suite): the load generator and
# probe against the real daemon, and the microbenchmarks.
. "$SRCDIR/tests/lib/daemon.sh"
require_root
plan 6

mount_hier a; mount_hier b; MANAGED="a b"
add_user "${TAG}u"
echo "${TAG}u name=${TAG}a,name=${TAG}b /bench" >"$T/cgrules.conf"
write_config 'log-level = "notice"'
daemon_start || bail "daemon"
out=$("$BUILDDIR/bench/loadgen" -d "$DAEMON_PID" -u "$(id -u "${TAG}u")" -g "$(id -g "${TAG}u")" \
	-n 40 -c 2 -t 2000 -p "$BUILDDIR/bench/probe" "name=${TAG}a=/bench" "name=${TAG}b=/bench")
is 0 "$?" "loadgen runs a storm of 40 probes"
eval "$out"
is 40 "$classified" "every probe saw itself classified in both hierarchies"
ok "it reports latency percentiles" test "$p99_us" -gt 0
ok "and the daemon's CPU time per exec" sh -c "echo '$cpu_us_per_exec' | grep -q '^[0-9][0-9.]*$'"
m=$("$BUILDDIR/bench/matchbench" 2000)
is 4 "$(echo "$m" | grep -c '^rules=')" "matchbench measures 10 to 100,000 rules"
ok "and the decoder" sh -c "echo '$m' | grep -q '^decoder: decode_ns='"
done_testing
