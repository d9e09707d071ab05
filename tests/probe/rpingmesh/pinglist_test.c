// SPDX-License-Identifier: MIT
/*
 * R-Pingmesh's pinglists on the built-in lab (../shared/briefs/r-pingmesh.md
 * F.2): 3 ToR-mesh and 9 inter-ToR targets an RNIC, none on its own host,
 * 3 inter-ToR with one a ToR; Eq. (1)'s source ports; tenants respected;
 * the same seed the same lists.
 */
#include "probe/rpingmesh/pinglist.h"

#include "harness/lib/invgen.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct inventory *inv;

static void load(void)
{
	inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	cr_assert_not_null(inv);
}

static void unload(void)
{
	inventory_free(inv);
}

TestSuite(pinglist, .init = load, .fini = unload);

Test(pinglist, eq1_covers_the_ecmp_paths)
{
	cr_assert_eq(rpm_sports_for(4, 0.9), 13);
	cr_assert_eq(rpm_sports_for(8, 0.9), 33);
	cr_assert_eq(rpm_sports_for(16, 0.9), RPM_SPORTS_MAX, "78, capped");
	cr_assert_eq(rpm_sports_for(1, 0.9), 1, "one path, one tuple");
	cr_assert_eq(rpm_sports_for(0, 0.9), 1);
	cr_assert_eq(rpm_sports_for(2, 0.5), 2);
	cr_assert_lt(rpm_sports_for(4, 0.5), rpm_sports_for(4, 0.99));
}

/* How many targets of list each RNIC of host h has; every target's checks. */
static void count(const struct rpm_pinglist *pl, size_t h, unsigned *tor, unsigned *inter)
{
	memset(tor, 0, 4 * sizeof(*tor));
	memset(inter, 0, 4 * sizeof(*inter));
	for (size_t i = 0; i < pl->n; i++) {
		const struct rpm_target *t = &pl->t[i];

		cr_assert_neq(t->host, h, "never an RNIC of its own host");
		if (t->list == RPM_TOR_MESH) {
			tor[t->src_rnic]++;
			cr_assert_eq(t->rnic, t->src_rnic, "under one rail switch: the same rail");
			cr_assert_eq(t->paths, 1);
			cr_assert_eq(t->n_sports, 1);
		} else {
			inter[t->src_rnic]++;
			cr_assert_neq(t->rnic, t->src_rnic, "another rail switch: another rail");
			cr_assert_eq(t->paths, 4, "the four spines between two rail switches");
			cr_assert_eq(t->n_sports, 13, "Eq. (1) at m = 4, p = 0.9");
		}
		for (unsigned a = 0; a < t->n_sports; a++) {
			cr_assert_geq(t->sports[a], RPM_SPORT_LO);
			for (unsigned b = 0; b < a; b++)
				cr_assert_neq(t->sports[a], t->sports[b], "distinct source ports");
		}
	}
}

Test(pinglist, on_the_built_in_lab_3_tor_mesh_and_9_inter_tor_targets)
{
	struct rpm_pl_cfg c;
	struct rpm_pinglist pl;
	unsigned tor[4], inter[4];

	rpm_pl_cfg_default(&c);
	for (size_t h = 0; h < inv->n_hosts; h++) {
		cr_assert_eq(rpm_pinglist(inv, h, &c, &pl), 0);
		cr_assert_eq(pl.n, 4 * (3 + 9));
		count(&pl, h, tor, inter);
		for (int r = 0; r < 4; r++) {
			cr_assert_eq(tor[r], 3, "host%zu:rnic%d", h + 1, r + 1);
			cr_assert_eq(inter[r], 9);
		}
		/* the RNIC's ToR-mesh first, in inventory order */
		cr_assert_eq(pl.t[0].list, RPM_TOR_MESH);
		cr_assert_eq(pl.t[0].host, h == 0 ? 1 : 0);
		rpm_pinglist_free(&pl);
	}
	cr_assert_eq(rpm_pinglist(inv, inv->n_hosts, &c, &pl), -ENOENT);
	cr_assert_eq(rpm_tor_of(inv, 0, 2), (int)(inventory_switch(inv, "rail3") - inv->switches));
}

Test(pinglist, one_a_tor_and_a_fixed_number_of_ports)
{
	struct rpm_pl_cfg c;
	struct rpm_pinglist pl;
	unsigned tor[4], inter[4], rails[4][5] = {{0}};

	rpm_pl_cfg_default(&c);
	c.inter_tor_per_tor = 1;
	cr_assert_eq(rpm_pinglist(inv, 1, &c, &pl), 0);
	count(&pl, 1, tor, inter);
	for (int r = 0; r < 4; r++) {
		cr_assert_eq(tor[r], 3);
		cr_assert_eq(inter[r], 3, "one of each of the three other rail switches");
	}
	for (size_t i = 0; i < pl.n; i++)
		if (pl.t[i].list == RPM_INTER_TOR)
			rails[pl.t[i].src_rnic][pl.t[i].rnic + 1]++;
	for (int r = 0; r < 4; r++)
		for (int q = 1; q <= 4; q++)
			cr_assert_eq(rails[r][q], q == r + 1 ? 0 : 1);
	rpm_pinglist_free(&pl);
	c.inter_tor_per_tor = 0;
	c.sports = 6;
	cr_assert_eq(rpm_pinglist(inv, 1, &c, &pl), 0);
	for (size_t i = 0; i < pl.n; i++)
		cr_assert_eq(pl.t[i].n_sports, 6);
	rpm_pinglist_free(&pl);
}

