// SPDX-License-Identifier: MIT
/*
 * rocelab transport sim: the MP-RDMA paper's figures on the path simulator
 * (transport/sim/figures.h), over seeds, beside the paper's values.
 */
#include "harness/lib/common.h"
#include "transport/mpr_ep.h"
#include "transport/sim/figures.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SEEDS_MAX 100

static void sim_help(FILE *f)
{
	unsigned n;
	const struct fig_def *d = fig_all(&n);

	fputs(
	    "usage: rocelab transport sim [--figure NAME|all] [--mode paper|rocelab] [--seeds N]\n"
	    "                             [--seed S] [--scoreboard on|off]\n"
	    "                             [--credit once|per-reply|paper]\n"
	    "                             [--probe-mode per-rtt|per-packet] [--nack once|every]\n"
	    "                             [--json | --bench]\n"
	    "       rocelab transport sim --list\n"
	    "\n"
	    "The MP-RDMA paper's figures in miniature on the deterministic path simulator\n"
	    "(transport/sim; the same sender and receiver state machines the lab runs): each\n"
	    "figure's values over seeds S..S+N-1, their mean and 95% interval, the paper's\n"
	    "value and the ratio.  --mode paper is the paper's connection exactly (no\n"
	    "scoreboard, credit per reply, probing once a round trip, a NACK once a hole);\n"
	    "rocelab is the lab's default (scoreboard, credit once a PSN, a NACK every drop).\n"
	    "--scoreboard, --credit, --probe-mode and --nack change one departure from the\n"
	    "mode.  The same options and seed give the same figures\n"
	    "on every machine.\n"
	    "\n"
	    "  --figure NAME   one figure, or all (the default)\n"
	    "  --mode M        paper (the default) or rocelab\n"
	    "  --seeds N       seeds a figure (1 to 100; default 5)\n"
	    "  --seed S        the first seed (default 1, the unit tests' run)\n"
	    "  --json          one JSON object: every figure's values, seeds and summary\n"
	    "  --bench         'bench NAME VALUE UNIT' lines (make bench)\n"
	    "  --list          the figures and their setups\n"
	    "\nfigures:\n",
	    f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "  %-11s %s\n", d[i].name, d[i].title);
	fputs("exit: 0 done; 2 bad options; 3 a figure could not be run.\n", f);
}

static int on_off(const char *v, bool *b)
{
	if (!strcmp(v, "on"))
		*b = true;
	else if (!strcmp(v, "off"))
		*b = false;
	else
		return -EINVAL;
	return 0;
}

/* A ratio to the paper's value, or NULL (printed as '-') when the paper gives none or 0. */
static bool ratio_of(const struct fig_metric *m, double mean, double *ratio)
{
	if (!m->has_paper || m->paper == 0)
		return false;
	*ratio = mean / m->paper;
	return true;
}

static int run_figure(const struct fig_def *d, const struct fig_variant *v, uint64_t seed0,
		      unsigned seeds, const char *mode, bool json, bool bench, json_t *all)
{
	double val[SEEDS_MAX][FIG_METRICS_MAX];
	json_t *jf = json ? json_object() : NULL, *jm = json ? json_array() : NULL;

	for (unsigned s = 0; s < seeds; s++)
		if (d->run(v, seed0 + s, val[s])) {
			fprintf(stderr, "rocelab: transport sim: %s: seed %llu could not be run\n",
				d->name, (unsigned long long)(seed0 + s));
			json_decref(jf);
			json_decref(jm);
			return RL_EXIT_SETUP;
		}
	if (!json && !bench)
		printf("%s: %s\n", d->name, d->title);
	for (unsigned k = 0; k < d->n_metrics; k++) {
		const struct fig_metric *m = &d->metrics[k];
		double x[SEEDS_MAX], mean, half, ratio;
		bool has_ratio;

		for (unsigned s = 0; s < seeds; s++)
			x[s] = val[s][k];
		fig_mean_ci95(x, seeds, &mean, &half);
		has_ratio = ratio_of(m, mean, &ratio);
		if (bench) {
			printf("bench sim_%s_%s %.4g %s\n", m->name, mode, mean, m->unit);
			printf("bench sim_%s_%s_ci95 %.4g %s\n", m->name, mode, half, m->unit);
			if (m->has_paper)
				printf("bench sim_%s_paper_value %.4g %s\n", m->name, m->paper,
				       m->unit);
			if (has_ratio)
				printf("bench sim_%s_%s_vs_paper %.3f x\n", m->name, mode, ratio);
		} else if (json) {
			json_t *jx = json_array();

			for (unsigned s = 0; s < seeds; s++)
				json_array_append_new(jx, json_real(x[s]));
			json_t *o = json_pack("{s:s, s:s, s:o, s:f, s:f}", "name", m->name, "unit",
					      m->unit, "values", jx, "mean", mean, "ci95", half);

			json_object_set_new(o, "paper",
					    m->has_paper ? json_real(m->paper) : json_null());
			json_object_set_new(o, "ratio", has_ratio ? json_real(ratio) : json_null());
			json_object_set_new(o, "source", json_string(m->source));
			json_array_append_new(jm, o);
		} else {
			char p[32] = "-", r[32] = "-";

			if (m->has_paper)
				snprintf(p, sizeof(p), "%.4g", m->paper);
			if (has_ratio)
				snprintf(r, sizeof(r), "%.3f", ratio);
			printf("  %-26s %-10s paper %-7s sim %.4g ± %.2g (%u seeds)  ratio %s\n",
			       m->name, m->unit, p, mean, half, seeds, r);
		}
	}
	if (json) {
		json_object_set_new(jf, "name", json_string(d->name));
		json_object_set_new(jf, "setup", json_string(d->title));
		json_object_set_new(jf, "metrics", jm);
		json_array_append_new(all, jf);
	}
	return RL_EXIT_OK;
}

