// SPDX-License-Identifier: MIT
/* Report pages: plots inlined (and again after a redraw), the suite index, the trend page. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/seal.h"
#include "reports/pages.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/rocelab-pages-test.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	rl_rm_rf(dir);
}

TestSuite(pages, .init = setup, .fini = teardown);

static void put(const char *name, const char *text)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	cr_assert_eq(rl_write_file_mode(p, text, strlen(text), 0644), 0);
}

static char *get(const char *name)
{
	char p[PATH_MAX], *t;
	size_t len;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	cr_assert_not_null(t = rl_read_file(p, &len), "%s", p);
	return t;
}

/* put() of n bytes: a PNG's signature, then text. */
static void put_png(const char *name, const char *text)
{
	char p[PATH_MAX], buf[256];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "\x89PNG\r\n\x1a\n%s", text);

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	cr_assert_eq(rl_write_file_mode(p, buf, n, 0644), 0);
}

Test(pages, plots_beside_the_page_are_inlined_and_inlined_again_after_a_redraw)
{
	char p[PATH_MAX], *h;

	put_png("plot.png", "abc"); /* base64 iVBORw0KGgphYmM= */
	put_png("other.png", "xy");
	put("r.html", "<p><img src=\"plot.png\" alt=\"t\" width=\"9\"></p>\n"
		      "<img src=\"../etc/x.png\"><img src=\"missing.png\" alt=\"m\">"
		      "<img src=\"other.png\">\n");
	snprintf(p, sizeof(p), "%s/r.html", dir);
	cr_assert_eq(pages_inline_images(p), 0);
	h = get("r.html");
	cr_assert(strstr(h, "<p><img data-file=\"plot.png\" src=\"data:image/png;base64,"
			    "iVBORw0KGgphYmM=\" alt=\"t\" width=\"9\"></p>\n"),
		  "%s", h);
	cr_assert(strstr(h, "<img src=\"../etc/x.png\"><img src=\"missing.png\" alt=\"m\">"), "%s",
		  h);
	cr_assert(strstr(h, "<img data-file=\"other.png\" src=\"data:image/png;base64,"
			    "iVBORw0KGgp4eQ==\">"),
		  "%s", h);
	free(h);
	/* gnuplot drew the plot again: the page takes its new bytes, and stays well formed. */
	put_png("plot.png", "abcd");
	cr_assert_eq(pages_inline_images(p), 0);
	h = get("r.html");
	cr_assert(strstr(h, "<p><img data-file=\"plot.png\" src=\"data:image/png;base64,"
			    "iVBORw0KGgphYmNk\" alt=\"t\" width=\"9\"></p>\n"),
		  "%s", h);
	cr_assert_null(strstr(h, "YmM=\""), "%s", h);
	free(h);
}

/*
 * A results folder is anyone's (issue 56): a plot that is a link to another file,
 * or not a PNG, is never read into the page; a page that is a link is replaced,
 * never written through.
 */
Test(pages, links_and_files_that_are_no_png_are_not_inlined_and_not_written_through)
{
	char p[PATH_MAX], target[PATH_MAX], *h, *t;

	put_png("secret", "root-only"); /* a PNG's signature, to tempt it */
	snprintf(target, sizeof(target), "%s/secret", dir);
	snprintf(p, sizeof(p), "%s/linked.png", dir);
	cr_assert_eq(symlink(target, p), 0);
	put("text.png", "not a png");
	put("victim", "untouched");
	snprintf(target, sizeof(target), "%s/victim", dir);
	snprintf(p, sizeof(p), "%s/r.html", dir);
	put("page.html", "<img src=\"linked.png\"><img src=\"text.png\"><img src=\".x.png\">");
	cr_assert_eq(symlink(target, p), 0);
	cr_assert_eq(pages_inline_images(p), -ELOOP, "a page that is a link is not read");
	snprintf(p, sizeof(p), "%s/page.html", dir);
	cr_assert_eq(pages_inline_images(p), 0);
	h = get("page.html");
	cr_assert_null(strstr(h, "base64"), "%s", h);
	free(h);
	t = get("victim");
	cr_assert_str_eq(t, "untouched");
	free(t);
}

