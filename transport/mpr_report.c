// SPDX-License-Identifier: MIT
/*
 * MP-RDMA's part of the incident report: its timeline as data and the
 * gnuplot script that draws it.
 */
#define _GNU_SOURCE
#include "transport/mpr_comp_int.h"

#include "harness/lib/common.h"
#include "probe/pathmap.h"
#include "transport/mpr_vpmap.h"
#include "transport/mprdma/mpr_wire.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- report ----------------------------------------------------------------------------- */

static int write_timeline(const struct mpr_state *st, const struct comp_report *r)
{
	double t0 = r->t->t_start, z = comp_t0(r->t); /* bins from the start, x from z */
	char path[PATH_MAX + 32];
	FILE *f;
	size_t i = 0, k = 0;

	snprintf(path, sizeof(path), "%s/%s.dat", r->dir, st->name);
	if (!(f = fopen(path, "we")))
		return -errno;
	fprintf(
	    f,
	    "# t_s goodput_mbit retx_per_s vps_in_use hit_pct fwd_pct mem_b static_b bitmap_b "
	    "reorder_max versus_goodput_mbit versus_mem_b (per %.0f ms; the sends, probes aside, "
	    "on the VPs a fault's link carries data or ACKs of, and data of; the receiver's "
	    "ordering memory, a static 256-bit bitmap's for its QPs, its bitmaps, means of 1 ms "
	    "samples; the largest reorder distance; with a versus receiver, the odd QPs' "
	    "goodput and memory, the rest the even QPs')\n",
	    PLOT_BIN_S * 1e3);
	for (double b = t0; b < r->t->t_end; b += PLOT_BIN_S) {
		double pk = 0, rt = 0, vps = 0, sent = 0, hit = 0, fwd = 0;
		double mem = 0, sta = 0, bm = 0, ro = 0, pk_b = 0, mem_b = 0;
		size_t nv = 0, nr = 0;

		for (; i < st->n_rs && st->rs[i].t < b + PLOT_BIN_S; i++)
			if (st->rs[i].t >= b) {
				const struct mpr_sample *x = &st->rs[i];

				pk += x->delivered, nr++;
				mem += x->ord_bytes, sta += x->static_bytes, bm += x->bm_bytes;
				pk_b += x->delivered_b, mem_b += x->ord_bytes_b;
				ro = x->reorder_max > ro ? x->reorder_max : ro;
			}
		for (; k < st->n_ss && st->ss[k].t < b + PLOT_BIN_S; k++)
			if (st->ss[k].t >= b) {
				rt += st->ss[k].retx, vps += st->ss[k].vps_used, nv++;
				sent += st->ss[k].sent, hit += st->ss[k].sent_hit;
				fwd += st->ss[k].sent_fwd;
			}
		if (!nr)
			nr = 1;
		fprintf(f, "%.2f %.2f %.0f %.1f %.1f %.1f %.1f %.1f %.1f %.0f %.2f %.1f\n",
			b + PLOT_BIN_S / 2 - z, pk * MPR_WIRE_PAYLOAD * 8 / PLOT_BIN_S / 1e6,
			rt / PLOT_BIN_S, nv ? vps / (double)nv : 0, sent ? 100 * hit / sent : 0,
			sent ? 100 * fwd / sent : 0, mem / (double)nr, sta / (double)nr,
			bm / (double)nr, ro, pk_b * MPR_WIRE_PAYLOAD * 8 / PLOT_BIN_S / 1e6,
			mem_b / (double)nr);
	}
	fclose(f);
	return 0;
}

/* Who drew the goodput, as the keys name it: a plot's description names one of these. */
static const char *const whos[] = {
    "Eunomia", "go-back-N", "static 64-bit bitmap", "static 256-bit bitmap", "single path",
    "MP-RDMA", NULL};
/* A versus receiver's kind ("": none), and as the keys name it (short: beside the axes). */
static const char *const versus_kinds[] = {"", "eunomia", "static64", "static256", NULL};
static const char *const versus_names[] = {"", "Eunomia", "static 64", "static 256", NULL};