int cmd_transport_sim(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"figure", required_argument, NULL, 'f'},
	    {"mode", required_argument, NULL, 'm'},
	    {"seeds", required_argument, NULL, 'n'},
	    {"seed", required_argument, NULL, 's'},
	    {"scoreboard", required_argument, NULL, 'S'},
	    {"credit", required_argument, NULL, 'C'},
	    {"probe-mode", required_argument, NULL, 'P'},
	    {"nack", required_argument, NULL, 'N'},
	    {"json", no_argument, NULL, 'j'},
	    {"bench", no_argument, NULL, 'b'},
	    {"list", no_argument, NULL, 'l'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *figure = "all", *mode = "paper", *sb = NULL, *credit = NULL, *probe = NULL,
		   *nack = NULL;
	long long seeds = 5, seed = 1;
	bool json = false, bench = false, list = false;
	struct fig_variant v;
	char *end;
	int o;

	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":jh", lo, NULL)) != -1) {
		switch (o) {
		case 'f':
			figure = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'n':
		case 's':
			errno = 0;
			long long x = strtoll(optarg, &end, 10);

			if (errno || end == optarg || *end || x < 1 ||
			    (o == 'n' && x > SEEDS_MAX) || (o == 's' && x > 1000000000))
				return rl_usage_error("transport sim",
						      o == 'n'
							  ? "--seeds '%s': give 1 to 100"
							  : "--seed '%s': give 1 to 1000000000",
						      optarg);
			*(o == 'n' ? &seeds : &seed) = x;
			break;
		case 'S':
			sb = optarg;
			break;
		case 'C':
			credit = optarg;
			break;
		case 'P':
			probe = optarg;
			break;
		case 'N':
			nack = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'b':
			bench = true;
			break;
		case 'l':
			list = true;
			break;
		case 'h':
			return sim_help(stdout), RL_EXIT_OK;
		case ':':
			return rl_usage_error("transport sim", "option '%s' needs a value",
					      argv[optind - 1]);
		default:
			return rl_usage_error("transport sim", "unknown option '%s'",
					      argv[optind - 1]);
		}
	}
	if (optind != argc)
		return rl_usage_error("transport sim", "unexpected argument '%s'", argv[optind]);
	if (list) {
		unsigned n;
		const struct fig_def *d = fig_all(&n);

		for (unsigned i = 0; i < n; i++)
			printf("%-11s %s\n", d[i].name, d[i].title);
		return RL_EXIT_OK;
	}
	if (json && bench)
		return rl_usage_error("transport sim", "give --json or --bench, not both");
	if (fig_variant_parse(mode, &v))
		return rl_usage_error("transport sim", "--mode '%s': give paper or rocelab", mode);
	if (sb && on_off(sb, &v.scoreboard))
		return rl_usage_error("transport sim", "--scoreboard '%s': give on or off", sb);
	if (credit && mpr_credit_parse(credit, &v.credit))
		return rl_usage_error("transport sim",
				      "--credit '%s': give once, per-reply or paper", credit);
	if (probe && mpr_probe_mode_parse(probe, &v.probe_mode))
		return rl_usage_error("transport sim",
				      "--probe-mode '%s': give per-rtt or per-packet", probe);
	if (nack && mpr_nack_parse(nack, &v.nack))
		return rl_usage_error("transport sim", "--nack '%s': give once or every", nack);
	if (v.credit == MPR_CREDIT_ONCE && !v.scoreboard)
		return rl_usage_error("transport sim",
				      "--credit once needs the scoreboard: give "
				      "--scoreboard on, or --credit per-reply or paper");
	const struct fig_def *one = strcmp(figure, "all") ? fig_find(figure) : NULL;

	if (strcmp(figure, "all") && !one)
		return rl_usage_error("transport sim", "--figure '%s': see --list", figure);

	unsigned n;
	const struct fig_def *d = one ? one : fig_all(&n);
	char label[64];
	const char *name = fig_variant_name(&v, label, sizeof(label));
	json_t *all = json ? json_array() : NULL;
	int r = RL_EXIT_OK;

	if (one)
		n = 1;
	if (!json && !bench)
		printf("mode %s: scoreboard %s, credit %s, probing %s, NACK %s\n", name,
		       v.scoreboard ? "on" : "off", mpr_credit_name(v.credit),
		       mpr_probe_mode_name(v.probe_mode), mpr_nack_name(v.nack));
	for (unsigned i = 0; i < n && r == RL_EXIT_OK; i++)
		r = run_figure(&d[i], &v, (uint64_t)seed, (unsigned)seeds, name, json, bench, all);
	if (json && r == RL_EXIT_OK) {
		json_t *top = json_pack(
		    "{s:s, s:b, s:s, s:s, s:s, s:I, s:I, s:o}", "mode", name, "scoreboard",
		    v.scoreboard, "credit", mpr_credit_name(v.credit), "probe_mode",
		    mpr_probe_mode_name(v.probe_mode), "nack", mpr_nack_name(v.nack), "seed",
		    (json_int_t)seed, "seeds", (json_int_t)seeds, "figures", all);

		json_dumpf(top, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(top);
	} else {
		json_decref(all);
	}
	return r;
}
