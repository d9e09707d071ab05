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

/*
 * What every monitor component's state begins with: its processes, and its
 * analyzer's windows once collected (for its report).
 */
struct mon_state {
	struct mon_procs procs;
	json_t *windows;
};

/* component_ops.alive and .stop of a state that begins with struct mon_state. */
bool mon_comp_alive(void *state, char *why, size_t whylen);
void mon_comp_stop(void *state);
/* What release frees of a mon_state (the rest of the state is the monitor's). */
void mon_state_release(struct mon_state *s);
/* component_ops.release of a state that begins with struct mon_state and owns nothing more. */
void mon_comp_release(void *state);

/*
 * The scenario section's parameters of a monitor are its parts' tables one
 * after another: tab's options (those keep() takes; NULL: all) at offset
 * off of the component's cfg, appended at params[*n] (cap in all, the
 * table's end included), the table ended after them.
 */
void mon_params_add(struct opt_desc *params, size_t cap, size_t *n, const struct opt_desc *tab,
		    size_t off, bool (*keep)(const struct opt_desc *d));

/*
 * component_ops.settle_ms and .drain_ms of a monitor whose parameters P
 * hold agent.timeout_ms and az.grace_ms: probes settle a timeout and a
 * second after the agents start; the analyzer drains for its grace.
 */
#define MON_COMP_TIMES(P)                                                                          \
	static long long settle_ms(const void *cfg)                                                \
	{                                                                                          \
		return ((const P *)cfg)->agent.timeout_ms + 1000;                                  \
	}                                                                                          \
	static long long drain_ms(const void *cfg)                                                 \
	{                                                                                          \
		return ((const P *)cfg)->az.grace_ms;                                              \
	}

/* A window closes only once its probes (and their answers) can no longer arrive. */
static inline void mon_grace(long long *grace_ms, long long timeout_ms)
{
	if (*grace_ms < timeout_ms + 500)
		*grace_ms = timeout_ms + 1000;
}

/*
 * The analyzer's JSON lines (DIR/PREFIXanalyzer.jsonl): windows kept in
 * s->windows, verdicts typed into obs (and as they were in the section's
 * "verdicts"), agents' lines into the section's "agents" with the overhead
 * they give (mon_overhead); each line and its type also to each() (NULL:
 * none), for the monitor's own figures.  obs->section is made here; the
 * monitor adds its own keys in finish() (NULL: none) before the shared ones
 * go last.  0.
 */
int mon_collect(struct mon_state *s, const struct comp_times *t, struct comp_obs *obs,
		void (*each)(void *ctx, const char *type, const json_t *j),
		void (*finish)(void *ctx, const json_t *agents, struct comp_obs *obs), void *ctx);

/*
 * A monitor's part of the incident page: its timeline (r->png when png,
 * with alt text alt; else where its data is), then its verdicts as a table,
 * 200 at most (the rest in the analyzer's file, named).  Every text from
 * the run goes through rl_xml_escape.
 */
void mon_html_plot(const struct comp_report *r, bool png, const char *alt, const char *data);
void mon_html_verdicts(const struct comp_report *r, const char *analyzer_file);

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
