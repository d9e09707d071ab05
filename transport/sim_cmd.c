// SPDX-License-Identifier: MIT
/*
 * rocelab transport sim: the MP-RDMA paper's figures on the path simulator
 * (transport/sim/figures.h), over seeds, beside the paper's values.
 */
#include "harness/lib/common.h"
#include "harness/lib/proc.h"
#include "transport/mpr_ep.h"
#include "transport/sim/figures.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	    "       rocelab transport sim --timeline blackhole|lossy|degraded [--seed S] [-o DIR]\n"
	    "       rocelab transport sim --list\n"
	    "\n"
	    "The MP-RDMA paper's figures in miniature on the deterministic path simulator\n"
	    "(transport/sim; the same sender and receiver state machines the lab runs): each\n"
	    "figure's values over seeds S..S+N-1, their mean and 95% interval, the paper's\n"
	    "value and the ratio.  --mode paper is the paper's connection exactly (no\n"
	    "scoreboard, credit per reply, probing once a round trip, a NACK once a hole);\n"
	    "rocelab is the lab's default (scoreboard, credit once a PSN, a NACK every drop).\n"
	    "--scoreboard, --credit, --probe-mode and --nack change one departure from the\n"
	    "mode.  The same options and seed give the same figures on every machine.\n"
	    "--timeline runs the baselines side by side on one fault, one seed, one timeline\n"
	    "(go-back-N, DCQCN and IRN on the path it hits, MP-RDMA, MP-RDMA over Eunomia):\n"
	    "a table of their goodput every 20 ms, and with -o DIR DIR/timeline.png.\n"
	    "\n"
	    "  --figure NAME   one figure, or all (the default)\n"
	    "  --mode M        paper (the default) or rocelab\n"
	    "  --seeds N       seeds a figure (1 to 100; default 5)\n"
	    "  --seed S        the first seed (default 1, the unit tests' run)\n"
	    "  --json          one JSON object: every figure's values, seeds and summary\n"
	    "  --bench         'bench NAME VALUE UNIT' lines (make bench)\n"
	    "  --list          the figures and their setups\n"
	    "  --timeline F    blackhole, lossy or degraded: the baselines side by side\n"
	    "  -o, --out DIR   --timeline: DIR/timeline.dat and DIR/timeline.png (gnuplot)\n"
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

/* The timeline as a table: a row a bin, a column a transport (Mbit/s of payload in order). */
static void timeline_table(FILE *f, const struct fig_timeline *tl)
{
	fprintf(f, "# %s, seed %llu: %s from %u to %u ms; the single paths on path %u\n# t_ms",
		tl->fault, (unsigned long long)tl->seed, tl->what, TL_FROM_MS, TL_TO_MS,
		tl->hit_path);
	for (unsigned i = 0; i < TL_SERIES; i++)
		fprintf(f, "\t%s", tl->name[i]);
	fputc('\n', f);
	for (unsigned b = 0; b < TL_BINS; b++) {
		fprintf(f, "%u", (b + 1) * TL_BIN_MS);
		for (unsigned i = 0; i < TL_SERIES; i++)
			fprintf(f, "\t%.2f", tl->mbit[i][b]);
		fputc('\n', f);
	}
}

/*
 * dir/timeline.dat and dir/timeline.png (gnuplot): every transport's goodput
 * on one plot, the fault shaded.  The script's text is the program's own
 * (the names are constants), the numbers are read from the data file.
 */
