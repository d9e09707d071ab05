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
#include "probe/ptrans.h"
#include "probe/rpingmesh/pinglist.h"

#define RPM_QPN_BASE 0x200 /* RNIC i's probe QP (Hostmesh's are 0x100 + i) */

struct rpm_agent_cfg {
	const char *host;
	const struct pt_ops *transport;
	double tor_mesh_rate;	    /* probes a second to each ToR-mesh target: 10 */
	double inter_tor_rate;	    /* to each inter-ToR target: 1 */
	long long timeout_ms;	    /* no ACK1 by then: a timeout; no ACK2: ACK2 lost (500 ms) */
	long long rotate_ms;	    /* replace rotate_share of a target's source ports: 1 h */
	double rotate_share;	    /* 0.2 */
	double trace_rate;	    /* path traces a second at most: 2 */
	long long trace_refresh_ms; /* re-trace a 5-tuple after: 60 s */
	long long trace_timeout_ms; /* wait for ICMP answers per trace: 300 ms */
	int max_ttl;		    /* 6 */
	int dscp;		    /* 26 */
	bool services;		    /* trace the host's service flows, found by packets: on */
	double service_rate;	    /* probes a second on each service's 5-tuple: 10 */
	long long service_idle_ms; /* a flow idle this long has ended: 1 s (< the analyzer grace) */
	struct rpm_pl_cfg pl;	   /* the pinglist when computed here (no controller) */
	const char *controller;	   /* ADDR[:PORT] (4792): the pinglists from it, or NULL */
	long long duration_ms;	   /* 0: until SIGINT/SIGTERM */
	const char *analyzer;	   /* ADDR[:PORT] (4793), or NULL */
	const char *out;	   /* file for records ("-": stdout), or NULL */
	size_t buffer_bytes;	   /* 1 MiB */
	long long orphan_ms;	   /* exit after this long without the analyzer: 30 s */
	long long clock_offset_ns; /* this host's clock minus the analyzer's */
	unsigned seed;
};

void rpm_agent_defaults(struct rpm_agent_cfg *c);

/* The agent's parameters (params.c). */
extern const struct opt_desc rpm_agent_opts[];

/* Run the agent for cfg.host of inv until its duration ends or a signal: an rl_exit code. */
int rpm_agent_run(const struct inventory *inv, const struct rpm_agent_cfg *cfg);

#endif
