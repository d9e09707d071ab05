/* SPDX-License-Identifier: MIT */
/*
 * What every monitor component does alike (Hostmesh, R-Pingmesh): its
 * analyzer on the controller, listening on the management network, and an
 * agent on every host through the lab streaming to it, each agent with its
 * own seed and its host's measured clock offset; checked alive, stopped
 * agents first.  How each reads its analyzer's output back is its own.
 */
#ifndef ROCELAB_MONCOMP_H
#define ROCELAB_MONCOMP_H

#include "harness/component/component.h"
#include "harness/lib/opt.h"

struct mon_desc {
	/* its files' names start with this in the scenario's folder, which components share */
	const char *prefix;
	const char *const *analyze; /* rocelab's words for its analyzer, NULL-ended */
	const char *const *agent;   /* and for its agent */
	int port;		    /* the analyzer's TCP port */
	const struct opt_desc *az_opts;
	const void *az_cfg;
	const struct opt_desc *agent_opts;
	const void *agent_cfg;
	/* A controller the agents take their pinglists from (NULL: none): its words, port,
	 * parameters */
	const char *const *controller;
	int ctl_port;
	const struct opt_desc *ctl_opts;
	const void *ctl_cfg;
	unsigned seed;	     /* the agents' seed base (0: the run's); host h gets seed + h */
	long long window_ms; /* for the line that says what started */
};

struct mon_procs {
	struct lab *lab;
	const struct inventory *inv;
	pid_t analyzer, controller;
	struct lab_proc *agents;
	size_t n;
	char out[4200]; /* the analyzer's JSON lines: DIR/PREFIXanalyzer.jsonl */
};

/* Start the analyzer and the controller, then the agents; what says what started, or what did not.
 * 0 or -errno. */
int mon_start(const struct comp_env *e, const struct mon_desc *d, struct mon_procs *p, char *what,
	      size_t whatlen);
bool mon_alive(struct mon_procs *p, char *why, size_t whylen);
void mon_stop(struct mon_procs *p);
void mon_release(struct mon_procs *p);

/*
 * What a monitor cost and saw, from its analyzer's lines: agents (its
 * "agent" lines, each agent's counters since it started) give the overhead
 * per RNIC: probes/s, packets/s and bytes/s sent (as on the wire), and each
 * agent's CPU (% of one core) and peak RSS; windows give the link coverage
 * (links on a traced probe path, of the lab's) at the fault's start, or at
 * the end with no fault.  As metrics, and as obs->section's "overhead" and
 * "link_coverage" (section made first).
 */
void mon_overhead(const struct mon_procs *p, const json_t *agents, const json_t *windows,
		  const struct comp_times *t, struct comp_obs *obs);

/*
 * The probe transport the agents used, into obs->section: "transport" (the
 * one all used, "mixed", or the configured one when no agent reported) and
 * "transports" (host: transport).  With "auto", hosts can differ.
 */
void mon_transport(const json_t *agents, const char *configured, struct comp_obs *obs);

#endif
