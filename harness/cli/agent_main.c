// SPDX-License-Identifier: MIT
/*
 * rocelab-agent: the monitors' probing agents alone, as 'rocelab agent' runs
 * them (harness/cli/agents.c says why).  Usage as 'rocelab agent':
 * rocelab-agent hostmesh|rpingmesh --host HOST [options].  'rocelab agent'
 * runs it as 'rocelab agent hostmesh|rpingmesh ...' (argv[0] rocelab's path),
 * so that its command line is the one that was asked for.
 */
#include "harness/cli/agents.h"
#include "harness/lib/common.h"
#include "harness/lib/version.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *asked = getenv("ROCELAB_AGENT_FOR");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("%s %s\n", ROCELAB_AGENT_BIN, ROCELAB_VERSION);
		return 0;
	}
	if (asked && strcmp(asked, ROCELAB_VERSION)) {
		rl_err("agent: this %s is version %s, the rocelab that ran it %s: install both "
		       "from one build (or ROCELAB_AGENT_INPROCESS=1)",
		       ROCELAB_AGENT_BIN, ROCELAB_VERSION, asked);
		return RL_EXIT_USAGE;
	}
	unsetenv("ROCELAB_AGENT_FOR");
	if (argc >= 2 && !strcmp(argv[1], "agent"))
		argc--, argv++;
	return cli_agents(argc, argv);
}
