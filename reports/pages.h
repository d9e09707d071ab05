/* SPDX-License-Identifier: MIT */
/*
 * The HTML pages a person opens: reports made self-contained (plots inlined),
 * the suite's index of a run, re-rendering a results folder, and the run
 * history's trends.
 */
#ifndef ROCELAB_PAGES_H
#define ROCELAB_PAGES_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Inline the plots of an HTML file in place: each <img src="FILE.png"> of a
 * file beside it becomes <img data-file="FILE.png" src="data:image/png;
 * base64,...">, and one inlined before takes FILE.png's bytes again, so the
 * page can be mailed or archived alone and still re-rendered.  0 or -errno.
 */
int pages_inline_images(const char *html);

/*
 * A scenario of results.json as a run counts it: "pass", "fail", "invalid",
 * or "known-blind" (a failure known not to be met today, or of a fault its
 * monitors cannot tell apart: skipped, as junit.xml has it); whatever the
 * file says, one of the four.
 */
const char *pages_result_of(const json_t *scenario);

/*
 * OUTDIR/index.html from the run's results.json (root): who ran what on
 * which devices, and a row per scenario (verdict, reason, time to detect,
 * rank, precision, false positives) linking its report.  0 or -errno.
 */
int pages_suite_index(const char *outdir, const json_t *root);

/*
 * The monitors side by side, per suite, from a run's scenarios (results.json's
 * "scenarios"): for each component graded on verdicts (its expectation a
 * class, or silence), how many scenarios it ran and passed; of the faults it
 * was to find, how many it detected, ranked first and classed right; how
 * often it kept silent where it was to; mean and worst time to detect, mean
 * precision, false positives; and its mean link coverage and overhead per
 * RNIC (probes/s, packets/s, bytes/s, agent CPU %, worst RSS).
 * {"SUITE": {"monitors": [names], "NAME": {...}}}; a new reference.
 */
json_t *pages_monitors(const json_t *scenarios);

/*
 * 'rocelab report DIR': redraw each scenario's plots from its report.gp
 * (gnuplot, in its folder), inline them into its report.html again, and
 * rewrite DIR/index.html from DIR/results.json.  How many scenarios were
 * redrawn, or -errno with err.
 */
int pages_rerender(const char *dir, char *err, size_t errlen);

/*
 * DIR/index.html across the runs of the history (a list, newest first, as
 * history_list() gives it) and, per scenario (its rows across runs in
 * per_scenario: {name: [rows]}), a gnuplot trend of time to detect and false
 * positives with each run's verdict, inlined.  0 or -errno with err.
 */
int pages_trends(const char *dir, const json_t *runs, const json_t *per_scenario, char *err,
		 size_t errlen);

/*
 * One scenario's trend: its data (dat) and gnuplot script (gp) from its history
 * rows (oldest first), files named trend-FNAME.*.  What the rows and scenario say
 * reaches the script as data only (rl_gp_text()).
 */
void pages_trend_write(FILE *dat, FILE *gp, const char *fname, const char *scenario,
		       const json_t *rows);

#endif
