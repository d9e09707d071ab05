/* SPDX-License-Identifier: MIT */
/* Results of a run: results.json, junit.xml, and per scenario an incident report (gnuplot PNG +
 * HTML). */
#ifndef ROCELAB_REPORT_H
#define ROCELAB_REPORT_H

#include "harness/run/runner.h"

#include <jansson.h>
#include <stdbool.h>

/* The run's results.json as a new object (schema: reports/results.schema.json). */
json_t *report_results(const struct run_info *ri, struct scn_result *r, size_t n);
/* root to OUTDIR/results.json; -errno on failure. */
int report_write_results(const struct run_info *ri, const json_t *root);
/* Both of the above. */
int report_results_json(const struct run_info *ri, struct scn_result *r, size_t n);
/*
 * OUTDIR/junit.xml; -errno on failure.  baseline (may be NULL): a 'rocelab
 * compare' of the run against its baseline, one more test case that fails
 * on a regression.
 */
int report_junit(const struct run_info *ri, struct scn_result *r, size_t n, const json_t *baseline);
/* OUTDIR/<name>/report.png (gnuplot) and report.html; -errno on failure (a missing gnuplot only
 * warns). */
int report_incident(const struct run_info *ri, struct scn_result *r);
/*
 * Each scenario run as variants (r[i..] its variants in order): OUTDIR/<scenario>.variants/
 * index.html and side-by-side.png, every variant's goodput on one plot and their figures in
 * columns.  0, or -EIO when a page could not be written (said); a missing gnuplot only warns.
 */
int report_variants(const char *outdir, const struct scn_result *r, size_t n);

#endif
