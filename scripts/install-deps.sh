#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install everything cgengine needs to build, test and run its demo on
# Debian 12 (clang and libclang-rt-14-dev: the fuzzers in tests/fuzz;
# clang, libbpf-dev and bpftool: the eBPF event source; llvm: its
# llvm-strip, optional).
# Run as root.
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
    build-essential autoconf automake pkg-config \
    libconfuse-dev libnl-3-dev libev-dev liblua5.4-dev libjansson-dev \
    libnftnl-dev libmnl-dev libsystemd-dev nftables dbus-daemon \
    cgroup-tools procps passwd util-linux jq valgrind strace \
    python3-prometheus-client python3-yaml curl \
    clang libclang-rt-14-dev llvm libbpf-dev bpftool \
    qemu-system-x86 qemu-utils mmdebstrap e2fsprogs xz-utils \
    dpkg-dev debhelper lintian fakeroot >/dev/null
