/* SPDX-License-Identifier: MIT */
/*
 * The monitors' tests' lab: the built-in virtual lab's inventory (four
 * hosts of four RNICs, a rail switch per RNIC index, four spines), loaded
 * for each test, and its links by an endpoint's name.
 */
#ifndef ROCELAB_TESTS_PROBE_FIXTURE_H
#define ROCELAB_TESTS_PROBE_FIXTURE_H

#include "harness/lib/inventory.h"
#include "probe/pathmap.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>

#define VLAB "../lab-inventory/vlab-rail.yaml"
#define T0   1795200000000000000ULL /* a window boundary */
#define SEC  1000000000ULL

static struct inventory *inv;

static void setup(void)
{
	inv = inventory_load(VLAB, stderr);
	cr_assert_not_null(inv);
}

static void teardown(void)
{
	inventory_free(inv);
}

/* The inventory index of the link at endpoint ep ("host1:rnic1", "rail1:swp5"). */
static inline uint16_t link_at(const char *ep)
{
	struct inv_endpoint e;
	char msg[128];

	cr_assert_eq(inventory_endpoint(inv, ep, &e, msg, sizeof(msg)), 0, "%s", msg);
	return (uint16_t)pathmap_link_index(inv, &e);
}

#endif
