/* SPDX-License-Identifier: MIT */
/* Traced hop addresses to inventory links and switches, and canonical names of those elements. */
#ifndef ROCELAB_PATHMAP_H
#define ROCELAB_PATHMAP_H

#include "harness/lib/inventory.h"
#include "harness/lib/topo.h"
#include "probe/rec.h"

#include <stdint.h>

/*
 * The links a packet from RNIC src to RNIC dst crossed, given the addresses
 * that answered TTL 1..n_hops (0.0.0.0: no answer) and whether the
 * destination itself was reached right after the last hop.  Writes link
 * indexes (source RNIC's link first) to links[0..*n_links) and returns true
 * when the path is complete: every hop answered, each maps to a switch
 * cabled to the one before, and the last switch is cabled to dst.  An
 * incomplete path holds the links that are certain, from the source on.
 */
bool pathmap_links(const struct inventory *inv, const struct topo *t,
		   const struct inv_endpoint *src, const struct inv_endpoint *dst,
		   const struct in_addr *hops, int n_hops, bool reached, rec_link_t *links, int max,
		   int *n_links);

/* The link's canonical name, "a-dev:port--b-dev:port" in inventory order. */
const char *pathmap_link_name(const struct inventory *inv, size_t link, char *buf, size_t len);

/* Inventory link index of the link at endpoint ep, or -1. */
ssize_t pathmap_link_index(const struct inventory *inv, const struct inv_endpoint *ep);

/* FNV-1a fingerprint of the inventory's hosts, RNICs, switches, ports and links. */
uint64_t inventory_fingerprint(const struct inventory *inv);

#endif
