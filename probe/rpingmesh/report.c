// SPDX-License-Identifier: MIT
/*
 * R-Pingmesh's part of the incident report: timeouts and RTT per window and
 * list (gnuplot, pngcairo; files named rpingmesh-*, beside Hostmesh's), and
 * its HTML section.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "probe/rpingmesh/component.h"

#include <limits.h>
#include <string.h>

static double num(const json_t *o, const char *list, const char *k)
{
	const json_t *v = json_object_get(list ? json_object_get(o, list) : o, k);

	return json_is_number(v) ? json_number_value(v) : 0;
}

static double pct(const json_t *w, const char *list)
{
	double p = num(w, list, "probes");

	return p ? 100 * (num(w, list, "timeouts") + num(w, list, "ack2_lost")) / p : 0;
}

static double rtt(const json_t *w, const char *list, const char *q)
{
	const json_t *r = json_object_get(json_object_get(w, list), "rtt_us");

	return json_is_number(json_object_get(r, q)) ? json_number_value(json_object_get(r, q)) : 0;
}

/*
 * rpingmesh-windows.dat: each window a step over the time it covers (its start
 * and its end, clipped to the plot, a row each); *drawn and *latency: whether
 * any window is in the plot, and any with a time to draw on a log scale.
 */
static int write_data(const json_t *windows, const struct comp_report *r, bool *drawn,
		      bool *latency)
{
	char path[PATH_MAX + 32];
	size_t i;
	json_t *w;
	FILE *f;

	snprintf(path, sizeof(path), "%s/rpingmesh-windows.dat", r->dir);
	if (!(f = fopen(path, "we")))
		return -errno;
	fprintf(f,
		"# t_s tor_mesh_lost_pct inter_tor_lost_pct tor_mesh_rtt_p50_us "
		"tor_mesh_rtt_p99_us inter_tor_rtt_p50_us inter_tor_rtt_p99_us "
		"prober_p50_us responder_p50_us send_late_p99_us (t: %s; a window's start and end, "
		"clipped to the plot)\n",
		comp_time_label(r->t));
	*drawn = *latency = false;
	json_array_foreach(windows, i, w)
	{
		double v[] = {rtt(w, "tor_mesh", "p50"),
			      rtt(w, "tor_mesh", "p99"),
			      rtt(w, "inter_tor", "p50"),
			      rtt(w, "inter_tor", "p99"),
			      num(json_object_get(w, "prober_us"), NULL, "p50"),
			      num(json_object_get(w, "responder_us"), NULL, "p50"),
			      num(json_object_get(w, "send_late_us"), NULL, "p99")},
		       span[2];

		if (!comp_plot_span(r->t, num(w, NULL, "start"), num(w, NULL, "end"), span))
			continue;
		*drawn = true;
		for (size_t k = 0; k < ARRAY_SIZE(v); k++)
			*latency |= v[k] > 0;
		for (int e = 0; e < 2; e++)
			fprintf(f, "%.3f %.4f %.4f %.1f %.1f %.1f %.1f %.1f %.1f %.1f\n", span[e],
				pct(w, "tor_mesh"), pct(w, "inter_tor"), v[0], v[1], v[2], v[3],
				v[4], v[5], v[6]);
	}
	fclose(f);
	return comp_plot_verdicts(r, "rpingmesh-verdicts.dat");
}

/*
 * Its plot from r and params {windows, latency: whether rpingmesh-windows.dat has a
 * window in the plot, and a time (a folder from before them: both)}: the run's, and
 * replot's.
 */
