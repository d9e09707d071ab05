// SPDX-License-Identifier: MIT
/* Mapping traceroute hops onto the inventory's links. */
#include "probe/pathmap.h"

#include "harness/lib/common.h"

#include <string.h>

ssize_t pathmap_link_index(const struct inventory *inv, const struct inv_endpoint *ep)
{
	const struct inv_link *l = inventory_link_at(inv, ep);

	return l ? l - inv->links : -1;
}

/* A link between switch a and device b (b's port when known, else any: the first in inventory
 * order), through the endpoints' link index. */
static ssize_t link_between(const struct inventory *inv, size_t a, const struct inv_endpoint *b,
			    bool b_port_known)
{
	ssize_t best = -1;

	if (b_port_known) {
		ssize_t l = pathmap_link_index(inv, b);
		const struct inv_endpoint *x =
		    l >= 0 ? inv_link_other_end(&inv->links[l], b) : NULL;

		return x && x->kind == INV_DEV_SWITCH && x->dev == a ? l : -1;
	}
	for (size_t p = 0; p < inv->switches[a].n_ports; p++) {
		struct inv_endpoint x = {INV_DEV_SWITCH, a, p};
		ssize_t l = pathmap_link_index(inv, &x);
		const struct inv_endpoint *y =
		    l >= 0 ? inv_link_other_end(&inv->links[l], &x) : NULL;

		if (y && y->kind == b->kind && y->dev == b->dev && (best < 0 || l < best))
			best = l;
	}
	return best;
}

bool pathmap_links(const struct inventory *inv, const struct topo *t,
		   const struct inv_endpoint *src, const struct inv_endpoint *dst,
		   const struct in_addr *hops, int n_hops, bool reached, rec_link_t *links, int max,
		   int *n_links)
{
	struct inv_endpoint first, prev;
	ssize_t l = pathmap_link_index(inv, src);

	*n_links = 0;
	/* Records name a link in 32 bits (probe/rec.h): on a lab of more links, a path that
	 * crosses one past them is left untraced, never named for another. */
	if (l < 0 || l >= REC_NO_LINK || inventory_peer(inv, src, &first) ||
	    first.kind != INV_DEV_SWITCH || max < 1)
		return false;
	links[(*n_links)++] = (rec_link_t)l;
	prev = first;
	for (int k = 0; k < n_hops; k++) {
		struct inv_endpoint ep;
		bool any_port = false;

		if (!hops[k].s_addr || topo_owner(t, hops[k], &ep, &any_port) ||
		    ep.kind != INV_DEV_SWITCH)
			return false;
		if (k == 0) {
			if (ep.dev != first.dev)
				return false;
			continue;
		}
		l = link_between(inv, prev.dev, &ep, !any_port);
		if (l < 0 || l >= REC_NO_LINK || *n_links >= max)
			return false;
		links[(*n_links)++] = (rec_link_t)l;
		prev = ep;
	}
	if (!reached || n_hops < 1 || *n_links >= max)
		return false;
	l = pathmap_link_index(inv, dst);
	if (l < 0 || l >= REC_NO_LINK)
		return false;
	{
		const struct inv_endpoint *o = inv_link_other_end(&inv->links[l], dst);

		if (o->kind != INV_DEV_SWITCH || o->dev != prev.dev)
			return false;
	}
	links[(*n_links)++] = (rec_link_t)l;
	return true;
}

const char *pathmap_link_name(const struct inventory *inv, size_t link, char *buf, size_t len)
{
	char a[80], b[80];

	if (link >= inv->n_links) {
		snprintf(buf, len, "link#%zu", link);
		return buf;
	}
	snprintf(buf, len, "%s--%s",
		 inventory_endpoint_name(inv, &inv->links[link].a, a, sizeof(a)),
		 inventory_endpoint_name(inv, &inv->links[link].b, b, sizeof(b)));
	return buf;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t fnv_s(uint64_t h, const char *s)
{
	return fnv(h, s, strlen(s) + 1);
}

uint64_t inventory_fingerprint(const struct inventory *inv)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < inv->n_hosts; i++) {
		h = fnv_s(h, inv->hosts[i].name);
		for (size_t r = 0; r < inv->hosts[i].n_rnics; r++) {
			h = fnv_s(h, inv->hosts[i].rnics[r].name);
			h = fnv(h, &inv->hosts[i].rnics[r].addr.addr, 4);
		}
	}
	for (size_t s = 0; s < inv->n_switches; s++) {
		h = fnv_s(h, inv->switches[s].name);
		for (size_t p = 0; p < inv->switches[s].n_ports; p++)
			h = fnv_s(h, inv->switches[s].ports[p].name);
	}
	for (size_t l = 0; l < inv->n_links; l++) {
		const struct inv_endpoint *e[2] = {&inv->links[l].a, &inv->links[l].b};

		for (int i = 0; i < 2; i++) {
			uint64_t v[3] = {(uint64_t)e[i]->kind, e[i]->dev, e[i]->port};

			h = fnv(h, v, sizeof(v));
		}
	}
	return h;
}
