// SPDX-License-Identifier: MIT
/*
 * A scenario's variants side by side (report_variants()): one plot of every
 * variant's goodput from the data files their components wrote, drawn by
 * the real gnuplot, and their figures in columns.  A data file's text is
 * data: a backtick in it runs nothing.
 */
#define _GNU_SOURCE
#include "harness/component/component.h"
#include "harness/lib/common.h"
#include "harness/lib/proc.h"
#include "harness/run/registry.h"
#include "harness/run/scenario.h"
#include "reports/report.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/rocelab-variants-test.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	if (!getenv("KEEP"))
		rl_rm_rf(dir);
}

TestSuite(variants, .init = setup, .fini = teardown);

static void put(const char *name, const char *text)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	cr_assert_eq(rl_write_file_mode(p, text, strlen(text), 0644), 0);
}

Test(variants, one_plot_and_a_column_each)
{
	static const char *const names[] = {"go-back-n", "irn", "mp-rdma"};
	struct scenario s[3] = {0};
	struct scn_component sc = {.ops = component_find("mp-rdma")};
	struct metric m[3][2];
	struct comp_result cr[3] = {0};
	struct scn_result r[4] = {0};
	char p[PATH_MAX], *page;
	size_t len;

	cr_assert_not_null(sc.ops);
	for (unsigned v = 0; v < 3; v++) {
		s[v].n_variants = 3;
		s[v].variant_idx = v;
		s[v].fault_ms = 4000;
		snprintf(s[v].group, sizeof(s[v].group), "lossy");
		snprintf(s[v].variant, sizeof(s[v].variant), "%s", names[v]);
		snprintf(s[v].name, sizeof(s[v].name), "lossy.%s", names[v]);
		m[v][0] = (struct metric){.name = "fault-vs-optimal", .value = 0.25 * (v + 1)};
		m[v][1] = (struct metric){.name = "retransmissions", .value = 1000.0 / (v + 1)};
		cr[v].sc = &sc;
		cr[v].obs.metrics = m[v];
		cr[v].obs.n_metrics = 2;
		r[v].s = &s[v];
		r[v].comps = &cr[v];
		r[v].n_comps = 1;
		r[v].t_fault = 100;
		r[v].t_revert = 100 + 3.0 + v * 0.5; /* live 3 to 4 s */
		snprintf(r[v].test_name, sizeof(r[v].test_name), "%s", s[v].name);
		snprintf(p, sizeof(p), "%s/%s", dir, s[v].name);
		cr_assert_eq(rl_mkdir_p(p, 0755), 0);
		snprintf(p, sizeof(p), "%s/mp-rdma.dat", s[v].name);
		/* a line of text with a backtick: gnuplot reads it as data, runs nothing */
		put(p, v == 1 ? "# t_s goodput_mbit\n-1 90\n`touch pwned` 1\n0 40\n1 45\n2 90\n"
			      : "# t_s goodput_mbit\n-1 90\n0 10\n1 12\n2 90\n");
	}
	r[3].s = &(struct scenario){.name = "other"}; /* no variants: no page */
	cr_assert_eq(report_variants(dir, r, 4), 0);
	snprintf(p, sizeof(p), "%s/lossy.variants/side-by-side.png", dir);
	if (!access(PROC_GNUPLOT, X_OK))
		cr_assert_eq(access(p, R_OK), 0, "the plot was drawn");
	snprintf(p, sizeof(p), "%s/lossy.variants/pwned", dir);
	cr_assert_neq(access(p, F_OK), 0, "a data file's backtick ran");
	snprintf(p, sizeof(p), "%s/lossy.variants/index.html", dir);
	page = rl_read_file(p, &len);
	cr_assert_not_null(page);
	cr_assert(strstr(page, "<a href=\"../lossy.irn/report.html\">irn</a>"), "%s", page);
	cr_assert(strstr(page, "<tr><th>fault-vs-optimal</th><td>0.25</td><td>0.5</td>"
			       "<td>0.75</td></tr>"),
		  "%s", page);
	cr_assert(strstr(page, "<tr><th>retransmissions</th><td>1000</td><td>500</td>"
			       "<td>333.3</td></tr>"),
		  "%s", page);
	free(page);
	snprintf(p, sizeof(p), "%s/lossy.variants/side-by-side.gp", dir);
	page = rl_read_file(p, &len);
	cr_assert(strstr(page, "to 3.000, graph 1"), "shaded while live in all three");
	cr_assert(strstr(page, "from 3.000, graph 0 to 4.000"), "and lighter while in some");
	cr_assert(strstr(page, "'../lossy.go-back-n/mp-rdma.dat' using 1:2 with lines lw 2 title "
			       "'go-back-n'"),
		  "%s", page);
	free(page);
}
