// SPDX-License-Identifier: MIT
/* Targets by role: what each role matches in an inventory, and the seeded picks. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/roles.h"

#include <criterion/criterion.h>
#include <string.h>

#define VLAB	"../lab-inventory/vlab-rail.yaml"
#define EXAMPLE "../lab-inventory/example-lab.yaml"

static struct inventory *inv;

static void load(void)
{
	inv = inventory_load(VLAB, stderr);
	cr_assert_not_null(inv);
}

static void unload(void)
{
	inventory_free(inv);
}

TestSuite(roles, .init = load, .fini = unload);

/* Pick with a selector written as key=value pairs; returns the resolve result. */
static int pick(const char *kind, const char *const *kv, struct role_picks *p, unsigned seed,
		char out[][ROLE_NAME_MAX], char *why)
{
	struct role_sel s;
	struct role_rng rng;
	enum role_kind k;

	cr_assert_eq(role_kind_parse(kind, &k, why, 256), 0, "%s", why);
	role_sel_init(&s, k);
	for (; kv && kv[0]; kv += 2)
		cr_assert_eq(role_set(&s, inv, kv[0], kv[1], why, 256), 0, "%s", why);
	role_rng_init(&rng, seed, "test");
	return role_resolve(inv, &s, p, &rng, NULL, NULL, out, why, 256);
}

Test(roles, each_role_matches_its_kind_of_name)
{
	char out[ROLE_PICKS][ROLE_NAME_MAX], why[256];
	struct role_picks p = {0};

	for (unsigned seed = 0; seed < 32; seed++) {
		memset(&p, 0, sizeof(p));
		cr_assert_eq(
		    pick("rail-uplink", (const char *[]){"rail", "2", NULL}, &p, seed, out, why), 0,
		    "%s", why);
		cr_assert(!strncmp(out[0], "rail2:swp", 9) && atoi(out[0] + 9) >= 5, "%s", out[0]);
		cr_assert_eq(pick("spine-port", (const char *[]){"spine", "spine3", NULL}, &p, seed,
				  out, why),
			     0, "%s", why);
		cr_assert(!strncmp(out[0], "spine3:swp", 10), "%s", out[0]);
		cr_assert_eq(
		    pick("switch", (const char *[]){"of", "rail", NULL}, &p, seed, out, why), 0,
		    "%s", why);
		cr_assert(!strncmp(out[0], "rail", 4) && !strchr(out[0], ':'), "%s", out[0]);
		cr_assert_eq(pick("rnic", (const char *[]){"host", "host3", "rail", "4", NULL}, &p,
				  seed, out, why),
			     0, "%s", why);
		cr_assert_str_eq(out[0], "host3:rnic4");
	}
}

Test(roles, the_rail_a_target_is_on)
{
	cr_assert_eq(role_rail_of(inv, "host2:rnic3"), 3);
	cr_assert_eq(role_rail_of(inv, "rail4:swp6"), 4);
	cr_assert_eq(role_rail_of(inv, "spine2:swp3"), 3, "a spine port: its peer's rail");
	cr_assert_eq(role_rail_of(inv, "rail1"), 1);
	cr_assert_eq(role_rail_of(inv, "spine1"), 0);
}

Test(roles, same_and_other_follow_earlier_picks)
{
	char out[ROLE_PICKS][ROLE_NAME_MAX], why[256];

	for (unsigned seed = 0; seed < 32; seed++) {
		struct role_picks p = {0};

		role_note(inv, &p, "host2:rnic1");
		cr_assert_eq(pick("rnic", (const char *[]){"host", "same", "rail", "other", NULL},
				  &p, seed, out, why),
			     0, "%s", why);
		cr_assert(!strncmp(out[0], "host2:", 6) && strcmp(out[0], "host2:rnic1"), "%s",
			  out[0]);
		cr_assert_eq(
		    pick("rnic",
			 (const char *[]){"host", "other", "rail", "other", "count", "4", NULL}, &p,
			 seed, out, why),
		    0, "%s", why);
		for (int i = 0; i < 4; i++) {
			cr_assert(strncmp(out[i], "host2:", 6), "%s", out[i]);
			cr_assert_neq(role_rail_of(inv, out[i]), 1, "not the noted RNIC's rail");
			for (int j = 0; j < i; j++)
				cr_assert_str_neq(out[i], out[j]);
		}
	}
}