static json_t *results(void)
{
	return json_pack(
	    "{s:s,s:s,s:s,s:s,s:s,s:i,s:f,s:s,s:{s:{s:{s:s,s:{s:{s:s,s:s,s:n}}}},s:{s:{s:s,s:s,"
	    "s:s,s:n}}},s:[{s:s,s:s,s:s,s:f,s:i,s:f,s:i,s:{s:i},s:s},{s:s,s:s,s:s,s:n,s:n,s:n,s:i,"
	    "s:s}]}",
	    "run_id", "20261123T010000Z-abcd", "lab", "vlab-rail", "lab_kind", "vlab", "inventory",
	    "lab.yaml", "inventory_sha256", "0123456789abcdef0123", "seed", 7, "started",
	    1795453175.0, "versions", "rocelab t", "dut", "hosts", "host1", "kernel", "6.1.0",
	    "rnics", "rnic1", "netdev", "rnic1", "driver", "veth", "firmware", "switches", "rail1",
	    "dialect", "linux", "nos", "Linux", "version", "6.1.0", "model", "scenarios", "name",
	    "rnic-flap", "verdict", "pass", "reason", "", "time_to_detect_s", 2.04, "rank", 1,
	    "precision", 0.8, "false_positives", 0, "incidents", "during_fault", 1, "report",
	    "rnic-flap/report.html", "name", "acl<x>", "verdict", "fail", "reason",
	    "not detected: no verdict during the fault", "time_to_detect_s", "rank", "precision",
	    "false_positives", 2, "report", "acl/report.html");
}

Test(pages, the_suite_index_lists_each_scenario_with_its_grade_and_the_devices)
{
	json_t *root = results();
	char *h;

	cr_assert_eq(pages_suite_index(dir, root), 0);
	json_decref(root);
	h = get("index.html");
	cr_assert(strstr(h, "<h1>run 20261123T010000Z-abcd: <span class=\"fail\">1 of 2 passed"),
		  "%s", h);
	cr_assert(
	    strstr(
		h,
		"<tr><td><a href=\"rnic-flap/report.html\">rnic-flap</a></td><td "
		"class=\"pass\">pass</td><td>2.0</td><td>1</td><td>0.80</td><td>1</td><td>0</td>"),
	    "%s", h);
	cr_assert(strstr(h, ">acl&lt;x&gt;</a></td><td class=\"fail\">fail</td><td>-</td><td>-"
			    "</td><td>-</td><td>-</td><td>2</td><td>not detected"),
		  "%s", h);
	cr_assert(strstr(h, "<tr><th>host1</th><td>kernel 6.1.0<br>rnic1 (rnic1): driver veth"
			    "</td></tr>"),
		  "%s", h);
	cr_assert(strstr(h, "<tr><th>rail1</th><td>Linux 6.1.0</td></tr>"), "%s", h);
	free(h);
}

/* run --retries: a pass on a later run says flaky in its row, a failure on every run says so. */
Test(pages, the_suite_index_says_which_passed_only_on_a_later_run)
{
	json_t *root = results(), *sc = json_object_get(root, "scenarios");
	char *h;

	json_object_set_new(json_array_get(sc, 0), "attempts", json_integer(2));
	json_object_set_new(json_array_get(sc, 1), "attempts", json_integer(3));
	cr_assert_eq(pages_suite_index(dir, root), 0);
	json_decref(root);
	h = get("index.html");
	cr_assert(strstr(h, "<td>(flaky: passed on the last of 2 runs)</td></tr>"), "%s", h);
	cr_assert(
	    strstr(h, "<td>not detected: no verdict during the fault (failed all 3 runs)</td>"),
	    "%s", h);
	free(h);
}

/* One monitor's section of a scenario, as results.json has it. */
static json_t *mon(const char *verdict, const char *cls, bool silent, bool detected, int rank,
		   double ttd, double prec, int fp, double cover, double probes, double rss)
{
	json_t *c =
	    json_pack("{s:s,s:b,s:i,s:b,s:i,s:{s:s,s:b},s:{s:s,s:s}}", "verdict", verdict,
		      "detected", detected, "rank", rank, "class_ok", rank == 1, "false_positives",
		      fp, "expected", "class", cls, "silent", silent, "got", "class",
		      detected ? "rnic" : "", "target", detected ? "host1:rnic1" : "");

	json_object_set_new(c, "time_to_detect_s", detected ? json_real(ttd) : json_null());
	json_object_set_new(c, "precision", prec >= 0 ? json_real(prec) : json_null());
	json_object_set_new(c, "metrics",
			    json_pack("{s:{s:f,s:s},s:{s:f,s:s},s:{s:f,s:s}}", "link-coverage",
				      "value", cover, "unit", "share", "probes-per-rnic", "value",
				      probes, "unit", "probes/s", "agent-rss", "value", rss, "unit",
				      "MB"));
	return c;
}

