// SPDX-License-Identifier: MIT
/* Scenario files (every error at file:line:col) and the grader. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/run/runner.h"
#include "harness/run/scenario.h"
#include "reports/report.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES "harness/run/scenario"
#define VLAB	 "../lab-inventory/vlab-rail.yaml"

struct bad_case {
	char path[128];
};

ParameterizedTestParameters(scenario, rejects_bad_input)
{
	glob_t g;
	struct bad_case *cases;
	size_t n;

	if (glob(FIXTURES "/bad-*.yaml", 0, NULL, &g) != 0)
		abort();
	cases = cr_malloc(g.gl_pathc * sizeof(*cases));
	for (size_t i = 0; i < g.gl_pathc; i++)
		snprintf(cases[i].path, sizeof(cases[i].path), "%s", g.gl_pathv[i]);
	n = g.gl_pathc;
	globfree(&g);
	return cr_make_param_array(struct bad_case, cases, n);
}

/* First line of each fixture: "# expect: LINE:COL: message". */
ParameterizedTest(struct bad_case *c, scenario, rejects_bad_input)
{
	size_t len, outlen = 0;
	char *text = rl_read_file(c->path, &len), *out = NULL, want[1024];
	FILE *errf = open_memstream(&out, &outlen);
	struct scenario *s;
	char *nl;

	cr_assert_not_null(text);
	cr_assert(strncmp(text, "# expect: ", 10) == 0, "%s lacks '# expect:'", c->path);
	nl = strchr(text, '\n');
	snprintf(want, sizeof(want), "%s:%.*s\n", c->path, (int)(nl - text - 10), text + 10);
	s = scenario_load(c->path, NULL, VLAB, errf);
	fclose(errf);
	cr_assert_null(s, "%s was accepted", c->path);
	cr_assert(strstr(out, want), "%s:\nwant: %sgot:  %s", c->path, want, out);
	free(out);
	free(text);
}

Test(scenario, ci_scenarios_are_valid)
{
	glob_t g;

	cr_assert_eq(glob("../scenarios/ci/*.yaml", 0, NULL, &g), 0);
	cr_assert_geq(g.gl_pathc, 8);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct scenario *s = scenario_load(g.gl_pathv[i], NULL, VLAB, stderr);

		cr_assert_not_null(s, "%s", g.gl_pathv[i]);
		cr_assert_str_eq(s->suite, "ci");
		cr_assert_leq(s->baseline_ms + s->fault_ms + s->recovery_ms, 60000,
			      "%s: CI scenarios stay under 60 s", g.gl_pathv[i]);
		cr_assert(s->expect.silent || s->expect.target[0]);
		scenario_free(s);
	}
	globfree(&g);
}

Test(grader, targets)
{
	cr_assert(runner_target_matches("rail2:swp6--spine2:swp2", "rail2:swp6"));
	cr_assert(runner_target_matches("rail2:swp6--spine2:swp2", "spine2:swp2"));
	cr_assert(runner_target_matches("rail2:swp6--spine2:swp2", "rail2:swp6--spine2:swp2"));
	cr_assert_not(runner_target_matches("rail2:swp6--spine2:swp2", "rail2:swp"));
	cr_assert_not(runner_target_matches("rail2:swp6--spine2:swp2", "spine2"));
	cr_assert(runner_target_matches("spine2", "spine2"));
	cr_assert_not(runner_target_matches("spine22", "spine2"));
	cr_assert(runner_target_matches("host1:rnic2", "host1:rnic2"));
}

static struct scn_result graded(const char *scn, const char *verdicts)
{
	struct scn_result r = {0};
	struct scenario *s = scenario_load(scn, NULL, VLAB, stderr);

	cr_assert_not_null(s);
	r.s = s;
	r.t_start = 100;
	r.t_fault = 110;
	r.t_revert = 120;
	r.t_end = 130;
	r.verdicts = json_loads(verdicts, 0, NULL);
	cr_assert_not_null(r.verdicts);
	runner_grade(&r);
	return r;
}

static void done(struct scn_result *r)
{
	json_decref(r->verdicts);
	scenario_free((struct scenario *)r->s);
}

#define V(t0, cls, target, sus)                                                                    \
	"{\"window\":[" #t0 "," #t0 "],\"class\":\"" cls "\",\"target\":\"" target                 \
	"\",\"suspects\":" sus "}"

Test(grader, pass_rank_and_time)
{
	struct scn_result r =
	    graded("../scenarios/ci/rail-uplink-flap.yaml",
		   "[" V(112, "switch-link", "rail2:swp6--spine2:swp2",
			 "[{\"target\":\"rail2:swp6--spine2:swp2\",\"votes\":9,\"good\":0},"
			 "{\"target\":\"host1:rnic2--rail2:swp1\",\"votes\":3,\"good\":4}]") "]");

	cr_assert_eq(r.verdict, RV_PASS, "%s", r.reason);
	cr_assert(r.detected && r.localized && r.class_ok);
	cr_assert_eq(r.rank, 1);
	cr_assert_float_eq(r.time_to_detect_s, 2.0, 1e-9);
	cr_assert_eq(r.false_positives, 0);
	done(&r);
}

Test(grader, a_tie_at_the_top_is_not_rank_1)
{
	struct scn_result r =
	    graded("../scenarios/ci/rail-uplink-flap.yaml",
		   "[" V(112, "switch-link", "rail4:swp6--spine2:swp4",
			 "[{\"target\":\"rail4:swp6--spine2:swp4\",\"votes\":9,\"good\":0},"
			 "{\"target\":\"rail2:swp6--spine2:swp2\",\"votes\":9,\"good\":0}]") "]");

	cr_assert_eq(r.verdict, RV_FAIL);
	cr_assert_eq(r.rank, 2);
	cr_assert(strstr(r.reason, "top-1"), "%s", r.reason);
	done(&r);
}

Test(grader, wrong_class_and_false_positives)
{
	struct scn_result r =
	    graded("../scenarios/ci/rnic-flap.yaml",
		   "[" V(104, "rnic", "host3:rnic1", "[]") "," V(114, "switch", "rail2", "[]") "]");

	cr_assert_eq(r.verdict, RV_FAIL);
	cr_assert(r.detected);
	cr_assert_not(r.class_ok);
	cr_assert_eq(r.false_positives, 1, "the baseline verdict");
	done(&r);
	r = graded("../scenarios/ci/rnic-flap.yaml", "[" V(114, "rnic", "host1:rnic2", "[]") "," V(
							 128, "rnic", "host1:rnic2", "[]") "]");
	cr_assert_eq(r.false_positives, 1, "a verdict after recovery settled");
	cr_assert_eq(r.verdict, RV_FAIL);
	cr_assert(strstr(r.reason, "false positive"), "%s", r.reason);
	done(&r);
}

Test(grader, silent_scenario)
{
	struct scn_result r = graded("../scenarios/ci/no-fault.yaml", "[]");

	r.t_fault = 0;
	runner_grade(&r);
	cr_assert_eq(r.verdict, RV_PASS);
	done(&r);
	r = graded("../scenarios/ci/no-fault.yaml", "[" V(105, "congestion", "x--y", "[]") "]");
	r.t_fault = 0;
	runner_grade(&r);
	cr_assert_eq(r.verdict, RV_FAIL);
	done(&r);
}

Test(report, xml_escape)
{
	char b[64];

	cr_assert_str_eq(report_xml_escape("a<b>&\"c'\n", b, sizeof(b)),
			 "a&lt;b&gt;&amp;&quot;c&apos; ");
}
