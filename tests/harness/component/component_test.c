// SPDX-License-Identifier: MIT
/*
 * What components hand the run, typed (harness/component/component.h):
 * verdicts both ways through the one key table, and the services a
 * monitor traced, found by flow and written as results.json has them.
 */
#include "harness/component/component.h"
#include "harness/lib/common.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	cr_assert_eq(w.n_set, 0, "no set: the target alone");
	json_decref(j);
	/* a monitor's own ambiguity (issue 64): the set it names, as many as it named */
	strcpy(v.set[0], "rail1:swp5--spine1:swp1");
	strcpy(v.set[1], "spine1");
	v.n_set = 2;
	j = verdict_to_json(&v);
	cr_assert_eq(verdict_from_json(j, &w), 0);
	cr_assert_eq(w.n_set, 2);
	cr_assert_str_eq(w.set[1], "spine1");
	json_array_append_new(json_object_get(j, VERDICT_K_SET), json_integer(3));
	cr_assert_eq(verdict_from_json(j, &w), -EINVAL, "a set's members are names");
	json_object_del(j, VERDICT_K_SET);
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

/*
 * A monitor's window is a step over the time it covers, clipped to the plot: a
 * window longer than the run (Hostmesh's paper windows are 20 s) drawn at its
 * midpoint put no point in the plot, and gnuplot refused the report.
 */
Test(component, a_window_is_drawn_over_the_plotted_time_it_covers)
{
	struct comp_times t = {.t_start = 1000, .t_fault = 1003, .t_end = 1008, .t_origin = 1003};
	double span[2];

	cr_assert(comp_plot_span(&t, 1001, 1003, span));
	cr_assert_float_eq(span[0], -2, 1e-9);
	cr_assert_float_eq(span[1], 0, 1e-9);
	/* a 30 s window from before the run to after it: the whole plot */
	cr_assert(comp_plot_span(&t, 975, 1005, span));
	cr_assert_float_eq(span[0], -3, 1e-9);
	cr_assert_float_eq(span[1], 2, 1e-9);
	cr_assert(comp_plot_span(&t, 1005, 1035, span));
	cr_assert_float_eq(span[0], 2, 1e-9);
	cr_assert_float_eq(span[1], 5, 1e-9);
	/* outside it, or touching it only at an end: not drawn */
	cr_assert_not(comp_plot_span(&t, 970, 1000, span));
	cr_assert_not(comp_plot_span(&t, 1008, 1010, span));
	cr_assert_not(comp_plot_span(&t, 1004, 1004, span));
	/*
	 * A run whose ends are not whole tenths from time zero: the x range is
	 * rounded to a tenth, and a window over it all clipped to that range
	 * exactly (at the run's own ends it lay 3 ms outside, and gnuplot drew
	 * no point: "all points y value undefined").
	 */
	t = (struct comp_times){
	    .t_start = 1000, .t_fault = 1003.503, .t_end = 1010.311, .t_origin = 1003.503};
	cr_assert(comp_plot_span(&t, 975, 1035, span));
	cr_assert_eq(span[0], -3.5, "%.17g", span[0]);
	cr_assert_eq(span[1], 6.8, "%.17g", span[1]);
}

/*
 * Issue 58: the plots count from the fault's start (the baseline negative),
 * their data files and verdicts with them, and say so; a plot's description
 * keeps its time zero, and one written before it had one reads as the run's
 * start, as its data files were written.
 */
