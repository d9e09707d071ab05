// SPDX-License-Identifier: MIT
/*
 * The MP-RDMA paper's figures in miniature on the path simulator (figures.h).
 *
 * Two profiles, as the lab's fabric profiles are:
 *   host:  the sender's 1 Gbit/s link is the bottleneck, each path could
 *          carry all of it; 260 µs each way makes the BDP about 60 packets,
 *          the paper's 60 KB; ECN at the host at 20 packets (the paper's 20 KB).
 *   paths: four paths of 250 Mbit/s, the host unshaped; 100 µs each way.
 *          ECN at 6 packets: a path's packet here is four of the flow's, so
 *          the paper's 20 KB would let queues differ by more than Δ = 32 of
 *          the flow's packets and prune healthy paths; 6 keeps it within.
 * Goodput is payload (1024 of 1098 bytes) in order; optimal is the
 * bottleneck's rate times that efficiency.  Seed 1 is the run the unit
 * tests bound (tests/transport/sim/figures_test.c); seed n moves the
 * simulator's random loss and marking and every sender's RNG.
 */
#include "transport/sim/figures.h"

#include "transport/sim/pathsim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define US  1000ULL
#define MS  1000000ULL
#define ETA (1024.0 / 1098.0)

void fig_variant_paper(struct fig_variant *v)
{
	struct mpr_cfg m;

	mpr_cfg_default(&m);
	mpr_cfg_paper(&m);
	*v = (struct fig_variant){m.scoreboard, m.credit, m.probe_mode, m.nack};
}

void fig_variant_rocelab(struct fig_variant *v)
{
	struct mpr_cfg m;

	mpr_cfg_default(&m);
	*v = (struct fig_variant){m.scoreboard, m.credit, m.probe_mode, m.nack};
}

int fig_variant_parse(const char *mode, struct fig_variant *v)
{
	if (!strcmp(mode, "paper"))
		fig_variant_paper(v);
	else if (!strcmp(mode, "rocelab"))
		fig_variant_rocelab(v);
	else
		return -EINVAL;
	return 0;
}

static bool same(const struct fig_variant *a, const struct fig_variant *b)
{
	return a->scoreboard == b->scoreboard && a->credit == b->credit &&
	       a->probe_mode == b->probe_mode && a->nack == b->nack;
}

const char *fig_variant_name(const struct fig_variant *v, char *buf, size_t len)
{
	struct fig_variant p, r;

	fig_variant_paper(&p);
	fig_variant_rocelab(&r);
	if (same(v, &r))
		return "rocelab";
	snprintf(buf, len, "paper%s%s%s%s%s%s", v->scoreboard ? ".scoreboard" : "",
		 v->credit != p.credit ? ".credit-" : "",
		 v->credit != p.credit ? mpr_credit_name(v->credit) : "",
		 v->probe_mode != p.probe_mode ? ".probe-per-packet" : "",
		 v->nack != p.nack ? ".nack-" : "",
		 v->nack != p.nack ? mpr_nack_name(v->nack) : "");
	return buf;
}

/* Seed n: the simulator's draws and the flows' RNGs moved by n - 1 (seed 1: the tests' run). */
static void seeded(struct ps_cfg *c, uint64_t seed)
{
	c->seed += seed - 1;
}

static uint64_t flow_seed(uint64_t base, uint64_t seed)
{
	return base + (seed - 1) * 1000;
}

static void host_profile(struct ps_cfg *c, uint64_t seed)
{
	ps_cfg_default(c, 4);
	for (int i = 0; i < 4; i++)
		c->path[i].delay_ns = 260 * US;
	c->host_bps = 1000000000;
	c->host_ecn_k_bytes = 20 * 1098;
	seeded(c, seed);
}

static void paths_profile(struct ps_cfg *c, uint64_t seed)
{
	ps_cfg_default(c, 4);
	for (int i = 0; i < 4; i++) {
		c->path[i].delay_ns = 100 * US;
		c->path[i].rate_bps = 250000000;
		c->path[i].ecn_k_bytes = 6 * 1098;
	}
	seeded(c, seed);
}

/* The paper's defaults with the variant's departures. */
static struct mpr_cfg with_variant(const struct fig_variant *v)
{
	struct mpr_cfg m;

	mpr_cfg_default(&m);
	m.scoreboard = v->scoreboard;
	m.credit = v->credit;
	m.probe_mode = v->probe_mode;
	m.nack = v->nack;
	return m;
}

/* The paper's parameters and the variant's; IW one BDP, the first RTT guessed from the profile. */
static struct mpr_cfg mp(const struct ps_cfg *c, const struct fig_variant *v)
{
	struct mpr_cfg m = with_variant(v);

	m.iw = c->host_bps ? 60 : 16;
	m.srtt_init_ns = 2 * c->path[0].delay_ns + 10 * US;
	m.rto_min_ns = 5 * MS;
	return m;
}

/* The rxe-like baseline (the variant does not apply): one VP, go-back-N, rxe's timer. */
static struct mpr_cfg single_cfg(const struct ps_cfg *c)
{
	struct fig_variant v;
	struct mpr_cfg m;

	fig_variant_rocelab(&v);
	m = mp(c, &v);
	m.single_path = true;
	return m;
}

/*
 * The paper's baseline: DCQCN (a RoCE NIC's rate control, mpr_snd.c) on one
 * VP, go-back-N; its line is the host's link, or a path's where the host
 * is not shaped (the paper's NICs ran at its paths' 40 Gbit/s).
 */
static struct mpr_cfg dcqcn_cfg(const struct ps_cfg *c)
{
	struct mpr_cfg m = single_cfg(c);

	mpr_dcqcn_default(&m, c->host_bps ? c->host_bps : c->path[0].rate_bps, m.srtt_init_ns);
	return m;
}

/*
 * IRN (selective repeat, BDP-FC, two timeouts; mprdma.h) over DCQCN's rate,
 * as IRN's paper and conweave-ns3 run it: one BDP at the line and the
 * base round trip in flight, RTO_high the MP-RDMA sender's RTO floor here.
 */
static struct mpr_cfg irn_cfg(const struct ps_cfg *c)
{
	struct mpr_cfg m = dcqcn_cfg(c);
	double line = (double)(c->host_bps ? c->host_bps : c->path[0].rate_bps);
	unsigned bdp = (unsigned)(line * (double)m.srtt_init_ns / 1e9 / (1098 * 8) + 0.999);

	mpr_irn_default(&m, bdp, m.rto_min_ns);
	return m;
}

/* The single-path baselines: rxe's go-back-N, DCQCN's rate over it, IRN over DCQCN. */
enum base { BASE_RXE, BASE_DCQCN, BASE_IRN };

static struct mpr_cfg base_cfg(const struct ps_cfg *c, enum base b)
{
	return b == BASE_IRN ? irn_cfg(c) : b == BASE_DCQCN ? dcqcn_cfg(c) : single_cfg(c);
}

/* The baseline on the first VP of path p. */
static int add_single_path(struct pathsim *ps, const struct ps_cfg *c, unsigned p, uint64_t seed)
{
	struct mpr_cfg m = single_cfg(c);

	m.vp_lo = m.vp_hi = ps_vp_on(ps, p, 0);
	return ps_add_flow(ps, &m, seed, 0);
}

/* Packets flow f sent on path p, and on all paths, over (now, t]. */
static void sends(struct pathsim *ps, int f, unsigned p, uint64_t t, unsigned long long *on_p,
		  unsigned long long *all)
{
	const struct ps_flow_stats *st = ps_flow_stats(ps, f);
	unsigned long long p0 = st->sent[p], a0 = 0, a1 = 0;

	for (unsigned i = 0; i < 4; i++)
		a0 += st->sent[i];
	ps_run_until(ps, t);
	for (unsigned i = 0; i < 4; i++)
		a1 += st->sent[i];
	*on_p = st->sent[p] - p0;
	*all = a1 - a0;
}

