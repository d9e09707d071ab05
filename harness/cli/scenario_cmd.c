// SPDX-License-Identifier: MIT
/* 'rocelab scenario gen': random scenarios for an inventory. */
#define _GNU_SOURCE
#include "harness/cli/cli.h"

#include "harness/run/runner.h"
#include "harness/run/scengen.h"

#include <limits.h>

static const char scn_gen_help[] =
    "usage: rocelab scenario gen --seed N -o DIR [-i INVENTORY] [--faults N] [--fault-free N]\n"
    "                            [--fault-free-phase DURATION] [--kinds LIST]\n"
    "Write random Hostmesh scenarios for an inventory (default: the built-in lab) into DIR\n"
    "(new or empty): the seed draws each one's fault kind, its target by role (rail, host,\n"
    "spine), its parameters and its load; the expectation (class, time to detect) follows\n"
    "from the kind and target. Each carries the CI suite's Hostmesh parameters and is\n"
    "checked by the scenario loader. Run them with 'rocelab run -i INVENTORY DIR/*.yaml'.\n"
    "  --faults N      fault scenarios (default 20)\n"
    "  --fault-free N  scenarios with no fault (default 2)\n"
    "  --fault-free-phase DURATION\n"
    "                  a fault-free scenario's fault phase, 1s to 1h (default 30s)\n"
    "  --kinds LIST    draw only from these kinds (comma-separated; default: every kind\n"
    "                  that fits the lab)\n";

struct scn_gen_args {
	struct scengen_opts g;
	bool seeded;
};

static int scn_gen_opt(int c, const char *arg, void *ctx)
{
	struct scn_gen_args *a = ctx;
	char *end;
	long v;

	switch (c) {
	case 's':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v < 0 || v > 0x7fffffffL) {
			usage_error("--seed '%s' is not a whole number from 0 to 2147483647", arg);
			return 1;
		}
		a->g.seed = (unsigned)v;
		a->seeded = true;
		return 0;
	case 'o':
		a->g.dir = arg;
		return 0;
	case 'F':
	case 'Z':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v < 0 || v > 999) {
			usage_error("%s '%s' is not a whole number from 0 to 999",
				    c == 'F' ? "--faults" : "--fault-free", arg);
			return 1;
		}
		*(c == 'F' ? &a->g.faults : &a->g.fault_free) = (int)v;
		return 0;
	case 'K':
		a->g.kinds = arg;
		return 0;
	case 'P':
		return opt_cli_ms("scenario gen", "--fault-free-phase", arg, 1000, 3600000,
				  &a->g.free_ms) != 0;
	}
	return 1;
}

static int scn_gen(int argc, char **argv)
{
	static const struct option extra[] = {
	    {"seed", required_argument, NULL, 's'},
	    {"output", required_argument, NULL, 'o'},
	    {"faults", required_argument, NULL, 'F'},
	    {"fault-free", required_argument, NULL, 'Z'},
	    {"kinds", required_argument, NULL, 'K'},
	    {"fault-free-phase", required_argument, NULL, 'P'},
	    {0},
	};
	struct scn_gen_args a = {.g = {.faults = 20, .fault_free = 2}};
	struct opts o = {.shorts = "o:"};
	char builtin[PATH_MAX];
	struct inventory *inv;
	int r = cli_parse_opts(argc, argv, &o, extra, scn_gen_opt, &a);

	if (r)
		return r;
	if (o.help)
		return fputs(scn_gen_help, stdout), 0;
	if (optind != argc)
		return usage_error("scenario gen: unexpected argument '%s'", argv[optind]);
	if (!a.seeded)
		return usage_error("scenario gen: give --seed N (the same seed writes the same "
				   "scenarios)");
	if (!a.g.dir)
		return usage_error("scenario gen: give -o DIR, a new or empty folder");
	a.g.inv_path = o.inventory ? o.inventory : lab_builtin_inventory(builtin, sizeof(builtin));
	if (!(inv = inventory_load(a.g.inv_path, stderr)))
		return RL_EXIT_USAGE;
	a.g.inv = inv;
	r = scengen_write(&a.g, o.quiet ? NULL : stdout);
	if (!r && !o.quiet)
		printf("scenario gen: seed %u: %d fault scenario(s), %d fault-free, in %s, for lab "
		       "'%s'\n",
		       a.g.seed, a.g.faults, a.g.fault_free, a.g.dir, inv->name);
	inventory_free(inv);
	return r ? RL_EXIT_USAGE : RL_EXIT_OK;
}

static const struct cmd scenario_cmds[] = {
    {"gen", scn_gen, "write random Hostmesh scenarios for an inventory"},
    {0},
};

int cmd_scenario(int argc, char **argv)
{
	return cli_dispatch(scenario_cmds, "scenario", argc, argv);
}
