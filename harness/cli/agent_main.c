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

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

/*
 * An agent's tables (its targets, pending probes, route answers, 16 kB to 200 kB each) are
 * mapped of their own: calloc() then leaves their untouched pages unmapped, where from the
 * heap it clears, and so makes resident, memory the inventory's parse freed. 0.26-0.37 MB
 * of an R-Pingmesh agent's RSS (issue 59); the tables are made at start and when the
 * pinglist changes, so the mmap calls cost nothing while it probes.
 */
#define AGENT_MMAP_THRESHOLD (16 << 10)

int main(int argc, char **argv)
{
	const char *asked = getenv("ROCELAB_AGENT_FOR");

	mallopt(M_MMAP_THRESHOLD, AGENT_MMAP_THRESHOLD);
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
