// SPDX-License-Identifier: MIT
/*
 * MP-RDMA's grading figures: goodput over a phase from the receiver's
 * samples, and the fabric's optimal from the shaped links of the built-in
 * lab (paths bottleneck, host bottleneck, unshaped).
 */
#include "transport/mpr_comp.h"
#include "transport/mpr_comp_int.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

TestSuite(mpr_comp, .init = load, .fini = unload);

#define ETA (1024.0 / 1098.0)

Test(mpr_comp, optimal_paths_bottleneck)
{
	struct comp_shape s[] = {{"rail1:swp5", 50000},
				 {"rail1:swp6", 50000},
				 {"spine3:swp1", 50000}, /* the far end names the same link */
				 {"rail1:swp8", 50000}};

	cr_assert_float_eq(mpr_optimal_mbit(inv, "host1:rnic1", "host2:rnic2", s, 4), 200 * ETA,
			   1e-9);
	/* One uplink unshaped: the rig, not the fabric, is the limit, so there is no optimal. */
	cr_assert_eq(mpr_optimal_mbit(inv, "host1:rnic1", "host2:rnic2", s, 3), 0);
	/* Paths of another rail are not this flow's. */
	cr_assert_eq(mpr_optimal_mbit(inv, "host1:rnic2", "host2:rnic3", s, 4), 0);
}

/* While a fault is live: its link down (rate 0) or degraded, on either hop of a path. */
Test(mpr_comp, optimal_with_a_link_down_or_degraded)
{
	struct comp_shape s[] = {{"rail1:swp5", 50000},
				 {"rail1:swp6", 50000},
				 {"rail1:swp7", 50000},
				 {"rail1:swp8", 50000},
				 {"spine2:swp2", 0}}; /* spine2's link down to rail 2 */

	cr_assert_float_eq(mpr_optimal_mbit(inv, "host1:rnic1", "host2:rnic2", s, 5), 150 * ETA,
			   1e-9);
	/* the paper's Fig. 14: one path at 1/40 (the spine's end of the link names it too) */
	s[4] = (struct comp_shape){"rail2:swp6", 1250};
	cr_assert_float_eq(mpr_optimal_mbit(inv, "host1:rnic1", "host2:rnic2", s, 5), 151.25 * ETA,
			   1e-9);
	/* the first hop's smallest shape counts: the fabric's 50 Mbit/s and a fault's 10 */
	s[4] = (struct comp_shape){"spine1:swp1", 10000};
	cr_assert_float_eq(mpr_optimal_mbit(inv, "host1:rnic1", "host2:rnic2", s, 5), 160 * ETA,
			   1e-9);
	/* a link down on rail 3's side is not this flow's */
	s[4] = (struct comp_shape){"spine2:swp3", 0};
	cr_assert_float_eq(mpr_optimal_mbit(inv, "host1:rnic1", "host2:rnic2", s, 5), 200 * ETA,
			   1e-9);
}

Test(mpr_comp, optimal_host_bottleneck)
{
	struct comp_shape s[] = {{"host1:rnic1", 100000},
				 {"rail1:swp5", 1250},
				 {"rail1:swp6", 50000},
				 {"rail1:swp7", 50000},
				 {"rail1:swp8", 50000}};

	cr_assert_float_eq(mpr_optimal_mbit(inv, "host1:rnic1", "host2:rnic2", s, 1), 100 * ETA,
			   1e-9);
	/* The smaller of the host and the sum of the paths (151.25 Mbit/s > 100). */
	cr_assert_float_eq(mpr_optimal_mbit(inv, "host1:rnic1", "host2:rnic2", s, 5), 100 * ETA,
			   1e-9);
	s[0].rate_kbit = 400000;
	cr_assert_float_eq(mpr_optimal_mbit(inv, "host1:rnic1", "host2:rnic2", s, 5), 151.25 * ETA,
			   1e-9);
	/* The receiver's link counts as much as the sender's. */
	struct comp_shape r[] = {{"rail2:swp2", 80000}};

	cr_assert_float_eq(mpr_optimal_mbit(inv, "host1:rnic1", "host2:rnic2", r, 1), 80 * ETA,
			   1e-9);
	cr_assert_eq(mpr_optimal_mbit(inv, "host9:rnic1", "host2:rnic2", r, 1), 0);
}

