/* SPDX-License-Identifier: MIT */
/* Results of a run: results.json, junit.xml, and per scenario an incident report (gnuplot PNG +
 * HTML). */
#ifndef ROCELAB_REPORT_H
#define ROCELAB_REPORT_H

#include "harness/run/runner.h"

#include <jansson.h>
#include <stdbool.h>

/* OUTDIR/results.json; -errno on failure. */
int report_results_json(const struct run_info *ri, struct scn_result *r, size_t n);
/* OUTDIR/junit.xml; -errno on failure. */
int report_junit(const struct run_info *ri, struct scn_result *r, size_t n);
/* OUTDIR/<name>/report.png (gnuplot) and report.html; -errno on failure (a missing gnuplot only
 * warns). */
int report_incident(const struct run_info *ri, struct scn_result *r);

#endif
