/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * class-t.c -- tests for rules/ananicy_class.c: the cpu.weight of a
 * nice (the values the kernel shows for the weight of that nice), the
 * io.weight of an I/O class and level, the plan of the corpus's types
 * and of the kernel's derived I/O priority, and the class a rule puts a
 * process in.
 */
#include "rules/ananicy.h"
#include "tests/tap/tap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void
test_cpu_weight(void)
{
	/* what cpu.weight reads after `echo N > cpu.weight.nice` */
	static const struct {
		int nice, weight;
	} known[] = {
		{ -20, 8668 }, { -12, 1460 }, { -5, 305 }, { -4, 244 }, { -1, 125 },
		{ 0, 100 },    { 1, 80 },     { 9, 13 },   { 14, 4 },	{ 15, 4 },
		{ 16, 3 },     { 18, 2 },     { 19, 1 },
	};
	bool falls = true;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		is_int(known[i].weight, ananicy_cpu_weight(known[i].nice),
		       "nice %d is cpu.weight %d", known[i].nice, known[i].weight);
	for (int n = -20; n < 19; n++)
		if (ananicy_cpu_weight(n) < ananicy_cpu_weight(n + 1) ||
		    ananicy_cpu_weight(n) < 1)
			falls = false;
	ok(falls, "the weight never rises with nice and stays in 1..10000");
	is_int(-EINVAL, ananicy_cpu_weight(-21), "nice -21 is out of range");
	is_int(-EINVAL, ananicy_cpu_weight(20), "nice 20 is out of range");
}

static void
test_io_weight(void)
{
	is_int(200, ananicy_io_weight(ANANICY_IOCLASS_BE, 0), "best-effort 0 is 200");
	is_int(100, ananicy_io_weight(ANANICY_IOCLASS_BE, 4),
	       "best-effort 4 is the default 100");
	is_int(25, ananicy_io_weight(ANANICY_IOCLASS_BE, 7), "best-effort 7 is 25");
	is_int(10000, ananicy_io_weight(ANANICY_IOCLASS_RT, 0), "realtime 0 is 10000");
	is_int(1250, ananicy_io_weight(ANANICY_IOCLASS_RT, 7),
	       "realtime 7 is 1250, above best-effort 0");
	is_int(1, ananicy_io_weight(ANANICY_IOCLASS_IDLE, 0), "idle is 1");
	is_int(-EINVAL, ananicy_io_weight(ANANICY_IOCLASS_NONE, 4), "none has no weight");
	is_int(-EINVAL, ananicy_io_weight(ANANICY_IOCLASS_BE, 8),
	       "level 8 is out of range");
}

/* The corpus's types (CachyOS's 00-types.types) and a few more. */
static const char types[] =
	"{ \"type\": \"Game\", \"nice\": -5, \"ioclass\": \"best-effort\", "
	"\"sched\": \"normal\" }\n"
	"{ \"type\": \"Player-Audio\", \"nice\": -4 }\n"
	"{ \"type\": \"BG_CPUIO\", \"nice\": 16, \"ioclass\": \"idle\", "
	"\"sched\": \"idle\" }\n"
	"{ \"type\": \"Heavy_CPU\", \"nice\": 9, \"ioclass\": \"best-effort\", "
	"\"ionice\": 7 }\n"
	"{ \"type\": \"OOM_KILL\", \"oom_score_adj\": 1000 }\n"
	"{ \"type\": \"Fifo\", \"nice\": -10, \"sched\": \"fifo\" }\n"
	"{ \"type\": \"None5\", \"nice\": 5, \"ioclass\": \"none\" }\n"
	"{ \"type\": \"IdleOnly\", \"sched\": \"idle\" }\n"
	"{ \"type\": \"IdleBE\", \"sched\": \"idle\", \"ioclass\": \"best-effort\", "
	"\"ionice\": 5 }\n"
	"{ \"type\": \"a/b\", \"nice\": 1 }\n"
	"{ \"type\": \"..\", \"nice\": 1 }\n";

static const char rules[] = "{ \"name\": \"game\", \"type\": \"Game\", \"nice\": 3 }\n"
			    "{ \"name\": \"untyped\", \"nice\": 3 }\n"
			    "{ \"name\": \"todo\", \"type\": \"TODO\" }\n"
			    "{ \"name\": \"slashed\", \"type\": \"a/b\" }\n"
			    "{ \"name\": \"dotdot\", \"type\": \"..\" }\n";