/* The plot's parameters from the run (mpr_plot() draws from them). */
static json_t *plot_params(const struct mpr_state *st)
{
	const struct ep_params *ep = &st->cfg->ep;
	char dat[40];
	int who = st->spray	    ? (ep->receiver[0] == 'e'	? 0
				       : ep->receiver[0] == 'g' ? 1
				       : ep->bitmap == 64	? 2
								: 3)
		  : ep->single_path ? 4
				    : 5;

	snprintf(dat, sizeof(dat), "%s.dat", st->name);
	/* the share on the faulted link's VPs says something only when some VPs avoid it */
	return json_pack("{s:s,s:s,s:s,s:f,s:f,s:f,s:b,s:b,s:b}", "data", dat, "who", whos[who],
			 "versus", ep->versus, "load_mbit", ep->load_mbit > 0 ? ep->load_mbit : 0,
			 "optimal", st->optimal > 0 ? st->optimal : 0, "optimal_fault",
			 st->optimal_fault > 0 ? st->optimal_fault : 0, "paths",
			 st->n_fault_links > 0 && st->vps_hit && st->vps_hit < st->vps_traced,
			 "spray", st->spray, "compete", st->compete);
}

int mpr_plot(const struct comp_report *r, const json_t *p, char *err, size_t errlen)
{
	char gp[PATH_MAX + 32];
	const char *dat = json_string_value(json_object_get(p, "data"));
	double load = 0, optimal = 0, optimal_fault = 0;
	bool paths, spray, compete;
	int rows, who = comp_param_choice(p, "who", whos),
		  vs = comp_param_choice(p, "versus", versus_kinds);
	FILE *f;

	if (!dat || !rl_file_name_ok(dat, ".dat") || who < 0 || vs < 0 ||
	    !comp_param_num(p, "load_mbit", 0, 1e9, &load) ||
	    !comp_param_num(p, "optimal", 0, 1e9, &optimal) ||
	    !comp_param_num(p, "optimal_fault", 0, 1e9, &optimal_fault) ||
	    !comp_param_flag(p, "paths", &paths) || !comp_param_flag(p, "spray", &spray) ||
	    !comp_param_flag(p, "compete", &compete)) {
		snprintf(err, errlen,
			 "data (a .dat file name), who, versus, load_mbit, optimal, optimal_fault, "
			 "paths, spray or compete is missing or wrong");
		return -EINVAL;
	}
	rows = 2 + paths + spray;
	if (!(f = comp_plot_begin(r, spray ? "Eunomia" : "MP-RDMA", p, rows, 300 * rows + 200, gp,
				  sizeof(gp))))
		return -errno;
	fprintf(f, "set title 'goodput, payload in order per %.0f ms (fault window shaded)'\n",
		PLOT_BIN_S * 1e3);
	fprintf(f, "set ylabel 'Mbit/s'\nset xlabel '%s'\nset yrange [0:*]\n",
		comp_time_label(r->t));
	if (vs)
		/* the even QPs' and the odd QPs' apart, each with its own receiver */
		fprintf(f,
			"plot '%s' using 1:($2-$11) with lines lw 2 title '%s, even QPs', '' "
			"using 1:11 with lines lw 2 lc rgb '#20a0a0' title '%s, odd QPs'",
			dat, whos[who], versus_names[vs]);
	else
		fprintf(f, "plot '%s' using 1:2 with lines lw 2 title '%s'", dat, whos[who]);
	if (load > 0)
		fprintf(f, ", %.3f with lines dt 4 lw 2 lc rgb '#208020' title 'offered load'",
			load);
	if (optimal > 0)
		fprintf(f, ", %.3f with lines dt 2 lw 2 lc rgb '#606060' title 'optimal (fabric)'",
			optimal);
	/* where the faults take capacity away, the optimal they leave (x: s from time zero) */
	if (optimal_fault > 0 && r->t->t_fault > 0 && optimal_fault < optimal - 1e-6)
		fprintf(f,
			", (x >= %.3f && x <= %.3f ? %.3f : 1/0) with lines dt 3 lw 2 lc rgb "
			"'#a06000' title 'optimal while the fault is live'",
			r->t->t_fault - comp_t0(r->t), r->t->t_revert - comp_t0(r->t),
			optimal_fault);
	fprintf(f, "\nunset label 100\n");
	fprintf(f, "set title 'virtual paths in use and retransmissions'\n");
	fprintf(f, "set ylabel 'VPs in use (mean per 10 ms)'\nset y2label 'retransmissions/s'\n"
		   "set y2tics\nset ytics nomirror\nset y2range [0:*]\n");
	fprintf(f,
		"plot '%s' using 1:4 with lines lw 2 title 'VPs in use', "
		"'' using 1:3 axes x1y2 with lines lw 1 lc rgb '#c03030' "
		"title 'retransmissions/s'\n",
		dat);
	if (spray) {
		fprintf(
		    f,
		    "set title 'ordering memory at the receiver NIC (1 ms samples; static 256-bit: "
		    "41 B a QP) and reorder distance'\n");
		fprintf(f, "set ylabel 'bytes'\nset y2label 'reorder distance, max (packets)'\n"
			   "set yrange [0:*]\n");
		fprintf(
		    f,
		    "plot '%s' using 1:7 with lines lw 2 lc rgb '#7030a0' title '%s, all', "
		    "'' using 1:9 with lines lw 1 lc rgb '#b080d0' title '%s, bitmaps', "
		    "'' using 1:8 with lines dt 2 lw 2 lc rgb '#606060' title 'static 256-bit', "
		    "'' using 1:10 axes x1y2 with lines lw 1 lc rgb '#c06000' title 'reorder "
		    "distance'",
		    dat, whos[who], whos[who]);
		if (vs)
			fprintf(
			    f,
			    ", '' using 1:12 with lines lw 2 lc rgb '#20a0a0' title '%s, odd QPs'",
			    versus_names[vs]);
		fprintf(f, "\n");
	}
	if (paths) {
		fprintf(f,
			"set title \"the sender's sends on the VPs that cross %s (traced; probes "
			"aside)\"\n",
			compete ? "the competing stream's link" : "the faulted link");
		fprintf(f, "set ylabel '%% of sends'\nunset y2label\nunset y2tics\nset ytics "
			   "mirror\nset yrange [0:100]\n");
		fprintf(f,
			"plot '%s' using 1:5 with lines lw 2 lc rgb '#c03030' "
			"title 'data or ACKs cross it', '' using 1:6 with lines lw 2 "
			"lc rgb '#3060c0' title 'data crosses it'\n",
			dat);
	}
	return comp_plot_end(r, f, gp);
}

