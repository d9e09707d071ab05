// SPDX-License-Identifier: MIT
/*
 * Ground truth per virtual path: traces of the built-in lab read into
 * inventory links (a whole route, one cut short by a blackhole, the latest
 * in a window), and abandonment and reuse times from the sender's shares.
 */
#include "transport/mpr_vpmap.h"

#include "probe/pathmap.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct inventory *inv;
static struct topo *topo;

static void load(void)
{
	inv = inventory_load("../lab-inventory/vlab-rail.yaml", stderr);
	cr_assert_not_null(inv);
	topo = topo_build(inv, true, stderr);
	cr_assert_not_null(topo);
}

static void unload(void)
{
	topo_free(topo);
	inventory_free(inv);
}

TestSuite(mpr_vpmap, .init = load, .fini = unload);

/* The address a switch port answers from, as a trace sees it. */
static const char *addr_of(const char *port, char *buf)
{
	struct inv_endpoint ep;
	char msg[160];

	cr_assert_eq(inventory_endpoint(inv, port, &ep, msg, sizeof(msg)), 0, "%s", msg);
	cr_assert_eq(ep.kind, INV_DEV_SWITCH);
	return inet_ntop(AF_INET, &topo->sw[ep.dev].port_addr[ep.port].addr, buf, 16);
}

static size_t link_of(const char *end)
{
	struct inv_endpoint ep;
	char msg[160];

	cr_assert_eq(inventory_endpoint(inv, end, &ep, msg, sizeof(msg)), 0, "%s", msg);
	return (size_t)pathmap_link_index(inv, &ep);
}

Test(mpr_vpmap, traces_to_links)
{
	char path[] = "/tmp/rocelab-vpmap-XXXXXX", r1[16], s2[16], r2[16], s3[16];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct mpr_route rt[4] = {0};

	addr_of("rail1:swp1", r1);
	addr_of("spine2:swp1", s2);
	addr_of("rail2:swp6", r2);
	addr_of("spine3:swp1", s3);
	/* VP 49152: rail1, spine2, rail2, then host2 itself; an older trace of it via spine3 */
	fprintf(
	    f,
	    "{\"type\":\"trace\",\"t\":5,\"vp\":49152,\"hops\":[\"%s\",\"%s\"],\"reached\":false}\n"
	    "{\"type\":\"trace\",\"t\":10,\"vp\":49152,\"hops\":[\"%s\",\"%s\",\"%s\","
	    "\"198.18.2.2\"],\"reached\":true}\n",
	    r1, s3, r1, s2, r2);
	/* VP 49153: spine2 answers, nothing after it (a blackhole) */
	fprintf(f,
		"{\"type\":\"trace\",\"t\":11,\"vp\":49153,\"hops\":[\"%s\",\"%s\",null,null],"
		"\"reached\":false}\n",
		r1, s2);
	/* VP 49155: host2 holds UDP 4791 and stays silent, but rail2 is cabled to it */
	fprintf(f,
		"{\"type\":\"trace\",\"t\":11,\"vp\":49155,\"hops\":[\"%s\",\"%s\",\"%s\",null,"
		"null],\"reached\":false}\n",
		r1, s2, r2);
	/* outside the window, outside the VPs, not a trace, not JSON */
	fprintf(f,
		"{\"type\":\"trace\",\"t\":30,\"vp\":49154,\"hops\":[\"%s\"],\"reached\":false}\n"
		"{\"type\":\"trace\",\"t\":12,\"vp\":49999,\"hops\":[\"%s\"],\"reached\":false}\n"
		"{\"type\":\"paths-end\",\"t\":12}\nrocelab: transport paths: ...\n",
		r1, r1);
	fclose(f);

	cr_assert_eq(
	    mpr_routes_read(path, inv, topo, "host1:rnic1", "host2:rnic2", 0, 20, 49152, rt, 4), 3);
	cr_assert(rt[0].complete);
	cr_assert_eq(rt[0].n, 4);
	cr_assert_float_eq(rt[0].t, 10, 1e-9);
	cr_assert_eq(rt[0].links[0], link_of("host1:rnic1"));
	cr_assert_eq(rt[0].links[1], link_of("spine2:swp1"));
	cr_assert_eq(rt[0].links[2], link_of("spine2:swp2"));
	cr_assert_eq(rt[0].links[3], link_of("host2:rnic2"));
	cr_assert(mpr_route_has(&rt[0], link_of("rail2:swp6")), "the far end names the same link");
	cr_assert_not(mpr_route_has(&rt[0], link_of("spine3:swp1")));
	/* cut short: the links that are certain, up to spine2 */
	cr_assert_not(rt[1].complete);
	cr_assert_eq(rt[1].n, 2);
	cr_assert_eq(rt[1].links[1], link_of("rail1:swp6"));
	cr_assert_not(mpr_route_has(&rt[1], link_of("spine2:swp2")));
	cr_assert_float_eq(rt[2].t, 0, 1e-9, "a trace after the window is not read");
	cr_assert(rt[3].complete, "a silent peer behind its own rail switch");
	cr_assert_eq(rt[3].n, 4);
	cr_assert_eq(rt[3].links[3], link_of("host2:rnic2"));
	/* the older trace alone, through spine3 and short */
	memset(rt, 0, sizeof(rt));
	cr_assert_eq(
	    mpr_routes_read(path, inv, topo, "host1:rnic1", "host2:rnic2", 0, 10, 49152, rt, 4), 1);
	cr_assert(mpr_route_has(&rt[0], link_of("spine3:swp1")));
	cr_assert_eq(
	    mpr_routes_read(path, inv, topo, "host9:rnic1", "host2:rnic2", 0, 10, 49152, rt, 4),
	    -1);
	unlink(path);
	cr_assert_eq(
	    mpr_routes_read(path, inv, topo, "host1:rnic1", "host2:rnic2", 0, 10, 49152, rt, 4),
	    -1);
}

