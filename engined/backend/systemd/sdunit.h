/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdunit.h -- what the systemd backend decides without talking to
 * systemd: the names of the units that stand for the unified layout's
 * groups, the unit properties that stand for group settings, and which
 * processes systemd's tree lets it move.  Pure functions: no I/O, no
 * sd-bus (the backend's calls go through sdbus.c, linked into the
 * daemon only), so tests/engined/backend/sdunit-t runs without root.
 *
 * Names.  The layout's root is a slice, by default /cgengine.slice; a
 * composed group root/students/default/www/students is the chain of
 * slices systemd nests by their names,
 *
 *   /cgengine.slice/cgengine-students.slice/cgengine-students-default.slice/
 *     cgengine-students-default-www.slice/cgengine-students-default-www-students.scope
 *
 * each level a slice, the leaf a scope that holds the processes.  Every
 * path segment is escaped as systemd escapes unit names ('-' is the
 * nesting separator, so a '-' in a segment becomes \x2d).
 */
#ifndef CGENGINE_SDUNIT_H
#define CGENGINE_SDUNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SDUNIT_NAME_MAX 256 /* systemd's limit, with the NUL */
#define SDUNIT_ROOT	"/cgengine.slice"

/*
 * The name prefix of a root slice path: "/cgengine.slice" -> "cgengine",
 * "/a.slice/a-b.slice" -> "a-b".  0, or -EINVAL when root is not a chain
 * of nested slices below the root slice.
 */
int sdunit_root_prefix(const char *root, char *out, size_t len);
/*
 * The unified layout's root for unified-root as configured: SDUNIT_ROOT
 * for "", else configured itself; 1 with it in out, or -EINVAL (*why
 * says why, for "unified-root: \"...\" <why>") when it is no slice's
 * group, -ENAMETOOLONG when it does not fit.  What the daemon answers
 * for backend systemd (core.h's overrides.layout_root).
 */
int sdunit_layout_root(const char *configured, char *out, size_t len, const char **why);
/*
 * The unit of logical group rel below the root ("/students/www", as many
 * segments as it has levels), kind "slice" or "scope":
 * "cgengine-students-www.scope".  0, -EINVAL (an empty path, an empty
 * segment, "." or ".."), -ENAMETOOLONG.
 */
int
sdunit_name(const char *prefix, const char *rel, const char *kind, char *out, size_t len);
/* Its control group: root, a slice per level above it, then the unit. */
int sdunit_cgroup(const char *root, const char *prefix, const char *rel, const char *kind,
		  char *out, size_t len);
/*
 * Back from a control group to the logical group: real
 * "/cgengine.slice/.../cgengine-students-www.scope" -> "/students/www"
 * (relative to the root).  The whole chain must be the one
 * sdunit_cgroup() makes.  0, or -ENOENT when real is not such a group.
 */
int sdunit_logical(const char *root, const char *prefix, const char *real, char *out,
		   size_t len);
/*
 * Back from a unit's name to the logical group it stands for: unit
 * "cgengine-students-www.scope" of prefix "cgengine" -> "/students/www"
 * (relative to the root; a slice's name gives its level's group).  0,
 * or -ENOENT when unit is no slice or scope of that prefix, or not
 * spelt as sdunit_name() spells it.
 */
int sdunit_group(const char *prefix, const char *unit, char *out, size_t len);
/*
 * The Description= of the unit standing for logical group rel (""
 * for the root slice): "cgengine class /students/www".  A group name
 * that is not printable ASCII (a template's value may be any bytes,
 * which sd-bus refuses in a string unless UTF-8) gives the unit's
 * name, which is.
 */
void sdunit_description(const char *rel, const char *unit, char *out, size_t len);
/* The unit a control group path belongs to: its last component that
 * names a unit (".scope", ".service", ".slice", ...); -ENOENT for "/". */
int sdunit_unit_of(const char *real, char *out, size_t len);

/*
 * Why a process in control group real must be left where it is, or NULL
 * when the systemd backend may move it: PID 1's own group, the user's
 * service manager (user@UID.service and everything below it), any group
 * below a unit's own group (systemd only makes those for units with
 * Delegate=yes: containers, the user's manager, the daemon's own unit),
 * a process in no unit at all, and the daemon's own unit (own, its
 * control group; NULL: unknown).
 */
const char *sdunit_refusal(const char *real, const char *own);
/*
 * As sdunit_refusal, and also a process in the own group of a unit
 * systemd delegated (Delegate=yes: a container's scope, a service that
 * manages its own processes) is left where it is, though nothing is
 * below that group: the unit's manager places them.  delegated(arg,
 * group) reads systemd's mark on the unit's group (cgfs_delegated: 1,
 * 0 or -errno; -ENOENT is taken as not delegated, any other error as
 * delegated).  The backend's own scopes (the units below root named
 * from prefix, delegated so that processes can be attached to them)
 * are not asked about.
 */
const char *sdunit_refusal_delegated(const char *real, const char *own, const char *root,
				     const char *prefix,
				     int (*delegated)(void *arg, const char *group),
				     void *arg);

/* A unit property a group setting becomes. */
#define SDPROP_MASK_MAX 128 /* bytes of a CPU or NUMA node mask: 1024 of them */
struct sdprop {
	const char *name; /* "CPUWeight", ... (static) */
	char type;	  /* 't' (uint64) or 'y' (a byte array, "ay") */
	uint64_t u;
	uint8_t mask[SDPROP_MASK_MAX];
	size_t masklen;
};
#define SDPROP_MAX 2 /* properties one setting may become (cpu.max) */
/*
 * The properties of systemd 252 that setting key=value (a cgroup v2
 * file and value, as the unified layout writes it: cpu.weight,
 * memory.max, ...) becomes, into out[SDPROP_MAX]: their count, or
 * -ENOTSUP (no property stands for the file), -EINVAL (a bad value).
 */
int sdunit_props(const char *key, const char *value, struct sdprop *out);

#endif
