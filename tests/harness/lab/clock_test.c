// SPDX-License-Identifier: MIT
/* A host's clock read NTP's way at pre-flight: the set-up left out, refused only beyond its error.
 */
#define _GNU_SOURCE
#include "harness/lab/lab.h"

#include <criterion/criterion.h>
#include <math.h>

/*
 * The clocks agree; the first exchange carries a 2.5 s command start (a slow
 * login shell) on its way there, the rest 2 ms round trips. The old reading
 * (the midpoint of each 'date' exec) said +1.25 s and refused the host.
 */
Test(clock, the_first_exchange_carries_the_set_up_and_is_left_out)
{
	const double t[][3] = {
	    {100.000, 102.501, 102.502}, /* the command started 2.5 s late */
	    {102.600, 102.601, 102.602},
	    {102.700, 102.7012, 102.7025},
	    {102.800, 102.801, 102.802},
	};
	struct lab_clock c = lab_clock_estimate(t, 4);

	cr_assert(fabs(c.skew) < 1e-3, "skew %.4f", c.skew);
	cr_assert(fabs(c.within - 0.001) < 1e-9, "within %.4f", c.within);
	cr_assert_eq(c.offset, 0, "a skew inside its error is not corrected");
	cr_assert(!lab_clock_too_far(&c, 1.0));
}

/* Least round trip wins (NTP's clock filter): queueing makes a midpoint lie. */
Test(clock, the_quickest_round_trip_is_the_reading)
{
	const double t[][3] = {
	    {0.0, 5.0, 0.2},   /* left out */
	    {1.0, 6.6, 1.4},   /* 0.4 s round trip, answered late: +5.4 */
	    {2.0, 7.01, 2.02}, /* 0.02 s: +5.0 */
	    {3.0, 8.2, 3.3},
	};
	struct lab_clock c = lab_clock_estimate(t, 4);

	cr_assert(fabs(c.skew - 5.0) < 1e-9, "skew %.4f", c.skew);
	cr_assert(fabs(c.within - 0.01) < 1e-9, "within %.4f", c.within);
	cr_assert_eq(c.offset, c.skew, "a skew beyond its error corrects the host's records");
	cr_assert(lab_clock_too_far(&c, 1.0));
}

/* Refused only when even the near end of the error is past the bound. */
Test(clock, refused_only_beyond_the_bound_by_more_than_its_error)
{
	struct lab_clock near = {.skew = 1.3, .within = 0.4}, far = {.skew = -1.5, .within = 0.4};

	cr_assert(!lab_clock_too_far(&near, 1.0), "1.3 +- 0.4 may be 0.9: not refused");
	cr_assert(lab_clock_too_far(&far, 1.0), "-1.5 +- 0.4 is at least 1.1 off: refused");
}

/* One exchange is all there is: it is used, not left out. */
Test(clock, a_single_exchange_is_used)
{
	const double t[][3] = {{10.0, 10.75, 10.5}};
	struct lab_clock c = lab_clock_estimate(t, 1);

	cr_assert(fabs(c.skew - 0.5) < 1e-9 && fabs(c.within - 0.25) < 1e-9);
	cr_assert_eq(lab_clock_estimate(t, 0).within, 0);
}
