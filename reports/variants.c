// SPDX-License-Identifier: MIT
/*
 * A scenario's variants side by side (issue 57: the baselines on one fault,
 * one seed, one timeline): OUTDIR/<scenario>.variants/index.html with one
 * plot of every variant's goodput over time, the fault phase shaded, and
 * their figures in columns.  The variants ran one after another, each with
 * its own lab state; time zero is each one's fault phase.  Every name in
 * the script and the page is a validated scenario or component name
 * (letters, digits, '_', '.', '-', '#'), and the page escapes them anyway;
 * the numbers come from the data files the components wrote.
 */
#define _GNU_SOURCE
#include "reports/report.h"

#include "harness/lib/common.h"
#include "harness/lib/proc.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The figures a transport's column shows first, when its component has them. */
static const char *const first_rows[] = {
    "goodput-vs-optimal", "fault-settled-vs-optimal", "recovery-ms",
    "onset-ms",		  "retransmissions",	      "payload-errors",
};

static const struct metric *metric_of(const struct comp_result *c, const char *name)
{
	for (size_t i = 0; i < c->obs.n_metrics; i++)
		if (!strcmp(c->obs.metrics[i].name, name))
			return &c->obs.metrics[i];
	return NULL;
}

static void row(FILE *f, const struct scn_result *r, size_t nv, const char *name)
{
	char a[128];

	fprintf(f, "<tr><th>%s</th>", rl_xml_escape(name, a, sizeof(a)));
	for (size_t v = 0; v < nv; v++) {
		const struct metric *m = r[v].n_comps ? metric_of(&r[v].comps[0], name) : NULL;

		if (m)
			fprintf(f, "<td>%.4g</td>", m->value);
		else
			fprintf(f, "<td>-</td>");
	}
	fprintf(f, "</tr>\n");
}

/* Is this figure in the first rows already? */
static bool first_row(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(first_rows); i++)
		if (!strcmp(first_rows[i], name))
			return true;
	return false;
}

/* The gnuplot script: the program's text, the validated names, and numbers. */
static int write_plot(const char *dir, const struct scn_result *r, size_t nv, const char *comp,
		      double fault_s)
{
	char path[PATH_MAX + 32];
	FILE *f;
	int n = 0;
	double lo = fault_s, hi = 0;

	/* how long the faults were live in each variant's run: in all of them, in some */
	for (size_t v = 0; v < nv; v++) {
		double w = r[v].t_fault > 0 && r[v].t_revert > r[v].t_fault
			       ? r[v].t_revert - r[v].t_fault
			       : fault_s;

		lo = w < lo ? w : lo;
		hi = w > hi ? w : hi;
	}

	snprintf(path, sizeof(path), "%s/side-by-side.gp", dir);
	if (!(f = fopen(path, "we")))
		return -errno;
	fprintf(f,
		"set terminal pngcairo size 1100,460 font 'Sans,9'\nset output "
		"'side-by-side.png'\n"
		"set title '%s: the variants side by side, each on its own run of the same fault "
		"(shaded: the fault live in every run, lighter: in some)'\n"
		"set xlabel 's from the fault (each run its own)'\n"
		"set ylabel 'goodput in order (Mbit/s)'\n"
		"set key outside right top\nset grid\nset yrange [0:*]\n"
		"set object 1 rect from 0, graph 0 to %.3f, graph 1 fc rgb '#f0c8c8' fs solid "
		"noborder behind\n"
		"set object 2 rect from %.3f, graph 0 to %.3f, graph 1 fc rgb '#f8e8e8' fs solid "
		"noborder behind\nplot",
		r[0].s->group, lo, lo, hi > lo ? hi : lo);
	for (size_t v = 0; v < nv; v++) {
		char dat[PATH_MAX + 256];

		snprintf(dat, sizeof(dat), "%s/../%s/%s.dat", dir, r[v].test_name, comp);
		if (access(dat, R_OK))
			continue; /* no data: the variant did not run */
		fprintf(f, "%s '../%s/%s.dat' using 1:2 with lines lw 2 title '%s'", n++ ? "," : "",
			r[v].test_name, comp, r[v].s->variant);
	}
	if (!n)
		fprintf(f, " 0 notitle");
	fputc('\n', f);
	if (fclose(f))
		return -EIO;
	return n;
}

