// SPDX-License-Identifier: MIT
/*
 * rocelab agent rpingmesh: R-Pingmesh's agent as the command line runs it.
 * Apart from the controller's and the analyzer's commands (cli.c), so that
 * rocelab-agent links only what an agent uses.
 */
#include "harness/lib/common.h"
#include "probe/monitor.h"
#include "probe/rpingmesh/agent.h"
#include "probe/rpingmesh/ctl.h"
#include "probe/rpingmesh/params.h"
#include "probe/rpingmesh/rpingmesh.h"
#include "probe/rpingmesh/rpmrec.h"

static void defaults(void *cfg)
{
	rpm_agent_defaults(cfg);
}

/* A seed given makes the pinglist computed here reproducible too. */
static int finish(const char *cmd, void *cfg)
{
	struct rpm_agent_cfg *c = cfg;

	(void)cmd;
	if (c->a.seed)
		c->pl.seed = c->a.seed;
	return 0;
}

const struct mon_agent rpingmesh_agent = {
    .name = "rpingmesh",
    .about = "R-Pingmesh's agent (SIGCOMM'24) for HOST: each RNIC probes the RNICs of its\n"
	     "pinglists (ToR-mesh: the other hosts' RNICs under its ToR; inter-ToR: those under\n"
	     "the other ToRs), each from the source ports of Eq. (1), and answers the other\n"
	     "agents' probes with two ACKs.  From six timestamps it measures the network RTT,\n"
	     "its own and the responder's processing delays, with no clock sync.  It traces the\n"
	     "5-tuples of its probes and of its ACKs, and streams records to the analyzer.  With\n"
	     "--controller it registers there and probes the pinglists it is handed (the hosts\n"
	     "registered now, their QPNs); without, it computes them from the inventory, as\n"
	     "'controller pinglist' prints them, and every host's agent must run for probes to\n"
	     "be answered.  --inter-tor, --sports, --coverage and --same-host are then its own.\n",
    .port = RPM_DEFAULT_PORT,
    .ctl_port = RPM_CTL_PORT,
    .opts = rpm_agent_opts,
    .cfg_size = sizeof(struct rpm_agent_cfg),
    .defaults = defaults,
    .finish = finish,
    .loop = &rpm_agent_loop,
};