Test(mpr_comp, goodput_over_a_phase)
{
	struct mpr_sample s[300];

	/* 10 ms samples from t = 100.01: 100 packets each for 1 s, then 50. */
	for (int i = 0; i < 300; i++)
		s[i] = (struct mpr_sample){.t = 100.0 + 0.01 * (i + 1),
					   .delivered = i < 100 ? 100 : 50};
	/* 100 packets of 1024 B per 10 ms: 81.92 Mbit/s. */
	cr_assert_float_eq(mpr_goodput_mbit(s, 300, 0.01, 100.0, 101.0), 81.92, 1e-6);
	cr_assert_float_eq(mpr_goodput_mbit(s, 300, 0.01, 101.0, 103.0), 40.96, 1e-6);
	/* A sample counts only when its whole interval is inside. */
	cr_assert_float_eq(mpr_goodput_mbit(s, 300, 0.01, 100.995, 101.0), -1, 1e-9);
	cr_assert_float_eq(mpr_goodput_mbit(s, 300, 0.01, 100.5, 101.5), (81.92 + 40.96) / 2, 1e-6);
	cr_assert_eq(mpr_goodput_mbit(s, 0, 0.01, 0, 1e12), -1);
}

/*
 * The OOD of a phase: the receiver's 10 ms lines' histograms summed over
 * the lines inside it.  A first second with a long tail (a path slowing
 * under packets already on it), then a short one.
 */
Test(mpr_comp, ood_fault_window_ends_where_the_revert_began)
{
	struct comp_times t = {.t_fault = 110, .t_revert = 122.3, .t_verified = 110.4};

	cr_assert_float_eq(mpr_ood_fault_to(&t, 110.4), 122.3, 1e-9); /* not known */
	t.t_unapply = 122.0;
	cr_assert_float_eq(mpr_ood_fault_to(&t, 110.4), 122.0, 1e-9);
	t.t_unapply = 109; /* before the fault: not this fault's revert */
	cr_assert_float_eq(mpr_ood_fault_to(&t, 110.4), 122.3, 1e-9);
}

Test(mpr_comp, ood_over_a_phase)
{
	char path[] = "/tmp/rocelab-ood-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct mpr_sample *s;
	json_t *end;
	size_t n;

	cr_assert_not_null(f);
	fputs("rocelab: transport recv: a line that is not a record\n", f);
	for (int i = 0; i < 200; i++)
		fprintf(f,
			"{\"type\":\"rcv\",\"t\":%.2f,\"delivered\":1000,\"ood_hist\":[[0,990],[%d,"
			"10]]}\n",
			100.0 + 0.01 * (i + 1), i < 100 ? 900 : 40);
	/* not the receiver's, or not a histogram: counted nowhere */
	fputs("{\"type\":\"snd\",\"t\":100.5,\"ood_hist\":[[5000,100000]]}\n", f);
	fputs("{\"type\":\"rcv\",\"t\":101.5,\"ood_hist\":[[-1,5],[4097,5],[7,0],\"x\"]}\n", f);
	fputs("{\"type\":\"rcv-end\",\"t\":102.5,\"ood_p999\":900}\n", f);
	fclose(f);
	n = mpr_read_log(path, "rcv", &s, &end);
	cr_assert_eq(n, 201);
	cr_assert_not_null(end);
	cr_assert_float_eq(json_number_value(json_object_get(end, "ood_p999")), 900, 1e-9);
	/* 1% at 900 in the first second: p99.9 900, p99 0 */
	cr_assert_float_eq(mpr_ood_quantile_in(s, n, 0.01, 100.0, 101.0, 0.999), 900, 1e-9);
	cr_assert_float_eq(mpr_ood_quantile_in(s, n, 0.01, 100.0, 101.0, 0.99), 0, 1e-9);
	/* the second alone, and both: half the tail at 40, half at 900 */
	cr_assert_float_eq(mpr_ood_quantile_in(s, n, 0.01, 101.0, 102.0, 0.999), 40, 1e-9);
	cr_assert_float_eq(mpr_ood_quantile_in(s, n, 0.01, 100.0, 102.0, 0.995), 40, 1e-9);
	cr_assert_float_eq(mpr_ood_quantile_in(s, n, 0.01, 100.0, 102.0, 0.996), 900, 1e-9);
	/* no line inside: none */
	cr_assert_float_eq(mpr_ood_quantile_in(s, n, 0.01, 200.0, 201.0, 0.999), -1, 1e-9);
	json_decref(end);
	mpr_samples_free(s, n);
	cr_assert_eq(mpr_read_log("/nonexistent/log", "rcv", &s, &end), 0);
	cr_assert_null(end);
	cr_assert_float_eq(mpr_ood_quantile_in(s, 0, 0.01, 0, 1e12, 0.999), -1, 1e-9);
	mpr_samples_free(s, 0);
	unlink(path);
}

/*
 * Rig-limited only when the CPU limited what a phase carried: a CI run's
 * sender was busy 92% of a baseline it carried at 0.984 of the optimal
 * (the network set the pace), and an unshaped fabric has no optimal.
 */
