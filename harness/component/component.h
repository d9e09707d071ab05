/* SPDX-License-Identifier: MIT */
/*
 * A component under test: a monitor (Hostmesh, R-Pingmesh) that emits
 * verdicts, or a data-path component (MP-RDMA, Eunomia) that emits metrics.
 * Each is one component_ops table, registered by name (harness/run/registry.c);
 * the runner starts it through the lab, stops it, collects what it saw, the
 * grader grades that against the injected truth, and the reports ask it for
 * its own section.  Nothing outside its folder knows its parameters.
 */
#ifndef ROCELAB_COMPONENT_H
#define ROCELAB_COMPONENT_H

#include "harness/lab/lab.h"
#include "harness/lib/opt.h"

#include <jansson.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>

/* ---- what components report ---------------------------------------------------------- */

#define VERDICT_SUSPECTS 8
#define VERDICT_SET_MAX	 8

struct suspect {
	char target[160]; /* a link "a:p--b:q", a switch, an RNIC "host:rnic" */
	long long votes;  /* abnormal probes on it */
	long long good;	  /* normal probes on it (a tie-breaker: fewer is worse) */
};

/* A monitor's verdict: what it blames for which window, and on what evidence. */
struct verdict {
	double time;	/* when it happened in the monitor's view (its window's end) */
	double emitted; /* when the monitor said so (0: not said; grading uses time) */
	double win[2];	/* the window judged, CLOCK_REALTIME seconds */
	char cls[24];	/* rnic | switch-link | switch | congestion | host-processing */
	char target[160];
	long long votes;
	struct suspect sus[VERDICT_SUSPECTS]; /* best first */
	size_t n_sus;
	/*
	 * A monitor's own ambiguity (issue 64): the elements it cannot tell apart,
	 * the verdict naming them all (n_set: how many it named, at most
	 * VERDICT_SET_MAX kept; 0: no set, the target alone).  The grader credits a
	 * set that holds the truth and is no larger than the truth's class.
	 */
	char set[VERDICT_SET_MAX][160];
	size_t n_set;
	/*
	 * A latency verdict's votes whose network time a host's clock_gettime
	 * took (no kernel or completion clock), and those hosts (VERDICT_SET_MAX
	 * kept): their agents' scheduling is in that time.
	 */
	long long app_timed;
	char app_hosts[VERDICT_SET_MAX][64];
	size_t n_app_hosts;
	/*
	 * Set by the runner, not the monitor: a host-processing verdict for a
	 * window in which the rig's measured CPU pressure passed its bound (the
	 * hosts' processing really was slow): a right verdict of a measured
	 * event, neither a false positive nor a verdict on the fault.  Likewise
	 * a congestion verdict most of whose votes were app-timed by hosts
	 * under that pressure (their own scheduling, which the probes measured).
	 */
	bool rig;
	/*
	 * Set by the runner too: a verdict on a link the fault's own driver took
	 * down and up with it (an mlx5 RNIC's PFC change), while it did, as the
	 * injector measured it: right, neither a false positive nor the fault's.
	 */
	bool effect;
};

/*
 * A verdict's keys in JSON: monitors' analyzers write them (probe/monaz.c),
 * the run reads them back (verdict_from_json); nowhere else spells them.
 */
#define VERDICT_K_TIME	    "time"
#define VERDICT_K_EMITTED   "emitted"
#define VERDICT_K_WINDOW    "window"
#define VERDICT_K_CLASS	    "class"
#define VERDICT_K_TARGET    "target"
#define VERDICT_K_VOTES	    "votes"
#define VERDICT_K_SUSP	    "suspects"
#define VERDICT_K_GOOD	    "good"
#define VERDICT_K_SET	    "set"
#define VERDICT_K_APP_TIMED "app_timed"
#define VERDICT_K_APP_HOSTS "app_timed_hosts"

