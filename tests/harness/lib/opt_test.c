// SPDX-License-Identifier: MIT
/* The option schema: one table drives getopt, YAML values and a child's argv. */
#define _GNU_SOURCE
#include "harness/lib/opt.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

struct cfg {
	long long ms, us;
	int n;
	unsigned seed;
	double share;
};

static const struct opt_desc tab[] = {
    {"interval", OPT_MS, 1, 60000, offsetof(struct cfg, ms), "probe interval"},
    {"slow", OPT_US, 0, 60000, offsetof(struct cfg, us), "latency that counts as high"},
    {"sports", OPT_INT, 1, 1024, offsetof(struct cfg, n), "source ports"},
    {"seed", OPT_UINT, 0, 4294967295.0, offsetof(struct cfg, seed), "seed"},
    {"min-share", OPT_DOUBLE, 0, 1, offsetof(struct cfg, share), "share"},
    OPT_TABLE_END,
};

Test(opt, set_and_print_back)
{
	struct cfg c = {0};
	char err[160], buf[64];

	cr_assert_eq(opt_set(opt_find(tab, "interval"), &c, "1.5s", err, sizeof(err)), 0);
	cr_assert_eq(c.ms, 1500);
	cr_assert_eq(opt_set(opt_find(tab, "slow"), &c, "500us", err, sizeof(err)), 0);
	cr_assert_eq(c.us, 500);
	cr_assert_eq(opt_set(opt_find(tab, "slow"), &c, "2ms", err, sizeof(err)), 0);
	cr_assert_eq(c.us, 2000);
	cr_assert_eq(opt_set(opt_find(tab, "seed"), &c, "4294967295", err, sizeof(err)), 0);
	cr_assert_eq(c.seed, 4294967295u);
	cr_assert_str_eq(opt_value(opt_find(tab, "slow"), &c, buf, sizeof(buf)), "2000us");
	cr_assert_str_eq(opt_value(opt_find(tab, "interval"), &c, buf, sizeof(buf)), "1500ms");
	cr_assert_null(opt_find(tab, "intervall"));
}

Test(opt, errors_say_what_to_give)
{
	struct cfg c = {.n = 7};
	char err[160];

	cr_assert_eq(opt_set(opt_find(tab, "interval"), &c, "0ms", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err,
			 "interval '0ms': give a duration from 1 ms to 60 s (e.g. 500ms, 20s)");
	cr_assert_eq(opt_set(opt_find(tab, "interval"), &c, "500us", err, sizeof(err)), -EINVAL,
		     "milliseconds options take no microseconds");
	cr_assert_eq(opt_set(opt_find(tab, "sports"), &c, "2.5", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "sports '2.5': give a whole number from 1 to 1024");
	cr_assert_eq(c.n, 7, "a bad value changes nothing");
	cr_assert_eq(opt_set(opt_find(tab, "min-share"), &c, "1.5", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "min-share '1.5': give a number from 0 to 1");
}

/* What opt_argv writes, getopt_long over opt_longopts reads back into an equal struct. */
Test(opt, argv_round_trip)
{
	struct cfg a = {.ms = 20, .us = 1500, .n = 16, .seed = 42, .share = 0.25}, b = {0};
	const char *argv[32] = {"prog"};
	struct option lo[16];
	struct opt_store st = {0};
	size_t n = 1;
	char err[160];
	int o;

	cr_assert_eq(opt_argv(tab, &a, NULL, argv, &n, 32, &st), 0);
	cr_assert_eq(n, 11);
	opt_longopts(tab, 0x200, NULL, lo, 16);
	optind = 1;
	while ((o = getopt_long((int)n, (char **)argv, "", lo, NULL)) != -1) {
		cr_assert_geq(o, 0x200);
		cr_assert_eq(opt_set(&tab[o - 0x200], &b, optarg, err, sizeof(err)), 0, "%s", err);
	}
	cr_assert(a.ms == b.ms && a.us == b.us && a.n == b.n && a.seed == b.seed &&
		  a.share == b.share);
	opt_store_free(&st);
	cr_assert_eq(opt_argv(tab, &a, NULL, argv, &n, 4, &st), -E2BIG);
	opt_store_free(&st);
}

Test(opt, names)
{
	char buf[128];

	cr_assert_str_eq(opt_names(tab, buf, sizeof(buf)),
			 "interval, slow, sports, seed, min-share");
}

/* A command's options: the usage error names the command and the option, and says what to give. */
Test(opt, command_line_errors_name_the_command, .init = cr_redirect_stderr)
{
	struct cfg c = {.n = 7};
	long long ms = 0;

	cr_assert_eq(opt_cli_set("agent test", opt_find(tab, "sports"), &c, "12"), 0);
	cr_assert_eq(c.n, 12);
	cr_assert_eq(opt_cli_set("agent test", opt_find(tab, "sports"), &c, "0"), 2);
	cr_assert_eq(c.n, 12, "a bad value changes nothing");
	cr_assert_eq(opt_cli_ms("agent test", "--duration", "2s", 1, 10000, &ms), 0);
	cr_assert_eq(ms, 2000);
	cr_assert_eq(opt_cli_ms("agent test", "--duration", "20s", 1, 10000, &ms), 2);
	cr_assert_eq(opt_cli_clock_offset("agent test", "-0.4", &ms), 0);
	cr_assert_eq(ms, -400000000LL);
	cr_assert_eq(opt_cli_clock_offset("agent test", "4000", &ms), 2);
	cr_assert_eq(opt_cli_clock_offset("agent test", "1s", &ms), 2);
	cr_assert_eq(ms, -400000000LL, "a bad value changes nothing");
	fflush(stderr);
	cr_assert_stderr_eq_str(
	    "rocelab: agent test: --sports '0': give a whole number from 1 to 1024 (see --help)\n"
	    "rocelab: agent test: --duration '20s': give a duration from 1 ms to 10 s (e.g. "
	    "500ms, 2s) (see --help)\n"
	    "rocelab: agent test: --clock-offset: '4000' is not seconds in [-3600, 3600] (e.g. "
	    "0.012 or -0.4) (see --help)\n"
	    "rocelab: agent test: --clock-offset: '1s' is not seconds in [-3600, 3600] (e.g. "
	    "0.012 or -0.4) (see --help)\n");
}
