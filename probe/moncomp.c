// SPDX-License-Identifier: MIT
/* A monitor's analyzer and agents, started and stopped through the lab (moncomp.h). */
#define _GNU_SOURCE
#include "probe/moncomp.h"

#include "harness/lib/common.h"
#include "harness/lib/proc.h"

#include <arpa/inet.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The analyzer (words analyze, output out) or the controller (out NULL), on this machine. */
static pid_t start_server(const struct comp_env *e, const struct mon_desc *d,
			  const char *const *words, const char *name, const char *addr,
			  const char *out, const struct opt_desc *opts, const void *cfg, char *what,
			  size_t whatlen)
{
	const char *argv[80];
	char log[PATH_MAX + 64];
	struct opt_store store = {0};
	size_t n = 0;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/%s%s.log", e->dir, d->prefix, name);
	argv[n++] = e->self_exe;
	for (const char *const *w = words; *w; w++)
		argv[n++] = *w;
	argv[n++] = "-i";
	argv[n++] = e->inv_path;
	argv[n++] = "--listen";
	argv[n++] = addr;
	if (out) {
		argv[n++] = "-o";
		argv[n++] = out;
	}
	if (opt_argv(opts, cfg, NULL, argv, &n, ARRAY_SIZE(argv), &store)) {
		opt_store_free(&store);
		return -E2BIG;
	}
	pid = proc_spawn_tied(argv, NULL, log);
	opt_store_free(&store);
	if (pid < 0)
		snprintf(what, whatlen, "cannot start the %s: %s", name, strerror(-pid));
	return pid;
}

/* One host's agent to start (mon_start() starts them lab_each() at once). */
struct agent_job {
	const struct comp_env *e;
	const struct mon_desc *d;
	struct mon_procs *p;
	size_t h;
	const char *an, *ctl;
	int r;
	char what[200];
};

static int start_agent(const struct comp_env *e, const struct mon_desc *d, struct mon_procs *p,
		       size_t h, const char *an, const char *ctl, char *what, size_t whatlen)
{
	const char *host = e->inv->hosts[h].name, *argv[80];
	char inv_there[PATH_MAX], log[PATH_MAX + 64], seed[16], off[32];
	struct opt_store store = {0};
	size_t n = 0;
	int r;

	/* On a lab reached over SSH: the host's rocelab, a copy of the inventory. */
	r = lab_share(e->lab, host, e->inv_path, inv_there, sizeof(inv_there));
	if (r) {
		snprintf(what, whatlen, "cannot copy the inventory to %s: %s", host, strerror(-r));
		return r;
	}
	argv[n++] = lab_program(e->lab, host, e->self_exe);
	for (const char *const *w = d->agent; *w; w++)
		argv[n++] = *w;
	argv[n++] = "--host";
	argv[n++] = host;
	argv[n++] = "-i";
	argv[n++] = inv_there;
	argv[n++] = "--analyzer";
	argv[n++] = an;
	if (d->controller) {
		argv[n++] = "--controller";
		argv[n++] = ctl;
	}
	if (opt_argv(d->agent_opts, d->agent_cfg, NULL, argv, &n, ARRAY_SIZE(argv) - 6, &store)) {
		opt_store_free(&store);
		return -E2BIG;
	}
	/* Seeds differ per host, from the scenario's seed else the run's. */
	snprintf(seed, sizeof(seed), "%u", (d->seed ? d->seed : e->seed) + (unsigned)h);
	argv[n++] = "--seed";
	argv[n++] = seed;
	/* Its clock as measured at pre-flight: record times on this machine's clock. */
	if (e->lab->clock && e->lab->clock[h].offset) {
		snprintf(off, sizeof(off), "%.6f", e->lab->clock[h].offset);
		argv[n++] = "--clock-offset";
		argv[n++] = off;
	}
	argv[n] = NULL;
	snprintf(log, sizeof(log), "%s/%sagent-%s.log", e->dir, d->prefix, host);
	r = lab_spawn(e->lab, host, argv, log, &p->agents[h]);
	opt_store_free(&store);
	if (r)
		snprintf(what, whatlen, "%s: %s", host, strerror(-r));
	return r;
}

