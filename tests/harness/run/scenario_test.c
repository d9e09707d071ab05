// SPDX-License-Identifier: MIT
/* Scenario files (every error at file:line:col) and the grader. */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "harness/lib/opt.h"
#include "harness/lib/roles.h"
#include "harness/run/grade.h"
#include "harness/run/runner.h"
#include "harness/run/scenario.h"
#include "injectors/kinds/kinds.h"
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

/*
 * First line of each fixture: "# expect: LINE:COL: message"; {KINDS} in it
 * stands for the fault kinds' names as kinds.def lists them (a new kind
 * changes no fixture).
 */
ParameterizedTest(struct bad_case *c, scenario, rejects_bad_input)
{
	size_t len, outlen = 0;
	char *text = rl_read_file(c->path, &len), *out = NULL, want[2048], kinds[1024], *at;
	FILE *errf = open_memstream(&out, &outlen);
	struct scenario *s;
	char *nl;

	cr_assert_not_null(text);
	cr_assert(strncmp(text, "# expect: ", 10) == 0, "%s lacks '# expect:'", c->path);
	nl = strchr(text, '\n');
	*nl = '\0';
	if ((at = strstr(text, "{KINDS}")))
		snprintf(want, sizeof(want), "%s:%.*s%s%s\n", c->path, (int)(at - text - 10),
			 text + 10, fault_kind_names(kinds, sizeof(kinds)), at + 7);
	else
		snprintf(want, sizeof(want), "%s:%s\n", c->path, text + 10);
	s = scenario_load(c->path, NULL, VLAB, 7, errf);
	fclose(errf);
	cr_assert_null(s, "%s was accepted", c->path);
	cr_assert(strstr(out, want), "%s:\nwant: %sgot:  %s", c->path, want, out);
	free(out);
	free(text);
}

#define EXAMPLE "../lab-inventory/example-lab.yaml"

/*
 * Every scenario of a folder resolves on the virtual lab and on the example
 * real lab with seeds 1..seeds, in its suite, expecting something; a CI one
 * stays under 60 s and gives its faults by role.
 */
static size_t suite_valid(const char *pattern, const char *suite, unsigned seeds, bool ci,
			  bool portable)
{
	const char *invs[] = {VLAB, EXAMPLE};
	size_t n;
	glob_t g;

	cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "%s", pattern);
	for (size_t i = 0; i < g.gl_pathc; i++)
		for (size_t k = 0; k < (portable ? ARRAY_SIZE(invs) : 1); k++)
			for (unsigned seed = 1; seed <= seeds; seed++) {
				struct scenario *s =
				    scenario_load(g.gl_pathv[i], invs[k], VLAB, seed, stderr);

				cr_assert_not_null(s, "%s on %s, seed %u", g.gl_pathv[i], invs[k],
						   seed);
				cr_assert_str_eq(s->suite, suite);
				cr_assert(s->expect.silent || s->expect.target[0] ||
					  s->expect.n_metrics);
				for (size_t f = 0; ci && f < s->n_faults; f++)
					cr_assert(s->faults[f].role[0],
						  "%s: CI faults are given by role", g.gl_pathv[i]);
				cr_assert(!ci || s->baseline_ms + s->fault_ms + s->recovery_ms <=
						     60000,
					  "%s: CI scenarios stay under 60 s", g.gl_pathv[i]);
				scenario_free(s);
			}
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

/* The CI suite is portable: it resolves on the virtual lab and on the example real lab, any seed.
 */
Test(scenario, ci_scenarios_are_valid)
{
	cr_assert_geq(suite_valid("../scenarios/ci/*.yaml", "ci", 16, true, true), 9);
}

/*
 * Issue 64: nothing tuned per scenario.  Every monitor of the CI suite and of
 * the qualification suite starts from the ci profile and sets nothing over it;
 * the profile gives each the values its section gave before.  The VM tier's
 * take the vm profile the same way.
 */
Test(scenario, ci_monitors_take_the_ci_profile_and_nothing_else)
{
	const char *const pats[] = {"../scenarios/ci/*.yaml", "../scenarios/qualification/*.yaml",
				    "../scenarios/vm/*.yaml"},
			  *const profile[] = {"ci", "ci", "vm"};

	for (size_t p = 0; p < ARRAY_SIZE(pats); p++) {
		glob_t g;

		cr_assert_eq(glob(pats[p], 0, NULL, &g), 0);
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct scenario *s = scenario_load(g.gl_pathv[i], NULL, VLAB, 7, stderr);

			cr_assert_not_null(s, "%s", g.gl_pathv[i]);
			for (size_t k = 0; k < s->n_comps; k++) {
				const struct scn_component *c = &s->comps[k];

				if (!c->ops->profiles)
					continue;
				cr_expect_str_eq(c->profile, profile[p], "%s: %s", g.gl_pathv[i],
						 c->ops->name);
				cr_expect_eq(c->n_overrides, 0,
					     "%s: %s sets %u parameter(s) of its own",
					     g.gl_pathv[i], c->ops->name, c->n_overrides);
			}
			scenario_free(s);
		}
		globfree(&g);
	}
}

