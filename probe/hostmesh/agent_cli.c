// SPDX-License-Identifier: MIT
/*
 * rocelab agent hostmesh: the Hostmesh agent as the command line runs it.
 * Apart from the analyzer's (cli.c), so that rocelab-agent links only what
 * an agent uses.
 */
#include "harness/lib/common.h"
#include "probe/hostmesh/hmrec.h"
#include "probe/hostmesh/hostmesh.h"
#include "probe/monitor.h"

static void defaults(void *cfg)
{
	hm_agent_defaults(cfg);
}

static int finish(const char *cmd, void *cfg)
{
	struct hm_agent_cfg *c = cfg;

	if (c->a.timeout_ms / c->interval_ms > 4096)
		return rl_usage_error(cmd, "--timeout is more than 4096 intervals");
	return 0;
}

const struct mon_agent hostmesh_agent = {
    .name = "hostmesh",
    .about = "Probe between the RNICs of HOST (Hostmesh, APNet'24): every RNIC probes a random\n"
	     "other RNIC of the host each interval from a random source port of a rotating pool,\n"
	     "measures one-way network latency and end-host processing delay, counts one-way\n"
	     "drops, traces every 5-tuple's path, and streams records to the analyzer.\n"
	     "Runs where HOST's RNICs are ('rocelab run' starts it there through the lab).\n",
    .port = HM_DEFAULT_PORT,
    .opts = hm_agent_opts,
    .cfg_size = sizeof(struct hm_agent_cfg),
    .defaults = defaults,
    .finish = finish,
    .loop = &hm_agent_loop,
};
