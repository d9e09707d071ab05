// SPDX-License-Identifier: MIT
/*
 * 'rocelab agent': each monitor parses its own agent's options.  An agent
 * runs on every host of a lab for as long as the lab is watched, so it runs
 * as rocelab-agent when that is installed beside rocelab: the same code
 * linked with only what an agent uses (no SSH, crypto, SQLite, netlink or
 * BPF library mapped), whose resident memory is then the agent's own.
 */
#define _GNU_SOURCE
#include "harness/cli/agents.h"

#include "harness/lib/common.h"
#include "harness/lib/version.h"
#include "probe/monitors/monitors.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_agents(int argc, char **argv)
{
	const struct mon_agent *m;
	char names[128];

	mon_names("|", names, sizeof(names));
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: rocelab agent %s --host HOST [options]\n", names);
		mon_list_print(stdout);
		printf("'rocelab agent NAME --help': its options\n"
		       "(run as " ROCELAB_AGENT_BIN " when it is installed beside rocelab; "
		       "ROCELAB_AGENT_INPROCESS=1: in rocelab itself)\n");
		return 0;
	}
	if (argc < 2 || !(m = mon_agent_find(argv[1])))
		return rl_usage_error("agent", "the agent to run is one of %s",
				      mon_names(", ", names, sizeof(names)));
	return mon_agent_main(m, argc - 1, argv + 1);
}

void cli_agents_exec_lean(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + sizeof(ROCELAB_AGENT_BIN)], **av;
	const char *v = getenv("ROCELAB_AGENT_INPROCESS");
	ssize_t n;
	char *slash;

	if ((v && !strcmp(v, "1")) || (n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return;
	self[n] = '\0';
	if (!(slash = strrchr(self, '/')))
		return;
	snprintf(path, sizeof(path), "%.*s%s", (int)(slash + 1 - self), self, ROCELAB_AGENT_BIN);
	if (access(path, X_OK))
		return;
	/*
	 * Its command line stays 'rocelab agent ...' (argv[0] this executable):
	 * what finds an agent by it (pgrep, the host-down and cpu-hog faults, a
	 * person) finds it as before.
	 */
	av = rl_xcalloc((size_t)argc + 2, sizeof(*av));
	av[0] = self;
	for (int i = 0; i < argc; i++)
		av[i + 1] = argv[i];
	/* Which rocelab asked: the agent refuses to run for another version. */
	setenv("ROCELAB_AGENT_FOR", ROCELAB_VERSION, 1);
	execv(path, av);
	rl_warn("agent: cannot run %s (%s); running in rocelab", path, strerror(errno));
	unsetenv("ROCELAB_AGENT_FOR");
	free(av);
}
