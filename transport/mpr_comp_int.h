/* SPDX-License-Identifier: MIT */
/*
 * Inside MP-RDMA's component (and Eunomia's, the same machine): its state
 * and the helpers its files share.  mpr_comp.c is the component, mpr_flow.c
 * its endpoints through the lab, mpr_log.c the endpoints' logs and the
 * figures from them, mpr_metrics.c its metrics per phase, mpr_report.c its
 * part of the report, eunomia_comp.c Eunomia's component.  Private to
 * transport/: the interface is mpr_comp.h.
 */
#ifndef ROCELAB_MPR_COMP_INT_H
#define ROCELAB_MPR_COMP_INT_H

#include "transport/mpr_comp.h"
#include "transport/mpr_vpmap.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define WARMUP_S    2.0 /* the baseline counts from this long after the start (docs/scenarios.md) */
#define SETTLE_S    0.5 /* after a revert, before recovery counts */
#define PLOT_BIN_S  0.1 /* the report's timeline resolution */
#define PARAMS_MAX  56
#define VP_LO	    EP_VP_LO
#define TRACE_MS    86400000LL /* the tracers run until stopped */
#define FAULT_LINKS 8
/*
 * The fault phase's OOD counts from this long after the fault was verified:
 * the path in its steady state, as the paper's Fig. 14(a) measures a path
 * degraded for the whole experiment, not the packets that were already on
 * it when it slowed (docs/scenarios.md, "ood-p999-fault").
 */
#define OOD_SETTLE_S 1.0
/* Ground truth for abandonment and reuse (the brief's D.6) */
#define ABANDON_W      0.1 /* the touched VPs' share stays below ABANDON_MAX this long */
#define ABANDON_MAX    0.01
#define ONSET_W	       0.2 /* after a fault: goodput holds ONSET_SHARE of its optimal this long */
#define ONSET_SHARE    0.85
#define ONSET_SETTLE_S 1.5 /* fault-settled-vs-optimal counts from this long into the fault */
#define REUSE_W	       0.2 /* the restored link carries REUSE_SHARE of its fair share this long */
#define REUSE_SHARE    0.9
/* A competing stream (Fig. 15): MP-RDMA's share on its link, after COMPETE_AFTER */
#define COMPETE_W     0.2 /* the share stays below COMPETE_MAX this long */
#define COMPETE_MAX   0.10
#define COMPETE_AFTER 1.0

struct mpr_state {
	const struct mpr_comp_cfg *cfg;
	const char *name; /* mp-rdma, or eunomia (the spraying workload): its files' prefix */
	bool spray;
	const struct inventory *inv;
	char from[72], to[72]; /* as given, or picked */
	struct mpr_flow flow;
	char slog[PATH_MAX + 32], rlog[PATH_MAX + 32];
	/* 'transport paths' from each end: the VPs' data (fwd) and ACK routes */
	struct lab_proc trace_fwd, trace_ack;
	char flog[PATH_MAX + 32], alog[PATH_MAX + 32];
	unsigned sport;	      /* a placed single path's source port (0: not placed) */
	double optimal;	      /* Mbit/s, 0: unknown */
	double optimal_fault; /* the same with the faults' links down or degraded */
	struct mpr_sample *rs, *ss;
	size_t n_rs, n_ss;
	/*
	 * The faults' links (inventory indexes), and whether they blackhole (abandon,
	 * reuse) or a competing stream crosses them (the share left there)
	 */
	size_t fault_links[FAULT_LINKS], n_fault_links;
	bool blackhole, compete;
	/* each VP's data and ACK routes before the fault (NULL until collect) */
	struct mpr_route *data, *ack;
	unsigned vps_hit, vps_traced; /* VPs a fault's link carries, of those traced */
};

#define VP_HIT 1 /* a VP a fault touches, data or ACKs */
#define VP_FWD 2 /* a VP whose data crosses a fault's link */

/* What the sender's lines say per VP: sorted by mask, and summed over a window. */
struct vp_acc {
	const uint8_t *mask; /* VP_HIT | VP_FWD per VP from VP_LO */
	size_t n;
	double from, to;	    /* the window (CLOCK_REALTIME s) */
	struct mpr_vp_evidence *ev; /* per VP: what its behaviour said within it */
};

