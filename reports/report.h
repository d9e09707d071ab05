/* SPDX-License-Identifier: MIT */
/* Results of a run: results.json, junit.xml, and per scenario an incident report (gnuplot PNG + HTML). */
#ifndef ROCELAB_REPORT_H
#define ROCELAB_REPORT_H

#include "scenario.h"

#include <jansson.h>
#include <stdbool.h>

enum run_verdict { RV_PASS, RV_FAIL, RV_INVALID };
const char *run_verdict_name(enum run_verdict v);

/* What the runner learned about one scenario. */
struct scn_result {
	const struct scenario *s;
	char test_name[96];		/* unique within the run */
	enum run_verdict verdict;
	char reason[320];		/* one line */
	bool detected, localized, class_ok;
	double time_to_detect_s;	/* -1: not detected */
	int rank;			/* of the true target, 0: not among the suspects */
	int false_positives;
	char got_class[24];
	char got_target[160];
	double t_start, t_fault, t_revert, t_end; /* CLOCK_REALTIME seconds; t_fault 0: no fault */
	char evidence[320];
	char note[256];			/* what was emulated */
	bool emulated;
	char timestamps[24];		/* kernel-software | clock_gettime | hardware | mixed */
	unsigned long long probes, timeouts;
	json_t *windows, *verdicts, *agents; /* parsed analyzer output (owned) */
	char dir[4096];			/* OUTDIR/<name> */
};

struct run_info {
	const char *outdir;
	const char *inventory;
	unsigned seed;
	const char *version;
	double started;
};

/* OUTDIR/results.json; -errno on failure. */
int report_results_json(const struct run_info *ri, struct scn_result *r, size_t n);
/* OUTDIR/junit.xml; -errno on failure. */
int report_junit(const struct run_info *ri, struct scn_result *r, size_t n);
/* OUTDIR/<name>/report.png (gnuplot) and report.html; -errno on failure (a missing gnuplot only warns). */
int report_incident(const struct run_info *ri, struct scn_result *r);

/* XML-escape s into buf. */
const char *report_xml_escape(const char *s, char *buf, size_t len);

#endif
