// SPDX-License-Identifier: MIT
/* A sender's own "sent" lines: what a service really sent in a monitor's window. */
#define _GNU_SOURCE
#include "harness/lab/traffic.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char path[] = "/tmp/rocelab-traffic-test.XXXXXX";

static void write_lines(const char *text)
{
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void drop(void)
{
	unlink(path);
}

/* 500/s for a second, held back for the next (100), then 500/s again. */
Test(traffic, sent_between_interpolates_the_lines, .fini = drop)
{
	write_lines("load: something else\n"
		    "sent 0 100.000 0\n"
		    "sent 1 100.000 0\n"
		    "sent 0 101.000 500\n"
		    "sent 1 101.000 7\n"
		    "sent 0 102.000 600\n"
		    "sent 0 103.000 1100\n");
	cr_assert_float_eq(traffic_sent_between(path, 0, 100.0, 101.0), 500, 1e-9);
	cr_assert_float_eq(traffic_sent_between(path, 0, 101.0, 102.0), 100, 1e-9);
	cr_assert_float_eq(traffic_sent_between(path, 0, 100.5, 102.5), 250 + 100 + 250, 1e-9);
	cr_assert_float_eq(traffic_sent_between(path, 1, 100.0, 101.0), 7, 1e-9);
	/* not covered by the lines: no figure rather than a wrong one */
	cr_assert_eq(traffic_sent_between(path, 0, 99.0, 101.0), -1);
	cr_assert_eq(traffic_sent_between(path, 0, 102.0, 104.0), -1);
	cr_assert_eq(traffic_sent_between(path, 2, 100.0, 101.0), -1);
	cr_assert_eq(traffic_sent_between("/nonexistent/x", 0, 100.0, 101.0), -1);
}

/* A service that slows on cue: its sender starts again from 0, the count goes on. */
Test(traffic, sent_between_counts_on_across_a_restart, .fini = drop)
{
	write_lines("sent 0 100.000 0\n"
		    "sent 0 101.000 500\n"
		    "sent 0 101.000 0\n"
		    "sent 0 102.000 50\n");
	cr_assert_float_eq(traffic_sent_between(path, 0, 100.0, 102.0), 550, 1e-9);
	cr_assert_float_eq(traffic_sent_between(path, 0, 101.0, 102.0), 50, 1e-9);
}

/* A test load paced to a rate at a port divides by the links ECMP spreads it over. */
Test(traffic, ecmp_width_is_the_edge_uplinks_or_one_at_a_host)
{
	struct inventory *inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	const char *at[] = {"spine2:swp2", "rail1:swp5", "rail1:swp1"};
	unsigned want[] = {4, 4, 1}; /* a spine's port to rail 2, rail1's uplink, a host's port */

	cr_assert_not_null(inv);
	for (size_t i = 0; i < 3; i++) {
		struct inv_endpoint ep;

		cr_assert_eq(inventory_endpoint(inv, at[i], &ep, NULL, 0), 0, "%s", at[i]);
		cr_assert_eq(ep.kind, INV_DEV_SWITCH);
		cr_assert_eq(traffic_ecmp_width(inv, ep.dev, ep.port), want[i], "%s: %u", at[i],
			     traffic_ecmp_width(inv, ep.dev, ep.port));
	}
	inventory_free(inv);
}

/*
 * A load's rate from its senders' lines: each flow over its own first to last
 * line, summed (1,000-byte datagrams: 8,000 bits each); the sends refused
 * downstream as the last line of each flow says (older lines without the
 * field count none).
 */
Test(traffic, sent_mbps_sums_each_flows_own_rate, .fini = drop)
{
	unsigned long long refused = 99;

	write_lines("load: 2 flows\n"
		    "sent 0 100.000 0 0\n"
		    "sent 1 100.500 0 0\n"
		    "sent 0 101.000 1000 0\n"
		    "sent 1 101.500 250 3\n"
		    "sent 0 102.000 2000 0\n"
		    "sent 2 102.000 7\n");
	/* flow 0: 1000/s = 8 Mbit/s; flow 1: 250/s = 2; flow 2: one line, no rate */
	cr_assert_float_eq(traffic_sent_mbps(path, 1000, &refused), 10.0, 1e-9);
	cr_assert_eq(refused, 3);
	cr_assert_eq(traffic_sent_mbps("/nonexistent/x", 1000, &refused), -1);
	cr_assert_eq(refused, 0);
}

Test(traffic, sent_mbps_without_a_span_is_not_known, .fini = drop)
{
	unsigned long long refused;

	write_lines("load: 1 flows, 10 pps each: 0 datagrams sent\nsent 0 100.000 0 0\n");
	cr_assert_eq(traffic_sent_mbps(path, 1000, &refused), -1);
}

/*
 * Within a span (an RC load held back while its fault was live, then let go): each flow's
 * rate over the part of the span its own lines cover, never over what came after.
 */
Test(traffic, sent_mbps_within_counts_only_the_span, .fini = drop)
{
	write_lines("sent 0 100.000 0 0\n"
		    "sent 1 100.500 0 0\n"
		    "sent 0 101.000 1000 0\n"
		    "sent 1 101.500 500 0\n"
		    "sent 0 102.000 2000 0\n"
		    "sent 1 102.500 1000 0\n"
		    "sent 0 103.000 9000 0\n"
		    "sent 1 103.500 9000 0\n");
	/* [99, 102]: flow 0 from 100 to 102 (1000/s, 8 Mbit/s), flow 1 from 100.5 (500/s: 4) */
	cr_assert_float_eq(traffic_sent_mbps_within(path, 1000, 99.0, 102.0), 12.0, 1e-9);
	/* [101, 102]: flow 0 1000/s; flow 1 from 101 to 102, 500/s */
	cr_assert_float_eq(traffic_sent_mbps_within(path, 1000, 101.0, 102.0), 12.0, 1e-9);
	/* after both flows' lines end, or a part too short to rate: not known */
	cr_assert_eq(traffic_sent_mbps_within(path, 1000, 104.0, 105.0), -1);
	cr_assert_eq(traffic_sent_mbps_within(path, 1000, 103.4, 103.5), -1);
	cr_assert_eq(traffic_sent_mbps_within("/nonexistent/x", 1000, 100.0, 101.0), -1);
}
