// SPDX-License-Identifier: MIT
/* 'rocelab history' and 'compare', and the monitors' 'analyze' and 'agent'. */
#define _GNU_SOURCE
#include "harness/cli/cli.h"

#include "harness/cli/agents.h"
#include "harness/lib/state.h"
#include "harness/run/runner.h"
#include "probe/monitors/monitors.h"
#include "reports/history.h"
#include "reports/pages.h"

#include <limits.h>
#include <string.h>

static const char history_help[] =
    "usage: rocelab history [SCENARIO] [--db FILE] [--lab NAME | -i INVENTORY] [-n N] [-j]\n"
    "       rocelab history --import [--db FILE] RESULTS_DIR...\n"
    "List the runs recorded in the run history, newest first: when, lab, seed, how many\n"
    "scenarios passed, failed or were invalid.  With SCENARIO, that scenario in each run:\n"
    "verdict, time to detect, rank of the fault's element, precision, false positives.\n"
    "  --db FILE     the history (default $ROCELAB_DB, else " STATE_LIB_DIR_DEFAULT
    "/history.sqlite)\n"
    "  --lab NAME    runs of this lab only (-i: of this inventory's lab)\n"
    "  -n N          at most N rows (default 20; 0: all)\n"
    "  --import      record runs from their results.json (runs made with --no-history, or\n"
    "                recorded in another history)\n"
    "  --html DIR    DIR/index.html: the runs, and per scenario a trend of its time to\n"
    "                detect and false positives with failed runs marked (gnuplot, inlined)\n"
    "exit: 0; 2 bad input; 3 no history or an unreadable one.\n";

static const char compare_help[] =
    "usage: rocelab compare [RUN_A [RUN_B]] [--db FILE] [--lab NAME | -i INVENTORY] [-j]\n"
    "                       [--ttd-margin S] [--margin FRAC] [--precision-margin P]\n"
    "Compare run B with run A scenario by scenario and print B's regressions: pass\n"
    "turned fail or invalid, a fault no longer detected or detected later, its element\n"
    "ranked lower, precision dropped, new false positives, and metrics worse in the\n"
    "direction the scenario's expectation names.  Improvements are listed too.\n"
    "A run is an id, a unique prefix of one, last, or last~N (N runs before the last).\n"
    "Default: B the last run (of --lab, else of the newest run's lab), A the one before.\n"
    "  --ttd-margin S        a detection later by at most S seconds, or a quarter of A's\n"
    "                        time when more, is noise (default 2: one CI window; give\n"
    "                        the monitor's window for the paper's 20 s windows)\n"
    "  --margin FRAC         a metric worse by at most FRAC of A's value is noise\n"
    "                        (default 0.1)\n"
    "  --precision-margin P  a drop in precision of at most P is noise (default 0.25)\n"
    "Runs of two labs, or with no scenario in common, are not compared (exit 2).\n"
    "exit: 0 no regression; 1 regressions; 2 bad input, or runs not comparable; 3 no\n"
    "such run, or no history.\n";

struct hist_opts {
	const char *db, *lab, *html;
	long limit;
	bool import;
	struct history_margins m;
};

static int number_arg(const char *what, const char *arg, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = rl_strtod(arg, &end);
	if (errno || end == arg || *end || !(*v >= lo && *v <= hi))
		return usage_error("%s '%s': a number from %g to %g", what, arg, lo, hi);
	return 0;
}

static int hist_opt(int c, const char *arg, void *ctx)
{
	struct hist_opts *h = ctx;
	double v;

	switch (c) {
	case 'D':
		h->db = arg;
		return 0;
	case 'L':
		h->lab = arg;
		return 0;
	case 'I':
		h->import = true;
		return 0;
	case 'W':
		h->html = arg;
		return 0;
	case 'n':
		if (number_arg("-n", arg, 0, 1e9, &v))
			return RL_EXIT_USAGE;
		if (v != (long)v)
			return usage_error("-n '%s': a whole number of rows", arg);
		h->limit = (long)v;
		return 0;
	case 'T':
		return number_arg("--ttd-margin", arg, 0, 3600, &h->m.ttd_abs);
	case 'M':
		return number_arg("--margin", arg, 0, 10, &h->m.metric);
	case 'P':
		return number_arg("--precision-margin", arg, 0, 1, &h->m.precision);
	}
	return 1;
}