/* A 20 s link-flap scenario (a 10 s fault phase) on the virtual lab, rest after its head. */
static struct scenario *flap_scenario(const char *rest)
{
	static const char head[] = "name: w\nphases: { baseline: 6s, fault: 10s, recovery: 4s }\n"
				   "faults: [{ kind: link-flap, target: rail1:swp1 }]\n";
	char text[1024];
	struct scenario *s;

	snprintf(text, sizeof(text), "%s%s", head, rest);
	s = scenario_parse("w.yaml", text, strlen(text), VLAB, VLAB, 7, stderr);
	cr_assert_not_null(s, "%s", text);
	return s;
}

/*
 * Issue 64: `within` is the monitor's design time with its parameters (two
 * windows, the grace before a window closes) unless written; in the CI and
 * qualification suites (and the VM tier's) a written one says why in the
 * comment above it ("Not the profile's design time ...: the physical reason").
 */
Test(scenario, within_is_the_monitors_design_time_unless_a_reason_is_written)
{
	const char *const pats[] = {"../scenarios/ci/*.yaml", "../scenarios/qualification/*.yaml",
				    "../scenarios/vm/*.yaml"};
	struct scenario *s;

	/* ci: 2 s windows, the grace 1.5 s (the 500 ms timeout's); paper: 20 s windows */
	s = flap_scenario(
	    "expect: { class: switch-link }\ncomponents:\n  hostmesh: { profile: ci }\n"
	    "  rpingmesh: { profile: ci, expect: { class: switch-link } }\n"
	    "  mp-rdma: { expect: { metrics: { goodput-vs-optimal: '>= 0.5' } } }\n");
	cr_assert_eq(s->comps[0].expect.within_ms, 5500);
	cr_assert_eq(s->comps[0].expect.within_from, WITHIN_DESIGN);
	cr_assert_eq(s->comps[1].expect.within_ms, 5500, "its own expect, its own design time");
	cr_assert_eq(s->comps[2].expect.within_ms, 10000, "no windows: the fault phase");
	cr_assert_eq(s->comps[2].expect.within_from, WITHIN_PHASE);
	cr_assert_eq(s->expect.within_ms, 5500,
		     "the scenario's: the longest of those it holds for");
	scenario_free(s);
	s = flap_scenario(
	    "expect: { class: switch-link }\ncomponents:\n  hostmesh: { profile: paper }\n");
	cr_assert_gt(s->comps[0].expect.within_ms, 40000, "two 20 s windows and the grace");
	scenario_free(s);
	s = flap_scenario("expect: { class: switch-link, within: 7s }\ncomponents:\n  hostmesh: "
			  "{ profile: ci }\n");
	cr_assert_eq(s->comps[0].expect.within_ms, 7000);
	cr_assert_eq(s->comps[0].expect.within_from, WITHIN_WRITTEN);
	scenario_free(s);
	for (size_t p = 0; p < ARRAY_SIZE(pats); p++) {
		glob_t g;

		cr_assert_eq(glob(pats[p], 0, NULL, &g), 0);
		for (size_t i = 0; i < g.gl_pathc; i++) {
			size_t len;
			char *y = rl_read_file(g.gl_pathv[i], &len), *w;

			cr_assert_not_null(y, "%s", g.gl_pathv[i]);
			for (w = y; (w = strstr(w, "\n  within:")); w++) {
				const char *why = strstr(y, "# Not the profile's design time");

				cr_expect(why && why < w,
					  "%s: a 'within' of its own says why (\"# Not the "
					  "profile's design time ...: the physical reason\")",
					  g.gl_pathv[i]);
			}
			free(y);
		}
		globfree(&g);
	}
}

/* A profile applies first wherever it stands; the section's keys go over it; a bad one says where.
 */
