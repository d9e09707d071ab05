// SPDX-License-Identifier: MIT
/*
 * Hostmesh's part of the incident report: drop rates and latency per window,
 * votes per link during the fault (gnuplot, pngcairo), and its HTML section.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/proc.h"
#include "probe/hostmesh/component.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double jnum(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : 0;
}

struct linkvote {
	char name[160];
	double votes, slow;
};

static void add_votes(struct linkvote *lv, size_t *n, size_t max, json_t *arr, bool slow)
{
	size_t i;
	json_t *e;

	json_array_foreach(arr, i, e)
	{
		const char *name = json_string_value(json_object_get(e, "link"));
		size_t k;

		if (!name)
			continue;
		for (k = 0; k < *n && strcmp(lv[k].name, name); k++)
			;
		if (k == *n) {
			if (*n == max)
				continue;
			lv[k] = (struct linkvote){0}; /* counts start at zero, not stack garbage */
			snprintf(lv[k].name, sizeof(lv[k].name), "%s", name);
			(*n)++;
		}
		if (slow)
			lv[k].slow += jnum(e, "votes");
		else
			lv[k].votes += jnum(e, "votes");
	}
}

static int vote_cmp(const void *a, const void *b)
{
	const struct linkvote *x = a, *y = b;
	double vx = x->votes + x->slow, vy = y->votes + y->slow;

	return vx > vy ? -1 : vx < vy;
}

/*
 * windows.dat: each window a step over the time it covers (its start and its
 * end, clipped to the plot, a row each); *drawn and *latency: whether any
 * window is in the plot, and any with a latency to draw on a log scale.
 */
static int write_data(const struct hm_state *st, const struct comp_report *r, double *vmax,
		      bool *drawn, bool *latency)
{
	const struct comp_times *t = r->t;
	char path[PATH_MAX + 32];
	struct linkvote lv[64];
	size_t nlv = 0, i;
	json_t *w;
	FILE *f;

	snprintf(path, sizeof(path), "%s/windows.dat", r->dir);
	if (!(f = fopen(path, "we")))
		return -errno;
	fprintf(f,
		"# t_s rnic_drop_pct switch_drop_pct net_p50_us net_p99_us net_p999_us "
		"proc_p50_us proc_p99_us probes send_late_p99_us (t: %s; a window's start and "
		"end, clipped to the plot)\n",
		comp_time_label(t));
	*drawn = *latency = false;
	json_array_foreach(st->mon.windows, i, w)
	{
		json_t *net = json_object_get(w, "net_us"), *proc = json_object_get(w, "proc_us"),
		       *late = json_object_get(w, "send_late_us");
		double v[] = {jnum(net, "p50"),	 jnum(net, "p99"),  jnum(net, "p999"),
			      jnum(proc, "p50"), jnum(proc, "p99"), jnum(late, "p99")},
		       span[2];

		if (comp_plot_span(t, jnum(w, "start"), jnum(w, "end"), span)) {
			*drawn = true;
			for (size_t k = 0; k < ARRAY_SIZE(v); k++)
				*latency |= v[k] > 0;
			for (int e = 0; e < 2; e++)
				fprintf(f, "%.3f %.4f %.4f %.1f %.1f %.1f %.1f %.1f %.0f %.1f\n",
					span[e], 100 * jnum(w, "rnic_drop_rate"),
					100 * jnum(w, "switch_drop_rate"), v[0], v[1], v[2], v[3],
					v[4], jnum(w, "probes"), v[5]);
		}
		if (t->t_fault > 0 && jnum(w, "start") < t->t_revert &&
		    jnum(w, "end") > t->t_fault) {
			add_votes(lv, &nlv, ARRAY_SIZE(lv), json_object_get(w, "link_votes"),
				  false);
			add_votes(lv, &nlv, ARRAY_SIZE(lv), json_object_get(w, "slow_votes"), true);
		}
	}
	fclose(f);
	rl_sort(lv, nlv, sizeof(*lv), vote_cmp);
	*vmax = nlv ? lv[0].votes + lv[0].slow : 0;
	snprintf(path, sizeof(path), "%s/votes.dat", r->dir);
	if (!(f = fopen(path, "we")))
		return -errno;
	fprintf(f, "# rank link drop_votes high_latency_votes (fault window)\n");
	for (i = 0; i < nlv && i < 8; i++)
		fprintf(f, "%zu \"%s\" %.0f %.0f\n", i, lv[i].name, lv[i].votes, lv[i].slow);
	if (!nlv)
		fprintf(f, "0 \"(no votes)\" 0 0\n");
	fclose(f);
	return comp_plot_verdicts(r, "verdicts.dat");
}

/*
 * Its plot from r and params {vmax: the tallest stacked vote bar; windows, latency:
 * whether windows.dat has a window in the plot, and a latency (a folder from before
 * them: both)}: the run's, and replot's.
 */
