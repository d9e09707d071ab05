/* SPDX-License-Identifier: MIT */
/*
 * A run in the OpenMetrics text format (which Prometheus' text parser and
 * node-exporter's textfile collector read too): per scenario and component
 * whether it passed, time to detect and its bound, precision, false
 * positives, rank, every component metric (goodput ratios, overhead), and
 * the rig's pressure by phase; per run its verdict counts and identity.
 */
#ifndef ROCELAB_OPENMETRICS_H
#define ROCELAB_OPENMETRICS_H

#include <jansson.h>
#include <stddef.h>

/*
 * The exposition of results.json (root), every family's HELP and TYPE, ending
 * "# EOF": a new string (free()), or NULL with err (not a run's results).
 * The results are untrusted: they must pass history_check() (a run id, a
 * lab and scenario names that are names), label values are escaped, and a
 * scenario met twice is left out (counted in rocelab_export_skipped).
 */
char *om_results(const json_t *root, char *err, size_t errlen);

/* text (om_results()) written to path at once (a file beside it renamed over it, 0644): 0 or
 * -errno. */
int om_write(const char *text, const char *path, char *err, size_t errlen);

#endif
