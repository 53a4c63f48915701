/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy_class.c -- ananicy's types as classes of cgroup v2
 * (ananicy-type-hierarchy): the cpu.weight a type's nice stands for,
 * the io.weight its I/O level stands for, and the class a process's
 * rule puts it in.  Pure: numbers in, numbers out.
 */
#include "ananicy.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#ifndef SCHED_IDLE
#define SCHED_IDLE 5
#endif

/*
 * The kernel's sched_prio_to_weight[] (kernel/sched/core.c): the load
 * weight of nice -20..19, each step about 1.25 times the next, nice 0
 * being 1024.
 */
static const int prio_to_weight[40] = {
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */ 9548,	 7620,	6100,  4904,  3906,
	/*  -5 */ 3121,	 2501,	1991,  1586,  1277,
	/*   0 */ 1024,	 820,	655,   526,   423,
	/*   5 */ 335,	 272,	215,   172,   137,
	/*  10 */ 110,	 87,	70,    56,    45,
	/*  15 */ 36,	 29,	23,    18,    15,
};

int
ananicy_cpu_weight(int nice)
{
	if (nice < -20 || nice > 19)
		return -EINVAL;
	/* as the kernel shows a group's weight in cpu.weight
	 * (sched_weight_to_cgroup): rounded to the closest, 1..10000 */
	long w = ((long)prio_to_weight[nice + 20] * 100 + 512) / 1024;

	return w < 1 ? 1 : w > 10000 ? 10000 : (int)w;
}

int
ananicy_io_weight(int ioclass, int level)
{
	if (level < 0 || level > 7)
		return -EINVAL;
	switch (ioclass) {
	case ANANICY_IOCLASS_RT:
		return (8 - level) * 1250; /* 10000 .. 1250: above every best-effort */
	case ANANICY_IOCLASS_BE:
		return (8 - level) * 25; /* 200 .. 25; level 4 is the default 100 */
	case ANANICY_IOCLASS_IDLE:
		return 1;
	default:
		return -EINVAL;
	}
}

/*
 * The I/O class and level the processes of a type end up with: the
 * class and level it names (ananicy-cpp's level 0 when it names none);
 * with no class or "none", what the kernel derives from the process's
 * policy and nice (idle for sched idle, realtime for fifo and rr, else
 * best-effort; level (nice + 20) / 5).  false when that depends on
 * what the type does not name.
 */
static bool
io_level(const struct ananicy_values *v, int *ioclass, int *level)
{
	if ((v->set & ANANICY_IOCLASS) && v->ioclass != ANANICY_IOCLASS_NONE) {
		*ioclass = v->ioclass;
		*level = (v->set & ANANICY_IONICE) ? v->ionice : 0;
		return true;
	}
	if ((v->set & ANANICY_SCHED) && v->sched == SCHED_IDLE) {
		*ioclass = ANANICY_IOCLASS_IDLE;
		*level = 0;
		return true;
	}
	if (!(v->set & ANANICY_NICE))
		return false;
	bool rt = (v->set & ANANICY_SCHED) &&
		  (v->sched == SCHED_FIFO || v->sched == SCHED_RR);
	*ioclass = rt ? ANANICY_IOCLASS_RT : ANANICY_IOCLASS_BE;
	*level = (v->nice + 20) / 5;
	return true;
}

void
ananicy_class_plan(const struct ananicy_values *type, struct ananicy_class *out)
{
	int ioclass, level;

	out->cpu_weight = 0;
	out->io_weight = 0;
	if (type->set & ANANICY_NICE) {
		int w = ananicy_cpu_weight(type->nice);
		out->cpu_weight = w > 0 ? w : 0;
	}
	if (io_level(type, &ioclass, &level)) {
		int w = ananicy_io_weight(ioclass, level);
		out->io_weight = w > 0 ? w : 0;
	}
}

bool
ananicy_class_name_ok(const char *name)
{
	return name[0] != '\0' && strchr(name, '/') == NULL &&
	       strchr(name, '\n') == NULL && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0;
}

bool
ananicy_class_for(const struct ananicy_set *s, const char *name, bool placed, char *dest,
		  size_t len, const struct ananicy_entry **rule,
		  const struct ananicy_entry **type)
{
	const struct ananicy_entry *r;

	*rule = NULL;
	*type = NULL;
	if (placed || (r = ananicy_find(s, ANANICY_RULE, name)) == NULL ||
	    r->type == NULL)
		return false;
	const struct ananicy_entry *t = ananicy_find(s, ANANICY_TYPE, r->type);
	if (t == NULL || !ananicy_class_name_ok(t->key) ||
	    (size_t)snprintf(dest, len, "/%s", t->key) >= len)
		return false;
	*rule = r;
	*type = t;
	return true;
}