Test(scenario, a_profile_first_then_the_sections_keys)
{
	static const char head[] = "name: p\nphases: { baseline: 6s, fault: 10s, recovery: 4s }\n"
				   "faults: [{ kind: link-flap, target: rail1:swp1 }]\n"
				   "expect: { class: rnic }\ncomponents:\n";
	char text[1024];
	struct scenario *s;
	char *err = NULL;
	size_t errlen = 0;
	FILE *errf;
	char buf[64];
	const struct opt_desc *win;

	snprintf(text, sizeof(text), "%s  hostmesh: { window: 4s, profile: ci }\n", head);
	s = scenario_parse("p.yaml", text, strlen(text), NULL, VLAB, 7, stderr);
	cr_assert_not_null(s);
	win = opt_find(s->comps[0].ops->params, "window");
	cr_assert_not_null(win);
	cr_assert_str_eq(s->comps[0].profile, "ci");
	cr_assert_eq(s->comps[0].n_overrides, 1);
	cr_assert_str_eq(opt_human(win, s->comps[0].cfg, buf, sizeof(buf)), "4s",
			 "the section's window over the profile's 2s");
	scenario_free(s);
	snprintf(text, sizeof(text), "%s  hostmesh: { profile: ci }\n", head);
	s = scenario_parse("p.yaml", text, strlen(text), NULL, VLAB, 7, stderr);
	cr_assert_not_null(s);
	cr_assert_str_eq(opt_human(win, s->comps[0].cfg, buf, sizeof(buf)), "2s");
	cr_assert_eq(s->comps[0].n_overrides, 0);
	scenario_free(s);
	snprintf(text, sizeof(text), "%s  hostmesh: { profile: fast }\n", head);
	errf = open_memstream(&err, &errlen);
	s = scenario_parse("p.yaml", text, strlen(text), NULL, VLAB, 7, errf);
	fclose(errf);
	cr_assert_null(s);
	cr_assert(
	    strstr(err, "p.yaml:6:24: hostmesh has no profile 'fast' (it has: paper, ci, vm)"),
	    "%s", err);
	free(err);
}

/*
 * The transports' CI scenarios shape the virtual lab's links to rates a
 * software transport fills (a TBF at 50 Mbit/s): the virtual lab's only.
 */
Test(scenario, ci_transport_scenarios_are_valid)
{
	cr_assert_geq(suite_valid("../scenarios/ci/transport/*.yaml", "transport", 4, true, false),
		      2);
}

/* The nightly scenarios resolve on both labs too; they are longer, so outside make check. */
Test(scenario, nightly_scenarios_are_valid)
{
	cr_assert_geq(suite_valid("../scenarios/nightly/*.yaml", "nightly", 8, false, true), 2);
	/* the transports' shape the virtual lab's links, as their CI scenarios do */
	cr_assert_geq(
	    suite_valid("../scenarios/nightly/transport/*.yaml", "transport", 4, false, false), 1);
}

static struct scenario *ci(const char *name, const char *inv, unsigned seed)
{
	char path[128];
	struct scenario *s;

	snprintf(path, sizeof(path), "../scenarios/ci/%s.yaml", name);
	s = scenario_load(path, inv, VLAB, seed, stderr);
	cr_assert_not_null(s, "%s", path);
	return s;
}

/* The same seed picks the same targets; seeds differ in what they pick; the expectation follows. */
Test(scenario, roles_are_picked_with_the_seed)
{
	char seen[16][72];
	size_t n_seen = 0;

	for (unsigned seed = 1; seed <= 16; seed++) {
		struct scenario *a = ci("rail-uplink-flap", NULL, seed);
		struct scenario *b = ci("rail-uplink-flap", NULL, seed);
		const char *t = a->faults[0].spec.target;
		size_t i;

		cr_assert_str_eq(t, b->faults[0].spec.target, "seed %u picks one target", seed);
		cr_assert_str_eq(a->expect.target, t, "the expected target is the picked one");
		cr_assert_str_eq(a->comps[0].expect.target, t);
		cr_assert(!strncmp(t, "rail", 4) && strstr(t, ":swp"), "%s is a rail uplink", t);
		cr_assert_geq(atoi(strstr(t, ":swp") + 4), 5, "%s faces a spine (swp5..8)", t);
		cr_assert_str_eq(a->faults[0].role, "{ role: rail-uplink }");
		for (i = 0; i < n_seen && strcmp(seen[i], t); i++)
			;
		if (i == n_seen)
			snprintf(seen[n_seen++], sizeof(seen[0]), "%s", t);
		scenario_free(a);
		scenario_free(b);
	}
	cr_assert_geq(n_seen, 4, "16 seeds pick %zu different uplinks of 16", n_seen);
}

