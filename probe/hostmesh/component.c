// SPDX-License-Identifier: MIT
/*
 * Hostmesh as a component under test: the analyzer on the controller, an
 * agent on every host through the lab, their verdicts read back typed, and
 * its section of results.json and of the incident report (report.c).
 */
#define _GNU_SOURCE
#include "probe/hostmesh/component.h"

#include "harness/lib/common.h"
#include "harness/lib/proc.h"

#include <arpa/inet.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ANALYZER_PORT 4790

/* The scenario's hostmesh section: the agent's parameters, then the analyzer's. */
static struct opt_desc params[48];

__attribute__((constructor)) static void build_params(void)
{
	size_t n = 0;

	mon_params_add(params, ARRAY_SIZE(params), &n, hm_agent_opts,
		       offsetof(struct hm_params, agent), NULL);
	mon_params_add(params, ARRAY_SIZE(params), &n, az_opts, offsetof(struct hm_params, az),
		       NULL);
}

static void defaults(void *cfg)
{
	struct hm_params *p = cfg;

	hm_agent_defaults(&p->agent);
	az_defaults(&p->az);
}

static int own_check(struct hm_params *p, char *err, size_t errlen)
{
	if (p->agent.a.timeout_ms / p->agent.interval_ms > 4096) {
		snprintf(err, errlen, "hostmesh.timeout is more than 4096 intervals");
		return -EINVAL;
	}
	return 0;
}

MON_COMP_HOOKS(struct hm_params, struct hm_state,
	       ((struct mon_desc){.prefix = "",
				  .analyze = (const char *const[]){"analyze", NULL},
				  .agent = (const char *const[]){"agent", "hostmesh", NULL},
				  .port = ANALYZER_PORT,
				  .az_opts = az_opts,
				  .agent_opts = hm_agent_opts}),
	       own_check, NULL)

/* What Hostmesh's windows sum to: probes, their fates, and how they were timed. */
struct hm_sums {
	const struct hm_state *st;
	unsigned long long probes, timeouts, ok, kern, hw;
};

static void window_sums(void *ctx, const char *type, const json_t *j)
{
	struct hm_sums *m = ctx;

	if (strcmp(type, "window"))
		return;
	m->probes += (unsigned long long)json_integer_value(json_object_get(j, "probes"));
	m->timeouts += (unsigned long long)json_integer_value(json_object_get(j, "timeouts"));
	m->ok += (unsigned long long)json_integer_value(json_object_get(j, "ok"));
	m->kern += (unsigned long long)json_integer_value(json_object_get(j, "ts_kernel"));
	m->hw += (unsigned long long)json_integer_value(json_object_get(j, "ts_hw"));
}

static void section(void *ctx, const json_t *agents, struct comp_obs *obs)
{
	const struct hm_sums *m = ctx;
	unsigned long long ok = m->ok, hw = m->hw, kern = m->kern;
	const char *ts = !ok		? "none"
			 : hw == ok	? "hardware"
			 : kern == ok	? "kernel-software"
			 : !kern && !hw ? "clock_gettime"
					: "mixed";

	comp_obs_metric(obs, "probes", (double)m->probes, "probes");
	comp_obs_metric(obs, "timeouts", (double)m->timeouts, "probes");
	mon_transport(agents, m->st->cfg->agent.a.transport->name, obs);
	json_object_set_new(obs->section, "timestamps", json_string(ts));
	/* The short answer: RNIC completion clocks, or a software clock (kernel or clock_gettime,
	 * one kind or both: udp agents beside verbs ones on rxe), "mixed" only with some of each.
	 */
	json_object_set_new(obs->section, "timestamp_source",
			    json_string(!ok	   ? "none"
					: hw == ok ? "hardware"
					: !hw	   ? "software"
						   : "mixed"));
	json_object_set_new(obs->section, "probes", json_integer((json_int_t)m->probes));
	json_object_set_new(obs->section, "timeouts", json_integer((json_int_t)m->timeouts));
}

/* The analyzer's JSON lines: windows (kept for the report), verdicts (typed), agents. */
static int collect(void *state, const struct comp_times *t, struct comp_obs *obs)
{
	struct hm_state *st = state;
	struct hm_sums m = {.st = st};

	return mon_collect(&st->mon, t, obs, window_sums, section, &m);
}

/* Each agent probes between its own host's RNICs, every one to every other. */
static int probe_pairs(const struct inventory *inv, const void *cfg, unsigned seed,
		       void (*each)(void *ctx, const struct comp_pair *p), void *ctx)
{
	(void)cfg;
	(void)seed;
	for (size_t h = 0; h < inv->n_hosts; h++)
		for (size_t s = 0; s < inv->hosts[h].n_rnics; s++)
			for (size_t d = 0; d < inv->hosts[h].n_rnics; d++)
				if (s != d)
					each(ctx, &(struct comp_pair){{INV_DEV_HOST, h, s},
								      {INV_DEV_HOST, h, d}});
	return 0;
}

/*
 * The paper's parameters are the defaults (100 ms probes, 20 s windows): profile
 * paper.  ci: the same algorithm sped up for 20 s scenarios on a 2-core
 * machine: 50 probes/s per RNIC over a pool of 32 source ports (4 spines: 8
 * ports each), 2 s windows, traces refreshed every 20 s, an RNIC held bad 10 s,
 * and 3 votes: a fault on one RNIC pair through one spine (an ACL) meets about
 * 5-8 of its probes in a 2 s window at that rate (50/s over 3 destinations and
 * 4 spines, one way), where the paper's 5 votes assume 20 s windows.  Outside
 * the faults of three runs of the CI suite beside stress-ng, no window held a
 * link with more than 1 vote (181 windows).
 */
static const struct comp_profile profiles[] = {
    {"paper", "the paper's parameters (the defaults)", (const char *const[]){NULL}},
    {"ci", "CI speed: 50 probes/s per RNIC, 2 s windows",
     (const char *const[]){"interval=20ms", "timeout=500ms", "sports=32", "trace-rate=100",
			   "trace-refresh=20s", "window=2s", "rnic-hold=10s", "min-votes=3", NULL}},
    /*
     * vm: the Soft-RoCE tier (make vm-check): two hosts under qemu TCG, one over
     * verbs on rxe and one over udp (transport auto), 50 probes/s per RNIC over 16
     * source ports (2 spines), the paper's 5 votes.  rxe there: one-way latency
     * p50 ~1 ms, p99 ~10 ms (slow 50 ms, the paper's 1 ms); its agents wait for a
     * CPU, past 5 ms for 60% of a window's probes beside an incast (p90 41 ms:
     * proc 50 ms).
     */
    {"vm", "Soft-RoCE under qemu TCG: 50 probes/s per RNIC, 2 s windows, TCG's latencies",
     (const char *const[]){"transport=auto", "interval=20ms", "timeout=500ms", "sports=16",
			   "trace-rate=100", "trace-refresh=20s", "window=2s", "rnic-hold=10s",
			   "slow=50ms", "proc=50ms", NULL}},
    {0},
};

const struct component_ops hostmesh_component = {
    .name = "hostmesh",
    .summary = "Hostmesh (APNet'24): per-host RNIC probing, Algorithm 1 voting",
    .params = params,
    .profiles = profiles,
    .cfg_size = sizeof(struct hm_params),
    .defaults = defaults,
    MON_COMP_OPS,
    .collect = collect,
    .report = hm_report,
    .replot = hm_plot,
    .probe_pairs = probe_pairs,
};
