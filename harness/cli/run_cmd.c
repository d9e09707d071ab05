// SPDX-License-Identifier: MIT
/* 'rocelab run': the run engine, writing through the reports layer. */
#define _GNU_SOURCE
#include "harness/cli/cli.h"

#include "harness/run/runner.h"
#include "reports/history.h"
#include "reports/openmetrics.h"
#include "reports/pages.h"
#include "reports/report.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void scenario_reported(const struct run_info *ri, struct scn_result *r)
{
	report_incident(ri, r);
}

/* --baseline: which run, resolved before anything is touched; --openmetrics' folder. */
static int run_prepare(struct run_info *ri)
{
	char db[PATH_MAX], err[512];

	if (ri->openmetrics) {
		char dir[PATH_MAX];
		struct stat st;

		snprintf(dir, sizeof(dir), "%s", ri->openmetrics);
		if (!*ri->openmetrics || stat(dirname(dir), &st) || !S_ISDIR(st.st_mode) ||
		    access(dir, W_OK)) {
			rl_err(
			    "run: --openmetrics %s: %s is no folder this can write to; nothing was "
			    "started",
			    ri->openmetrics, dir);
			return RL_EXIT_USAGE;
		}
	}
	if (!ri->baseline)
		return 0;
	if (history_resolve(history_path(ri->db, db, sizeof(db)), ri->inv->name, ri->baseline,
			    ri->baseline_id, sizeof(ri->baseline_id), err, sizeof(err))) {
		rl_err("run: --baseline %s: %s; nothing was started", ri->baseline, err);
		return RL_EXIT_USAGE;
	}
	rl_info("run: baseline %s", ri->baseline_id);
	return 0;
}

/* Recorded in the history, and compared with the baseline: its regressions, or -1. */
static json_t *run_history(const struct run_info *ri, json_t *root)
{
	static const struct history_margins m = HISTORY_MARGINS_DEFAULT;
	char db[PATH_MAX], err[512];
	json_t *cmp;

	if (ri->no_history)
		return NULL;
	history_path(ri->db, db, sizeof(db));
	if (history_record(db, root, ri->outdir, err, sizeof(err))) {
		rl_warn("run: not recorded in the run history: %s", err);
		return NULL;
	}
	rl_info("run: recorded as %s in %s", ri->run_id, db);
	/* the suite's page sets each failure, and each slower detection, against it */
	if (history_last_good(db, root, err, sizeof(err)))
		rl_warn("run: each scenario's last good run is not known: %s", err);
	if (!ri->baseline_id[0])
		return NULL;
	if (!(cmp = history_compare(db, ri->baseline_id, ri->run_id, &m, err, sizeof(err)))) {
		rl_warn("run: cannot compare with the baseline: %s", err);
		return NULL;
	}
	history_print_compare(cmp, stderr);
	return cmp;
}

static int run_reported(const struct run_info *ri, struct scn_result *r, size_t n)
{
	json_t *root = report_results(ri, r, n), *cmp = run_history(ri, root);
	int a, b, worse = cmp && json_array_size(json_object_get(cmp, "regressions"));

	if (ri->baseline_id[0])
		json_object_set_new(root, "baseline",
				    cmp ? json_incref(cmp)
					: json_pack("{s:s,s:s}", "run_id", ri->baseline_id, "error",
						    "not compared"));
	a = report_write_results(ri, root);
	b = report_junit(ri, r, n, cmp);
	if (ri->openmetrics && !a) {
		char err[PATH_MAX + 256], *om = om_results(root, err, sizeof(err));

		if (!om || om_write(om, ri->openmetrics, err, sizeof(err))) {
			rl_err("run: --openmetrics: %s", err);
			a = -EIO; /* asked for, and not done */
		} else
			rl_info("run: OpenMetrics in %s", ri->openmetrics);
		free(om);
	}
	if (pages_suite_index(ri->outdir, root))
		rl_warn("run: cannot write %s/index.html", ri->outdir);
	if (report_variants(ri->outdir, r, n))
		rl_warn("run: a side-by-side page of variants was not written");
	json_decref(root);
	json_decref(cmp);
	if (ri->baseline_id[0] && !cmp)
		return -EIO; /* asked for, and not done */
	return a ? a : b ? b : worse;
}

static const struct run_sink sink = {run_prepare, scenario_reported, run_reported};

int cmd_run_reported(int argc, char **argv)
{
	return cmd_run(argc, argv, &sink);
}

int cli_run(const struct run_request *q)
{
	return runner_request(q, &sink);
}
