// SPDX-License-Identifier: MIT
/*
 * rnic-route-missing: an RNIC's source policy rule and the routes of its
 * table are deleted.  On the virtual lab rocelab laid the routing out itself
 * (topo_host_table()); on a lab reached over SSH the rules and routes are
 * read from the host ('ip -j rule', 'ip -j route') and restored as found.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/effect.h"
#include "injectors/host_found.h"
#include "injectors/kinds/kinds.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

static const struct opt_desc opts[] = {OPT_TABLE_END};

#define MAX_TABLES 8

static int plan_host(struct render_ctx *rc)
{
	const struct inventory *inv = rc->inv;
	const struct fault_spec *s = rc->spec;
	struct fault_plan *p = rc->plan;
	const struct inv_rnic *r = &inv->hosts[s->tdev].rnics[s->tport];
	const char *host = inv->hosts[s->tdev].name;
	unsigned tbl = topo_host_table(s->tport);
	char src[16], gw[16];

	inet_ntop(AF_INET, &r->addr.addr, src, sizeof(src));
	inet_ntop(AF_INET, &r->gateway, gw, sizeof(gw));
	/* Undo runs in reverse: the route comes back before the rule that uses it. */
	fault_plan_host_op(p, host, "rule-del %u %s lo %u", "rule-add %u %s lo %u", tbl, src, tbl);
	fault_plan_host_op(p, host, "route-del %u 0.0.0.0/0", "route-add %u 0.0.0.0/0 %s %s", tbl,
			   gw, r->netdev);
	if (p->host_cmds)
		snprintf(p->note, sizeof(p->note),
			 "shown as rocelab lays hosts out: the rules from %s and the routes of "
			 "their tables are read from %s when applied, and restored as found",
			 src, host);
	return 0;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	const struct fault_spec *s = f->spec;
	const struct inv_host *h = &f->inv->hosts[s->tdev];
	const struct inv_rnic *rn = &h->rnics[s->tport];
	char src[16], tables[MAX_TABLES][16], bad[64];
	size_t n_tables = 0, i;
	json_t *rules, *x;
	struct fault_plan found = {0};
	int r = 0;

	if (lab_can(f->lab, LAB_CAP_NETLINK))
		return 0; /* hosts rocelab laid out: the plan stands */

	inet_ntop(AF_INET, &rn->addr.addr, src, sizeof(src));
	rules =
	    fault_read_json(f, h->name, (const char *const[]){"ip", "-j", "rule", "show", NULL});
	if (!rules)
		return -EIO;
	json_array_foreach(rules, i, x)
	{
		struct sbuf del = {0}, add = {0};
		const char *rs = json_string_value(json_object_get(x, "src"));
		char tbl[16];

		if (!rs || strcmp(rs, src))
			continue;
		if (!host_found_keys(x, host_rule_keys, bad, sizeof(bad)) ||
		    host_rule_cmd(x, "del", &del) || host_rule_cmd(x, "add", &add) ||
		    !host_found_word(x, "table", tbl, sizeof(tbl))) {
			snprintf(
			    f->err, sizeof(f->err),
			    "%s: a rule from %s has a selector rocelab cannot restore as found "
			    "('%s'): remove it by hand or target another RNIC",
			    h->name, src, bad[0] ? bad : "?");
			sb_free(&del);
			sb_free(&add);
			r = -EOPNOTSUPP;
			break;
		}
		fault_plan_add(&found, FB_HOST, h->name, del.p, NULL, add.p);
		sb_free(&del);
		sb_free(&add);
		/* The routes of its own table go too; main, local and default stay. */
		if (strtoul(tbl, NULL, 10) && strtoul(tbl, NULL, 10) < 253 && n_tables < MAX_TABLES)
			snprintf(tables[n_tables++], sizeof(tables[0]), "%s", tbl);
	}
	json_decref(rules);
	if (!r && !found.n_acts) {
		snprintf(f->err, sizeof(f->err),
			 "%s: no policy rule selects source %s ('ip rule'): rocelab removes an "
			 "RNIC's source rule and the routes of its table, and this host routes "
			 "%s:%s otherwise",
			 h->name, src, h->name, rn->name);
		r = -EOPNOTSUPP;
	}
	for (size_t t = 0; !r && t < n_tables; t++) {
		json_t *routes = fault_read_json(
		    f, h->name,
		    (const char *const[]){"ip", "-j", "route", "show", "table", tables[t], NULL});

		if (!routes) {
			r = -EIO;
			break;
		}
		json_array_foreach(routes, i, x)
		{
			struct sbuf del = {0}, add = {0};

			if (!host_found_keys(x, host_route_keys, bad, sizeof(bad)) ||
			    host_route_cmd(x, tables[t], false, false, &del) ||
			    host_route_cmd(x, tables[t], false, true, &add)) {
				snprintf(f->err, sizeof(f->err),
					 "%s: a route of table %s has an attribute rocelab cannot "
					 "restore as found ('%s')",
					 h->name, tables[t], bad[0] ? bad : "?");
				r = -EOPNOTSUPP;
			} else {
				fault_plan_add(&found, FB_HOST, h->name, del.p, NULL, add.p);
			}
			sb_free(&del);
			sb_free(&add);
			if (r)
				break;
		}
		json_decref(routes);
	}
	if (r) {
		fault_plan_clear(&found);
		return r;
	}
	fault_plan_take(p, &found);
	snprintf(p->note, sizeof(p->note),
		 "the rules from %s and the routes of their tables, as found on %s", src, h->name);
	return 0;
}

