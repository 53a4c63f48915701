/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.c -- everything a classification depends on, built as one
 * object: the daemon config, the mounted hierarchies, the managed
 * subset, and the compiled rules bound to it.  Reload builds a new
 * policy and swaps it in only when every part is valid.
 */
#include "core_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

static void
rules_report(void *arg, enum rules_severity sev, const char *msg)
{
	const struct report *rep = arg;

	if (sev == RULES_WARNING) {
		if (rep != NULL && rep->warn != NULL)
			rep->warn(rep->arg, msg);
		else
			log_warning("%s", msg);
		return;
	}
	report_msg(rep, "%s", msg);
}

static void
apply_overrides(struct config *c, const struct overrides *o)
{
	char **slots[] = { &c->rules, &c->pidfile, &c->control_socket, &c->log };
	const char *values[] = { o->rules, o->pidfile, o->control_socket, o->log };

	for (size_t i = 0; i < 4; i++) {
		char *v;

		if (values[i] == NULL || (v = strdup(values[i])) == NULL)
			continue;
		free(*slots[i]);
		*slots[i] = v;
	}
	int level = (int)c->log_level + o->verbosity;
	if (level < LOG_LEVEL_ERROR)
		level = LOG_LEVEL_ERROR;
	if (level > LOG_LEVEL_DEBUG)
		level = LOG_LEVEL_DEBUG;
	c->log_level = (enum log_level)level;
}

static int
add_managed(struct policy *p, const struct hier *h)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->managed[i] == h)
			return 0;
	if (p->n == RULES_MAX_HIERS)
		return -EINVAL;
	p->managed[p->n] = h;
	p->names[p->n] = h->name;
	p->labels[p->n] = hier_label(h);
	p->n++;
	return 0;
}

/* Choose the managed hierarchies; 0 or -EINVAL after reporting. */
static int
select_hierarchies(struct policy *p, const struct report *rep)
{
	const struct config *c = p->cfg;
	const char *where = c->file[0] ? c->file : "built-in config";

	if (c->hierarchies == NULL) {
		for (size_t i = 0; i < p->all.n; i++) {
			const struct hier *h = &p->all.v[i];

			if (h->version == HIER_V1 &&
			    strcmp(h->name, "name=systemd") != 0 && add_managed(p, h) < 0)
				break;
		}
		return 0;
	}
	int bad = 0;
	for (size_t i = 0; i < c->nhierarchies; i++) {
		const struct hier *h = hier_find(&p->all, c->hierarchies[i]);

		if (h == NULL) {
			report_msg(rep, "%s: hierarchies: \"%s\" is not mounted", where,
				   c->hierarchies[i]);
			bad++;
		} else if (add_managed(p, h) < 0) {
			report_msg(rep, "%s: hierarchies: more than %d", where,
				   RULES_MAX_HIERS);
			bad++;
		}
	}
	return bad ? -EINVAL : 0;
}

/* Resolve group settings to managed hierarchies; 0 or -ENOMEM. */
static int
resolve_settings(struct policy *p, const struct report *rep)
{
	const struct config *c = p->cfg;

	p->settings = calloc(c->ngroups + 1, sizeof(*p->settings));
	p->prio_groups = calloc(c->ngroups + 1, sizeof(*p->prio_groups));
	if (p->settings == NULL || p->prio_groups == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct hier *h = policy_find(p, c->groups[i].hier);
		int k = h != NULL ? policy_index(p, h) : -1;

		if (k < 0) {
			log_warning(
				"%s:%u: group \"%s:%s\": hierarchy not managed; settings unused",
				c->file, c->groups[i].line, c->groups[i].hier, c->groups[i].path);
			continue;
		}
		p->settings[p->nsettings].hier = (size_t)k;
		p->settings[p->nsettings].conf = &c->groups[i];
		p->nsettings++;
		if (c->groups[i].prio.set == 0)
			continue;
		p->prio_groups[p->nprio_groups].hier = (size_t)k;
		p->prio_groups[p->nprio_groups].conf = &c->groups[i];
		p->nprio_groups++;
	}
	p->prio_any = p->nprio_groups > 0;
	for (size_t i = 0; i < c->nprofiles; i++)
		p->prio_any |= c->profiles[i].prio.set != 0;
	(void)rep;
	return 0;
}

