// SPDX-License-Identifier: MIT
/* Report pages: plots inlined (and again after a redraw), the suite index, the trend page. */
#define _GNU_SOURCE
#include "harness/component/component.h"
#include "harness/lib/common.h"
#include "harness/lib/proc.h"
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
	json_t *root = results(), *sc = json_object_get(root, "scenarios");
	char *h, *pass, *fail;

	/* what ran, what was expected and got, and each one's last good run (the history's) */
	json_object_set_new(json_array_get(sc, 0), "faults",
			    json_pack("[{s:s,s:s}]", "kind", "rnic-flap", "target", "host1:rnic1"));
	json_object_set_new(json_array_get(sc, 0), "expected",
			    json_pack("{s:s,s:s,s:f,s:b}", "class", "rnic", "target", "host1:rnic1",
				      "within_s", 8.0, "silent", 0));
	json_object_set_new(json_array_get(sc, 0), "got",
			    json_pack("{s:s,s:s}", "class", "rnic", "target", "host1:rnic1"));
	json_object_set_new(json_array_get(sc, 0), "last_good",
			    json_pack("{s:s,s:f,s:f}", "run_id", "20261122T010000Z-aaaa", "started",
				      1795366775.0, "time_to_detect_s", 1.5));
	json_object_set_new(json_array_get(sc, 1), "faults",
			    json_pack("[{s:s,s:s}]", "kind", "acl-error", "target", "rail1:swp5"));
	json_object_set_new(json_array_get(sc, 1), "expected",
			    json_pack("{s:s,s:s,s:f,s:b}", "class", "switch-link", "target",
				      "rail1:swp5", "within_s", 6.0, "silent", 0));
	json_object_set_new(json_array_get(sc, 1), "last_good",
			    json_pack("{s:s,s:f,s:f}", "run_id", "20261122T010000Z-aaaa", "started",
				      1795366775.0, "time_to_detect_s", 3.25));
	cr_assert_eq(pages_suite_index(dir, root), 0);
	json_decref(root);
	h = get("index.html");
	cr_assert(strstr(h, "<h1>run 20261123T010000Z-abcd: <span class=\"fail\">1 of 2 passed"),
		  "%s", h);
	cr_assert(strstr(h, "<p class=\"fail\">1 did not pass: first below.</p>"), "%s", h);
	pass = strstr(
	    h, "<tr><td><a href=\"rnic-flap/report.html\">rnic-flap</a></td><td "
	       "class=\"pass\">pass</td><td>rnic-flap host1:rnic1</td><td>rnic on host1:rnic1</td>"
	       "<td>rnic host1:rnic1</td><td class=\"pass\">2.0 of 8 s</td><td>1</td><td>0.80</td>"
	       "<td>0</td><td><span class=\"pass\">+0.5 s</span> against 20261122T010000Z-aaaa"
	       "</td>");
	fail =
	    strstr(h, ">acl&lt;x&gt;</a></td><td class=\"fail\">fail</td><td>acl-error "
		      "rail1:swp5</td><td>switch-link on rail1:swp5</td><td>-</td><td "
		      "class=\"fail\">not detected (6 s)</td><td>-</td><td>-</td><td>2</td><td>"
		      "passed in 20261122T010000Z-aaaa (2026-11-22 16:59 UTC), detected after 3.2 "
		      "s</td><td>not detected");
	cr_assert(pass, "%s", h);
	cr_assert(fail, "%s", h);
	cr_assert(fail < pass, "the failure is not first: %s", h);
	cr_assert(strstr(h, "<tr><th>host1</th><td>kernel 6.1.0<br>rnic1 (rnic1): driver veth"
			    "</td></tr>"),
		  "%s", h);
	cr_assert(strstr(h, "<tr><th>rail1</th><td>Linux 6.1.0</td></tr>"), "%s", h);
	free(h);
}