#define IV 0.01

/* 10 ms intervals ending at 0.01 .. 1.00: share in/all of 100 sends each. */
static void fill(struct mpr_share *s, double (*share)(double start))
{
	for (int i = 0; i < 100; i++) {
		double start = i * IV;

		s[i] = (struct mpr_share){.t = start + IV, .in = 100 * share(start), .all = 100};
	}
}

/* 40% on the touched VPs until 0.23 (the fault at 0.2), then none but a 5% blip at 0.35. */
static double abandoning(double start)
{
	return start < 0.2295 ? 0.4 : (start > 0.345 && start < 0.355) ? 0.05 : 0;
}

/* None on the restored link until 0.75 (the revert at 0.6), then 30% */
static double reusing(double start)
{
	return start < 0.7495 ? 0 : 0.3;
}

static double never(double start)
{
	return start < 0.5 ? 0.4 : 0.1;
}

Test(mpr_vpmap, abandon_and_reuse)
{
	struct mpr_share s[100];

	fill(s, abandoning);
	/* the first 100 ms window below 1% starts at 0.23 (the blip is 0.5% of its window) */
	cr_assert_float_eq(mpr_share_settles(s, 100, IV, 0.2, 0.6, 0.1, 0.01, true), 0.03, 1e-9);
	cr_assert_float_eq(mpr_share_mean(s, 100, IV, 0.0, 0.2), 0.4, 1e-9);
	cr_assert_float_eq(mpr_share_mean(s, 100, IV, 0.3, 0.4), 0.005, 1e-9);
	cr_assert_float_eq(mpr_share_mean(s, 100, IV, 2, 3), -1, 1e-9);
	/* not within a window that would not fit */
	cr_assert_float_eq(mpr_share_settles(s, 100, IV, 0.2, 0.25, 0.1, 0.01, true), -1, 1e-9);

	fill(s, reusing);
	/*
	 * 0.9 of a fair share of 1/4 over 200 ms: the window from 0.70 holds five
	 * empty intervals and fifteen at 30%, 0.225 (0.69: six, 0.21).
	 */
	cr_assert_float_eq(mpr_share_settles(s, 100, IV, 0.6, 1.0, 0.2, 0.225 - 1e-9, false), 0.10,
			   1e-9);
	cr_assert_float_eq(mpr_share_settles(s, 100, IV, 0.6, 1.0, 0.2, 0.3, false), 0.15, 1e-9);
	fill(s, never);
	cr_assert_float_eq(mpr_share_settles(s, 100, IV, 0.6, 1.0, 0.2, 0.225, false), -1, 1e-9);
	/* nothing sent at all: nothing on the touched VPs either, but never a share reached */
	for (int i = 0; i < 100; i++)
		s[i].in = s[i].all = 0;
	cr_assert_float_eq(mpr_share_settles(s, 100, IV, 0.2, 0.6, 0.1, 0.01, true), 0, 1e-9);
	cr_assert_float_eq(mpr_share_settles(s, 100, IV, 0.6, 1.0, 0.2, 0.225, false), -1, 1e-9);
}

