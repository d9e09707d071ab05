// SPDX-License-Identifier: MIT
/* rocelab analyze --monitor hostmesh: the Hostmesh analyzer as the command line runs it. */
#include "harness/lib/common.h"
#include "probe/hostmesh/analyzer.h"
#include "probe/hostmesh/hmrec.h"
#include "probe/hostmesh/hostmesh.h"
#include "probe/monitor.h"

static void defaults(void *cfg)
{
	az_defaults(cfg);
}

static long long window_ms(const void *cfg)
{
	return ((const struct az_cfg *)cfg)->window_ms;
}

static void *new_az(const struct inventory *inv, const void *cfg, FILE *out)
{
	return az_new(inv, cfg, out);
}

static void free_az(void *az)
{
	az_free(az);
}

static int take(void *az, const struct inventory *inv, struct rec_stream *s)
{
	return hm_stream_take(az, inv, s);
}

static void tick(void *az, uint64_t now_ns)
{
	az_tick(az, now_ns);
}

static void flush(void *az)
{
	az_flush(az);
}

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
    .defaults = defaults,
    .window_ms = window_ms,
    .new_az = new_az,
    .free_az = free_az,
    .take = take,
    .tick = tick,
    .flush = flush,
    .left_out = left_out,
};
