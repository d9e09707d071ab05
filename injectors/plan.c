// SPDX-License-Identifier: MIT
/* Turns a validated fault request into journaled actions: switch side by dialect, host side by
 * netlink. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/deadman.h"
#include "injectors/fault.h"
#include "injectors/host_cmd.h"
#include "injectors/nos/caps.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void fault_plan_clear(struct fault_plan *p)
{
	while (p->n_acts)
		fault_plan_remove(p, p->n_acts - 1);
	free(p->acts);
	p->acts = NULL;
	p->n_acts = 0;
}

void fault_plan_take(struct fault_plan *p, struct fault_plan *found)
{
	fault_plan_clear(p);
	p->acts = found->acts;
	p->n_acts = found->n_acts;
	found->acts = NULL;
	found->n_acts = 0;
}

struct fault_action *fault_plan_add(struct fault_plan *p, enum fault_backend be, const char *dev,
				    const char *apply, const char *input, const char *revert)
{
	struct fault_action *a = RL_PUSH(p->acts, p->n_acts);

	a->backend = be;
	snprintf(a->device, sizeof(a->device), "%s", dev);
	a->apply = rl_xstrdup(apply);
	a->apply_input = input ? rl_xstrdup(input) : NULL;
	a->revert = rl_xstrdup(revert);
	return a;
}

void fault_plan_remove(struct fault_plan *p, size_t i)
{
	struct fault_action *a = &p->acts[i];

	free(a->apply);
	free(a->apply_input);
	free(a->revert);
	free(a->read);
	free(a->read_as);
	free(a->found);
	free(a->rearm);
	free(a->fires);
	memmove(a, a + 1, (p->n_acts - i - 1) * sizeof(*a));
	p->n_acts--;
}

void fault_action_set(char **field, const char *v)
{
	free(*field);
	*field = v ? rl_xstrdup(v) : NULL;
}

void fault_action_read(struct fault_action *a, const char *cmd, const char *as)
{
	fault_action_set(&a->read, cmd);
	fault_action_set(&a->read_as, as);
}

const char *fault_action_via(const struct fault_plan *p, const struct fault_action *a)
{
	if (a->backend == FB_SHELL)
		return "shell";
	if (a->backend == FB_SESSION)
		return "session";
	return a->backend == FB_SSH || p->host_cmds ? "ssh" : "netlink";
}

void fault_plan_format(const struct fault_plan *p, FILE *f)
{
	fprintf(f, "# %s %s\n", p->kind->name, p->target);
	if (p->scope[0])
		fprintf(f, "# binds %s\n", p->scope);
	if (p->note[0])
		fprintf(f, "# %s\n", p->note);
	for (const char *l = p->nos; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		int name = (int)strcspn(l, ":");

		fprintf(f, "# %.*s runs %.*s\n", name, l, (int)strcspn(l, "\n") - name - 2,
			l + name + 2);
	}
	for (const char *l = p->follows; *l; l += strcspn(l, "\n"), l += *l == '\n')
		fprintf(f, "# follows: %.*s\n", (int)strcspn(l, "\n"), l);
	for (const char *d = p->nvue; *d; d += strcspn(d, " "), d += *d == ' ')
		fprintf(f,
			"ssh %.*s check: " FAULT_NVUE_PENDING
			": refused unless it lists no pending change (the fault's 'nv config "
			"apply' would apply them too)\n",
			(int)strcspn(d, " "), d);
	for (size_t i = 0; i < p->n_acts; i++) {
		const struct fault_action *a = &p->acts[i];
		bool cmds = a->backend == FB_HOST && p->host_cmds;
		const char *be = fault_action_via(p, a);
		char apply[512], revert[512];

		if (fault_action_is_deadman(a)) {
			fault_deadman_format(a, f);
			continue;
		}

		if (a->read)
			fprintf(f, "%s %s read: %s\n", be, a->device, a->read);
		fprintf(f, "%s %s apply: %s\n", be, a->device,
			cmds ? host_op_text(a->apply, apply, sizeof(apply)) : a->apply);
		if (a->apply_input) {
			const char *l = a->apply_input;

			while (*l) {
				size_t n = strcspn(l, "\n");

				fprintf(f, "  | %.*s\n", (int)n, l);
				l += n + (l[n] == '\n');
			}
		}
		fprintf(f, "%s %s revert: %s\n", be, a->device,
			cmds ? host_op_text(a->revert, revert, sizeof(revert)) : a->revert);
		if (a->read)
			fprintf(
			    f,
			    "%s %s read: the same, after the revert: what differs from the first "
			    "read is drift\n",
			    be, a->device);
	}
	if (p->runs[0])
		fprintf(f, "%s\n", p->runs);
	if (p->counters[0])
		fprintf(
		    f,
		    "ssh %.*s counters: %s, before and after test traffic the hosts send (a lab "
		    "reached over SSH)\n",
		    (int)strcspn(p->target, ":"), p->target, p->counters);
}

const char *fault_target_port(const struct inventory *inv, const struct fault_spec *s)
{
	if (s->tkind != INV_DEV_SWITCH || s->tport < 0)
		return NULL;
	return inv->switches[s->tdev].ports[s->tport].name;
}

int fault_rnic_switch_end(const struct inventory *inv, const struct fault_spec *s,
			  struct inv_endpoint *sw_end, char *why, size_t whylen)
{
	struct inv_endpoint t = {INV_DEV_HOST, s->tdev, (size_t)s->tport};

	if (inventory_peer(inv, &t, sw_end) || sw_end->kind != INV_DEV_SWITCH) {
		snprintf(why, whylen,
			 "%s is not cabled to a switch port, where the fault on its link is made",
			 s->target);
		return -EINVAL;
	}
	return 0;
}

/* Host-side actions are netlink op lines: "<op> <args...>" (see injectors/netlink_op.c). */
void fault_plan_host_op(struct fault_plan *p, const char *host, const char *apply_fmt,
			const char *revert_fmt, ...)
{
	char apply[256], revert[256];
	va_list ap;

	va_start(ap, revert_fmt);
	vsnprintf(apply, sizeof(apply), apply_fmt, ap);
	va_end(ap);
	va_start(ap, revert_fmt);
	vsnprintf(revert, sizeof(revert), revert_fmt, ap);
	va_end(ap);
	fault_plan_add(p, FB_HOST, host, apply, NULL, revert);
}

