// SPDX-License-Identifier: MIT
/*
 * R-Pingmesh as a component under test: its analyzer on the controller, an
 * agent on every host through the lab (moncomp.c), beside Hostmesh's when
 * a scenario runs both; its verdicts read back typed, and its section of
 * results.json.
 */
#define _GNU_SOURCE
#include "probe/rpingmesh/component.h"

#include "harness/lib/common.h"
#include "probe/rpingmesh/rpmrec.h"

#include <stdlib.h>
#include <string.h>

struct rpm_state {
	const struct rpm_params *cfg;
	struct rpm_ctl_cfg ctl; /* the controller's, as started */
	struct mon_procs procs;
	json_t *windows; /* the analyzer's windows, for the report */
};

const json_t *rpm_windows(const void *state)
{
	return ((const struct rpm_state *)state)->windows;
}

/*
 * The scenario's rpingmesh section: the agent's parameters, then the
 * analyzer's, then the controller's own (its pinglist options are the
 * agent's, the seed the run's).
 */
static struct opt_desc params[56];
static struct opt_desc ctl_params[8];

__attribute__((constructor)) static void build_params(void)
{
	size_t n = 0;

	for (const struct opt_desc *d = rpm_agent_opts; d->type != OPT_END; d++) {
		params[n] = *d;
		params[n++].off += offsetof(struct rpm_params, agent);
	}
	for (const struct opt_desc *d = rpa_opts; d->type != OPT_END; d++) {
		params[n] = *d;
		params[n++].off += offsetof(struct rpm_params, az);
	}
	for (const struct opt_desc *d = rpm_ctl_opts; d->type != OPT_END; d++)
		if (!strcmp(d->name, "refresh") || !strcmp(d->name, "stale")) {
			params[n] = *d;
			params[n++].off += offsetof(struct rpm_params, ctl);
		}
	params[n] = (struct opt_desc)OPT_TABLE_END;
	n = 0;
	for (const struct opt_desc *d = rpm_ctl_opts; d->type != OPT_END; d++)
		ctl_params[n++] = *d;
	ctl_params[n] = (struct opt_desc)OPT_TABLE_END;
}

static void defaults(void *cfg)
{
	struct rpm_params *p = cfg;

	rpm_agent_defaults(&p->agent);
	rpa_defaults(&p->az);
	rpm_ctl_defaults(&p->ctl);
	p->agent.seed = 0; /* 0: the run's seed */
}

static int check(void *cfg, char *err, size_t errlen)
{
	struct rpm_params *p = cfg;

	if (p->ctl.stale_ms <= p->ctl.refresh_ms) {
		snprintf(err, errlen,
			 "stale (%lld ms) must be longer than refresh (%lld ms): agents register "
			 "again once a refresh",
			 p->ctl.stale_ms, p->ctl.refresh_ms);
		return -EINVAL;
	}
	/* A window closes only once its probes' ACKs can no longer arrive. */
	if (p->az.grace_ms < p->agent.timeout_ms + 500)
		p->az.grace_ms = p->agent.timeout_ms + 1000;
	return 0;
}

static long long settle_ms(const void *cfg)
{
	return ((const struct rpm_params *)cfg)->agent.timeout_ms + 1000;
}

static long long drain_ms(const void *cfg)
{
	return ((const struct rpm_params *)cfg)->az.grace_ms;
}

static int start(const struct comp_env *e, const void *cfg, void **state, char *what,
		 size_t whatlen)
{
	static const char *const analyze[] = {"analyze", "--monitor", "rpingmesh", NULL},
				 *const agent[] = {"agent", "rpingmesh", NULL},
				 *const controller[] = {"controller", NULL};
	const struct rpm_params *p = cfg;
	struct rpm_state *st = rl_xcalloc(1, sizeof(*st));
	struct mon_desc d = {.prefix = "rpingmesh-",
			     .analyze = analyze,
			     .agent = agent,
			     .port = RPM_DEFAULT_PORT,
			     .az_opts = rpa_opts,
			     .az_cfg = &p->az,
			     .agent_opts = rpm_agent_opts,
			     .agent_cfg = &p->agent,
			     .controller = controller,
			     .ctl_port = RPM_CTL_PORT,
			     .ctl_opts = ctl_params,
			     .ctl_cfg = &st->ctl,
			     .seed = p->agent.seed,
			     .window_ms = p->az.window_ms};

	*state = st;
	st->cfg = p;
	/* The controller hands out the pinglists the agent's options describe. */
	st->ctl = p->ctl;
	st->ctl.pl = p->agent.pl;
	st->ctl.pl.seed = p->agent.seed ? p->agent.seed : e->seed;
	return mon_start(e, &d, &st->procs, what, whatlen);
}