static int variants_page(const char *outdir, const struct scn_result *r, size_t nv)
{
	const struct scenario *s = r[0].s;
	const char *comp = r[0].n_comps ? r[0].comps[0].sc->ops->name : "";
	char dir[PATH_MAX], path[PATH_MAX + 16], a[256];
	FILE *f;
	int series, g = -1;

	if (!*comp || !rl_name_ok(comp, 63) || !rl_name_ok(s->group, SCN_NAME_MAX))
		return -EINVAL; /* names the program validated: not expected */
	snprintf(dir, sizeof(dir), "%s/%s.variants", outdir, s->group);
	if (rl_mkdir_p(dir, 0755))
		return -errno;
	series = write_plot(dir, r, nv, comp, (double)s->fault_ms / 1e3);
	if (series < 0)
		return series;
	if (series)
		g = proc_gnuplot(dir, "side-by-side.gp");
	snprintf(path, sizeof(path), "%s/index.html", dir);
	if (!(f = fopen(path, "we")))
		return -errno;
	fprintf(f,
		"<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>%s: side by "
		"side</title>\n<style>body{font-family:sans-serif}table{border-collapse:collapse}"
		"td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}</style></head>"
		"<body>\n<h1>%s: the variants side by side</h1>\n",
		rl_xml_escape(s->group, a, sizeof(a)), a);
	fprintf(f,
		"<p>Each variant ran on its own, one after another, with the same faults, phases "
		"and seed; %s is graded in each (figures of its fault phase).</p>\n",
		rl_xml_escape(comp, a, sizeof(a)));
	if (g == 0)
		fprintf(f, "<p><img src=\"side-by-side.png\" alt=\"goodput side by side\" "
			   "width=\"1100\"></p>\n");
	else
		fprintf(f,
			"<p>(no plot: %s; side-by-side.gp draws it from the variants' data)</p>\n",
			series ? "gnuplot did not run" : "no variant wrote data");
	fprintf(f, "<table><tr><th></th>");
	for (size_t v = 0; v < nv; v++) {
		char b[256];

		fprintf(f, "<th><a href=\"../%s/report.html\">%s</a></th>",
			rl_xml_escape(r[v].test_name, a, sizeof(a)),
			rl_xml_escape(r[v].s->variant, b, sizeof(b)));
	}
	fprintf(f, "</tr>\n<tr><th>verdict</th>");
	for (size_t v = 0; v < nv; v++)
		fprintf(f, "<td>%s</td>", run_verdict_name(r[v].g.verdict));
	fprintf(f, "</tr>\n");
	for (size_t i = 0; i < ARRAY_SIZE(first_rows); i++)
		row(f, r, nv, first_rows[i]);
	if (r[0].n_comps)
		for (size_t i = 0; i < r[0].comps[0].obs.n_metrics; i++)
			if (!first_row(r[0].comps[0].obs.metrics[i].name))
				row(f, r, nv, r[0].comps[0].obs.metrics[i].name);
	fprintf(f, "</table>\n</body></html>\n");
	if (fclose(f))
		return -EIO;
	if (g)
		rl_warn("run: %s/side-by-side.png not drawn (%s)", dir,
			series ? "gnuplot did not run; see gnuplot.log there" : "no data");
	rl_info("run: %s side by side: %s/index.html", s->group, dir);
	return 0;
}

int report_variants(const char *outdir, const struct scn_result *r, size_t n)
{
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		const struct scenario *s = r[i].s;
		size_t nv = 1;

		if (!s || s->n_variants < 2 || s->variant_idx != 0)
			continue;
		while (i + nv < n && r[i + nv].s && r[i + nv].s->variant_idx == nv &&
		       !strcmp(r[i + nv].s->group, s->group) && nv < s->n_variants)
			nv++;
		if (variants_page(outdir, &r[i], nv) && !ret)
			ret = -EIO;
		i += nv - 1;
	}
	return ret;
}