/* A simulator and one flow on it (*f), or NULL. */
static struct pathsim *one_flow(const struct ps_cfg *c, const struct mpr_cfg *m, uint64_t seed,
				int *f)
{
	struct pathsim *ps = ps_new(c);

	if (!ps)
		return NULL;
	*f = ps_add_flow(ps, m, flow_seed(1, seed), 0);
	if (*f < 0) {
		ps_free(ps);
		return NULL;
	}
	return ps;
}

/* No fault: four paths near their sum; one VP (the single path) about a quarter of it. */
static const struct fig_metric nofault_m[] = {
    {"nofault_four_paths", "of-optimal", 0, false, "no figure: the lab's mprdma-no-fault"},
    {"nofault_one_vp_of_four", "ratio", 0.25, true, "one path of four (ECMP places it)"},
};

static int run_nofault(const struct fig_variant *v, uint64_t seed, double *val)
{
	struct ps_cfg c;
	int f;

	paths_profile(&c, seed);
	struct mpr_cfg m = mp(&c, v);
	struct pathsim *ps = one_flow(&c, &m, seed, &f);

	if (!ps)
		return -EINVAL;
	double g = ps_goodput(ps, f, 100 * MS, 600 * MS);

	ps_free(ps);
	if (!(ps = ps_new(&c)))
		return -ENOMEM;
	f = add_single_path(ps, &c, 0, flow_seed(1, seed));
	val[0] = g / (4 * 250e6 * ETA);
	val[1] = ps_goodput(ps, f, 100 * MS, 600 * MS) / g;
	ps_free(ps);
	return 0;
}

/*
 * Fig. 11(a): paths 0-2 drop 0.5 % to 10 % of data packets (the lab's
 * ipid-drop mod 200 to mod 10).  MP-RDMA moves its load to the clean path
 * (the paper: about 38 of 40 Gbit/s, near optimal at every rate); the
 * rxe-like single path placed on each path in turn averages far less (the
 * paper: DCQCN 17.5 Gbit/s at 0.5 %, about a quarter of MP-RDMA above).
 * Measured from 1 s to 2 s: the lossy paths' credit is gone after about
 * 2000 round trips at 0.5 %.
 */
static const uint32_t loss11a[] = {5000, 10000, 50000, 100000};

static const struct fig_metric fig11a_m[] = {
    {"fig11a_loss0.5", "of-optimal", 1.0, true,
     "§5.1.1: near optimal (~38 of 38 Gbit/s) at every rate"},
    {"fig11a_loss1", "of-optimal", 1.0, true, "§5.1.1: near optimal"},
    {"fig11a_loss5", "of-optimal", 1.0, true, "§5.1.1: near optimal"},
    {"fig11a_loss10", "of-optimal", 1.0, true, "§5.1.1: near optimal"},
    {"fig11a_single_loss0.5", "of-optimal", 17.5 / 38, true, "§5.1.1: DCQCN 17.5 of 38 Gbit/s"},
    {"fig11a_single_loss10", "of-optimal", 0.25, true, "§5.1.1: ~25% of MP-RDMA above 0.5%"},
    {"fig11a_gain_loss10", "x", 4.0, true, "§5.1.1: ~25% of MP-RDMA, so ~4x"},
    {"fig11a_resent_loss0.5", "ratio", 0, false, "no figure: the share of sends that were copies"},
    {"fig11a_resent_loss10", "ratio", 0, false, "no figure"},
    {"fig11a_rtos_loss0.5", "count", 0, false, "no figure: timeouts in the measured second"},
    {"fig11a_rtos_loss10", "count", 0, false, "no figure"},
    {"fig11a_dcqcn_loss0.5", "of-optimal", 17.5 / 38, true, "§5.1.1: DCQCN 17.5 of 38 Gbit/s"},
    {"fig11a_dcqcn_loss10", "of-optimal", 0.25, true, "§5.1.1: ~25% of MP-RDMA above 0.5%"},
    {"fig11a_gain_dcqcn_loss10", "x", 4.0, true, "§5.1.1: ~25% of MP-RDMA, so ~4x"},
    {"fig11a_irn_loss0.5", "of-optimal", 0, false,
     "no figure: IRN (selective repeat) over DCQCN, a baseline the paper did not run"},
    {"fig11a_irn_loss10", "of-optimal", 0, false, "no figure"},
    {"fig11a_gain_irn_loss10", "x", 0, false, "no figure: MP-RDMA over IRN's mean"},
};

/* The single path (rxe's, or DCQCN) placed on each path in turn: the mean goodput. */
static int single_mean(const struct ps_cfg *c, uint64_t seed, enum base b, double *mean)
{
	*mean = 0;
	for (unsigned p = 0; p < 4; p++) {
		struct pathsim *ps = ps_new(c);

		if (!ps)
			return -ENOMEM;
		struct mpr_cfg m = base_cfg(c, b);

		m.vp_lo = m.vp_hi = ps_vp_on(ps, p, 0);
		int f = ps_add_flow(ps, &m, flow_seed(1, seed), 0);

		*mean += ps_goodput(ps, f, 200 * MS, 1000 * MS) / 4;
		ps_free(ps);
	}
	return 0;
}

static int run_fig11a(const struct fig_variant *v, uint64_t seed, double *val)
{
	double optimal = 1e9 * ETA;

	for (unsigned l = 0; l < 4; l++) {
		struct ps_cfg c;
		int f;

		host_profile(&c, seed);
		for (unsigned i = 0; i < 3; i++)
			c.path[i].loss_ppm = loss11a[l];
		struct mpr_cfg m = mp(&c, v);
		struct pathsim *ps = one_flow(&c, &m, seed, &f);

		if (!ps)
			return -EINVAL;
		ps_run_until(ps, 1000 * MS);
		struct mpr_snd_stats st0 = ps_flow_sender(ps, f)->st;

		val[l] = ps_goodput(ps, f, 1000 * MS, 2000 * MS) / optimal;
		const struct mpr_snd_stats *st = &ps_flow_sender(ps, f)->st;

		if (l == 0 || l == 3) {
			unsigned long long sent = st->sent - st0.sent;

			val[l ? 8 : 7] = sent ? (double)(st->retx - st0.retx) / (double)sent : 0;
			val[l ? 10 : 9] = (double)(st->rtos - st0.rtos);
		}
		ps_free(ps);
		if (l == 0 || l == 3) {
			double mean, dq, irn;

			if (single_mean(&c, seed, BASE_RXE, &mean) ||
			    single_mean(&c, seed, BASE_DCQCN, &dq) ||
			    single_mean(&c, seed, BASE_IRN, &irn))
				return -ENOMEM;
			val[l ? 5 : 4] = mean / optimal;
			val[l ? 12 : 11] = dq / optimal;
			val[l ? 15 : 14] = irn / optimal;
		}
	}
	val[6] = val[5] > 0 ? val[3] / val[5] : 0;
	val[13] = val[12] > 0 ? val[3] / val[12] : 0;
	val[16] = val[15] > 0 ? val[3] / val[15] : 0;
	return 0;
}

/*
 * Fig. 11(a) as the lab runs it (scenarios/nightly/transport/mprdma-lossy-bdp*.yaml):
 * the host at 100 Mbit/s, 3.1 ms round trips (the ACK delay), 36 packets of
 * BDP, IW 16 and the lab's 10 ms RTO floor; paths 0-2 drop 10% of the data
 * and of the ACKs.
 */
static const struct fig_metric fig11a_lab_m[] = {
    {"fig11a_labbdp_loss10", "of-optimal", 1.0, true, "§5.1.1: near optimal"},
    {"fig11a_labbdp_rtos", "count", 0, false, "no figure: timeouts in 3 s"},
};

