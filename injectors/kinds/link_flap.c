// SPDX-License-Identifier: MIT
/*
 * link-flap: a switch port or an RNIC goes down for --down out of every
 * --period, --count times (or until --for/--hold ends).  A flap starts with
 * its down phase.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"
#include "injectors/dialect.h"
#include "injectors/effect.h"
#include "injectors/host_found.h"
#include "injectors/kinds/kinds.h"

#include <arpa/inet.h>
#include <limits.h>
#include <string.h>

#define FS(f) offsetof(struct fault_spec, f)

static const struct opt_desc opts[] = {
    {"period", OPT_MS, 100, 3600000, FS(period_ms), "one down-and-up cycle"},
    {"down", OPT_MS, 50, 3600000, FS(down_ms), "down part of each cycle"},
    {"count", OPT_INT, 0, 100000, FS(count), "cycles; 0: one, or until --for/--hold ends"},
    OPT_TABLE_END,
};

static void defaults(struct fault_spec *s)
{
	s->period_ms = 10000;
	s->down_ms = 5000;
}

static int check(const struct fault_spec *s, char *why, size_t whylen)
{
	if (s->down_ms < s->period_ms)
		return 0;
	snprintf(why, whylen, "down (%lldms) must be shorter than period (%lldms)", s->down_ms,
		 s->period_ms);
	return -EINVAL;
}

static int plan_host(struct render_ctx *rc)
{
	const struct inventory *inv = rc->inv;
	const struct fault_spec *s = rc->spec;
	struct fault_plan *p = rc->plan;
	const struct inv_rnic *r = &inv->hosts[s->tdev].rnics[s->tport];
	const char *host = inv->hosts[s->tdev].name;
	char gw[16];

	inet_ntop(AF_INET, &r->gateway, gw, sizeof(gw));
	/* Admin-down flushes the RNIC's policy route; undo puts it back after link-up. */
	fault_plan_host_op(p, host, "noop", "route-add %u 0.0.0.0/0 %s %s",
			   topo_host_table(s->tport), gw, r->netdev);
	fault_plan_host_op(p, host, "link-down %s", "link-up %s", r->netdev);
	if (p->host_cmds)
		snprintf(p->note, sizeof(p->note),
			 "shown as rocelab lays hosts out: the routes through %s that link-down "
			 "flushes are read from %s when applied, and restored as found",
			 r->netdev, host);
	return 0;
}

/*
 * The routes through the RNIC's netdev that admin-down flushes, read from a
 * host whose routing rocelab did not lay out: every table, IPv4 and IPv6.
 * The kernel puts back its own (proto kernel, the local table, RA-learned)
 * when the link comes up; the others come back from the journal, as found.
 */
static int found_routes(struct fault_run *f, struct fault_plan *found, const char *host,
			const char *netdev, bool v6)
{
	const char *argv[] = {"ip",  v6 ? "-6" : "-4", "-j", "route", "show", "table", "all",
			      "dev", netdev,	       NULL};
	json_t *routes = fault_read_json(f, host, argv), *x;
	char bad[64] = "", tbl[16], proto[16];
	size_t i;
	int r = 0;

	if (!routes)
		return -EIO;
	json_array_foreach(routes, i, x)
	{
		struct sbuf add = {0};

		if (json_object_get(x, "type") ||
		    (host_found_word(x, "protocol", proto, sizeof(proto)) &&
		     (!strcmp(proto, "kernel") || !strcmp(proto, "ra"))))
			continue; /* the kernel's own: back with the link */
		if (!host_found_word(x, "table", tbl, sizeof(tbl)))
			snprintf(tbl, sizeof(tbl), "main");
		json_object_set_new(x, "dev", json_string(netdev)); /* 'dev' filtered: not shown */
		/* A multipath route has no single device: 'dev' does not list it, and it stays. */
		if (!host_found_keys(x, host_route_keys, bad, sizeof(bad)) ||
		    host_route_cmd(x, tbl, v6, true, &add)) {
			snprintf(
			    f->err, sizeof(f->err),
			    "%s: a route through %s has an attribute rocelab cannot restore as "
			    "found ('%s'): it would be lost when the link goes down",
			    host, netdev, bad[0] ? bad : "?");
			r = -EOPNOTSUPP;
		} else {
			fault_plan_add(found, FB_HOST, host, "noop", NULL, add.p);
		}
		sb_free(&add);
		if (r)
			break;
	}
	json_decref(routes);
	return r;
}

/*
 * The static IPv6 addresses of netdev, which admin-down removes (unless
 * keep_addr_on_down): put back after link-up.  Link-local and autoconfigured
 * ones the kernel makes again.
 */
static int found_addrs(struct fault_run *f, struct fault_plan *found, const char *host,
		       const char *netdev)
{
	static const char *const flags[] = {"nodad", "noprefixroute", "home", "mngtmpaddr"};
	const char *argv[] = {"ip", "-6", "-j", "addr", "show", "dev", netdev, NULL};
	json_t *links = fault_read_json(f, host, argv), *a;
	size_t i;
	int r = 0;

	if (!links)
		return -EIO;
	json_array_foreach(json_object_get(json_array_get(links, 0), "addr_info"), i, a)
	{
		char addr[64], len[8];
		struct sbuf add = {0};

		if (!host_found_word(a, "scope", addr, sizeof(addr)) || strcmp(addr, "global") ||
		    json_is_true(json_object_get(a, "dynamic")))
			continue;
		if (!host_found_word(a, "local", addr, sizeof(addr)) ||
		    !host_found_word(a, "prefixlen", len, sizeof(len))) {
			snprintf(f->err, sizeof(f->err),
				 "%s: an IPv6 address of %s that rocelab cannot read back", host,
				 netdev);
			r = -EOPNOTSUPP;
			break;
		}
		sb_printf(&add, "ip -6 addr add %s/%s dev %s", addr, len, netdev);
		for (size_t k = 0; k < ARRAY_SIZE(flags); k++)
			if (json_is_true(json_object_get(a, flags[k])))
				sb_printf(&add, " %s", flags[k]);
		fault_plan_add(found, FB_HOST, host, "noop", NULL, add.p);
		sb_free(&add);
	}
	json_decref(links);
	return r;
}

