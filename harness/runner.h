/* SPDX-License-Identifier: MIT */
/* rocelab run: scenarios against a lab, with the components under test, graded against the injected truth. */
#ifndef ROCELAB_RUNNER_H
#define ROCELAB_RUNNER_H

#include "report.h"

int cmd_run(int argc, char **argv);

/*
 * Grade one scenario from the analyzer's verdicts (r->verdicts, r->windows)
 * and the fault window in r; fills the grading fields of r.  Exposed for
 * unit tests.
 */
void runner_grade(struct scn_result *r);

/* Does a verdict target (a link "a--b", a switch, an RNIC) name truth (an endpoint, switch or link)? */
bool runner_target_matches(const char *candidate, const char *truth);

#endif