/* 'same', 'other' and 'fault' hold in what is picked. */
Test(scenario, roles_relate_to_earlier_picks)
{
	for (unsigned seed = 1; seed <= 16; seed++) {
		struct scenario *s = ci("acl-error", NULL, seed);
		const struct fault_spec *f = &s->faults[0].spec;
		struct scenario *p;
		int rail;

		cr_assert_eq(s->inv->switches[f->tdev].role, INV_ROLE_SPINE);
		struct inv_endpoint from, to;
		char name[FAULT_NAME_MAX], why[160];

		cr_assert_eq(inventory_endpoint(s->inv,
						fault_spec_value(f, "from", name, sizeof(name)),
						&from, why, sizeof(why)),
			     0, "%s", why);
		cr_assert_eq(inventory_endpoint(s->inv,
						fault_spec_value(f, "to", name, sizeof(name)), &to,
						why, sizeof(why)),
			     0, "%s", why);
		cr_assert_eq(from.dev, to.dev, "from and to on one host");
		cr_assert_neq(s->inv->hosts[from.dev].rnics[from.port].rail,
			      s->inv->hosts[to.dev].rnics[to.port].rail, "on two rails");
		scenario_free(s);

		p = ci("pfc-incast", NULL, seed);
		rail = role_rail_of(p->inv, p->faults[0].spec.target);
		cr_assert_gt(rail, 0);
		cr_assert_eq(role_rail_of(p->inv, p->loads[0].to), rail,
			     "the incast's victim is behind the misconfigured port");
		cr_assert_eq(p->loads[0].n_from, 6);
		for (size_t i = 0; i < p->loads[0].n_from; i++) {
			cr_assert_neq(role_rail_of(p->inv, p->loads[0].from[i]), rail);
			cr_assert(strncmp(p->loads[0].from[i], p->loads[0].to,
					  strchr(p->loads[0].to, ':') - p->loads[0].to + 1),
				  "sender %s is on another host than %s", p->loads[0].from[i],
				  p->loads[0].to);
			for (size_t j = 0; j < i; j++)
				cr_assert_str_neq(p->loads[0].from[i], p->loads[0].from[j]);
		}
		scenario_free(p);

		p = ci("link-degrade", NULL, seed);
		cr_assert_str_eq(p->loads[0].across, p->faults[0].spec.target, "across: fault");
		scenario_free(p);
	}
}

/* On the example lab only its Linux spine can drop IP IDs: a role picks among what can. */
Test(scenario, roles_pick_what_the_lab_can_inject)
{
	for (unsigned seed = 1; seed <= 16; seed++) {
		struct scenario *s = ci("ipid-drop", EXAMPLE, seed);

		cr_assert(!strncmp(s->faults[0].spec.target, "spine2:", 7), "seed %u: %s", seed,
			  s->faults[0].spec.target);
		scenario_free(s);
	}
}

/*
 * An option listed as alternatives takes the first the picked target can:
 * a 10 Mbit/s TBF on the virtual lab's Linux switches, a 10G port speed on
 * the example lab's NOS links (SONiC, NVUE, EOS).
 */
Test(scenario, option_alternatives_take_the_first_the_target_can)
{
	for (unsigned seed = 1; seed <= 8; seed++) {
		struct scenario *v = ci("link-degrade", NULL, seed),
				*e = ci("link-degrade", EXAMPLE, seed);

		cr_assert_eq(fault_spec_link_rate(&v->faults[0].spec), 10000ULL, "vlab, seed %u",
			     seed);
		cr_assert_eq(fault_spec_link_rate(&e->faults[0].spec), 10000000ULL,
			     "example-lab, seed %u: %s", seed, e->faults[0].spec.target);
		scenario_free(v);
		scenario_free(e);
	}
}

Test(grader, targets)
{
	cr_assert(grade_target_matches("rail2:swp6--spine2:swp2", "rail2:swp6"));
	cr_assert(grade_target_matches("rail2:swp6--spine2:swp2", "spine2:swp2"));
	cr_assert(grade_target_matches("rail2:swp6--spine2:swp2", "rail2:swp6--spine2:swp2"));
	cr_assert_not(grade_target_matches("rail2:swp6--spine2:swp2", "rail2:swp"));
	/* a whole switch: a link with a port on it, not a name it only starts with */
	cr_assert(grade_target_matches("rail2:swp6--spine2:swp2", "spine2"));
	cr_assert(grade_target_matches("rail2:swp6--spine2:swp2", "rail2"));
	cr_assert_not(grade_target_matches("rail2:swp6--spine2:swp2", "spine"));
	cr_assert_not(grade_target_matches("rail2:swp6--spine22:swp2", "spine2"));
	cr_assert_not(grade_target_matches("host1:rnic1", "host1"));
	cr_assert(grade_target_matches("spine2", "spine2"));
	cr_assert_not(grade_target_matches("spine22", "spine2"));
	cr_assert(grade_target_matches("host1:rnic2", "host1:rnic2"));
}

