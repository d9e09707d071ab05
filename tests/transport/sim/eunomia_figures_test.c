// SPDX-License-Identifier: MIT
/*
 * Eunomia under a spraying sender, in miniature, on the deterministic path
 * simulator (../shared/papers/eunomia.txt; ../shared/briefs/mp-rdma-eunomia.md
 * D.8): 60 finite connections of 16 KB to 4 MB, 20 at once, sprayed
 * round-robin over 16 VPs, 4 on each of four 250 Mbit/s paths (100 µs each
 * way, ECN at 6 packets), with each receiver kind on the same traffic:
 * Eunomia, static 256- and 64-bit bitmaps, go-back-N.
 *
 *   no fault          Fig. 1(c): reordering alone, go-back-N recovers
 *   degraded path     one path at 1/10
 *   lossy path        1% of one path's packets dropped (ipid-drop mod 100)
 *   flap              one path down for 200 ms
 *   and MP-RDMA without its out-of-order control over Eunomia's receiver
 *   against its own 64-slot bitmap, one path at 1/40; and ConWeave's
 *   reorderer (the paper's section 5 baseline) over go-back-N.
 *
 * Every run: every connection completes, and the application gets exactly
 * its sequences in order (no misordered, no duplicated delivery).
 * `build/tests/transport/sim/eunomia_figures_test --verbose` prints them.
 */
#include "transport/sim/pathsim.h"
#include "transport/spray_ep.h"

#include <criterion/criterion.h>
#include <errno.h>

#define US 1000ULL
#define MS 1000000ULL

enum fault { NONE, DEGRADED, LOSSY, FLAP };

struct run {
	struct ps_spray_stats st;
	struct ord_rx rx; /* its counters (the connections are gone) */
	double secs, goodput;
};

/* How a connection's packets take the paths. */
enum lb { SPRAYED, ECMP, CONWEAVE };

/*
 * A workload over 20 QPs: backlogged (arrive_mean_ns 0) or Poisson arrivals of that mean gap;
 * sprayed over the VPs, or each connection on one (ECMP), or there and moved by ConWeave's
 * reorderer in the fabric.
 */
static struct run spray_lb(enum fault f, enum ord_kind kind, uint64_t arrive_mean_ns, enum lb lb)
{
	struct ps_cfg c;
	struct pathsim *ps;
	struct ps_spray_cfg sc = {.rx = kind,
				  .n_conns = 60,
				  .concurrent = 20,
				  .min_pkts = 16,
				  .max_pkts = 4096,
				  .arrive_mean_ns = arrive_mean_ns,
				  .seed = 7};
	const struct ps_spray_stats *st;
	const struct ord_rx *rx;
	struct run r;
	uint64_t t = 0;

	ps_cfg_default(&c, 4);
	for (int i = 0; i < 4; i++) {
		c.path[i].delay_ns = 100 * US;
		c.path[i].rate_bps = 250000000;
		c.path[i].ecn_k_bytes = 6 * 1098;
	}
	if (f == DEGRADED)
		c.path[2].rate_bps = 25000000;
	if (f == LOSSY)
		c.path[1].loss_ppm = 10000;
	ps = ps_new(&c);
	cr_assert_not_null(ps);
	spr_cfg_default(&sc.snd);
	for (unsigned p = 0; p < 4; p++)
		for (unsigned j = 0; j < 4; j++)
			sc.snd.vps[sc.snd.n_vps++] = ps_vp_on(ps, p, j);
	sc.snd.iw = 4;
	sc.snd.gbn = kind == ORD_GBN;
	sc.snd.ecmp = lb != SPRAYED;
	sc.conweave = lb == CONWEAVE;
	cw_cfg_default(&sc.cw, 4, 235 * US);
	cr_assert_eq(ps_add_spray(ps, &sc), 0);
	cr_assert_eq(ps_add_spray(ps, &sc), -EINVAL, "one workload a simulator");
	st = ps_spray_stats(ps, &rx);
	while (!st->done_ns && t < 30000 * MS) {
		t += 10 * MS;
		if (f == FLAP)
			ps_path(ps, 3)->down = t > 100 * MS && t <= 300 * MS;
		ps_run_until(ps, t);
	}
	r.st = *st;
	r.rx = *rx;
	r.secs = (double)st->done_ns / 1e9;
	r.goodput = (double)st->delivered * 1024 * 8 / r.secs;
	cr_log_info("%-9s %-9s%s %.3f s, %.1f Mbit/s, retx %llu of %llu, %llu timeouts, %llu "
		    "go-backs, %llu SACK %llu NACK, reorder p99 %u max %u; memory mean %.0f B "
		    "(bitmaps %.0f B) high %zu B; static 256 mean %.0f B (bitmaps %.0f B)",
		    (const char *[]){"no fault", "degraded", "lossy", "flap"}[f],
		    ord_kind_name(kind), (const char *[]){"", " ecmp", " conweave"}[lb], r.secs,
		    r.goodput / 1e6, st->retx, st->sent, st->timeouts, st->go_backs, rx->eu.sacks,
		    rx->eu.nacks, mpr_ood_quantile(&st->reorder, 0.99),
		    mpr_ood_quantile(&st->reorder, 1.0),
		    (double)st->mem_sum.total / (double)st->mem_samples,
		    (double)st->mem_sum.bitmap / (double)st->mem_samples, st->mem_high.total,
		    (double)st->mem_sum.static_total / (double)st->mem_samples,
		    (double)st->mem_sum.static_bitmap / (double)st->mem_samples);
	ps_free(ps);
	/* every run: all complete, each exactly once and in order */
	cr_assert(st != NULL && r.st.done_ns > 0, "not every connection completed");
	cr_assert_eq(r.st.completed, 60);
	cr_assert_eq(r.st.misordered, 0);
	cr_assert_eq(r.st.duplicated, 0);
	cr_assert_eq(r.rx.eu.alloc_failures, 0);
	return r;
}