static int run_fig11a_lab(const struct fig_variant *v, uint64_t seed, double *val)
{
	struct ps_cfg c;
	int f;

	ps_cfg_default(&c, 4);
	c.host_bps = 100000000;
	c.host_ecn_k_bytes = 17 * 1098; /* the lab's 1.5 ms of emulated ECN */
	for (unsigned i = 0; i < 4; i++)
		c.path[i].delay_ns = 1550 * US;
	for (unsigned i = 0; i < 3; i++)
		c.path[i].loss_ppm = c.path[i].ack_loss_ppm = 100000;
	struct mpr_cfg m = mp(&c, v);

	m.iw = 16;
	m.srtt_init_ns = 100 * US;
	m.rto_min_ns = 10 * MS;
	/* the seed moves the flow only, as the tests ran it: seeds 1-3 */
	struct pathsim *ps = ps_new(&c);

	if (!ps)
		return -ENOMEM;
	if ((f = ps_add_flow(ps, &m, seed, 0)) < 0) {
		ps_free(ps);
		return -EINVAL;
	}
	val[0] = ps_goodput(ps, f, 1000 * MS, 3000 * MS) / (1e8 * ETA);
	val[1] = (double)ps_flow_sender(ps, f)->st.rtos;
	ps_free(ps);
	return 0;
}

/*
 * Fig. 11(b): a path blackholed is abandoned and the other three carry
 * their optimal; restored, probing finds it again (the paper: under 1 s).
 */
static const struct fig_metric fig11b_m[] = {
    {"fig11b_three_paths", "of-optimal", 1.0, true, "§5.1.1: fully utilizes the healthy paths"},
    {"fig11b_dead_share", "ratio", 0, true,
     "§5.1.1: zero traffic on the failed path (50-150 ms on)"},
    {"fig11b_reused_ms", "ms", 1000, true, "§5.1.1: less than 1 s to be fully utilized again"},
};

static int run_fig11b(const struct fig_variant *v, uint64_t seed, double *val)
{
	struct ps_cfg c;
	unsigned long long on, all;
	int f;

	paths_profile(&c, seed);
	struct mpr_cfg m = mp(&c, v);
	struct pathsim *ps = one_flow(&c, &m, seed, &f);

	if (!ps)
		return -EINVAL;
	ps_run_until(ps, 200 * MS);
	ps_path(ps, 1)->down = true;
	ps_run_until(ps, 250 * MS);
	sends(ps, f, 1, 350 * MS, &on, &all);
	val[1] = all ? (double)on / (double)all : 0;
	val[0] = ps_goodput(ps, f, 350 * MS, 600 * MS) / (3 * 250e6 * ETA);

	ps_path(ps, 1)->down = false;
	uint64_t t = 600 * MS, reused = 0;

	/* reused: from the first 50 ms at >= 0.9 of a fair share, for 200 ms */
	for (unsigned run = 0; t < 1800 * MS && run < 4; t += 50 * MS) {
		sends(ps, f, 1, t + 50 * MS, &on, &all);
		run = on * 4 >= all * 9 / 10 ? run + 1 : 0;
		if (run == 1)
			reused = t - 600 * MS;
	}
	val[2] = t < 1800 * MS ? (double)(reused / MS) : 1200; /* never: past the 1.2 s looked at */
	ps_free(ps);
	return 0;
}

/*
 * Fig. 14, link degradation: path 2 at 1/40 (25 Mbit/s) under the host
 * profile, the paths marking at the paper's 20 KB.  ECN mis-configuration:
 * the paths profile with path 3 marking at four of its BDPs, as the paper's
 * 240 KB is four of its 60 KB (a 12-fold threshold here, 72 packets, holds
 * 12 BDPs, and every mode lost 0.6-0.8 of optimal without the control
 * against the paper's 0.25).  Goodput with L = 64 and Δ = 32,
 * control on and off (Fig. 14(b)); the OOD's 99.9th percentile with an
 * unbounded bitmap (1024 slots), off over on (Fig. 14(a)'s cut at Δ = 32).
 */
static const struct fig_metric fig14_m[] = {
    {"fig14b_degraded_on", "of-optimal", 0.9606, true, "§5.2: 3.94% less than optimal"},
    {"fig14b_degraded_off", "of-optimal", 0.325, true, "§5.2: degrades by 67.5%"},
    {"fig14a_degraded_ood_cut", "x", 50, true, "§5.2: OOD p99.9 ~50x lower with Δ = 32"},
    {"fig14b_ecn_on", "of-optimal", 1.0, true, "§5.2: optimal throughput"},
    {"fig14b_ecn_off", "of-optimal", 0.749, true, "§5.2: degrades by 25.1%"},
    {"fig14a_ecn_ood_cut", "x", 5, true, "§5.2: OOD p99.9 ~5x lower with Δ = 32"},
    {"fig14a_degraded_ood_on", "packets", 0, false, "Fig. 14(a) is a plot: OOD p99.9, control on"},
    {"fig14a_degraded_ood_off", "packets", 0, false, "OOD p99.9, control off"},
    {"fig14a_ecn_ood_on", "packets", 0, false, "OOD p99.9, control on"},
    {"fig14a_ecn_ood_off", "packets", 0, false, "OOD p99.9, control off"},
};

enum fig14_arm { ARM_DEGRADED, ARM_ECN };

/* Goodput over optimal (*g) and the OOD's p99.9 (*ood) with the control on or off. */
static int fig14_one(const struct fig_variant *v, uint64_t seed, enum fig14_arm arm, unsigned L,
		     bool on, double *g, uint32_t *ood)
{
	struct ps_cfg c;
	double optimal;
	int f;

	if (arm == ARM_DEGRADED) {
		host_profile(&c, seed);
		for (unsigned i = 0; i < 4; i++)
			c.path[i].ecn_k_bytes = 20 * 1098;
		c.path[2].rate_bps = 1000000000 / 40;
		c.path[2].qlimit_bytes = 1 << 20;
		optimal = 1e9 * ETA;
	} else {
		paths_profile(&c, seed);
		c.path[3].ecn_k_bytes = 4 * c.path[0].ecn_k_bytes;
		c.path[3].qlimit_bytes = 1 << 20;
		optimal = 4 * 250e6 * ETA;
	}
	struct mpr_cfg m = mp(&c, v);

	m.bitmap = L;
	m.ooo_aware = on;
	struct pathsim *ps = one_flow(&c, &m, seed, &f);

	if (!ps)
		return -EINVAL;
	ps_run_until(ps, 200 * MS);
	ps_flow_stats_reset(ps, f);
	*g = ps_goodput(ps, f, 200 * MS, 1000 * MS) / optimal;
	*ood = ps_ood_quantile(ps, f, 0.999);
	ps_free(ps);
	return 0;
}

static int run_fig14(const struct fig_variant *v, uint64_t seed, double *val)
{
	for (int arm = ARM_DEGRADED; arm <= ARM_ECN; arm++) {
		double g[2], unused;
		uint32_t ood[2], o;

		for (int on = 0; on < 2; on++)
			if (fig14_one(v, seed, arm, 64, on, &g[on], &o) ||
			    fig14_one(v, seed, arm, MPR_L_MAX, on, &unused, &ood[on]))
				return -EINVAL;
		double *out = val + 3 * arm;

		out[0] = g[1];
		out[1] = g[0];
		out[2] = (double)ood[0] / (ood[1] ? ood[1] : 1);
		val[6 + 2 * arm] = ood[1];
		val[7 + 2 * arm] = ood[0];
	}
	return 0;
}

/*
 * Fig. 15: a single-path flow joins on path 3; MP-RDMA's share there falls
 * (the paper: to near zero), the other paths stay full.
 */
static const struct fig_metric fig15_m[] = {
    {"fig15_share_before", "ratio", 0.25, true, "§5.2: evenly balanced among the 4 paths"},
    {"fig15_share_1s_after", "ratio", 0, true, "§5.2: falls to near zero"},
    {"fig15_others", "of-optimal", 1.0, true, "§5.2: the other 3 paths remain at ~10 Gbit/s"},
    {"fig15_single_path", "of-optimal", 0, false, "not the paper's focus: the joining flow"},
};