/* Grade verdicts (JSON, as a monitor writes them) against a scenario's first component. */
static struct grade graded_at(const char *scn, const char *verdicts, double t_fault)
{
	struct grade g = {0};
	struct scenario *s = scenario_load(scn, NULL, VLAB, 7, stderr);
	struct comp_obs obs = {0};
	struct comp_times t = {100, t_fault, t_fault, 120, 130};
	json_t *arr = json_loads(verdicts, 0, NULL), *v;
	size_t i;

	cr_assert_not_null(s);
	cr_assert_not_null(arr);
	json_array_foreach(arr, i, v) cr_assert_eq(verdict_from_json(v, comp_obs_verdict(&obs)), 0);
	grade_component(&s->comps[0].expect, &obs, &t,
			(double)s->comps[0].ops->settle_ms(s->comps[0].cfg) / 1e3, NULL, &g);
	comp_obs_clear(&obs);
	json_decref(arr);
	scenario_free(s);
	return g;
}

static struct grade graded(const char *scn, const char *verdicts)
{
	return graded_at(scn, verdicts, 110);
}

#define V(t0, cls, target, sus)                                                                    \
	"{\"window\":[" #t0 "," #t0 "],\"class\":\"" cls "\",\"target\":\"" target                 \
	"\",\"suspects\":" sus "}"

Test(grader, pass_rank_and_time)
{
	struct grade r =
	    graded(FIXTURES "/good-uplink-flap.yaml",
		   "[" V(112, "switch-link", "rail2:swp6--spine2:swp2",
			 "[{\"target\":\"rail2:swp6--spine2:swp2\",\"votes\":9,\"good\":0},"
			 "{\"target\":\"host1:rnic2--rail2:swp1\",\"votes\":3,\"good\":4}]") "]");

	cr_assert_eq(r.verdict, RV_PASS, "%s", r.reason);
	cr_assert(r.detected && r.localized && r.class_ok);
	cr_assert_eq(r.rank, 1);
	cr_assert_float_eq(r.time_to_detect_s, 2.0, 1e-9);
	cr_assert_eq(r.false_positives, 0);
}

Test(grader, a_tie_at_the_top_is_not_rank_1)
{
	struct grade r =
	    graded(FIXTURES "/good-uplink-flap.yaml",
		   "[" V(112, "switch-link", "rail4:swp6--spine2:swp4",
			 "[{\"target\":\"rail4:swp6--spine2:swp4\",\"votes\":9,\"good\":0},"
			 "{\"target\":\"rail2:swp6--spine2:swp2\",\"votes\":9,\"good\":0}]") "]");

	cr_assert_eq(r.verdict, RV_FAIL);
	cr_assert_eq(r.rank, 2);
	cr_assert(strstr(r.reason, "top-1"), "%s", r.reason);
}

Test(grader, wrong_class_and_false_positives)
{
	struct grade r =
	    graded(FIXTURES "/good-rnic-flap.yaml",
		   "[" V(104, "rnic", "host3:rnic1", "[]") "," V(114, "switch", "rail2", "[]") "]");

	cr_assert_eq(r.verdict, RV_FAIL);
	cr_assert(r.detected);
	cr_assert_not(r.class_ok);
	cr_assert_eq(r.false_positives, 1, "the baseline verdict");
	r = graded(FIXTURES "/good-rnic-flap.yaml", "[" V(114, "rnic", "host1:rnic2", "[]") "," V(
							128, "rnic", "host1:rnic2", "[]") "]");
	cr_assert_eq(r.false_positives, 1, "a verdict after recovery settled");
	cr_assert_eq(r.verdict, RV_FAIL);
	cr_assert(strstr(r.reason, "false positive"), "%s", r.reason);
	cr_assert(strstr(r.reason, "first rnic host1:rnic2 in [28.0, 28.0] s"),
		  "the reason names the first one and when, from the run's start: %s", r.reason);
}

Test(grader, silent_scenario)
{
	struct grade r = graded_at("../scenarios/nightly/no-fault.yaml", "[]", 0);

	cr_assert_eq(r.verdict, RV_PASS);
	r = graded_at("../scenarios/nightly/no-fault.yaml",
		      "[" V(105, "congestion", "x--y", "[]") "]", 0);
	cr_assert_eq(r.verdict, RV_FAIL);
}