static struct mpr_route route(int n, const rec_link_t *links)
{
	struct mpr_route r = {.n = (uint8_t)n, .complete = true, .t = 1};

	memcpy(r.links, links, (size_t)n * sizeof(*links));
	return r;
}

Test(mpr_vpmap, votes_onto_links)
{
	/* links: 0 host1, 1 rail1-spine2, 2 spine2-rail2, 3 host2, 4 rail1-spine3, 5 spine3-rail2
	 */
	static const rec_link_t via2[] = {0, 1, 2, 3}, via2_back[] = {3, 2, 1, 0};
	static const rec_link_t via3[] = {0, 4, 5, 3}, via3_back[] = {3, 5, 4, 0};
	struct mpr_route data[4] = {route(4, via2), route(4, via3), route(4, via2), route(4, via3)};
	struct mpr_route ack[4] = {route(4, via2_back), route(4, via3_back), route(4, via3_back),
				   route(4, via3_back)};
	/* VP 0 and 2 stopped answering (2's ACKs came back by spine3); 1 did not; 3 was idle */
	const int8_t verdict[4] = {1, 0, 1, -1};
	struct mpr_vote v[8];
	size_t n = mpr_vote(data, ack, verdict, 4, v, 8);

	cr_assert_eq(n, 6);
	/* spine2's two links: every bad VP, no good one (a tie, in inventory order) */
	cr_assert_eq(v[0].link, 1);
	cr_assert_eq(v[0].bad, 2);
	cr_assert_eq(v[0].good, 0);
	cr_assert_eq(v[1].link, 2);
	/* the hosts' links: every VP crosses them, so the good one counts against them */
	cr_assert_eq(v[2].link, 0);
	cr_assert_eq(v[2].good, 1);
	cr_assert_eq(v[3].link, 3);
	cr_assert_eq(v[4].bad, 1, "VP 2's ACKs crossed spine3 once per link");
	cr_assert_eq(mpr_vote_rank(v, n, 2), 1, "a tie shares the better rank");
	cr_assert_eq(mpr_vote_rank(v, n, 1), 1);
	cr_assert_eq(mpr_vote_rank(v, n, 0), 3);
	cr_assert_eq(mpr_vote_rank(v, n, 5), 5);
	cr_assert_eq(mpr_vote_rank(v, n, 9), 0, "no bad VP crossed it");
	/* at most max, the likeliest */
	cr_assert_eq(mpr_vote(data, ack, verdict, 4, v, 2), 2);
	cr_assert_eq(v[1].link, 2);
}

/*
 * Three of four spines lossy (Fig. 11(a)): every bad VP crosses the hosts'
 * links, more of them than cross any one spine, but the clean spine's VPs
 * exonerate the hosts' links; a stray bad VP on a link of its own does not
 * outrank the faulted ones.
 */
