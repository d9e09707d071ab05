// SPDX-License-Identifier: MIT
/*
 * The path simulator driving MP-RDMA and the single-path baseline: the
 * behaviours of the paper's figures that hold today (a blackholed path
 * abandoned and a restored one reused, Fig. 11(b); out-of-order control on
 * a path degraded to 1/40, Fig. 14; go-back-N on a lossy path), determinism
 * and the integrity of a finite flow over loss.
 */
#include "transport/sim/pathsim.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#define US 1000ULL
#define MS 1000000ULL

/* Four paths of 250 Mbit/s, 100 µs each way, step ECN at 20 packets. */
static void four_paths(struct ps_cfg *c)
{
	ps_cfg_default(c, 4);
	for (int i = 0; i < 4; i++) {
		c->path[i].delay_ns = 100 * US;
		c->path[i].rate_bps = 250000000;
		c->path[i].ecn_k_bytes = 20 * 1098;
	}
}

static struct mpr_cfg mp(void)
{
	struct mpr_cfg m;

	mpr_cfg_default(&m);
	m.iw = 16;
	m.srtt_init_ns = 200 * US;
	m.rto_min_ns = 5 * MS;
	return m;
}

/* Goodput in payload bits per second over [t0, t1]. */
static double goodput(struct pathsim *ps, int f, uint64_t t0, uint64_t t1)
{
	ps_run_until(ps, t0);
	unsigned long long d0 = ps_flow_stats(ps, f)->delivered;

	ps_run_until(ps, t1);
	return (double)(ps_flow_stats(ps, f)->delivered - d0) * 1024 * 8 /
	       ((double)(t1 - t0) / 1e9);
}

static unsigned long long sent_total(const struct ps_flow_stats *st)
{
	unsigned long long n = 0;

	for (int i = 0; i < 4; i++)
		n += st->sent[i];
	return n;
}

Test(pathsim, bad_configurations_are_refused)
{
	struct ps_cfg c;
	struct mpr_cfg m = mp();

	ps_cfg_default(&c, 0);
	errno = 0;
	cr_assert_null(ps_new(&c));
	cr_assert_eq(errno, EINVAL);
	four_paths(&c);
	struct pathsim *ps = ps_new(&c);

	cr_assert_not_null(ps);
	m.delta = 0;
	cr_assert_eq(ps_add_flow(ps, &m, 1, 0), -EINVAL);
	ps_free(ps);
}

Test(pathsim, same_seed_same_run)
{
	struct ps_cfg c;
	struct mpr_cfg m = mp();
	struct pathsim *a, *b;

	four_paths(&c);
	c.path[1].loss_ppm = 10000;
	a = ps_new(&c);
	b = ps_new(&c);
	cr_assert(a && b);
	ps_add_flow(a, &m, 7, 0);
	ps_add_flow(b, &m, 7, 0);
	ps_run_until(a, 50 * MS);
	ps_run_until(b, 50 * MS);
	cr_assert_gt(ps_flow_stats(a, 0)->delivered, 1000);
	cr_assert_eq(memcmp(ps_flow_stats(a, 0), ps_flow_stats(b, 0), sizeof(struct ps_flow_stats)),
		     0);
	cr_assert_eq(memcmp(ps_path_stats(a, 1), ps_path_stats(b, 1), sizeof(struct ps_path_stats)),
		     0);
	ps_free(a);
	ps_free(b);
}

/* Every packet of a finite flow arrives once, in order, over lossy and reordering paths. */
Test(pathsim, a_finite_flow_completes_over_loss)
{
	struct ps_cfg c;
	struct mpr_cfg m = mp();
	struct pathsim *ps;

	four_paths(&c);
	c.path[0].loss_ppm = 20000;
	c.path[2].delay_ns = 300 * US; /* reordering */
	ps = ps_new(&c);
	cr_assert_not_null(ps);
	int f = ps_add_flow(ps, &m, 3, 20000);

	ps_run_until(ps, 2000 * MS);
	cr_assert_gt(ps_flow_stats(ps, f)->done_ns, 0, "not done: %u of 20000 acknowledged",
		     ps_flow_sender(ps, f)->snd_una);
	cr_assert_eq(ps_flow_stats(ps, f)->delivered, 20000);
	cr_assert_eq(ps_flow_receiver(ps, f)->st.delivered, 20000);
	cr_assert_gt(ps_flow_sender(ps, f)->st.retx, 0);
	ps_free(ps);
}