static void *agent_job_run(void *arg)
{
	struct agent_job *j = arg;

	j->r = start_agent(j->e, j->d, j->p, j->h, j->an, j->ctl, j->what, sizeof(j->what));
	return NULL;
}

/*
 * Every host's agent, fanout at once on a lab reached over SSH; 0, or the
 * first failure with every host that failed named in what.
 */
static int start_agents(const struct comp_env *e, const struct mon_desc *d, struct mon_procs *p,
			const char *an, const char *ctl, char *what, size_t whatlen)
{
	struct agent_job *jobs = rl_xcalloc(p->n + 1, sizeof(*jobs));
	size_t bad = 0, len = 0;
	int r = 0;

	for (size_t h = 0; h < p->n; h++)
		jobs[h] = (struct agent_job){.e = e, .d = d, .p = p, .h = h, .an = an, .ctl = ctl};
	lab_each(e->lab, jobs, p->n, sizeof(*jobs), agent_job_run);
	for (size_t h = 0; h < p->n; h++)
		if (jobs[h].r && !bad++)
			r = jobs[h].r;
	if (bad == 1)
		len = (size_t)snprintf(what, whatlen, "cannot start the agent on");
	else if (bad)
		len = (size_t)snprintf(what, whatlen,
				       "cannot start the agent on %zu of %zu hosts:", bad, p->n);
	for (size_t h = 0, k = 0; h < p->n && len < whatlen; h++)
		if (jobs[h].r)
			len += (size_t)snprintf(what + len, whatlen - len, "%s %s", k++ ? ";" : "",
						jobs[h].what);
	free(jobs);
	return r;
}