Test(mpr_vpmap, votes_by_share_across_several_faulted_links)
{
	/* links: 0 host1, 1..4 rail1-spineN, 5 host2, 6 a link only VP 12 crosses */
	struct mpr_route data[13], ack[13];
	int8_t verdict[13];
	struct mpr_vote v[8];
	size_t n;

	for (int i = 0; i < 13; i++) {
		rec_link_t l[] = {0, (rec_link_t)(1 + i % 4), 5}, stray[] = {0, 4, 6, 5};

		data[i] = i == 12 ? route(4, stray) : route(3, l);
		ack[i] = data[i];
		verdict[i] = i % 4 != 3; /* spines 1-3 lossy: VPs 0-2, 4-6, 8-10 bad */
	}
	verdict[12] = 1; /* on spine4, bad by chance, and alone on link 6 */
	n = mpr_vote(data, ack, verdict, 13, v, 8);
	/* spines 1-3: 3 bad, 0 good (3/4); link 6: 1 bad (1/2); hosts: 10 bad, 3 good (10/14) */
	cr_assert_eq(n, 7);
	cr_assert_eq(v[0].link, 1);
	cr_assert_eq(v[1].link, 2);
	cr_assert_eq(v[2].link, 3);
	cr_assert_eq(v[3].link, 0, "the hosts' links after the faulted ones");
	cr_assert_eq(v[3].bad, 10);
	cr_assert_eq(v[3].good, 3);
	cr_assert_eq(v[5].link, 6);
	cr_assert_eq(v[6].link, 4, "the clean spine last: 1 bad of 4");
	cr_assert_eq(mpr_vote_rank(v, n, 3), 1);
	cr_assert_eq(mpr_vote_rank(v, n, 0), 4);
}

Test(mpr_vpmap, binomial_tail)
{
	cr_assert_float_eq(mpr_binom_tail(0, 10, 0.3), 1, 1e-12);
	cr_assert_float_eq(mpr_binom_tail(11, 10, 0.3), 0, 1e-12);
	cr_assert_float_eq(mpr_binom_tail(10, 10, 0.5), 1.0 / 1024, 1e-12);
	/* P(X >= 2), n = 3, p = 0.1: 3 * 0.01 * 0.9 + 0.001 */
	cr_assert_float_eq(mpr_binom_tail(2, 3, 0.1), 0.028, 1e-12);
	/* 5 of 1000 at 1e-3: 1 - P(X <= 4) = 0.0036369 (exact sum) */
	cr_assert_float_eq(mpr_binom_tail(5, 1000, 1e-3), 0.0036369, 1e-7);
}

/*
 * The judge: a path's own window against the window's clean paths, never
 * the baseline (a recovery resends what other paths had in flight).
 */
Test(mpr_vpmap, judges_each_path_against_the_clean_ones)
{
	struct mpr_vp_evidence e[] = {
	    /* clean paths carrying most of the load: 2% spurious resends, few prunes */
	    {.sent = 5000, .acks = 5000, .resent = 100, .prunes = 2},
	    {.sent = 3000, .acks = 3000, .resent = 66, .prunes = 1},
	    /* lossy: 10 of 60 sent again */
	    {.sent = 60, .acks = 54, .resent = 10},
	    /* degraded: pruned on 8 of 20 ACKs */
	    {.sent = 25, .acks = 20, .resent = 1, .prunes = 8},
	    /* a blackhole: lost its clocking */
	    {.sent = 0, .acks = 0, .resent = 3, .lost = true},
	    /* a clean path at 3%: more than the reference, but not 4 times it */
	    {.sent = 2000, .acks = 2000, .resent = 60},
	    /* too little to say */
	    {.sent = 4, .acks = 4},
	    /* one resend of one probe: no evidence */
	    {.sent = 0, .acks = 1, .resent = 1},
	    /* degraded, then an RTO took its clocking (a CI run's): slow first */
	    {.sent = 7, .acks = 13, .resent = 1, .prunes = 5, .lost = true},
	};
	int8_t v[9];

	cr_assert_eq(mpr_vp_judge(e, 9, v), 4);
	cr_assert_eq(v[0], 0);
	cr_assert_eq(v[1], 0);
	cr_assert_eq(v[2], 1, "lossy");
	cr_assert_eq(v[3], 2, "pruned: slow");
	cr_assert_eq(v[4], 1, "lost its clocking");
	cr_assert_eq(v[5], 0, "3%% where the clean paths see 2%%: the same recoveries");
	cr_assert_eq(v[6], -1, "not judged");
	cr_assert_eq(v[7], -1);
	cr_assert_eq(v[8], 2, "pruned, then lost its clocking: slow (congestion), not lossy");
}