static int run_fig15(const struct fig_variant *v, uint64_t seed, double *val)
{
	struct ps_cfg c;
	unsigned long long on, all;
	int f;

	paths_profile(&c, seed);
	struct mpr_cfg m = mp(&c, v);
	struct pathsim *ps = one_flow(&c, &m, seed, &f);

	if (!ps)
		return -EINVAL;
	ps_run_until(ps, 200 * MS);
	sends(ps, f, 3, 300 * MS, &on, &all);
	val[0] = all ? (double)on / (double)all : 0;
	int sp = add_single_path(ps, &c, 3, flow_seed(2, seed));

	ps_run_until(ps, 1300 * MS);
	sends(ps, f, 3, 1400 * MS, &on, &all);
	val[1] = all ? (double)on / (double)all : 0;
	val[2] = (double)(all - on) * 1024 * 8 / 0.1 / (3 * 250e6 * ETA);
	val[3] = ps_goodput(ps, sp, 1400 * MS, 1500 * MS) / (250e6 * ETA);
	ps_free(ps);
	return 0;
}

/* Fig. 16: flows join one 1 Gbit/s bottleneck one by one; each gets its 1/n. */
static const struct fig_metric fig16_m[] = {
    {"fig16_jain_min", "index", 0.996, true, "§5.2: Jain's index 0.996-0.999"},
    {"fig16_total_min", "of-optimal", 1.0, true, "§5.2: all flows evenly share the network"},
};

static int run_fig16(const struct fig_variant *v, uint64_t seed, double *val)
{
	struct ps_cfg c;
	unsigned long long d0[8];
	int f[8];

	host_profile(&c, seed);
	for (unsigned i = 0; i < 4; i++)
		c.path[i].delay_ns = 100 * US;
	struct pathsim *ps = ps_new(&c);
	struct mpr_cfg m = mp(&c, v);

	if (!ps)
		return -ENOMEM;
	m.iw = 16;
	val[0] = val[1] = 1e9;
	for (unsigned n = 1; n <= 8; n++) {
		if ((f[n - 1] = ps_add_flow(ps, &m, flow_seed(n, seed), 0)) < 0) {
			ps_free(ps);
			return -EINVAL;
		}
		ps_run_until(ps, ps_now(ps) + 50 * MS);
		for (unsigned i = 0; i < n; i++)
			d0[i] = ps_flow_stats(ps, f[i])->delivered;
		ps_run_until(ps, ps_now(ps) + 100 * MS);
		double sum = 0, sq = 0;

		for (unsigned i = 0; i < n; i++) {
			double x = (double)(ps_flow_stats(ps, f[i])->delivered - d0[i]);

			sum += x;
			sq += x * x;
		}
		double jain = sq > 0 ? sum * sum / (n * sq) : 0, total = sum * 1024 * 8 / 0.1;

		val[0] = jain < val[0] ? jain : val[0];
		val[1] = total / (1e9 * ETA) < val[1] ? total / (1e9 * ETA) : val[1];
	}
	ps_free(ps);
	return 0;
}

/*
 * Fig. 5: ten flows of 8 VPs each over paths of 125 to 500 Mbit/s whose RED
 * ramps to Pmax 0.2 to 0.8 (Kmin 20, Kmax 200 packets).  The window rule
 * alone balances the marking ratio of every path (section 3.2.2), so this
 * runs without out-of-order control, which moves load by delay instead.
 * The spread is the highest path's ratio over the lowest's.
 */
static const struct fig_metric fig5_m[] = {
    {"fig5_marking_spread", "ratio", 1.0, true,
     "§3.2.2: the 4 paths' ratios converge to the same value"},
    {"fig5_marking_mean", "ratio", 0, false, "no number in the paper"},
};

static int run_fig5(const struct fig_variant *v, uint64_t seed, double *val)
{
	struct ps_cfg c;
	struct ps_path_stats before[4];
	double lo = 1, hi = 0, sum = 0;

	ps_cfg_default(&c, 4);
	for (unsigned i = 0; i < 4; i++) {
		c.path[i].delay_ns = 50 * US;
		c.path[i].rate_bps = 125000000ULL * (i + 1);
		c.path[i].ecn_k_bytes = 20 * 1098;
		c.path[i].red_kmax_bytes = 200 * 1098;
		c.path[i].red_pmax_ppm = 200000 * (i + 1);
		c.path[i].qlimit_bytes = 1 << 20;
	}
	seeded(&c, seed);
	struct pathsim *ps = ps_new(&c);

	if (!ps)
		return -ENOMEM;
	for (unsigned f = 0; f < 10; f++) {
		struct mpr_cfg m = mp(&c, v);

		m.iw = 8;
		m.vp_lo = (uint16_t)(50000 + 100 * f);
		m.vp_hi = (uint16_t)(m.vp_lo + 7);
		m.ooo_aware = false;
		if (ps_add_flow(ps, &m, flow_seed(f + 1, seed), 0) < 0) {
			ps_free(ps);
			return -EINVAL;
		}
	}
	ps_run_until(ps, 200 * MS);
	for (unsigned i = 0; i < 4; i++)
		before[i] = *ps_path_stats(ps, i);
	ps_run_until(ps, 1200 * MS);
	for (unsigned i = 0; i < 4; i++) {
		const struct ps_path_stats *st = ps_path_stats(ps, i);
		unsigned long long d = st->data - before[i].data;
		double r = d ? (double)(st->marked - before[i].marked) / (double)d : 0;

		lo = r < lo ? r : lo;
		hi = r > hi ? r : hi;
		sum += r;
	}
	val[0] = lo > 0 ? hi / lo : 1e9;
	val[1] = sum / 4;
	ps_free(ps);
	return 0;
}

/*
 * Fig. 12 (§5.1.2): permutation traffic, 5 connections over the four paths
 * (the paper's testbed: 5 servers under T0 to 5 under T1, four 40 Gbit/s
 * cross-ToR paths).  MP-RDMA spreads each connection over every path; the
 * single path puts each on one VP that ECMP hashes to a path, so some paths
 * carry two and others none (the paper's DCQCN used 3 of 4).  The single
 * path here is the rxe-like baseline (MP-RDMA's window on one VP, go-back-N),
 * not DCQCN's rate control.  Totals over (200, 700] ms; the single paths'
 * are the mean of PERM_PLACEMENTS placements drawn from the seed (with 5
 * connections on 4 paths all four are used in 23% of placements, three in
 * 56%), their lowest flow and paths used the mean of each placement's.
 */
#define PERM_FLOWS	5
#define PERM_PLACEMENTS 8

static const struct fig_metric fig12_m[] = {
    {"fig12_mprdma", "of-optimal", 150.68 / 160, true, "§5.1.2: 150.68 of 160 Gbit/s"},
    {"fig12_single", "of-optimal", 102.46 / 160, true, "§5.1.2: DCQCN 102.46 of 160 Gbit/s"},
    {"fig12_gain", "x", 1.4705, true, "§5.1.2: 47.05% higher goodput"},
    {"fig12_mprdma_min_flow", "of-fair", 30.0 / 32, true, "Fig. 12(a): each ~30 of 32 Gbit/s"},
    {"fig12_single_min_flow", "of-fair", 0, false, "Fig. 12(a): DCQCN's below 20 Gbit/s"},
    {"fig12_single_paths_used", "count", 3, true, "§5.1.2: 3 of 4 paths used (one run)"},
    {"fig12_dcqcn", "of-optimal", 102.46 / 160, true, "§5.1.2: DCQCN 102.46 of 160 Gbit/s"},
    {"fig12_gain_dcqcn", "x", 1.4705, true, "§5.1.2: 47.05% higher goodput"},
    {"fig12_irn", "of-optimal", 0, false, "no figure: IRN over DCQCN, ECMP-placed"},
    {"fig12_gain_irn", "x", 0, false, "no figure: MP-RDMA over IRN's single paths"},
};

/* Each single-path flow's VP, drawn from the seed (as ECMP would see fresh QPs' source ports). */
static uint16_t perm_vp(uint64_t *rng)
{
	return (uint16_t)(49152 + mpr_rand(rng) % 16384);
}

/*
 * Goodput of each of n flows over (t0, t1] as a share of a fair share of
 * total bits per second, into share[]; returns the total over optimal.
 */