/* Without a history no last good run; one that never passed here says so. */
Test(pages, the_suite_index_says_when_a_scenario_never_passed_on_the_lab)
{
	json_t *root = results(), *sc = json_object_get(root, "scenarios");
	char *h;

	json_object_set_new(json_array_get(sc, 1), "last_good", json_null());
	cr_assert_eq(pages_suite_index(dir, root), 0);
	json_decref(root);
	h = get("index.html");
	cr_assert(strstr(h, "<td>never passed on this lab</td><td>not detected"), "%s", h);
	cr_assert(strstr(h, "<td>0</td><td>-</td><td></td></tr>"), "no history: %s", h);
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

/*
 * A scenario run as variants: the suite's page links its side-by-side page once, from the
 * first variant; a name that is not a scenario's (a results folder is untrusted) is not.
 */
Test(pages, the_suite_index_links_each_scenario_run_as_variants_side_by_side)
{
	json_t *root = results(), *sc = json_object_get(root, "scenarios");
	char *h;

	json_object_set_new(json_array_get(sc, 0), "variant",
			    json_pack("{s:s,s:s,s:i,s:i}", "of", "baselines-lossy", "name", "gbn",
				      "index", 1, "count", 2));
	json_object_set_new(json_array_get(sc, 1), "variant",
			    json_pack("{s:s,s:s,s:i,s:i}", "of", "baselines-lossy", "name", "irn",
				      "index", 2, "count", 2));
	cr_assert_eq(pages_suite_index(dir, root), 0);
	h = get("index.html");
	cr_assert(strstr(h, "<h2>variants side by side</h2>\n<ul>\n<li><a "
			    "href=\"baselines-lossy.variants/index.html\">baselines-lossy</a>: 2 "
			    "variants, one plot</li>\n</ul>"),
		  "%s", h);
	cr_assert_null(strstr(strstr(h, "</ul>") + 5, "variants/index.html"), "once: %s", h);
	free(h);
	json_object_set_new(json_object_get(json_array_get(sc, 0), "variant"), "of",
			    json_string("x\"><script>alert(1)</script>"));
	cr_assert_eq(pages_suite_index(dir, root), 0);
	json_decref(root);
	h = get("index.html");
	cr_assert_null(strstr(h, "variants side by side"), "%s", h);
	cr_assert_null(strstr(h, "<script>"), "%s", h);
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
	json_object_set_new(s0, "faults",
			    json_pack("[{s:s,s:s}]", "kind", "<i>k", "target", "</td>"));
	json_object_set_new(s0, "expected",
			    json_pack("{s:s,s:s}", "class", "<b>x", "target", "</tr>"));
	json_object_set_new(s0, "got", json_pack("{s:s,s:s}", "class", "<u>", "target", "<s>"));
	json_object_set_new(s0, "last_good",
			    json_pack("{s:s,s:s}", "run_id", "<a href=x>", "started", "x"));
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
	/* a verdict is one of three, whatever the file says */
	cr_assert(strstr(h, "<tr><td>rnic-flap</td><td class=\"invalid\">invalid</td>"), "%s", h);
	cr_assert(strstr(h, "<td>&lt;i&gt;k &lt;/td&gt;</td><td>&lt;b&gt;x on &lt;/tr&gt;</td>"
			    "<td>&lt;u&gt; &lt;s&gt;</td>"),
		  "%s", h);
	cr_assert(strstr(h, "passed in &lt;a href=x&gt;"), "%s", h);
	free(h);
	h = get("victim");
	cr_assert_str_eq(h, "untouched");
	free(h);
}

/* A plot's description as a run writes it (Hostmesh's: vmax), these keys given. */
static void put_desc(const char *name, const char *comp, const char *title, const char *vmax,
		     const char *png)
{
	char p[2048];

	snprintf(p, sizeof(p),
		 "{\"rocelab_plot\": 1, \"component\": \"%s\", \"png\": \"%s\", "
		 "\"title\": \"%s\", \"caption\": \"lab t\", \"times\": {\"start\": 100, \"end\": "
		 "130, \"fault\": 110, \"revert\": 120}, \"down\": [[111, 112]], \"params\": "
		 "{\"vmax\": %s}}",
		 comp, png, title, vmax);
	put(name, p);
}

/*
 * A results folder is anyone's (issue 56): a script planted in it never runs;
 * each plot is written again from its description, whatever text that holds.
 */
Test(pages, report_runs_no_script_it_finds_and_writes_each_from_its_description)
{
	char err[512], p[PATH_MAX], marker[PATH_MAX], title[512], *h;
	int n;

	if (access(PROC_GNUPLOT, X_OK))
		cr_skip_test("no gnuplot ('make deps')");
	snprintf(marker, sizeof(marker), "%s/ran", dir);
	cr_assert_eq(rl_mkdir_p(strcat(strcpy(p, dir), "/planted"), 0755), 0);
	cr_assert_eq(rl_mkdir_p(strcat(strcpy(p, dir), "/described"), 0755), 0);
	cr_assert_eq(rl_mkdir_p(strcat(strcpy(p, dir), "/.."), 0755), 0);
	snprintf(p, sizeof(p),
		 "set terminal pngcairo\nset output 'report.png'\n!touch %s\n"
		 "print system('touch %s')\nplot x\n",
		 marker, marker);
	/* a script with no description: named, not run */
	put("planted/report.gp", p);
	/* a script beside a description: replaced by the one the description gives */
	put("described/report.gp", p);
	snprintf(title, sizeof(title),
		 "x `touch %s` $(touch %s) \\\" ; system('touch %s') \\n!touch %s", marker, marker,
		 marker, marker);
	put_desc("described/report.plot.json", "hostmesh", title, "3", "report.png");
	put("described/windows.dat", "5 0 1 10 20 30 40 50 9\n15 0 5 10 20 30 40 50 9\n");
	put("described/votes.dat", "0 \"`touch x`\" 2 1\n");
	put("described/verdicts.dat", "15 \"switch-link $(touch y)\"\n");
	put("described/report.html", "<img src=\"report.png\">");
	put("results.json", "{\"run_id\": \"x\", \"scenarios\": [{\"name\": \"planted\"}, "
			    "{\"name\": \"described\"}, {\"name\": \"..\"}]}");
	cr_assert_eq(n = pages_rerender(dir, err, sizeof(err)), 1, "%d %s", n, err);
	cr_assert_neq(access(marker, F_OK), 0, "a planted script ran");
	snprintf(p, sizeof(p), "%s/planted/report.png", dir);
	cr_assert_neq(access(p, F_OK), 0, "the planted script drew");
	h = get("described/report.gp");
	cr_assert_null(strchr(h, '`'), "a backtick in the script written again: %s", h);
	cr_assert_null(strstr(h, "\n!"), "a line of the title began a command: %s", h);
	cr_assert(strstr(h, "set object 2 rect from 11.000"), "the description's down interval: %s",
		  h);
	cr_assert(strstr(h, "set yrange [0:4]"), "its vmax (3 * 1.08 + 1): %s", h);
	free(h);
	h = get("described/report.html");
	cr_assert(strstr(h, "src=\"data:image/png;base64,iVBORw0KGgo"), "redrawn, inlined: %.200s",
		  h);
	free(h);
}

/*
 * A monitor's plot whose windows have no point in its time (none closed in it,
 * or no latency measured) is drawn, saying so: gnuplot refuses to scale an
 * axis from no point, and no report was drawn when a window outlasted the run.
 */
Test(pages, a_plot_with_no_window_in_its_time_is_drawn_saying_so)
{
	static const char *const comp[][3] = {
	    {"hostmesh", "report.png", "windows.dat"},
	    {"rpingmesh", "report-rpingmesh.png", "rpingmesh-windows.dat"},
	};
	char err[512], p[PATH_MAX], *h;
	int n;

	if (access(PROC_GNUPLOT, X_OK))
		cr_skip_test("no gnuplot ('make deps')");
	cr_assert_eq(rl_mkdir_p(strcat(strcpy(p, dir), "/s"), 0755), 0);
	put("results.json", "{\"run_id\": \"x\", \"scenarios\": [{\"name\": \"s\"}]}");
	put("s/votes.dat", "0 \"(no votes)\" 0 0\n");
	put("s/verdicts.dat", "# none\n");
	put("s/rpingmesh-verdicts.dat", "# none\n");
	put("s/report.html", "<img src=\"report.png\"><img src=\"report-rpingmesh.png\">");
	for (size_t i = 0; i < ARRAY_SIZE(comp); i++) {
		/* the description as the run writes it when no window was drawn */
		snprintf(p, sizeof(p), "s/%.*s.plot.json", (int)strlen(comp[i][1]) - 4, comp[i][1]);
		put_desc(p, comp[i][0], "t", "0, \"windows\": false, \"latency\": false",
			 comp[i][1]);
		snprintf(p, sizeof(p), "s/%s", comp[i][2]);
		put(p, "# t_s ... (no window in the plot)\n");
	}
	cr_assert_eq(n = pages_rerender(dir, err, sizeof(err)), 1, "%d %s", n, err);
	for (size_t i = 0; i < ARRAY_SIZE(comp); i++) {
		snprintf(p, sizeof(p), "s/%.*s.gp", (int)strlen(comp[i][1]) - 4, comp[i][1]);
		h = get(p);
		cr_assert(strstr(h, "set yrange [0:1]\nset label 101 'no window of the analyzer"),
			  "%s", h);
		cr_assert(strstr(h, "set yrange [1:1000]\nset label 101 "), "%s", h);
		free(h);
		snprintf(p, sizeof(p), "%s/s/%s", dir, comp[i][1]);
		cr_assert_eq(access(p, F_OK), 0, "%s not drawn", p);
	}
}

/* A description that does not check is named and not drawn; nothing else changes. */
Test(pages, report_refuses_a_description_that_does_not_check)
{
	static const struct {
		const char *vmax, *png, *component;
	} bad[] = {
	    {"\"3\"", "report.png", "hostmesh"},		  /* vmax not a number */
	    {"1e300", "report.png", "hostmesh"},		  /* nor in range */
	    {"3", "../report.png", "hostmesh"},			  /* a path */
	    {"3", "report-x.png", "hostmesh"},			  /* another plot's */
	    {"3", "report.png", "no-such-component"},		  /* no component draws it */
	    {"3, \"windows\": \"no\"", "report.png", "hostmesh"}, /* a flag not one */
	};
	char err[512], p[PATH_MAX], *h;
	int n;

	cr_assert_eq(rl_mkdir_p(strcat(strcpy(p, dir), "/s"), 0755), 0);
	put("s/report.gp", "# as it was\n");
	put("results.json", "{\"run_id\": \"x\", \"scenarios\": [{\"name\": \"s\"}]}");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		put_desc("s/report.plot.json", bad[i].component, "t", bad[i].vmax, bad[i].png);
		cr_assert_eq(n = pages_rerender(dir, err, sizeof(err)), 0, "%zu: %d %s", i, n, err);
		h = get("s/report.gp");
		cr_assert_str_eq(h, "# as it was\n", "%zu", i);
		free(h);
		snprintf(p, sizeof(p), "%s/s/report.png", dir);
		cr_assert_neq(access(p, F_OK), 0, "%zu drew", i);
	}
}