Test(pages, monitors_side_by_side_per_suite_from_their_sections)
{
	/* A fault both find (R-Pingmesh later), one only Hostmesh finds, a fault-free run; a
	 * transport graded on metrics is no monitor. */
	json_t *sc = json_pack(
	    "[{s:s,s:s,s:{s:o,s:o,s:{s:s,s:{s:s,s:b}}}},"
	    "{s:s,s:s,s:{s:o,s:o}},{s:s,s:s,s:{s:o,s:o}},{s:s,s:s,s:{s:o}}]",
	    "name", "rnic-flap", "suite", "ci", "components", "hostmesh",
	    mon("pass", "rnic", false, true, 1, 2.0, 1.0, 0, 0.5, 80, 6.5), "rpingmesh",
	    mon("pass", "rnic", false, true, 1, 4.0, 0.5, 1, 1.0, 250, 7.5), "mprdma", "verdict",
	    "pass", "expected", "class", "", "silent", false, "name", "acl-intra-host", "suite",
	    "ci", "components", "hostmesh",
	    mon("pass", "switch", false, true, 1, 3.0, 1.0, 0, 0.5, 80, 6.9), "rpingmesh",
	    mon("pass", "", true, false, 0, 0, -1, 0, 1.0, 250, 7.0), "name", "no-fault", "suite",
	    "ci", "components", "hostmesh", mon("fail", "", true, true, 0, 0, -1, 2, 0.5, 80, 6.5),
	    "rpingmesh", mon("pass", "", true, false, 0, 0, -1, 0, 1.0, 250, 7.0), "name", "other",
	    "suite", "nightly", "components", "hostmesh",
	    mon("pass", "rnic", false, true, 1, 1.0, 1.0, 0, 0.5, 80, 6.5));
	json_t *m = pages_monitors(sc), *hm, *rp, *root;
	char *h;

	cr_assert_not_null(m);
	cr_assert_eq(json_object_size(m), 2); /* ci, nightly */
	cr_assert_eq(json_array_size(json_object_get(json_object_get(m, "ci"), "monitors")), 2,
		     "the transport is no monitor");
	hm = json_object_get(json_object_get(m, "ci"), "hostmesh");
	rp = json_object_get(json_object_get(m, "ci"), "rpingmesh");
	cr_assert_eq(json_integer_value(json_object_get(hm, "scenarios")), 3);
	cr_assert_eq(json_integer_value(json_object_get(hm, "passed")), 2);
	cr_assert_eq(json_integer_value(json_object_get(hm, "faults")), 2);
	cr_assert_eq(json_integer_value(json_object_get(hm, "detected")), 2);
	cr_assert_eq(json_integer_value(json_object_get(hm, "silent_expected")), 1);
	cr_assert_eq(json_integer_value(json_object_get(hm, "silent_kept")), 0);
	cr_assert_eq(json_integer_value(json_object_get(hm, "false_positives")), 2);
	cr_assert_float_eq(json_real_value(json_object_get(hm, "time_to_detect_mean_s")), 2.5,
			   1e-9);
	cr_assert_eq(json_integer_value(json_object_get(rp, "faults")), 1);
	cr_assert_eq(json_integer_value(json_object_get(rp, "silent_kept")), 2);
	cr_assert_float_eq(json_real_value(json_object_get(rp, "time_to_detect_max_s")), 4.0, 1e-9);
	cr_assert_float_eq(json_real_value(json_object_get(rp, "precision_mean")), 0.5, 1e-9);
	cr_assert_float_eq(json_real_value(json_object_get(rp, "link_coverage_mean")), 1.0, 1e-9);
	cr_assert_float_eq(
	    json_real_value(json_object_get(json_object_get(rp, "overhead"), "probes_s")), 250,
	    1e-9);
	cr_assert_float_eq(
	    json_real_value(json_object_get(json_object_get(hm, "overhead"), "agent_rss_mb")), 6.9,
	    1e-9, "RSS: the worst");
	cr_assert(json_is_null(json_object_get(json_object_get(hm, "overhead"), "bytes_s")));
	/* The index shows the suite's table and each scenario's monitors, one suite of one
	 * monitor not. */
	root = results();
	json_object_set_new(root, "scenarios", sc);
	json_object_set_new(root, "monitors", m);
	cr_assert_eq(pages_suite_index(dir, root), 0);
	json_decref(root);
	h = get("index.html");
	cr_assert(strstr(h, "<h2>monitors side by side: suite ci</h2>"), "%s", h);
	cr_assert(!strstr(h, "suite nightly"), "%s", h);
	cr_assert(strstr(h, "<tr><th>faults detected</th><td>2 of 2</td><td>1 of 1</td></tr>"),
		  "%s", h);
	cr_assert(strstr(h, "<tr><th>silent where expected</th><td>0 of 1</td><td>2 of 2</td>"),
		  "%s", h);
	cr_assert(strstr(h, "<tr><td>acl-intra-host</td><td class=\"pass\">rnic host1:rnic1 "
			    "(3.0 s)</td><td class=\"pass\">silent</td></tr>"),
		  "%s", h);
	free(h);
}