static double flows_goodput(struct pathsim *ps, const int *f, unsigned n, uint64_t t0, uint64_t t1,
			    double optimal, double *min_share)
{
	unsigned long long d0[PS_FLOWS_MAX];
	double total = 0;

	ps_run_until(ps, t0);
	for (unsigned i = 0; i < n; i++)
		d0[i] = ps_flow_stats(ps, f[i])->delivered;
	ps_run_until(ps, t1);
	*min_share = 1e9;
	for (unsigned i = 0; i < n; i++) {
		double g = (double)(ps_flow_stats(ps, f[i])->delivered - d0[i]) * 1024 * 8 /
			   ((double)(t1 - t0) / 1e9);

		total += g;
		if (g / (optimal / n) < *min_share)
			*min_share = g / (optimal / n);
	}
	return total / optimal;
}

/*
 * PERM_FLOWS flows of m on a new simulator, or NULL; single paths each on a
 * VP drawn from the seed and the placement's number.
 */
static struct pathsim *perm(const struct ps_cfg *c, const struct mpr_cfg *m, bool single,
			    uint64_t seed, unsigned placement, int *f, unsigned *paths_used)
{
	struct pathsim *ps = ps_new(c);
	uint64_t rng = 0x51e9 + seed * 0x9e3779b97f4a7c15ULL + placement;
	bool used[PS_PATHS_MAX] = {false};

	if (!ps)
		return NULL;
	*paths_used = 0;
	for (unsigned i = 0; i < PERM_FLOWS; i++) {
		struct mpr_cfg mi = *m;

		if (single) {
			mi.vp_lo = mi.vp_hi = perm_vp(&rng);
			unsigned p = ps_path_of(ps, mi.vp_lo);

			*paths_used += !used[p];
			used[p] = true;
		}
		if ((f[i] = ps_add_flow(ps, &mi, flow_seed(i + 1, seed), 0)) < 0) {
			ps_free(ps);
			return NULL;
		}
	}
	return ps;
}

/* The single paths over PERM_PLACEMENTS placements: mean total, lowest flow and paths used. */
static int single_perm(const struct ps_cfg *c, uint64_t seed, enum base b, double *total,
		       double *min_share, double *used)
{
	struct mpr_cfg m = base_cfg(c, b);
	int f[PERM_FLOWS];

	*total = *min_share = *used = 0;
	for (unsigned k = 0; k < PERM_PLACEMENTS; k++) {
		unsigned u;
		double lo;
		struct pathsim *ps = perm(c, &m, true, seed, k, f, &u);

		if (!ps)
			return -EINVAL;
		*total +=
		    flows_goodput(ps, f, PERM_FLOWS, 200 * MS, 700 * MS, 4 * 250e6 * ETA, &lo) /
		    PERM_PLACEMENTS;
		*min_share += lo / PERM_PLACEMENTS;
		*used += (double)u / PERM_PLACEMENTS;
		ps_free(ps);
	}
	return 0;
}

static int run_fig12(const struct fig_variant *v, uint64_t seed, double *val)
{
	struct ps_cfg c;
	int f[PERM_FLOWS];
	unsigned used;

	paths_profile(&c, seed);
	struct mpr_cfg m = mp(&c, v);
	struct pathsim *ps = perm(&c, &m, false, seed, 0, f, &used);

	if (!ps)
		return -EINVAL;
	val[0] = flows_goodput(ps, f, PERM_FLOWS, 200 * MS, 700 * MS, 4 * 250e6 * ETA, &val[3]);
	ps_free(ps);
	double lo, used_dq;

	if (single_perm(&c, seed, BASE_RXE, &val[1], &val[4], &val[5]) ||
	    single_perm(&c, seed, BASE_DCQCN, &val[6], &lo, &used_dq) ||
	    single_perm(&c, seed, BASE_IRN, &val[8], &lo, &used_dq))
		return -EINVAL;
	val[2] = val[1] > 0 ? val[0] / val[1] : 0;
	val[7] = val[6] > 0 ? val[0] / val[6] : 0;
	val[9] = val[8] > 0 ? val[0] / val[8] : 0;
	return 0;
}

/*
 * Figs. 18 and 19 (§5.4): the Fig. 12 permutation with messages of 32 KB or
 * 512 KB (32 or 512 packets), a share of them synchronise messages (each
 * must land after all earlier ones; the sender holds it α·Δ·RTT/cwnd after
 * the previous message, the receiver drops and NACKs one that comes
 * early).  Fig. 18: the share of synchronise packets that came early (the
 * paper counts messages; α = 1 gave none in its tests).  Fig. 19: goodput
 * against DCQCN's single paths on the same fabric, as the paper compares,
 * and the paper's MP-RDMA (Stop-Wait), whose synchronise message waits for
 * every earlier one's acknowledgement instead.
 */
static const struct fig_metric fig18_m[] = {
    {"fig18_early_sync_32k_alpha0.25", "ratio", 0, false, "Fig. 18: OOO falls with α"},
    {"fig18_early_sync_32k_alpha0.5", "ratio", 0, false, "Fig. 18: OOO falls with α"},
    {"fig18_early_sync_32k_alpha1", "ratio", 0, true, "§5.4: α = 1.0, no OOO in the tests"},
    {"fig18_early_sync_512k_alpha1", "ratio", 0, true, "§5.4: α = 1.0, no OOO in the tests"},
    {"fig19_512k_sync0.5_vs_dcqcn", "x", 1.48, true, "§5.4: ~48% above DCQCN at any ratio"},
    {"fig19_32k_sync0.6_vs_dcqcn", "x", 1.13, true, "§5.4: 13-49% above DCQCN at 0-60%"},
    {"fig19_32k_sync0.8_vs_dcqcn", "x", 0.8372, true, "§5.4: 16.28% below DCQCN at 80%"},
    {"fig19_512k_sync0.5_stopwait_vs_dcqcn", "x", 1.48, true,
     "§5.4: Stop-Wait ~30 Gbps too at 512 KB, ~48% above DCQCN"},
    {"fig19_32k_sync0.6_stopwait_vs_mprdma", "ratio", 0, false,
     "§5.4: Stop-Wait below half of MP-RDMA's (a bound)"},
    {"fig19_32k_sync0.8_stopwait_vs_mprdma", "ratio", 0, false,
     "§5.4: Stop-Wait below half of MP-RDMA's (a bound)"},
};

/* The permutation of MP-RDMA flows with msg_pkts-packet messages, sync share and α. */
static int sync_run(const struct fig_variant *v, uint64_t seed, unsigned msg_pkts,
		    uint32_t sync_ppm, double alpha, enum mpr_sync_wait wait, double *early,
		    double *total)
{
	struct ps_cfg c;
	int f[PERM_FLOWS];
	unsigned used;
	double min_share;

	paths_profile(&c, seed);
	struct mpr_cfg m = mp(&c, v);

	m.msg_pkts = msg_pkts;
	m.sync_ppm = sync_ppm;
	m.alpha_q16 = (uint32_t)(alpha * MPR_ONE);
	m.sync_wait = wait;
	struct pathsim *ps = perm(&c, &m, false, seed, 0, f, &used);

	if (!ps)
		return -EINVAL;
	*total = flows_goodput(ps, f, PERM_FLOWS, 200 * MS, 700 * MS, 4 * 250e6 * ETA, &min_share);
	unsigned long long drops = 0, sync_pkts = 0;

	for (unsigned i = 0; i < PERM_FLOWS; i++) {
		const struct mpr_rcv *r = ps_flow_receiver(ps, f[i]);

		drops += r->st.sync_drops;
		sync_pkts += (unsigned long long)((double)r->st.delivered * sync_ppm / 1e6);
	}
	*early = sync_pkts ? (double)drops / (double)sync_pkts : 0;
	ps_free(ps);
	return 0;
}

