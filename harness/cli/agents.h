/* SPDX-License-Identifier: MIT */
/* 'rocelab agent': the monitors' probing agents, in rocelab or in the lean rocelab-agent. */
#ifndef ROCELAB_CLI_AGENTS_H
#define ROCELAB_CLI_AGENTS_H

/* The lean binary's name, installed beside rocelab. */
#define ROCELAB_AGENT_BIN "rocelab-agent"

/* rocelab agent hostmesh|rpingmesh ...: argv[1] names the monitor, which parses the rest. */
int cli_agents(int argc, char **argv);

/*
 * Run the agent as rocelab-agent when it is beside this executable (argv as
 * for cli_agents): returns only when it is not there, or cannot be run.
 * ROCELAB_AGENT_INPROCESS=1 keeps the agent in this process.
 */
void cli_agents_exec_lean(int argc, char **argv);

#endif
