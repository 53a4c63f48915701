# SPDX-License-Identifier: GPL-2.0-or-later
# lane.sh -- the cgengine VM lane: a Debian guest with systemd as PID 1
# and pure cgroup v2, built from Debian packages only, booted under QEMU
# to run one job and power off.  Sourced by tests/vm/run.sh; bash.
#
#   lane_image            build the image, or reuse the cached one; sets
#                         LANE_IMAGE to its directory
#   lane_boot JOB SECS    boot once with directory JOB shared over 9p;
#                         the guest runs JOB/job.sh as root (cwd JOB) and
#                         leaves JOB/out/{stdout,stderr,status,journal.txt};
#                         JOB/console.log is the serial console.  Returns
#                         job.sh's exit status, 125 when none came back.
#
# Knobs (environment): CGVM_CACHE (image cache, default
# /var/cache/cgengine-vm), CGVM_ACCEL=kvm|tcg, CGVM_CPUS, CGVM_MEM (MiB),
# CGVM_REFRESH (any string; changes the cache key, e.g. a date, so the
# image is rebuilt with current packages).
#
# How it works:
# - mmdebstrap builds the root tree from the apt sources the host itself
#   uses (apt-get indextargets), so no mirror is named here and the guest
#   gets the host's Debian release.  The files under image/ are copied in:
#   early/ before the kernel's initrd is made, late/ at the end.
# - mkfs.ext4 -d turns the tree into a disk image without a loop mount.
# - The kernel and initrd are booted directly (-kernel/-initrd).  The
#   initrd holds only virtio, ext4 and 9p.  When the kernel supports PVH,
#   the ELF vmlinux inside vmlinuz is unpacked once and booted instead,
#   which skips decompression in the guest (seconds under emulation).
# - The disk is opened with snapshot=on: every boot starts from the same
#   cached image and leaves it untouched.
# - cgvm-job.service (image/late) runs the job when the kernel command
#   line says cgvm.job=1.

CGVM_CACHE=${CGVM_CACHE:-/var/cache/cgengine-vm}
LANE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Guest packages on top of mmdebstrap's minbase (Essential + apt):
# systemd as init, logind with dbus (user sessions as in real life),
# nftables (nft for the firewall tests), polkitd (the D-Bus door's
# authorization), the daemon's run-time libraries, and tools the tests
# use.
LANE_PACKAGES="systemd systemd-sysv udev dbus libpam-systemd polkitd kmod initramfs-tools
linux-image-amd64 nftables iproute2 procps passwd
libconfuse2 libnl-3-200 libev4 liblua5.4-0 libjansson4 libnftnl11 libmnl0"

# No documentation, manuals or translations; no drivers a VM never uses.
LANE_MMDEBSTRAP_OPTS=(--variant=minbase
	--dpkgopt='path-exclude=/usr/share/doc/*'
	--dpkgopt='path-include=/usr/share/doc/*/copyright'
	--dpkgopt='path-exclude=/usr/share/man/*'
	--dpkgopt='path-exclude=/usr/share/locale/*'
	--dpkgopt='path-exclude=/usr/share/info/*')
for d in gpu media net/wireless net/ethernet infiniband staging iio bluetooth; do
	LANE_MMDEBSTRAP_OPTS+=(--dpkgopt="path-exclude=/lib/modules/*/kernel/drivers/$d/*")
done
LANE_MMDEBSTRAP_OPTS+=(--dpkgopt='path-exclude=/lib/modules/*/kernel/sound/*')

# Run in the finished tree ($1).  Every boot of the snapshot would be a
# "first boot" without a machine id, so one is fixed (the cache key).
# Units masked here only cost time under emulation or wait for a
# terminal nobody reads; generators for setups a VM does not have are
# disabled the same way.
LANE_MASK="systemd-firstboot.service getty@tty1.service apt-daily.timer \
apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer"
LANE_NOGENERATORS="gpt-auto cryptsetup veritysetup integritysetup \
hibernate-resume system-update rc-local"
LANE_CUSTOMIZE=('chroot "$1" passwd -qd root'
	"chroot \"\$1\" systemctl -q mask $LANE_MASK"
	'chroot "$1" systemctl -q enable cgvm-job.service'
	'chroot "$1" systemctl -q set-default multi-user.target'
	"mkdir -p \"\$1/etc/systemd/system-generators\" && for g in $LANE_NOGENERATORS; do
ln -sf /dev/null \"\$1/etc/systemd/system-generators/systemd-\$g-generator\"; done"
	'rm -rf "$1"/var/cache/apt/*.bin "$1"/var/lib/apt/lists/* "$1"/var/log/*.log')

