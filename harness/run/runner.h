/* SPDX-License-Identifier: MIT */
/* rocelab run: scenarios against a lab, with the components under test, graded against the injected
 * truth. */
#ifndef ROCELAB_RUNNER_H
#define ROCELAB_RUNNER_H

#include "harness/run/scenario.h"

#include <jansson.h>
#include <stdbool.h>

enum run_verdict { RV_PASS, RV_FAIL, RV_INVALID };
const char *run_verdict_name(enum run_verdict v);

/* What the runner learned about one scenario. */
struct scn_result {
	const struct scenario *s;
	char test_name[96]; /* unique within the run */
	enum run_verdict verdict;
	char reason[320]; /* one line */
	bool detected, localized, class_ok;
	double time_to_detect_s; /* -1: not detected */
	int rank;		 /* of the true target, 0: not among the suspects */
	int false_positives;
	char got_class[24];
	char got_target[160];
	double t_start, t_fault, t_revert, t_end; /* CLOCK_REALTIME seconds; t_fault 0: no fault */
	char evidence[320];
	char note[256]; /* what was emulated */
	bool emulated;
	char timestamps[24]; /* kernel-software | clock_gettime | hardware | mixed */
	unsigned long long probes, timeouts;
	json_t *windows, *verdicts, *agents; /* parsed analyzer output (owned) */
	char dir[4096];			     /* OUTDIR/<name> */
};

struct run_info {
	const char *outdir;
	const char *inventory;
	unsigned seed;
	const char *version;
	double started;
};

/*
 * Where results go: after each scenario (its incident report) and after the
 * run (results.json, junit.xml).  The CLI gives the reports layer's writers.
 */
struct run_sink {
	void (*scenario_done)(const struct run_info *ri, struct scn_result *r);
	int (*run_done)(const struct run_info *ri, struct scn_result *r, size_t n); /* -errno */
};

int cmd_run(int argc, char **argv, const struct run_sink *sink);

/*
 * Grade one scenario from the analyzer's verdicts (r->verdicts, r->windows)
 * and the fault window in r; fills the grading fields of r.  Exposed for
 * unit tests.
 */
void runner_grade(struct scn_result *r);

/* Does a verdict target (a link "a--b", a switch, an RNIC) name truth (an endpoint, switch or
 * link)? */
bool runner_target_matches(const char *candidate, const char *truth);

#endif