/* The one key table for verdicts in JSON, both ways.  -EINVAL when a key is missing. */
int verdict_from_json(const json_t *o, struct verdict *v);
json_t *verdict_to_json(const struct verdict *v);

/* A figure a data-path component measured, graded against 'expect: metrics:'. */
struct metric {
	char name[48]; /* goodput-vs-optimal, reorder-degree, ... */
	double value;
	char unit[16];
};

/*
 * What a monitor that traces services saw of one flow (FROM>TO/SPORT),
 * summed over its windows: in how many it was seen, impacted, and impacted
 * by the network; and the impacted windows it did not blame on the
 * network, with the flow's rate then and its best (Mbit/s), which the
 * grader holds against what the flow's own sender sent.
 */
struct svc_window {
	double start, end, rate_mbps, best_mbps;
};
struct svc_obs {
	char from[80], to[80]; /* "host:rnic" */
	unsigned sport;
	long long windows, impacted, network;
	struct svc_window *sender;
	size_t n_sender;
};

/* What a component observed during one scenario. */
/* A path a monitor's probes took, as its agents traced it (issue 64): first seen at t. */
#define COMP_PATH_LINKS 16
struct comp_path {
	double t;			  /* CLOCK_REALTIME s */
	size_t n, links[COMP_PATH_LINKS]; /* inventory link indexes, the source RNIC's first */
};

struct comp_obs {
	struct verdict *verdicts;
	size_t n_verdicts;
	/* a monitor's traced paths, each link set once (none: it says none, or traces none) */
	struct comp_path *paths;
	size_t n_paths;
	/* A monitor that traces services: what it saw of each (traces_services set even when it
	 * saw none), and the share of its best rate below which it calls a flow degraded. */
	bool traces_services;
	struct svc_obs *services;
	size_t n_services;
	double svc_degrade;
	struct metric *metrics;
	size_t n_metrics;
	json_t *section; /* its own part of results.json (owned; NULL: none) */
	/*
	 * Set when the run says nothing of the component: the rig itself was the
	 * limit ("rig-limited: 12 receive-socket overflows").  The scenario is
	 * then invalid, never a pass or a fail.
	 */
	char invalid[200];
};

void comp_obs_clear(struct comp_obs *o);
/* A "path" line of a monitor's analyzer ({"t", "links": [L, ...]}) into o: 0, -EINVAL. */
int comp_obs_path(struct comp_obs *o, const json_t *j);
struct verdict *comp_obs_verdict(struct comp_obs *o); /* appends a zeroed one */
/* The flow from>to/sport, appended zeroed when it is not there yet; borrowed, valid until the
 * next call.  NULL when from or to is too long. */
struct svc_obs *comp_obs_service(struct comp_obs *o, const char *from, const char *to,
				 unsigned sport);
/* The services as results.json has them: {"FROM>TO/SPORT": {from, to, sport, windows, ...}}. */
json_t *comp_obs_services_json(const struct comp_obs *o);
void comp_obs_metric(struct comp_obs *o, const char *name, double value, const char *unit);

/* ---- what the runner gives them -------------------------------------------------------- */

/* A link the scenario's fabric profile shapes, both ways (link-degrade). */
struct comp_shape {
	char target[72]; /* one end of the link: "rail1:swp5", "host1:rnic1" */
	unsigned long long rate_kbit;
};

/*
 * A fault of the scenario, as the component may want it: its kind and its
 * resolved target.  The scenario's loads come after its faults, as kinds
 * load-stream (target: the port it goes across) and load-incast (its RNIC).
 */
struct comp_fault {
	char kind[24];		      /* link-flap, ipid-drop, ..., load-stream, load-incast */
	char target[72];	      /* "spine2:swp2", "host1:rnic1", a switch */
	unsigned long long rate_kbit; /* a link-degrade's rate, a load's (0: none) */
};

