// SPDX-License-Identifier: MIT
/*
 * rocelab agent hostmesh: options and inventory.  Apart from the analyzer's
 * command (cli.c), so that rocelab-agent links only what an agent uses.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "harness/lib/state.h"
#include "probe/hostmesh/hostmesh.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* getopt values of the parameter tables' options start here. */
#define OPT_BASE 0x200

static void agent_help(void)
{
	struct hm_agent_cfg d;

	hm_agent_defaults(&d);
	fputs("usage: rocelab agent hostmesh --host HOST [-i INVENTORY] [options]\n"
	      "\n"
	      "Probe between the RNICs of HOST (Hostmesh, APNet'24): every RNIC probes a random\n"
	      "other RNIC of the host each interval from a random source port of a rotating pool,\n"
	      "measures one-way network latency and end-host processing delay, counts one-way\n"
	      "drops, traces every 5-tuple's path, and streams records to the analyzer.\n"
	      "Runs where HOST's RNICs are ('rocelab run' starts it there through the lab).\n"
	      "\n",
	      stdout);
	opt_help(hm_agent_opts, &d, 2, stdout);
	fputs(
	    "  --analyzer ADDR[:PORT] stream records to a 'rocelab analyze --listen' (port 4790)\n"
	    "  --out FILE|-           write records to FILE (for 'rocelab analyze FILE')\n"
	    "  --duration D           stop after D (default: at SIGINT/SIGTERM)\n"

	    "  --clock-offset S       this host's clock minus the analyzer's, in seconds: taken\n"
	    "                         off the times in records ('rocelab run' measures it)\n"
	    "exit: 0 done; 2 bad options; 3 the RNICs could not be opened, or the analyzer was\n"
	    "gone for --orphan-after.\n",
	    stdout);
}

int cmd_agent(int argc, char **argv)
{
	static const struct option own[] = {
	    {"host", required_argument, NULL, 'H'},
	    {"inventory", required_argument, NULL, 'i'},
	    {"analyzer", required_argument, NULL, 'a'},
	    {"out", required_argument, NULL, 'o'},
	    {"duration", required_argument, NULL, 'd'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"clock-offset", required_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct option lo[40];
	static const char *const cmd = "agent hostmesh";
	struct hm_agent_cfg c;
	const char *inv_path = NULL;
	struct inventory *inv;
	int o, r = 0;

	hm_agent_defaults(&c);
	opt_longopts(hm_agent_opts, OPT_BASE, own, lo, ARRAY_SIZE(lo));
	if (argc < 2 || strcmp(argv[1], "hostmesh")) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
			return agent_help(), 0;
		return rl_usage_error("agent", "the agent to run is 'hostmesh' or 'rpingmesh'");
	}
	argc--, argv++;
	optind = 1;
	opterr = 0;
	while (!r && (o = getopt_long(argc, argv, "i:vh", lo, NULL)) != -1) {
		switch (o) {
		case 'H':
			c.host = optarg;
			break;
		case 'i':
			inv_path = optarg;
			break;
		case 'a':
			c.analyzer = optarg;
			break;
		case 'o':
			c.out = optarg;
			break;
		case 'd':
			r = opt_cli_ms(cmd, "--duration", optarg, 1, 86400000LL * 365,
				       &c.duration_ms);
			break;
		case 'C':
			if ((r = opt_cli_clock_offset(cmd, optarg, &c.clock_offset_ns)))
				return r;
			break;
		case 'v':
			rl_log_level = RL_LOG_DEBUG;
			break;
		case 'h':
			return agent_help(), 0;
		case ':':
			return rl_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default:
			if (o >= OPT_BASE) {
				r = opt_cli_set(cmd, &hm_agent_opts[o - OPT_BASE], &c, optarg);
				break;
			}
			return rl_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (r)
		return r;
	if (optind != argc)
		return rl_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (c.timeout_ms / c.interval_ms > 4096)
		return rl_usage_error(cmd, "--timeout is more than 4096 intervals");
	if (!c.host)
		return rl_usage_error(cmd,
				      "--host HOST is required (the host whose RNICs to probe)");
	if (!rl_name_ok(c.host, INV_NAME_MAX))
		return rl_usage_error(cmd, "--host '%s' is not a valid name", c.host);
	if (!(inv = state_target_inventory(inv_path)))
		return errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	rl_signals_install();
	r = hm_agent_run(inv, &c);
	inventory_free(inv);
	return r;
}
