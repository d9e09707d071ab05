// SPDX-License-Identifier: MIT
/* A containerlab topology as an inventory: whole when the topology says all, else told where. */
#define _GNU_SOURCE
#include "harness/lib/clabimport.h"
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Tests run from tests/. */
#define CLAB "harness/lib/clab"

struct imported {
	int r;
	char *out, *err;
	size_t n_out, n_err;
};

static struct imported import(const char *path)
{
	struct imported m = {0};
	FILE *out = open_memstream(&m.out, &m.n_out), *err = open_memstream(&m.err, &m.n_err);

	cr_assert(out && err);
	m.r = clab_import(path, out, err);
	fclose(out);
	fclose(err);
	return m;
}

static void done(struct imported *m)
{
	free(m->out);
	free(m->err);
}

Test(clabimport, a_whole_topology_is_an_inventory_that_checks)
{
	struct imported m = import(CLAB "/rail.clab.yml");
	struct inventory *inv;

	cr_assert_eq(m.r, 0, "%s", m.err);
	cr_assert_str_empty(m.err);
	inv = inventory_parse("imported.yaml", m.out, m.n_out, stderr);
	cr_assert_not_null(inv, "%s", m.out);
	cr_assert_eq(inv->kind, INV_LAB_SSH);
	cr_assert_str_eq(inv->name, "clab-rail");
	cr_assert_eq(inv->n_hosts, 2);
	cr_assert_eq(inv->n_switches, 3);
	cr_assert_eq(inv->n_links, 6);
	/* kinds to dialects; a switch with hosts on it a rail, the others spines */
	cr_assert_eq(inv->switches[0].dialect, INV_DIALECT_SONIC);
	cr_assert_eq(inv->switches[1].dialect, INV_DIALECT_EOS);
	cr_assert_eq(inv->switches[2].dialect, INV_DIALECT_NVUE);
	cr_assert_eq(inv->switches[1].role, INV_ROLE_RAIL);
	cr_assert_eq(inv->switches[2].role, INV_ROLE_SPINE);
	/* RNICs from the hosts' cables, addresses from their exec lines (three spellings) */
	cr_assert(
	    strstr(m.out,
		   "      - { name: rnic2, netdev: eth2, rail: 2, address: 198.18.2.2/24 }\n"),
	    "%s", m.out);
	cr_assert(strstr(m.out, "  - { a: host2:rnic2, b: rail2:eth2 }\n"), "%s", m.out);
	/* the controller: the management subnet's gateway */
	cr_assert(strstr(m.out, "\ncontroller: 172.30.30.1\n"), "%s", m.out);
	inventory_free(inv);
	done(&m);
}

Test(clabimport, what_the_topology_does_not_say_is_told_in_file_order)
{
	struct imported m = import(CLAB "/rough.clab.yml");
	const char *want[] = {
	    ":7:5: node leaf2: kind 'nokia_srlinux' is not one rocelab drives",
	    ":8:5: node spine1: no mgmt-ipv4",
	    ":11:5: node br0: kind 'bridge' is not one rocelab drives",
	    ":12:5: node name 'bad name!' is not a name an inventory takes",
	    ":15:7: h2:eth1: no address",
	    ":19:30: endpoint 'host:h1-eth3': host is no node",
	    ":20:7: a link needs 'endpoints' with two ends",
	    ":21:19: endpoint of leaf1: interface 'eth\"; rm -rf /' is not a port name",
	};
	const char *at = m.err;

	cr_assert_eq(m.r, 8, "%s", m.err);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const char *p = strstr(at, want[i]);

		cr_assert_not_null(p, "'%s' not in order in:\n%s", want[i], m.err);
		at = p + 1;
	}
	/* written where it goes, for a person to fill in; nothing of a bad name copied */
	cr_assert(strstr(m.out, "rail: 1 }  # no address in the topology: add one\n"), "%s", m.out);
	cr_assert(strstr(m.out, "    # mgmt: (not in the topology)\n"), "%s", m.out);
	cr_assert_null(strstr(m.out, "rm -rf"));
	cr_assert_null(strstr(m.out, "bad name"));
	cr_assert_null(strstr(m.out, "leaf2"));
	done(&m);
}

Test(clabimport, what_is_not_a_topology_is_refused_and_nothing_written)
{
	struct imported m = import("../lab-inventory/vlab-rail.yaml");

	cr_assert_eq(m.r, -EINVAL);
	cr_assert(strstr(m.err, "not a containerlab topology"), "%s", m.err);
	cr_assert_eq(m.n_out, 0);
	done(&m);
	m = import(CLAB "/no-such.clab.yml");
	cr_assert_eq(m.r, -ENOENT);
	done(&m);
}

Test(clabimport, a_topology_with_an_alias_is_refused_where_it_is)
{
	struct imported m = import(CLAB "/alias.clab.yml");

	cr_assert_eq(m.r, -EINVAL);
	cr_assert(strstr(m.err, "alias.clab.yml:6:"), "%s", m.err);
	cr_assert_eq(m.n_out, 0);
	done(&m);
}