/* A window that ends while the injector logs in judged a lab being changed. */
Test(grader, the_injectors_own_work_is_not_a_false_positive)
{
	struct scenario *s = scenario_load(FIXTURES "/good-rnic-flap.yaml", NULL, VLAB, 7, stderr);
	struct comp_obs obs = {0};
	struct comp_times t = {100, 108, 110, 120, 130};
	struct grade g = {0};
	struct verdict *v;

	cr_assert_not_null(s);
	v = comp_obs_verdict(&obs);
	*v =
	    (struct verdict){.win = {107, 109}, .time = 109, .cls = "congestion", .target = "a--b"};
	v = comp_obs_verdict(&obs);
	*v = (struct verdict){
	    .win = {110, 112}, .time = 112, .cls = "rnic", .target = "host1:rnic2"};
	grade_component(&s->comps[0].expect, &obs, &t, 1.5, NULL, &g);
	cr_assert_eq(g.false_positives, 0);
	cr_assert_eq(g.verdict, RV_PASS, "%s", g.reason);
	t.t_inject = 109.5; /* the same verdict before the injector started: a false positive */
	grade_component(&s->comps[0].expect, &obs, &t, 1.5, NULL, &g);
	cr_assert_eq(g.false_positives, 1);
	comp_obs_clear(&obs);
	scenario_free(s);
}

/* A window that ends once the monitor is being stopped judged a monitor going away. */
Test(grader, the_teardown_is_not_a_false_positive)
{
	struct scenario *s = scenario_load(FIXTURES "/good-rnic-flap.yaml", NULL, VLAB, 7, stderr);
	struct comp_obs obs = {0};
	struct comp_times t = {100, 108, 110, 120, 135, 0};
	struct grade g = {0};
	struct verdict *v;

	cr_assert_not_null(s);
	v = comp_obs_verdict(&obs);
	*v = (struct verdict){
	    .win = {110, 112}, .time = 112, .cls = "rnic", .target = "host1:rnic2"};
	v = comp_obs_verdict(&obs);
	*v = (struct verdict){
	    .win = {130, 132}, .time = 132, .cls = "congestion", .target = "rail3"};
	grade_component(&s->comps[0].expect, &obs, &t, 1.5, NULL, &g);
	cr_assert_eq(g.false_positives, 1, "t_stop not known: a recovery verdict");
	t.t_stop = 131; /* the agents were being stopped when that window ended */
	grade_component(&s->comps[0].expect, &obs, &t, 1.5, NULL, &g);
	cr_assert_eq(g.false_positives, 0);
	cr_assert_eq(g.verdict, RV_PASS, "%s", g.reason);
	comp_obs_clear(&obs);
	scenario_free(s);
}

/* Data-path components are graded on figures. */
Test(grader, metrics_against_expectations)
{
	struct scn_expect e = {.n_metrics = 2};
	struct comp_obs obs = {0};
	struct comp_times t = {100, 108, 110, 120, 130};
	struct grade g = {0};

	e.metrics[0] = (struct metric_expect){"goodput-vs-optimal", MOP_GE, 0.9, ">= 0.9"};
	e.metrics[1] = (struct metric_expect){"reorder-degree", MOP_LT, 3, "< 3"};
	comp_obs_metric(&obs, "goodput-vs-optimal", 0.95, "ratio");
	comp_obs_metric(&obs, "reorder-degree", 1, "packets");
	grade_component(&e, &obs, &t, 1, NULL, &g);
	cr_assert_eq(g.verdict, RV_PASS, "%s", g.reason);
	obs.metrics[0].value = 0.5;
	grade_component(&e, &obs, &t, 1, NULL, &g);
	cr_assert_eq(g.verdict, RV_FAIL);
	cr_assert_str_eq(g.reason, "goodput-vs-optimal = 0.5 ratio, expected >= 0.9");
	comp_obs_clear(&obs);
	comp_obs_metric(&obs, "reorder-degree", 1, "packets");
	grade_component(&e, &obs, &t, 1, NULL, &g);
	cr_assert_str_eq(g.reason, "metric goodput-vs-optimal was not reported");
	comp_obs_clear(&obs);
}

/* The one key table: what verdict_to_json writes, verdict_from_json reads back. */
Test(grader, verdict_json_round_trip)
{
	struct verdict v = {.time = 12.5,
			    .emitted = 13,
			    .win = {10.5, 12.5},
			    .cls = "switch-link",
			    .target = "a:1--b:2",
			    .votes = 9,
			    .n_sus = 2};
	struct verdict w;
	json_t *j;

	v.sus[0] = (struct suspect){"a:1--b:2", 9, 0};
	v.sus[1] = (struct suspect){"h:r1--a:3", 3, 4};
	j = verdict_to_json(&v);
	cr_assert_eq(verdict_from_json(j, &w), 0);
	cr_assert(w.time == v.time && w.emitted == v.emitted && w.win[0] == v.win[0] &&
		  w.win[1] == v.win[1] && w.votes == 9 && w.n_sus == 2);
	cr_assert_str_eq(w.cls, v.cls);
	cr_assert_str_eq(w.target, v.target);
	for (size_t i = 0; i < 2; i++) {
		cr_assert_str_eq(w.sus[i].target, v.sus[i].target);
		cr_assert(w.sus[i].votes == v.sus[i].votes && w.sus[i].good == v.sus[i].good);
	}
	json_object_del(j, "class");
	cr_assert_eq(verdict_from_json(j, &w), -EINVAL, "a renamed key fails loudly");
	json_decref(j);
}

