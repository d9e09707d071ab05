/* SPDX-License-Identifier: MIT */
/*
 * The run history: every run's results.json recorded in an SQLite database
 * (libsqlite3), listed, and two runs compared for regressions.
 */
#ifndef ROCELAB_HISTORY_H
#define ROCELAB_HISTORY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The database: path when given (--db), else $ROCELAB_DB, else STATE_LIB_DIR/history.sqlite. */
const char *history_path(const char *given, char *buf, size_t len);

/*
 * Is root, a results.json someone may have handed over, one to record: run_id,
 * lab, started, scenarios there, and every name a name (a trend's file and title
 * carry them)?  0, or -EINVAL with err.  history_record() checks it first.
 */
int history_check(const json_t *root, char *err, size_t errlen);

/*
 * Record one run from its results.json (root) and where its files are
 * (outdir, may be NULL); the run, each scenario's grade and each component
 * metric, in one transaction.  -EEXIST when the run is recorded already,
 * -errno otherwise; err says why.
 */
int history_record(const char *db, const json_t *root, const char *outdir, char *err,
		   size_t errlen);

/*
 * A run by reference: a run id or a unique prefix of one, "last" (the
 * newest), "last~N" (N before it); only runs of lab when lab is not NULL.
 * Into id; 0, -ENOENT (none) or -EINVAL (ambiguous, bad), err saying why.
 */
int history_resolve(const char *db, const char *lab, const char *ref, char *id, size_t idlen,
		    char *err, size_t errlen);

/*
 * Each scenario of root (results.json) with its last good run on the same lab
 * before this one: "last_good": {run_id, started, time_to_detect_s, rank,
 * precision, false_positives}, or null when it never passed there.  For the
 * suite's page: a failure, and a detection that got slower, against it.
 * 0, or -errno with err (root then unchanged).
 */
int history_last_good(const char *db, json_t *root, char *err, size_t errlen);
/* Where run id's files were written (its results folder) into dir: 0, or -errno with err. */
int history_outdir(const char *db, const char *id, char *dir, size_t len, char *err, size_t errlen);
/* The runs, newest first (at most limit), or of one scenario: a JSON array; NULL + err. */
json_t *history_list(const char *db, const char *lab, const char *scenario, int limit, char *err,
		     size_t errlen);
void history_print_list(const json_t *list, const char *scenario, FILE *f);
/* Per scenario its rows across the last limit runs (of lab), oldest first: {name: [...]}. */
json_t *history_trends(const char *db, const char *lab, int limit, char *err, size_t errlen);

/*
 * When a figure of B counts as worse than A's.  The defaults fit the CI
 * scenarios' 2 s analysis windows: a detection lands in the first or the
 * second window after the fault, so one window later is noise.
 */
struct history_margins {
	double ttd_abs;	  /* s later: noise up to the larger of this (default 2) ... */
	double ttd_rel;	  /* ... and this share of A's time (default 0.25) */
	double metric;	  /* share of A's value a metric may lose (default 0.1) */
	double precision; /* absolute drop in precision (default 0.25) */
};
#define HISTORY_MARGINS_DEFAULT                                                                    \
	{                                                                                          \
		2.0, 0.25, 0.1, 0.25                                                               \
	}

/*
 * Compare run b against run a (ids): per scenario in both, pass → fail or
 * invalid, later or lost detection, a worse rank or precision, new false
 * positives, and metrics worse in the direction their expectation names.
 * A JSON object {a, b, lab, compared, regressions: [{scenario, what, a, b,
 * text}], fixed: [...], only_a, only_b}; NULL + err.
 */
json_t *history_compare(const char *db, const char *a, const char *b,
			const struct history_margins *m, char *err, size_t errlen);
/* The comparison as text; returns how many regressions. */
size_t history_print_compare(const json_t *c, FILE *f);

#endif
