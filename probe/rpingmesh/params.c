// SPDX-License-Identifier: MIT
/*
 * R-Pingmesh's parameters, spelled once: the agent's option table drives its
 * command line (and, with the runner, the scenario's rpingmesh section).
 */
#include "probe/rpingmesh/params.h"
#include "harness/lib/common.h"
#include "harness/lib/opt.h"
#include "probe/rec.h"
#include "probe/rpingmesh/agent.h"
#include "probe/rpingmesh/analyzer.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole number in [lo, hi] from v, or -1. */
static long whole(const char *v, long lo, long hi)
{
	char *end;
	long n = strtol(v, &end, 10);

	return end == v || *end || n < lo || n > hi ? -1 : n;
}

int rpm_parse_inter_tor(const struct opt_desc *d, const char *v, void *field, char *err,
			size_t errlen)
{
	long n = strcmp(v, "all") ? whole(v, 1, 1024) : 0;

	(void)d;
	if (n < 0) {
		snprintf(err, errlen,
			 "inter-tor '%s': give all, or how many RNICs of each other ToR (1 to "
			 "1024)",
			 v);
		return -EINVAL;
	}
	*(unsigned *)field = (unsigned)n;
	return 0;
}

const char *rpm_print_inter_tor(const void *field, char *buf, size_t len)
{
	unsigned n = *(const unsigned *)field;

	if (n)
		snprintf(buf, len, "%u", n);
	else
		snprintf(buf, len, "all");
	return buf;
}

int rpm_parse_sports(const struct opt_desc *d, const char *v, void *field, char *err, size_t errlen)
{
	long n = strcmp(v, "auto") ? whole(v, 1, RPM_SPORTS_MAX) : 0;

	(void)d;
	if (n < 0) {
		snprintf(err, errlen, "sports '%s': give auto (Eq. (1)) or 1 to %d", v,
			 RPM_SPORTS_MAX);
		return -EINVAL;
	}
	*(unsigned *)field = (unsigned)n;
	return 0;
}

const char *rpm_print_sports(const void *field, char *buf, size_t len)
{
	unsigned n = *(const unsigned *)field;

	if (n)
		snprintf(buf, len, "%u", n);
	else
		snprintf(buf, len, "auto");
	return buf;
}

int rpm_parse_coverage(const struct opt_desc *d, const char *v, void *field, char *err,
		       size_t errlen)
{
	char *end;
	double p = rl_strtod(v, &end);

	(void)d;
	if (end == v || *end || !(p > 0 && p < 1)) {
		snprintf(err, errlen,
			 "coverage '%s': give a probability between 0 and 1 (e.g. 0.9)", v);
		return -EINVAL;
	}
	*(double *)field = p;
	return 0;
}

const char *rpm_print_coverage(const void *field, char *buf, size_t len)
{
	snprintf(buf, len, "%g", *(const double *)field);
	return buf;
}

static int parse_services(const struct opt_desc *d, const char *v, void *field, char *err,
			  size_t errlen)
{
	(void)d;
	if (strcmp(v, "packet") && strcmp(v, "off")) {
		snprintf(err, errlen,
			 "services '%s': give packet (flows found on the RNICs) or off", v);
		return -EINVAL;
	}
	*(bool *)field = !strcmp(v, "packet");
	return 0;
}

static const char *print_services(const void *field, char *buf, size_t len)
{
	snprintf(buf, len, "%s", *(const bool *)field ? "packet" : "off");
	return buf;
}

#define AG(f)	 offsetof(struct rpm_agent_cfg, f)
#define AG_PL(f) offsetof(struct rpm_agent_cfg, pl.f)

