// SPDX-License-Identifier: MIT
/* rnic-route-missing: an RNIC's policy rule and the routes of its table are deleted. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "injectors/dialect.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"

#include <arpa/inet.h>

static const struct opt_desc opts[] = {OPT_TABLE_END};

static int plan_host(struct render_ctx *rc)
{
	const struct inventory *inv = rc->inv;
	const struct fault_spec *s = rc->spec;
	struct fault_plan *p = rc->plan;
	const struct inv_rnic *r = &inv->hosts[s->tdev].rnics[s->tport];
	const char *host = inv->hosts[s->tdev].name;
	unsigned tbl = topo_host_table(s->tport);
	char src[16], gw[16], apply[64], undo[128];

	inet_ntop(AF_INET, &r->addr.addr, src, sizeof(src));
	inet_ntop(AF_INET, &r->gateway, gw, sizeof(gw));
	/* Undo runs in reverse: the route comes back before the rule that uses it. */
	fault_plan_host_op(p, host, "rule-del %u %s lo %u", "rule-add %u %s lo %u", tbl, src, tbl);
	snprintf(apply, sizeof(apply), "route-del %u 0.0.0.0/0", tbl);
	snprintf(undo, sizeof(undo), "route-add %u 0.0.0.0/0 %s %s", tbl, gw, r->netdev);
	fault_plan_add(p, FB_NETLINK, host, apply, NULL, undo);
	return 0;
}

static int verify(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const char *host = f->inv->hosts[s->tdev].name;
	char tbl[16];
	json_t *rules, *routes;
	size_t left;

	snprintf(tbl, sizeof(tbl), "%u", topo_host_table(s->tport));
	rules = fault_read_json(
	    f, host, (const char *const[]){"ip", "-j", "rule", "show", "table", tbl, NULL});
	routes = rules ? fault_read_json(
			     f, host,
			     (const char *const[]){"ip", "-j", "route", "show", "table", tbl, NULL})
		       : NULL;
	if (!routes) {
		json_decref(rules);
		return -EIO;
	}
	left = json_array_size(rules) + json_array_size(routes);
	json_decref(rules);
	json_decref(routes);
	if (left) {
		snprintf(f->err, sizeof(f->err),
			 "policy rule or route of table %s is still there (%zu left)", tbl, left);
		return -EIO;
	}
	snprintf(f->evidence, sizeof(f->evidence), "rule pref %s and table %s routes absent on %s",
		 tbl, tbl, host);
	return 0;
}

const struct fault_kind_ops fk_rnic_route_missing = {
    .name = "rnic-route-missing",
    .usage = "--target HOST:RNIC",
    .targets = FT_RNIC,
    .example = "host1:rnic2",
    .opts = opts,
    .plan_host = plan_host,
    .verify = verify,
};
