// SPDX-License-Identifier: MIT
/* An R-Pingmesh agent's record stream into the analyzer: its records, for rec_take(). */
#include "harness/lib/common.h"
#include "probe/recin.h"
#include "probe/rpingmesh/analyzer.h"

static void take_probe(void *a, size_t host, const void *body)
{
	rpa_probe(a, host, body);
}

static void take_path(void *a, size_t host, const void *body)
{
	rpa_path(a, host, body);
}

static void take_flow(void *a, size_t host, const void *body)
{
	rpa_flow(a, host, body);
}

static void take_stats(void *a, size_t host, const char *transport, const struct rec_stats *st)
{
	rpa_stats(a, host, transport, st);
}

static const struct rec_kind kinds[] = {
    {RPM_REC_PROBE, sizeof(struct rpm_probe_rec), take_probe},
    {RPM_REC_PATH, sizeof(struct rpm_path_rec), take_path},
    {RPM_REC_FLOW, sizeof(struct rpm_flow_rec), take_flow},
};

static const struct rec_intake intake = {
    .title = "R-Pingmesh",
    .hint = "; Hostmesh's records go to 'rocelab analyze' without --monitor rpingmesh",
    .magic = RPM_REC_MAGIC,
    .version = RPM_REC_VERSION,
    .hello_type = RPM_REC_HELLO,
    .hello_size = sizeof(struct rpm_hello),
    .kinds = kinds,
    .n_kinds = ARRAY_SIZE(kinds),
    .stats = take_stats,
};

int rpa_stream_take(struct rpa *a, const struct inventory *inv, struct rec_stream *s)
{
	return rec_take(&intake, a, inv, s);
}
