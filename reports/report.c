// SPDX-License-Identifier: MIT
/* results.json (jansson), junit.xml, and the incident report: gnuplot (pngcairo) timeline + HTML.
 */
#define _GNU_SOURCE
#include "reports/report.h"

#include "harness/lib/common.h"
#include "harness/lib/proc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

const char *report_xml_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; s && *s && o + 7 < len; s++) {
		const char *rep = NULL;

		switch (*s) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&apos;";
			break;
		case '\n':
		case '\r':
		case '\t':
			rep = " ";
			break;
		}
		if (rep) {
			size_t k = strlen(rep);

			memcpy(buf + o, rep, k);
			o += k;
		} else if ((unsigned char)*s >= 0x20) {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
	return buf;
}

static const char *versions(char *buf, size_t len, const char *rocelab)
{
	struct utsname u;

	uname(&u);
	snprintf(buf, len, "rocelab %s; kernel %s %s", rocelab, u.release, u.machine);
	return buf;
}

static json_t *scenario_json(const struct scn_result *r)
{
	const struct scenario *s = r->s;
	json_t *o = json_object(), *f = json_array();

	json_object_set_new(o, "name", json_string(r->test_name));
	json_object_set_new(o, "suite", json_string(s->suite));
	json_object_set_new(o, "file", json_string(s->path));
	json_object_set_new(o, "verdict", json_string(run_verdict_name(r->verdict)));
	json_object_set_new(o, "reason", json_string(r->reason));
	json_object_set_new(o, "detected", json_boolean(r->detected));
	json_object_set_new(o, "time_to_detect_s",
			    r->time_to_detect_s >= 0 ? json_real(r->time_to_detect_s)
						     : json_null());
	json_object_set_new(o, "localized", json_boolean(r->localized));
	json_object_set_new(o, "rank", r->rank ? json_integer(r->rank) : json_null());
	json_object_set_new(o, "class_ok", json_boolean(r->class_ok));
	json_object_set_new(o, "false_positives", json_integer(r->false_positives));
	json_object_set_new(o, "expected",
			    json_pack("{s:s,s:s,s:i,s:f,s:b}", "class", s->expect.cls, "target",
				      s->expect.target, "top_k", s->expect.top_k, "within_s",
				      (double)s->expect.within_ms / 1e3, "silent",
				      s->expect.silent));
	json_object_set_new(o, "got",
			    json_pack("{s:s,s:s}", "class", r->got_class, "target", r->got_target));
	for (size_t i = 0; i < s->n_faults; i++)
		json_array_append_new(f, json_pack("{s:s,s:s}", "kind",
						   fault_kind_name(s->faults[i].kind), "target",
						   s->faults[i].target));
	json_object_set_new(o, "faults", f);
	json_object_set_new(o, "fault_window",
			    r->t_fault > 0 ? json_pack("[f,f]", r->t_fault, r->t_revert)
					   : json_null());
	json_object_set_new(o, "evidence", json_string(r->evidence));
	json_object_set_new(o, "emulated", json_boolean(r->emulated));
	if (r->note[0])
		json_object_set_new(o, "emulated_note", json_string(r->note));
	json_object_set_new(o, "components", json_pack("[s]", "hostmesh"));
	json_object_set_new(o, "transport", json_string(s->agent.transport->name));
	json_object_set_new(o, "timestamps", json_string(r->timestamps));
	/* The short answer: RNIC completion clocks, or a software clock (kernel or clock_gettime).
	 */
	json_object_set_new(
	    o, "timestamp_source",
	    json_string(!strcmp(r->timestamps, "hardware") ? "hardware"
			: !strcmp(r->timestamps, "none") || !strcmp(r->timestamps, "mixed")
			    ? r->timestamps
			    : "software"));
	json_object_set_new(o, "probes", json_integer((json_int_t)r->probes));
	json_object_set_new(o, "timeouts", json_integer((json_int_t)r->timeouts));
	json_object_set_new(o, "windows", json_integer((json_int_t)json_array_size(r->windows)));
	json_object_set_new(o, "duration_s", json_real(r->t_end - r->t_start));
	json_object_set_new(o, "verdicts", json_deep_copy(r->verdicts));
	json_object_set_new(o, "agents", json_deep_copy(r->agents));
	json_object_set_new(o, "report", json_sprintf("%s/report.html", r->test_name));
	return o;
}