static const char *
plan_of(const struct ananicy_set *s, const char *type)
{
	static char buf[64];
	const struct ananicy_entry *e = ananicy_find(s, ANANICY_TYPE, type);
	struct ananicy_class c;

	if (e == NULL)
		return "(no type)";
	ananicy_class_plan(&e->v, &c);
	snprintf(buf, sizeof(buf), "cpu.weight=%d io.weight=%d", c.cpu_weight,
		 c.io_weight);
	return buf;
}

static void
test_plan(const struct ananicy_set *s)
{
	is_string("cpu.weight=305 io.weight=200", plan_of(s, "Game"),
		  "Game: nice -5, best-effort without a level is level 0");
	is_string("cpu.weight=244 io.weight=125", plan_of(s, "Player-Audio"),
		  "no I/O class: best-effort at the kernel's level (nice + 20) / 5 = 3");
	is_string("cpu.weight=3 io.weight=1", plan_of(s, "BG_CPUIO"), "BG_CPUIO: idle");
	is_string("cpu.weight=13 io.weight=25", plan_of(s, "Heavy_CPU"),
		  "Heavy_CPU (the compilers): nice 9, best-effort 7");
	is_string("cpu.weight=0 io.weight=0", plan_of(s, "OOM_KILL"),
		  "a type with neither nice nor I/O: nothing written");
	is_string("cpu.weight=932 io.weight=7500", plan_of(s, "Fifo"),
		  "fifo without an I/O class: the kernel's realtime at level 2");
	is_string("cpu.weight=33 io.weight=75", plan_of(s, "None5"),
		  "ioclass none follows nice 5: best-effort 5");
	is_string("cpu.weight=0 io.weight=1", plan_of(s, "IdleOnly"),
		  "sched idle alone: the kernel's idle I/O class");
	is_string("cpu.weight=0 io.weight=75", plan_of(s, "IdleBE"),
		  "a class named wins over the one sched idle implies");
}

static const char *
class_of(const struct ananicy_set *s, const char *name, bool placed)
{
	static char buf[300];
	const struct ananicy_entry *rule, *type;
	char dest[64];

	if (!ananicy_class_for(s, name, placed, dest, sizeof(dest), &rule, &type))
		return rule == NULL && type == NULL ? "(none)" : "(none, but set)";
	snprintf(buf, sizeof(buf), "%s %s:%u %s:%u", dest, rule->file, rule->line,
		 type->file, type->line);
	return buf;
}

static void
test_class_for(const struct ananicy_set *s)
{
	char dest[4];
	const struct ananicy_entry *rule, *type;

	is_string("/Game t.rules:1 t.types:1", class_of(s, "game", false),
		  "a rule's type is its class, with the rule's and the type's lines");
	is_string("(none)", class_of(s, "game", true),
		  "nothing when placed before ananicy");
	is_string("(none)", class_of(s, "untyped", false), "a rule without a type: none");
	is_string("(none)", class_of(s, "todo", false), "a type no line defines: none");
	is_string("(none)", class_of(s, "slashed", false), "a type with '/': no group");
	is_string("(none)", class_of(s, "dotdot", false), "a type \"..\": no group");
	is_string("(none)", class_of(s, "nosuch", false), "a name no rule names: none");
	ok(!ananicy_class_for(s, "game", false, dest, sizeof(dest), &rule, &type),
	   "a destination that does not fit: none");
	ok(!ananicy_class_name_ok("") && !ananicy_class_name_ok(".") &&
		   !ananicy_class_name_ok("a\nb") &&
		   ananicy_class_name_ok("LowLatency_RT"),
	   "plain segments only");
}

int
main(void)
{
	struct ananicy_set *s = ananicy_new();

	plan(42);
	if (s == NULL ||
	    ananicy_add_buffer(s, "t.types", types, strlen(types), NULL, NULL) != 0 ||
	    ananicy_add_buffer(s, "t.rules", rules, strlen(rules), NULL, NULL) != 0)
		bail("out of memory");
	test_cpu_weight();
	test_io_weight();
	test_plan(s);
	test_class_for(s);
	ananicy_free(s);
	return tap_done();
}
