/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mountinfo-t.c -- tests for kernel/mountinfo.c on a recorded
 * mountinfo: co-mounted controllers, named and v2 hierarchies, option
 * words that are not controllers, bind mounts, escaped mount points.
 */
#include "kernel/kernel.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>

int
main(void)
{
	char path[4096];
	struct hier_list l;
	const struct hier *h;

	plan(22);
	snprintf(path, sizeof(path), "%s/mountinfo-v1", tap_data_dir());
	if (!is_int(0, hier_discover(path, &l), "fixture parses"))
		bail("cannot read %s", path);
	is_int(7, (long long)l.n, "seven hierarchies");

	h = hier_find(&l, "cpu");
	ok(h != NULL, "cpu found");
	is_string("cpu,cpuacct", h ? h->name : NULL, "co-mounted name as /proc shows it");
	is_string("/sys/fs/cgroup/cpu,cpuacct", h ? h->mount : NULL, "its mount point");
	ok(hier_find(&l, "cpuacct") == h, "cpuacct finds the same hierarchy");
	ok(hier_find(&l, "cpu,cpuacct") == h, "so does the full name");

	h = hier_find(&l, "name=systemd");
	is_string("name=systemd", h ? h->name : NULL,
		  "xattr and release_agent are not controllers");
	ok(h && h->named, "name=systemd is named");

	h = hier_find(&l, "name=classes");
	is_string("/srv/my classes", h ? h->mount : NULL,
		  "root mount preferred over bind, \\040 unescaped");

	h = hier_find(&l, "unified");
	ok(h && h->version == HIER_V2, "v2 found as 'unified'");
	is_string("", h ? h->name : NULL, "v2 name is empty as in /proc");
	is_string("unified", h ? hier_label(h) : NULL, "v2 label");

	h = hier_find(&l, "cpuset");
	is_string("cpuset", h ? h->name : NULL, "noprefix and clone_children dropped");
	h = hier_find(&l, "net_prio");
	is_string("net_cls,net_prio", h ? h->name : NULL, "net_cls,net_prio");
	ok(hier_find(&l, "blkio") == NULL, "unmounted controller not found");
	ok(hier_find(&l, "name=nope") == NULL, "unknown name not found");
	ok(hier_find(&l, "") == NULL, "empty spec finds nothing");
	ok(!hier_find(&l, "memory")->named, "memory is not named");
	hier_list_free(&l);
	is_int(0, (long long)l.n, "free empties the list");

	is_int(-ENOENT, hier_discover("/nonexistent/mountinfo", &l),
	       "missing file: -ENOENT");

	is_int(0, hier_discover("/proc/self/mountinfo", &l), "the live mountinfo parses");
	hier_list_free(&l);
	return tap_done();
}
