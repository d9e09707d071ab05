// SPDX-License-Identifier: MIT
/* 'rocelab trace': the fabric path of a UDP 5-tuple between two RNICs. */
#define _GNU_SOURCE
#include "harness/cli/cli.h"

#include "harness/lib/out.h"
#include "harness/run/runner.h"
#include "probe/trace.h"

#include <arpa/inet.h>
#include <string.h>

static const char trace_help[] =
    "usage: rocelab trace FROM TO [--sport N] [--dport N] [--max-ttl N] [--timeout MS] [-j]\n"
    "Trace the fabric path of one UDP 5-tuple from RNIC FROM to RNIC TO (host:rnic) in\n"
    "the lab that is up, and name the inventory link each hop came in on.\n"
    "Defaults: --sport 49152 --dport 4791 (RoCEv2) --max-ttl 8 --timeout 300.\n";

static int trace_opt(int c, const char *arg, void *ctx)
{
	struct trace_req *t = ctx;
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg)
		v = -1;
	switch (c) {
	case 's':
	case 'd':
		if (v < 1 || v > 65535) {
			usage_error("port '%s' is not 1..65535", arg);
			return 1;
		}
		*(c == 's' ? &t->sport : &t->dport) = (uint16_t)v;
		return 0;
	case 't':
		if (v < 1 || v > TRACE_MAX_HOPS) {
			usage_error("--max-ttl '%s' is not 1..%d", arg, TRACE_MAX_HOPS);
			return 1;
		}
		t->max_ttl = (int)v;
		return 0;
	case 'w':
		if (v < 1 || v > 10000) {
			usage_error("--timeout '%s' is not 1..10000 ms", arg);
			return 1;
		}
		t->timeout_ms = (int)v;
		return 0;
	}
	return 1;
}

/* What stands behind a hop address: its device, the port facing us and that port's link. */
struct hop_names {
	const char *device;
	char port[80], link[170];
};

static void describe_hop(const struct inventory *inv, const struct topo *t,
			 const struct trace_hop *h, struct inv_endpoint *prev, struct hop_names *hn)
{
	struct inv_endpoint ep;
	bool any;

	*hn = (struct hop_names){0};
	if (!h->addr.s_addr || topo_owner(t, h->addr, &ep, &any))
		return;
	hn->device = inventory_device_name(inv, &ep);
	if (any) {
		/* A shared gateway: the port is the one facing the previous hop. */
		for (size_t i = 0; i < inv->n_links; i++) {
			const struct inv_link *l = &inv->links[i];
			const struct inv_endpoint *x = &l->a, *y = &l->b;

			for (int k = 0; k < 2; k++, x = &l->b, y = &l->a) {
				if (x->kind == ep.kind && x->dev == ep.dev &&
				    y->kind == prev->kind && y->dev == prev->dev &&
				    (y->kind != INV_DEV_HOST || y->port == prev->port)) {
					ep.port = x->port;
					any = false;
				}
			}
		}
	}
	if (!any) {
		const struct inv_link *l = inventory_link_at(inv, &ep);
		char an[80], bn[80];

		inventory_endpoint_name(inv, &ep, hn->port, sizeof(hn->port));
		if (l)
			snprintf(hn->link, sizeof(hn->link), "%s -- %s",
				 inventory_endpoint_name(inv, &l->a, an, 80),
				 inventory_endpoint_name(inv, &l->b, bn, 80));
	}
	*prev = ep;
}