LANE_CMDLINE="console=ttyS0 root=/dev/vda rw quiet panic=-1 fsck.mode=skip
systemd.unified_cgroup_hierarchy=1 systemd.mask=serial-getty@ttyS0.service"

lane_log() { printf '# vm %s: %s\n' "$(date +%T)" "$*" >&2; }

# The host's Debian package sources for its own release, one
# "deb URI SUITE COMPONENTS" line per archive.
lane_sources() {
	local suite arch
	suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
	arch=$(dpkg --print-architecture)
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' \
		'Created-By: Packages' 'Origin: Debian' "Architecture: $arch" |
		awk -v s="$suite" '$2 == s || substr($2, 1, length(s) + 1) == s "-"' |
		sort -u |
		awk '{ key = $1 " " $2; comp[key] = comp[key] " " $3 }
		     END { for (k in comp) print "deb " k comp[k] }' | sort
}

# Everything the image is made of, as one stream: its hash is the key.
lane_inputs() {
	. /etc/os-release
	echo "$VERSION_CODENAME $(dpkg --print-architecture) ${CGVM_REFRESH:-}"
	echo "$LANE_PACKAGES"
	printf '%s\n' "${LANE_MMDEBSTRAP_OPTS[@]}" "${LANE_CUSTOMIZE[@]}"
	tar -C "$LANE_DIR/image" --sort=name --mtime=@0 --owner=0 --group=0 \
		--numeric-owner -cf - .
}

lane_image() {
	local key
	key=$(lane_inputs | sha256sum | cut -c1-16)
	LANE_IMAGE=$CGVM_CACHE/$key
	mkdir -p "$CGVM_CACHE"
	# one builder at a time; the others wait and reuse its image
	(
		flock 9
		if [ -f "$LANE_IMAGE/rootfs.img" ]; then
			lane_log "image: cached $LANE_IMAGE"
		else
			lane_build "$key"
		fi
	) 9>"$CGVM_CACHE/.lock"
}

lane_build() {
	local key=$1 work t0 size
	t0=$SECONDS
	lane_log "image: building $LANE_IMAGE (first run; about a minute)"
	work=$(mktemp -d "$CGVM_CACHE/build.XXXXXX")
	chmod 755 "$work" # apt's sandbox user reads the sources file
	LANE_WORK=$work # removed when the builder's subshell exits
	trap 'rm -rf "$LANE_WORK"' EXIT
	lane_sources >"$work/sources.list"
	if ! [ -s "$work/sources.list" ]; then
		lane_log "no Debian apt sources on the host (apt-get update first?)"
		return 1
	fi
	local hooks=(--essential-hook="sync-in '$LANE_DIR/image/early' /"
		--customize-hook="sync-in '$LANE_DIR/image/late' /"
		--customize-hook="echo $key$key >\"\$1/etc/machine-id\"")
	local h
	for h in "${LANE_CUSTOMIZE[@]}"; do hooks+=(--customize-hook="$h"); done
	if ! mmdebstrap --mode=root --quiet "${LANE_MMDEBSTRAP_OPTS[@]}" \
		--include="$(echo $LANE_PACKAGES | tr ' ' ,)" "${hooks[@]}" \
		"$(. /etc/os-release && echo "$VERSION_CODENAME")" "$work/root" \
		"$work/sources.list" >"$work/mmdebstrap.log" 2>&1; then
		tail -n 30 "$work/mmdebstrap.log" | sed 's/^/#   /' >&2
		return 1
	fi
	mkdir "$work/img"
	cp "$work"/root/boot/vmlinuz-* "$work/img/vmlinuz"
	cp "$work"/root/boot/initrd.img-* "$work/img/initrd.img"
	if grep -q '^CONFIG_PVH=y' "$work"/root/boot/config-*; then
		lane_unpack_kernel "$work/img/vmlinuz" "$work/img/vmlinux" ||
			rm -f "$work/img/vmlinux"
	fi
	dpkg-query --admindir="$work/root/var/lib/dpkg" -W >"$work/img/packages.txt"
	cp "$work/sources.list" "$work/img/"
	# the tree's size plus half of it plus 512 MiB free (a sparse file)
	size=$(du -sm "$work/root" | cut -f1)
	size=$((size * 3 / 2 + 512))
	mkfs.ext4 -q -F -L cgvm -m 0 -E root_owner=0:0 -d "$work/root" \
		"$work/img/rootfs.img" "${size}M" >/dev/null || return 1
	rm -rf "$work/root"
	# drop images made from other inputs, then publish this one
	find "$CGVM_CACHE" -mindepth 1 -maxdepth 1 -type d ! -name 'build.*' \
		-exec rm -rf {} +
	mv "$work/img" "$LANE_IMAGE"
	rm -rf "$work"
	lane_log "image: built in $((SECONDS - t0)) s"
}