int hm_plot(const struct comp_report *r, const json_t *params, char *err, size_t errlen)
{
	char gp[PATH_MAX + 32], series[512];
	bool drawn, latency;
	double vmax;
	FILE *f;

	if (!comp_param_num(params, "vmax", 0, 1e15, &vmax)) {
		snprintf(err, errlen, "vmax (votes, 0 to 1e15) is missing or wrong");
		return -EINVAL;
	}
	if (!comp_plot_window_flags(params, &drawn, &latency, err, errlen))
		return -EINVAL;
	if (!(f = comp_plot_begin(r, "Hostmesh", params, 3, 1000, gp, sizeof(gp))))
		return -errno;
	/* drops are never negative: from 0, up to at least 1% (all zero drew -1..1) */
	comp_plot_yaxis(f, drawn, "[0:1<*]", 0, 1);
	/* a fault-free run has no window to shade, and says none (issue 58) */
	fprintf(f, "set title 'drop rate per window (%s%s; verdicts marked)'\n",
		r->t->t_fault > 0 ? "fault window shaded" : "no fault",
		r->n_down ? ", darker: the flapping link down" : "");
	fprintf(f, "set ylabel 'drops (%% of probes)'\nset xlabel '%s'\n", comp_time_label(r->t));
	/* the verdicts' labels on y2 (a share of the height), above the curves: headroom */
	fprintf(f, "set y2range [0:1]\nunset y2tics\nset offsets 0, 0, graph 0.3, 0\n");
	fprintf(f,
		"plot 'windows.dat' using 1:2 with lines lw 2 title 'RNIC drops', "
		"'' using 1:3 with lines lw 2 title 'switch-network drops', "
		"%s\n",
		comp_plot_verdict_series("verdicts.dat", series, sizeof(series)));
	comp_plot_yaxis_end(f);
	fprintf(f, "unset label 100\nset autoscale y2\nset offsets 0, 0, 0, 0\n");
	fprintf(f, "set autoscale y\nset title 'latency per window'\nset ylabel "
		   "'microseconds'\nset logscale y\n");
	comp_plot_yaxis(f, latency, "[*:*]", 1, 1000);
	fprintf(f, "plot 'windows.dat' using 1:4 with lines lw 2 title 'network P50', "
		   "'' using 1:5 with lines lw 2 title 'network P99', "
		   "'' using 1:6 with lines title 'network P99.9', "
		   "'' using 1:7 with lines dt 2 lw 2 title 'processing P50', "
		   "'' using 1:8 with lines dt 2 title 'processing P99', "
		   "'' using 1:($10 > 0 ? $10 : 1/0) with lines dt 3 lw 2 lc rgb '#808080' "
		   "title 'agents send late, P99'\n");
	comp_plot_yaxis_end(f);
	fprintf(f, "unset logscale y\nunset object\nunset xrange\n");
	fprintf(f, "set title 'votes per link during the fault (Algorithm 1)'\n");
	fprintf(f, "set style data histograms\nset style histogram rowstacked\n"
		   "set style fill solid 0.8 border -1\nset boxwidth 0.6\n"
		   "set xtics rotate by 20 right font 'Sans,8'\nset xlabel ''\nset ylabel "
		   "'abnormal probes'\n");
	/* stacked bars: the tallest is the sum of both (autoscale saw only the first) */
	fprintf(f, "set yrange [0:%.0f]\n", vmax > 0 ? vmax * 1.08 + 1 : 1);
	fprintf(f, "plot 'votes.dat' using 3:xtic(2) title 'drops' lc rgb '#c03030', "
		   "'' using 4 title 'high latency' lc rgb '#3060c0'\n");
	return comp_plot_end(r, f, gp);
}

static void html(const struct hm_state *st, const struct comp_report *r, bool png)
{
	static const struct mon_page pg = {
	    .name = "hostmesh",
	    .alt = "incident timeline",
	    .data = "windows.dat, votes.dat",
	    .analyzer_file = "analyzer.jsonl",
	    .files = "analyzer.jsonl (windows, verdicts), agent-*.log, report.gp"};
	const json_t *sec = r->obs->section;
	char row[256];

	snprintf(row, sizeof(row), "%lld (%lld timed out), transport %s, timestamps %s",
		 (long long)json_integer_value(json_object_get(sec, "probes")),
		 (long long)json_integer_value(json_object_get(sec, "timeouts")),
		 st->cfg->agent.a.transport->name,
		 json_string_value(json_object_get(sec, "timestamps")) ?: "none");
	mon_html(r, png, &pg, row);
}

int hm_report(void *state, const struct comp_report *r)
{
	const struct hm_state *st = state;
	double vmax = 0;
	bool drawn, latency;
	int ret = write_data(st, r, &vmax, &drawn, &latency);
	char err[128];

	if (!ret) {
		json_t *p =
		    json_pack("{s:f,s:b,s:b}", "vmax", vmax, "windows", drawn, "latency", latency);

		if ((ret = hm_plot(r, p, err, sizeof(err))) == -EINVAL)
			rl_warn("hostmesh: its plot: %s", err);
		json_decref(p);
	}
	html(st, r, ret == 0);
	return ret;
}
