/* SPDX-License-Identifier: MIT */
/*
 * The grader: a component's typed verdicts and metrics against the scenario's
 * expectations and the injected truth (the fault window).
 */
#ifndef ROCELAB_GRADE_H
#define ROCELAB_GRADE_H

#include "harness/component/component.h"
#include "harness/run/scenario.h"

#include <stdbool.h>

enum run_verdict { RV_PASS, RV_FAIL, RV_INVALID };
const char *run_verdict_name(enum run_verdict v);

/*
 * An incident: a component's verdicts naming one element, merged while they
 * keep coming (a gap of at most two of its windows).  Its primary class is
 * the most frequent of its loss classes (rnic, switch-link, switch), else of
 * its latency ones: a lossy element also delays.
 */
#define GRADE_MAX_INCIDENTS 24
#define GRADE_MAX_RANKS	    64
struct grade_incident {
	char target[160];
	char cls[24];		 /* primary class */
	double start, end;	 /* its first verdict's window start, its last one's end */
	int verdicts, other_cls; /* verdicts merged; of them, not of the primary class */
	bool in_fault;		 /* overlaps the fault (else a false positive, or recovery) */
	bool right;		 /* names the truth with the expected class */
};

/*
 * The truth's identifiability class under a monitor's probe paths (issue 64,
 * probe/observe.h): a verdict naming any member of it, or the switch all its
 * links share, localized the fault as well as that monitor's probes can.
 */
struct observe;
struct grade_class {
	const struct observe *o; /* borrowed */
	size_t cls;
};

struct grade {
	enum run_verdict verdict;
	char reason[320]; /* one line */
	bool detected, localized, class_ok;
	double time_to_detect_s; /* -1: not detected */
	int rank;		 /* of the true target, 0: not among the suspects */
	/*
	 * Against the truth's identifiability class (class_known): its rank when any
	 * member of the class names the truth, the class's size (1: exact) and members,
	 * and whether any probe path crosses it at all.  localized and precision are
	 * graded class-level when the class is known.
	 */
	bool class_known, observable;
	int rank_class, class_size;
	char class_names[400];
	/* the classes from the paths its probes took ("traced", class_paths of them) or, when it
	 * traced none, from every path its pairs could take ("predicted", class_paths) */
	char class_basis[12];
	long class_paths;
	int false_positives;
	/* host-processing verdicts for windows the rig's CPU was measured slow in (verdict.rig) */
	int rig_explained;
	int effect_explained; /* verdicts on a side effect the fault measured (component.h) */
	/*
	 * Of the verdicts during the fault, the share naming the true element with
	 * the expected class (one fault, one incident: 1.0); -1 when there were none.
	 */
	double precision;
	int verdicts_in, verdicts_right; /* its terms */
	/* Incidents during the fault, those naming the truth with the class, and their share (-1).
	 */
	int incidents, incidents_right;
	double incident_precision;
	struct grade_incident inc[GRADE_MAX_INCIDENTS]; /* all of them, in order of start */
	size_t n_inc;
	/* The truth's rank in each verdict during the fault (0: not among its suspects). */
	struct {
		double t; /* the verdict's window end */
		int rank;
	} ranks[GRADE_MAX_RANKS];
	size_t n_ranks;
	char fp_first[200]; /* the first false positive: "class target [ws, we] s" */
	char got_class[24];
	char got_target[160];
};

/*
 * Grade what one component observed.  Verdicts count as false positives in
 * the baseline (before the injector started) and once recovery has settled
 * (settle_s after the revert) until the components are being stopped;
 * metrics are checked against expect.metrics.  t->t_fault 0: nothing was
 * injected.  gc: the truth's class under the component's probes, or NULL
 * (not a monitor, or a truth that is no link or switch: a host).
 */
void grade_component(const struct scn_expect *e, const struct comp_obs *obs,
		     const struct comp_times *t, double settle_s, const struct grade_class *gc,
		     struct grade *g);

/* Does a verdict target (a link "a--b", a switch, an RNIC) name truth (an endpoint, switch or
 * link)? */
bool grade_target_matches(const char *candidate, const char *truth);
/* Does target name the expectation's target or one of its also (grade_target_matches())? */
bool grade_names_truth(const char *target, const struct scn_expect *e);

#endif