/* --lab, or the name of -i's inventory; NULL: any lab.  -1 when the inventory is bad. */
static int hist_lab(const struct opts *o, struct hist_opts *h, char *buf, size_t len)
{
	struct inventory *inv;

	if (!o->inventory)
		return 0;
	if (h->lab)
		return usage_error("give --lab or -i, not both");
	if (!(inv = inventory_load(o->inventory, stderr)))
		return RL_EXIT_USAGE;
	snprintf(buf, len, "%s", inv->name);
	inventory_free(inv);
	h->lab = buf;
	return 0;
}

static int history_import(const char *db, int argc, char **argv)
{
	char path[PATH_MAX], err[512];
	int ret = RL_EXIT_OK;

	if (optind == argc)
		return usage_error("history --import: give at least one RESULTS_DIR");
	for (int i = optind; i < argc; i++) {
		json_error_t je;
		json_t *root;

		snprintf(path, sizeof(path), "%s/results.json", argv[i]);
		if (!(root = json_load_file(path, 0, &je))) {
			rl_err("%s:%d:%d: %s", path, je.line, je.column, je.text);
			ret = RL_EXIT_USAGE;
			continue;
		}
		if (history_record(db, root, argv[i], err, sizeof(err))) {
			rl_err("history --import %s: %s", argv[i], err);
			ret = ret ? ret : RL_EXIT_SETUP;
		} else
			printf("recorded %s from %s\n",
			       json_string_value(json_object_get(root, "run_id")), path);
		json_decref(root);
	}
	return ret;
}

static const struct option hist_long[] = {
    {"db", required_argument, NULL, 'D'},
    {"lab", required_argument, NULL, 'L'},
    {"import", no_argument, NULL, 'I'},
    {"limit", required_argument, NULL, 'n'},
    {"ttd-margin", required_argument, NULL, 'T'},
    {"margin", required_argument, NULL, 'M'},
    {"precision-margin", required_argument, NULL, 'P'},
    {"html", required_argument, NULL, 'W'},
    {0},
};

/* history and compare: the common options, theirs, and -n N. */
static int hist_parse(int argc, char **argv, struct opts *o, struct hist_opts *h)
{
	o->shorts = "n:";
	return cli_parse_opts(argc, argv, o, hist_long, hist_opt, h);
}

/*
 * rocelab analyze [--monitor NAME]: each monitor's analyzer parses its own
 * options (the first of monitors.def when none is given).
 */
int cmd_analyzes(int argc, char **argv)
{
	const char *mon = mon_list[0].name;
	const struct mon_analyzer *m;
	char **av = rl_xcalloc((size_t)argc + 1, sizeof(*av)), names[128];
	bool given = false, help = false;
	int n = 0, r;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--monitor") && i + 1 < argc) {
			mon = argv[++i];
			given = true;
			continue;
		}
		if (!strncmp(argv[i], "--monitor=", 10)) {
			mon = argv[i] + 10;
			given = true;
			continue;
		}
		help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
		av[n++] = argv[i];
	}
	/* issue 58: the help of the default monitor says there are others */
	if (help && !given)
		printf("rocelab analyze --monitor NAME: NAME is one of %s (default %s), each with\n"
		       "options of its own ('rocelab analyze --monitor NAME --help'). %s's:\n\n",
		       mon_names(", ", names, sizeof(names)), mon, mon);
	if ((m = mon_analyzer_find(mon)))
		r = mon_analyze_main(m, n, av);
	else
		r = rl_usage_error("analyze", "--monitor '%s': give one of %s", mon,
				   mon_names(", ", names, sizeof(names)));
	free(av);
	return r;
}

/* rocelab agent hostmesh|rpingmesh: as rocelab-agent when it is installed beside rocelab. */
int cmd_agents(int argc, char **argv)
{
	cli_agents_exec_lean(argc, argv);
	return cli_agents(argc, argv);
}

