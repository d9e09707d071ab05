// SPDX-License-Identifier: MIT
/* 'rocelab export': a run's results in a format other tools read (OpenMetrics). */
#define _GNU_SOURCE
#include "harness/cli/cli.h"

#include "harness/lib/state.h"
#include "reports/history.h"
#include "reports/openmetrics.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char export_help[] =
    "usage: rocelab export [--format openmetrics] [-o FILE] [--db FILE] [--lab NAME] RUN|DIR\n"
    "Write a run's results in the OpenMetrics text format (which Prometheus and\n"
    "node-exporter's textfile collector read): per scenario and component whether it\n"
    "passed, time to detect and its bound, precision, false positives, the truth's\n"
    "rank, every component metric (goodput against optimal, overhead), the rig's\n"
    "pressure by phase; per run its results counted and its identity.  Every family\n"
    "is a gauge labelled by lab, suite, scenario and component (not by run: each\n"
    "run's file replaces the last one's, and Prometheus keeps the history).\n"
    "\n"
    "  DIR            a results folder of 'rocelab run' (its results.json; untrusted:\n"
    "                 every label value is escaped)\n"
    "  RUN            a run of the run history (an id, a unique prefix of one, last or\n"
    "                 last~N): its results folder, as recorded\n"
    "  --format F     openmetrics (the only one, and the default)\n"
    "  -o FILE        write FILE at once (a file beside it renamed over it, 0644: a\n"
    "                 textfile collector never reads half of it); default: stdout\n"
    "  --db FILE      the run history (default $ROCELAB_DB, else " STATE_LIB_DIR_DEFAULT
    "/history.sqlite)\n"
    "  --lab NAME     RUN among the runs of this lab only\n"
    "\n"
    "'rocelab run --openmetrics FILE' writes the same at the end of a run.\n"
    "exit: 0; 2 bad use or not a run's results; 3 cannot read the history or write FILE.\n";

struct export_opts {
	const char *format, *out, *db, *lab;
};

static const struct option export_long[] = {
    {"format", required_argument, NULL, 'F'},
    {"output", required_argument, NULL, 'o'},
    {"db", required_argument, NULL, 'D'},
    {"lab", required_argument, NULL, 'L'},
    {0},
};

static int export_opt(int c, const char *arg, void *ctx)
{
	struct export_opts *e = ctx;

	switch (c) {
	case 'F':
		e->format = arg;
		return 0;
	case 'o':
		e->out = arg;
		return 0;
	case 'D':
		e->db = arg;
		return 0;
	case 'L':
		e->lab = arg;
		return 0;
	}
	return 1;
}

/* RUN or DIR into the folder to read: 0, or an exit code having said why. */
static int export_dir(const struct export_opts *e, const char *what, char *dir, size_t len)
{
	char db[PATH_MAX], id[40], err[PATH_MAX + 256];
	struct stat st;
	int r;

	if (!stat(what, &st) && S_ISDIR(st.st_mode)) {
		snprintf(dir, len, "%s", what);
		return 0;
	}
	history_path(e->db, db, sizeof(db));
	if ((r = history_resolve(db, e->lab, what, id, sizeof(id), err, sizeof(err))) ||
	    (r = history_outdir(db, id, dir, len, err, sizeof(err)))) {
		rl_err("export: %s is no results folder, and as a run: %s", what, err);
		return r == -EINVAL || r == -ENOENT ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct opts o = {.shorts = "o:"};
	struct export_opts e = {.format = "openmetrics"};
	char dir[PATH_MAX], err[PATH_MAX + 256], *text;
	json_error_t je;
	json_t *root = NULL;
	int dfd, r = cli_parse_opts(argc, argv, &o, export_long, export_opt, &e);
	size_t len;

	if (r)
		return r;
	if (o.help)
		return fputs(export_help, stdout), 0;
	if (strcmp(e.format, "openmetrics"))
		return usage_error("export: --format '%s': the one format is openmetrics",
				   e.format);
	if (argc - optind != 1)
		return usage_error("export: give one RUN or results DIR");
	if ((r = export_dir(&e, argv[optind], dir, sizeof(dir))))
		return r;
	/* a results folder is anyone's: its results.json, no link followed */
	if ((dfd = rl_open_dir(dir)) < 0) {
		rl_err("export: %s: %s", dir, strerror(-dfd));
		return RL_EXIT_USAGE;
	}
	text = rl_read_at(dfd, "results.json", &len);
	r = text ? 0 : -errno;
	close(dfd);
	if (!text) {
		rl_err("export: %s/results.json: %s: not a results folder of 'rocelab run'", dir,
		       strerror(-r));
		return RL_EXIT_USAGE;
	}
	root = json_loadb(text, len, 0, &je);
	free(text);
	if (!root) {
		rl_err("export: %s/results.json:%d:%d: %s", dir, je.line, je.column, je.text);
		return RL_EXIT_USAGE;
	}
	text = om_results(root, err, sizeof(err));
	json_decref(root);
	if (!text) {
		rl_err("export: %s/results.json: %s", dir, err);
		return RL_EXIT_USAGE;
	}
	if (e.out) {
		if ((r = om_write(text, e.out, err, sizeof(err))))
			rl_err("export: %s", err);
		free(text);
		return r ? RL_EXIT_SETUP : RL_EXIT_OK;
	}
	fputs(text, stdout);
	free(text);
	return fflush(stdout) ? RL_EXIT_SETUP : RL_EXIT_OK;
}