static int run_fig18(const struct fig_variant *v, uint64_t seed, double *val)
{
	static const double alpha[] = {0.25, 0.5, 1.0};
	double total, single, unused, used;
	struct ps_cfg c;

	for (unsigned i = 0; i < 3; i++)
		if (sync_run(v, seed, 32, 500000, alpha[i], MPR_SYNC_DELAY, &val[i], &total))
			return -EINVAL;
	if (sync_run(v, seed, 512, 500000, 1.0, MPR_SYNC_DELAY, &val[3], &total))
		return -EINVAL;
	/* DCQCN's single paths on the same fabric and seed (Fig. 12's), as the paper compares */
	paths_profile(&c, seed);
	if (single_perm(&c, seed, BASE_DCQCN, &single, &unused, &used))
		return -EINVAL;
	static const struct {
		unsigned pkts;
		uint32_t ppm;
	} cases[] = {{512, 500000}, {32, 600000}, {32, 800000}};

	double mprdma[3], stop;

	for (unsigned i = 0; i < 3; i++) {
		if (sync_run(v, seed, cases[i].pkts, cases[i].ppm, 1.0, MPR_SYNC_DELAY, &unused,
			     &mprdma[i]))
			return -EINVAL;
		val[4 + i] = single > 0 ? mprdma[i] / single : 0;
	}
	/* the paper's MP-RDMA (Stop-Wait): against DCQCN at 512 KB, against MP-RDMA at 32 KB */
	if (sync_run(v, seed, 512, 500000, 1.0, MPR_SYNC_STOP_WAIT, &unused, &stop))
		return -EINVAL;
	val[7] = single > 0 ? stop / single : 0;
	for (unsigned i = 1; i < 3; i++) {
		if (sync_run(v, seed, 32, cases[i].ppm, 1.0, MPR_SYNC_STOP_WAIT, &unused, &stop))
			return -EINVAL;
		val[7 + i] = mprdma[i] > 0 ? stop / mprdma[i] : 0;
	}
	return 0;
}

/*
 * Eunomia (../shared/papers/eunomia.txt) under a spraying sender, the
 * setups of tests/transport/sim/eunomia_figures_test.c: 60 connections of
 * 16 KB to 4 MB on 20 QPs of one receiver NIC, *paths*, 16 VPs 4 a path,
 * round-robin; backlogged (a finished connection is replaced at once) or
 * arriving as a Poisson process.  Its section 5 compares a spraying load
 * balancer over Eunomia with ECMP (each connection on one VP, in order, a
 * receiver without ordering support) by mean FCT at 80% load, and with
 * ConWeave (conweave.h: each connection on one path at a time, rerouted
 * when a round trip is late, the destination ToR holding the new path's
 * packets until the old path's TAIL; the NIC without ordering support).
 */
static const struct fig_metric eunomia_m[] = {
    {"eu_nofault_goodput", "of-optimal", 0, false, "no number: sprayed, nothing lost"},
    {"eu_gbn_vs_eunomia_nofault", "ratio", 0, false,
     "Fig. 1(c): go-back-N recovers from reordering"},
    {"eu_bitmap_vs_static256", "ratio", 0, false, "Figs. 10, 18(c): lower (a plot)"},
    {"eu_total_vs_static256", "ratio", 0, false, "Fig. 9(d): above 1 past 60% of QPs reordering"},
    {"eu_total_vs_static256_load", "ratio", 0, false, "Fig. 9(d), 40 Mbit/s offered (a plot)"},
    {"eu_fct_vs_ecmp_load80", "ratio", 0.15, true,
     "§1, §5.1: mean FCT up to 85% below ECMP's at 80%"},
    {"eu_fct_vs_conweave_load80", "ratio", 0.48, true,
     "§1, §5.1: mean FCT up to 52% below ConWeave's at 80%"},
    {"conweave_fct_vs_ecmp_load80", "ratio", 0, false, "Fig. 11: ConWeave below ECMP (a plot)"},
    {"conweave_flush_timeouts", "ratio", 0, false,
     "VOQs released before their TAIL (the NIC sees reordering)"},
    {"eu_idle_bytes", "B", 4, true, "Table 1: 4 B, the DBA alone"},
    {"eu_max_bytes", "B", 82, true, "Table 1: 82 B (50 B metadata, 32 B bitmap)"},
};

/* The mean gap between the §5 workload's connections arriving to offer bps of payload. */
static uint64_t s5_gap(double bps)
{
	/* a connection's mean payload (log-uniform 16-4096 packets) over the offered rate */
	double mean_bits = (4096.0 - 16) / log(4096.0 / 16) * 1024 * 8;

	return (uint64_t)(mean_bits / bps * 1e9);
}

/*
 * The §5 workload on ps: 60 connections of 16 KB to 4 MB, 20 QPs at once,
 * sprayed over vps_per_path VPs of each of c's paths (IW 4), arriving
 * every arrive_mean_ns on average (0: backlogged); ConWeave's base RTT
 * between the ToRs is both ways and a packet's serialisation.
 */
static void s5_workload(struct ps_spray_cfg *sc, const struct pathsim *ps, const struct ps_cfg *c,
			unsigned vps_per_path, uint64_t seed, uint64_t arrive_mean_ns)
{
	*sc = (struct ps_spray_cfg){.n_conns = 60,
				    .concurrent = 20,
				    .min_pkts = 16,
				    .max_pkts = 4096,
				    .arrive_mean_ns = arrive_mean_ns,
				    .seed = 7 + seed - 1};
	spr_cfg_default(&sc->snd);
	for (unsigned p = 0; p < c->n_paths; p++)
		for (unsigned j = 0; j < vps_per_path; j++)
			sc->snd.vps[sc->snd.n_vps++] = ps_vp_on(ps, p, j);
	sc->snd.iw = 4;
	cw_cfg_default(&sc->cw, c->n_paths,
		       2 * c->path[0].delay_ns +
			   c->data_bytes * 8000000000ULL / c->path[0].rate_bps);
}

/* How connections take the paths in the failure sweep. */
enum fail_lb { FAIL_PS, FAIL_VPSPRAY, FAIL_ECMP, FAIL_CONWEAVE, FAIL_LBS };

/*
 * §5.6 (Fig. 19) in miniature: eight paths of 125 Mbit/s (1 Gbit/s in all,
 * as *paths*), the routing recomputed around a failure (a VP on a failed
 * path hashes over the live ones; its queue and wire are drained).  As the
 * paper, every 100 ms the failed paths come back and `failed` others fail,
 * drawn at random (425 round trips here against the paper's 12,500: the
 * failures change thirty times as often for a flow, and every connection
 * sees some).  The §5 workload at 80% load over the ToR's round-robin spray
 * and Eunomia (the paper's PS), the sender's spray over 16 VPs and
 * Eunomia (rocelab's `--workload spray`), ECMP and ConWeave over go-back-N.
 * The mean FCT, 0 when a connection did not complete in 30 s.
 */
static int fail_run(uint64_t seed, enum fail_lb lb, unsigned failed, double *fct_ms)
{
	struct ps_cfg c;
	bool eunomia = lb == FAIL_PS || lb == FAIL_VPSPRAY;
	struct ps_spray_cfg sc;
	uint64_t rng = 0xfa11 + seed;
	bool down[8] = {false};

	ps_cfg_default(&c, 8);
	for (int i = 0; i < 8; i++) {
		c.path[i].delay_ns = 100 * US;
		c.path[i].rate_bps = 125000000;
		c.path[i].ecn_k_bytes = 6 * 1098;
	}
	seeded(&c, seed);
	c.reroute = true;
	struct pathsim *ps = ps_new(&c);

	if (!ps)
		return -ENOMEM;
	s5_workload(&sc, ps, &c, 2, seed, s5_gap(0.8e9));
	sc.rx = eunomia ? ORD_EUNOMIA : ORD_GBN;
	sc.snd.gbn = !eunomia;
	sc.snd.ecmp = !eunomia;
	sc.switch_spray = lb == FAIL_PS;
	sc.conweave = lb == FAIL_CONWEAVE;
	if (ps_add_spray(ps, &sc)) {
		ps_free(ps);
		return -EINVAL;
	}
	const struct ps_spray_stats *st = ps_spray_stats(ps, NULL);

	for (uint64_t t = 10 * MS; !st->done_ns && t <= 30000 * MS; t += 10 * MS) {
		if (failed && t % (100 * MS) == 10 * MS) {
			memset(down, 0, sizeof(down));
			for (unsigned k = 0; k < failed && k < 8;) {
				unsigned p = (unsigned)(mpr_rand(&rng) % 8);

				k += !down[p];
				down[p] = true;
			}
			for (unsigned p = 0; p < 8; p++)
				ps_fail(ps, p, down[p]);
		}
		ps_run_until(ps, t);
	}
	*fct_ms = st->done_ns ? (double)st->fct_sum_ns / st->completed / 1e6 : 0;
	ps_free(ps);
	return 0;
}