Test(pinglist, same_host_pairs_only_when_asked)
{
	struct rpm_pl_cfg c;
	struct rpm_pinglist pl;
	size_t own = 0;

	rpm_pl_cfg_default(&c);
	c.same_host = true;
	cr_assert_eq(rpm_pinglist(inv, 0, &c, &pl), 0);
	for (size_t i = 0; i < pl.n; i++) {
		own += pl.t[i].host == 0;
		cr_assert(pl.t[i].host != 0 || pl.t[i].rnic != pl.t[i].src_rnic, "never itself");
	}
	cr_assert_eq(own, 4 * 3, "each RNIC the host's three others, through the spines");
	cr_assert_eq(pl.n, 4 * (3 + 12));
	rpm_pinglist_free(&pl);
}

/* Two runs' lists equal, target by target and port by port? */
static bool same(const struct rpm_pinglist *a, const struct rpm_pinglist *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->t[i].host != b->t[i].host || a->t[i].rnic != b->t[i].rnic ||
		    a->t[i].n_sports != b->t[i].n_sports ||
		    memcmp(a->t[i].sports, b->t[i].sports, a->t[i].n_sports * sizeof(uint16_t)))
			return false;
	return true;
}

Test(pinglist, the_seed_alone_decides)
{
	struct rpm_pl_cfg c;
	struct rpm_pinglist a, b;

	rpm_pl_cfg_default(&c);
	c.inter_tor_per_tor = 1;
	cr_assert_eq(rpm_pinglist(inv, 2, &c, &a), 0);
	cr_assert_eq(rpm_pinglist(inv, 2, &c, &b), 0);
	cr_assert(same(&a, &b), "the same seed, the same lists");
	rpm_pinglist_free(&b);
	c.seed = 2;
	cr_assert_eq(rpm_pinglist(inv, 2, &c, &b), 0);
	cr_assert_not(same(&a, &b), "another seed, other picks or ports");
	rpm_pinglist_free(&a);
	rpm_pinglist_free(&b);
}

Test(pinglist, tenants_keep_their_pinglists_apart)
{
	FILE *f = fopen("../lab-inventory/vlab-rail.yaml", "r");
	char *text = calloc(1, 65536);
	size_t n;
	struct inventory *t;
	struct rpm_pl_cfg c;
	struct rpm_pinglist pl;

	cr_assert(f && text);
	n = fread(text, 1, 65536 - 512, f);
	fclose(f);
	/* hosts 1 and 2 one tenant, hosts 3 and 4 another; host4:rnic4 in none */
	n +=
	    (size_t)snprintf(text + n, 512,
			     "tenants:\n"
			     "  - { name: a, members: [host1:rnic1, host1:rnic2, host2:rnic1, "
			     "host2:rnic2, host2:rnic3] }\n"
			     "  - { name: b, members: [host3:rnic1, host4:rnic1, host4:rnic2] }\n");
	t = inventory_parse("tenants.yaml", text, n, stderr);
	cr_assert_not_null(t);
	rpm_pl_cfg_default(&c);
	cr_assert_eq(rpm_pinglist(t, 0, &c, &pl), 0);
	/* host1:rnic1 -> host2:rnic1 (ToR-mesh), host2:rnic2, host2:rnic3 (inter-ToR); rnic2 alike
	 */
	cr_assert_eq(pl.n, 6);
	for (size_t i = 0; i < pl.n; i++)
		cr_assert_eq(pl.t[i].host, 1, "only tenant a's other host");
	rpm_pinglist_free(&pl);
	cr_assert_eq(rpm_pinglist(t, 3, &c, &pl), 0);
	/* host4:rnic1 -> host3:rnic1; host4:rnic2 -> host3:rnic1; host4:rnic3, rnic4: none */
	cr_assert_eq(pl.n, 2);
	rpm_pinglist_free(&pl);
	inventory_free(t);
	free(text);
}

/*
 * At scale (issue 59) a few picks of each other ToR are drawn without the
 * ToR's list of candidates; they are the picks the list gives.  A live list
 * of every host takes the list's way: the same lab, seed and picks.
 */
Test(pinglist, picks_drawn_without_the_list_are_the_lists)
{
	struct invgen_opts g = {
	    .name = "wide", .hosts = 12, .rnics = 2, .spines = 3, .pods = 3, .speed = "100g"};
	struct inventory *w = invgen_inventory(&g, stderr);
	bool *live;

	cr_assert_not_null(w);
	live = calloc(w->n_hosts, sizeof(*live));
	for (size_t h = 0; h < w->n_hosts; h++)
		live[h] = true;
	struct rpm_fabric *fab = rpm_fabric_new(w);

	for (unsigned per = 1; per <= 13; per += 4) /* 13: more than a ToR holds */
		for (int same_host = 0; same_host < 2; same_host++)
			for (size_t h = 0; h < w->n_hosts; h += 5) {
				struct rpm_pl_cfg c;
				struct rpm_pinglist lazy, list, each;

				rpm_pl_cfg_default(&c);
				c.inter_tor_per_tor = per, c.same_host = same_host,
				c.seed = 5 + per;
				c.sports = 2; /* the picks are the question here */
				cr_assert_eq(rpm_pinglist_on(fab, h, &c, &lazy), 0);
				cr_assert_eq(rpm_pinglist(w, h, &c, &each), 0);
				c.live = live;
				cr_assert_eq(rpm_pinglist_on(fab, h, &c, &list), 0);
				cr_assert_gt(lazy.n, 0);
				cr_assert(same(&lazy, &list), "per %u, same-host %d, host %zu", per,
					  same_host, h);
				cr_assert(same(&lazy, &each), "a fabric per call or one for all");
				rpm_pinglist_free(&lazy);
				rpm_pinglist_free(&list);
				rpm_pinglist_free(&each);
			}
	rpm_fabric_free(fab);
	free(live);
	inventory_free(w);
}
