// SPDX-License-Identifier: MIT
/* A run's results as OpenMetrics: every family once, the grades as gauges, hostile names as data.
 */
#define _GNU_SOURCE
#include "harness/lib/common.h"
#include "reports/openmetrics.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static char err[512];

/*
 * A run as 'rocelab run' writes it: a flap Hostmesh found (2.5 s of 8 s, rank
 * 1, precision 0.75), a fault-free scenario it kept silent in, one it is
 * known blind to, an invalid one, and MP-RDMA's goodput.
 */
static const char run_json[] =
    "{\"schema_version\": 4, \"run_id\": \"20261129T010000Z-abcd\", \"lab\": \"vlab-rail\","
    " \"lab_kind\": \"vlab\", \"rocelab\": \"0.2.0\", \"started\": 1000, \"ended\": 1100.5,"
    " \"scenarios\": ["
    "  {\"name\": \"flap\", \"suite\": \"ci\", \"verdict\": \"pass\", \"duration_s\": 21.5,"
    "   \"rig\": {\"phases\": {\"baseline\": {\"pressure_mean\": 0.12, \"over_bound\": 0.04,"
    "     \"busy_mean\": 0.33, \"stall_max_ms\": 11.5}}},"
    "   \"components\": {\"hostmesh\": {\"verdict\": \"pass\", \"detected\": true,"
    "     \"time_to_detect_s\": 2.5, \"rank\": 1, \"precision\": 0.75, \"false_positives\": 0,"
    "     \"expected\": {\"class\": \"switch-link\", \"target\": \"rail1:swp5\", \"within_s\": 8,"
    "       \"silent\": false},"
    "     \"metrics\": {\"agent-cpu\": {\"value\": 8.9, \"unit\": \"%\"}}}}},"
    "  {\"name\": \"no-fault\", \"suite\": \"ci\", \"verdict\": \"pass\","
    "   \"components\": {\"hostmesh\": {\"verdict\": \"pass\", \"detected\": false,"
    "     \"time_to_detect_s\": null, \"rank\": null, \"precision\": null,"
    "     \"false_positives\": 0, \"expected\": {\"class\": \"\", \"target\": \"\","
    "       \"within_s\": 10, \"silent\": true}}}},"
    "  {\"name\": \"blind\", \"suite\": \"ci\", \"verdict\": \"fail\","
    "   \"known_blind\": \"no probe crosses it\", \"components\": {}},"
    "  {\"name\": \"broken\", \"suite\": \"ci\", \"verdict\": \"invalid\", \"components\": {}},"
    "  {\"name\": \"lossy\", \"suite\": \"transport\", \"verdict\": \"pass\","
    "   \"components\": {\"mprdma\": {\"verdict\": \"pass\", \"expected\": {\"silent\": false,"
    "     \"class\": \"\", \"target\": \"\"},"
    "     \"metrics\": {\"goodput-vs-optimal\": {\"value\": 0.93, \"unit\": \"ratio\"}}}}}"
    "]}";

static char *export_of(const char *json)
{
	json_error_t je;
	json_t *root = json_loads(json, 0, &je);
	char *text;

	cr_assert_not_null(root, "%d: %s", je.line, je.text);
	text = om_results(root, err, sizeof(err));
	json_decref(root);
	return text;
}

static void has_line(const char *text, const char *line)
{
	char *want = NULL;

	cr_assert(asprintf(&want, "\n%s\n", line) > 0);
	cr_assert_not_null(strstr(text, want), "no line '%s' in:\n%s", line, text);
	free(want);
}

