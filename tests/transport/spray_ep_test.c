// SPDX-License-Identifier: MIT
/*
 * The spraying workload's offered load: the mean connection size its
 * Poisson arrivals are paced by, against the sizes it draws, and the
 * checks that keep an offered load to that workload.
 */
#include "transport/spray_ep.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The draw spray_ep.c makes: floor(exp(U)), U uniform on [ln min, ln(max + 1)). */
static uint32_t draw(uint64_t *x, unsigned lo_kb, unsigned hi_kb)
{
	double lo = log((double)lo_kb), hi = log((double)hi_kb + 1), u;

	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	u = (double)(*x >> 11) * 0x1.0p-53;
	return (uint32_t)exp(lo + (hi - lo) * u);
}

Test(spray_ep, the_mean_size_is_the_draws_mean)
{
	static const unsigned range[][2] = {{16, 4096}, {1, 1}, {16, 16}, {1, 64}, {100, 200}};

	cr_assert_float_eq(spray_mean_kb(16, 16), 16.0, 1e-9);
	cr_assert_float_eq(spray_mean_kb(1, 1), 1.0, 1e-9);
	for (size_t r = 0; r < sizeof(range) / sizeof(range[0]); r++) {
		uint64_t x = 0x9e3779b97f4a7c15ULL;
		double sum = 0, want = spray_mean_kb(range[r][0], range[r][1]);
		const unsigned n = 1000000;

		for (unsigned i = 0; i < n; i++)
			sum += draw(&x, range[r][0], range[r][1]);
		/* a million draws: the sample mean within 1% (its standard error is under 0.2%) */
		cr_assert(fabs(sum / n - want) < 0.01 * want, "%u-%u KB: drawn %.2f, mean %.2f",
			  range[r][0], range[r][1], sum / n, want);
	}
	/* 16 KB to 4 MB, the brief's D.8: (4097 - 16) / ln(4097 / 16), less half a KB of floor */
	cr_assert(fabs(spray_mean_kb(16, 4096) - (4081 / log(4097.0 / 16) - 0.5)) < 0.5);
}

Test(spray_ep, an_offered_load_is_the_spraying_workloads)
{
	struct ep_params p;
	enum ep_ecn ecn;
	char err[256] = "";

	ep_defaults(&p);
	p.load_mbit = 50;
	cr_assert_eq(ep_check(&p, &ecn, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "workload spray"), "%s", err);
	snprintf(p.workload, sizeof(p.workload), "spray");
	snprintf(p.ecn, sizeof(p.ecn), "wire");
	cr_assert_eq(ep_check(&p, &ecn, err, sizeof(err)), 0, "%s", err);
}

/* A versus kind must differ from the receiver's, and neither be go-back-N (its sender's rule). */
Test(spray_ep, a_versus_receiver_is_another_ordering_kind)
{
	static const struct {
		const char *receiver, *versus;
		unsigned bitmap, conns;
		int want;
	} c[] = {
	    {"eunomia", "static256", 256, 20, 0},      {"bitmap", "eunomia", 256, 20, 0},
	    {"eunomia", "static64", 256, 20, 0},       {"eunomia", "eunomia", 256, 20, -EINVAL},
	    {"bitmap", "static256", 256, 20, -EINVAL}, {"eunomia", "gbn", 256, 20, -EINVAL},
	    {"gbn", "eunomia", 64, 20, -EINVAL},       {"eunomia", "static128", 256, 20, -EINVAL},
	    {"eunomia", "static256", 256, 1, -EINVAL},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct ep_params p;
		enum ep_ecn ecn;
		char err[256] = "";

		ep_defaults(&p);
		snprintf(p.workload, sizeof(p.workload), "spray");
		snprintf(p.receiver, sizeof(p.receiver), "%s", c[i].receiver);
		snprintf(p.versus, sizeof(p.versus), "%s", c[i].versus);
		p.bitmap = c[i].bitmap;
		p.conns = c[i].conns;
		cr_assert_eq(ep_check(&p, &ecn, err, sizeof(err)), c[i].want, "%s versus %s: %s",
			     c[i].receiver, c[i].versus, err);
		if (c[i].want)
			cr_assert(strstr(err, "versus"), "%s", err);
	}
	/* the paired QPs draw their sizes as they complete, which an offered load does not */
	struct ep_params p;
	enum ep_ecn ecn;
	char err[256] = "";

	ep_defaults(&p);
	snprintf(p.workload, sizeof(p.workload), "spray");
	snprintf(p.receiver, sizeof(p.receiver), "eunomia");
	snprintf(p.versus, sizeof(p.versus), "static256");
	p.bitmap = 256;
	p.load_mbit = 20;
	cr_assert_eq(ep_check(&p, &ecn, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "give load 0"), "%s", err);
}
