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

static int start_analyzer(const struct comp_env *e, const struct mon_desc *d, struct mon_procs *p,
			  const char *an, char *what, size_t whatlen)
{
	const char *argv[80];
	char log[PATH_MAX + 64];
	struct opt_store store = {0};
	size_t n = 0;

	snprintf(log, sizeof(log), "%s/%sanalyzer.log", e->dir, d->prefix);
	argv[n++] = e->self_exe;
	for (const char *const *w = d->analyze; *w; w++)
		argv[n++] = *w;
	argv[n++] = "-i";
	argv[n++] = e->inv_path;
	argv[n++] = "--listen";
	argv[n++] = an;
	argv[n++] = "-o";
	argv[n++] = p->out;
	if (opt_argv(d->az_opts, d->az_cfg, NULL, argv, &n, ARRAY_SIZE(argv), &store)) {
		opt_store_free(&store);
		return -E2BIG;
	}
	p->analyzer = proc_spawn_tied(argv, NULL, log);
	opt_store_free(&store);
	if (p->analyzer < 0) {
		snprintf(what, whatlen, "cannot start the analyzer: %s", strerror(-p->analyzer));
		return p->analyzer;
	}
	return 0;
}

static int start_agent(const struct comp_env *e, const struct mon_desc *d, struct mon_procs *p,
		       size_t h, const char *an, double *max_off, char *what, size_t whatlen)
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
		*max_off = fmax(*max_off, fabs(e->lab->clock[h].offset));
	}
	argv[n] = NULL;
	snprintf(log, sizeof(log), "%s/%sagent-%s.log", e->dir, d->prefix, host);
	r = lab_spawn(e->lab, host, argv, log, &p->agents[h]);
	opt_store_free(&store);
	if (r)
		snprintf(what, whatlen, "cannot start the agent on %s: %s", host, strerror(-r));
	return r;
}

int mon_start(const struct comp_env *e, const struct mon_desc *d, struct mon_procs *p, char *what,
	      size_t whatlen)
{
	char an[64];
	double max_off = 0;
	int r;

	p->lab = e->lab;
	snprintf(p->out, sizeof(p->out), "%s/%sanalyzer.jsonl", e->dir, d->prefix);
	snprintf(an, sizeof(an), "%s:%d", inet_ntoa(e->mgmt), d->port);
	unlink(p->out);
	r = start_analyzer(e, d, p, an, what, whatlen);
	if (r)
		return r;
	p->n = e->inv->n_hosts;
	p->agents = rl_xcalloc(p->n, sizeof(*p->agents));
	for (size_t h = 0; h < p->n && !r; h++)
		r = start_agent(e, d, p, h, an, &max_off, what, whatlen);
	if (r)
		return r;
	snprintf(what, whatlen, "%zu agents, analyzer window %.1f s", p->n,
		 (double)d->window_ms / 1e3);
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
	for (size_t h = 0; h < p->n; h++)
		if (p->agents[h].pid > 0)
			lab_stop(p->lab, &p->agents[h], 3000);
	if (p->analyzer > 0)
		proc_stop(p->analyzer, 5000);
	p->analyzer = 0;
}

void mon_release(struct mon_procs *p)
{
	free(p->agents);
	p->agents = NULL;
}