static struct run spray_at(enum fault f, enum ord_kind kind, uint64_t arrive_mean_ns)
{
	return spray_lb(f, kind, arrive_mean_ns, SPRAYED);
}

static struct run spray(enum fault f, enum ord_kind kind)
{
	return spray_at(f, kind, 0);
}

/* What all four receivers did on one fault. */
static void all_kinds(enum fault f, struct run *r)
{
	for (int k = 0; k < ORD_KINDS; k++)
		r[k] = spray(f, k);
}

Test(eunomia_figures, fig1c_reordering_alone_makes_go_back_n_recover)
{
	struct run r[ORD_KINDS];

	all_kinds(NONE, r);
	cr_assert_eq(r[ORD_EUNOMIA].st.retx, 0, "spraying alone costs Eunomia nothing");
	cr_assert_eq(r[ORD_EUNOMIA].st.timeouts, 0);
	cr_assert_gt(r[ORD_GBN].st.go_backs, 1000);
	cr_assert_gt(r[ORD_GBN].st.retx, 0.2 * r[ORD_GBN].st.sent);
	cr_assert_lt(r[ORD_GBN].goodput, 0.8 * r[ORD_EUNOMIA].goodput);
	/* optimal: four paths' 1 Gbit/s of 1098-byte packets, 1024 bytes of payload each */
	cr_assert_gt(r[ORD_EUNOMIA].goodput, 0.85 * 1e9 * 1024 / 1098);
}

Test(eunomia_figures, a_degraded_path)
{
	struct run r[ORD_KINDS];
	const struct run *eu = &r[ORD_EUNOMIA], *s256 = &r[ORD_STATIC256];

	all_kinds(DEGRADED, r);
	cr_assert_geq(eu->goodput, s256->goodput);
	/* sprayed round-robin, every path carries a quarter: four times the slow one's rate */
	cr_assert_gt(eu->goodput, 0.9 * 4 * 25e6 * 1024 / 1098);
	cr_assert_geq(r[ORD_GBN].st.retx, 3 * eu->st.retx, "Fig. 1(c): %llu against %llu",
		      r[ORD_GBN].st.retx, eu->st.retx);
	/* the bitmaps: Eunomia's below the static one's (Figs. 10, 18(c)) */
	cr_assert_lt(eu->st.mem_sum.bitmap, eu->st.mem_sum.static_bitmap / 2);
	cr_assert_leq(eu->st.mem_high.bitmap, eu->st.mem_high.static_bitmap);
	/* every live connection reorders here: with its 48 B of metadata, more (Fig. 9(d)) */
	cr_assert_gt(eu->st.mem_sum.total, eu->st.mem_sum.static_total);
	cr_assert_eq(s256->st.mem_sum.total, s256->st.mem_sum.static_total);
}