Test(report, xml_escape)
{
	char b[64];

	cr_assert_str_eq(rl_xml_escape("a<b>&\"c'\n", b, sizeof(b)),
			 "a&lt;b&gt;&amp;&quot;c&apos; ");
}

Test(scenario, components_map_form)
{
	struct scenario *s =
	    scenario_load(FIXTURES "/good-components-map.yaml", NULL, VLAB, 7, stderr);
	const struct opt_desc *d;
	char buf[32];

	cr_assert_not_null(s);
	cr_assert_eq(s->n_comps, 1);
	cr_assert_str_eq(s->comps[0].ops->name, "hostmesh");
	d = opt_find(s->comps[0].ops->params, "interval");
	cr_assert_str_eq(opt_value(d, s->comps[0].cfg, buf, sizeof(buf)), "20ms");
	d = opt_find(s->comps[0].ops->params, "slow");
	cr_assert_str_eq(opt_value(d, s->comps[0].cfg, buf, sizeof(buf)), "500us");
	cr_assert_str_eq(s->comps[0].expect.cls, "switch-link");
	cr_assert_str_eq(s->comps[0].expect.target, "rail2:swp6", "defaults to the fault's target");
	cr_assert_eq(s->comps[0].expect.within_ms, 4000);
	cr_assert_eq(s->comps[0].expect.n_metrics, 1);
	cr_assert_eq(s->comps[0].expect.metrics[0].op, MOP_GE);
	scenario_free(s);
}

/* A fabric entry by role with count: all shapes every match, in inventory order. */
Test(scenario, fabric_count_all_shapes_every_uplink)
{
	struct scenario *s =
	    scenario_load("../scenarios/ci/transport/mprdma-no-fault.yaml", NULL, VLAB, 7, stderr);
	const char *want[] = {"rail1:swp5", "rail1:swp6", "rail1:swp7", "rail1:swp8"};

	cr_assert_not_null(s);
	cr_assert_eq(s->n_fabric, 4);
	cr_assert_eq(s->n_faults, 0);
	for (size_t i = 0; i < 4; i++) {
		cr_assert_str_eq(s->fabric[i].spec.target, want[i]);
		cr_assert_str_eq(s->fabric[i].spec.kind->name, "link-degrade");
		cr_assert_eq(fault_spec_link_rate(&s->fabric[i].spec), 50000);
	}
	scenario_free(s);
}

/*
 * A load's rate as a share of a link (issue 61): of 'across' when given, else
 * of 'to'; at the speed the inventory gives (the virtual lab's 100g); said in
 * words for the dry run and the verdicts.  A link the inventory does not cable
 * has no speed: refused where the rate is.
 */