int mon_start(const struct comp_env *e, const struct mon_desc *d, struct mon_procs *p, char *what,
	      size_t whatlen)
{
	char an[64], ctl[64];
	double max_off = 0;
	int r;

	p->lab = e->lab;
	p->inv = e->inv;
	snprintf(p->out, sizeof(p->out), "%s/%sanalyzer.jsonl", e->dir, d->prefix);
	snprintf(an, sizeof(an), "%s:%d", inet_ntoa(e->mgmt), d->port);
	snprintf(ctl, sizeof(ctl), "%s:%d", inet_ntoa(e->mgmt), d->ctl_port);
	unlink(p->out);
	p->analyzer = start_server(e, d, d->analyze, "analyzer", an, p->out, d->az_opts, d->az_cfg,
				   what, whatlen);
	if (p->analyzer < 0)
		return p->analyzer;
	if (d->controller) {
		p->controller = start_server(e, d, d->controller, "controller", ctl, NULL,
					     d->ctl_opts, d->ctl_cfg, what, whatlen);
		if (p->controller < 0)
			return p->controller;
	}
	p->n = e->inv->n_hosts;
	p->agents = rl_xcalloc(p->n + 1, sizeof(*p->agents));
	if ((r = start_agents(e, d, p, an, ctl, what, whatlen)))
		return r;
	for (size_t h = 0; e->lab->clock && h < p->n; h++)
		max_off = fmax(max_off, fabs(e->lab->clock[h].offset));
	snprintf(what, whatlen, "%zu agents%s, analyzer window %.1f s", p->n,
		 d->controller ? " with a controller" : "", (double)d->window_ms / 1e3);
	if (e->lab->clock) {
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
	return 0;
}

bool mon_alive(struct mon_procs *p, char *why, size_t whylen)
{
	if (p->analyzer > 0 && !proc_alive(p->analyzer)) {
		snprintf(why, whylen, "the analyzer (pid %d) exited early; see its log",
			 p->analyzer);
		return false;
	}
	if (p->controller > 0 && !proc_alive(p->controller)) {
		snprintf(why, whylen, "the controller (pid %d) exited early; see its log",
			 p->controller);
		return false;
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->agents[i].pid > 0 && !lab_alive(p->lab, &p->agents[i])) {
			if (p->agents[i].why[0])
				snprintf(why, whylen, "lost %s mid-run: %s", p->agents[i].dev,
					 p->agents[i].why);
			else
				snprintf(why, whylen, "the agent on %s exited early; see its log",
					 p->agents[i].dev);
			return false;
		}
	return true;
}

void mon_stop(struct mon_procs *p)
{
	lab_stop_each(p->lab, p->agents, p->n, 3000);
	if (p->controller > 0)
		proc_stop(p->controller, 5000);
	p->controller = 0;
	if (p->analyzer > 0)
		proc_stop(p->analyzer, 5000);
	p->analyzer = 0;
}

void mon_release(struct mon_procs *p)
{
	free(p->agents);
	p->agents = NULL;
}

/* An agent's first and last counters (its lines are cumulative since it started). */
struct span {
	double t0, t1, first[4], last[4], rss_kb;
	bool seen;
};

static double jnum(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

void mon_transport(const json_t *agents, const char *configured, struct comp_obs *obs)
{
	json_t *per = json_object();
	const char *one = NULL;
	bool mixed = false;
	size_t i;
	json_t *j;

	json_array_foreach(agents, i, j)
	{
		const char *h = json_string_value(json_object_get(j, "host")),
			   *t = json_string_value(json_object_get(j, "transport"));

		if (!h || !t)
			continue;
		json_object_set_new(per, h, json_string(t));
		mixed |= one && strcmp(one, t);
		one = one ? one : t;
	}
	json_object_set_new(obs->section, "transport",
			    json_string(mixed ? "mixed"
					: one ? one
					      : configured));
	json_object_set_new(obs->section, "transports", per);
}

void mon_overhead(const struct mon_procs *p, const json_t *agents, const json_t *windows,
		  const struct comp_times *t, struct comp_obs *obs)
{
	static const char *const keys[] = {"probes", "tx_pkts", "tx_bytes", "cpu_us"};
	const struct inventory *inv = p->inv;
	struct span *sp = rl_xcalloc(inv->n_hosts + 1, sizeof(*sp));
	double sum[4] = {0}, rss_kb = 0, covered = -1, links = 0;
	size_t rnics = 0, hosts = 0, i;
	json_t *a, *w, *o = json_object();

	json_array_foreach(agents, i, a)
	{
		const char *host = json_string_value(json_object_get(a, "host"));
		const struct inv_host *ih = host ? inventory_host(inv, host) : NULL;
		double tm = jnum(a, "time");
		size_t h;

		if (!ih)
			continue;
		h = (size_t)(ih - inv->hosts);
		for (int k = 0; k < 4; k++) {
			if (!sp[h].seen || tm < sp[h].t0)
				sp[h].first[k] = jnum(a, keys[k]);
			if (!sp[h].seen || tm >= sp[h].t1)
				sp[h].last[k] = jnum(a, keys[k]);
		}
		sp[h].t0 = sp[h].seen ? fmin(sp[h].t0, tm) : tm;
		sp[h].t1 = sp[h].seen ? fmax(sp[h].t1, tm) : tm;
		sp[h].seen = true;
		sp[h].rss_kb = fmax(sp[h].rss_kb, jnum(a, "rss_kb"));
	}
	for (size_t h = 0; h < inv->n_hosts; h++) {
		double dt = sp[h].t1 - sp[h].t0;

		rss_kb = fmax(rss_kb, sp[h].rss_kb);
		if (!sp[h].seen || dt < 1)
			continue; /* one line: no rate */
		for (int k = 0; k < 4; k++)
			sum[k] += (sp[h].last[k] - sp[h].first[k]) / dt;
		rnics += inv->hosts[h].n_rnics;
		hosts++;
	}
	json_array_foreach(windows, i, w)
	{
		if (!json_object_get(w, "links_covered"))
			continue;
		if (t->t_fault > 0 && jnum(w, "end") > t->t_fault && covered >= 0)
			break; /* the last window before the fault: the baseline's coverage */
		covered = jnum(w, "links_covered");
		links = jnum(w, "links");
	}
	if (rnics) {
		double cpu = sum[3] / 1e4 / (double)hosts; /* us/s to % of one core, per agent */

		comp_obs_metric(obs, "probes-per-rnic", sum[0] / (double)rnics, "probes/s");
		comp_obs_metric(obs, "packets-per-rnic", sum[1] / (double)rnics, "packets/s");
		comp_obs_metric(obs, "bytes-per-rnic", sum[2] / (double)rnics, "bytes/s");
		comp_obs_metric(obs, "agent-cpu", cpu, "%");
		json_object_set_new(o, "per_rnic",
				    json_pack("{s:f,s:f,s:f}", "probes_s",
					      round(sum[0] / (double)rnics * 10) / 10, "packets_s",
					      round(sum[1] / (double)rnics * 10) / 10, "bytes_s",
					      round(sum[2] / (double)rnics)));
		json_object_set_new(o, "agent_cpu_pct", json_real(round(cpu * 100) / 100));
		json_object_set_new(o, "agents", json_integer((json_int_t)hosts));
	}
	if (rss_kb > 0) {
		comp_obs_metric(obs, "agent-rss", rss_kb / 1024, "MB");
		json_object_set_new(o, "agent_rss_mb", json_real(round(rss_kb / 1024 * 10) / 10));
	}
	json_object_set_new(obs->section, "overhead", o);
	if (covered >= 0 && links > 0) {
		comp_obs_metric(obs, "link-coverage", covered / links, "share");
		json_object_set_new(obs->section, "link_coverage",
				    json_pack("{s:i,s:i,s:s}", "covered", (int)covered, "links",
					      (int)links, "at", t->t_fault > 0 ? "fault" : "end"));
	}
	free(sp);
}

bool mon_comp_alive(void *state, char *why, size_t whylen)
{
	return mon_alive(&((struct mon_state *)state)->procs, why, whylen);
}

void mon_comp_stop(void *state)
{
	mon_stop(&((struct mon_state *)state)->procs);
}

void mon_state_release(struct mon_state *s)
{
	json_decref(s->windows);
	s->windows = NULL;
	mon_release(&s->procs);
}

void mon_params_add(struct opt_desc *params, size_t cap, size_t *n, const struct opt_desc *tab,
		    size_t off, bool (*keep)(const struct opt_desc *d))
{
	for (const struct opt_desc *d = tab; d->type != OPT_END; d++) {
		if (keep && !keep(d))
			continue;
		if (*n + 1 >= cap) {
			rl_err("monitor parameters: more than %zu; make the table longer", cap - 1);
			abort();
		}
		params[*n] = *d;
		params[(*n)++].off += off;
	}
	params[*n] = (struct opt_desc)OPT_TABLE_END;
}

void mon_comp_release(void *state)
{
	if (!state)
		return;
	mon_state_release(state);
	free(state);
}

int mon_collect(struct mon_state *s, const struct comp_times *t, struct comp_obs *obs,
		void (*each)(void *ctx, const char *type, const json_t *j),
		void (*finish)(void *ctx, const json_t *agents, struct comp_obs *obs), void *ctx)
{
	FILE *f = fopen(s->procs.out, "re");
	char *line = NULL;
	size_t cap = 0;
	json_t *verdicts = json_array(), *agents = json_array();
	double late_p99 = 0; /* the worst window's P99 of the agents' send lateness (us) */

	json_decref(s->windows);
	s->windows = json_array();
	while (f && getline(&line, &cap, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		const char *type = j ? json_string_value(json_object_get(j, "type")) : NULL;

		if (!type) {
			json_decref(j);
			continue;
		}
		if (!strcmp(type, "window")) {
			double late = json_number_value(
			    json_object_get(json_object_get(j, "send_late_us"), "p99"));

			json_array_append(s->windows, j);
			late_p99 = late > late_p99 ? late : late_p99;
		} else if (!strcmp(type, "verdict")) {
			if (verdict_from_json(j, comp_obs_verdict(obs)))
				obs->n_verdicts--; /* not a verdict of this version: skipped */
			json_array_append(verdicts, j);
		} else if (!strcmp(type, "agent")) {
			json_array_append(agents, j);
		} else if (!strcmp(type, "path")) {
			comp_obs_path(obs, j); /* one not of this version: left out */
		}
		if (each)
			each(ctx, type, j);
		json_decref(j);
	}
	free(line);
	if (f)
		fclose(f);
	obs->section = json_object();
	if (finish)
		finish(ctx, agents, obs);
	json_object_set_new(obs->section, "windows",
			    json_integer((json_int_t)json_array_size(s->windows)));
	/* the rig as the agents felt it: how late they sent, the worst window's P99 */
	json_object_set_new(obs->section, "send_late_p99_us_max", json_real(late_p99));
	/* the distinct paths its probes were traced on (the grade's classes come from them) */
	json_object_set_new(obs->section, "paths_traced", json_integer((json_int_t)obs->n_paths));
	json_object_set_new(obs->section, "verdicts", verdicts);
	mon_overhead(&s->procs, agents, s->windows, t, obs);
	json_object_set_new(obs->section, "agents", agents);
	return 0;
}

static void html_plot(const struct comp_report *r, bool png, const char *alt, const char *data)
{
	char a[1024], b[256];

	if (png)
		fprintf(r->html, "<p><img src=\"%s\" alt=\"%s\" width=\"1200\"></p>\n",
			rl_xml_escape(r->png, a, sizeof(a)), rl_xml_escape(alt, b, sizeof(b)));
	else
		fprintf(r->html, "<p>(no plot: gnuplot did not run; data in %s)</p>\n",
			rl_xml_escape(data, b, sizeof(b)));
}

static void html_verdicts(const struct comp_report *r, const char *analyzer_file)
{
	FILE *f = r->html;
	char a[1024], b[1024];

	fprintf(f, "<h3>verdicts</h3>\n<p>t: seconds %s</p>\n", comp_time_zero(r->t));
	fprintf(f, "<table><tr><th>t (s)</th><th>class</th><th>target</th><th>votes</th></tr>\n");
	for (size_t i = 0; i < r->obs->n_verdicts; i++) {
		const struct verdict *v = &r->obs->verdicts[i];

		if (i >= 200) {
			fprintf(f, "<tr><td colspan=4>... %zu more in %s</td></tr>\n",
				r->obs->n_verdicts - i, rl_xml_escape(analyzer_file, a, sizeof(a)));
			break;
		}
		fprintf(f, "<tr><td>%.1f</td><td>%s</td><td>%s</td><td>%lld</td></tr>\n",
			v->time - comp_t0(r->t), rl_xml_escape(v->cls, a, sizeof(a)),
			rl_xml_escape(v->target, b, sizeof(b)), v->votes);
	}
	fprintf(f, "</table>\n");
}

void mon_html(const struct comp_report *r, bool png, const struct mon_page *pg, const char *probes)
{
	char a[1024], b[1024];

	fprintf(r->html, "<h2>%s</h2>\n<table>\n<tr><th>probes</th><td>%s</td></tr>\n</table>\n",
		rl_xml_escape(pg->name, a, sizeof(a)), rl_xml_escape(probes, b, sizeof(b)));
	html_plot(r, png, pg->alt, pg->data);
	html_verdicts(r, pg->analyzer_file);
	fprintf(r->html, "<p>Files: %s</p>\n", rl_xml_escape(pg->files, a, sizeof(a)));
}
