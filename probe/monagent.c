// SPDX-License-Identifier: MIT
/*
 * 'rocelab agent NAME': what every monitor's agent command does alike
 * (monitor.h), its options and inventory.  Apart from the analyzer's
 * command, so that rocelab-agent links only what an agent uses.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/state.h"
#include "probe/agentcore.h"
#include "probe/monitor.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void agent_help(const struct mon_agent *m)
{
	void *d = rl_xcalloc(1, m->cfg_size);

	m->defaults(d);
	printf("usage: rocelab agent %s --host HOST [-i INVENTORY] [options]\n\n%s\n", m->name,
	       m->about);
	opt_help(m->opts, d, 2, stdout);
	if (m->ctl_port)
		printf("  --controller ADDR[:PORT] take the pinglists from 'rocelab controller "
		       "--listen'\n"
		       "                         (port %u)\n",
		       m->ctl_port);
	printf(
	    "  --analyzer ADDR[:PORT] stream records to 'rocelab analyze --monitor %s\n"
	    "                         --listen' (port %u)\n"
	    "  --out FILE|-           write records to FILE (for 'rocelab analyze --monitor\n"
	    "                         %s FILE')\n"
	    "  --duration D           stop after D (default: at SIGINT/SIGTERM)\n"
	    "  --clock-offset S       this host's clock minus the analyzer's, in seconds: taken\n"
	    "                         off the times in records ('rocelab run' measures it)\n"
	    "exit: 0 done; 2 bad options; 3 the RNICs could not be opened, or the analyzer was\n"
	    "gone for --orphan-after.\n",
	    m->name, m->port, m->name);
	free(d);
}

int mon_opt(const char *cmd, int o, char **argv, const struct opt_desc *tab, void *cfg,
	    long long *duration_ms)
{
	switch (o) {
	case 'd':
		return opt_cli_ms(cmd, "--duration", optarg, 1, 86400000LL * 365, duration_ms);
	case 'v':
		rl_log_level = RL_LOG_DEBUG;
		return 0;
	case ':':
		return rl_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
	default:
		if (o >= MON_OPT_BASE)
			return opt_cli_set(cmd, &tab[o - MON_OPT_BASE], cfg, optarg);
		return rl_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
	}
}

static int parse(const struct mon_agent *m, const char *cmd, int argc, char **argv,
		 const char **inv_path, void *cfg)
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
	struct agent_cfg *g = cfg; /* first in every agent's */
	struct option lo[64];
	int o, r = 0;

	opt_longopts(m->opts, MON_OPT_BASE, own, lo, ARRAY_SIZE(lo));
	optind = 1;
	opterr = 0;
	while (!r && (o = getopt_long(argc, argv, ":i:vh", lo, NULL)) != -1) {
		switch (o) {
		case 'H':
			g->host = optarg;
			break;
		case 'i':
			*inv_path = optarg;
			break;
		case 'a':
			g->analyzer = optarg;
			break;
		case 'c':
			if (!m->ctl_port)
				return rl_usage_error(cmd,
						      "--controller: a %s agent takes no "
						      "pinglists",
						      m->name);
			g->controller = optarg;
			break;
		case 'o':
			g->out = optarg;
			break;
		case 'C':
			r = opt_cli_clock_offset(cmd, optarg, &g->clock_offset_ns);
			break;
		case 'h':
			agent_help(m);
			return -1;
		default:
			r = mon_opt(cmd, o, argv, m->opts, cfg, &g->duration_ms);
		}
	}
	if (r)
		return r;
	if (optind != argc)
		return rl_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (!g->host)
		return rl_usage_error(cmd, "--host HOST is required (the host whose RNICs probe)");
	if (!rl_name_ok(g->host, INV_NAME_MAX))
		return rl_usage_error(cmd, "--host '%s' is not a valid name", g->host);
	return m->finish ? m->finish(cmd, cfg) : 0;
}

int mon_agent_main(const struct mon_agent *m, int argc, char **argv)
{
	const char *inv_path = NULL;
	void *cfg = rl_xcalloc(1, m->cfg_size);
	char cmd[64];
	struct inventory *inv;
	int r;

	snprintf(cmd, sizeof(cmd), "agent %s", m->name);
	m->defaults(cfg);
	r = parse(m, cmd, argc, argv, &inv_path, cfg);
	if (r) {
		free(cfg);
		return r < 0 ? 0 : r; /* -1: help was asked for */
	}
	if (!(inv = state_target_inventory(inv_path))) {
		free(cfg);
		return errno == EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	}
	rl_signals_install();
	r = agent_core_main(m->loop, inv, cfg, m->cfg_size);
	inventory_free(inv);
	free(cfg);
	return r;
}