int mpr_comp_report(void *state, const struct comp_report *r)
{
	const struct mpr_state *st = state;
	FILE *f = r->html;
	char a[1024];
	int ret = write_timeline(st, r);
	char err[160];

	if (!ret) {
		json_t *p = plot_params(st);

		if ((ret = mpr_plot(r, p, err, sizeof(err))) == -EINVAL)
			rl_warn("%s: its plot: %s", st->name, err);
		json_decref(p);
	}
	fprintf(f, "<h2>%s</h2>\n<table>\n", st->name);
	fprintf(f, "<tr><th>flow</th><td>%s &rarr; %s, %s</td></tr>\n", st->from, st->to,
		st->spray		  ? "finite connections sprayed over the VPs"
		: st->cfg->ep.single_path ? "single path (go-back-N)"
					  : "MP-RDMA");
	fprintf(f, "<tr><th>optimal</th><td>%s</td></tr>\n",
		st->optimal > 0 ? "from the fabric profile (see results.json)"
				: "none: no fabric profile shapes this flow's links");
	for (size_t i = 0; i < r->obs->n_metrics; i++)
		fprintf(f, "<tr><th>%s</th><td>%.3g %s</td></tr>\n",
			rl_xml_escape(r->obs->metrics[i].name, a, sizeof(a)),
			r->obs->metrics[i].value, r->obs->metrics[i].unit);
	fprintf(f, "<tr><th>ECN</th><td>%s</td></tr>\n</table>\n",
		!strcmp(st->cfg->ep.ecn, "sojourn")
		    ? "emulated: marked at the receiver from one-way delay (this kernel has no RED)"
		    : st->cfg->ep.ecn);
	if (!ret)
		fprintf(f, "<p><img src=\"%s\" alt=\"goodput timeline\" width=\"1200\"></p>\n",
			rl_xml_escape(r->png, a, sizeof(a)));
	else
		fprintf(f, "<p>(no plot: gnuplot did not run; data in %s.dat)</p>\n", st->name);
	fprintf(f,
		"<p>Files: %s-send.log, %s-recv.log (JSON lines), %s.dat, "
		"report.gp</p>\n",
		st->name, st->name, st->name);
	return ret;
}