Test(openmetrics, a_run_as_gauges_each_family_once_ending_in_eof)
{
	char *text = export_of(run_json);
	size_t n = strlen(text);

	cr_assert_not_null(text, "%s", err);
	has_line(text, "# TYPE rocelab_time_to_detect_seconds gauge");
	has_line(text, "# UNIT rocelab_time_to_detect_seconds seconds");
	has_line(text, "rocelab_run_identity{lab=\"vlab-rail\",run_id=\"20261129T010000Z-abcd\","
		       "rocelab=\"0.2.0\",lab_kind=\"vlab\"} 1");
	has_line(text, "rocelab_run_duration_seconds{lab=\"vlab-rail\"} 100.5");
	has_line(text, "rocelab_run_scenarios{lab=\"vlab-rail\",result=\"pass\"} 3");
	has_line(text, "rocelab_run_scenarios{lab=\"vlab-rail\",result=\"fail\"} 0");
	has_line(text, "rocelab_run_scenarios{lab=\"vlab-rail\",result=\"invalid\"} 1");
	has_line(text, "rocelab_run_scenarios{lab=\"vlab-rail\",result=\"known-blind\"} 1");
	has_line(text,
		 "rocelab_scenario_passed{lab=\"vlab-rail\",suite=\"ci\",scenario=\"flap\"} 1");
	has_line(text,
		 "rocelab_scenario_passed{lab=\"vlab-rail\",suite=\"ci\",scenario=\"blind\"} 0");
	has_line(text,
		 "rocelab_scenario_invalid{lab=\"vlab-rail\",suite=\"ci\",scenario=\"broken\"} 1");
	has_line(text, "rocelab_rig_stall_max_seconds{lab=\"vlab-rail\",suite=\"ci\","
		       "scenario=\"flap\",phase=\"baseline\"} 0.0115");
	has_line(text, "rocelab_time_to_detect_seconds{lab=\"vlab-rail\",suite=\"ci\","
		       "scenario=\"flap\",component=\"hostmesh\"} 2.5");
	has_line(text, "rocelab_time_to_detect_bound_seconds{lab=\"vlab-rail\",suite=\"ci\","
		       "scenario=\"flap\",component=\"hostmesh\"} 8");
	has_line(text, "rocelab_precision_ratio{lab=\"vlab-rail\",suite=\"ci\",scenario=\"flap\","
		       "component=\"hostmesh\"} 0.75");
	has_line(text, "rocelab_truth_rank{lab=\"vlab-rail\",suite=\"ci\",scenario=\"flap\","
		       "component=\"hostmesh\"} 1");
	has_line(text, "rocelab_component_detected{lab=\"vlab-rail\",suite=\"ci\","
		       "scenario=\"flap\",component=\"hostmesh\"} 1");
	has_line(text, "rocelab_false_positives{lab=\"vlab-rail\",suite=\"ci\","
		       "scenario=\"no-fault\",component=\"hostmesh\"} 0");
	has_line(text, "rocelab_component_metric{lab=\"vlab-rail\",suite=\"transport\","
		       "scenario=\"lossy\",component=\"mprdma\",metric=\"goodput-vs-optimal\","
		       "unit=\"ratio\"} 0.93");
	/* a silent expectation has no detection and no bound; a null figure is no sample */
	cr_assert_null(strstr(text, "rocelab_component_detected{lab=\"vlab-rail\",suite=\"ci\","
				    "scenario=\"no-fault\""));
	cr_assert_null(strstr(text, "rocelab_time_to_detect_bound_seconds{lab=\"vlab-rail\","
				    "suite=\"ci\",scenario=\"no-fault\""));
	cr_assert_null(strstr(text, "rocelab_truth_rank{lab=\"vlab-rail\",suite=\"ci\","
				    "scenario=\"no-fault\""));
	/* every family's metadata once, before its samples; the exposition's end */
	for (const char *p = text; (p = strstr(p, "# TYPE ")); p++) {
		char name[128], again[160];

		cr_assert_eq(sscanf(p, "# TYPE %127s", name), 1);
		snprintf(again, sizeof(again), "# TYPE %s ", name);
		cr_assert_null(strstr(p + 1, again), "%s twice", name);
		snprintf(again, sizeof(again), "\n%s{", name);
		cr_assert(!strstr(text, again) || strstr(text, again) > p, "%s before its TYPE",
			  name);
	}
	cr_assert(n > 6 && !strcmp(text + n - 6, "# EOF\n"));
	free(text);
}

/* A results folder is anyone's: its names are label values, escaped, never lines of their own. */
Test(openmetrics, hostile_names_are_escaped_and_a_scenario_twice_left_out)
{
	char *text = export_of(
	    "{\"run_id\": \"r1\", \"lab\": \"lab1\", \"started\": 1, \"scenarios\": ["
	    " {\"name\": \"s1\", \"suite\": \"x\\\"} 1\\nevil_total 1\\\\\", \"verdict\": \"pass\","
	    "  \"components\": {\"c\\nevil 2\": {\"verdict\": \"pass\", \"metrics\": {"
	    "   \"m\\\"\\u0001\": {\"value\": 1, \"unit\": \"\\r\"}}}}},"
	    " {\"name\": \"s1\", \"suite\": \"x\", \"verdict\": \"fail\"}]}");

	cr_assert_not_null(text, "%s", err);
	has_line(text, "rocelab_scenario_passed{lab=\"lab1\",suite=\"x\\\"} 1\\nevil_total "
		       "1\\\\\",scenario=\"s1\"} 1");
	has_line(text,
		 "rocelab_component_metric{lab=\"lab1\",suite=\"x\\\"} 1\\nevil_total "
		 "1\\\\\",scenario=\"s1\",component=\"c\\nevil 2\",metric=\"m\\\"?\",unit=\"?\"} "
		 "1");
	cr_assert_null(strstr(text, "\nevil"), "%s", text);
	cr_assert_null(strstr(text, "\r"));
	has_line(text, "rocelab_export_skipped{lab=\"lab1\"} 1");
	has_line(text, "rocelab_run_scenarios{lab=\"lab1\",result=\"pass\"} 1");
	has_line(text, "rocelab_run_scenarios{lab=\"lab1\",result=\"fail\"} 0");
	free(text);
}