Test(eunomia_figures, a_lossy_path_recovers_by_nack_or_timeout)
{
	struct run r[ORD_KINDS];
	const struct run *eu = &r[ORD_EUNOMIA];

	all_kinds(LOSSY, r);
	cr_assert_gt(eu->st.retx, 0);
	cr_assert_gt(eu->rx.eu.nacks + eu->st.timeouts, 0);
	cr_assert_geq(r[ORD_GBN].st.retx, 3 * eu->st.retx);
	cr_assert_gt(eu->goodput, 0.85 * 1e9 * 1024 / 1098);
}

Test(eunomia_figures, a_flap_loses_nothing_for_good)
{
	struct run r[ORD_KINDS];
	const struct run *eu = &r[ORD_EUNOMIA];

	all_kinds(FLAP, r);
	cr_assert_gt(eu->st.timeouts, 0, "what the down path held came back by timeout");
	cr_assert_geq(r[ORD_GBN].st.retx, 3 * eu->st.retx);
}

/*
 * MP-RDMA without its out-of-order control, one path at 1/40 (the Fig. 14
 * setup of figures_test.c: the host profile, the paths marking at 20 KB),
 * over its 64-slot bitmap and over Eunomia's receiver (reach 256): goodput
 * of optimal from 200 ms to 1 s, and the receiver's ordering memory
 * sampled every millisecond, side by side.
 */
static void mprdma_over(bool eunomia, enum mpr_credit credit, double *g, double *mem_mean,
			size_t *mem_high, uint32_t *ood)
{
	struct ps_cfg c;
	struct pathsim *ps;
	struct mpr_cfg m;
	unsigned long long n = 0, d0;
	double sum = 0;
	int f;

	ps_cfg_default(&c, 4);
	for (int i = 0; i < 4; i++) {
		c.path[i].delay_ns = 260 * US;
		c.path[i].ecn_k_bytes = 20 * 1098;
	}
	c.host_bps = 1000000000;
	c.host_ecn_k_bytes = 20 * 1098;
	c.path[2].rate_bps = 1000000000 / 40;
	c.path[2].qlimit_bytes = 1 << 20;
	ps = ps_new(&c);
	cr_assert_not_null(ps);
	mpr_cfg_default(&m);
	m.iw = 60;
	m.srtt_init_ns = 2 * c.path[0].delay_ns + 10 * US;
	m.rto_min_ns = 5 * MS;
	m.ooo_aware = false;
	m.credit = credit;
	m.eunomia_rx = eunomia;
	m.bitmap = eunomia ? 256 : 64;
	f = ps_add_flow(ps, &m, 1, 0);
	cr_assert_geq(f, 0);
	ps_run_until(ps, 200 * MS);
	ps_flow_stats_reset(ps, f);
	d0 = ps_flow_stats(ps, f)->delivered;
	*mem_high = 0;
	for (uint64_t t = 201 * MS; t <= 1000 * MS; t += MS) {
		size_t b;

		ps_run_until(ps, t);
		b = mpr_rcv_bytes(ps_flow_receiver(ps, f));
		sum += (double)b, n++;
		*mem_high = b > *mem_high ? b : *mem_high;
	}
	*g = (double)(ps_flow_stats(ps, f)->delivered - d0) * 1024 * 8 / 0.8 / (1e9 * 1024 / 1098);
	*mem_mean = sum / (double)n;
	*ood = ps_ood_quantile(ps, f, 0.999);
	cr_log_info("mp-rdma, out-of-order control off, credit %s, over %s: %.3f of optimal, "
		    "OOD p99.9 %u, ordering memory mean %.1f B, high %zu B",
		    credit == MPR_CREDIT_ONCE ? "once a PSN" : "per reply",
		    eunomia ? "Eunomia" : "its 64-slot bitmap", *g, *ood, *mem_mean, *mem_high);
	ps_free(ps);
}

Test(eunomia_figures, mprdma_without_control_over_eunomia_or_its_bitmap)
{
	double g[2], mean[2];
	size_t high[2];
	uint32_t ood[2];

	for (int credit = 0; credit < 2; credit++) {
		for (int eu = 0; eu < 2; eu++)
			mprdma_over(eu, credit, &g[eu], &mean[eu], &high[eu], &ood[eu]);
		/* four times the reach: more of the slow path's reordering tracked */
		cr_assert_geq(g[1], g[0], "over Eunomia %.3f, over its bitmap %.3f", g[1], g[0]);
		cr_assert_gt(ood[1], ood[0]);
		/* the memory: MP-RDMA's 17 B (Table 1); Eunomia's HD bitmap grown to its cap */
		cr_assert_float_eq(mean[0], 17, 1e-9);
		cr_assert_eq(high[1], 4 + 48 + 32);
	}
	/* the paper's credit: a slow path's late replies clock it; 256 is still too short */
	cr_assert_lt(g[1], 0.2);
}

