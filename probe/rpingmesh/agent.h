/* SPDX-License-Identifier: MIT */
/*
 * The R-Pingmesh agent (SIGCOMM'24; ../shared/briefs/r-pingmesh.md A, B,
 * E1): one probe port per RNIC that both probes its pinglist's targets and
 * answers other agents' probes with ACK1 (T3) and ACK2 (T3, T4); the six
 * timestamps give the network RTT, the prober's and the responder's
 * delays.  It traces the 5-tuples its probes take and those its ACKs take,
 * and streams records (rpmrec.h) to the analyzer.
 */
#ifndef ROCELAB_RPM_AGENT_H
#define ROCELAB_RPM_AGENT_H

#include "harness/lib/inventory.h"
#include "harness/lib/opt.h"
#include "probe/monitor.h"
#include "probe/rpingmesh/pinglist.h"

#define RPM_QPN_BASE 0x200 /* RNIC i's probe QP (Hostmesh's are 0x100 + i) */

struct rpm_agent_cfg {
	struct agent_cfg a;	   /* first: what every agent has (rotate_ms: 1 h; timeout_ms: no
				      ACK1 by then is a timeout, no ACK2 an ACK2 lost) */
	double tor_mesh_rate;	   /* probes a second to each ToR-mesh target: 10 */
	double inter_tor_rate;	   /* to each inter-ToR target: 1 */
	double rotate_share;	   /* of a target's source ports replaced each rotate_ms: 0.2 */
	bool services;		   /* trace the host's service flows, found by packets: on */
	double service_rate;	   /* probes a second on each service's 5-tuple: 10 */
	long long service_idle_ms; /* a flow idle this long has ended: 1 s (< the analyzer grace) */
	struct rpm_pl_cfg pl;	   /* the pinglist when computed here (no controller) */
};

void rpm_agent_defaults(struct rpm_agent_cfg *c);

/* The agent's parameters (params.c). */
extern const struct opt_desc rpm_agent_opts[];

/* The agent's probing, as agent_core_main() runs it (probe/agentcore.h) for cfg.a.host. */
struct agent_loop;
extern const struct agent_loop rpm_agent_loop;

#endif
