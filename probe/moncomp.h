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
 * The component_ops hooks every monitor has alike, for its parameters P
 * (members agent, with timeout_ms and seed, and az, with grace_ms and
 * window_ms) and its state S (member mon first, then const P *cfg):
 * - check: the monitor's own OWN_CHECK(P *, err, errlen) (0 or -EINVAL
 *   with err), then the analyzer's grace fitted to the probes' timeout
 *   (mon_grace);
 * - settle_ms: probes settle a timeout and a second after the agents start;
 *   drain_ms: the analyzer drains for its grace;
 * - start: a new S, its processes started as DESC (a struct mon_desc of
 *   the monitor's words, ports and option tables) says, with P's agent and
 *   az options, seed and window; OWN_START(e, const P *, S *, struct
 *   mon_desc *) (NULL: none) first adds what else is the monitor's own.
 * MON_COMP_OPS names them, and the shared alive, stop and release, in the
 * monitor's component_ops.
 */
#define MON_COMP_HOOKS(P, S, DESC, OWN_CHECK, OWN_START)                                           \
	static int check(void *cfg, char *err, size_t errlen)                                      \
	{                                                                                          \
		P *p = cfg;                                                                        \
		int r = OWN_CHECK(p, err, errlen);                                                 \
                                                                                                   \
		if (!r)                                                                            \
			mon_grace(&p->az.grace_ms, p->agent.a.timeout_ms);                         \
		return r;                                                                          \
	}                                                                                          \
	static long long settle_ms(const void *cfg)                                                \
	{                                                                                          \
		return ((const P *)cfg)->agent.a.timeout_ms + 1000;                                \
	}                                                                                          \
	static long long drain_ms(const void *cfg)                                                 \
	{                                                                                          \
		return ((const P *)cfg)->az.grace_ms;                                              \
	}                                                                                          \
	static long long detect_ms(const void *cfg)                                                \
	{                                                                                          \
		return 2 * ((const P *)cfg)->az.window_ms + ((const P *)cfg)->az.grace_ms;         \
	}                                                                                          \
	static int start(const struct comp_env *e, const void *cfg, void **state, char *what,      \
			 size_t whatlen)                                                           \
	{                                                                                          \
		void (*own)(const struct comp_env *, const P *, S *, struct mon_desc *) =          \
		    OWN_START;                                                                     \
		const P *p = cfg;                                                                  \
		S *st = rl_xcalloc(1, sizeof(*st));                                                \
		struct mon_desc d = DESC;                                                          \
                                                                                                   \
		d.az_cfg = &p->az;                                                                 \
		d.agent_cfg = &p->agent;                                                           \
		d.seed = p->agent.a.seed;                                                          \
		d.window_ms = p->az.window_ms;                                                     \
		*state = st;                                                                       \
		st->cfg = p;                                                                       \
		if (own)                                                                           \
			own(e, p, st, &d);                                                         \
		return mon_start(e, &d, &st->mon.procs, what, whatlen);                            \
	}

#define MON_COMP_OPS                                                                               \
	.check = check, .settle_ms = settle_ms, .drain_ms = drain_ms, .detect_ms = detect_ms,      \
	.start = start, .alive = mon_comp_alive, .stop = mon_comp_stop,                            \
	.release = mon_comp_release

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

/* What a monitor's part of the incident page names: */
struct mon_page {
	const char *name;	   /* its heading: "hostmesh" */
	const char *alt;	   /* its timeline's alt text */
	const char *data;	   /* where its timeline's data is, when gnuplot did not run */
	const char *analyzer_file; /* where the verdicts past the first 200 are */
	const char *files;	   /* what its files in the folder are */
};

/*
 * A monitor's part of the incident page: its heading, its probes' row
 * (probes, text), its timeline (r->png when png, else where its data is),
 * its verdicts as a table, 200 at most, and its files.  Every text goes
 * through rl_xml_escape.
 */
void mon_html(const struct comp_report *r, bool png, const struct mon_page *pg, const char *probes);

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