struct comp_env {
	struct lab *lab;
	const struct inventory *inv;
	const char *inv_path;
	const char *self_exe; /* rocelab itself, for parts that run as its subcommands */
	const char *dir;      /* OUTDIR/<scenario>: the component's logs and files */
	struct in_addr mgmt;  /* the controller on the management network */
	unsigned seed;
	const struct comp_shape *shapes; /* the fabric profile (NULL: none) */
	size_t n_shapes;
	const struct comp_fault *faults; /* what the fault phase injects (ground truth) */
	size_t n_faults;
};

/*
 * The scenario's clock: CLOCK_REALTIME seconds; t_fault 0 when nothing was
 * injected.  t_inject: when the first injector started (its login and
 * checks), t_fault: when its fault took effect.  t_stop: when the components
 * began to be stopped (0: not known).  t_verified: when the injectors of
 * the faults due at the phase's start had verified them all, their test
 * traffic (pfc-misconfig: a second of incast at full speed) over (0: not
 * known).  t_unapply: when the first revert began (t_revert is when the
 * last one ended; between them the fault is coming off: a TBF deleted drops
 * what it held).  0: not known.
 */
struct comp_times {
	double t_start, t_inject, t_fault, t_revert, t_end, t_stop, t_verified, t_unapply;
	/* when the fault could first be seen: t_fault, or later when a load reveals it (the
	 * load was running from then); 0: t_fault.  Time to detect counts from here. */
	double t_effect;
	/* time zero of every time a person reads (issue 58): the fault's start, or the fault
	 * phase's when nothing was injected; 0: not known (t_start, as results before it) */
	double t_origin;
};

/* Time zero of what a person reads (plots, their data, report.html): see t_origin. */
double comp_t0(const struct comp_times *t);
/* The time axis's label: "time from the fault's start (s)" or, without one, the phase's. */
const char *comp_time_label(const struct comp_times *t);
/* What time zero is, after a time: "from the fault's start" (or the phase's, or the run's). */
const char *comp_time_zero(const struct comp_times *t);

/* The incident report's hooks: files go to dir, the plot to dir/png. */
struct comp_report {
	const char *dir;
	const char *png;     /* file name in dir */
	const char *title;   /* "scenario: verdict - reason" */
	const char *caption; /* "lab L, seed N, DATE UTC, rocelab V, run ID": on the plot */
	const struct comp_times *t;
	const struct comp_obs *obs;
	FILE *html; /* the report's body: the component writes its <h2> section */
	/* When a flapping link was down, [from, to] (CLOCK_REALTIME s), from the injector's log */
	const double (*down)[2];
	size_t n_down;
	/*
	 * The rig measured through the scenario (issue 64): a file in dir of
	 * "t some busy controller stall_ms steal [runq_per_cpu [hosts_worst]]" rows
	 * (t from time zero, comp_t0()), or NULL; its columns (6 from before the
	 * run queue was drawn, 7, or 8 with the worst host's pressure of a lab
	 * reached over SSH; 0 reads as 6); what it measured; the pressure above
	 * which a host-processing verdict is set aside.
	 */
	const char *rig_dat, *rig_source;
	int rig_cols;
	double rig_bound;
	/* Its component_ops.name: the plot's description names it (comp_plot_begin()). */
	const char *component;
};

/*
 * A component's incident plot: its script (r->png named .gp) in r->dir begun with the
 * terminal, its panels (layout rows,1) under the report's title and
 * caption, a shared time axis and the fault window shaded (and a flapping
 * link's down intervals, darker).  what names the component in its first
 * line.  Returns the open file (comp_plot_end() closes and draws it), or
 * NULL with errno set; gp receives its path.
 *
 * Beside the script, its description (issue 56): STEM.plot.json, everything
 * the script is written from but the data files -- the component, the PNG,
 * title, caption, times, down intervals, the rig's panel, and params, the
 * component's own plot parameters (numbers, flags, names from its fixed
 * lists).  'rocelab report' redraws from the description through the
 * component's replot, the code that wrote the script; it never runs a
 * script it finds in a results folder.
 */