static const struct fig_metric eu_fail_m[] = {
    {"eu_fail1_ps_vs_ecmp", "ratio", 0, false, "Fig. 19: PS + Eunomia below ECMP (a plot)"},
    {"eu_fail2_ps_vs_ecmp", "ratio", 0, false, "Fig. 19: PS + Eunomia below ECMP (a plot)"},
    {"eu_fail1_ps_slowdown", "x", 0, false, "Fig. 19: PS + Eunomia holds its FCT (a plot)"},
    {"eu_fail2_ps_slowdown", "x", 0, false, "Fig. 19: PS + Eunomia holds its FCT (a plot)"},
    {"eu_fail1_ecmp_slowdown", "x", 0, false, "Fig. 19: ECMP deteriorates (a plot)"},
    {"eu_fail2_ecmp_slowdown", "x", 0, false, "Fig. 19: ECMP deteriorates (a plot)"},
    {"eu_fail1_vpspray_slowdown", "x", 0, false, "not in the paper: the sender's spray"},
    {"eu_fail2_vpspray_slowdown", "x", 0, false, "not in the paper: the sender's spray"},
    {"eu_fail1_conweave_slowdown", "x", 0, false,
     "§5.6: ConWeave, no flow completes past 2% of links (0: not all did)"},
    {"eu_fail2_conweave_slowdown", "x", 0, false,
     "§5.6: ConWeave, no flow completes past 2% of links (0: not all did)"},
};

static int run_eu_fail(const struct fig_variant *v, uint64_t seed, double *val)
{
	double fct[FAIL_LBS][3];
	static const int col[FAIL_LBS] = {
	    [FAIL_PS] = 2, [FAIL_ECMP] = 4, [FAIL_VPSPRAY] = 6, [FAIL_CONWEAVE] = 8};

	(void)v; /* no MP-RDMA here */
	for (int lb = 0; lb < FAIL_LBS; lb++)
		for (unsigned k = 0; k <= 2; k++)
			if (fail_run(seed, lb, k, &fct[lb][k]))
				return -EINVAL;
	for (unsigned k = 1; k <= 2; k++) {
		val[k - 1] = fct[FAIL_ECMP][k] > 0 ? fct[FAIL_PS][k] / fct[FAIL_ECMP][k] : 0;
		for (int lb = 0; lb < FAIL_LBS; lb++)
			val[col[lb] + k - 1] = fct[lb][0] > 0 ? fct[lb][k] / fct[lb][0] : 0;
	}
	return 0;
}

/* One spraying workload to its end (at most 30 s); 0, or -errno. */
static int spray_run(uint64_t seed, enum ord_kind kind, bool ecmp, bool conweave, bool degraded,
		     uint64_t arrive_mean_ns, struct ps_spray_stats *out)
{
	struct ps_cfg c;
	const struct ord_rx *rx;
	struct ps_spray_cfg sc;

	paths_profile(&c, seed);
	if (degraded)
		c.path[2].rate_bps = 25000000;
	struct pathsim *ps = ps_new(&c);

	if (!ps)
		return -ENOMEM;
	s5_workload(&sc, ps, &c, 4, seed, arrive_mean_ns);
	sc.rx = kind;
	sc.snd.gbn = kind == ORD_GBN;
	sc.snd.ecmp = ecmp;
	sc.conweave = conweave;
	if (ps_add_spray(ps, &sc)) {
		ps_free(ps);
		return -EINVAL;
	}
	const struct ps_spray_stats *st = ps_spray_stats(ps, &rx);

	for (uint64_t t = 10 * MS; !st->done_ns && t <= 30000 * MS; t += 10 * MS)
		ps_run_until(ps, t);
	*out = *st;
	ps_free(ps);
	return out->done_ns ? 0 : -ETIMEDOUT;
}

static double spray_goodput(const struct ps_spray_stats *st)
{
	return (double)st->delivered * 1024 * 8 / ((double)st->done_ns / 1e9);
}

static double mem_ratio(const struct ps_spray_stats *st, bool bitmap)
{
	double a = (double)(bitmap ? st->mem_sum.bitmap : st->mem_sum.total),
	       b = (double)(bitmap ? st->mem_sum.static_bitmap : st->mem_sum.static_total);

	return b > 0 ? a / b : 0;
}

static int run_eunomia(const struct fig_variant *v, uint64_t seed, double *val)
{
	struct ps_spray_stats eu, gbn, deg, load, spray80, ecmp80, cw80;
	uint64_t gap80 = s5_gap(0.8e9), gap40m = s5_gap(40e6);

	(void)v; /* the spraying sender is Eunomia's, whatever MP-RDMA's variant */
	if (spray_run(seed, ORD_EUNOMIA, false, false, false, 0, &eu) ||
	    spray_run(seed, ORD_GBN, false, false, false, 0, &gbn) ||
	    spray_run(seed, ORD_EUNOMIA, false, false, true, 0, &deg) ||
	    spray_run(seed, ORD_EUNOMIA, false, false, true, gap40m, &load) ||
	    spray_run(seed, ORD_EUNOMIA, false, false, false, gap80, &spray80) ||
	    spray_run(seed, ORD_GBN, true, false, false, gap80, &ecmp80) ||
	    spray_run(seed, ORD_GBN, true, true, false, gap80, &cw80))
		return -EINVAL;
	val[0] = spray_goodput(&eu) / (4 * 250e6 * ETA);
	val[1] = spray_goodput(&gbn) / spray_goodput(&eu);
	val[2] = mem_ratio(&deg, true);
	val[3] = mem_ratio(&deg, false);
	val[4] = mem_ratio(&load, false);
	val[5] = (double)spray80.fct_sum_ns / (double)(ecmp80.fct_sum_ns ? ecmp80.fct_sum_ns : 1);
	val[6] = (double)spray80.fct_sum_ns / (double)(cw80.fct_sum_ns ? cw80.fct_sum_ns : 1);
	val[7] = (double)cw80.fct_sum_ns / (double)(ecmp80.fct_sum_ns ? ecmp80.fct_sum_ns : 1);
	unsigned long long flushes = cw80.cw.flush_tail + cw80.cw.flush_timeout;

	val[8] = flushes ? (double)cw80.cw.flush_timeout / (double)flushes : 0;
	val[9] = EU_DBA_BYTES;
	val[10] = (double)(EU_DBA_BYTES + EU_META_BLOCKS * 2 + EU_CAP_ROWS * EU_BLOCK_BITS / 8);
	return 0;
}

/*
 * What MP-RDMA adds to a connection, as the paper counts it (Table 1, 66 B;
 * the Eunomia paper's Table 1 splits it 49 B + a 17 B bitmap): the sender's
 * state at hardware widths (mpr_snd_bytes()) beyond what a RoCE v2 RC
 * sender holds anyway (the next PSN, the acknowledged PSN, the retry timer
 * and its count: 11 B), and the 64-slot receiver's bitmap with its head.
 */
static const struct fig_metric state_m[] = {
    {"state_extra_bytes", "B", 66, true, "§4 and Table 1: 66 B a connection"},
};

#define ROCE_RC_SENDER_BYTES (3 + 3 + 4 + 1)

static int run_state(const struct fig_variant *v, uint64_t seed, double *val)
{
	struct mpr_cfg m = with_variant(v);
	struct mpr_rcv r;

	(void)seed;
	if (mpr_cfg_check(&m, NULL) || mpr_rcv_init_cfg(&r, &m))
		return -EINVAL;
	val[0] = (double)(mpr_snd_bytes(&m) - ROCE_RC_SENDER_BYTES + mpr_rcv_bytes(&r));
	return 0;
}

