// SPDX-License-Identifier: MIT
/*
 * Traceroute hops onto the inventory's links (probe/pathmap.h), on the
 * built-in lab: each hop's address names its switch (and the port, when the
 * address is a port's), and the links between them come from the
 * endpoints' link index.
 */
#include "probe/pathmap.h"

#include <criterion/criterion.h>
#include <stdio.h>

static struct inventory *inv;
static struct topo *t;

static void load(void)
{
	inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	cr_assert_not_null(inv);
	t = topo_build(inv, true, stderr);
	cr_assert_not_null(t);
}

static void unload(void)
{
	topo_free(t);
	inventory_free(inv);
}

TestSuite(pathmap, .init = load, .fini = unload);

static struct inv_endpoint ep(const char *s)
{
	struct inv_endpoint e;
	char msg[160];

	cr_assert_eq(inventory_endpoint(inv, s, &e, msg, sizeof(msg)), 0, "%s", msg);
	return e;
}

/* The address a switch port carries (the hop a router answers from). */
static struct in_addr port_addr(const char *s)
{
	struct inv_endpoint e = ep(s);

	return t->sw[e.dev].port_addr[e.port].addr;
}

static ssize_t link_of(const char *s)
{
	struct inv_endpoint e = ep(s);

	return pathmap_link_index(inv, &e);
}

Test(pathmap, hops_through_a_spine_name_each_link)
{
	struct inv_endpoint src = ep("host1:rnic1"), dst = ep("host2:rnic2");
	/* rail1 (its gateway for host1), spine1 (its port to rail1), rail2 (its port to spine1) */
	struct in_addr hops[3] = {inv->hosts[0].rnics[0].gateway, port_addr("spine1:swp1"),
				  port_addr("rail2:swp5")};
	rec_link_t links[8];
	int n;

	cr_assert(pathmap_links(inv, t, &src, &dst, hops, 3, true, links, 8, &n));
	cr_assert_eq(n, 4);
	cr_assert_eq(links[0], link_of("host1:rnic1"));
	cr_assert_eq(links[1], link_of("rail1:swp5"), "rail1 -- spine1");
	cr_assert_eq(links[2], link_of("rail2:swp5"), "spine1 -- rail2");
	cr_assert_eq(links[3], link_of("host2:rnic2"));
	/* a hop that is no switch of the lab, or a route the cabling does not have */
	hops[1].s_addr = htonl(0xc6130000u | 0x7777);
	cr_assert_not(pathmap_links(inv, t, &src, &dst, hops, 3, true, links, 8, &n));
	hops[1] = port_addr("spine2:swp1");
	cr_assert_not(pathmap_links(inv, t, &src, &dst, hops, 3, true, links, 8, &n),
		      "spine2's port to rail1, then rail2's port to spine1: no such cabling");
	/* not reached: what was traced is not a whole path */
	hops[1] = port_addr("spine1:swp1");
	cr_assert_not(pathmap_links(inv, t, &src, &dst, hops, 3, false, links, 8, &n));
}

Test(pathmap, a_gateway_hop_names_the_switch_on_any_port)
{
	/* host1:rnic1 -> host2:rnic1, both under rail1: one hop, rail1's gateway */
	struct inv_endpoint src = ep("host1:rnic1"), dst = ep("host2:rnic1");
	struct in_addr hops[1] = {inv->hosts[1].rnics[0].gateway};
	rec_link_t links[8];
	int n;

	cr_assert(pathmap_links(inv, t, &src, &dst, hops, 1, true, links, 8, &n));
	cr_assert_eq(n, 2);
	cr_assert_eq(links[0], link_of("host1:rnic1"));
	cr_assert_eq(links[1], link_of("host2:rnic1"));
}