static bool alive(void *state, char *why, size_t whylen)
{
	return mon_alive(&((struct rpm_state *)state)->procs, why, whylen);
}

static void stop(void *state)
{
	mon_stop(&((struct rpm_state *)state)->procs);
}

static long long jint(const json_t *o, const char *list, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(o, list), key));
}

static void bump(json_t *o, const char *key, bool yes)
{
	json_object_set_new(
	    o, key, json_integer(json_integer_value(json_object_get(o, key)) + (yes ? 1 : 0)));
}

/*
 * A "service" line (a flow an agent found, judged in one window) into services,
 * by "FROM>TO/SPORT": its windows, those it was impacted in, and of those the
 * network-related ones; the others (its rate fell, its probes were fine) in
 * sender_windows.
 */
static void service_add(json_t *services, const json_t *j)
{
	char key[160];
	json_t *s, *nr = json_object_get(j, "network_related");

	snprintf(key, sizeof(key), "%s>%s/%lld", json_string_value(json_object_get(j, "from")),
		 json_string_value(json_object_get(j, "to")),
		 (long long)json_integer_value(json_object_get(j, "sport")));
	if (!(s = json_object_get(services, key))) {
		s = json_pack("{s:O,s:O,s:O,s:i,s:i,s:i}", "from", json_object_get(j, "from"), "to",
			      json_object_get(j, "to"), "sport", json_object_get(j, "sport"),
			      "windows", 0, "impacted", 0, "network_related", 0);
		json_object_set_new(services, key, s);
	}
	bump(s, "windows", true);
	bump(s, "impacted", json_is_true(json_object_get(j, "impacted")));
	bump(s, "network_related", json_is_true(nr));
	/* what the grader holds against the service's own sender: [start, end, Mbit/s, best] */
	if (json_is_true(json_object_get(j, "impacted")) && !json_is_true(nr)) {
		json_t *w = json_object_get(s, "sender_windows");

		if (!w)
			json_object_set_new(s, "sender_windows", w = json_array());
		json_array_append_new(w, json_pack("[O,O,O,O]", json_object_get(j, "start"),
						   json_object_get(j, "end"),
						   json_object_get(j, "rate_mbps"),
						   json_object_get(j, "best_mbps")));
	}
}

/* The analyzer's JSON lines: windows (summed per list), verdicts (typed), services. */
static int collect(void *state, const struct comp_times *t, struct comp_obs *obs)
{
	static const char *const lists[] = {"tor_mesh", "inter_tor", "service"};
	struct rpm_state *st = state;
	FILE *f = fopen(st->procs.out, "re");
	char *line = NULL;
	size_t cap = 0, windows = 0;
	long long probes = 0, timeouts = 0, ack2 = 0, unloc = 0;
	json_t *verdicts = json_array(), *per_list = json_object(), *agents = json_array(),
	       *services = json_object();

	st->windows = json_array();
	while (f && getline(&line, &cap, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		const char *type = j ? json_string_value(json_object_get(j, "type")) : NULL;

		if (type && !strcmp(type, "window")) {
			windows++;
			json_array_append(st->windows, j);
			unloc += json_integer_value(json_object_get(j, "unlocalized"));
			for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
				json_t *s = json_object_get(per_list, lists[l]);
				long long p = jint(j, lists[l], "probes");

				if (!p)
					continue;
				if (!s) {
					s = json_pack("{s:I,s:I,s:I}", "probes", 0, "timeouts", 0,
						      "ack2_lost", 0);
					json_object_set_new(per_list, lists[l], s);
				}
				probes += p;
				timeouts += jint(j, lists[l], "timeouts");
				ack2 += jint(j, lists[l], "ack2_lost");
				json_object_set_new(
				    s, "probes",
				    json_integer(json_integer_value(json_object_get(s, "probes")) +
						 p));
				json_object_set_new(s, "timeouts",
						    json_integer(json_integer_value(json_object_get(
								     s, "timeouts")) +
								 jint(j, lists[l], "timeouts")));
				json_object_set_new(s, "ack2_lost",
						    json_integer(json_integer_value(json_object_get(
								     s, "ack2_lost")) +
								 jint(j, lists[l], "ack2_lost")));
			}
		} else if (type && !strcmp(type, "verdict")) {
			if (verdict_from_json(j, comp_obs_verdict(obs)))
				obs->n_verdicts--; /* not a verdict of this version: skipped */
			json_array_append(verdicts, j);
		} else if (type && !strcmp(type, "agent")) {
			json_array_append(agents, j);
		} else if (type && !strcmp(type, "service")) {
			service_add(services, j);
		}
		json_decref(j);
	}
	free(line);
	if (f)
		fclose(f);
	comp_obs_metric(obs, "probes", (double)probes, "probes");
	comp_obs_metric(obs, "timeouts", (double)(timeouts + ack2), "probes");
	obs->section = json_object();
	mon_transport(agents, st->cfg->agent.transport->name, obs);
	json_object_set_new(obs->section, "probes", json_integer(probes));
	json_object_set_new(obs->section, "timeouts", json_integer(timeouts));
	json_object_set_new(obs->section, "ack2_lost", json_integer(ack2));
	json_object_set_new(obs->section, "unlocalized", json_integer(unloc));
	json_object_set_new(obs->section, "lists", per_list);
	json_object_set_new(obs->section, "windows", json_integer((json_int_t)windows));
	json_object_set_new(obs->section, "verdicts", verdicts);
	json_object_set_new(obs->section, "services", services);
	/* a service sending this share less than its best is degraded (the grader's line too) */
	json_object_set_new(obs->section, "svc_degrade", json_real(st->cfg->az.svc_degrade));
	mon_overhead(&st->procs, agents, st->windows, t, obs);
	json_object_set_new(obs->section, "agents", agents);
	return 0;
}

