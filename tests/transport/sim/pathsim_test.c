// SPDX-License-Identifier: MIT
/*
 * The path simulator driving MP-RDMA and the single-path baseline:
 * determinism, RED and step marking, phases, go-back-N on a lossy path and
 * the integrity of a finite flow over loss.  The paper's figures are in
 * figures_test.c.
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

/*
 * One flow on one 100 Mbit/s path marking from 20 packets: held below that
 * it is never marked; above, RED's ramp (to Pmax 0.5 at 200 packets) lets
 * the queue settle deeper than a step at 20 would, with fewer marks.
 */
Test(pathsim, red_marks_on_a_ramp)
{
	double share[3];
	uint64_t srtt[3];

	for (int i = 0; i < 3; i++) {
		struct ps_cfg c;
		struct mpr_cfg m = mp();

		ps_cfg_default(&c, 1);
		c.path[0].delay_ns = 100 * US;
		c.path[0].rate_bps = 100000000; /* BDP about 2.3 packets */
		c.path[0].ecn_k_bytes = 20 * 1098;
		c.path[0].red_kmax_bytes = i ? 200 * 1098 : 0;
		c.path[0].red_pmax_ppm = i ? 500000 : 0;
		c.path[0].qlimit_bytes = 1 << 20;
		m.iw = 10;
		m.cwnd_max = i == 2 ? 10 : 1000; /* 2: never 20 queued */
		struct pathsim *ps = ps_new(&c);

		cr_assert_not_null(ps);
		int f = ps_add_flow(ps, &m, 1, 0);

		ps_run_until(ps, 500 * MS);
		const struct ps_path_stats *st = ps_path_stats(ps, 0);

		share[i] = (double)st->marked / (double)st->data;
		srtt[i] = ps_flow_sender(ps, f)->srtt;
		ps_free(ps);
	}
	cr_log_info("marked: step %.3f, ramp %.3f, held low %.3f; RTT step %llu, ramp %llu ns",
		    share[0], share[1], share[2], (unsigned long long)srtt[0],
		    (unsigned long long)srtt[1]);
	cr_assert_eq(share[2], 0, "below Kmin: %.3f", share[2]);
	cr_assert(share[0] > 0 && share[1] > 0 && share[1] < share[0],
		  "marked: step %.3f, ramp %.3f", share[0], share[1]);
	cr_assert_gt(srtt[1], srtt[0] * 13 / 10, "RTT: step %llu, ramp %llu ns",
		     (unsigned long long)srtt[0], (unsigned long long)srtt[1]);

	struct ps_cfg c;

	ps_cfg_default(&c, 1);
	c.path[0].red_pmax_ppm = 500000; /* no Kmin, Kmax */
	errno = 0;
	cr_assert_null(ps_new(&c));
	cr_assert_eq(errno, EINVAL);
}

/* A new phase: the counters restart, the flow does not. */
Test(pathsim, stats_reset_starts_a_phase)
{
	struct ps_cfg c;
	struct mpr_cfg m = mp();

	four_paths(&c);
	struct pathsim *ps = ps_new(&c);
	int f = ps_add_flow(ps, &m, 1, 30000);

	ps_run_until(ps, 20 * MS);
	unsigned long long before = ps_flow_stats(ps, f)->delivered;

	cr_assert_gt(before, 1000);
	ps_flow_stats_reset(ps, f);
	cr_assert_eq(ps_flow_stats(ps, f)->delivered, 0);
	cr_assert_eq(ps_flow_stats(ps, f)->ood.n, 0);
	ps_run_until(ps, 2000 * MS);
	cr_assert_gt(ps_flow_stats(ps, f)->done_ns, 0);
	cr_assert_eq(before + ps_flow_stats(ps, f)->delivered, 30000);
	ps_free(ps);
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

		g[lossy] = ps_goodput(ps, f, 100 * MS, 600 * MS);
		for (int i = 1; i < 4; i++)
			cr_assert_eq(ps_flow_stats(ps, f)->sent[i], 0, "one path only");
		ps_free(ps);
	}
	cr_assert_gt(g[0], 0.85e9 * 1024 / 1098, "clean: %.0f bit/s", g[0]);
	cr_assert_lt(g[1], 0.5 * g[0], "1%% loss: %.0f of %.0f bit/s", g[1], g[0]);
}

/*
 * A path failed with the routing recomputed (Eunomia's section 5.6): its
 * queue and wire are drained, its VPs hash over the live paths, replies
 * take a live one; without reroute a down path stays a blackhole.  A
 * finite MP-RDMA flow completes over a failure and a repair.
 */
Test(pathsim, a_failed_path_drains_and_is_routed_around)
{
	struct ps_cfg c;
	struct mpr_cfg m = mp();
	struct pathsim *ps;
	uint16_t vp;

	four_paths(&c);
	c.reroute = true;
	ps = ps_new(&c);
	cr_assert_not_null(ps);
	vp = ps_vp_on(ps, 2, 0);
	cr_assert_eq(ps_path_of(ps, vp), 2);
	int f = ps_add_flow(ps, &m, 3, 40000);

	ps_run_until(ps, 100 * MS);
	cr_assert_gt(ps_path_stats(ps, 2)->data, 0);
	ps_fail(ps, 2, true);
	cr_assert(ps_path(ps, 2)->down);
	cr_assert_neq(ps_path_of(ps, vp), 2, "routed around the failed path");
	cr_assert_eq(ps_vp_on(ps, 2, 0), vp, "a VP's hash is still its own");
	unsigned long long data = ps_path_stats(ps, 2)->data;

	ps_run_until(ps, 110 * MS);
	cr_assert_gt(ps_path_stats(ps, 2)->drained, 0, "what was on it was lost");
	cr_assert_eq(ps_path_stats(ps, 2)->data, data, "nothing more sent on it");
	ps_fail(ps, 2, false);
	cr_assert_eq(ps_path_of(ps, vp), 2, "back on its own path when repaired");
	ps_run_until(ps, 3000 * MS);
	cr_assert_gt(ps_flow_stats(ps, f)->done_ns, 0, "not done: %u of 40000",
		     ps_flow_sender(ps, f)->snd_una);
	cr_assert_eq(ps_flow_receiver(ps, f)->st.delivered, 40000);
	ps_free(ps);

	c.reroute = false;
	ps = ps_new(&c);
	ps_fail(ps, 2, true);
	cr_assert_eq(ps_path_of(ps, vp), 2, "without reroute: a blackhole");
	ps_free(ps);
}