Test(openmetrics, what_is_not_a_run_is_refused)
{
	cr_assert_null(export_of("{\"lab\": \"x\", \"scenarios\": []}"));
	cr_assert(strstr(err, "not the results of a run"), "%s", err);
	cr_assert_null(export_of("{\"run_id\": \"a b\", \"lab\": \"x\", \"started\": 1, "
				 "\"scenarios\": []}"));
	cr_assert(strstr(err, "not a name"), "%s", err);
	cr_assert_null(export_of("{\"run_id\": \"a\", \"lab\": \"x\", \"started\": 1, "
				 "\"scenarios\": [{\"name\": \"../up\"}]}"));
	cr_assert(strstr(err, "not a scenario's name"), "%s", err);
}

/* Written at once: a file beside it renamed over it, never half of it for a collector to read. */
Test(openmetrics, written_whole_over_the_old_file)
{
	char dir[] = "/tmp/rocelab-om-test.XXXXXX", path[64], *back;
	size_t len;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/rocelab.prom", dir);
	cr_assert_eq(om_write("old\n", path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(om_write("# EOF\n", path, err, sizeof(err)), 0, "%s", err);
	back = rl_read_file(path, &len);
	cr_assert_str_eq(back, "# EOF\n");
	free(back);
	snprintf(path, sizeof(path), "%s/no/rocelab.prom", dir);
	cr_assert_lt(om_write("x", path, err, sizeof(err)), 0);
	cr_assert(strstr(err, "/no"), "%s", err);
	rl_rm_rf(dir);
}

/* The names in a PromQL expression that look like rocelab's metrics, each checked against text. */
static void names_exported(const char *expr, const char *text, const char *where)
{
	for (const char *p = expr; (p = strstr(p, "rocelab_"));) {
		char name[128], type[160];
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");

		cr_assert_lt(n, sizeof(name));
		memcpy(name, p, n);
		name[n] = '\0';
		snprintf(type, sizeof(type), "# TYPE %s gauge\n", name);
		cr_assert_not_null(strstr(text, type), "%s: %s is no metric rocelab exports", where,
				   name);
		p += n;
	}
}

/* The Grafana dashboard in the tree: JSON, and every query of it on metrics the export writes. */
Test(openmetrics, the_grafana_dashboard_queries_only_exported_metrics)
{
	json_error_t je;
	json_t *d = json_load_file("../reports/grafana/rocelab-dashboard.json", 0, &je), *p, *t;
	char *text = export_of(run_json);
	size_t i, k, queries = 0;

	cr_assert_not_null(d, "rocelab-dashboard.json:%d:%d: %s", je.line, je.column, je.text);
	cr_assert_gt(json_array_size(json_object_get(d, "panels")), 5);
	json_array_foreach(json_object_get(d, "panels"), i, p)
	{
		const char *title = json_string_value(json_object_get(p, "title"));

		cr_assert_not_null(title);
		cr_assert(json_is_object(json_object_get(p, "gridPos")), "%s", title);
		cr_assert_gt(json_array_size(json_object_get(p, "targets")), 0, "%s", title);
		json_array_foreach(json_object_get(p, "targets"), k, t)
		{
			const char *expr = json_string_value(json_object_get(t, "expr"));

			cr_assert(expr && strstr(expr, "rocelab_"), "%s: a query of no metric",
				  title);
			names_exported(expr, text, title);
			queries++;
		}
	}
	json_array_foreach(json_object_get(json_object_get(d, "templating"), "list"), i, t)
	    names_exported(json_string_value(json_object_get(t, "definition")), text, "a variable");
	cr_assert_geq(queries, 9);
	free(text);
	json_decref(d);
}