/* The description's reader on its own: each key checked, the message names it. */
Test(pages, a_plot_description_says_which_key_is_wrong)
{
	static const struct {
		const char *text, *says;
	} cases[] = {
	    {"[]", "not a plot's description"},
	    {"{\"rocelab_plot\": 2}", "rocelab_plot"},
	    {"{\"rocelab_plot\": 1, \"component\": \"a b\"}", "component"},
	    {"{\"rocelab_plot\": 1, \"component\": \"c\", \"png\": \"a\\u0000.png\"}",
	     "not a plot's description"}, /* no NUL in any text */
	    {"{\"rocelab_plot\": 1, \"component\": \"c\", \"png\": \"a/b.png\"}", "png"},
	    {"{\"rocelab_plot\": 1, \"component\": \"c\", \"png\": \"a.png\", \"title\": \"t\", "
	     "\"caption\": \"c\", \"times\": {\"start\": 2, \"end\": 1, \"fault\": 0, \"revert\": "
	     "0}}",
	     "times"},
	    {"{\"rocelab_plot\": 1, \"component\": \"c\", \"png\": \"a.png\", \"title\": \"t\", "
	     "\"caption\": \"c\", \"times\": {\"start\": 1, \"end\": 2, \"fault\": 0, \"revert\": "
	     "0}, \"down\": [[1]], \"params\": {}}",
	     "down"},
	    {"{\"rocelab_plot\": 1, \"component\": \"c\", \"png\": \"a.png\", \"title\": \"t\", "
	     "\"caption\": \"c\", \"times\": {\"start\": 1, \"end\": 2, \"fault\": 0, \"revert\": "
	     "0}, \"down\": [], \"rig\": {\"data\": \"../rig.dat\", \"source\": \"s\", \"bound\": "
	     "0.5}, \"params\": {}}",
	     "rig"},
	    {"{\"rocelab_plot\": 1, \"component\": \"c\", \"png\": \"a.png\", \"title\": \"t\", "
	     "\"caption\": \"c\", \"times\": {\"start\": 1, \"end\": 2, \"fault\": 0, \"revert\": "
	     "0}, \"down\": []}",
	     "params"},
	};
	struct comp_plot_desc d;
	char err[256];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cr_assert_eq(
		    comp_plot_desc_read(&d, cases[i].text, strlen(cases[i].text), err, sizeof(err)),
		    -EINVAL, "%zu", i);
		cr_assert(strstr(err, cases[i].says), "%zu: %s", i, err);
		comp_plot_desc_free(&d);
	}
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
