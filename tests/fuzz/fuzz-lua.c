/*
 * fuzz-lua.c -- the validation of a Lua hook's answer.  The input is
 * the body of a Lua table constructor; the script under test is
 *
 *     function classify(task, decision, why)
 *     return {
 *     <input>
 *     }
 *     end
 *
 * loaded through hooks_load (sandbox, budgets) and called once through
 * hooks_classify with fixed slots.  The input may be any Lua
 * expression list, so it also reaches the task object and the why
 * proxy.
 *
 * Invariants: a call either fails (slots untouched) or succeeds with
 * every chosen destination accepted by rules_dest_problem(); `changed`
 * says exactly what differs; the Lua stack depth is the same after the
 * call as before.  (Once the hooks move to a helper process with a
 * pure hooks_answer_parse(), this target should feed that instead.)
 */
#include "fuzz.h"
#include "lua/hooks.h"
#include "rules/rules.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define HEAD   "function classify(task, decision, why)\nreturn {\n"
#define TAIL   "\n}\nend\n"
#define NSLOTS 4

static const char *const hier_names[NSLOTS] = { "cpu,cpuacct", "net_cls", "name=classes",
						"memory" };
static const gid_t groups[] = { 500, 700 };

static int
cmdline(void *arg, char *buf, size_t len)
{
	static const char cmd[] = "python3\0/opt/sim/run.py\0--fast";

	if (len < sizeof(cmd))
		return -1;
	memcpy(buf, cmd, sizeof(cmd));
	return (int)sizeof(cmd);
}

static const char *
cgroup(void *arg, const char *hier)
{
	return strcmp(hier, "net_cls") == 0 ? NULL : "/students";
}

static const char *
name(void *arg, uid_t id)
{
	return id == 1002 ? "carol" : NULL;
}

static void
quiet(void *arg, enum hooks_level level, const char *msg)
{
}

static void
fill_slots(struct hooks_slot *s)
{
	memset(s, 0, NSLOTS * sizeof(*s));
	for (size_t i = 0; i < NSLOTS; i++)
		s[i].hier = hier_names[i];
	s[0].set = true;
	strcpy(s[0].dest, "/students");
	s[0].why = "cgrules.conf:4";
	s[2].set = true;
	strcpy(s[2].dest, "/batch/1002");
	s[2].why = "cgrules.conf:8";
}

static void
classify_once(struct hooks *h)
{
	struct hooks_slot slots[NSLOTS], before[NSLOTS];
	struct hooks_task t = { .pid = 4242,
				.ppid = 1,
				.uid = 1002,
				.euid = 1002,
				.gid = 500,
				.egid = 500,
				.groups = groups,
				.ngroups = 2,
				.comm = "python3",
				.exe = "/usr/bin/python3",
				.cmdline = cmdline,
				.cgroup = cgroup };

	fill_slots(slots);
	memcpy(before, slots, sizeof(slots));
	int depth = hooks_stack_depth(h);
	int rc = hooks_classify(h, &t, slots, NSLOTS);
	FUZZ_CHECK(hooks_stack_depth(h) == depth);
	if (rc != 0) {
		FUZZ_CHECK(rc == -1 && memcmp(before, slots, sizeof(slots)) == 0);
		return;
	}
	for (size_t i = 0; i < NSLOTS; i++) {
		const struct hooks_slot *s = &slots[i], *b = &before[i];
		bool differs =
			s->set != b->set || (s->set && strcmp(s->dest, b->dest) != 0);

		FUZZ_CHECK(s->hier == b->hier && s->changed == differs);
		if (s->set) {
			FUZZ_CHECK(memchr(s->dest, '\0', sizeof(s->dest)) != NULL);
			FUZZ_CHECK(rules_dest_problem(s->dest) == NULL);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	size_t len = strlen(HEAD) + size + strlen(TAIL);
	char *text = malloc(len);

	if (text == NULL || size > 64 * 1024) {
		free(text);
		return 0;
	}
	memcpy(text, HEAD, strlen(HEAD));
	memcpy(text + strlen(HEAD), data, size);
	memcpy(text + strlen(HEAD) + size, TAIL, strlen(TAIL));
	struct hooks_options o = { .script = fuzz_memfile(text, len),
				   .instructions = 100000,
				   .memory = 8 << 20,
				   .log = quiet,
				   .user_name = name,
				   .group_name = name };
	free(text);
	struct hooks *h = hooks_load(&o, err, sizeof(err));
	if (h != NULL && hooks_has_classify(h)) {
		classify_once(h);
		classify_once(h); /* a second call sees a fresh state */
		FUZZ_CHECK(hooks_stats(h)->calls == 2);
	} else if (h == NULL) {
		FUZZ_CHECK(strncmp(err, o.script, strlen(o.script)) == 0);
	}
	hooks_free(h);
	return 0;
}