Test(pages, the_trend_page_draws_a_plot_per_scenario_inlined)
{
	json_t *runs = json_pack("[{s:s,s:f,s:s,s:i,s:i,s:i,s:s}]", "run_id", "r2", "started",
				 1795453175.0, "lab", "vlab-rail", "passed", 1, "failed", 1,
				 "invalid", 0, "outdir", "/results/r2");
	json_t *per = json_pack("{s:[{s:f,s:s,s:f,s:i},{s:f,s:s,s:n,s:i}]}", "rnic-flap", "started",
				1795400000.0, "verdict", "pass", "time_to_detect_s", 2.0,
				"false_positives", 0, "started", 1795453175.0, "verdict", "fail",
				"time_to_detect_s", "false_positives", 3);
	char err[512], sub[PATH_MAX], *h, *dat;
	size_t len;

	snprintf(sub, sizeof(sub), "%s/trends", dir);
	cr_assert_eq(pages_trends(sub, runs, per, err, sizeof(err)), 0, "%s", err);
	json_decref(runs);
	json_decref(per);
	h = get("trends/index.html");
	cr_assert(strstr(h, "<h2>rnic-flap</h2>\n<p><img data-file=\"trend-rnic-flap.png\" "
			    "src=\"data:image/png;base64,iVBORw0KGgo"),
		  "the trend is a PNG, inlined: %.300s", h);
	cr_assert(strstr(h, "<a href=\"file:///results/r2/index.html\">"), "%.2000s", h);
	free(h);
	dat = get("trends/trend-rnic-flap.dat");
	/* Oldest first, a run without a detection as gnuplot's missing value. */
	cr_assert(strstr(dat, "\n1 11-23T02:13 2.000 0 1\n2 11-23T16:59 - 3 0\n"), "%s", dat);
	free(dat);
	snprintf(sub, sizeof(sub), "%s/trends/gnuplot.log", dir);
	free(rl_read_file(sub, &len));
}

Test(pages, report_redraws_only_folders_inside_the_results_folder)
{
	char err[512], res[PATH_MAX];
	int n;

	/* A results.json naming a folder outside it, with a plot there: nothing is drawn. */
	cr_assert_eq(rl_mkdir_p(strcat(strcpy(res, dir), "/res"), 0755), 0);
	cr_assert_eq(rl_mkdir_p(strcat(strcpy(err, dir), "/out#2"), 0755), 0);
	put("out#2/report.gp", "set terminal pngcairo\nset output 'drawn.png'\nplot x\n");
	put("res/results.json", "{\"run_id\": \"x\", \"scenarios\": [{\"name\": \"../out#2\"}, "
				"{\"name\": \"a/b\"}, {\"name\": \"ok#x\"}]}");
	cr_assert_eq(n = pages_rerender(res, err, sizeof(err)), 0, "%d %s", n, err);
	snprintf(res, sizeof(res), "%s/out#2/drawn.png", dir);
	cr_assert_neq(access(res, F_OK), 0, "a plot outside the results folder was drawn");
}