FILE *comp_plot_begin(const struct comp_report *r, const char *what, const json_t *params, int rows,
		      int height, char *gp, size_t gplen);

#define COMP_PLOT_DESC ".plot.json" /* STEM.plot.json beside STEM.gp */
#define COMP_PLOT_DOWN 64	    /* down intervals a plot shades, at most */

/* A plot's description read back: untrusted (a results folder is anyone's). */
struct comp_plot_desc {
	char component[32], png[200], title[1024], caption[512], rig_dat[200], rig_source[256];
	struct comp_times t;
	double down[COMP_PLOT_DOWN][2];
	json_t *params;	      /* the component's own: its replot checks them */
	struct comp_report r; /* all of it but dir, html and obs (the caller's) */
};

/*
 * text[0, len) as a plot's description into d: 0, or -EINVAL with err saying
 * which key is wrong (names [A-Za-z0-9_.-], finite times, at most
 * COMP_PLOT_DOWN intervals, text of bounded length).  comp_plot_desc_free()
 * after either.
 */
int comp_plot_desc_read(struct comp_plot_desc *d, const char *text, size_t len, char *err,
			size_t errlen);
void comp_plot_desc_free(struct comp_plot_desc *d);

/*
 * A plot parameter, for replot to check (they came from a results folder):
 * the number at key within [lo, hi], a boolean, or the string at key that is
 * one of the NULL-ended list (its index).  false / -1 when absent or not so.
 */
bool comp_param_num(const json_t *params, const char *key, double lo, double hi, double *v);
bool comp_param_flag(const json_t *params, const char *key, bool *v);
/* A flag that may be absent (a folder written before it): *v as it was then; false: not a flag. */
bool comp_param_flag_opt(const json_t *params, const char *key, bool *v);
/*
 * A monitor's window plot's flags in params: whether any window is in the plot
 * ("windows") and any with a latency ("latency"), each true when absent (a
 * folder written before them).  false with err when either is not a flag.
 */
bool comp_plot_window_flags(const json_t *params, bool *drawn, bool *latency, char *err,
			    size_t errlen);
int comp_param_choice(const json_t *params, const char *key, const char *const *list);
/*
 * The verdicts as plot data: r->dir/name, index 0 a marker a window with
 * verdicts ("t_s \"class target\"", seconds since the start), index 1 their
 * labels to write level at the panel's top ("t_s row_y \"label\"", the same
 * label of windows in a row once, "(xN)").  0 or -errno.
 */
int comp_plot_verdicts(const struct comp_report *r, const char *name);
/*
 * The plot series that draw file's verdicts (markers at y 0, labels on the
 * y2 axis: the panel sets 'set y2range [0:1]' and no y2tics) into buf.
 */
const char *comp_plot_verdict_series(const char *file, char *buf, size_t len);
/*
 * A window [start, end] (CLOCK_REALTIME s) as the span of the plot's time
 * axis it covers (from time zero, clipped to the plotted time, its ends to a
 * tenth of a second as the script's x range has them) into span:
 * false when it lies outside.  The monitors draw a window as a step over its
 * span: drawn at its midpoint, a window longer than the scenario (Hostmesh's
 * paper windows are 20 s) put no point inside the plot, and gnuplot refused
 * the whole report.
 */
bool comp_plot_span(const struct comp_times *t, double start, double end, double span[2]);
/*
 * A panel's y axis: the range yrange asks for ("[0:1<*]", "[*:*]") when its
 * data has a point to draw, else (gnuplot refuses to scale an axis from no
 * point) the fixed range [lo:hi] and a label in the panel saying none was.
 * comp_plot_yaxis_end() after the panel's plot.
 */
void comp_plot_yaxis(FILE *f, bool points, const char *yrange, double lo, double hi);
void comp_plot_yaxis_end(FILE *f);

