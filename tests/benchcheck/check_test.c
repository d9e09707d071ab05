// SPDX-License-Identifier: MIT
/*
 * make bench-check's judge, tests/bench/check.sh, run for real on figures
 * written here (issue 59): a figure that rose (lower is better) or fell
 * (higher is better) by more than 25% fails it, one within its resolution
 * does not, a figure the run no longer prints fails it, a bad baseline line
 * is refused where it is, and --record writes each figure's direction.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/proc.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/rocelab-benchcheck-test.XXXXXX";
static char base[PATH_MAX], cur[PATH_MAX];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(base, sizeof(base), "%s/baseline.txt", dir);
	snprintf(cur, sizeof(cur), "%s/bench.out", dir);
}

static void teardown(void)
{
	rl_rm_rf(dir);
}

TestSuite(benchcheck, .init = setup, .fini = teardown);

static void put(const char *path, const char *text)
{
	cr_assert_eq(rl_write_file(path, text, strlen(text)), 0, "%s", path);
}

/* check.sh BASELINE CURRENT (or --record CURRENT): its exit status, its output in *out. */
static int check(bool record, char **out)
{
	const char *argv[] = {"bench/check.sh", record ? "--record" : base, cur, NULL};

	return proc_capture(argv, NULL, NULL, out, NULL);
}

static const char baseline[] = "# a baseline\n"
			       "agent_cpu 0.300 % lower\n"
			       "agent_rss 3.6 MB lower\n"
			       "window_total 0.404 s lower\n"
			       "records_per_s 4848772 records/s higher\n"
			       "probes_per_rnic 13.9 probes/s info\n";

Test(benchcheck, within_tolerance_and_resolution_it_passes)
{
	char *out = NULL;

	put(base, baseline);
	/* +27% of a CPU share that is 0.08 points: within its resolution (0.1) */
	put(cur, "bench: something said on the side\n"
		 "bench agent_cpu 0.380 %\nbench agent_rss 3.6 MB\nbench window_total 0.480 s\n"
		 "bench records_per_s 4000000 records/s\nbench probes_per_rnic 50 probes/s\n"
		 "bench brand_new 1 s\n");
	cr_assert_eq(check(false, &out), 0, "%s", out);
	cr_assert(strstr(out, "bench-check: 4 figure(s) within 25% of"), "%s", out);
	cr_assert(strstr(out, "brand_new: 1 s, new (not in the baseline"), "%s", out);
	free(out);
}

Test(benchcheck, a_rise_or_a_fall_past_25_percent_fails_it_and_says_which)
{
	char *out = NULL;

	put(base, baseline);
	put(cur, "bench agent_cpu 0.300 %\nbench agent_rss 3.6 MB\nbench window_total 0.600 s\n"
		 "bench records_per_s 3000000 records/s\nbench probes_per_rnic 13.9 probes/s\n");
	cr_assert_eq(check(false, &out), 1, "%s", out);
	cr_assert(strstr(out, "window_total: 0.600 s against 0.404 (+48.5%; lower is better, 25% "
			      "allowed): REGRESSED"),
		  "%s", out);
	cr_assert(strstr(out, "records_per_s: 3000000 records/s against 4848772 (-38.1%; higher is "
			      "better, 25% allowed): REGRESSED"),
		  "%s", out);
	cr_assert(!strstr(out, "agent_cpu: "), "%s", out);
	free(out);
	/* a figure no longer printed */
	put(cur, "bench agent_cpu 0.300 %\nbench agent_rss 3.6 MB\nbench window_total 0.404 s\n"
		 "bench probes_per_rnic 13.9 probes/s\n");
	cr_assert_eq(check(false, &out), 1, "%s", out);
	cr_assert(strstr(out, "records_per_s: in the baseline (4848772 records/s), not printed by "
			      "this run: FAIL"),
		  "%s", out);
	free(out);
}

Test(benchcheck, a_bad_baseline_line_is_refused_where_it_is)
{
	char *out = NULL, *err = NULL;
	const char *argv[] = {"bench/check.sh", base, cur, NULL};

	put(base, "agent_cpu 0.3 % lower\nagent_rss 3.6 MB better\n");
	put(cur, "bench agent_cpu 0.3 %\n");
	cr_assert_eq(proc_capture(argv, NULL, NULL, &out, &err), 2);
	cr_assert(strstr(err, "baseline.txt:2: agent_rss 3.6 MB better: not 'NAME VALUE UNIT "
			      "lower|higher|info'"),
		  "%s", err);
	free(out);
	free(err);
}

Test(benchcheck, record_writes_each_figures_direction)
{
	char *out = NULL;

	put(cur,
	    "bench rpm_agent_cpu_8rnic 0.699 %\nbench analyzer_records_per_s 4848772 records/s\n"
	    "bench rpm_agent_wire_bits_per_rnic 34584 bit/s\nbench `touch x` 1 s\n");
	cr_assert_eq(check(true, &out), 0, "%s", out);
	cr_assert(strstr(out, "\nrpm_agent_cpu_8rnic 0.699 % lower\n"), "%s", out);
	cr_assert(strstr(out, "\nanalyzer_records_per_s 4848772 records/s higher\n"), "%s", out);
	cr_assert(strstr(out, "\nrpm_agent_wire_bits_per_rnic 34584 bit/s info\n"), "%s", out);
	cr_assert(!strstr(out, "touch"), "a name that is not a name is left out: %s", out);
	free(out);
}
