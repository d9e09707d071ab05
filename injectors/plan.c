// SPDX-License-Identifier: MIT
/* Turns a validated fault request into journaled actions: switch side by dialect, host side by
 * netlink. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/dialect.h"
#include "injectors/fault.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[FK__COUNT] = {
    [FK_LINK_FLAP] = "link-flap",
    [FK_ACL_ERROR] = "acl-error",
    [FK_PFC_MISCONFIG] = "pfc-misconfig",
    [FK_IPID_DROP] = "ipid-drop",
    [FK_RNIC_ROUTE_MISSING] = "rnic-route-missing",
    [FK_LINK_DEGRADE] = "link-degrade",
};

const char *fault_kind_name(enum fault_kind k)
{
	return k < FK__COUNT ? kind_names[k] : "?";
}

int fault_kind_parse(const char *s, enum fault_kind *k)
{
	for (int i = 0; i < FK__COUNT; i++) {
		if (!strcmp(s, kind_names[i])) {
			*k = (enum fault_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

void fault_plan_clear(struct fault_plan *p)
{
	for (size_t i = 0; i < p->n_acts; i++) {
		free(p->acts[i].apply);
		free(p->acts[i].apply_input);
		free(p->acts[i].revert);
	}
	free(p->acts);
	p->acts = NULL;
	p->n_acts = 0;
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

void fault_plan_format(const struct fault_plan *p, FILE *f)
{
	fprintf(f, "# %s %s\n", fault_kind_name(p->kind), p->target);
	if (p->note[0])
		fprintf(f, "# %s\n", p->note);
	for (size_t i = 0; i < p->n_acts; i++) {
		const struct fault_action *a = &p->acts[i];
		const char *be = a->backend == FB_SSH ? "ssh" : "netlink";

		fprintf(f, "%s %s apply: %s\n", be, a->device, a->apply);
		if (a->apply_input) {
			const char *l = a->apply_input;

			while (*l) {
				size_t n = strcspn(l, "\n");

				fprintf(f, "  | %.*s\n", (int)n, l);
				l += n + (l[n] == '\n');
			}
		}
		fprintf(f, "%s %s revert: %s\n", be, a->device, a->revert);
	}
}

const char *fault_target_port(const struct inventory *inv, const struct fault_spec *s)
{
	if (s->tkind != INV_DEV_SWITCH || s->tport < 0)
		return NULL;
	return inv->switches[s->tdev].ports[s->tport].name;
}

static void host_op(struct fault_plan *p, const struct inventory *inv, size_t host,
		    const char *apply_fmt, const char *revert_fmt, ...)
    __attribute__((format(printf, 4, 0)));

/* Host-side actions are netlink op lines: "<op> <args...>" (see injectors/netlink_op.c). */
static void host_op(struct fault_plan *p, const struct inventory *inv, size_t host,
		    const char *apply_fmt, const char *revert_fmt, ...)
{
	char apply[256], revert[256];
	va_list ap;

	va_start(ap, revert_fmt);
	vsnprintf(apply, sizeof(apply), apply_fmt, ap);
	va_end(ap);
	va_start(ap, revert_fmt);
	vsnprintf(revert, sizeof(revert), revert_fmt, ap);
	va_end(ap);
	fault_plan_add(p, FB_NETLINK, inv->hosts[host].name, apply, NULL, revert);
}

static int plan_host(const struct inventory *inv, const struct fault_spec *s, struct fault_plan *p,
		     char *why, size_t whylen)
{
	const struct inv_rnic *r = &inv->hosts[s->tdev].rnics[s->tport];
	unsigned tbl = topo_host_table(s->tport);
	char src[16], gw[16];

	inet_ntop(AF_INET, &r->addr.addr, src, sizeof(src));
	inet_ntop(AF_INET, &r->gateway, gw, sizeof(gw));
	switch (s->kind) {
	case FK_LINK_FLAP:
		/* Admin-down flushes the RNIC's policy route; undo puts it back after link-up. */
		{
			char undo[128];

			snprintf(undo, sizeof(undo), "route-add %u 0.0.0.0/0 %s %s", tbl, gw,
				 r->netdev);
			fault_plan_add(p, FB_NETLINK, inv->hosts[s->tdev].name, "noop", NULL, undo);
		}
		host_op(p, inv, s->tdev, "link-down %s", "link-up %s", r->netdev);
		return 0;
	case FK_RNIC_ROUTE_MISSING:
		/* Undo runs in reverse: the route comes back before the rule that uses it. */
		host_op(p, inv, s->tdev, "rule-del %u %s lo %u", "rule-add %u %s lo %u", tbl, src,
			tbl);
		/* Both formats read the same arguments; %.0s skips what apply does not need. */
		host_op(p, inv, s->tdev, "route-del %u 0.0.0.0/0%.0s%.0s",
			"route-add %u 0.0.0.0/0 %s %s", tbl, gw, r->netdev);
		return 0;
	case FK_PFC_MISCONFIG:
		host_op(p, inv, s->tdev, "dcb-pfc %s %d off", "dcb-pfc %s %d on", r->netdev,
			s->priority);
		return 0;
	case FK_LINK_DEGRADE:
		host_op(p, inv, s->tdev, "tbf %s %llu", "qdisc-del %s", r->netdev, s->rate_kbit);
		return 0;
	default:
		snprintf(why, whylen, "%s targets a switch (switch or switch:port), not an RNIC",
			 fault_kind_name(s->kind));
		return -EINVAL;
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
	snprintf(plan->target, sizeof(plan->target), "%s", spec->target);
	snprintf(plan->table, sizeof(plan->table), "rocelab_f%u", id);
	if (spec->tkind == INV_DEV_HOST) {
		ret = plan_host(inv, spec, plan, why, whylen);
		goto out;
	}
	if (spec->kind == FK_RNIC_ROUTE_MISSING) {
		snprintf(why, whylen,
			 "rnic-route-missing targets an RNIC (host:rnic), not a switch");
		ret = -EINVAL;
		goto out;
	}
	r.sw = spec->tdev;
	r.port = fault_target_port(inv, spec);
	r.table = plan->table;
	ret = dialect_render(&r);
	if (ret || spec->kind != FK_LINK_DEGRADE)
		goto out;
	/* A degraded link is slow both ways: shape the far end too. */
	struct inv_endpoint t = {spec->tkind, spec->tdev, (size_t)spec->tport}, peer;

	if (spec->tport < 0 || inventory_peer(inv, &t, &peer))
		goto out;
	if (peer.kind == INV_DEV_HOST) {
		const struct inv_rnic *pr = &inv->hosts[peer.dev].rnics[peer.port];

		host_op(plan, inv, peer.dev, "tbf %s %llu", "qdisc-del %s", pr->netdev,
			spec->rate_kbit);
	} else {
		struct render_ctx pr = r;

		pr.sw = peer.dev;
		pr.port = inv->switches[peer.dev].ports[peer.port].name;
		ret = dialect_render(&pr);
	}
out:
	if (ret)
		fault_plan_clear(plan);
	return ret;
}