# The kernel's xz-compressed payload is an ELF vmlinux; QEMU can enter
# it directly through its PVH note.
lane_unpack_kernel() {
	local at
	at=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$1" | head -n 1 | cut -d: -f1)
	[ -n "$at" ] || return 1
	# xz stops after the first stream; tail then dies of SIGPIPE
	{ tail -c "+$((at + 1))" "$1" || true; } | xz -dc --single-stream >"$2" 2>/dev/null
	[ "$(head -c 4 "$2" | od -An -c | tr -d ' ')" = '177ELF' ]
}

# Hardware KVM only: a /dev/kvm served by kvm_pvm (nested, without
# VT-x/AMD-V) cannot run a stock kernel at a useful speed, so emulate.
lane_accel() {
	local a=${CGVM_ACCEL:-}
	if [ -z "$a" ]; then
		a=tcg
		if [ -w /dev/kvm ] && [ -d /sys/module/kvm_intel -o -d /sys/module/kvm_amd ]; then
			a=kvm
		fi
	fi
	case $a in
	kvm) LANE_ACCEL=(-accel kvm -cpu host) ;;
	tcg) LANE_ACCEL=(-accel tcg,thread=multi,tb-size=512 -cpu max) ;;
	*) lane_log "CGVM_ACCEL=$a: expected kvm or tcg"; return 1 ;;
	esac
	LANE_ACCEL_NAME=$a
}

lane_boot() {
	local job=$1 secs=$2 kernel pid rc t0
	lane_accel || return 125
	kernel=$LANE_IMAGE/vmlinuz
	[ -f "$LANE_IMAGE/vmlinux" ] && kernel=$LANE_IMAGE/vmlinux
	rm -rf "$job/out"
	mkdir -p "$job/out"
	lane_log "boot: $LANE_ACCEL_NAME, ${CGVM_CPUS:-1} CPU, ${CGVM_MEM:-1024} MiB, job $(basename "$job")"
	t0=$SECONDS
	# the guest gets less time than qemu, so that it can report a timeout
	timeout "$secs" qemu-system-x86_64 "${LANE_ACCEL[@]}" -machine pc \
		-m "${CGVM_MEM:-1024}" -smp "${CGVM_CPUS:-1}" -no-reboot \
		-nodefaults -no-user-config -nographic -serial stdio \
		-kernel "$kernel" -initrd "$LANE_IMAGE/initrd.img" \
		-append "$(echo $LANE_CMDLINE) cgvm.job=1 cgvm.timeout=$((secs - 30))" \
		-drive "file=$LANE_IMAGE/rootfs.img,format=raw,if=virtio,snapshot=on" \
		-virtfs "local,path=$job,mount_tag=cgvm,security_model=none,id=cgvm" \
		</dev/null >"$job/console.log" 2>&1
	rc=$?
	lane_log "boot: qemu exited $rc after $((SECONDS - t0)) s (guest booted in $(cat "$job/out/boot-uptime" 2>/dev/null || echo ?) s)"
	[ -f "$job/out/status" ] || return 125
	return "$(cat "$job/out/status")"
}