int report_results_json(const struct run_info *ri, struct scn_result *r, size_t n)
{
	json_t *root = json_object(), *arr = json_array();
	char path[PATH_MAX], ver[256];
	int ret;

	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, scenario_json(&r[i]));
	json_object_set_new(root, "rocelab", json_string(ri->version));
	json_object_set_new(root, "versions", json_string(versions(ver, sizeof(ver), ri->version)));
	json_object_set_new(root, "inventory", json_string(ri->inventory));
	json_object_set_new(root, "seed", json_integer(ri->seed));
	json_object_set_new(root, "started", json_real(ri->started));
	json_object_set_new(root, "scenarios", arr);
	snprintf(path, sizeof(path), "%s/results.json", ri->outdir);
	ret = json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ? -EIO : 0;
	if (ret)
		rl_err("run: cannot write %s", path);
	json_decref(root);
	return ret;
}

int report_junit(const struct run_info *ri, struct scn_result *r, size_t n)
{
	char path[PATH_MAX], a[1024], b[1024], ver[256];
	const char *suite = n ? r[0].s->suite : "rocelab";
	size_t fails = 0, errs = 0;
	double total = 0;
	FILE *f;

	for (size_t i = 0; i < n; i++) {
		fails += r[i].verdict == RV_FAIL;
		errs += r[i].verdict == RV_INVALID;
		total += r[i].t_end > r[i].t_start ? r[i].t_end - r[i].t_start : 0;
	}
	snprintf(path, sizeof(path), "%s/junit.xml", ri->outdir);
	f = fopen(path, "we");
	if (!f) {
		rl_err("run: cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
	fprintf(f,
		"  <testsuite name=\"rocelab.%s\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
		"time=\"%.3f\">\n",
		report_xml_escape(suite, a, sizeof(a)), n, fails, errs, total);
	fprintf(f, "    <properties>\n");
	fprintf(f, "      <property name=\"inventory\" value=\"%s\"/>\n",
		report_xml_escape(ri->inventory, a, sizeof(a)));
	fprintf(f, "      <property name=\"seed\" value=\"%u\"/>\n", ri->seed);
	fprintf(f, "      <property name=\"versions\" value=\"%s\"/>\n",
		report_xml_escape(versions(ver, sizeof(ver), ri->version), a, sizeof(a)));
	fprintf(f, "    </properties>\n");
	for (size_t i = 0; i < n; i++) {
		const struct scn_result *x = &r[i];

		fprintf(f, "    <testcase classname=\"rocelab.%s\" name=\"%s\" time=\"%.3f\"",
			report_xml_escape(x->s->suite, a, sizeof(a)),
			report_xml_escape(x->test_name, b, sizeof(b)),
			x->t_end > x->t_start ? x->t_end - x->t_start : 0);
		if (x->verdict == RV_PASS) {
			fprintf(f, "/>\n");
			continue;
		}
		fprintf(f, ">\n      <%s message=\"%s\"/>\n    </testcase>\n",
			x->verdict == RV_FAIL ? "failure" : "error",
			report_xml_escape(x->reason, a, sizeof(a)));
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
	return fclose(f) ? -errno : 0;
}

/* ---- incident report ------------------------------------------------------------------ */

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

static int write_data(struct scn_result *r, double t0)
{
	char path[PATH_MAX + 32];
	struct linkvote lv[64];
	size_t nlv = 0, i;
	json_t *w, *v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/windows.dat", r->dir);
	if (!(f = fopen(path, "we")))
		return -errno;
	fprintf(f, "# t_mid_s rnic_drop_pct switch_drop_pct net_p50_us net_p99_us net_p999_us "
		   "proc_p50_us proc_p99_us probes\n");
	json_array_foreach(r->windows, i, w)
	{
		json_t *net = json_object_get(w, "net_us"), *proc = json_object_get(w, "proc_us");
		double mid = (jnum(w, "start") + jnum(w, "end")) / 2 - t0;

		fprintf(f, "%.3f %.4f %.4f %.1f %.1f %.1f %.1f %.1f %.0f\n", mid,
			100 * jnum(w, "rnic_drop_rate"), 100 * jnum(w, "switch_drop_rate"),
			jnum(net, "p50"), jnum(net, "p99"), jnum(net, "p999"), jnum(proc, "p50"),
			jnum(proc, "p99"), jnum(w, "probes"));
		if (r->t_fault > 0 && jnum(w, "start") < r->t_revert &&
		    jnum(w, "end") > r->t_fault) {
			add_votes(lv, &nlv, ARRAY_SIZE(lv), json_object_get(w, "link_votes"),
				  false);
			add_votes(lv, &nlv, ARRAY_SIZE(lv), json_object_get(w, "slow_votes"), true);
		}
	}
	fclose(f);
	qsort(lv, nlv, sizeof(*lv), vote_cmp);
	snprintf(path, sizeof(path), "%s/votes.dat", r->dir);
	if (!(f = fopen(path, "we")))
		return -errno;
	fprintf(f, "# rank link drop_votes high_latency_votes (fault window)\n");
	for (i = 0; i < nlv && i < 8; i++)
		fprintf(f, "%zu \"%s\" %.0f %.0f\n", i, lv[i].name, lv[i].votes, lv[i].slow);
	if (!nlv)
		fprintf(f, "0 \"(no votes)\" 0 0\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/verdicts.dat", r->dir);
	if (!(f = fopen(path, "we")))
		return -errno;
	fprintf(f, "# t_s label\n");
	json_array_foreach(r->verdicts, i, v)
	    fprintf(f, "%.3f \"%s %s\"\n", jnum(v, "time") - t0,
		    json_string_value(json_object_get(v, "class")),
		    json_string_value(json_object_get(v, "target")));
	fclose(f);
	return 0;
}

static int plot(struct scn_result *r, double t0)
{
	char gp[PATH_MAX + 32], log[PATH_MAX + 32], t[512];
	const char *argv[] = {"/usr/bin/gnuplot", gp, NULL};
	FILE *f;
	int rc;

	snprintf(gp, sizeof(gp), "%s/report.gp", r->dir);
	snprintf(log, sizeof(log), "%s/gnuplot.log", r->dir);
	if (!(f = fopen(gp, "we")))
		return -errno;
	fprintf(f, "# rocelab incident report of scenario %s (run: gnuplot report.gp)\n",
		r->s->name);
	fprintf(f, "set terminal pngcairo size 1200,1000 font 'Sans,10'\n");
	fprintf(f, "cd '%s'\nset output 'report.png'\n", r->dir);
	fprintf(f, "set multiplot layout 3,1 title \"%s: %s%s%s\" font 'Sans,13'\n",
		report_xml_escape(r->s->name, t, sizeof(t)), run_verdict_name(r->verdict),
		r->reason[0] ? " - " : "", r->reason);
	fprintf(f, "set grid\nset key outside right top\nset xrange [0:%.1f]\n", r->t_end - t0);
	if (r->t_fault > 0)
		fprintf(f,
			"set object 1 rect from %.3f, graph 0 to %.3f, graph 1 behind "
			"fc rgb '#ffd8d8' fs solid 0.6 noborder\n",
			r->t_fault - t0, r->t_revert - t0);
	fprintf(f, "set title 'drop rate per window (fault window shaded; verdicts marked)'\n");
	fprintf(f, "set ylabel 'drops (%% of probes)'\nset xlabel 'time since start (s)'\n");
	fprintf(f, "plot 'windows.dat' using 1:2 with linespoints lw 2 title 'RNIC drops', "
		   "'' using 1:3 with linespoints lw 2 title 'switch-network drops', "
		   "'verdicts.dat' using 1:(0) with points pt 9 ps 1.8 lc rgb '#a00000' "
		   "title 'verdict (listed in report.html)'\n");
	fprintf(f, "set title 'latency per window'\nset ylabel 'microseconds'\nset logscale y\n");
	fprintf(f, "plot 'windows.dat' using 1:4 with lines lw 2 title 'network P50', "
		   "'' using 1:5 with lines lw 2 title 'network P99', "
		   "'' using 1:6 with lines title 'network P99.9', "
		   "'' using 1:7 with lines dt 2 lw 2 title 'processing P50', "
		   "'' using 1:8 with lines dt 2 title 'processing P99'\n");
	fprintf(f, "unset logscale y\nunset object 1\nunset xrange\n");
	fprintf(f, "set title 'votes per link during the fault (Algorithm 1)'\n");
	fprintf(f, "set style data histograms\nset style histogram rowstacked\n"
		   "set style fill solid 0.8 border -1\nset boxwidth 0.6\n"
		   "set xtics rotate by 20 right font 'Sans,8'\nset xlabel ''\nset ylabel "
		   "'abnormal probes'\n");
	fprintf(f, "plot 'votes.dat' using 3:xtic(2) title 'drops' lc rgb '#c03030', "
		   "'' using 4 title 'high latency' lc rgb '#3060c0'\n");
	fprintf(f, "unset multiplot\n");
	fclose(f);
	if (access(argv[0], X_OK)) {
		rl_warn("run: gnuplot is not installed; %s/report.png not drawn ('make deps')",
			r->dir);
		return -ENOENT;
	}
	rc = proc_run(argv, NULL, log);
	if (rc)
		rl_warn("run: gnuplot failed (%d), see %s", rc, log);
	return rc ? -EIO : 0;
}

static void html(struct scn_result *r, bool png)
{
	char path[PATH_MAX + 32], a[1024], b[1024];
	const struct scenario *s = r->s;
	FILE *f;
	size_t i;
	json_t *v;

	snprintf(path, sizeof(path), "%s/report.html", r->dir);
	if (!(f = fopen(path, "we")))
		return;
	fprintf(
	    f,
	    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>rocelab: %s</title>\n"
	    "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 10px;text-align:left}"
	    ".pass{color:#070}.fail{color:#b00}.invalid{color:#a60}</style></head><body>\n",
	    report_xml_escape(r->test_name, a, sizeof(a)));
	fprintf(f, "<h1>%s: <span class=\"%s\">%s</span></h1>\n", a, run_verdict_name(r->verdict),
		run_verdict_name(r->verdict));
	if (r->reason[0])
		fprintf(f, "<p>%s</p>\n", report_xml_escape(r->reason, a, sizeof(a)));
	if (s->description)
		fprintf(f, "<p><i>%s</i></p>\n", report_xml_escape(s->description, a, sizeof(a)));
	fprintf(f, "<table>\n");
	for (i = 0; i < s->n_faults; i++)
		fprintf(f, "<tr><th>fault</th><td>%s %s</td></tr>\n",
			fault_kind_name(s->faults[i].kind),
			report_xml_escape(s->faults[i].target, a, sizeof(a)));
	fprintf(f, "<tr><th>evidence</th><td>%s</td></tr>\n",
		report_xml_escape(r->evidence, a, sizeof(a)));
	if (r->emulated)
		fprintf(f, "<tr><th>emulated</th><td>%s</td></tr>\n",
			report_xml_escape(r->note, a, sizeof(a)));
	fprintf(f, "<tr><th>expected</th><td>%s</td></tr>\n",
		s->expect.silent ? "no verdict" : report_xml_escape(s->expect.cls, a, sizeof(a)));
	if (!s->expect.silent)
		fprintf(f, "<tr><th>true target</th><td>%s (top-%d)</td></tr>\n",
			report_xml_escape(s->expect.target, a, sizeof(a)), s->expect.top_k);
	fprintf(f, "<tr><th>detected</th><td>%s", r->detected ? "yes" : "no");
	if (r->detected)
		fprintf(f, ", after %.1f s", r->time_to_detect_s);
	fprintf(f, "</td></tr>\n<tr><th>localized</th><td>%s (rank %d, class %s)</td></tr>\n",
		r->localized ? "yes" : "no", r->rank, r->class_ok ? "right" : "wrong");
	fprintf(f, "<tr><th>false positives</th><td>%d</td></tr>\n", r->false_positives);
	fprintf(f,
		"<tr><th>probes</th><td>%llu (%llu timed out), transport %s, timestamps %s"
		"</td></tr>\n</table>\n",
		r->probes, r->timeouts, s->agent.transport->name, r->timestamps);
	if (png)
		fprintf(
		    f,
		    "<p><img src=\"report.png\" alt=\"incident timeline\" width=\"1200\"></p>\n");
	else
		fprintf(f,
			"<p>(no plot: gnuplot did not run; data in windows.dat, votes.dat)</p>\n");
	fprintf(f, "<h2>verdicts</h2>\n<table><tr><th>t (s)</th><th>class</th><th>target</th>"
		   "<th>votes</th></tr>\n");
	json_array_foreach(r->verdicts, i, v)
	{
		if (i >= 200) {
			fprintf(f, "<tr><td colspan=4>... %zu more in analyzer.jsonl</td></tr>\n",
				json_array_size(r->verdicts) - i);
			break;
		}
		fprintf(
		    f, "<tr><td>%.1f</td><td>%s</td><td>%s</td><td>%.0f</td></tr>\n",
		    jnum(v, "time") - r->t_start,
		    report_xml_escape(json_string_value(json_object_get(v, "class")), a, sizeof(a)),
		    report_xml_escape(json_string_value(json_object_get(v, "target")), b,
				      sizeof(b)),
		    jnum(v, "votes"));
	}
	fprintf(f, "</table>\n<p>Files: analyzer.jsonl (windows, verdicts), agent-*.log, "
		   "inject.log, report.gp</p>\n</body></html>\n");
	fclose(f);
}

int report_incident(const struct run_info *ri, struct scn_result *r)
{
	int ret;

	(void)ri;
	if (rl_mkdir_p(r->dir, 0755))
		return -errno;
	ret = write_data(r, r->t_start);
	if (!ret)
		ret = plot(r, r->t_start);
	html(r, ret == 0);
	return ret;
}
