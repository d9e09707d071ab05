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

struct grade {
	enum run_verdict verdict;
	char reason[320]; /* one line */
	bool detected, localized, class_ok;
	double time_to_detect_s; /* -1: not detected */
	int rank;		 /* of the true target, 0: not among the suspects */
	int false_positives;
	/*
	 * Of the verdicts during the fault, the share naming the true element with
	 * the expected class (one fault, one incident: 1.0); -1 when there were none.
	 */
	double precision;
	char fp_first[200]; /* the first false positive: "class target [ws, we] s" */
	char got_class[24];
	char got_target[160];
};

/*
 * Grade what one component observed.  Verdicts count as false positives in
 * the baseline (before the injector started) and once recovery has settled
 * (settle_s after the revert) until the components are being stopped;
 * metrics are checked against expect.metrics.  t->t_fault 0: nothing was
 * injected.
 */
void grade_component(const struct scn_expect *e, const struct comp_obs *obs,
		     const struct comp_times *t, double settle_s, struct grade *g);

/* Does a verdict target (a link "a--b", a switch, an RNIC) name truth (an endpoint, switch or
 * link)? */
bool grade_target_matches(const char *candidate, const char *truth);

#endif
