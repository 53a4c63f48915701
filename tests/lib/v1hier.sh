# SPDX-License-Identifier: GPL-2.0-or-later
# v1hier.sh -- take down private named cgroup v1 hierarchies so that the
# kernel really lets them go.  Needs wait_until (tests/tap/tap.sh).
#
# The kernel destroys a v1 hierarchy at unmount only if its root has no
# child group left, and a removed group stays a child while it is dying
# (for a while after its rmdir; usually well under half a second, more
# on a loaded machine).  A hierarchy unmounted too early lives on,
# unmounted, in every /proc/PID/cgroup and in the css_set of every
# process forked meanwhile, until someone mounts it again and unmounts
# it empty.  Its dying groups do not show while it is mounted, so the
# groups are given time before the unmount, and after it the only test
# is /proc/self/cgroup: the hierarchy must leave it within a moment
# (the kernel destroys it asynchronously); while it does not, mount it
# again (the kernel hands back the same one), wait, and unmount again.

# v1_listed NAME: the hierarchy name=NAME still exists in the kernel
v1_listed() {
	grep -q "^[0-9]*:name=$1:" /proc/self/cgroup
}
v1_unlisted() {
	! v1_listed "$1"
}

# v1_empty MOUNTPOINT: move every process still in a group back to the
# root (only the test's own processes can be in its private hierarchy),
# then remove the groups deepest first; true once none is left
v1_empty() {
	for _procs in $(find "$1" -mindepth 2 -name cgroup.procs 2>/dev/null); do
		while read -r _p; do
			echo "$_p" >"$1/cgroup.procs"
		done <"$_procs"
	done 2>/dev/null
	find "$1" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
	[ -z "$(find "$1" -mindepth 1 -type d 2>/dev/null | head -n 1)" ]
}

# v1_unmount MOUNTPOINT NAME: unmount; true once the kernel has let the
# hierarchy go, else mount it again and give its dying groups time
v1_unmount() {
	umount "$1" 2>/dev/null
	wait_until 2 v1_unlisted "$2" && return 0
	mount -t cgroup -o "none,name=$2" cgroup "$1" 2>/dev/null
	sleep 0.5
	return 1
}

# v1_release MOUNTPOINT:NAME...: empty and unmount each hierarchy, wait
# (up to a minute) until the kernel has let go of every one, and remove
# the mount points; 0, or 1 (with a diagnostic) if one is still listed
v1_release() {
	local h rc=0 had=""
	for h; do
		[ -z "$(find "${h%%:*}" -mindepth 1 -type d 2>/dev/null | head -n 1)" ] || had=yes
		wait_until 30 v1_empty "${h%%:*}" ||
			echo "# groups left in ${h%%:*}: $(find "${h%%:*}" -mindepth 1 -type d | tr '\n' ' ')" >&2
	done
	[ -z "$had" ] || sleep 0.5 # for the groups just removed to die
	for h; do
		if ! mountpoint -q "${h%%:*}" && v1_listed "${h#*:}"; then
			# unmounted already (lazily, by a test), but still there
			mount -t cgroup -o "none,name=${h#*:}" cgroup "${h%%:*}" 2>/dev/null
		fi
		if mountpoint -q "${h%%:*}" && ! wait_until 60 v1_unmount "${h%%:*}" "${h#*:}"; then
			umount "${h%%:*}" 2>/dev/null # never leave it mounted
			echo "# hierarchy name=${h#*:} is still in /proc/self/cgroup" >&2
			rc=1
		fi
		rmdir "${h%%:*}" 2>/dev/null
	done
	return $rc
}