int cmd_trace(int argc, char **argv)
{
	static const struct option extra[] = {
	    {"sport", required_argument, NULL, 's'},
	    {"dport", required_argument, NULL, 'd'},
	    {"max-ttl", required_argument, NULL, 't'},
	    {"timeout", required_argument, NULL, 'w'},
	    {0},
	};
	struct trace_req req = {
	    .sport = 49152, .dport = ROCEV2_UDP_PORT, .max_ttl = 8, .timeout_ms = 300};
	struct trace_hop hops[TRACE_MAX_HOPS];
	struct inv_endpoint from, to;
	struct opts o = {0};
	struct inventory *inv;
	struct topo *t;
	struct lab lab;
	char msg[160];
	int n = 0, saved, r = cli_parse_opts(argc, argv, &o, extra, trace_opt, &req);

	if (r)
		return r;
	if (o.help)
		return fputs(trace_help, stdout), 0;
	if (argc - optind != 2)
		return usage_error("trace: give FROM and TO as host:rnic");
	inv = cli_running_inventory();
	if (!inv)
		return RL_EXIT_SETUP;
	for (int k = 0; k < 2; k++) {
		struct inv_endpoint *ep = k ? &to : &from;

		if (inventory_endpoint(inv, argv[optind + k], ep, msg, sizeof(msg)) ||
		    ep->kind != INV_DEV_HOST) {
			usage_error("trace: %s", ep->kind != INV_DEV_HOST && !msg[0]
						     ? "FROM and TO must be host RNICs"
						     : msg);
			inventory_free(inv);
			return RL_EXIT_USAGE;
		}
		msg[0] = '\0';
	}
	t = topo_build(inv, true, stderr);
	if (!t) {
		inventory_free(inv);
		return RL_EXIT_USAGE;
	}
	req.src = inv->hosts[from.dev].rnics[from.port].addr.addr;
	req.dst = inv->hosts[to.dev].rnics[to.port].addr.addr;
	rl_signals_install();
	lab_open(&lab, inv);
	r = lab_enter(&lab, inv->hosts[from.dev].name, &saved);
	if (r == 0) {
		r = trace_udp(&req, hops, &n);
		lab_leave(&lab, saved);
	} else {
		rl_err("trace: cannot send from %s: %s", inv->hosts[from.dev].name, strerror(-r));
	}
	lab_close(&lab);

	struct inv_endpoint prev = from;
	struct out out;

	out_init(&out, stdout, o.json ? OUT_JSON : OUT_TEXT);
	out_open_object(&out, NULL);
	out_string(&out, PRINT_ANY, "from", "trace %s", argv[optind]);
	out_string(&out, PRINT_ANY, "to", " -> %s", argv[optind + 1]);
	out_uint(&out, PRINT_ANY, "sport", " udp sport %llu", req.sport);
	out_uint(&out, PRINT_ANY, "dport", " dport %llu\n", req.dport);
	out_bool(&out, PRINT_JSON, "reached", NULL, r == 0);
	out_open_array(&out, "hops");
	for (int i = 0; i < n; i++) {
		struct hop_names hn;

		describe_hop(inv, t, &hops[i], &prev, &hn);
		out_open_object(&out, NULL);
		out_int(&out, PRINT_ANY, "ttl", "%2lld", hops[i].ttl);
		if (hops[i].addr.s_addr)
			out_string(&out, PRINT_ANY, "address", "  %-15s", inet_ntoa(hops[i].addr));
		else
			out_null(&out, "address"), out_text(&out, "  %-15s", "*");
		out_float(&out, PRINT_JSON, "rtt_ms", NULL, 3, hops[i].rtt_ms);
		if (hn.device)
			out_string(&out, PRINT_ANY, "device", " %-8s", hn.device);
		else
			out_text(&out, " %-8s", "?");
		if (hn.port[0])
			out_string(&out, PRINT_JSON, "port", NULL, hn.port);
		if (hn.link[0])
			out_string(&out, PRINT_ANY, "link", " %s", hn.link);
		else
			out_text(&out, " ");
		out_text(&out, "\n");
		out_close(&out);
	}
	out_close(&out);
	out_text(&out, "%s\n", r == 0 ? "reached" : "not reached");
	out_close(&out);
	topo_free(t);
	inventory_free(inv);
	return r == 0 ? RL_EXIT_OK : RL_EXIT_FAIL;
}
