// SPDX-License-Identifier: MIT
/*
 * rocelab agent rpingmesh: options and inventory.  Apart from the
 * controller's and the analyzer's commands (cli.c), so that rocelab-agent
 * links only what an agent uses.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "harness/lib/state.h"
#include "probe/rpingmesh/agent.h"
#include "probe/rpingmesh/params.h"
#include "probe/rpingmesh/rpingmesh.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define OPT_BASE 0x200

static void agent_help(void)
{
	struct rpm_agent_cfg d;

	rpm_agent_defaults(&d);
	fputs("usage: rocelab agent rpingmesh --host HOST [-i INVENTORY] [options]\n"
	      "\n"
	      "R-Pingmesh's agent (SIGCOMM'24) for HOST: each RNIC probes the RNICs of its\n"
	      "pinglists (ToR-mesh: the other hosts' RNICs under its ToR; inter-ToR: those under\n"
	      "the other ToRs), each from the source ports of Eq. (1), and answers the other\n"
	      "agents' probes with two ACKs.  From six timestamps it measures the network RTT,\n"
	      "its own and the responder's processing delays, with no clock sync.  It traces the\n"
	      "5-tuples of its probes and of its ACKs, and streams records to the analyzer.  With\n"
	      "--controller it registers there and probes the pinglists it is handed (the hosts\n"
	      "registered now, their QPNs); without, it computes them from the inventory, as\n"
	      "'controller pinglist' prints them, and every host's agent must run for probes to\n"
	      "be answered.  --inter-tor, --sports, --coverage and --same-host are then its own.\n"
	      "\n",
	      stdout);
	opt_help(rpm_agent_opts, &d, 2, stdout);
	fputs("  --controller ADDR[:PORT] take the pinglists from 'rocelab controller --listen'\n"
	      "                         (port 4792)\n"
	      "  --analyzer ADDR[:PORT] stream records to 'rocelab analyze --monitor rpingmesh\n"
	      "                         --listen' (port 4793)\n"
	      "  --out FILE|-           write records to FILE (for 'rocelab analyze --monitor\n"
	      "                         rpingmesh FILE')\n"
	      "  --duration D           stop after D (default: at SIGINT/SIGTERM)\n"

	      "  --clock-offset S       this host's clock minus the analyzer's, in seconds\n"
	      "exit: 0 done; 2 bad options; 3 the RNICs could not be opened, or the analyzer was\n"
	      "gone for --orphan-after.\n",
	      stdout);
}

int cmd_rpm_agent(int argc, char **argv)
{
	static const struct option own[] = {
	    {"host", required_argument, NULL, 'H'},
	    {"inventory", required_argument, NULL, 'i'},
	    {"analyzer", required_argument, NULL, 'a'},
	    {"controller", required_argument, NULL, 'c'},
	    {"out", required_argument, NULL, 'o'},
	    {"duration", required_argument, NULL, 'd'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"clock-offset", required_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static const char *const cmd = "agent rpingmesh";
	struct option lo[48];
	struct rpm_agent_cfg c;
	const char *inv_path = NULL;
	struct inventory *inv;
	int o, r;

	rpm_agent_defaults(&c);
	opt_longopts(rpm_agent_opts, OPT_BASE, own, lo, ARRAY_SIZE(lo));
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "i:vh", lo, NULL)) != -1) {
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
		case 'c':
			c.controller = optarg;
			break;
		case 'o':
			c.out = optarg;
			break;
		case 'd':
			if (rl_parse_duration_ms(optarg, &c.duration_ms) || c.duration_ms < 1)
				return rl_usage_error(
				    cmd, "--duration '%s': give a duration (e.g. 20s)", optarg);
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
				if ((r = opt_cli_set(cmd, &rpm_agent_opts[o - OPT_BASE], &c,
						     optarg)))
					return r;
				break;
			}
			return rl_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return rl_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (!c.host)
		return rl_usage_error(cmd, "--host HOST is required (the host whose RNICs probe)");
	if (!rl_name_ok(c.host, INV_NAME_MAX))
		return rl_usage_error(cmd, "--host '%s' is not a valid name", c.host);
	if (c.seed)
		c.pl.seed = c.seed;
	if (!(inv = state_target_inventory(inv_path)))
		return errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	rl_signals_install();
	r = rpm_agent_run(inv, &c);
	inventory_free(inv);
	return r;
}