static int timeline_plot(const char *dir, const struct fig_timeline *tl)
{
	char path[PATH_MAX];
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/timeline.dat", dir);
	if (!(f = fopen(path, "w")))
		return -errno;
	timeline_table(f, tl);
	if (fclose(f))
		return -EIO;
	snprintf(path, sizeof(path), "%s/timeline.gp", dir);
	if (!(f = fopen(path, "w")))
		return -errno;
	fprintf(f,
		"set terminal pngcairo size 900,420 font 'Sans,9'\nset output 'timeline.png'\n"
		"set title 'The baselines side by side, on the simulator: %s (%s, %u-%u ms)'\n"
		"set xlabel 'time (ms)'\nset ylabel 'goodput in order (Mbit/s)'\n"
		"set key outside right top\nset grid\nset yrange [0:*]\n"
		"set object 1 rect from %u, graph 0 to %u, graph 1 fc rgb '#f4d8d8' fs solid "
		"noborder behind\n",
		tl->fault, tl->what, TL_FROM_MS, TL_TO_MS, TL_FROM_MS, TL_TO_MS);
	fputs("plot", f);
	for (unsigned i = 0; i < TL_SERIES; i++)
		fprintf(f, "%s 'timeline.dat' using 1:%u with lines lw 2 title '%s'", i ? "," : "",
			i + 2, tl->name[i]);
	fputc('\n', f);
	if (fclose(f))
		return -EIO;
	r = proc_gnuplot(dir, "timeline.gp");
	return r == -ENOENT ? r : r ? -EIO : 0;
}

static int run_timeline(const char *fault, uint64_t seed, const char *dir)
{
	struct fig_timeline *tl = rl_xcalloc(1, sizeof(*tl));
	int r = fig_timeline(fault, seed, tl);

	if (r) {
		free(tl);
		return r == -EINVAL ? rl_usage_error("transport sim", "--timeline '%s': give %s",
						     fault, fig_timeline_faults)
				    : RL_EXIT_SETUP;
	}
	if (!dir)
		timeline_table(stdout, tl);
	printf("%s%s: %s from %u to %u ms, seed %llu; Mbit/s before, during, after\n",
	       dir ? "" : "# ", tl->fault, tl->what, TL_FROM_MS, TL_TO_MS,
	       (unsigned long long)tl->seed);
	for (unsigned i = 0; i < TL_SERIES; i++)
		printf("%s  %-22s %7.1f %7.1f %7.1f\n", dir ? "" : "# ", tl->name[i], tl->before[i],
		       tl->during[i], tl->after[i]);
	if (dir) {
		r = timeline_plot(dir, tl);
		if (r == -ENOENT)
			fprintf(stderr,
				"rocelab: transport sim: gnuplot is not installed: the data is "
				"in %s/timeline.dat\n",
				dir);
		else if (r)
			fprintf(
			    stderr,
			    "rocelab: transport sim: %s/timeline.png: %s (see %s/gnuplot.log)\n",
			    dir, strerror(-r), dir);
		else
			printf("%s/timeline.png, %s/timeline.dat\n", dir, dir);
	}
	free(tl);
	return r && r != -ENOENT ? RL_EXIT_SETUP : RL_EXIT_OK;
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
	    {"timeline", required_argument, NULL, 'L'},
	    {"out", required_argument, NULL, 'o'},
	    {"json", no_argument, NULL, 'j'},
	    {"bench", no_argument, NULL, 'b'},
	    {"list", no_argument, NULL, 'l'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *figure = "all", *mode = "paper", *sb = NULL, *credit = NULL, *probe = NULL,
		   *nack = NULL, *timeline = NULL, *outdir = NULL;
	long long seeds = 5, seed = 1;
	bool json = false, bench = false, list = false;
	struct fig_variant v;
	char *end;
	int o;

	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":jho:", lo, NULL)) != -1) {
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
		case 'L':
			timeline = optarg;
			break;
		case 'o':
			outdir = optarg;
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
	if (outdir && !timeline)
		return rl_usage_error("transport sim", "-o DIR is for --timeline's plot");
	if (timeline) {
		struct stat dir_st;

		if (json || bench || list)
			return rl_usage_error("transport sim",
					      "--timeline prints its own table: no --json, --bench "
					      "or --list with it");
		if (outdir && (stat(outdir, &dir_st) || !S_ISDIR(dir_st.st_mode)))
			return rl_usage_error("transport sim",
					      "-o '%s': not a directory (make it first)", outdir);
		return run_timeline(timeline, (uint64_t)seed, outdir);
	}
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