/*
 * The plot's end, after the component's panels: the rig's panel
 * (comp_plot_begin() gave it a row when r->rig_dat is set: CPU pressure,
 * CPUs busy, the run queue per CPU and the controller's CPU over the same
 * time axis, the worst host's pressure over SSH, the bound that sets a
 * host-processing verdict aside, the stalls on the right), the multiplot ended, f
 * closed and drawn: gnuplot run on gp in r->dir.  0, -ENOENT (no
 * gnuplot, warned) or -EIO (warned).
 */
int comp_plot_end(const struct comp_report *r, FILE *f, const char *gp);

/* A pair of RNICs a monitor probes: from a to b (INV_DEV_HOST endpoints). */
struct comp_pair {
	struct inv_endpoint a, b;
};

/*
 * A named set of a component's parameters (issue 64: one profile per monitor
 * and speed, named in the scenario as `profile: ci`, instead of parameters
 * tuned scenario by scenario): "key=value" strings through its params table,
 * applied over its defaults before the scenario's own keys.
 */
struct comp_profile {
	const char *name;
	const char *summary;
	const char *const *set; /* NULL-terminated "key=value" */
};

struct component_ops {
	const char *name;
	const char *summary;
	/* Its parameters: the scenario's components.<name> map. */
	const struct opt_desc *params;
	/* Optional: its profiles, ended by one with a NULL name. */
	const struct comp_profile *profiles;
	size_t cfg_size;
	void (*defaults)(void *cfg);
	/* Optional (NULL: none): check, drain_ms, report, release.  The rest are required. */
	/* After parsing: checks across parameters, derived values.  -EINVAL + err. */
	int (*check)(void *cfg, char *err, size_t errlen);
	/* How long after a fault ends its verdicts may still be about it (ms). */
	long long (*settle_ms)(const void *cfg);
	/* How long after the recovery phase to wait for its last results (ms). */
	long long (*drain_ms)(const void *cfg);
	/*
	 * Optional, a monitor's: its design's time to detect (ms), by when after
	 * a fault starts its first verdict on it is due with cfg (a monitor of
	 * windows: two of them, the one the fault starts in holding only part of
	 * it, and the grace before a window closes).  expect.within's default
	 * (issue 64: derived from the profile, not tuned per scenario).
	 */
	long long (*detect_ms)(const void *cfg);

	/* Start on the lab; a line saying what runs into what (for progress). */
	int (*start)(const struct comp_env *e, const void *cfg, void **state, char *what,
		     size_t whatlen);
	/* false with a reason when a part of it died. */
	bool (*alive)(void *state, char *why, size_t whylen);
	void (*stop)(void *state);
	int (*collect)(void *state, const struct comp_times *t, struct comp_obs *obs);
	/* Optional, after collect: data files, its plot and its HTML section; -errno (-ENOENT: no
	 * gnuplot). */
	int (*report)(void *state, const struct comp_report *r);
	/*
	 * Optional, with report: its plot written and drawn again in r->dir from
	 * a description comp_plot_begin() wrote (params untrusted: checked, the
	 * data files beside it read by gnuplot as data).  0, -EINVAL with err
	 * saying which parameter, -ENOENT (no gnuplot) or -EIO.
	 */
	int (*replot)(const struct comp_report *r, const json_t *params, char *err, size_t errlen);
	void (*release)(void *state);
	/*
	 * Optional, a monitor's: the pairs of RNICs it probes on inv with cfg (what it can
	 * tell apart follows from them: probe/observe.h), seed the run's, each given to
	 * each(ctx, pair) in turn (a large lab's run to tens of millions: none is kept);
	 * 0 or -errno.
	 */
	int (*probe_pairs)(const struct inventory *inv, const void *cfg, unsigned seed,
			   void (*each)(void *ctx, const struct comp_pair *p), void *ctx);
};

#endif