/* Fields of a results.json that someone else wrote reach the index as text, never as markup. */
Test(pages, hostile_fields_of_a_results_folder_are_text_on_the_index)
{
	json_t *root = results(), *s0 = json_array_get(json_object_get(root, "scenarios"), 0);
	char p[PATH_MAX], target[PATH_MAX], *h;

	json_object_set_new(s0, "verdict", json_string("\"><script>alert(1)</script>"));
	json_object_set_new(s0, "report", json_string("javascript:alert(1)//x/report.html"));
	json_object_set_new(root, "lab_kind", json_string("<b>k</b>"));
	json_object_set_new(root, "inventory_sha256", json_string("<img src=x onerror=y>"));
	/* index.html planted as a link: replaced, the file it named untouched */
	put("victim", "untouched");
	snprintf(target, sizeof(target), "%s/victim", dir);
	snprintf(p, sizeof(p), "%s/index.html", dir);
	cr_assert_eq(symlink(target, p), 0);
	cr_assert_eq(pages_suite_index(dir, root), 0);
	json_decref(root);
	h = get("index.html");
	cr_assert_null(strstr(h, "<script"), "%s", h);
	cr_assert_null(strstr(h, "<b>"), "%s", h);
	cr_assert_null(strstr(h, "<img"), "%s", h);
	cr_assert_null(strstr(h, "javascript:"), "not linked: %s", h);
	cr_assert(strstr(h, "<tr><td>rnic-flap</td><td class=\"invalid\">&quot;&gt;&lt;script"),
		  "%s", h);
	free(h);
	h = get("victim");
	cr_assert_str_eq(h, "untouched");
	free(h);
}

/* A plot script someone planted in a results folder never runs; rocelab's own, sealed, does. */
Test(pages, report_runs_only_the_plot_scripts_rocelab_sealed)
{
	char err[512], p[PATH_MAX], lib[PATH_MAX], marker[PATH_MAX], *h;
	int n;

	snprintf(lib, sizeof(lib), "%s/lib", dir);
	setenv("ROCELAB_LIB_DIR", lib, 1);
	snprintf(marker, sizeof(marker), "%s/ran", dir);
	cr_assert_eq(rl_mkdir_p(strcat(strcpy(p, dir), "/planted"), 0755), 0);
	cr_assert_eq(rl_mkdir_p(strcat(strcpy(p, dir), "/sealed"), 0755), 0);
	cr_assert_eq(rl_mkdir_p(strcat(strcpy(p, dir), "/.."), 0755), 0);
	snprintf(p, sizeof(p),
		 "set terminal pngcairo\nset output 'report.png'\n!touch %s\n"
		 "print system('touch %s')\nplot x\n",
		 marker, marker);
	put("planted/report.gp", p);
	put("planted/report.gp.seal", "hmac-sha256 00\n");
	put("sealed/report.gp", "set terminal pngcairo size 200,100\nset output 'report.png'\n"
				"plot 'windows.dat' using 1:2 with lines\n");
	put("sealed/windows.dat", "0 1\n1 2\n");
	put("sealed/report.html", "<img src=\"report.png\">");
	snprintf(p, sizeof(p), "%s/sealed/report.gp", dir);
	cr_assert_eq(seal_file(p), 0);
	put("results.json", "{\"run_id\": \"x\", \"scenarios\": [{\"name\": \"planted\"}, "
			    "{\"name\": \"sealed\"}, {\"name\": \"..\"}]}");
	cr_assert_eq(n = pages_rerender(dir, err, sizeof(err)), 1, "%d %s", n, err);
	cr_assert_neq(access(marker, F_OK), 0, "the planted script ran");
	snprintf(p, sizeof(p), "%s/planted/report.png", dir);
	cr_assert_neq(access(p, F_OK), 0, "the planted script drew");
	h = get("sealed/report.html");
	cr_assert(strstr(h, "src=\"data:image/png;base64,iVBORw0KGgo"), "redrawn, inlined: %.200s",
		  h);
	free(h);
	/* one byte changed after sealing: no longer rocelab's */
	put("sealed/report.gp", "set terminal pngcairo size 201,100\nset output 'report.png'\n"
				"plot 'windows.dat' using 1:2 with lines\n");
	cr_assert_eq(n = pages_rerender(dir, err, sizeof(err)), 0, "%d %s", n, err);
	unsetenv("ROCELAB_LIB_DIR");
}

/* A scenario named with ':' links as ./NAME/report.html: "x:y/..." would read as scheme x. */
Test(pages, a_report_link_never_reads_as_a_scheme)
{
	json_t *root = results(), *s0 = json_array_get(json_object_get(root, "scenarios"), 0);
	char *h;

	json_object_set_new(s0, "report", json_string("javascript:x/report.html"));
	cr_assert_eq(pages_suite_index(dir, root), 0);
	json_decref(root);
	h = get("index.html");
	cr_assert(strstr(h, "<a href=\"./javascript:x/report.html\">"), "%s", h);
	cr_assert_null(strstr(h, "href=\"javascript:"), "%s", h);
	free(h);
}
