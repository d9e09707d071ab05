// SPDX-License-Identifier: MIT
/*
 * Hostmesh's parameters, spelled once: the agent's and the analyzer's option
 * tables drive their command lines, the scenario's hostmesh section and the
 * argv the runner hands them.
 */
#include "harness/lib/opt.h"
#include "probe/hostmesh/analyzer.h"
#include "probe/hostmesh/hostmesh.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#define AG(f) offsetof(struct hm_agent_cfg, f)

const struct opt_desc hm_agent_opts[] = {
    {"transport", OPT_CUSTOM, 0, 0, AG(a.transport),
     "probe transport: udp (RoCEv2 UD packets over raw sockets), verbs (UD QPs through "
     "rdma-core) or auto (verbs where the RNIC has an RDMA device, else udp)",
     pt_opt_parse, pt_opt_print},
    {"interval", OPT_MS, 1, 60000, AG(interval_ms), "probe interval per RNIC"},
    {"timeout", OPT_MS, 1, 60000, AG(a.timeout_ms), "a probe not received by then is a drop"},
    {"orphan-after", OPT_MS, 0, 86400000, AG(a.orphan_ms),
     "with an analyzer: exit once it has been unreachable this long (0: never), as when the run "
     "that started the agent was killed"},
    {"sports", OPT_INT, 1, 1024, AG(pool), "source ports in the pool"},
    {"rotate", OPT_MS, 100, 86400000, AG(a.rotate_ms), "replace a quarter of the pool this often"},
    {"trace-rate", OPT_DOUBLE, 0, 1000, AG(a.trace_rate),
     "path traces per second at most (switch ICMP budget)"},
    {"trace-refresh", OPT_MS, 100, 86400000, AG(a.trace_refresh_ms),
     "re-trace each 5-tuple this often"},
    {"trace-timeout", OPT_MS, 10, 10000, AG(a.trace_timeout_ms), "wait for ICMP answers per trace"},
    {"max-ttl", OPT_INT, 2, HM_MAX_HOPS, AG(a.max_ttl), "hops traced at most"},
    {"dscp", OPT_INT, 0, 63, AG(a.dscp), "DSCP of probes (26: PFC priority 3)"},
    {"seed", OPT_UINT, 0, 4294967295.0, AG(a.seed), "random seed (reproducible port pools)"},
    OPT_TABLE_END,
};

#define AZ(f) offsetof(struct az_cfg, f)

const struct opt_desc az_opts[] = {
    {"window", OPT_MS, 100, 3600000, AZ(window_ms), "analysis window"},
    {"rnic-threshold", OPT_DOUBLE, 0, 1, AZ(rnic_threshold),
     "timeout share that makes an RNIC anomalous"},
    {"rnic-hold", OPT_MS, 0, 86400000, AZ(rnic_hold_ms),
     "an anomalous RNIC's timeouts stay RNIC problems this long"},
    {"min-votes", OPT_INT, 1, 1e6, AZ(min_votes), "abnormal probes needed before voting"},
    {"min-share", OPT_DOUBLE, 0, 1, AZ(min_share),
     "share of abnormal probes the top suspect must be on"},
    {"slow", OPT_US, 0, 60000, AZ(slow_us), "network latency that counts as high"},
    {"slow-span", OPT_MS, 0, 3600000, AZ(slow_span_ms),
     "a congestion hotspot's slow probes are sent over at least this long (a scheduling "
     "stall delays a burst)"},
    {"slow-alpha", OPT_DOUBLE, 1e-300, 1, AZ(slow_alpha),
     "a hotspot's slow share, against the rest of the fabric's and its own healthy one, is "
     "at most this likely by chance (one-sided binomial test)"},
    {"slow-tail", OPT_DOUBLE, 0, 1000, AZ(slow_tail),
     "high latency is also above this many times the median p99 of the last healthy windows "
     "(0: the 'slow' floor alone)"},
    {"slow-memory", OPT_MS, 100, 86400000, AZ(slow_memory_ms),
     "the healthy latency baseline halves its weight this often"},
    {"evidence", OPT_INT, 1, 32, AZ(evidence_windows),
     "a window with too few timeouts to vote on sums them with the windows before it, this "
     "many in all (1: each window alone)"},
    {"evidence-alpha", OPT_DOUBLE, 1e-300, 1, AZ(evidence_alpha),
     "such a suspect's timeout share, against the rest of the fabric's in the same windows, "
     "is at most this likely by chance (one-sided binomial test)"},
    {"proc", OPT_US, 0, 60000, AZ(proc_us), "host-processing verdict when most probes exceed it"},
    {"grace", OPT_MS, 0, 600000, AZ(grace_ms),
     "close a window this long after its end (> the probe timeout)"},
    OPT_TABLE_END,
};