int rpm_plot(const struct comp_report *r, const json_t *params, char *err, size_t errlen)
{
	char gp[PATH_MAX + 32], series[512];
	bool drawn, latency;
	FILE *f;

	if (!comp_plot_window_flags(params, &drawn, &latency, err, errlen))
		return -EINVAL;
	if (!(f = comp_plot_begin(r, "R-Pingmesh", params, 2, 700, gp, sizeof(gp))))
		return -errno;
	comp_plot_yaxis(f, drawn, "[0:1<*]", 0, 1);
	fprintf(f,
		"set title 'probes lost per window, timeouts and ACK2 losses "
		"(%s%s; verdicts marked)'\n",
		r->t->t_fault > 0 ? "fault window shaded" : "no fault",
		r->n_down ? ", darker: the flapping link down" : "");
	fprintf(f, "set ylabel 'lost (%% of probes)'\nset xlabel '%s'\n", comp_time_label(r->t));
	/* the verdicts' labels on y2 (a share of the height), above the curves: headroom */
	fprintf(f, "set y2range [0:1]\nunset y2tics\nset offsets 0, 0, graph 0.3, 0\n");
	fprintf(f,
		"plot 'rpingmesh-windows.dat' using 1:2 with lines lw 2 title "
		"'ToR-mesh', '' using 1:3 with lines lw 2 title 'inter-ToR', "
		"%s\n",
		comp_plot_verdict_series("rpingmesh-verdicts.dat", series, sizeof(series)));
	comp_plot_yaxis_end(f);
	fprintf(f, "unset label 100\nset autoscale y2\nset offsets 0, 0, 0, 0\n");
	fprintf(f, "set autoscale y\nset title 'network RTT per window, (T5-T2)-(T4-T3), prober "
		   "and responder delays'\nset ylabel 'microseconds'\nset logscale y\n");
	comp_plot_yaxis(f, latency, "[*:*]", 1, 1000);
	fprintf(f, "plot 'rpingmesh-windows.dat' using 1:($4>0?$4:1/0) with lines lw 2 title "
		   "'ToR-mesh P50', '' using 1:($5>0?$5:1/0) with lines title 'ToR-mesh P99', "
		   "'' using 1:($6>0?$6:1/0) with lines lw 2 title 'inter-ToR P50', "
		   "'' using 1:($7>0?$7:1/0) with lines title 'inter-ToR P99', "
		   "'' using 1:($8>0?$8:1/0) with lines dt 2 title 'prober P50', "
		   "'' using 1:($9>0?$9:1/0) with lines dt 3 title 'responder P50', "
		   "'' using 1:($10>0?$10:1/0) with lines dt 3 lw 2 lc rgb '#808080' "
		   "title 'agents send late, P99'\n");
	comp_plot_yaxis_end(f);
	return comp_plot_end(r, f, gp);
}

static void html(const struct comp_report *r, bool png)
{
	static const struct mon_page pg = {
	    .name = "rpingmesh",
	    .alt = "R-Pingmesh timeline",
	    .data = "rpingmesh-windows.dat",
	    .analyzer_file = "rpingmesh-analyzer.jsonl",
	    .files = "rpingmesh-analyzer.jsonl (windows, verdicts), rpingmesh-agent-*.log"};
	const json_t *sec = r->obs->section;
	char row[256];

	snprintf(row, sizeof(row), "%lld (%lld timed out, %lld lost their ACK2), %lld unlocalized",
		 (long long)json_integer_value(json_object_get(sec, "probes")),
		 (long long)json_integer_value(json_object_get(sec, "timeouts")),
		 (long long)json_integer_value(json_object_get(sec, "ack2_lost")),
		 (long long)json_integer_value(json_object_get(sec, "unlocalized")));
	mon_html(r, png, &pg, row);
}

int rpm_report(void *state, const struct comp_report *r)
{
	const json_t *windows = rpm_windows(state);
	bool drawn, latency;
	int ret = write_data(windows, r, &drawn, &latency);
	char err[128];

	if (!ret) {
		json_t *p = json_pack("{s:b,s:b}", "windows", drawn, "latency", latency);

		if ((ret = rpm_plot(r, p, err, sizeof(err))) == -EINVAL)
			rl_warn("rpingmesh: its plot: %s", err);
		json_decref(p);
	}
	html(r, ret == 0);
	return ret;
}
