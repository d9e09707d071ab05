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

	for (const struct opt_desc *d = hm_agent_opts; d->type != OPT_END; d++) {
		params[n] = *d;
		params[n++].off += offsetof(struct hm_params, agent);
	}
	for (const struct opt_desc *d = az_opts; d->type != OPT_END; d++) {
		params[n] = *d;
		params[n++].off += offsetof(struct hm_params, az);
	}
	params[n] = (struct opt_desc)OPT_TABLE_END;
}

static void defaults(void *cfg)
{
	struct hm_params *p = cfg;

	hm_agent_defaults(&p->agent);
	az_defaults(&p->az);
	p->agent.seed = 0; /* 0: the run's seed */
}

static int check(void *cfg, char *err, size_t errlen)
{
	struct hm_params *p = cfg;

	if (p->agent.timeout_ms / p->agent.interval_ms > 4096) {
		snprintf(err, errlen, "hostmesh.timeout is more than 4096 intervals");
		return -EINVAL;
	}
	/* A window closes only once its probes can no longer arrive. */
	if (p->az.grace_ms < p->agent.timeout_ms + 500)
		p->az.grace_ms = p->agent.timeout_ms + 1000;
	return 0;
}

static long long settle_ms(const void *cfg)
{
	return ((const struct hm_params *)cfg)->agent.timeout_ms + 1000;
}

static long long drain_ms(const void *cfg)
{
	return ((const struct hm_params *)cfg)->az.grace_ms;
}

static int start(const struct comp_env *e, const void *cfg, void **state, char *what,
		 size_t whatlen)
{
	const struct hm_params *p = cfg;
	struct hm_state *st = rl_xcalloc(1, sizeof(*st));
	const char *argv[80];
	char an[64], log[PATH_MAX + 64], seed[16], off[32];
	double max_off = 0;
	struct opt_store store = {0};
	size_t n = 0;
	int r = 0;

	*state = st;
	st->cfg = p;
	st->lab = e->lab;
	snprintf(st->out, sizeof(st->out), "%s/analyzer.jsonl", e->dir);
	snprintf(an, sizeof(an), "%s:%d", inet_ntoa(e->mgmt), ANALYZER_PORT);
	unlink(st->out);

	/* The analyzer runs on the controller, listening on the management network. */
	snprintf(log, sizeof(log), "%s/analyzer.log", e->dir);
	argv[n++] = e->self_exe;
	argv[n++] = "analyze";
	argv[n++] = "-i";
	argv[n++] = e->inv_path;
	argv[n++] = "--listen";
	argv[n++] = an;
	argv[n++] = "-o";
	argv[n++] = st->out;
	if (opt_argv(az_opts, &p->az, NULL, argv, &n, ARRAY_SIZE(argv), &store)) {
		opt_store_free(&store);
		return -E2BIG;
	}
	st->analyzer = proc_spawn_tied(argv, NULL, log);
	opt_store_free(&store);
	if (st->analyzer < 0) {
		snprintf(what, whatlen, "cannot start the analyzer: %s", strerror(-st->analyzer));
		return st->analyzer;
	}

	/* An agent where each host's RNICs are. */
	st->n = e->inv->n_hosts;
	st->agents = rl_xcalloc(st->n, sizeof(*st->agents));
	for (size_t h = 0; h < st->n && !r; h++) {
		const char *host = e->inv->hosts[h].name;
		char inv_there[PATH_MAX];

		/* On a lab reached over SSH: the host's rocelab, a copy of the inventory. */
		r = lab_share(e->lab, host, e->inv_path, inv_there, sizeof(inv_there));
		if (r) {
			snprintf(what, whatlen, "cannot copy the inventory to %s: %s", host,
				 strerror(-r));
			break;
		}
		n = 0;
		argv[n++] = lab_program(e->lab, host, e->self_exe);
		argv[n++] = "agent";
		argv[n++] = "hostmesh";
		argv[n++] = "--host";
		argv[n++] = host;
		argv[n++] = "-i";
		argv[n++] = inv_there;
		argv[n++] = "--analyzer";
		argv[n++] = an;
		if (opt_argv(hm_agent_opts, &p->agent, NULL, argv, &n, ARRAY_SIZE(argv) - 2,
			     &store)) {
			opt_store_free(&store);
			r = -E2BIG;
			break;
		}
		/* Seeds differ per host, from the scenario's seed else the run's. */
		snprintf(seed, sizeof(seed), "%u",
			 (p->agent.seed ? p->agent.seed : e->seed) + (unsigned)h);
		argv[n++] = "--seed";
		argv[n++] = seed;
		/* Its clock as measured at pre-flight: record times on this machine's clock. */
		if (e->lab->clock && e->lab->clock[h].offset) {
			snprintf(off, sizeof(off), "%.6f", e->lab->clock[h].offset);
			argv[n++] = "--clock-offset";
			argv[n++] = off;
			max_off = fmax(max_off, fabs(e->lab->clock[h].offset));
		}
		argv[n] = NULL;
		snprintf(log, sizeof(log), "%s/agent-%s.log", e->dir, host);
		r = lab_spawn(e->lab, host, argv, log, &st->agents[h]);
		opt_store_free(&store);
		if (r)
			snprintf(what, whatlen, "cannot start the agent on %s: %s", host,
				 strerror(-r));
	}
	if (!r)
		snprintf(what, whatlen, "%zu agents, analyzer window %.1f s", st->n,
			 (double)p->az.window_ms / 1e3);
	if (!r && e->lab->clock) {
		size_t used = strlen(what);

		if (max_off)
			snprintf(what + used, whatlen - used,
				 ", record times on this machine's clock (host offsets up to %.3f "
				 "s taken off)",
				 max_off);
		else
			snprintf(what + used, whatlen - used,
				 ", host clocks as this machine's (within measurement)");
	}
	return r;
}