int cmd_history(int argc, char **argv)
{
	struct opts o = {0};
	struct hist_opts h = {.limit = 20};
	char db[PATH_MAX], labbuf[INV_NAME_MAX + 1], err[512];
	const char *scenario = NULL;
	json_t *list;
	int r = hist_parse(argc, argv, &o, &h);

	if (r)
		return r;
	if (o.help)
		return fputs(history_help, stdout), 0;
	if ((r = hist_lab(&o, &h, labbuf, sizeof(labbuf))))
		return r;
	history_path(h.db, db, sizeof(db));
	if (h.import)
		return history_import(db, argc, argv);
	if (optind < argc)
		scenario = argv[optind++];
	if (optind != argc)
		return usage_error("history: unexpected argument '%s'", argv[optind]);
	if (!(list = history_list(db, h.lab, scenario, h.limit ? (int)h.limit : -1, err,
				  sizeof(err)))) {
		rl_err("history: %s", err);
		return RL_EXIT_SETUP;
	}
	if (h.html) {
		json_t *tr = scenario ? NULL
				      : history_trends(db, h.lab, h.limit ? (int)h.limit : -1, err,
						       sizeof(err));

		if (scenario)
			r = usage_error(
			    "history --html: leave out SCENARIO (a trend per scenario)");
		else if (!tr || pages_trends(h.html, list, tr, err, sizeof(err))) {
			rl_err("history --html: %s", err);
			r = RL_EXIT_SETUP;
		} else
			printf("%s/index.html: %zu run(s), %zu scenario trend(s)\n", h.html,
			       json_array_size(list), json_object_size(tr));
		json_decref(tr);
		json_decref(list);
		return r;
	}
	if (o.json)
		json_dumpf(list, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER), putchar('\n');
	else
		history_print_list(list, scenario, stdout);
	json_decref(list);
	return RL_EXIT_OK;
}

/*
 * Issue 58: only what is comparable is compared.  Runs of two labs, or with
 * no scenario in common, say so (exit 2), never "no regressions".
 */
static bool comparable(const json_t *c, const char *a, const char *b)
{
	const char *la = json_string_value(json_object_get(json_object_get(c, "a"), "lab")),
		   *lb = json_string_value(json_object_get(json_object_get(c, "b"), "lab"));

	if (la && lb && strcmp(la, lb)) {
		rl_err(
		    "compare: run %s is of lab %s and run %s of lab %s: runs of two labs are not "
		    "comparable; give two runs of one lab (--lab NAME picks its last two)",
		    a, la, b, lb);
		return false;
	}
	if (!json_integer_value(json_object_get(c, "compared"))) {
		rl_err("compare: runs %s and %s have no scenario in common (%zu only in the first, "
		       "%zu only in the second): nothing to compare",
		       a, b, json_array_size(json_object_get(c, "only_a")),
		       json_array_size(json_object_get(c, "only_b")));
		return false;
	}
	return true;
}

int cmd_compare(int argc, char **argv)
{
	struct opts o = {0};
	struct hist_opts h = {.m = HISTORY_MARGINS_DEFAULT};
	char db[PATH_MAX], labbuf[INV_NAME_MAX + 1], err[512], a[40], b[40];
	json_t *c;
	size_t n;
	int r = hist_parse(argc, argv, &o, &h);

	if (r)
		return r;
	if (o.help)
		return fputs(compare_help, stdout), 0;
	if ((r = hist_lab(&o, &h, labbuf, sizeof(labbuf))))
		return r;
	if (h.import)
		return usage_error("compare: --import is an option of 'rocelab history'");
	if (argc - optind > 2)
		return usage_error("compare: unexpected argument '%s'", argv[optind + 2]);
	history_path(h.db, db, sizeof(db));
	if (!h.lab && argc - optind < 2) { /* the lab of the newest run */
		json_t *l = history_list(db, NULL, NULL, 1, err, sizeof(err));

		if (!l) {
			rl_err("compare: %s", err);
			return RL_EXIT_SETUP;
		}
		snprintf(labbuf, sizeof(labbuf), "%s",
			 json_string_value(json_object_get(json_array_get(l, 0), "lab")) ?: "");
		json_decref(l);
		h.lab = labbuf[0] ? labbuf : NULL;
	}
	r = history_resolve(db, h.lab, optind < argc ? argv[optind] : "last~1", a, sizeof(a), err,
			    sizeof(err));
	if (!r)
		r = history_resolve(db, h.lab, optind + 1 < argc ? argv[optind + 1] : "last", b,
				    sizeof(b), err, sizeof(err));
	if (r) {
		rl_err("compare: %s", err);
		return r == -EINVAL ? RL_EXIT_USAGE : RL_EXIT_SETUP;
	}
	if (!(c = history_compare(db, a, b, &h.m, err, sizeof(err)))) {
		rl_err("compare: %s", err);
		return RL_EXIT_SETUP;
	}
	if (!comparable(c, a, b)) {
		json_decref(c);
		return RL_EXIT_USAGE;
	}
	if (o.json) {
		n = json_array_size(json_object_get(c, "regressions"));
		json_dumpf(c, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER), putchar('\n');
	} else
		n = history_print_compare(c, stdout);
	json_decref(c);
	return n ? RL_EXIT_FAIL : RL_EXIT_OK;
}
