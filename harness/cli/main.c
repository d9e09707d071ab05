// SPDX-License-Identifier: MIT
/* The rocelab command line: table-driven subcommands, results on stdout, logs on stderr. */
#define _GNU_SOURCE
#include "harness/lib/version.h"
#include "harness/run/runner.h"
#include "injectors/cmd/inject.h"
#include "probe/rpingmesh/rpingmesh.h"
#include "transport/mpr_ep.h"

#include <string.h>

#include "harness/cli/cli.h"

/* ---- top level ----------------------------------------------------------- */

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("rocelab %s\n", ROCELAB_VERSION);
	return 0;
}

static const struct cmd top_cmds[] = {
    {"lab", cmd_lab, "bring the virtual lab up or down, show it, ssh into switches"},
    {"inventory", cmd_inventory, "validate or generate lab inventories"},
    {"scenario", cmd_scenario, "generate random scenarios for an inventory"},
    {"inject", cmd_inject, "inject a fault (journaled, verified, reverted)"},
    {"revert", cmd_revert, "undo every outstanding fault of the journal"},
    {"faults", cmd_faults, "list outstanding faults (-j: JSON)"},
    {"load", cmd_load_any, "generate load: UDP incast, RC WRITEs (rdma-core), PFC pauses"},
    {"trace", cmd_trace, "trace the fabric path of a UDP 5-tuple between two RNICs"},
    {"observe", cmd_observe, "what each monitor can localize on a lab (identifiability)"},
    {"rig", cmd_rig, "sample this machine's CPU pressure (a run's hosts over SSH)"},
    {"agent", cmd_agents, "run a monitor's probing agent (hostmesh, rpingmesh) on a host"},
    {"controller", cmd_controller,
     "R-Pingmesh's controller (--listen), or a host's pinglists (pinglist)"},
    {"transport", cmd_transport,
     "run MP-RDMA between two RNICs (run, send, recv, paths), or the paper's figures (sim)"},
    {"run", cmd_run_reported, "run scenarios and grade the components under test"},
    {"analyze", cmd_analyzes, "analyze agents' records: verdicts, drop rates, latency"},
    {"history", cmd_history, "list the runs recorded in the run history"},
    {"compare", cmd_compare, "compare two runs of the history: regressions (exit 1)"},
    {"export", cmd_export, "write a run's results as OpenMetrics (Prometheus, Grafana)"},
    {"report", cmd_report, "re-render the reports of a results folder"},
    {"qualify", cmd_qualify, "run a suite, check threshold rules, sign the results"},
    {"verify", cmd_verify, "check a signed qualification folder"},
    {"version", cmd_version, "print the version"},
    {0},
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")))
		return cmd_version(argc - 1, argv + 1);
	return cli_dispatch(top_cmds, "", argc, argv);
}
