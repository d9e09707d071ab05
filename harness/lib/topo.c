// SPDX-License-Identifier: MIT
/* Computes the routed plan of a two-tier (rail/leaf + spine) lab from its inventory. */
#define _GNU_SOURCE
#include "harness/lib/topo.h"

#include "harness/lib/common.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

bool topo_addr_is_lab(struct in_addr addr)
{
	return (ntohl(addr.s_addr) & 0xfffe0000u) == 0xc6120000u; /* 198.18.0.0/15 */
}

static void err_at(const struct inventory *inv, FILE *errf, struct inv_loc l, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void err_at(const struct inventory *inv, FILE *errf, struct inv_loc l, const char *fmt, ...)
{
	va_list ap;

	if (!errf)
		return;
	fprintf(errf, "%s:%u:%u: ", inv->path, l.line, l.col);
	va_start(ap, fmt);
	vfprintf(errf, fmt, ap);
	va_end(ap);
	fputc('\n', errf);
}

static int owner_cmp(const void *a, const void *b)
{
	const struct topo_owner *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void add_owner(struct topo *t, struct in_addr a, struct inv_endpoint ep, bool any_port)
{
	struct topo_owner *o = RL_PUSH(t->owners, t->n_owners);

	o->addr = ntohl(a.s_addr);
	o->ep = ep;
	o->any_port = any_port;
}

static bool check_lab_addrs(const struct inventory *inv, const struct topo *t, FILE *errf)
{
	bool ok = true;

	for (size_t h = 0; h < inv->n_hosts; h++) {
		for (size_t r = 0; r < inv->hosts[h].n_rnics; r++) {
			const struct inv_rnic *rn = &inv->hosts[h].rnics[r];

			if (!topo_addr_is_lab(rn->addr.addr)) {
				err_at(inv, errf, rn->loc,
				       "RNIC %s:%s address %s is outside 198.18.0.0/15, the only "
				       "range "
				       "a virtual lab may use",
				       inv->hosts[h].name, rn->name, inet_ntoa(rn->addr.addr));
				ok = false;
			}
		}
		if (inv->hosts[h].has_mgmt && !topo_addr_is_lab(inv->hosts[h].mgmt)) {
			err_at(inv, errf, inv->hosts[h].loc,
			       "management address of host '%s' is outside 198.18.0.0/15",
			       inv->hosts[h].name);
			ok = false;
		}
	}
	uint32_t mnet = ntohl(t->mgmt.addr.s_addr) & (0xffffffffu << (32 - t->mgmt.len));

	for (size_t s = 0; s < inv->n_switches; s++) {
		const struct inv_switch *sw = &inv->switches[s];
		uint32_t a = ntohl(sw->mgmt.s_addr);

		if (!topo_addr_is_lab(sw->mgmt) ||
		    (a & (0xffffffffu << (32 - t->mgmt.len))) != mnet) {
			err_at(inv, errf, sw->loc,
			       "management address %s of switch '%s' must lie in the management "
			       "network %s/%d (inside 198.18.0.0/15)",
			       inet_ntoa(sw->mgmt), sw->name, inet_ntoa(t->mgmt.addr), t->mgmt.len);
			ok = false;
		}
		if (sw->ssh.auth == INV_AUTH_AGENT || sw->ssh.auth == INV_AUTH_KEY_FILE) {
			/* Allowed, but the virtual lab's sshd only trusts the lab key. */
			err_at(
			    inv, errf, sw->loc,
			    "switch '%s': a virtual lab's sshd accepts only 'credential: lab-key'",
			    sw->name);
			ok = false;
		}
		for (size_t p = 0; p < sw->n_ports; p++) {
			if (strchr(sw->ports[p].name, '/')) {
				err_at(inv, errf, sw->ports[p].loc,
				       "port '%s' of '%s': a virtual lab's ports are netdevs, so "
				       "their "
				       "names cannot hold '/'",
				       sw->ports[p].name, sw->name);
				ok = false;
			}
			if (sw->ports[p].has_addr && !topo_addr_is_lab(sw->ports[p].addr.addr)) {
				err_at(inv, errf, sw->ports[p].loc,
				       "port address of %s:%s is outside 198.18.0.0/15", sw->name,
				       sw->ports[p].name);
				ok = false;
			}
		}
	}
	return ok;
}

struct topo *topo_build(const struct inventory *inv, bool virtual, FILE *errf)
{
	struct topo *t = rl_xcalloc(1, sizeof(*t));
	uint32_t pool = ntohl(inet_addr("198.19.0.0"));
	size_t n_auto = 0;
	bool ok = true;

	t->inv = inv;
	t->mgmt = inventory_management(inv);
	t->sw = rl_xcalloc(inv->n_switches, sizeof(*t->sw));
	for (size_t s = 0; s < inv->n_switches; s++) {
		struct topo_switch *ts = &t->sw[s];

		ts->port_addr = rl_xcalloc(inv->switches[s].n_ports, sizeof(*ts->port_addr));
		ts->port_link = rl_xcalloc(inv->switches[s].n_ports, sizeof(*ts->port_link));
		for (size_t p = 0; p < inv->switches[s].n_ports; p++) {
			ts->port_addr[p].len = -1;
			ts->port_link[p] = -1;
		}
	}

	/* Pass 1: which switches are edges, and which port carries which link. */
	for (size_t i = 0; i < inv->n_links; i++) {
		struct inv_link *l = &inv->links[i];
		struct inv_endpoint *e[2] = {&l->a, &l->b};

		for (int k = 0; k < 2; k++) {
			if (e[k]->kind != INV_DEV_SWITCH)
				continue;
			t->sw[e[k]->dev].port_link[e[k]->port] = (ssize_t)i;
			if (e[!k]->kind == INV_DEV_HOST)
				t->sw[e[k]->dev].edge = true;
		}
	}

	/* Pass 2: addresses. Host-facing ports carry the RNIC's gateway as a /32. */
	for (size_t i = 0; i < inv->n_links; i++) {
		struct inv_link *l = &inv->links[i];

		if (l->a.kind == INV_DEV_HOST || l->b.kind == INV_DEV_HOST) {
			struct inv_endpoint *h = l->a.kind == INV_DEV_HOST ? &l->a : &l->b;
			const struct inv_endpoint *s = inv_link_other_end(l, h);
			const struct inv_rnic *rn = &inv->hosts[h->dev].rnics[h->port];

			t->sw[s->dev].port_addr[s->port] = (struct inv_prefix){rn->gateway, 32};
			add_owner(t, rn->gateway, *s, true);
			add_owner(t, rn->addr.addr, *h, false);
			continue;
		}
		const struct inv_switch *sa = &inv->switches[l->a.dev],
					*sb = &inv->switches[l->b.dev];
		const struct inv_port *pa = &sa->ports[l->a.port], *pb = &sb->ports[l->b.port];

		if (t->sw[l->a.dev].edge == t->sw[l->b.dev].edge) {
			err_at(
			    inv, errf, l->loc,
			    "link %s:%s -- %s:%s joins two %s switches: a virtual lab is two-tier "
			    "(host-facing switches below, spines above)",
			    sa->name, pa->name, sb->name, pb->name,
			    t->sw[l->a.dev].edge ? "host-facing" : "spine");
			ok = false;
			continue;
		}
		if (pa->has_addr != pb->has_addr) {
			err_at(inv, errf, l->loc,
			       "give addresses on both ends of link %s:%s -- %s:%s, or on neither",
			       sa->name, pa->name, sb->name, pb->name);
			ok = false;
			continue;
		}
		if (pa->has_addr) {
			t->sw[l->a.dev].port_addr[l->a.port] = pa->addr;
			t->sw[l->b.dev].port_addr[l->b.port] = pb->addr;
		} else {
			if (n_auto >= 16384) {
				err_at(inv, errf, l->loc,
				       "more switch links than the %s pool holds",
				       TOPO_FABRIC_POOL);
				ok = false;
				continue;
			}
			uint32_t base = pool + 2 * (uint32_t)n_auto++;

			t->sw[l->a.dev].port_addr[l->a.port] =
			    (struct inv_prefix){{htonl(base)}, 31};
			t->sw[l->b.dev].port_addr[l->b.port] =
			    (struct inv_prefix){{htonl(base + 1)}, 31};
		}
		add_owner(t, t->sw[l->a.dev].port_addr[l->a.port].addr, l->a, false);
		add_owner(t, t->sw[l->b.dev].port_addr[l->b.port].addr, l->b, false);
	}

	/* Pass 3: routes. Edges: /32 per attached RNIC + ECMP default over uplinks.
	 * Spines: per RNIC, ECMP over every port whose peer is that RNIC's edge switch. */
	for (size_t s = 0; s < inv->n_switches && ok; s++) {
		struct topo_switch *ts = &t->sw[s];
		const struct inv_switch *sw = &inv->switches[s];

		if (ts->edge) {
			struct topo_route *def = NULL;

			for (size_t p = 0; p < sw->n_ports; p++) {
				if (ts->port_link[p] < 0)
					continue;
				const struct inv_link *l = &inv->links[ts->port_link[p]];
				struct inv_endpoint self = {INV_DEV_SWITCH, s, p};
				const struct inv_endpoint *peer = inv_link_other_end(l, &self);

				if (peer->kind == INV_DEV_HOST) {
					struct topo_route *r = RL_PUSH(ts->routes, ts->n_routes);

					r->dst = inv->hosts[peer->dev].rnics[peer->port].addr.addr;
					r->len = 32;
					r->dev_port = p;
					continue;
				}
				if (!def) {
					def = RL_PUSH(ts->routes, ts->n_routes);
					def->len = 0;
				}
				struct topo_nexthop *nh = RL_PUSH(def->nh, def->n_nh);

				nh->gw = t->sw[peer->dev].port_addr[peer->port].addr;
				nh->port = p;
			}
			continue;
		}
		/* The spine's ports by the switch at their far end (CSR: ports of switch d at
		 * by_peer[first[d]] .. by_peer[first[d + 1]]), so each RNIC's route looks at the
		 * ports to its edge only. */
		size_t *first = rl_xcalloc(inv->n_switches + 1, sizeof(*first));
		size_t *by_peer = rl_xcalloc(sw->n_ports ? sw->n_ports : 1, sizeof(*by_peer));

		for (int pass = 0; pass < 2; pass++) {
			size_t *fill = pass ? rl_xcalloc(inv->n_switches, sizeof(*fill)) : NULL;

			for (size_t p = 0; p < sw->n_ports; p++) {
				if (ts->port_link[p] < 0)
					continue;
				struct inv_endpoint self = {INV_DEV_SWITCH, s, p};
				const struct inv_endpoint *peer =
				    inv_link_other_end(&inv->links[ts->port_link[p]], &self);

				if (peer->kind != INV_DEV_SWITCH)
					continue;
				if (!pass)
					first[peer->dev + 1]++;
				else
					by_peer[first[peer->dev] + fill[peer->dev]++] = p;
			}
			if (!pass)
				for (size_t d = 0; d < inv->n_switches; d++)
					first[d + 1] += first[d];
			free(fill);
		}
		for (size_t h = 0; h < inv->n_hosts; h++) {
			for (size_t r = 0; r < inv->hosts[h].n_rnics; r++) {
				struct inv_endpoint hep = {INV_DEV_HOST, h, r};
				const struct inv_link *hl = inventory_link_at(inv, &hep);
				struct topo_route *rt = NULL;

				if (!hl)
					continue;
				const struct inv_endpoint *edge =
				    (hl->a.kind == INV_DEV_HOST) ? &hl->b : &hl->a;

				for (size_t k = first[edge->dev]; k < first[edge->dev + 1]; k++) {
					size_t p = by_peer[k];
					struct inv_endpoint self = {INV_DEV_SWITCH, s, p};
					const struct inv_endpoint *peer = inv_link_other_end(
					    &inv->links[ts->port_link[p]], &self);

					if (!rt) {
						rt = RL_PUSH(ts->routes, ts->n_routes);
						rt->dst = inv->hosts[h].rnics[r].addr.addr;
						rt->len = 32;
					}
					struct topo_nexthop *nh = RL_PUSH(rt->nh, rt->n_nh);

					nh->gw = t->sw[peer->dev].port_addr[peer->port].addr;
					nh->port = p;
				}
			}
		}
		free(first);
		free(by_peer);
	}
	if (ok && virtual)
		ok = check_lab_addrs(inv, t, errf);
	if (!ok) {
		topo_free(t);
		errno = EINVAL;
		return NULL;
	}
	rl_sort(t->owners, t->n_owners, sizeof(*t->owners), owner_cmp);
	return t;
}

int topo_owner(const struct topo *t, struct in_addr addr, struct inv_endpoint *ep, bool *any_port)
{
	struct topo_owner key = {.addr = ntohl(addr.s_addr)};
	const struct topo_owner *o =
	    bsearch(&key, t->owners, t->n_owners, sizeof(*t->owners), owner_cmp);

	if (!o)
		return -ENOENT;
	*ep = o->ep;
	if (any_port)
		*any_port = o->any_port;
	return 0;
}

void topo_free(struct topo *t)
{
	if (!t)
		return;
	for (size_t s = 0; s < t->inv->n_switches; s++) {
		for (size_t r = 0; r < t->sw[s].n_routes; r++)
			free(t->sw[s].routes[r].nh);
		free(t->sw[s].routes);
		free(t->sw[s].port_addr);
		free(t->sw[s].port_link);
	}
	free(t->sw);
	free(t->owners);
	free(t);
}
