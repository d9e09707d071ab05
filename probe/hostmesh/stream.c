// SPDX-License-Identifier: MIT
/* An agent's record stream into the analyzer: what Hostmesh's records are, for rec_take(). */
#include "harness/lib/common.h"
#include "probe/hostmesh/analyzer.h"
#include "probe/recin.h"

_Static_assert(HM_STATS == REC_STATS, "agents' counters are type 4 in every numbering");

static void take_probe(void *az, size_t host, const void *body)
{
	az_probe(az, host, body);
}

static void take_path(void *az, size_t host, const void *body)
{
	az_path(az, host, body);
}

static void take_stats(void *az, size_t host, const char *transport, const struct rec_stats *st)
{
	az_agent_stats(az, host, transport, st);
}

static const struct rec_kind kinds[] = {
    {HM_PROBE, sizeof(struct hm_probe), take_probe},
    {HM_PATH, sizeof(struct hm_path), take_path},
};

static const struct rec_intake intake = {
    .title = "Hostmesh",
    .hint = "; R-Pingmesh's records go to 'rocelab analyze --monitor rpingmesh'",
    .magic = HM_MAGIC,
    .version = HM_VERSION,
    .hello_type = HM_HELLO,
    .hello_size = sizeof(struct hm_hello),
    .kinds = kinds,
    .n_kinds = ARRAY_SIZE(kinds),
    .stats = take_stats,
};

int hm_stream_take(struct az *az, const struct inventory *inv, struct rec_stream *s)
{
	return rec_take(&intake, az, inv, s);
}