Test(component, plots_count_from_the_faults_start)
{
	char dir[] = "/tmp/rl-comp-test-XXXXXX", gp[PATH_MAX + 32], path[PATH_MAX + 32], *text;
	struct comp_times t = {.t_start = 1000,
			       .t_fault = 1006.25,
			       .t_revert = 1014.25,
			       .t_end = 1020,
			       .t_origin = 1006.25};
	struct verdict v[2] = {{.time = 1004.0}, {.time = 1008.25}}; /* in time order */
	struct comp_obs obs = {.verdicts = v, .n_verdicts = 2};
	const double down[1][2] = {{1006.25, 1008.25}};
	struct comp_report r = {.png = "report.png",
				.title = "t",
				.t = &t,
				.obs = &obs,
				.component = "hostmesh",
				.down = down,
				.n_down = 1};
	struct comp_plot_desc d;
	size_t len;
	FILE *f;

	strcpy(v[0].cls, "rnic"), strcpy(v[0].target, "h:r");
	strcpy(v[1].cls, "switch-link"), strcpy(v[1].target, "a--b");
	cr_assert_not_null(mkdtemp(dir));
	r.dir = dir;
	cr_assert_float_eq(comp_t0(&t), 1006.25, 1e-9);
	cr_assert_str_eq(comp_time_label(&t), "time from the start of the fault (s)");
	cr_assert_eq(comp_plot_verdicts(&r, "verdicts.dat"), 0);
	snprintf(path, sizeof(path), "%s/verdicts.dat", dir);
	cr_assert_not_null(text = rl_read_file(path, &len));
	cr_assert(strstr(text, "\n-2.250 \"rnic h:r\"\n2.000 \"switch-link a--b\"\n"), "%s", text);
	free(text);
	/* drawn by gnuplot, the rig's panel with it: the labels are gnuplot's to read */
	snprintf(path, sizeof(path), "%s/rig.dat", dir);
	cr_assert_not_null(f = fopen(path, "w"));
	fprintf(f, "-6.0 0.1 0.2 0.01 1.0 0 0.5 0.2\n13.0 0.1 0.2 0.01 1.0 0 -1 -1\n");
	fclose(f);
	r.rig_dat = "rig.dat", r.rig_source = "this machine", r.rig_bound = 0.3, r.rig_cols = 8;
	cr_assert_not_null(f = comp_plot_begin(&r, "Hostmesh", NULL, 1, 400, gp, sizeof(gp)));
	fprintf(f, "set xlabel '%s'\nplot 'verdicts.dat' index 0 using 1:(0) with points\n",
		comp_time_label(&t));
	cr_assert_eq(comp_plot_end(&r, f, gp), 0, "gnuplot drew it (see %s/gnuplot.log)", dir);
	snprintf(path, sizeof(path), "%s/report.png", dir);
	cr_assert_eq(access(path, F_OK), 0);
	cr_assert_not_null(text = rl_read_file(gp, &len));
	cr_assert(strstr(text, "set xrange [-6.2:13.8]"), "%s", text);
	cr_assert(strstr(text, "set object 1 rect from 0.000, graph 0 to 8.000, graph 1"), "%s",
		  text);
	cr_assert(strstr(text, "set object 2 rect from 0.000, graph 0 to 2.000, graph 1"), "%s",
		  text);
	/* the run queue per CPU, and over SSH the most loaded host (issue 64) */
	cr_assert(strstr(text, "'' using 1:($7 >= 0 ? $7 : 1/0) dt 4 lc rgb '#606060' title 'run "
			       "queue per CPU, 1 s'"),
		  "%s", text);
	cr_assert(strstr(text, "'' using 1:($8 >= 0 ? $8 : 1/0) lw 2 lc rgb '#0060c0' title 'CPU "
			       "pressure, worst host'\n"),
		  "%s", text);
	free(text);
	/* the description keeps time zero */
	snprintf(path, sizeof(path), "%s/report.plot.json", dir);
	cr_assert_not_null(text = rl_read_file(path, &len));
	cr_assert_eq(comp_plot_desc_read(&d, text, len, gp, sizeof(gp)), 0, "%s", gp);
	cr_assert_float_eq(d.t.t_origin, 1006.25, 1e-6);
	cr_assert_eq(d.r.rig_cols, 8);
	comp_plot_desc_free(&d);
	free(text);
	/* one from before: no origin, its data since the start; a bad one is refused */
	{
		const char *old = "{\"rocelab_plot\":1,\"component\":\"hostmesh\",\"png\":"
				  "\"report.png\",\"title\":\"\",\"caption\":\"\",\"times\":{"
				  "\"start\":1000,\"end\":1020,\"fault\":1006,\"revert\":1014},"
				  "\"down\":[],\"params\":{}}";
		char bad[600];

		cr_assert_eq(comp_plot_desc_read(&d, old, strlen(old), gp, sizeof(gp)), 0, "%s",
			     gp);
		cr_assert_float_eq(comp_t0(&d.t), 1000, 1e-9);
		cr_assert_str_eq(comp_time_label(&d.t), "time since start (s)");
		comp_plot_desc_free(&d);
		snprintf(bad, sizeof(bad), "%.*s,\"origin\":\"x\"}%s",
			 (int)(strstr(old, "}") - old), old, strstr(old, "}") + 1);
		cr_assert_eq(comp_plot_desc_read(&d, bad, strlen(bad), gp, sizeof(gp)), -EINVAL);
		cr_assert(strstr(gp, "origin"), "%s", gp);
		/* a rig from before the run queue: six columns; a rig of nine refused */
		snprintf(bad, sizeof(bad),
			 "%.*s,\"rig\":{\"data\":\"rig.dat\",\"source\":"
			 "\"s\",\"bound\":0.5}}",
			 (int)strlen(old) - 1, old);
		cr_assert_eq(comp_plot_desc_read(&d, bad, strlen(bad), gp, sizeof(gp)), 0, "%s",
			     gp);
		cr_assert_eq(d.r.rig_cols, 6);
		comp_plot_desc_free(&d);
		snprintf(bad, sizeof(bad),
			 "%.*s,\"rig\":{\"data\":\"rig.dat\",\"source\":"
			 "\"s\",\"bound\":0.5,\"columns\":9}}",
			 (int)strlen(old) - 1, old);
		cr_assert_eq(comp_plot_desc_read(&d, bad, strlen(bad), gp, sizeof(gp)), -EINVAL);
		cr_assert(strstr(gp, "columns 6-8"), "%s", gp);
	}
	/* nothing injected: zero is the fault phase's start, and the axis says so */
	t.t_fault = 0;
	cr_assert_str_eq(comp_time_label(&t),
			 "time from the start of the fault phase (s; nothing injected)");
	snprintf(gp, sizeof(gp), "rm -rf '%s'", dir);
	cr_assert_eq(system(gp), 0);
}