/* Fig. 11(b): a blackholed path loses its ACK clock at once; a restored one is found by probing. */
Test(pathsim, blackholed_path_is_abandoned_and_reused_after_repair)
{
	struct ps_cfg c;
	struct mpr_cfg m = mp();
	struct pathsim *ps;
	unsigned long long before[4];
	unsigned busy = 0;

	four_paths(&c);
	ps = ps_new(&c);
	cr_assert_not_null(ps);
	int f = ps_add_flow(ps, &m, 1, 0);
	const struct ps_flow_stats *st = ps_flow_stats(ps, f);

	ps_run_until(ps, 190 * MS);
	memcpy(before, st->sent, sizeof(before));
	ps_run_until(ps, 200 * MS);
	for (unsigned i = 1; i < 4; i++)
		if (st->sent[i] - before[i] > st->sent[busy] - before[busy])
			busy = i;
	cr_assert_gt(st->sent[busy] - before[busy], 100, "path %u carried traffic", busy);

	ps_path(ps, busy)->down = true;
	ps_run_until(ps, 202 * MS); /* 10 round trips */
	unsigned long long dead0 = st->sent[busy], all0 = sent_total(st);

	ps_run_until(ps, 212 * MS);
	unsigned long long dead = st->sent[busy] - dead0, all = sent_total(st) - all0;

	cr_assert_lt(dead * 100, all, "path %u still gets %llu of %llu sends", busy, dead, all);
	cr_assert_gt(goodput(ps, f, 220 * MS, 300 * MS), 0.25e9, "the other paths carry the flow");

	ps_path(ps, busy)->down = false;
	bool reused = false;

	for (uint64_t t = 300 * MS; t < 1300 * MS && !reused; t += 50 * MS) {
		unsigned long long d0 = st->sent[busy], a0 = sent_total(st);

		ps_run_until(ps, t + 50 * MS);
		reused = (st->sent[busy] - d0) * 10 >= sent_total(st) - a0; /* >= 10% */
	}
	cr_assert(reused, "the restored path is not used again within 1 s");
	ps_free(ps);
}

/* Fig. 14: one path at 1/40; out-of-order control keeps the fast paths busy and OOD within L. */
Test(pathsim, out_of_order_control_on_a_degraded_path)
{
	double g[2];
	uint32_t ood[2];

	for (int on = 0; on < 2; on++) {
		struct ps_cfg c;
		struct mpr_cfg m = mp();

		four_paths(&c);
		c.path[2].rate_bps /= 40;
		m.ooo_aware = on;
		struct pathsim *ps = ps_new(&c);

		cr_assert_not_null(ps);
		int f = ps_add_flow(ps, &m, 1, 0);

		g[on] = goodput(ps, f, 100 * MS, 600 * MS);
		ood[on] = ps_ood_quantile(ps, f, 0.999);
		if (on)
			cr_assert_gt(ps_flow_sender(ps, f)->st.prunes, 0);
		ps_free(ps);
	}
	cr_assert_gt(g[1], 1.5 * g[0], "with control %.0f, without %.0f bit/s", g[1], g[0]);
	cr_assert_lt(ood[1], 64);
}

/* The rxe-like baseline: go-back-N on one path collapses under 1% loss. */
Test(pathsim, single_path_go_back_n_suffers_loss)
{
	double g[2];

	for (int lossy = 0; lossy < 2; lossy++) {
		struct ps_cfg c;
		struct mpr_cfg m = mp();

		ps_cfg_default(&c, 4);
		for (int i = 0; i < 4; i++)
			c.path[i].delay_ns = 260 * US; /* BDP about 60 packets at 1 Gbit/s */
		c.host_bps = 1000000000;
		c.host_ecn_k_bytes = 20 * 1098;
		c.path[0].loss_ppm = lossy ? 10000 : 0;
		m.iw = 60;
		m.single_path = true;
		struct pathsim *ps = ps_new(&c);

		cr_assert_not_null(ps);
		m.vp_lo = m.vp_hi = ps_vp_on(ps, 0, 0);
		cr_assert_eq(ps_path_of(ps, m.vp_lo), 0);
		int f = ps_add_flow(ps, &m, 1, 0);

		g[lossy] = goodput(ps, f, 100 * MS, 600 * MS);
		for (int i = 1; i < 4; i++)
			cr_assert_eq(ps_flow_stats(ps, f)->sent[i], 0, "one path only");
		ps_free(ps);
	}
	cr_assert_gt(g[0], 0.85e9 * 1024 / 1098, "clean: %.0f bit/s", g[0]);
	cr_assert_lt(g[1], 0.5 * g[0], "1%% loss: %.0f of %.0f bit/s", g[1], g[0]);
}