static void release(void *state)
{
	struct rpm_state *st = state;

	if (!st)
		return;
	mon_release(&st->procs);
	json_decref(st->windows);
	free(st);
}

/* Each agent probes the targets of its host's pinglist: the controller's, from the same options. */
static int probe_pairs(const struct inventory *inv, const void *cfg, unsigned seed,
		       void (*each)(void *ctx, const struct comp_pair *p), void *ctx)
{
	const struct rpm_params *p = cfg;
	struct rpm_pl_cfg c = p->agent.pl;
	struct rpm_fabric *fab = rpm_fabric_new(inv);
	int r = 0;

	c.seed = p->agent.seed ? p->agent.seed : seed;
	c.live = NULL;
	c.pairs_only = true;
	for (size_t h = 0; h < inv->n_hosts && !r; h++) {
		struct rpm_pinglist pl;

		if ((r = rpm_pinglist_on(fab, h, &c, &pl)))
			break;
		for (size_t i = 0; i < pl.n; i++)
			each(ctx, &(struct comp_pair){{INV_DEV_HOST, h, pl.t[i].src_rnic},
						      {INV_DEV_HOST, pl.t[i].host, pl.t[i].rnic}});
		rpm_pinglist_free(&pl);
	}
	rpm_fabric_free(fab);
	return r;
}

/*
 * paper: the brief's defaults.  ci: sped up for 20 s scenarios on a 2-core
 * machine: ToR-mesh 10 probes/s, inter-ToR 3/s a target over 6 source ports,
 * 2 s windows, traces refreshed every 20 s, an RNIC held bad 10 s.
 */
static const struct comp_profile profiles[] = {
    {"paper", "the brief's parameters (the defaults)", (const char *const[]){NULL}},
    {"ci", "CI speed: inter-ToR 3 probes/s a target, 2 s windows",
     (const char *const[]){"inter-tor-rate=3", "sports=6", "timeout=500ms", "trace-rate=100",
			   "trace-refresh=20s", "window=2s", "rnic-hold=10s", NULL}},
    {0},
};

const struct component_ops rpingmesh_component = {
    .name = "rpingmesh",
    .profiles = profiles,
    .summary = "R-Pingmesh (SIGCOMM'24): cross-host probing with ACKs, ToR-mesh and voting",
    .params = params,
    .cfg_size = sizeof(struct rpm_params),
    .defaults = defaults,
    .check = check,
    .settle_ms = settle_ms,
    .drain_ms = drain_ms,
    .start = start,
    .alive = alive,
    .stop = stop,
    .collect = collect,
    .report = rpm_report,
    .release = release,
    .probe_pairs = probe_pairs,
};