/* ---- mpr_flow.c ---- */

/* The host of "host:rnic" into host; -EINVAL when there is no ':' or it does not fit. */
int mpr_host_of(const char *spec, char *host, size_t len);
/* 'rocelab transport VERB' on host, where (NULL-ended) naming the RNICs; 0 or -errno. */
int mpr_spawn(struct lab *l, const char *self, const char *inv_path, const char *host,
	      const char *verb, const char *const *where, const struct ep_params *p,
	      long long duration_ms, const char *log, struct lab_proc *proc);

/* ---- mpr_log.c ---- */

/* Does the sample's whole interval (iv s, ending at its t) lie within [from, to]? */
bool mpr_in_window(const struct mpr_sample *s, double iv, double from, double to);
/* A number of a JSON object (0 when absent). */
double mpr_jnum(const json_t *o, const char *k);
/* mpr_read_log, with the sender's lines' per-VP figures summed into acc (may be NULL). */
size_t mpr_read_log_acc(const char *path, const char *type, struct mpr_sample **out, json_t **end,
			const struct vp_acc *acc);

/* ---- mpr_metrics.c ---- */

json_t *mpr_cpu_section(const struct mpr_state *st, double iv, const double *from, const double *to,
			const char *const *name, const double *good, const double *opt, size_t n,
			bool judge, struct comp_obs *obs);
double mpr_mean_of(const struct mpr_sample *s, size_t n, size_t field, double from, double to);
void mpr_phase(json_t *sec, const char *name, double from, double to, double g);
json_t *mpr_vp_truth(struct mpr_state *st, const struct comp_times *t, uint8_t *mask);
void mpr_path_metrics(const struct mpr_state *st, const struct comp_times *t, double iv,
		      double t_end, json_t *paths, struct comp_obs *obs);
void mpr_localize(const struct mpr_state *st, const struct vp_acc *acc, const struct comp_times *t,
		  json_t *paths, struct comp_obs *obs);
void mpr_recovery_time(const struct mpr_state *st, const struct comp_times *t, double iv,
		       double t_end, double base_mbit, struct comp_obs *obs);
/* Where a fault's phase counts from: once its injector had verified it (else its start). */
double mpr_fault_from(const struct comp_times *t);
void mpr_onset(const struct mpr_state *st, const struct comp_times *t, double iv,
	       struct comp_obs *obs);
void mpr_spray_metrics(const struct mpr_state *st, const struct comp_times *t, const json_t *re,
		       const json_t *se, struct comp_obs *obs);

/* ---- mpr_comp.c and mpr_report.c: the component's operations ---- */

extern struct opt_desc mpr_comp_params[];
void mpr_comp_defaults(void *cfg);
int mpr_comp_check(void *cfg, char *err, size_t errlen);
long long mpr_comp_settle_ms(const void *cfg);
int mpr_comp_start(const struct comp_env *e, const void *cfg, void **state, char *what,
		   size_t whatlen);
bool mpr_comp_alive(void *state, char *why, size_t whylen);
void mpr_comp_stop(void *state);
int mpr_comp_collect(void *state, const struct comp_times *t, struct comp_obs *obs);
int mpr_comp_report(void *state, const struct comp_report *r);
/* Its plot from r and the parameters mpr_comp_report() wrote: the run's, and replot's. */
int mpr_plot(const struct comp_report *r, const json_t *params, char *err, size_t errlen);
void mpr_comp_release(void *state);

/* The two components are one machine: MP-RDMA's stream, or Eunomia's spraying workload. */
#define MPR_COMPONENT(nm, sum, def, chk)                                                           \
	{                                                                                          \
		.name = nm, .summary = sum, .params = mpr_comp_params,                             \
		.cfg_size = sizeof(struct mpr_comp_cfg), .defaults = def, .check = chk,            \
		.settle_ms = mpr_comp_settle_ms, .start = mpr_comp_start, .alive = mpr_comp_alive, \
		.stop = mpr_comp_stop, .collect = mpr_comp_collect, .report = mpr_comp_report,     \
		.replot = mpr_plot, .release = mpr_comp_release,                                   \
	}

#endif
