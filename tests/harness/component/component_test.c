// SPDX-License-Identifier: MIT
/*
 * What components hand the run, typed (harness/component/component.h):
 * verdicts both ways through the one key table, and the services a
 * monitor traced, found by flow and written as results.json has them.
 */
#include "harness/component/component.h"
#include "harness/lib/common.h"

#include <criterion/criterion.h>
#include <string.h>

Test(component, a_verdict_reads_back_as_written)
{
	struct verdict v = {.time = 12.5,
			    .emitted = 13.0,
			    .win = {0, 12.5},
			    .votes = 7,
			    .n_sus = 2},
		       w;
	json_t *j;

	strcpy(v.cls, "switch-link");
	strcpy(v.target, "rail1:swp5--spine1:swp1");
	strcpy(v.sus[0].target, "rail1:swp5--spine1:swp1");
	v.sus[0].votes = 7;
	strcpy(v.sus[1].target, "spine1");
	v.sus[1].good = 3;
	j = verdict_to_json(&v);
	cr_assert_eq(verdict_from_json(j, &w), 0);
	cr_assert_str_eq(w.cls, v.cls);
	cr_assert_str_eq(w.target, v.target);
	cr_assert_float_eq(w.time, 12.5, 1e-9);
	cr_assert_float_eq(w.emitted, 13.0, 1e-9);
	cr_assert_eq(w.votes, 7);
	cr_assert_eq(w.n_sus, 2);
	cr_assert_eq(w.sus[1].good, 3);
	json_object_del(j, VERDICT_K_CLASS);
	cr_assert_eq(verdict_from_json(j, &w), -EINVAL, "a verdict without its class");
	json_decref(j);
}

Test(component, services_are_found_by_flow_and_written_as_results_have_them)
{
	struct comp_obs o = {0};
	struct svc_obs *a = comp_obs_service(&o, "host1:rnic1", "host2:rnic1", 50001), *b;
	char longname[120];
	json_t *j, *e;

	cr_assert_not_null(a);
	a->windows = 3;
	a->impacted = 2;
	a->network = 1;
	*RL_PUSH(a->sender, a->n_sender) = (struct svc_window){10, 30, 40.5, 90};
	b = comp_obs_service(&o, "host1:rnic1", "host2:rnic1", 50002);
	cr_assert_neq(a, b, "another source port is another flow");
	cr_assert_eq(comp_obs_service(&o, "host1:rnic1", "host2:rnic1", 50001), &o.services[0],
		     "the same flow is found again");
	cr_assert_eq(o.n_services, 2);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	cr_assert_null(comp_obs_service(&o, longname, "host2:rnic1", 1));
	j = comp_obs_services_json(&o);
	e = json_object_get(j, "host1:rnic1>host2:rnic1/50001");
	cr_assert_not_null(e);
	cr_assert_eq(json_integer_value(json_object_get(e, "windows")), 3);
	cr_assert_eq(json_integer_value(json_object_get(e, "network_related")), 1);
	cr_assert_float_eq(json_number_value(json_array_get(
			       json_array_get(json_object_get(e, "sender_windows"), 0), 2)),
			   40.5, 1e-9);
	cr_assert_null(
	    json_object_get(json_object_get(j, "host1:rnic1>host2:rnic1/50002"), "sender_windows"),
	    "no sender windows: no key");
	json_decref(j);
	comp_obs_clear(&o);
	cr_assert_eq(o.n_services, 0);
}