/* Every boost profile names a managed hierarchy (or a dimension of the
 * layout): else each boost through it would fail; 0 or -1 after
 * reporting. */
static int
check_profiles(struct policy *p, const struct report *rep)
{
	const struct config *c = p->cfg;
	int bad = 0;

	for (size_t i = 0; i < c->nprofiles; i++) {
		const struct boost_profile *b = &c->profiles[i];

		if (policy_find(p, b->hier) == NULL) {
			report_msg(rep,
				   "%s:%u: boost-profile \"%s\": hierarchy \"%s\" is not "
				   "managed",
				   c->file, b->line, b->name, b->hier);
			bad++;
		}
	}
	return bad ? -1 : 0;
}

static void
scan_rules(struct policy *p)
{
	for (size_t i = 0; i < rules_count(p->rules); i++) {
		const struct rules_rule *r = rules_get(p->rules, i);

		if (r->templated && (strstr(r->dest, "%u") || strstr(r->dest, "%g")))
			p->need_names = true;
	}
}

const char *
policy_user(struct policy *p, uid_t uid)
{
	return names_user(p->users, uid);
}

const char *
policy_group(struct policy *p, gid_t gid)
{
	return names_group(p->groups, gid);
}

static const char *
hook_user(void *arg, uid_t uid)
{
	return policy_user(arg, uid);
}

static const char *
hook_group(void *arg, gid_t gid)
{
	return policy_group(arg, gid);
}

static void
hook_log(void *arg, enum hooks_level level, const char *msg)
{
	log_msg((enum log_level)level, "%s", msg);
}

/* Load the Lua script, if any; 0 or -EINVAL after reporting. */
static int
load_hooks(struct policy *p, const struct report *rep)
{
	const struct config *c = p->cfg;
	char err[1024];

	if (c->lua_script[0] == '\0')
		return 0;
	/* the Lua helper process gives up root for "nobody" (65534 if
	 * there is no such user); not root, it keeps our ids */
	uid_t run_uid = 65534;
	gid_t run_gid = 65534;
	if (geteuid() == 0 && nss_user("nobody", &run_uid, &run_gid) < 0)
		run_uid = run_gid = 65534;
	struct hooks_options o = {
		.script = c->lua_script,
		.instructions = c->lua_instructions,
		.memory = c->lua_memory,
		.log = hook_log,
		.user_name = hook_user,
		.group_name = hook_group,
		.arg = p,
		.drop_privileges = geteuid() == 0,
		.run_uid = run_uid,
		.run_gid = run_gid,
		.timeout_ms = c->lua_timeout,
	};
	if ((p->hooks = hooks_load(&o, err, sizeof(err))) == NULL) {
		report_msg(rep, "%s", err);
		return -EINVAL;
	}
	/* requests (test, explain) get a helper of their own, started when
	 * first asked: what a user asks never stops the classifying one */
	if (hooks_has_classify(p->hooks) &&
	    (p->hooks_ask = hooks_clone(p->hooks, "request (test, explain): ")) == NULL)
		log_warning("%s: out of memory: requests are answered without the hook",
			    c->lua_script);
	return 0;
}

/*
 * Rules with templates hash long and unsafe values under the
 * installation's secret key (rules_expand): read it, made at the first
 * start (--check makes nothing: without the file, it checks with a key
 * of zeros, which names no group).  0 or -errno after reporting.
 */