/* The tables whose routes the plan deletes ("route-del T ..." or "ip route del D table T"). */
static size_t plan_tables(const struct fault_plan *p, char tables[][16], size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_acts && n < max; i++) {
		const char *a = p->acts[i].apply, *t;

		if (!strncmp(a, "route-del ", 10))
			sscanf(a + 10, "%15s", tables[n++]);
		else if (!strncmp(a, "ip route del ", 13) && (t = strstr(a, " table ")))
			sscanf(t + 7, "%15s", tables[n++]);
	}
	return n;
}

static int verify(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	const struct inv_host *h = &f->inv->hosts[s->tdev];
	char src[16], tables[MAX_TABLES][16];
	size_t n = plan_tables(f->plan, tables, MAX_TABLES), left = 0, i;
	json_t *rules, *x;

	inet_ntop(AF_INET, &h->rnics[s->tport].addr.addr, src, sizeof(src));
	rules =
	    fault_read_json(f, h->name, (const char *const[]){"ip", "-j", "rule", "show", NULL});
	if (!rules)
		return -EIO;
	json_array_foreach(rules, i, x)
	{
		const char *rs = json_string_value(json_object_get(x, "src"));

		left += rs && !strcmp(rs, src);
	}
	json_decref(rules);
	for (size_t t = 0; t < n; t++) {
		json_t *routes = fault_read_json(
		    f, h->name,
		    (const char *const[]){"ip", "-j", "route", "show", "table", tables[t], NULL});

		if (!routes)
			return -EIO;
		left += json_array_size(routes);
		json_decref(routes);
	}
	if (left) {
		snprintf(f->err, sizeof(f->err),
			 "a rule from %s or a route of its table is still there (%zu left)", src,
			 left);
		return -EIO;
	}
	snprintf(f->evidence, sizeof(f->evidence),
		 "no rule from %s, and %zu table(s) of its routes empty on %s", src, n, h->name);
	return 0;
}

const struct fault_kind_ops fk_rnic_route_missing = {
    .name = "rnic-route-missing",
    .usage = "--target HOST:RNIC",
    .targets = FT_RNIC,
    .example = "host1:rnic2",
    .opts = opts,
    .plan_host = plan_host,
    .discover = discover,
    .verify = verify,
    .follows_host = "iproute2 ('ip rule', 'ip route' in the RNIC's table)",
};
