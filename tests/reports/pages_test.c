// SPDX-License-Identifier: MIT
/* Report pages: plots inlined (and again after a redraw), the suite index, the trend page. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "reports/pages.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

Test(pages, plots_beside_the_page_are_inlined_and_inlined_again_after_a_redraw)
{
	char p[PATH_MAX], *h;

	put("plot.png", "abc"); /* base64 YWJj */
	put("other.png", "xy");
	put("r.html", "<p><img src=\"plot.png\" alt=\"t\" width=\"9\"></p>\n"
		      "<img src=\"../etc/x.png\"><img src=\"missing.png\" alt=\"m\">"
		      "<img src=\"other.png\">\n");
	snprintf(p, sizeof(p), "%s/r.html", dir);
	cr_assert_eq(pages_inline_images(p), 0);
	h = get("r.html");
	cr_assert(strstr(h, "<p><img data-file=\"plot.png\" src=\"data:image/png;base64,YWJj\" "
			    "alt=\"t\" width=\"9\"></p>\n"),
		  "%s", h);
	cr_assert(strstr(h, "<img src=\"../etc/x.png\"><img src=\"missing.png\" alt=\"m\">"), "%s",
		  h);
	cr_assert(strstr(h, "<img data-file=\"other.png\" src=\"data:image/png;base64,eHk=\">"),
		  "%s", h);
	free(h);
	/* gnuplot drew the plot again: the page takes its new bytes, and stays well formed. */
	put("plot.png", "abcd");
	cr_assert_eq(pages_inline_images(p), 0);
	h = get("r.html");
	cr_assert(strstr(h, "<p><img data-file=\"plot.png\" src=\"data:image/png;base64,YWJjZA==\" "
			    "alt=\"t\" width=\"9\"></p>\n"),
		  "%s", h);
	cr_assert_null(strstr(h, "YWJj\""), "%s", h);
	free(h);
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