/* ---- the baselines side by side -------------------------------------------------------- */

const char fig_timeline_faults[] = "blackhole, lossy, degraded";

static const struct {
	const char *name, *what;
	unsigned hit;
} tl_faults[] = {
    {"blackhole", "path 1 drops everything", 1},
    {"lossy", "paths 0-2 lose 5% of the data", 0},
    {"degraded", "path 2 at 1/40 of its rate", 2},
};

static void tl_fault(struct pathsim *ps, unsigned k, bool on)
{
	if (k == 0)
		ps_path(ps, 1)->down = on;
	else if (k == 1)
		for (unsigned i = 0; i < 3; i++)
			ps_path(ps, i)->loss_ppm = on ? 50000 : 0;
	else
		ps_path(ps, 2)->rate_bps = on ? 250000000 / 40 : 250000000;
}

/* Series i's sender on c: the three single paths, MP-RDMA, MP-RDMA over Eunomia. */
static struct mpr_cfg tl_cfg(const struct ps_cfg *c, unsigned i, const char **name)
{
	static const char *const names[TL_SERIES] = {"go-back-N (rxe)", "DCQCN", "IRN over DCQCN",
						     "MP-RDMA", "MP-RDMA over Eunomia"};
	struct fig_variant v;
	struct mpr_cfg m;

	*name = names[i];
	if (i < 3)
		return base_cfg(c, i == 0 ? BASE_RXE : i == 1 ? BASE_DCQCN : BASE_IRN);
	fig_variant_rocelab(&v);
	m = mp(c, &v);
	if (i == 4) {
		m.eunomia_rx = true;
		m.bitmap = EU_CAP_ROWS * EU_BLOCK_BITS;
		m.ooo_aware = false;
	}
	return m;
}

static double tl_mean(const double *x, unsigned from_ms, unsigned to_ms)
{
	double sum = 0;
	unsigned n = 0;

	for (unsigned b = from_ms / TL_BIN_MS; b < to_ms / TL_BIN_MS && b < TL_BINS; b++, n++)
		sum += x[b];
	return n ? sum / n : 0;
}

int fig_timeline(const char *fault, uint64_t seed, struct fig_timeline *tl)
{
	unsigned k;

	for (k = 0; k < sizeof(tl_faults) / sizeof(tl_faults[0]); k++)
		if (!strcmp(fault, tl_faults[k].name))
			break;
	if (k == sizeof(tl_faults) / sizeof(tl_faults[0]))
		return -EINVAL;
	memset(tl, 0, sizeof(*tl));
	tl->fault = tl_faults[k].name;
	tl->seed = seed;
	tl->what = tl_faults[k].what;
	tl->hit_path = tl_faults[k].hit;
	for (unsigned i = 0; i < TL_SERIES; i++) {
		struct ps_cfg c;

		paths_profile(&c, seed);
		struct mpr_cfg m = tl_cfg(&c, i, &tl->name[i]);
		struct pathsim *ps = ps_new(&c);
		int f;

		if (!ps)
			return -ENOMEM;
		if (i < 3)
			m.vp_lo = m.vp_hi = ps_vp_on(ps, tl->hit_path, 0);
		if ((f = ps_add_flow(ps, &m, flow_seed(1, seed), 0)) < 0) {
			ps_free(ps);
			return -EINVAL;
		}
		for (unsigned b = 0; b < TL_BINS; b++) {
			uint64_t t0 = (uint64_t)b * TL_BIN_MS * MS;

			if (b * TL_BIN_MS == TL_FROM_MS || b * TL_BIN_MS == TL_TO_MS)
				tl_fault(ps, k, b * TL_BIN_MS == TL_FROM_MS);
			tl->mbit[i][b] = ps_goodput(ps, f, t0, t0 + TL_BIN_MS * MS) / 1e6;
		}
		ps_free(ps);
		tl->before[i] = tl_mean(tl->mbit[i], TL_FROM_MS / 2, TL_FROM_MS);
		tl->during[i] = tl_mean(tl->mbit[i], TL_FROM_MS, TL_TO_MS);
		tl->after[i] =
		    tl_mean(tl->mbit[i], TL_TO_MS + (TL_END_MS - TL_TO_MS) / 2, TL_END_MS);
	}
	return 0;
}

#define FIG(n, t, m, r)                                                                            \
	{                                                                                          \
		n, t, sizeof(m) / sizeof((m)[0]), m, r                                             \
	}

static const struct fig_def figs[] = {
    FIG("nofault", "four 250 Mbit/s paths, no fault; the single path on one", nofault_m,
	run_nofault),
    FIG("fig5", "10 flows x 8 VPs, paths 125-500 Mbit/s, RED Pmax 0.2-0.8, OOO control off", fig5_m,
	run_fig5),
    FIG("fig11a", "host 1 Gbit/s, paths 0-2 lose 0.5/1/5/10%; the single path on each path",
	fig11a_m, run_fig11a),
    FIG("fig11a-lab", "the lab's BDP: host 100 Mbit/s, 3.1 ms RTT, paths 0-2 lose 10% both ways",
	fig11a_lab_m, run_fig11a_lab),
    FIG("fig11b", "four 250 Mbit/s paths, path 1 blackholed at 200 ms, restored at 600 ms",
	fig11b_m, run_fig11b),
    FIG("fig14",
	"path 2 at 1/40 (host profile); path 3 marking at 12x (paths profile); L 64 / "
	"1024, Δ 32",
	fig14_m, run_fig14),
    FIG("fig12", "permutation: 5 connections over four 250 Mbit/s paths; 5 single paths by ECMP",
	fig12_m, run_fig12),
    FIG("fig15", "four 250 Mbit/s paths, a single-path flow joins path 3 at 300 ms", fig15_m,
	run_fig15),
    FIG("fig16", "1 to 8 flows join a 1 Gbit/s bottleneck, 150 ms apart", fig16_m, run_fig16),
    FIG("fig18", "the permutation with 32/512-packet messages, a share synchronise; α 0.25-1",
	fig18_m, run_fig18),
    FIG("eunomia", "60 connections sprayed over 16 VPs of four 250 Mbit/s paths; ECMP at 80% load",
	eunomia_m, run_eunomia),
    FIG("eu_fail",
	"§5.6: 1 and 2 of eight paths failed, routed around; FCT against none, "
	"80% load",
	eu_fail_m, run_eu_fail),
    FIG("state", "the state MP-RDMA adds to a connection", state_m, run_state),
};

_Static_assert(sizeof(fig11a_m) / sizeof(fig11a_m[0]) <= FIG_METRICS_MAX, "fig11a fits");
_Static_assert(sizeof(fig14_m) / sizeof(fig14_m[0]) <= FIG_METRICS_MAX, "fig14 fits");

const struct fig_def *fig_all(unsigned *n)
{
	*n = sizeof(figs) / sizeof(figs[0]);
	return figs;
}

const struct fig_def *fig_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(figs) / sizeof(figs[0]); i++)
		if (!strcmp(figs[i].name, name))
			return &figs[i];
	return NULL;
}

/* Student's t at 0.975 for 1..30 degrees of freedom; 1.96 beyond. */
static const double t975[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
			      2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
			      2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
			      2.060,  2.056, 2.052, 2.048, 2.045, 2.042};

void fig_mean_ci95(const double *x, unsigned n, double *mean, double *half)
{
	double s = 0, ss = 0;

	for (unsigned i = 0; i < n; i++)
		s += x[i];
	*mean = n ? s / n : 0;
	*half = 0;
	if (n < 2)
		return;
	for (unsigned i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	double t = n - 1 <= 30 ? t975[n - 2] : 1.96;

	*half = t * sqrt(ss / (n - 1)) / sqrt((double)n);
	if (*half <= 1e-9 * fabs(*mean))
		*half = 0; /* equal values whose mean rounded */
}
