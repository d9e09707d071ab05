/* SPDX-License-Identifier: MIT */
/*
 * The MP-RDMA paper's figures (../shared/papers/mp-rdma-nsdi18.txt section 5)
 * on the path simulator, each a function of a sender variant and a seed, so
 * that the unit tests bound them, `rocelab transport sim` reruns them and
 * `make bench` prints them beside the paper's values (transport/README.md
 * has the setups and the table).
 *
 * A variant is the paper's sender exactly (mpr_cfg_paper(): no scoreboard,
 * credit per reply, probing once a round trip) or rocelab's, or either with
 * one departure changed, so that each departure's effect is a number.
 */
#ifndef ROCELAB_FIGURES_H
#define ROCELAB_FIGURES_H

#include "transport/mprdma/mprdma.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fig_variant {
	bool scoreboard;
	enum mpr_credit credit;
	enum mpr_probe_mode probe_mode;
	enum mpr_nack nack;
};

/* The paper's sender (mode paper) and rocelab's (mode rocelab: scoreboard, credit once). */
void fig_variant_paper(struct fig_variant *v);
void fig_variant_rocelab(struct fig_variant *v);
/* "paper" or "rocelab" into v; -EINVAL for another name. */
int fig_variant_parse(const char *mode, struct fig_variant *v);
/*
 * "rocelab", "paper", or the paper's with what differs: "paper.scoreboard",
 * "paper.credit-per-reply", "paper.probe-per-packet", "paper.nack-every"
 * (joined in that order);
 * buf holds it when it is not a constant.
 */
const char *fig_variant_name(const struct fig_variant *v, char *buf, size_t len);

/* One value a figure gives, and what the paper reports for it. */
struct fig_metric {
	const char *name;   /* fig11a_loss0.5 */
	const char *unit;   /* of-optimal, ratio, ms, x, B */
	double paper;	    /* the paper's value (see has_paper) */
	bool has_paper;	    /* false: the paper gives a bound or a picture, not a number */
	const char *source; /* where in the paper, and how the number was read */
};

#define FIG_METRICS_MAX 24

struct fig_def {
	const char *name;  /* fig11a */
	const char *title; /* one line: the setup */
	unsigned n_metrics;
	const struct fig_metric *metrics;
	/* Fills val[0..n_metrics-1]; 0, or -errno when the simulator could not be set up. */
	int (*run)(const struct fig_variant *v, uint64_t seed, double *val);
};

/* Every figure, in the order the table lists them. */
const struct fig_def *fig_all(unsigned *n);
/* The figure of that name, or NULL. */
const struct fig_def *fig_find(const char *name);

/*
 * The baselines side by side (issue 57): one fault, one seed, one timeline
 * on the paths profile (four 250 Mbit/s paths), the fault from TL_FROM_MS
 * to TL_TO_MS.  Each transport runs alone on its own simulator with the
 * same seed: go-back-N (rxe's), DCQCN over it, IRN over DCQCN (each on one
 * VP of the path the fault hits: ECMP's unlucky draw), MP-RDMA (rocelab's
 * sender) and MP-RDMA over Eunomia's receiver (out-of-order control off,
 * its 256-packet reach).  Goodput in order, Mbit/s a TL_BIN_MS bin.
 */
#define TL_BIN_MS  20
#define TL_END_MS  1500
#define TL_FROM_MS 500
#define TL_TO_MS   1000
#define TL_BINS	   (TL_END_MS / TL_BIN_MS)
#define TL_SERIES  5

struct fig_timeline {
	const char *fault; /* blackhole, lossy or degraded */
	uint64_t seed;
	const char *what;  /* the fault, a sentence */
	unsigned hit_path; /* the path the single paths are placed on */
	const char *name[TL_SERIES];
	double mbit[TL_SERIES][TL_BINS];
	double before[TL_SERIES], during[TL_SERIES], after[TL_SERIES]; /* Mbit/s */
};

/* The faults fig_timeline() takes, ", "-separated. */
extern const char fig_timeline_faults[];
/* The timeline of fault at seed into tl; -EINVAL for an unknown fault, -ENOMEM. */
int fig_timeline(const char *fault, uint64_t seed, struct fig_timeline *tl);

/* Mean and the half-width of its 95% interval (Student's t) of n values; 0 half-width for n < 2. */
void fig_mean_ci95(const double *x, unsigned n, double *mean, double *half);

#endif
