/* SPDX-License-Identifier: MIT */
/* The routed plan of a two-tier lab: port addresses, routes, and hop-address-to-link mapping. */
#ifndef ROCELAB_TOPO_H
#define ROCELAB_TOPO_H

#include "harness/lib/inventory.h"

#include <stdint.h>

#define TOPO_FABRIC_POOL  "198.19.0.0/17"   /* auto /31s for switch-to-switch links */
#define TOPO_MGMT_DEFAULT "198.19.128.1/17" /* management bridge of a virtual lab */

/* A host's RNIC with 0-based index i routes through table (and rule pref) 100 + i + 1. */
#define TOPO_HOST_TABLE_BASE 100
#define topo_host_table(i)   ((unsigned)(TOPO_HOST_TABLE_BASE + (i) + 1))

struct topo_nexthop {
	struct in_addr gw;
	size_t port; /* switch port index the next hop is reached through */
};

struct topo_route {
	struct in_addr dst;
	int len;
	struct topo_nexthop *nh; /* none: a connected /32 on dev_port */
	size_t n_nh;
	size_t dev_port; /* for connected host routes */
};

struct topo_switch {
	bool edge;		      /* has hosts below it */
	struct inv_prefix *port_addr; /* per port; len < 0: no address */
	ssize_t *port_link;	      /* per port: link index or -1 */
	struct topo_route *routes;
	size_t n_routes;
};

struct topo {
	const struct inventory *inv; /* borrowed */
	struct topo_switch *sw;	     /* per inventory switch */
	struct inv_prefix mgmt;	     /* management bridge address */
	/* sorted address -> owner map for path tracing */
	struct topo_owner {
		uint32_t addr;
		struct inv_endpoint ep;
		bool any_port; /* a shared gateway: the device is known, the port is not */
	} * owners;
	size_t n_owners;
};

/*
 * Build the plan for inv.  Problems that make the lab unbuildable (not two
 * tier, explicit port addresses given on one end only, addresses outside
 * 198.18.0.0/15 when virtual is set) are printed to errf as file:line:col.
 * Returns a new topo (free with topo_free()) or NULL with errno EINVAL.
 */
struct topo *topo_build(const struct inventory *inv, bool virtual, FILE *errf);
void topo_free(struct topo *t);

/* Who answers from addr: a switch port, a switch (any_port), or a host RNIC. -ENOENT if nobody. */
int topo_owner(const struct topo *t, struct in_addr addr, struct inv_endpoint *ep, bool *any_port);

/* True when addr lies in 198.18.0.0/15, the only range virtual-lab traffic may use. */
bool topo_addr_is_lab(struct in_addr addr);

#endif