static int discover(struct fault_run *f, struct fault_plan *p)
{
	const struct fault_spec *s = f->spec;
	const struct inv_host *h;
	const char *netdev;
	struct fault_plan found = {0};
	char down[64], up[64];
	size_t n_routes;
	int r;

	if (s->tkind != INV_DEV_HOST)
		return 0; /* a switch port: its dialect's commands stand */
	h = &f->inv->hosts[s->tdev];
	netdev = h->rnics[s->tport].netdev;
	r = found_routes(f, &found, h->name, netdev, false);
	if (!r)
		r = found_routes(f, &found, h->name, netdev, true);
	n_routes = found.n_acts;
	if (!r)
		r = found_addrs(f, &found, h->name, netdev);
	if (r) {
		fault_plan_clear(&found);
		return r;
	}
	/* Undo runs in reverse: the link comes up, then its addresses, then its routes. */
	snprintf(down, sizeof(down), "link-down %s", netdev);
	snprintf(up, sizeof(up), "link-up %s", netdev);
	fault_plan_add(&found, FB_HOST, h->name, down, NULL, up);
	fault_plan_clear(p);
	p->acts = found.acts;
	p->n_acts = found.n_acts;
	snprintf(p->note, sizeof(p->note),
		 "%zu route(s) through %s and %zu IPv6 address(es) as found on %s, restored after "
		 "link-up",
		 n_routes, netdev, found.n_acts - 1 - n_routes, h->name);
	return 0;
}

static int render(const struct dialect_ops *d, struct render_ctx *r)
{
	return d->link_flap ? d->link_flap(r) : dialect_unsupported(r, "flap a link");
}

/* Link state of a netdev as its kernel sees it: 'ip -j link show dev X'. */
static int oper_up(struct fault_run *f, const struct inv_endpoint *ep, bool *up)
{
	const char *dev, *netdev, *op;
	json_t *v;

	dev = inventory_device_name(f->inv, ep);
	netdev = inventory_netdev(f->inv, ep);
	v = fault_read_json(f, dev,
			    (const char *const[]){"ip", "-j", "link", "show", "dev", netdev, NULL});
	if (!v)
		return -EIO;
	/*
	 * The kernel's netif_oper_up(): UP or UNKNOWN carries traffic.  Anything
	 * else is down: a veth without carrier reads LOWERLAYERDOWN before
	 * Linux 6.12 (its iflink is the peer) and DOWN after.
	 */
	op = json_string_value(json_object_get(json_array_get(v, 0), "operstate")) ?: "";
	*up = !strcmp(op, "UP") || !strcmp(op, "UNKNOWN");
	json_decref(v);
	return 0;
}

static int verify(struct fault_run *f)
{
	struct inv_endpoint t, peer;
	char pn[80];
	bool up_t = true, up_p = true;

	if (fault_target_ends(f, &t, &peer))
		return -EINVAL;
	if (!fault_end_readable(f->inv, &t) || !fault_end_readable(f->inv, &peer)) {
		snprintf(f->evidence, sizeof(f->evidence),
			 "dialect commands succeeded (state not read back)");
		return 0;
	}
	for (int i = 0; i < 50 && (up_t || up_p); i++) {
		if (oper_up(f, &t, &up_t) || oper_up(f, &peer, &up_p))
			return -EIO;
		if (up_t || up_p)
			fault_sleep_ms(20);
	}
	inventory_endpoint_name(f->inv, &peer, pn, sizeof(pn));
	if (up_t || up_p) {
		snprintf(f->err, sizeof(f->err), "%s or its peer %s is still up", f->spec->target,
			 pn);
		return -EIO;
	}
	snprintf(f->evidence, sizeof(f->evidence), "operstate down on %s and on its peer %s",
		 f->spec->target, pn);
	return 0;
}

/* Flap until the count, --for or a signal ends it; the first down phase is already applied. */
static void live(struct fault_run *f)
{
	const struct fault_spec *s = f->spec;
	unsigned long long end =
	    s->for_ms ? rl_now_ns() + (unsigned long long)s->for_ms * 1000000ULL : ULLONG_MAX;
	int cycles = s->count ? s->count : (s->for_ms || s->hold) ? INT_MAX : 1;

	for (int c = 1; !rl_interrupted; c++) {
		fault_sleep_ms(s->down_ms);
		fault_run_actions(f, true);
		if (c >= cycles || rl_interrupted || rl_now_ns() >= end)
			break;
		rl_info("flap %u: cycle %d up", f->id, c);
		fault_sleep_ms(s->period_ms - s->down_ms);
		if (rl_interrupted || rl_now_ns() >= end)
			break;
		fault_run_actions(f, false);
	}
}

const struct fault_kind_ops fk_link_flap = {
    .name = "link-flap",
    .usage = "--target SWITCH:PORT | HOST:RNIC   (a flap starts with its down phase)",
    .targets = FT_PORT | FT_RNIC,
    .example = "rail2:swp6",
    .opts = opts,
    .defaults = defaults,
    .check = check,
    .plan_host = plan_host,
    .render = render,
    .discover = discover,
    .verify = verify,
    .live = live,
};