static int
template_key(struct policy *p, const struct overrides *o, const struct report *rep)
{
	unsigned char key[SIPHASH_KEY_LEN];

	if (!rules_templated(p->rules))
		return 0;
	int rc = secret_file(p->cfg->template_key, key, sizeof(key), !o->check);
	if (rc == -ENOENT && o->check)
		return 0;
	if (rc < 0) {
		report_msg(rep, "%s: template-key: %s", p->cfg->template_key,
			   rc == -EINVAL  ? "not a file of 16 bytes"
			   : rc == -EPERM ? "others may read it (chmod 600)"
					  : strerror(-rc));
		return rc;
	}
	rules_set_key(p->rules, key);
	return 0;
}

struct policy *
policy_build(const struct overrides *o, const char *mountinfo, const char *procroot,
	     const struct report *rep)
{
	struct policy *p = calloc(1, sizeof(*p));
	const char *path = o->config ? o->config : SYSCONFDIR "/cgengine/cgengined.conf";

	if (p == NULL)
		return NULL;
	p->users = calloc(1, sizeof(*p->users));
	p->groups = calloc(1, sizeof(*p->groups));
	if (p->users == NULL || p->groups == NULL)
		goto fail;
	if ((p->cfg = config_load(path, !o->config_explicit, rep)) == NULL)
		goto fail;
	apply_overrides(p->cfg, o);
	if (mountinfo == NULL)
		mountinfo = "/proc/self/mountinfo";
	int rc = hier_discover(mountinfo, &p->all);
	if (rc < 0) {
		report_msg(rep, "%s: cannot read: %s", mountinfo, strerror(-rc));
		goto fail;
	}
	if (config_backend(p->cfg, o->systemd_booted, &p->backend, rep) < 0)
		goto fail;
	if (select_hierarchies(p, rep) < 0 || layout_build(p, o, procroot, rep) < 0 ||
	    resolve_settings(p, rep) < 0 || check_profiles(p, rep) < 0)
		goto fail;

	struct rules_options ro = {
		.file = p->cfg->rules,
		.dir = p->cfg->rules_dir,
		.semantics = p->cfg->match,
		.report = rules_report,
		.report_arg = (void *)rep,
	};
	if ((p->rules = rules_load(&ro)) == NULL)
		goto fail;
	if (rules_bind(p->rules, p->labels, p->n) < 0 || template_key(p, o, rep) < 0)
		goto fail;
	scan_rules(p);
	layout_finish(p);
	if (layout_limit(p, rep) < 0 || load_hooks(p, rep) < 0 ||
	    ananicy_policy_load(p, rep) < 0)
		goto fail;
	return p;
fail:
	policy_free(p);
	return NULL;
}

void
policy_free(struct policy *p)
{
	if (p == NULL)
		return;
	hooks_free(p->hooks);
	hooks_free(p->hooks_ask);
	if (p->users != NULL)
		names_clear(p->users);
	if (p->groups != NULL)
		names_clear(p->groups);
	free(p->users);
	free(p->groups);
	rules_free(p->rules);
	ananicy_free(p->ananicy);
	hier_list_free(&p->all);
	config_free(p->cfg);
	free(p->settings);
	free(p->prio_groups);
	free(p->ananicy_groups);
	free(p->type_groups);
	free(p->uroot);
	free(p);
}

const struct group_conf *
policy_settings(const struct policy *p, size_t h, const char *path)
{
	for (size_t i = 0; i < p->nsettings; i++)
		if (p->settings[i].hier == h &&
		    strcmp(p->settings[i].conf->path, path) == 0)
			return p->settings[i].conf;
	return NULL;
}

const struct hier *
policy_managed(const struct policy *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->names[i], name) == 0)
			return p->managed[i];
	return NULL;
}

const struct hier *
policy_find(const struct policy *p, const char *spec)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->virt[i] && strcmp(p->names[i], spec) == 0)
			return p->managed[i];
	const struct hier *h = hier_find(&p->all, spec);
	return h != NULL && policy_index(p, h) >= 0 ? h : NULL;
}

int
policy_index(const struct policy *p, const struct hier *h)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->managed[i] == h)
			return (int)i;
	return -1;
}