Test(mpr_comp, cpu_limits_a_phase_only_below_the_optimal)
{
	cr_assert_not(mpr_cpu_limited(0.92, 183.5, 186.4),
		      "busy, at the optimal: the network's pace");
	cr_assert(mpr_cpu_limited(0.92, 150.0, 186.4), "busy, well below the optimal: the CPU's");
	cr_assert_not(mpr_cpu_limited(0.89, 10.0, 186.4),
		      "an endpoint that idled is never the limit");
	cr_assert(mpr_cpu_limited(0.95, 900.0, 0), "nothing shaped: busy alone decides");
	cr_assert(mpr_cpu_limited(0.9, 0.949 * 100, 100), "the bounds are inclusive as stated");
	cr_assert_not(mpr_cpu_limited(0.9, 95.0, 100), "95%% of the optimal is the network's pace");
}

/*
 * The onset of a fault: goodput at 0.45 of the optimal the fault left for
 * half a second (the window collapsed onto one path), then 0.95.  onset-ms
 * is when 200 ms first hold 0.85 of it; the settled share counts from
 * 1.5 s in; a fault that never recovers counts the whole phase.
 */

static double metric_of(const struct comp_obs *o, const char *name)
{
	for (size_t i = 0; i < o->n_metrics; i++)
		if (!strcmp(o->metrics[i].name, name))
			return o->metrics[i].value;
	return NAN;
}

Test(mpr_comp, onset_and_the_settled_fault)
{
	struct mpr_sample s[700];
	struct mpr_state st = {.rs = s, .n_rs = 700, .optimal_fault = 81.92};
	struct comp_times t = {.t_fault = 100.8, .t_verified = 101.0, .t_revert = 107.0};
	struct comp_obs o = {0};

	/* 10 ms samples from t = 100.01; 100 packets of 1024 B a 10 ms is the optimal */
	for (int i = 0; i < 700; i++) {
		double at = 100.0 + 0.01 * (i + 1);

		s[i] = (struct mpr_sample){.t = at, .delivered = at <= 101.5 + 1e-9 ? 45 : 95};
	}
	mpr_onset(&st, &t, 0.01, &o);
	/* the first 200 ms whose mean reaches 0.85: 4 slow samples and 16 fast, from 101.46 */
	cr_assert_float_eq(metric_of(&o, "onset-ms"), 460, 1e-6, "%g", metric_of(&o, "onset-ms"));
	cr_assert_float_eq(metric_of(&o, "fault-settled-vs-optimal"), 0.95, 1e-9);
	free(o.metrics);

	/* never back: the whole phase */
	memset(&o, 0, sizeof(o));
	for (int i = 0; i < 700; i++)
		s[i].delivered = 45;
	mpr_onset(&st, &t, 0.01, &o);
	cr_assert_float_eq(metric_of(&o, "onset-ms"), 6000, 1e-6);
	cr_assert_float_eq(metric_of(&o, "fault-settled-vs-optimal"), 0.45, 1e-9);
	free(o.metrics);

	/* a phase too short to settle in: no settled share */
	memset(&o, 0, sizeof(o));
	t.t_revert = 103.5;
	mpr_onset(&st, &t, 0.01, &o);
	cr_assert(isnan(metric_of(&o, "fault-settled-vs-optimal")));
	free(o.metrics);
}

/*
 * A start that fails before the flow runs (here: an RNIC the inventory does not have) leaves a
 * state the runner still stops and collects, the scenario invalid with why: nothing is read,
 * nothing crashes (a variant whose single path could not be placed crashed 'rocelab run',
 * leaving the lab up).
 */
Test(mpr_comp, a_start_that_failed_collects_nothing)
{
	struct mpr_comp_cfg cfg;
	struct comp_env e = {.inv = inv, .dir = "/tmp", .seed = 7};
	struct comp_times t = {.t_start = 1, .t_stop = 10, .t_end = 10};
	struct comp_obs obs = {0};
	char what[400] = "";
	void *st = NULL;

	mpr_comp_defaults(&cfg);
	snprintf(cfg.from, sizeof(cfg.from), "host1:rnic1");
	snprintf(cfg.to, sizeof(cfg.to), "host9:rnic1");
	cr_assert_neq(mpr_comp_start(&e, &cfg, &st, what, sizeof(what)), 0);
	cr_assert(what[0], "it says why");
	cr_assert_not_null(st);
	mpr_comp_stop(st);
	cr_assert_eq(mpr_comp_collect(st, &t, &obs), 0);
	cr_assert_eq(obs.n_verdicts, 0);
	mpr_comp_release(st);
	comp_obs_clear(&obs);
}