const struct opt_desc rpm_agent_opts[] = {
    {"transport", OPT_CUSTOM, 0, 0, AG(a.transport),
     "probe transport: udp (RoCEv2 UD packets over raw sockets), verbs (UD QPs through "
     "rdma-core) or auto (verbs where the RNIC has an RDMA device, else udp)",
     pt_opt_parse, pt_opt_print},
    {"tor-mesh-rate", OPT_DOUBLE, 0.01, 1000, AG(tor_mesh_rate),
     "probes a second to each ToR-mesh target"},
    {"inter-tor-rate", OPT_DOUBLE, 0.01, 1000, AG(inter_tor_rate),
     "probes a second to each inter-ToR target"},
    {"timeout", OPT_MS, 1, 60000, AG(a.timeout_ms),
     "no ACK1 by then is a timeout, ACK1 without ACK2 an ACK2 loss"},
    {"orphan-after", OPT_MS, 0, 86400000, AG(a.orphan_ms),
     "with an analyzer: exit once it has been unreachable this long (0: never), as when the run "
     "that started the agent was killed"},
    {"services", OPT_CUSTOM, 0, 0, AG(services),
     "service tracing: packet (the host's outgoing RoCEv2 flows, found on its RNICs, probed on "
     "their 5-tuples) or off",
     parse_services, print_services},
    {"service-rate", OPT_DOUBLE, 0.01, 1000, AG(service_rate),
     "probes a second on each service flow's 5-tuple"},
    {"service-idle", OPT_MS, 100, 3600000, AG(service_idle_ms),
     "a service flow that sent nothing this long has ended"},
    RPM_PL_OPTS(AG_PL),
    {"rotate", OPT_MS, 100, 86400000, AG(a.rotate_ms),
     "replace rotate-share of each target's source ports this often"},
    {"rotate-share", OPT_DOUBLE, 0, 1, AG(rotate_share), "share of the ports each rotation"},
    {"trace-rate", OPT_DOUBLE, 0, 1000, AG(a.trace_rate),
     "path traces per second at most (switch ICMP budget)"},
    {"trace-refresh", OPT_MS, 100, 86400000, AG(a.trace_refresh_ms),
     "re-trace each 5-tuple this often"},
    {"trace-timeout", OPT_MS, 10, 10000, AG(a.trace_timeout_ms), "wait for ICMP answers per trace"},
    {"max-ttl", OPT_INT, 2, REC_MAX_HOPS, AG(a.max_ttl), "hops traced at most"},
    {"dscp", OPT_INT, 0, 63, AG(a.dscp), "DSCP of probes and ACKs (26: PFC priority 3)"},
    {"seed", OPT_UINT, 0, 4294967295.0, AG(a.seed),
     "random seed (probe phases, port rotation, inter-ToR picks)"},
    OPT_TABLE_END,
};

#define AZ(f) offsetof(struct rpa_cfg, f)

const struct opt_desc rpa_opts[] = {
    {"window", OPT_MS, 100, 3600000, AZ(window_ms), "analysis window"},
    {"rnic-threshold", OPT_DOUBLE, 0, 1, AZ(rnic_threshold),
     "a ToR-mesh pair timing out more than this share is bad"},
    {"rnic-min-probes", OPT_INT, 1, 1e6, AZ(rnic_min_probes),
     "probes a ToR-mesh pair needs in a window to be judged"},
    {"rnic-min-peers", OPT_INT, 1, 1e6, AZ(rnic_min_peers),
     "ToR-mesh peers an RNIC needs to be judged (a ToR of two cannot tell which one is dead)"},
    {"rnic-peer-share", OPT_DOUBLE, 0, 1, AZ(rnic_peer_share),
     "share of its peers whose pairs are bad that makes an RNIC bad"},
    {"rnic-hold", OPT_MS, 0, 86400000, AZ(rnic_hold_ms),
     "a bad RNIC's timeouts stay its own this long"},
    {"host-down-share", OPT_DOUBLE, 0, 1, AZ(host_down_share),
     "timeout share to every RNIC of a silent host that makes it down"},
    {"min-votes", OPT_INT, 1, 1e6, AZ(min_votes), "abnormal probes needed before voting"},
    {"min-share", OPT_DOUBLE, 0, 1, AZ(min_share),
     "share of abnormal probes the top suspect must be on"},
    {"slow", OPT_US, 0, 60000, AZ(slow_us), "network RTT that counts as high"},
    {"slow-share", OPT_DOUBLE, 0, 1, AZ(slow_share),
     "a congestion hotspot's share of slow probes at least (and ten times the rest's)"},
    {"proc", OPT_US, 0, 60000, AZ(proc_us),
     "host-processing verdict when most prober or responder delays exceed it"},
    {"stall", OPT_US, 0, 10000000, AZ(stall_us),
     "a host whose prober or responder delay passed it in a window stalled there: its "
     "timeouts are host noise"},
    {"svc-loss", OPT_DOUBLE, 0, 1, AZ(svc_loss),
     "a service whose probes are lost past this share has trouble on its path"},
    {"svc-degrade", OPT_DOUBLE, 0, 1, AZ(svc_degrade),
     "a service sending this share less than in its best window is degraded"},
    {"grace", OPT_MS, 0, 600000, AZ(grace_ms),
     "close a window this long after its end (> the probe timeout)"},
    OPT_TABLE_END,
};
