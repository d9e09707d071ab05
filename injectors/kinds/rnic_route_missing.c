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
#include "injectors/dialect.h"
#include "injectors/effect.h"
#include "injectors/kinds/kinds.h"

#include <arpa/inet.h>
#include <ctype.h>
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

/* A value from 'ip -j' that can stand as one word of an op line. */
static const char *word(json_t *o, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(o, key);
	const char *p;

	if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else
		return NULL;
	for (p = buf; *p && (isalnum((unsigned char)*p) || strchr(".:/_-", *p)); p++)
		;
	return *p || !buf[0] ? NULL : buf;
}

/* Keys of a found rule or route that rocelab can restore as found; any other refuses. */
static bool only_keys(json_t *o, const char *const *known, char *bad, size_t len)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v)
	{
		size_t i;

		for (i = 0; known[i] && strcmp(known[i], k); i++)
			;
		if (!known[i]) {
			snprintf(bad, len, "%s", k);
			return false;
		}
	}
	return true;
}

/* "ip rule add|del ..." words for a found rule into b. */
static int rule_words(json_t *r, struct sbuf *b, const char *verb)
{
	static const char *const sel[][2] = {{"src", "from"},	    {"iif", "iif"},
					     {"oif", "oif"},	    {"fwmark", "fwmark"},
					     {"protocol", "proto"}, {"table", "table"}};
	char v[64], len[16];

	if (!word(r, "priority", v, sizeof(v)))
		return -EINVAL;
	sb_printf(b, "ip rule %s pref %s", verb, v);
	for (size_t i = 0; i < ARRAY_SIZE(sel); i++) {
		if (!json_object_get(r, sel[i][0]))
			continue;
		if (!word(r, sel[i][0], v, sizeof(v)))
			return -EINVAL;
		sb_printf(b, " %s %s", sel[i][1], v);
		if (!strcmp(sel[i][0], "src") && word(r, "srclen", len, sizeof(len)))
			sb_printf(b, "/%s", len);
	}
	return 0;
}

/* "ip route add|del ..." words for a found route of table tbl into b. */
static int route_words(json_t *r, const char *tbl, struct sbuf *b, bool add)
{
	static const char *const opt[][2] = {{"gateway", "via"},    {"dev", "dev"},
					     {"protocol", "proto"}, {"scope", "scope"},
					     {"prefsrc", "src"},    {"metric", "metric"}};
	char v[64];

	if (!word(r, "dst", v, sizeof(v)))
		return -EINVAL;
	sb_printf(b, "ip route %s %s table %s", add ? "add" : "del", v, tbl);
	for (size_t i = 0; i < ARRAY_SIZE(opt); i++) {
		/* A delete names the route only: destination, gateway, device, metric. */
		if (!json_object_get(r, opt[i][0]) ||
		    (!add && i >= 2 && strcmp(opt[i][0], "metric")))
			continue;
		if (!word(r, opt[i][0], v, sizeof(v)))
			return -EINVAL;
		sb_printf(b, " %s %s", opt[i][1], v);
	}
	if (add && json_array_size(json_object_get(r, "flags")))
		sb_printf(b, " onlink"); /* the one route flag a user sets */
	return 0;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	static const char *const rule_keys[] = {"priority", "src",	"srclen", "iif",   "oif",
						"fwmark",   "protocol", "table",  "flags", NULL};
	static const char *const route_keys[] = {"dst",	    "gateway", "dev",	"protocol", "scope",
						 "prefsrc", "metric",  "flags", "type",	    NULL};
	const struct fault_spec *s = f->spec;
	const struct inv_host *h = &f->inv->hosts[s->tdev];
	const struct inv_rnic *rn = &h->rnics[s->tport];
	char src[16], tables[MAX_TABLES][16], bad[64];
	size_t n_tables = 0, i;
	json_t *rules, *x;
	struct fault_plan found = {0};
	int r = 0;

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
		if (!only_keys(x, rule_keys, bad, sizeof(bad)) || rule_words(x, &del, "del") ||
		    rule_words(x, &add, "add") || !word(x, "table", tbl, sizeof(tbl))) {
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
		fault_plan_add(&found, FB_NETLINK, h->name, del.p, NULL, add.p);
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

			if (!only_keys(x, route_keys, bad, sizeof(bad)) ||
			    route_words(x, tables[t], &del, false) ||
			    route_words(x, tables[t], &add, true)) {
				snprintf(f->err, sizeof(f->err),
					 "%s: a route of table %s has an attribute rocelab cannot "
					 "restore as found ('%s')",
					 h->name, tables[t], bad[0] ? bad : "?");
				r = -EOPNOTSUPP;
			} else {
				fault_plan_add(&found, FB_NETLINK, h->name, del.p, NULL, add.p);
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
	fault_plan_clear(p);
	p->acts = found.acts;
	p->n_acts = found.n_acts;
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
};
