// SPDX-License-Identifier: MIT
/* rocelab analyze --monitor hostmesh: the Hostmesh analyzer as the command line runs it. */
#include "harness/lib/common.h"
#include "probe/hostmesh/analyzer.h"
#include "probe/hostmesh/hmrec.h"
#include "probe/hostmesh/hostmesh.h"
#include "probe/monitor.h"

MON_ANALYZER_FNS(struct az, struct az_cfg, az_new, az_free, hm_stream_take, az_tick, az_flush,
		 az_defaults)

static void left_out(const void *az)
{
	struct az_totals t;

	az_totals(az, &t);
	if (t.refused || t.late || t.unknown_rnic)
		rl_warn("analyze: records left out: %llu refused (over the bounds on input from "
			"the network, docs/security.md), %llu late, %llu of unknown RNICs",
			(unsigned long long)t.refused, (unsigned long long)t.late,
			(unsigned long long)t.unknown_rnic);
}

const struct mon_analyzer hostmesh_analyzer = {
    .name = "hostmesh",
    .title = "Hostmesh",
    .about = "Analyze Hostmesh records per window: RNIC anomalies, Algorithm 1 voting over links\n"
	     "and switches for drops and for high network latency, drop rates and latency\n"
	     "percentiles.  Writes JSON lines (window, verdict, agent) to stdout or -o FILE.",
    .port = HM_DEFAULT_PORT,
    .opts = az_opts,
    .cfg_size = sizeof(struct az_cfg),
    MON_ANALYZER_OPS,
    .left_out = left_out,
};