/*
 * The paper's section 5 workloads: connections arriving as a Poisson
 * process, here offering 40 Mbit/s of payload to a NIC of 20 QPs with a
 * path at 1/10 (about 100 Mbit/s left to a sprayed flow).  Most QPs are
 * idle at any moment and cost Eunomia its 4-byte DBA, a static bitmap its
 * 41 B: Eunomia's whole ordering memory, metadata and all, is below the
 * static bitmaps' (Figs. 9(d), 10: fewer than about 60% reordering), while
 * the backlogged workload above keeps every QP reordering and above it.
 */
Test(eunomia_figures, an_offered_load_leaves_qps_idle_and_eunomia_below_static)
{
	/* a connection's mean payload bits over the offered rate */
	uint64_t gap = (uint64_t)(spray_mean_kb(16, 4096) * 1024 * 8 / 40e6 * 1e9);
	struct run eu = spray_at(DEGRADED, ORD_EUNOMIA, gap),
		   s256 = spray_at(DEGRADED, ORD_STATIC256, gap);
	double n = (double)eu.st.mem_samples;

	cr_log_info("offered 40 Mbit/s (a connection every %.0f ms): Eunomia %.0f B mean, high "
		    "%zu B; static 256 %.0f B",
		    (double)gap / 1e6, (double)eu.st.mem_sum.total / n, eu.st.mem_high.total,
		    (double)eu.st.mem_sum.static_total / n);
	/* the static bitmaps: 41 B in each of the 20 QPs' contexts, every sample */
	cr_assert_eq(s256.st.mem_sum.total, s256.st.mem_sum.static_total);
	cr_assert_eq(s256.st.mem_high.total, 20 * 41);
	cr_assert_lt(eu.st.mem_sum.total, eu.st.mem_sum.static_total / 2);
	cr_assert_lt(eu.st.mem_sum.bitmap, eu.st.mem_sum.static_bitmap / 4);
	/* reordering connections still take metadata and rows: more than the 20 DBAs' 80 B */
	cr_assert_gt(eu.st.mem_high.total, 20 * 4 + 48);
	/* the load arrived at its rate: the last of 60 completed near 60 gaps in */
	cr_assert_gt(eu.secs, 0.5 * 60 * (double)gap / 1e9);
	cr_assert_lt(eu.secs, 2.0 * 60 * (double)gap / 1e9);
}

/*
 * ConWeave (the Eunomia paper's section 5 baseline) over a NIC without
 * ordering support: each connection on one path at a time, moved when a
 * round trip comes back late; the destination ToR holds what the new path
 * brings before the old path's TAIL, so the NIC sees its packets in order
 * and goes back N for nothing.  On a fabric with one path at 1/10, it moves
 * connections off the slow path, where ECMP leaves them.
 */
Test(eunomia_figures, conweave_reorders_in_the_fabric_and_leaves_a_slow_path)
{
	struct run cw = spray_lb(NONE, ORD_GBN, 0, CONWEAVE);

	cr_assert_gt(cw.st.cw.reroutes, 100, "%llu reroutes", cw.st.cw.reroutes);
	cr_assert_gt(cw.st.cw.held, 100, "%llu packets held", cw.st.cw.held);
	cr_assert_gt(cw.st.cw.flush_tail, 100);
	cr_assert_eq(cw.st.retx, 0, "the NIC saw no reordering: %llu resent", cw.st.retx);
	cr_assert_eq(cw.st.go_backs, 0);

	struct run cwd = spray_lb(DEGRADED, ORD_GBN, 0, CONWEAVE),
		   ecmpd = spray_lb(DEGRADED, ORD_GBN, 0, ECMP);

	struct run eud = spray(DEGRADED, ORD_EUNOMIA);

	cr_assert_gt(cwd.goodput, 2 * ecmpd.goodput, "ConWeave %.1f Mbit/s, ECMP %.1f",
		     cwd.goodput / 1e6, ecmpd.goodput / 1e6);
	/* spraying does not steer: Eunomia under a round-robin spray has the slow path's share */
	cr_assert_gt(cwd.goodput, 2 * eud.goodput, "ConWeave %.1f Mbit/s, sprayed Eunomia %.1f",
		     cwd.goodput / 1e6, eud.goodput / 1e6);
}