static bool alive(void *state, char *why, size_t whylen)
{
	struct hm_state *st = state;

	if (st->analyzer > 0 && !proc_alive(st->analyzer)) {
		snprintf(why, whylen, "the analyzer (pid %d) exited early; see its log",
			 st->analyzer);
		return false;
	}
	for (size_t i = 0; i < st->n; i++)
		if (st->agents[i].pid > 0 && !lab_alive(st->lab, &st->agents[i])) {
			if (st->agents[i].why[0])
				snprintf(why, whylen, "lost %s mid-run: %s", st->agents[i].dev,
					 st->agents[i].why);
			else
				snprintf(why, whylen, "the agent on %s exited early; see its log",
					 st->agents[i].dev);
			return false;
		}
	return true;
}

static void stop(void *state)
{
	struct hm_state *st = state;

	for (size_t h = 0; h < st->n; h++)
		if (st->agents[h].pid > 0)
			lab_stop(st->lab, &st->agents[h], 3000);
	if (st->analyzer > 0)
		proc_stop(st->analyzer, 5000);
	st->analyzer = 0;
}

/* The analyzer's JSON lines: windows (kept for the report), verdicts (typed), agents. */
static int collect(void *state, const struct comp_times *t, struct comp_obs *obs)
{
	struct hm_state *st = state;
	FILE *f = fopen(st->out, "re");
	char *line = NULL;
	size_t cap = 0, ok = 0, kern = 0, hw = 0;
	unsigned long long probes = 0, timeouts = 0;
	json_t *verdicts = json_array(), *agents = json_array();
	const char *ts;

	(void)t;
	st->windows = json_array();
	while (f && getline(&line, &cap, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		const char *type = j ? json_string_value(json_object_get(j, "type")) : NULL;

		if (!type) {
			json_decref(j);
			continue;
		}
		if (!strcmp(type, "window")) {
			probes +=
			    (unsigned long long)json_integer_value(json_object_get(j, "probes"));
			timeouts +=
			    (unsigned long long)json_integer_value(json_object_get(j, "timeouts"));
			ok += (size_t)json_integer_value(json_object_get(j, "ok"));
			kern += (size_t)json_integer_value(json_object_get(j, "ts_kernel"));
			hw += (size_t)json_integer_value(json_object_get(j, "ts_hw"));
			json_array_append_new(st->windows, j);
		} else if (!strcmp(type, "verdict")) {
			if (verdict_from_json(j, comp_obs_verdict(obs)))
				obs->n_verdicts--; /* not a verdict of this version: skipped */
			json_array_append_new(verdicts, j);
		} else {
			json_array_append_new(agents, j);
		}
	}
	free(line);
	if (f)
		fclose(f);
	ts = !ok	    ? "none"
	     : hw == ok	    ? "hardware"
	     : kern == ok   ? "kernel-software"
	     : !kern && !hw ? "clock_gettime"
			    : "mixed";
	comp_obs_metric(obs, "probes", (double)probes, "probes");
	comp_obs_metric(obs, "timeouts", (double)timeouts, "probes");
	obs->section = json_object();
	json_object_set_new(obs->section, "transport", json_string(st->cfg->agent.transport->name));
	json_object_set_new(obs->section, "timestamps", json_string(ts));
	/* The short answer: RNIC completion clocks, or a software clock (kernel or clock_gettime).
	 */
	json_object_set_new(obs->section, "timestamp_source",
			    json_string(!strcmp(ts, "hardware") ? "hardware"
					: !strcmp(ts, "none") || !strcmp(ts, "mixed")
					    ? ts
					    : "software"));
	json_object_set_new(obs->section, "probes", json_integer((json_int_t)probes));
	json_object_set_new(obs->section, "timeouts", json_integer((json_int_t)timeouts));
	json_object_set_new(obs->section, "windows",
			    json_integer((json_int_t)json_array_size(st->windows)));
	json_object_set_new(obs->section, "verdicts", verdicts);
	json_object_set_new(obs->section, "agents", agents);
	return 0;
}

static void release(void *state)
{
	struct hm_state *st = state;

	if (!st)
		return;
	json_decref(st->windows);
	free(st->agents);
	free(st);
}

const struct component_ops hostmesh_component = {
    .name = "hostmesh",
    .summary = "Hostmesh (APNet'24): per-host RNIC probing, Algorithm 1 voting",
    .params = params,
    .cfg_size = sizeof(struct hm_params),
    .defaults = defaults,
    .check = check,
    .settle_ms = settle_ms,
    .drain_ms = drain_ms,
    .start = start,
    .alive = alive,
    .stop = stop,
    .collect = collect,
    .report = hm_report,
    .release = release,
};