Test(scenario, a_load_rate_is_a_share_of_its_link)
{
	static const char head[] = "name: share\n"
				   "faults:\n"
				   "  - { kind: link-flap, target: rail1:swp5 }\n"
				   "load:\n";
	char text[1024], words[200], *err = NULL;
	size_t errlen = 0;
	struct scenario *s;
	FILE *errf;

	snprintf(text, sizeof(text),
		 "%s  - { kind: stream, across: rail1:swp5, rate: 60%% }\n"
		 "  - { kind: incast, to: host1:rnic1, from: [host2:rnic1], rate: 2.5%% }\n"
		 "  - { kind: incast, to: host1:rnic1, from: [host2:rnic1], rate: 120mbit, "
		 "transport: rc }\n"
		 "expect: { class: switch-link }\n",
		 head);
	s = scenario_parse("l.yaml", text, strlen(text), NULL, VLAB, 7, stderr);
	cr_assert_not_null(s);
	cr_assert_eq(s->n_loads, 3);
	cr_assert_eq(s->loads[0].rate_mbps, 60000, "60%% of rail1:swp5's 100g");
	cr_assert_str_eq(s->loads[0].link_of, "rail1:swp5");
	cr_assert(s->loads[0].link_speed_given);
	cr_assert_str_eq(scn_load_share_text(&s->loads[0], words, sizeof(words)),
			 " (60% of rail1:swp5's link, 100 Gbit/s)");
	cr_assert_eq(s->loads[1].rate_mbps, 2500, "an incast: of its receiver's link");
	cr_assert_str_eq(s->loads[1].link_of, "host1:rnic1");
	cr_assert_eq(s->loads[2].share, 0);
	cr_assert_eq(s->loads[2].rate_mbps, 120);
	cr_assert(s->loads[2].rc && !s->loads[1].rc && !s->loads[0].rc,
		  "transport: rc (udp unsaid)");
	cr_assert_str_eq(scn_load_share_text(&s->loads[2], words, sizeof(words)), "");
	scenario_free(s);

	/* host1:rnic1 not cabled: no speed to take a share of */
	FILE *inv = fopen("/tmp/rocelab-share-inv.yaml", "w");
	size_t len;
	char *vlab = rl_read_file(VLAB, &len), *cut = strstr(vlab, "  - { a: host1:rnic1,");

	cr_assert_not_null(inv);
	cr_assert_not_null(cut);
	fwrite(vlab, 1, (size_t)(cut - vlab), inv);
	fputs(strchr(cut, '\n') + 1, inv);
	fclose(inv);
	free(vlab);
	snprintf(text, sizeof(text),
		 "%s  - { kind: incast, to: host1:rnic1, from: [host2:rnic1], rate: 50%% }\n"
		 "expect: { class: switch-link }\n",
		 head);
	errf = open_memstream(&err, &errlen);
	s = scenario_parse("l.yaml", text, strlen(text), "/tmp/rocelab-share-inv.yaml", VLAB, 7,
			   errf);
	fclose(errf);
	remove("/tmp/rocelab-share-inv.yaml");
	cr_assert_null(s);
	cr_assert(strstr(err, "l.yaml:5:65: load rate 50%: host1:rnic1 is not cabled in the "
			      "inventory, so it has no link speed; give the rate in bits a second"),
		  "%s", err);
	free(err);
}

/*
 * Variants: every one validated whichever is loaded; each named
 * scenario.variant, with the components' parameters (and its own
 * expectation) as it says, over the same roles and faults.
 */
Test(scenario, variants_change_the_components_and_keep_the_rest)
{
	const char *path = FIXTURES "/good-variants.yaml";
	struct scenario *s[3];
	char buf[64];

	for (unsigned v = 0; v < 3; v++) {
		s[v] = scenario_load_variant(path, NULL, VLAB, 7, stderr, v);
		cr_assert_not_null(s[v], "variant %u", v);
		cr_assert_eq(s[v]->n_variants, 3);
		cr_assert_eq(s[v]->variant_idx, v);
		cr_assert_str_eq(s[v]->group, "variants");
		cr_assert_str_eq(s[v]->faults[0].spec.target, s[0]->faults[0].spec.target,
				 "the same role picks");
	}
	cr_assert_str_eq(s[0]->name, "variants.go-back-n");
	cr_assert_str_eq(s[1]->name, "variants.mp-rdma");
	cr_assert_str_eq(s[2]->name, "variants.eunomia");
	const struct opt_desc *sp = opt_find(s[0]->comps[0].ops->params, "single-path"),
			      *rx = opt_find(s[0]->comps[0].ops->params, "receiver"),
			      *pr = opt_find(s[0]->comps[0].ops->params, "probe");

	cr_assert_str_eq(opt_value(sp, s[0]->comps[0].cfg, buf, sizeof(buf)), "true");
	cr_assert_str_eq(opt_value(sp, s[1]->comps[0].cfg, buf, sizeof(buf)), "false");
	cr_assert_str_eq(opt_value(sp, s[2]->comps[0].cfg, buf, sizeof(buf)), "false",
			 "go-back-n's change is not the others'");
	cr_assert_str_eq(opt_value(rx, s[2]->comps[0].cfg, buf, sizeof(buf)), "eunomia");
	cr_assert_float_eq(strtod(opt_value(pr, s[2]->comps[0].cfg, buf, sizeof(buf)), NULL), 0.003,
			   1e-9, "the components' own parameters hold in every variant");
	/* go-back-n's own expectation; the others the scenario's */
	cr_assert_eq(s[0]->comps[0].expect.n_metrics, 1);
	cr_assert_str_eq(s[0]->comps[0].expect.metrics[0].name, "fault-vs-optimal");
	cr_assert_str_eq(s[1]->comps[0].expect.metrics[0].name, "payload-errors");
	for (unsigned v = 0; v < 3; v++)
		scenario_free(s[v]);

	char *out = NULL;
	size_t outlen = 0;
	FILE *errf = open_memstream(&out, &outlen);

	cr_assert_null(scenario_load_variant(path, NULL, VLAB, 7, errf, 3));
	fclose(errf);
	cr_assert(strstr(out, "the scenario has 3 variants, not 4"), "%s", out);
	free(out);
}