/* host: fault and rail: fault together pick the first fault's own RNIC, whatever the seed. */
Test(roles, the_fault_rnic_itself)
{
	char out[ROLE_PICKS][ROLE_NAME_MAX], why[256];

	cr_assert_eq(role_host_of(inv, "host3:rnic2"), 3);
	cr_assert_eq(role_host_of(inv, "rail1:swp3"), 0, "a switch port is on no host");
	cr_assert_eq(role_host_of(inv, "rail1"), 0);
	for (unsigned seed = 0; seed < 16; seed++) {
		struct role_picks p = {.fault_rail = 2, .fault_host = 3};

		cr_assert_eq(pick("rnic", (const char *[]){"host", "fault", "rail", "fault", NULL},
				  &p, seed, out, why),
			     0, "%s", why);
		cr_assert_str_eq(out[0], "host3:rnic2");
	}
}

Test(roles, what_cannot_be_matched_says_why)
{
	char out[ROLE_PICKS][ROLE_NAME_MAX], why[256];
	struct role_picks p = {0};
	struct role_sel s;

	cr_assert_eq(pick("rnic", (const char *[]){"rail", "9", NULL}, &p, 1, out, why), -ENOENT);
	cr_assert(strstr(why, "no RNIC of inventory 'vlab-rail' matches { role: rnic, rail: 9 }"),
		  "%s", why);
	cr_assert_eq(pick("rnic", (const char *[]){"rail", "fault", NULL}, &p, 1, out, why),
		     -EINVAL);
	cr_assert(strstr(why, "rail: fault needs"), "%s", why);
	cr_assert_eq(pick("rnic", (const char *[]){"host", "fault", NULL}, &p, 1, out, why),
		     -EINVAL);
	cr_assert(strstr(why, "host: fault needs a first fault whose target is an RNIC"), "%s",
		  why);
	role_sel_init(&s, ROLE_RNIC);
	cr_assert_eq(role_set(&s, inv, "host", "host9", why, sizeof(why)), -EINVAL);
	cr_assert(strstr(why, "host 'host9' is not in inventory 'vlab-rail'"), "%s", why);
	cr_assert_eq(role_set(&s, inv, "rail", "two", why, sizeof(why)), -EINVAL);
	cr_assert_eq(role_set(&s, inv, "count", "33", why, sizeof(why)), -EINVAL);
	cr_assert_eq(role_set(&s, inv, "of", "spine", why, sizeof(why)), -EINVAL);
	cr_assert(strstr(why, "role rnic takes no 'of'"), "%s", why);
	role_sel_init(&s, ROLE_RAIL_UPLINK);
	cr_assert_eq(role_set(&s, inv, "spine", "rail1", why, sizeof(why)), -EINVAL,
		     "rail1 is not a spine");
}

Test(roles, uplinks_of_a_real_lab)
{
	struct inventory *ex = inventory_load(EXAMPLE, stderr);
	char out[ROLE_PICKS][ROLE_NAME_MAX], why[256];
	struct role_picks p = {0};
	struct role_sel s;
	struct role_rng rng;

	cr_assert_not_null(ex);
	role_sel_init(&s, ROLE_RAIL_UPLINK);
	s.count = 16;
	role_rng_init(&rng, 1, "x");
	cr_assert_eq(role_resolve(ex, &s, &p, &rng, NULL, NULL, out, why, sizeof(why)), 0, "%s",
		     why);
	for (int i = 0; i < 16; i++)
		cr_assert(strstr(out[i], ":Ethernet24") || strstr(out[i], ":Ethernet25") ||
			      strstr(out[i], ":swp3"),
			  "%s is a rail switch's spine-facing port", out[i]);
	s.count = 17;
	cr_assert_eq(role_resolve(ex, &s, &p, &rng, NULL, NULL, out, why, sizeof(why)), -ENOENT);
	cr_assert(strstr(why, "only 16 rail uplink(s)"), "%s", why);
	inventory_free(ex);
}