bool fault_plan_has_nos(const struct fault_plan *p, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = p->nos; *l; l += strcspn(l, "\n"), l += *l == '\n')
		if (!strncmp(l, name, n) && l[n] == ':')
			return true;
	return false;
}

void fault_plan_nos(struct fault_plan *p, const struct inv_switch *sw)
{
	char what[200];
	size_t n = strlen(p->nos);

	nos_rendered_for(sw, what, sizeof(what));
	if (what[0] && !fault_plan_has_nos(p, sw->name))
		snprintf(p->nos + n, sizeof(p->nos) - n, "%s: %s\n", sw->name, what);
}

int fault_render(struct render_ctx *r)
{
	const struct fault_kind_ops *k = r->spec->kind;
	const struct inv_switch *sw = &r->inv->switches[r->sw];

	fault_plan_nos(r->plan, sw);
	if (sw->dialect < INV_DIALECT_N && k->render[sw->dialect])
		return k->render[sw->dialect](r);
	snprintf(r->why, r->whylen, "dialect %s of switch %s cannot %s",
		 inv_dialect_name(sw->dialect), sw->name, k->cannot ? k->cannot : k->name);
	return -EOPNOTSUPP;
}

/* text as a line of p->follows, once. */
static void plan_follows(struct fault_plan *p, const char *text)
{
	size_t n = strlen(p->follows), k = text ? strlen(text) : 0;

	for (const char *l = p->follows; k && *l; l += strcspn(l, "\n") + 1)
		if (strcspn(l, "\n") == k && !strncmp(l, text, k))
			return;
	if (k)
		snprintf(p->follows + n, sizeof(p->follows) - n, "%s\n", text);
}

/* What p's commands follow: each device's, by the dialect of a switch it acts on or reads. */
static void plan_sources(const struct inventory *inv, struct fault_plan *p)
{
	const struct fault_kind_ops *k = p->kind;

	for (size_t i = 0; i < p->n_acts; i++) {
		const struct inv_switch *sw = inventory_switch(inv, p->acts[i].device);

		if (fault_action_is_deadman(&p->acts[i]))
			continue;
		if (sw)
			plan_follows(p,
				     sw->dialect < INV_DIALECT_N ? k->follows[sw->dialect] : NULL);
		else
			plan_follows(p, k->follows_host);
	}
	if (p->runs[0]) /* a process it runs on a host (a storm's sender) */
		plan_follows(p, k->follows_host);
	for (const char *l = p->nos; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		char name[INV_NAME_MAX + 1];
		const struct inv_switch *sw;

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(l, ":"), l);
		if ((sw = inventory_switch(inv, name)) && sw->dialect < INV_DIALECT_N)
			plan_follows(p, k->follows[sw->dialect]);
	}
}

int fault_plan_build(const struct inventory *inv, const struct topo *topo,
		     const struct fault_spec *spec, unsigned id, struct fault_plan *plan, char *why,
		     size_t whylen)
{
	struct render_ctx r = {
	    .inv = inv, .spec = spec, .plan = plan, .why = why, .whylen = whylen, .topo = topo};
	int ret;

	memset(plan, 0, sizeof(*plan));
	plan->kind = spec->kind;
	plan->host_cmds = inv->kind == INV_LAB_SSH;
	snprintf(plan->target, sizeof(plan->target), "%s", spec->target);
	snprintf(plan->table, sizeof(plan->table), "rocelab_f%u", id);
	r.table = plan->table;
	if (spec->tkind == INV_DEV_HOST) { /* resolve admitted RNIC targets only with plan_host */
		ret = spec->kind->plan_host(&r);
	} else {
		r.sw = spec->tdev;
		r.port = fault_target_port(inv, spec);
		if (!r.port && spec->kind->targets & FT_PORT)
			snprintf(plan->scope, sizeof(plan->scope),
				 "every cabled port of %s (%zu, --all-ports)", spec->target,
				 fault_cabled_ports(&inv->switches[spec->tdev]));
		ret = spec->kind->plan_switch ? spec->kind->plan_switch(&r) : fault_render(&r);
	}
	if (ret)
		fault_plan_clear(plan);
	if (!ret)
		plan_sources(inv, plan);
	for (size_t i = 0; !ret && i < plan->n_acts; i++) {
		const struct inv_switch *sw = inventory_switch(inv, plan->acts[i].device);
		size_t n = strlen(plan->nvue);

		if (plan->acts[i].backend == FB_SSH && sw && sw->dialect == INV_DIALECT_NVUE &&
		    !fault_plan_names(plan->nvue, sw->name))
			snprintf(plan->nvue + n, sizeof(plan->nvue) - n, "%s%s", n ? " " : "",
				 sw->name);
	}
	return ret;
}

bool fault_plan_names(const char *list, const char *name)
{
	size_t k = strlen(name);

	for (const char *d = list; *d; d += strcspn(d, " "), d += *d == ' ')
		if (strcspn(d, " ") == k && !strncmp(d, name, k))
			return true;
	return false;
}
