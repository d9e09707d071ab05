// SPDX-License-Identifier: MIT
/* results.json (jansson), junit.xml, and the incident report: gnuplot (pngcairo) timeline + HTML.
 */
#define _GNU_SOURCE
#include "reports/report.h"

#include "harness/lib/common.h"
#include "harness/lib/proc.h"
#include "harness/lib/sbuf.h"
#include "injectors/cmd/handoff.h"
#include "injectors/counters.h"
#include "reports/pages.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static const char *versions(char *buf, size_t len, const char *rocelab)
{
	struct utsname u;

	uname(&u);
	snprintf(buf, len, "rocelab %s; kernel %s %s", rocelab, u.release, u.machine);
	return buf;
}

/* "higher" or "lower" when the expectation bounds a metric from one side; NULL otherwise. */
static const char *metric_better(const struct scn_expect *e, const char *name)
{
	for (size_t i = 0; i < e->n_metrics; i++)
		if (!strcmp(e->metrics[i].name, name))
			switch (e->metrics[i].op) {
			case MOP_GE:
			case MOP_GT:
				return "higher";
			case MOP_LE:
			case MOP_LT:
				return "lower";
			case MOP_EQ:
				return NULL;
			}
	return NULL;
}

/* A component's verdicts merged into incidents, and the truth's rank in each in-fault verdict. */
static json_t *incidents_json(const struct grade *g)
{
	json_t *o = json_object(), *list = json_array(), *ranks = json_array();

	json_object_set_new(o, "during_fault", json_integer(g->incidents));
	json_object_set_new(o, "right", json_integer(g->incidents_right));
	json_object_set_new(o, "precision",
			    g->incident_precision >= 0 ? json_real(g->incident_precision)
						       : json_null());
	for (size_t i = 0; i < g->n_inc; i++) {
		const struct grade_incident *x = &g->inc[i];

		json_array_append_new(list, json_pack("{s:s,s:s,s:f,s:f,s:i,s:i,s:b,s:b}", "target",
						      x->target, "class", x->cls, "start", x->start,
						      "end", x->end, "verdicts", x->verdicts,
						      "other_class", x->other_cls, "in_fault",
						      x->in_fault, "right", x->right));
	}
	for (size_t i = 0; i < g->n_ranks; i++)
		json_array_append_new(ranks, json_pack("[f,i]", g->ranks[i].t, g->ranks[i].rank));
	json_object_set_new(o, "list", list);
	json_object_set_new(o, "truth_rank", ranks);
	return o;
}

/* A grade against expectation e: what a scenario says, and each component's section. */
static void grade_fields(json_t *o, const struct grade *g, const struct scn_expect *e)
{
	json_object_set_new(o, "known_blind", e->blind[0] ? json_string(e->blind) : json_null());
	json_object_set_new(o, "detected", json_boolean(g->detected));
	json_object_set_new(o, "time_to_detect_s",
			    g->time_to_detect_s >= 0 ? json_real(g->time_to_detect_s)
						     : json_null());
	json_object_set_new(o, "localized", json_boolean(g->localized));
	json_object_set_new(o, "rank", g->rank ? json_integer(g->rank) : json_null());
	/* Issue 64: against the truth's identifiability class under the monitor's probes */
	if (g->class_known)
		json_object_set_new(
		    o, "observability",
		    json_pack("{s:b,s:i,s:b,s:s,s:o,s:s,s:I}", "observable", g->observable,
			      "class_size", g->class_size, "exact", g->class_size == 1, "class",
			      g->class_names, "rank_class",
			      g->rank_class ? json_integer(g->rank_class) : json_null(), "basis",
			      g->class_basis[0] ? g->class_basis : "predicted", "paths",
			      (json_int_t)g->class_paths));
	else
		json_object_set_new(o, "observability", json_null());
	json_object_set_new(o, "class_ok", json_boolean(g->class_ok));
	json_object_set_new(o, "precision",
			    g->detected && g->precision >= 0 ? json_real(g->precision)
							     : json_null());
	json_object_set_new(o, "false_positives", json_integer(g->false_positives));
	/* host-processing verdicts the rig's measured CPU pressure explains (not false) */
	json_object_set_new(o, "rig_explained", json_integer(g->rig_explained));
	json_object_set_new(o, "effect_explained", json_integer(g->effect_explained));
	json_object_set_new(o, "incidents", incidents_json(g));
	json_object_set_new(o, "expected",
			    json_pack("{s:s,s:s,s:i,s:f,s:b}", "class", e->cls, "target", e->target,
				      "top_k", e->top_k, "within_s", (double)e->within_ms / 1e3,
				      "silent", e->silent));
	if (e->n_also) {
		json_t *also = json_array();

		for (size_t i = 0; i < e->n_also; i++)
			json_array_append_new(also, json_string(e->also[i]));
		json_object_set_new(json_object_get(o, "expected"), "also", also);
	}
	json_object_set_new(o, "got",
			    json_pack("{s:s,s:s}", "class", g->got_class, "target", g->got_target));
}

/* The rig while the scenario ran, by phase (issue 64). */
static const char *rig_source(const struct scn_result *r)
{
	return r->rig_local ? "this machine: every host of the virtual lab"
			    : "this machine: the controller (each host of the lab sampled itself)";
}

/*
 * Each load as it was asked and as its senders sent it (runner.h: run_load):
 * what makes a failure under it rig-limited, with the figure.
 */
static json_t *loads_block(const struct scn_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; r->s && i < r->n_loads && i < r->s->n_loads; i++) {
		const struct scn_load *l = &r->s->loads[i];
		const struct run_load *x = &r->loads[i];
		json_t *o = json_pack("{s:s,s:s,s:I,s:o,s:b}", "kind",
				      l->kind == LOAD_STREAM ? "stream" : "incast", "where",
				      l->kind == LOAD_STREAM ? l->across : l->to, "asked_mbps",
				      (json_int_t)l->rate_mbps, "sent_mbps",
				      x->sent_mbps < 0 ? json_null() : json_real(x->sent_mbps),
				      "refused", x->refused > 0);

		if (l->share > 0)
			json_object_set_new(o, "share",
					    json_pack("{s:f,s:s,s:I,s:b}", "of_link", l->share,
						      "link_of", l->link_of, "link_mbps",
						      (json_int_t)l->link_mbps, "speed_given",
						      l->link_speed_given));
		json_object_set_new(o, "transport", json_string(l->rc ? "rc" : "udp"));
		json_object_set_new(o, "sent_mbps_in_fault",
				    x->fault_mbps < 0 ? json_null() : json_real(x->fault_mbps));
		json_object_set_new(o, "rig_short", json_boolean(runner_load_short(r, i)));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *rig_block(const struct scn_result *r)
{
	const char *name[3];
	double from[3], to[3];
	size_t n = runner_phases(r, name, from, to);

	if (!r->rig.n)
		return json_null();
	return rig_json(&r->rig, rig_source(r), name, from, to, n);
}

/* Over SSH, each host's own rig, as it sampled itself ('rocelab rig'), by phase. */
static json_t *rig_hosts(const struct scn_result *r)
{
	json_t *o = json_object();
	const char *name[3];
	double from[3], to[3];
	size_t n = runner_phases(r, name, from, to);
	char source[160];

	for (size_t h = 0; r->s && h < r->n_host_rig && h < r->s->inv->n_hosts; h++) {
		if (!r->host_rig[h].n)
			continue;
		snprintf(source, sizeof(source), "host %s: its own ('rocelab rig' there, over SSH)",
			 r->s->inv->hosts[h].name);
		json_object_set_new(o, r->s->inv->hosts[h].name,
				    rig_json(&r->host_rig[h], source, name, from, to, n));
	}
	return o;
}

/*
 * The run queue at sample i as the panel draws it: the tasks runnable but the
 * sampler itself, per CPU, the mean of the second up to it (one sample is a
 * single instant: 0, 1 or 8 tasks); -1 where none was read.
 */
static double runq_per_cpu(const struct rig *g, size_t i)
{
	double sum = 0;
	size_t k = 0;

	for (size_t j = i + 1; j-- > 0 && g->s[j].t > g->s[i].t - 1.0;)
		if (g->s[j].runq >= 1)
			sum += g->s[j].runq - 1, k++;
	return k && g->cpus > 0 ? sum / (double)k / g->cpus : -1.0;
}

/*
 * The rig's samples as data for the report's panel: "t some busy controller
 * stall_ms steal runq_per_cpu" (t from time zero, runner_t0()), and over SSH
 * the worst host's pressure then (-1: none sampled).  Its columns into *cols.
 */
static const char *rig_dat(const struct scn_result *r, int *cols)
{
	char path[PATH_MAX + 16];
	double t0 = runner_t0(r);
	bool hosts = !r->rig_local && r->n_host_rig;
	FILE *f;

	if (!r->rig.n)
		return NULL;
	snprintf(path, sizeof(path), "%s/rig.dat", r->dir);
	if (!(f = fopen(path, "we")))
		return NULL;
	*cols = hosts ? 8 : 7;
	fprintf(f,
		"# t_s some busy controller_cpus stall_ms steal runq_per_cpu(%d CPUs; 1 s mean, "
		"the sampler aside)%s (%s)\n",
		r->rig.cpus, hosts ? " hosts_worst_some" : "", rig_source(r));
	for (size_t i = 0; i < r->rig.n; i++) {
		const struct rig_sample *s = &r->rig.s[i];

		fprintf(f, "%.3f %.4f %.4f %.4f %.3f %.4f %.4f", s->t - t0, s->some, s->busy,
			s->self, s->late_ms, s->steal, runq_per_cpu(&r->rig, i));
		if (hosts)
			fprintf(f, " %.4f",
				rig_worst_at(r->host_rig, r->n_host_rig, s->t, r->rig.interval));
		fputc('\n', f);
	}
	return fclose(f) ? NULL : "rig.dat";
}

static json_t *scenario_json(const struct scn_result *r)
{
	const struct scenario *s = r->s;
	const struct grade *g = &r->g;
	json_t *o = json_object(), *f = json_array(), *comps = json_object();

	json_object_set_new(o, "name", json_string(r->test_name));
	json_object_set_new(o, "suite", json_string(s->suite));
	json_object_set_new(o, "file", json_string(s->path));
	json_object_set_new(o, "verdict", json_string(run_verdict_name(g->verdict)));
	json_object_set_new(o, "reason", json_string(g->reason));
	grade_fields(o, g, &s->expect);
	for (size_t i = 0; i < s->n_faults; i++) {
		json_t *x = json_pack("{s:s,s:s}", "kind", s->faults[i].spec.kind->name, "target",
				      s->faults[i].spec.target);

		/* A target given by role: how it was asked for (the run's seed picked it). */
		if (s->faults[i].role[0])
			json_object_set_new(x, "role", json_string(s->faults[i].role));
		json_array_append_new(f, x);
	}
	json_object_set_new(o, "faults", f);
	if (s->n_fabric) {
		json_t *fab = json_array();

		for (size_t i = 0; i < s->n_fabric; i++)
			json_array_append_new(
			    fab, json_pack("{s:s,s:s,s:I}", "kind", s->fabric[i].spec.kind->name,
					   "target", s->fabric[i].spec.target, "rate_kbit",
					   (json_int_t)fault_spec_link_rate(&s->fabric[i].spec)));
		json_object_set_new(o, "fabric", fab);
	}
	json_object_set_new(o, "fault_window",
			    r->t_fault > 0 ? json_pack("[f,f]", r->t_fault, r->t_revert)
					   : json_null());
	/* applied to when its undo began: the phase's time, however long the apply took */
	if (r->t_fault > 0 && r->t_unapply > r->t_fault)
		json_object_set_new(o, "fault_live", json_pack("[f,f]", r->t_fault, r->t_unapply));
	if (r->t_fault > 0) {
		json_t *eff = json_array();

		/*
		 * When the fault acted, as measured (issue 64): a flap's down intervals as
		 * its ends read them; any other fault from its apply to its revert.
		 */
		for (size_t i = 0; i < r->n_down; i++)
			json_array_append_new(eff,
					      json_pack("[f,f]", r->down[i][0], r->down[i][1]));
		if (!r->n_down)
			json_array_append_new(eff, json_pack("[f,f]", r->t_fault, r->t_revert));
		json_object_set_new(o, "effect_intervals", eff);
		json_object_set_new(o, "injector_started", json_real(r->t_inject));
		/* ground truth of time to detect: the fault live and, where a load reveals it,
		 * the load running */
		json_object_set_new(o, "effect_start",
				    json_real(r->t_load > r->t_fault ? r->t_load : r->t_fault));
	}
	json_object_set_new(o, "evidence", json_string(r->evidence));
	json_object_set_new(o, "emulated", json_boolean(r->emulated));
	/* read back after the revert: what did not come back as it was found */
	json_object_set_new(o, "drift", r->drift[0] ? json_string(r->drift) : json_null());
	/* what the faults' ends counted while in effect (counters.h), as their injectors read */
	json_object_set_new(o, "counters",
			    r->counters ? json_deep_copy(r->counters) : json_array());
	/* what the faults' kinds measured (a PFC watchdog's times against its settings, graded) */
	json_object_set_new(o, "measured",
			    r->measured ? json_deep_copy(r->measured) : json_array());
	if (r->note[0])
		json_object_set_new(o, "emulated_note", json_string(r->note));
	json_object_set_new(o, "loads", loads_block(r));
	json_object_set_new(o, "duration_s", json_real(r->t_end - r->t_start));
	json_object_set_new(o, "rig", rig_block(r));
	if (!r->rig_local)
		json_object_set_new(o, "rig_hosts", rig_hosts(r));
	if (r->s->n_variants > 1) /* which of its variants (reports/variants.c: side by side) */
		json_object_set_new(o, "variant",
				    json_pack("{s:s, s:s, s:I, s:I}", "of", r->s->group, "name",
					      r->s->variant, "index",
					      (json_int_t)r->s->variant_idx + 1, "count",
					      (json_int_t)r->s->n_variants));
	/* --retries: how many runs it took, and each failed one's reason and files */
	json_object_set_new(o, "attempts", json_integer(r->attempts > 1 ? r->attempts : 1));
	if (r->attempts > 1) {
		json_t *fa = json_array();
		char kept[sizeof(r->test_name) + 32];

		for (int k = 0; k < runner_failed_runs(r); k++) {
			snprintf(kept, sizeof(kept), RUNNER_KEPT, r->test_name, k + 1);
			json_array_append_new(fa,
					      json_pack("{s:i,s:s,s:s}", "attempt", k + 1, "reason",
							r->failed_reason[k], "files", kept));
		}
		json_object_set_new(o, "failed_attempts", fa);
	}
	/* Each component's own section, with its grade and metrics. */
	for (size_t i = 0; i < r->n_comps; i++) {
		const struct comp_result *c = &r->comps[i];
		json_t *sec = c->obs.section ? json_deep_copy(c->obs.section) : json_object();
		json_t *m = json_object();

		json_object_set_new(sec, "verdict", json_string(run_verdict_name(c->g.verdict)));
		json_object_set_new(sec, "reason", json_string(c->g.reason));
		/* Its grade against its own expectation: monitors side by side. */
		grade_fields(sec, &c->g, &c->sc->expect);
		for (size_t k = 0; k < c->obs.n_metrics; k++) {
			const struct metric *x = &c->obs.metrics[k];
			json_t *v = json_pack("{s:f,s:s}", "value", x->value, "unit", x->unit);
			const char *better = metric_better(&c->sc->expect, x->name);

			if (better) /* which way is worse, for 'rocelab compare' */
				json_object_set_new(v, "better", json_string(better));
			json_object_set_new(m, x->name, v);
		}
		json_object_set_new(sec, "metrics", m);
		json_object_set_new(comps, c->sc->ops->name, sec);
		/* Compatibility: the first component's keys also at the top (transport, probes,
		 * ...). */
		if (i == 0 && c->obs.section)
			json_object_update_missing(o, c->obs.section);
	}
	json_object_set_new(o, "components", comps);
	json_object_set_new(o, "report", json_sprintf("%s/report.html", r->test_name));
	return o;
}

json_t *report_results(const struct run_info *ri, struct scn_result *r, size_t n)
{
	json_t *root = json_object(), *arr = json_array();
	char ver[256];

	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, scenario_json(&r[i]));
	/*
	 * 2: run_id, lab, ended; junit.xml with failure bodies and attachments.
	 * 3: inventory_sha256, dut, precision, metrics' better, baseline
	 * (reports/results.schema.json).
	 */
	json_object_set_new(root, "schema_version", json_integer(4));
	json_object_set_new(root, "run_id", json_string(ri->run_id));
	json_object_set_new(root, "lab", json_string(ri->inv ? ri->inv->name : ""));
	json_object_set_new(root, "rocelab", json_string(ri->version));
	json_object_set_new(root, "versions", json_string(versions(ver, sizeof(ver), ri->version)));
	json_object_set_new(root, "inventory", json_string(ri->inventory));
	json_object_set_new(root, "inventory_sha256",
			    ri->inventory_sha256[0] ? json_string(ri->inventory_sha256)
						    : json_null());
	json_object_set_new(root, "lab_kind", json_string(ri->lab_kind ? ri->lab_kind : ""));
	json_object_set_new(root, "seed", json_integer(ri->seed));
	if (ri->clock && ri->inv) { /* what the time-to-detect figures carry, and took off */
		json_t *sk = json_object(), *within = json_object(), *off = json_object();

		for (size_t h = 0; h < ri->inv->n_hosts; h++) {
			const char *name = ri->inv->hosts[h].name;

			json_object_set_new(sk, name,
					    json_real(round(ri->clock[h].skew * 1e6) / 1e6));
			json_object_set_new(within, name,
					    json_real(round(ri->clock[h].within * 1e6) / 1e6));
			json_object_set_new(off, name,
					    json_real(round(ri->clock[h].offset * 1e6) / 1e6));
		}
		json_object_set_new(root, "clock_skew_s", sk);
		json_object_set_new(root, "clock_skew_within_s", within);
		json_object_set_new(root, "clock_corrected_s", off);
	}
	json_object_set_new(root, "started", json_real(ri->started));
	json_object_set_new(root, "ended", ri->ended > 0 ? json_real(ri->ended) : json_null());
	json_object_set_new(root, "dut",
			    ri->dut ? json_incref(ri->dut)
				    : json_pack("{s:{},s:{}}", "hosts", "switches"));
	json_object_set_new(root, "scenarios", arr);
	if (ri->n_unplaced) {
		json_t *u = json_array();

		for (size_t i = 0; i < ri->n_unplaced; i++)
			json_array_append_new(u,
					      json_pack("{s:s,s:s}", "file", ri->unplaced[i].file,
							"reason", ri->unplaced[i].why));
		json_object_set_new(root, "unplaced", u);
	}
	/* 4: the monitors side by side, per suite */
	json_object_set_new(root, "monitors", pages_monitors(arr));
	return root;
}

int report_write_results(const struct run_info *ri, const json_t *root)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/results.json", ri->outdir);
	ret = json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ? -EIO : 0;
	if (ret)
		rl_err("run: cannot write %s", path);
	return ret;
}

int report_results_json(const struct run_info *ri, struct scn_result *r, size_t n)
{
	json_t *root = report_results(ri, r, n);
	int ret = report_write_results(ri, root);

	json_decref(root);
	return ret;
}

/* "2026-11-23T17:05:38" (UTC), as Surefire's timestamp attribute has it. */
#define ISO_UTC "%Y-%m-%dT%H:%M:%S"

static void junit_property_at(FILE *f, const char *indent, const char *name, const char *value)
{
	char a[1024], n[512];

	fprintf(f, "%s<property name=\"%s\" value=\"%s\"/>\n", indent,
		rl_xml_escape(name, n, sizeof(n)), rl_xml_escape(value ? value : "", a, sizeof(a)));
}

static void junit_property(FILE *f, const char *name, const char *value)
{
	junit_property_at(f, "      ", name, value);
}

/* What each fault's ends counted while it was in effect, in system-out: a line a fault, then
 * fault_counters_text(). */
static void junit_counters(FILE *f, json_t *counters)
{
	json_t *c;
	size_t i;

	json_array_foreach(counters, i, c)
	{
		struct sbuf b = {0};

		fprintf(f, "fault %lld counted in %.1f s:%s\n",
			(long long)json_integer_value(json_object_get(c, "fault")),
			json_number_value(json_object_get(c, "span_s")),
			json_object_size(json_object_get(c, "deltas")) ? "" : " nothing");
		fault_counters_text(c, 8, &b);
		if (b.p)
			rl_xml_fputs(f, b.p);
		sb_free(&b);
	}
}

/* What each fault's kind measured (a PFC watchdog, graded), in system-out: a line each. */
static void junit_measured(FILE *f, json_t *measured)
{
	json_t *m;
	size_t i;

	json_array_foreach(measured, i, m)
	{
		struct sbuf b = {0};

		fault_measured_text(m, &b);
		if (b.p) {
			fprintf(f, "fault %lld measured: ",
				(long long)json_integer_value(json_object_get(m, "fault")));
			rl_xml_fputs(f, b.p);
		}
		sb_free(&b);
	}
}

/*
 * A failure's or error's body: GitLab shows only this (it ignores the
 * message attribute), Jenkins shows both.  What was expected, what came
 * out, and the evidence the fault left.
 */
static void junit_body(FILE *f, const struct scn_result *x)
{
	const struct scenario *s = x->s;
	const struct grade *g = &x->g;
	const struct scn_expect *e = &s->expect;

	fputs("reason: ", f);
	rl_xml_fputs(f, g->reason);
	fprintf(f, "\nscenario: ");
	rl_xml_fputs(f, s->path);
	for (size_t i = 0; i < s->n_faults; i++) {
		fprintf(f, "\nfault: %s ", s->faults[i].spec.kind->name);
		rl_xml_fputs(f, s->faults[i].spec.target);
	}
	if (e->silent)
		fputs("\nexpected: no verdict", f);
	else if (e->cls[0]) {
		fprintf(f, "\nexpected: %s at ", e->cls);
		rl_xml_fputs(f, e->target[0] ? e->target : "the fault's target");
		fprintf(f, " (top %d) within %.1f s", e->top_k, (double)e->within_ms / 1e3);
	}
	if (g->got_class[0]) {
		fprintf(f, "\ngot: %s ", g->got_class);
		rl_xml_fputs(f, g->got_target);
	} else {
		fputs("\ngot: no verdict", f);
	}
	if (g->detected)
		fprintf(f, "; detected after %.1f s", g->time_to_detect_s);
	fprintf(f, "; rank %d; %d false positive(s)", g->rank, g->false_positives);
	if (g->rig_explained)
		fprintf(
		    f,
		    "; %d verdict(s) the rig's measured CPU pressure explains (host-processing, "
		    "or latency a pressed host's clock timed)",
		    g->rig_explained);
	if (g->effect_explained)
		fprintf(f, "; %d verdict(s) on a link flap the fault's own driver made, measured",
			g->effect_explained);
	if (g->fp_first[0]) {
		fputs(", the first: ", f);
		rl_xml_fputs(f, g->fp_first);
	}
	for (size_t i = 0; i < x->n_comps; i++) {
		fprintf(f, "\ncomponent %s: %s", x->comps[i].sc->ops->name,
			run_verdict_name(x->comps[i].g.verdict));
		if (x->comps[i].g.reason[0]) {
			fputs(" (", f);
			rl_xml_fputs(f, x->comps[i].g.reason);
			fputc(')', f);
		}
	}
	if (x->evidence[0]) {
		fputs("\nevidence: ", f);
		rl_xml_fputs(f, x->evidence);
	}
	if (x->emulated) {
		fputs("\nemulated: ", f);
		rl_xml_fputs(f, x->note[0] ? x->note : "yes");
	}
	if (x->drift[0]) {
		fputs("\ndrift after the revert: ", f);
		rl_xml_fputs(f, x->drift);
	}
	fputc('\n', f);
}

/*
 * Where the attachments' paths start: GitLab opens an attachment only by a
 * path relative to $CI_PROJECT_DIR (its JUnit report docs; gitlab-org/gitlab
 * MR 62612), so within a GitLab job whose project folder holds the results,
 * the results folder's path from it; else nothing (paths from the folder
 * junit.xml is in, which stay right wherever the folder is archived).  Into
 * prefix ("" or "build/results/"); false when there is no results folder.
 */
static bool junit_prefix(const char *outdir, char *prefix, size_t len)
{
	const char *proj = getenv("CI_PROJECT_DIR");
	char out[PATH_MAX], base[PATH_MAX];
	size_t n;

	prefix[0] = '\0';
	if (!realpath(outdir, out))
		return false;
	if (!proj || !*proj || !realpath(proj, base))
		return true;
	n = strlen(base);
	if (!strncmp(out, base, n) && out[n] == '/')
		snprintf(prefix, len, "%s/", out + n + 1);
	return true;
}

/* An attachment of a scenario: every monitor's plot, its report page, each log and record file. */
static bool junit_attached(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' &&
	       ((!strncmp(name, "report", 6) && len > 4 && !strcmp(name + len - 4, ".png")) ||
		!strcmp(name, "report.html") || (len > 4 && !strcmp(name + len - 4, ".log")) ||
		(len > 6 && !strcmp(name + len - 6, ".jsonl")));
}

/*
 * Jenkins' JUnit Attachments plugin and GitLab's test report read
 * [[ATTACHMENT|PATH]] lines in system-out: the scenario's report, every
 * monitor's plot and every log it kept, each by its path from prefix.
 * GitLab takes a failed case's first one only (gitlabhq/gitlabhq
 * lib/gitlab/ci/parsers/test/junit.rb, ATTACHMENT_TAG_REGEX): report.png.
 */
static void junit_attachments(FILE *f, const struct scn_result *x, const char *prefix)
{
	struct dirent **ents = NULL;
	int n = scandir(x->dir, &ents, NULL, alphasort);

	if (n <= 0)
		return;
	fputs("      <system-out>", f);
	/* Each monitor's localization against what its probes can tell apart (issue 64). */
	for (size_t i = 0; i < x->n_comps; i++) {
		const struct grade *g = &x->comps[i].g;
		char line[sizeof(g->class_names) + 200];

		if (!g->class_known)
			continue;
		snprintf(line, sizeof(line),
			 "observability %s: %s, class of %d (%s); rank %d exact, %d against the "
			 "class (classes from %ld %s paths)\n",
			 x->comps[i].sc->ops->name, g->observable ? "observable" : "unobservable",
			 g->class_size, g->class_names, g->rank, g->rank_class, g->class_paths,
			 g->class_basis[0] ? g->class_basis : "predicted");
		rl_xml_fputs(f, line);
	}
	junit_counters(f, x->counters);
	junit_measured(f, x->measured);
	for (size_t i = 0; x->s && i < x->n_loads && i < x->s->n_loads; i++) {
		char line[320];

		fputs("load ", f);
		rl_xml_fputs(f, runner_load_text(x, i, line, sizeof(line)));
		fputc('\n', f);
	}
	/* GitLab shows a failure's first attachment alone: the plot comes first */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++) {
			const char *name = ents[i]->d_name;
			bool plot = !strcmp(name, "report.png");

			if (!junit_attached(name) || plot != (pass == 0))
				continue;
			fputs("[[ATTACHMENT|", f);
			rl_xml_fputs(f, prefix);
			rl_xml_fputs(f, x->test_name);
			fputc('/', f);
			rl_xml_fputs(f, name);
			fputs("]]\n", f);
		}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	fputs("</system-out>\n", f);
}

/*
 * A test case's own properties, for a CI's test view: its faults, what was
 * expected, what it got, time to detect and its bound, rank, precision,
 * false positives.  (Beyond Jenkins' junit-10.xsd, as pytest's
 * record_property writes them; Jenkins' JUnit plugin shows them, GitLab
 * passes them by.)
 */
static void junit_case_properties(FILE *f, const struct scn_result *x)
{
	const struct scenario *s = x->s;
	const struct grade *g = &x->g;
	char v[FAULT_NAME_MAX + 128];

	fprintf(f, "      <properties>\n");
	for (size_t i = 0; i < s->n_faults; i++) {
		snprintf(v, sizeof(v), "%s %s", s->faults[i].spec.kind->name,
			 s->faults[i].spec.target);
		junit_property_at(f, "        ", "fault", v);
	}
	if (s->expect.silent)
		junit_property_at(f, "        ", "expected", "no verdict");
	else {
		junit_property_at(f, "        ", "expected.class", s->expect.cls);
		junit_property_at(f, "        ", "expected.target", s->expect.target);
		snprintf(v, sizeof(v), "%.3f", (double)s->expect.within_ms / 1e3);
		junit_property_at(f, "        ", "expected.within_s", v);
	}
	junit_property_at(f, "        ", "got.class", g->got_class);
	junit_property_at(f, "        ", "got.target", g->got_target);
	if (g->detected) {
		snprintf(v, sizeof(v), "%.3f", g->time_to_detect_s);
		junit_property_at(f, "        ", "time_to_detect_s", v);
	}
	if (g->rank) {
		snprintf(v, sizeof(v), "%d", g->rank);
		junit_property_at(f, "        ", "rank", v);
	}
	if (g->detected && g->precision >= 0) {
		snprintf(v, sizeof(v), "%.3f", g->precision);
		junit_property_at(f, "        ", "precision", v);
	}
	snprintf(v, sizeof(v), "%d", g->false_positives);
	junit_property_at(f, "        ", "false_positives", v);
	fprintf(f, "      </properties>\n");
}

/* PREFIX.KEY for each of keys that o has as a string (one not read is null: left out). */
static void junit_dut_keys(FILE *f, const char *prefix, const json_t *o, const char *const *keys,
			   size_t n)
{
	char key[320];

	for (size_t i = 0; i < n; i++)
		if (json_string_value(json_object_get(o, keys[i]))) {
			snprintf(key, sizeof(key), "%s.%s", prefix, keys[i]);
			junit_property(f, key, json_string_value(json_object_get(o, keys[i])));
		}
}

/* The devices under test as properties: dut.HOST.kernel, dut.HOST:RNIC.firmware, dut.SW.version. */
static void junit_dut(FILE *f, const json_t *dut)
{
	static const char *const host_keys[] = {"kernel"},
				 *const rnic_keys[] = {"driver", "firmware", "model"},
				 *const sw_keys[] = {"nos", "version", "model"};
	const char *name, *rn;
	const json_t *d, *r;
	char prefix[256];

	json_object_foreach((json_t *)json_object_get(dut, "hosts"), name, d)
	{
		snprintf(prefix, sizeof(prefix), "dut.%s", name);
		junit_dut_keys(f, prefix, d, host_keys, ARRAY_SIZE(host_keys));
		json_object_foreach((json_t *)json_object_get(d, "rnics"), rn, r)
		{
			snprintf(prefix, sizeof(prefix), "dut.%s:%s", name, rn);
			junit_dut_keys(f, prefix, r, rnic_keys, ARRAY_SIZE(rnic_keys));
		}
	}
	json_object_foreach((json_t *)json_object_get(dut, "switches"), name, d)
	{
		snprintf(prefix, sizeof(prefix), "dut.%s", name);
		junit_dut_keys(f, prefix, d, sw_keys, ARRAY_SIZE(sw_keys));
	}
}

/* A scenario this lab cannot place, as a skipped test case named after its file. */
static void junit_unplaced(FILE *f, const char *suite, const struct run_unplaced *u)
{
	char a[1024], b[PATH_MAX * 2], m[1400];
	const char *base = strrchr(u->file, '/') ? strrchr(u->file, '/') + 1 : u->file;
	size_t len = strlen(base);

	if (len > 5 && !strcmp(base + len - 5, ".yaml"))
		len -= 5;
	snprintf(m, sizeof(m), "%.*s", (int)len, base);
	fprintf(f, "    <testcase classname=\"rocelab.%s\" name=\"%s\" time=\"0\">\n",
		rl_xml_escape(suite, a, sizeof(a)), rl_xml_escape(m, b, sizeof(b)));
	snprintf(m, sizeof(m), "cannot be placed on this lab: %s", u->why);
	fprintf(f, "      <skipped type=\"rocelab.unplaced\" message=\"%s\">",
		rl_xml_escape(m, a, sizeof(a)));
	rl_xml_fputs(f, u->file);
	fprintf(f, "</skipped>\n    </testcase>\n");
}

/* The comparison with the baseline as one test case: failed by any regression. */
static void junit_baseline(FILE *f, const char *suite, const json_t *c)
{
	const json_t *reg = json_object_get(c, "regressions"), *x;
	const char *base = json_string_value(json_object_get(json_object_get(c, "a"), "run_id"));
	char a[1024], b[256], e[2048];
	size_t i;

	fprintf(f, "    <testcase classname=\"rocelab.%s\" name=\"baseline %s\" time=\"0\">\n",
		rl_xml_escape(suite, a, sizeof(a)), rl_xml_escape(base ? base : "", b, sizeof(b)));
	if (json_array_size(reg)) {
		x = json_array_get(reg, 0);
		snprintf(a, sizeof(a), "%zu regression(s) against %s, first %s: %s",
			 json_array_size(reg), base ? base : "",
			 json_string_value(json_object_get(x, "scenario")),
			 json_string_value(json_object_get(x, "text")));
		fprintf(f, "      <failure type=\"rocelab.regression\" message=\"%s\">",
			rl_xml_escape(a, e, sizeof(e)));
		json_array_foreach(reg, i, x)
		{
			snprintf(a, sizeof(a), "%s: %s\n",
				 json_string_value(json_object_get(x, "scenario")),
				 json_string_value(json_object_get(x, "text")));
			rl_xml_fputs(f, a);
		}
		fprintf(f, "</failure>\n");
	}
	fprintf(f, "    </testcase>\n");
}

/* A suite's counts (its test cases, failures, errors, known blind skipped) and time. */
struct junit_counts {
	size_t tests, fails, errs, skips;
	double time;
};

static void junit_count(struct junit_counts *c, const struct scn_result *x)
{
	bool blind = runner_known_blind(x);

	c->tests++;
	c->fails += x->g.verdict == RV_FAIL && !blind;
	c->skips += blind;
	c->errs += x->g.verdict == RV_INVALID;
	c->time += x->t_end > x->t_start ? x->t_end - x->t_start : 0;
}

/* One test case: its properties, its failure, error or skip, earlier failed runs, attachments. */
static void junit_case(FILE *f, const struct scn_result *x, const char *prefix)
{
	char a[1024], b[1024];

	fprintf(f, "    <testcase classname=\"rocelab.%s\" name=\"%s\" time=\"%.3f\">\n",
		rl_xml_escape(x->s->suite, a, sizeof(a)), rl_xml_escape(x->test_name, b, sizeof(b)),
		x->t_end > x->t_start ? x->t_end - x->t_start : 0);
	junit_case_properties(f, x);
	if (x->g.verdict != RV_PASS) {
		bool failed = x->g.verdict == RV_FAIL;
		/* known blind: failing is what is expected today; the reason says why */
		bool blind = runner_known_blind(x);
		const char *el = blind ? "skipped" : failed ? "failure" : "error";

		if (blind && x->s->expect.blind[0])
			snprintf(b, sizeof(b), "known blind (%s): %s", x->s->expect.blind,
				 x->g.reason);
		else if (blind) /* unobservable: the reason says so */
			snprintf(b, sizeof(b), "%s", x->g.reason);
		fprintf(f, "      <%s type=\"rocelab.%s\" message=\"%s\">", el,
			blind ? "known-blind" : run_verdict_name(x->g.verdict),
			rl_xml_escape(blind ? b : x->g.reason, a, sizeof(a)));
		junit_body(f, x);
		fprintf(f, "</%s>\n", el);
	}
	/* Earlier failed runs (--retries): Jenkins' schema has no rerun element. */
	if (x->attempts > 1) {
		char line[sizeof(x->dir) + sizeof(x->failed_reason[0]) + 96];

		fputs("      <system-err>", f);
		for (int k = 0; k < runner_failed_runs(x); k++) {
			snprintf(line, sizeof(line),
				 "run %d of %d failed: %s (its files: " RUNNER_KEPT ")\n", k + 1,
				 x->attempts, x->failed_reason[k], x->dir, k + 1);
			rl_xml_fputs(f, line);
		}
		if (x->g.verdict == RV_PASS)
			fprintf(f, "run %d passed: flaky\n", x->attempts);
		fputs("</system-err>\n", f);
	}
	junit_attachments(f, x, prefix);
	fprintf(f, "    </testcase>\n");
}

/*
 * junit.xml: a testsuite per suite of the run (in the order they first ran),
 * each with the run's properties, a test case per scenario, and the
 * comparison with the baseline as one more test case of the first.
 */
int report_junit(const struct run_info *ri, struct scn_result *r, size_t n, const json_t *baseline)
{
	char path[PATH_MAX], a[1024], b[1024], ver[256], ts[32], host[256] = "", prefix[PATH_MAX];
	const char **suites = rl_xcalloc(n + 1, sizeof(*suites));
	struct junit_counts all = {0};
	size_t n_suites = 0;
	bool regressed = baseline && json_array_size(json_object_get(baseline, "regressions"));
	FILE *f;

	for (size_t i = 0; i < n; i++) {
		size_t k;

		junit_count(&all, &r[i]);
		for (k = 0; k < n_suites && strcmp(suites[k], r[i].s->suite); k++)
			;
		if (k == n_suites)
			suites[n_suites++] = r[i].s->suite;
	}
	if (!n_suites)
		suites[n_suites++] = "rocelab";
	all.tests += (baseline != NULL) + ri->n_unplaced;
	all.fails += regressed;
	snprintf(path, sizeof(path), "%s/junit.xml", ri->outdir);
	junit_prefix(ri->outdir, prefix, sizeof(prefix));
	if (!(f = fopen(path, "we"))) {
		rl_err("run: cannot write %s: %s", path, strerror(errno));
		free(suites);
		return -errno;
	}
	gethostname(host, sizeof(host) - 1);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f,
		"<testsuites name=\"rocelab\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
		"time=\"%.3f\">\n",
		all.tests, all.fails, all.errs, all.time);
	for (size_t k = 0; k < n_suites; k++) {
		struct junit_counts c = {0};

		for (size_t i = 0; i < n; i++)
			if (!strcmp(r[i].s->suite, suites[k]))
				junit_count(&c, &r[i]);
		if (k == 0 && baseline) {
			c.tests++;
			c.fails += regressed;
		}
		if (k == 0) { /* not placed on this lab: skipped */
			c.tests += ri->n_unplaced;
			c.skips += ri->n_unplaced;
		}
		fprintf(f,
			"  <testsuite name=\"rocelab.%s\" tests=\"%zu\" failures=\"%zu\" "
			"errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\" timestamp=\"%s\" "
			"hostname=\"%s\">\n",
			rl_xml_escape(suites[k], a, sizeof(a)), c.tests, c.fails, c.errs, c.skips,
			c.time, rl_utc(ri->started, ISO_UTC, ts, sizeof(ts)),
			rl_xml_escape(host, b, sizeof(b)));
		fprintf(f, "    <properties>\n");
		junit_property(f, "run_id", ri->run_id);
		junit_property(f, "lab", ri->inv ? ri->inv->name : "");
		junit_property(f, "lab_kind", ri->lab_kind);
		junit_property(f, "inventory", ri->inventory);
		junit_property(f, "inventory_sha256", ri->inventory_sha256);
		snprintf(a, sizeof(a), "%u", ri->seed);
		junit_property(f, "seed", a);
		junit_property(f, "versions", versions(ver, sizeof(ver), ri->version));
		junit_dut(f, ri->dut);
		fprintf(f, "    </properties>\n");
		for (size_t i = 0; i < n; i++)
			if (!strcmp(r[i].s->suite, suites[k]))
				junit_case(f, &r[i], prefix);
		if (k == 0 && baseline)
			junit_baseline(f, suites[0], baseline);
		for (size_t i = 0; k == 0 && i < ri->n_unplaced; i++)
			junit_unplaced(f, suites[0], &ri->unplaced[i]);
		fprintf(f, "  </testsuite>\n");
	}
	fprintf(f, "</testsuites>\n");
	free(suites);
	return fclose(f) ? -errno : 0;
}

/* ---- incident report ------------------------------------------------------------------ */

/*
 * A metric as a person reads it (issue 58): rounded (whole numbers from 100
 * on, else three significant digits), a share as a percentage, and its unit
 * once: "probes 8840", not "probes 8840 probes".
 */
static const char *metric_text(const struct metric *m, char *buf, size_t len)
{
	double v = m->value;
	const char *u = m->unit;

	if (!strcmp(u, "share"))
		snprintf(buf, len, "%.3g%%", v * 100);
	else if (!strcmp(u, "%"))
		snprintf(buf, len, "%.3g%%", v);
	else if (!strcmp(u, m->name) || !strcmp(u, "probes") || !*u)
		snprintf(buf, len, fabs(v) >= 100 || v == floor(v) ? "%.0f" : "%.3g", v);
	else
		snprintf(buf, len, fabs(v) >= 100 || v == floor(v) ? "%.0f %s" : "%.3g %s", v, u);
	return buf;
}

/* Several components on the same fault: their grades in columns, one row per figure. */
static void html_side_by_side(FILE *f, const struct scn_result *r)
{
	char a[256], b[512];

	fprintf(f, "<h2>side by side</h2>\n<table class=\"grid\"><tr><th></th>");
	for (size_t i = 0; i < r->n_comps; i++)
		fprintf(f, "<th>%s</th>", rl_xml_escape(r->comps[i].sc->ops->name, a, sizeof(a)));
	fprintf(f, "</tr>\n<tr><th>verdict</th>");
	for (size_t i = 0; i < r->n_comps; i++)
		fprintf(f, "<td class=\"%s\">%s</td>", run_verdict_name(r->comps[i].g.verdict),
			run_verdict_name(r->comps[i].g.verdict));
	fprintf(f, "</tr>\n<tr><th>time to detect (s)</th>");
	for (size_t i = 0; i < r->n_comps; i++)
		if (r->comps[i].g.detected)
			fprintf(f, "<td>%.1f</td>", r->comps[i].g.time_to_detect_s);
		else
			fprintf(f, "<td>-</td>");
	fprintf(f, "</tr>\n<tr><th>said</th>");
	for (size_t i = 0; i < r->n_comps; i++)
		fprintf(f, "<td>%s %s</td>", rl_xml_escape(r->comps[i].g.got_class, a, sizeof(a)),
			rl_xml_escape(r->comps[i].g.got_target, b, sizeof(b)));
	fprintf(f, "</tr>\n<tr><th>rank</th>");
	for (size_t i = 0; i < r->n_comps; i++)
		fprintf(f, "<td>%d</td>", r->comps[i].g.rank);
	fprintf(f, "</tr>\n<tr><th>precision</th>");
	for (size_t i = 0; i < r->n_comps; i++)
		if (r->comps[i].g.precision >= 0)
			fprintf(f, "<td>%.2f</td>", r->comps[i].g.precision);
		else
			fprintf(f, "<td>-</td>");
	fprintf(f, "</tr>\n<tr><th>false positives</th>");
	for (size_t i = 0; i < r->n_comps; i++)
		fprintf(f, "<td>%d</td>", r->comps[i].g.false_positives);
	fprintf(f, "</tr>\n</table>\n");
}

/* The verdicts merged into incidents, seconds from time zero (runner_t0()). */
static void html_incidents(FILE *f, const struct scn_result *r)
{
	const struct grade *g = &r->g;
	struct comp_times t = runner_times(r);
	double t0 = comp_t0(&t);
	char a[512];

	if (!g->n_inc)
		return;
	fprintf(f, "<h2>incidents</h2>\n<p>times in seconds %s</p>\n", comp_time_zero(&t));
	fprintf(f, "<table class=\"grid\"><tr><th>element</th><th>class</th>"
		   "<th>from (s)</th><th>to (s)</th><th>verdicts</th><th>of another class</th>"
		   "<th></th></tr>\n");
	for (size_t i = 0; i < g->n_inc; i++) {
		const struct grade_incident *x = &g->inc[i];

		fprintf(f,
			"<tr><td>%s</td><td>%s</td><td>%.1f</td><td>%.1f</td><td>%d</td>"
			"<td>%d</td><td class=\"%s\">%s</td></tr>\n",
			rl_xml_escape(x->target, a, sizeof(a)), x->cls, x->start - t0, x->end - t0,
			x->verdicts, x->other_cls, x->right ? "pass" : "fail",
			x->right      ? "the truth"
			: x->in_fault ? "during the fault, not the truth"
				      : "outside the fault");
	}
	fprintf(f, "</table>\n");
}

/* What each fault's ends counted while in effect: a row a fault, a line an end, escaped. */
static void html_counters(FILE *f, json_t *counters)
{
	json_t *c;
	size_t i;

	json_array_foreach(counters, i, c)
	{
		struct sbuf b = {0};

		fprintf(f, "<tr><th>counted (fault %lld, %.1f s)</th><td>%s",
			(long long)json_integer_value(json_object_get(c, "fault")),
			json_number_value(json_object_get(c, "span_s")),
			json_object_size(json_object_get(c, "deltas")) ? ""
								       : "nothing changed<br>");
		fault_counters_text(c, 8, &b);
		for (char *l = b.p, *nl; l && *l; l = nl + 1) {
			if (!(nl = strchr(l, '\n')))
				break;
			*nl = '\0';
			rl_xml_fputs(f, l);
			fprintf(f, "<br>");
		}
		fprintf(f, "</td></tr>\n");
		sb_free(&b);
	}
}

/* The head of report.html: the verdict, the fault, the truth and the grade. */
static FILE *html_head(struct scn_result *r)
{
	char path[PATH_MAX + 32], a[1024], b[128];
	const struct scenario *s = r->s;
	const struct grade *g = &r->g;
	FILE *f;

	snprintf(path, sizeof(path), "%s/report.html", r->dir);
	if (!(f = fopen(path, "we")))
		return NULL;
	fprintf(
	    f,
	    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>rocelab: %s</title>\n"
	    "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 10px;text-align:left}"
	    ".pass{color:#070}.fail{color:#b00}.invalid{color:#a60}</style></head><body>\n",
	    rl_xml_escape(r->test_name, a, sizeof(a)));
	fprintf(f, "<h1>%s: <span class=\"%s\">%s</span></h1>\n", a, run_verdict_name(g->verdict),
		run_verdict_name(g->verdict));
	if (g->reason[0])
		fprintf(f, "<p>%s</p>\n", rl_xml_escape(g->reason, a, sizeof(a)));
	/* --retries: the runs before this one, each failed (their files beside this folder) */
	for (int k = 0; k < runner_failed_runs(r); k++)
		fprintf(f,
			"<p class=\"invalid\">run %d of %d failed%s: %s (its files: ../" RUNNER_KEPT
			")</p>\n",
			k + 1, r->attempts, g->verdict == RV_PASS ? " (flaky)" : "",
			rl_xml_escape(r->failed_reason[k], a, sizeof(a)), r->test_name, k + 1);
	if (s->description)
		fprintf(f, "<p><i>%s</i></p>\n", rl_xml_escape(s->description, a, sizeof(a)));
	if (s->n_variants > 1)
		fprintf(f,
			"<p>Variant %u of %u of %s: <a href=\"../%s.variants/index.html\">all of "
			"them side by side</a> (written when the last has run).</p>\n",
			s->variant_idx + 1, s->n_variants, rl_xml_escape(s->group, a, sizeof(a)),
			a);
	fprintf(f, "<table>\n");
	for (size_t i = 0; i < s->n_faults; i++)
		fprintf(f, "<tr><th>fault</th><td>%s %s</td></tr>\n", s->faults[i].spec.kind->name,
			rl_xml_escape(s->faults[i].spec.target, a, sizeof(a)));
	fprintf(f, "<tr><th>evidence</th><td>%s</td></tr>\n",
		rl_xml_escape(r->evidence, a, sizeof(a)));
	if (r->emulated)
		fprintf(f, "<tr><th>emulated</th><td>%s</td></tr>\n",
			rl_xml_escape(r->note, a, sizeof(a)));
	html_counters(f, r->counters);
	for (size_t i = 0; r->measured && i < json_array_size(r->measured); i++) {
		json_t *m = json_array_get(r->measured, i);
		struct sbuf t = {0};

		fault_measured_text(m, &t);
		if (t.p)
			fprintf(f, "<tr><th>measured (fault %lld)</th><td>%s</td></tr>\n",
				(long long)json_integer_value(json_object_get(m, "fault")),
				rl_xml_escape(t.p, a, sizeof(a)));
		sb_free(&t);
	}
	for (size_t i = 0; i < r->n_loads && i < s->n_loads; i++) {
		char t[300];

		fprintf(f, "<tr><th>load</th><td%s>%s</td></tr>\n",
			runner_load_short(r, i) ? " class=\"invalid\"" : "",
			rl_xml_escape(runner_load_text(r, i, t, sizeof(t)), a, sizeof(a)));
	}
	fprintf(f, "<tr><th>expected</th><td>%s</td></tr>\n",
		s->expect.silent ? "no verdict" : rl_xml_escape(s->expect.cls, a, sizeof(a)));
	if (!s->expect.silent)
		fprintf(f, "<tr><th>true target</th><td>%s%s (top-%d)</td></tr>\n",
			rl_xml_escape(s->expect.target, a, sizeof(a)),
			s->expect.n_also ? " or another fault's" : "", s->expect.top_k);
	fprintf(f, "<tr><th>detected</th><td>%s", g->detected ? "yes" : "no");
	if (g->detected)
		fprintf(f, ", after %.1f s", g->time_to_detect_s);
	fprintf(f, "</td></tr>\n<tr><th>localized</th><td>%s (rank %d, class %s)</td></tr>\n",
		g->localized ? "yes" : "no", g->rank, g->class_ok ? "right" : "wrong");
	if (g->class_known)
		fprintf(f,
			"<tr><th>observability</th><td>%s; rank %d against its class of %d: "
			"%s (classes from the %ld paths its probes %s)</td></tr>\n",
			!g->observable	     ? "on no probe path of the monitor: unobservable"
			: g->class_size == 1 ? "identifiable alone (exact)"
					     : "not told apart from the rest of its class",
			g->rank_class, g->class_size, rl_xml_escape(g->class_names, a, sizeof(a)),
			g->class_paths,
			strcmp(g->class_basis, "traced") ? "could take (predicted: it traced none)"
							 : "took, as traced");
	if (g->precision >= 0)
		fprintf(f,
			"<tr><th>precision</th><td>%.2f: %d of %d verdicts during the fault right; "
			"%d incident(s) during the fault, %d right</td></tr>\n",
			g->precision, g->verdicts_right, g->verdicts_in, g->incidents,
			g->incidents_right);
	fprintf(f, "<tr><th>false positives</th><td>%d</td></tr>\n", g->false_positives);
	if (g->rig_explained)
		fprintf(f,
			"<tr><th>rig</th><td>%d verdict(s) for windows in which this machine's CPU "
			"pressure passed %.0f%% (host-processing, or latency a pressed host's "
			"clock timed): right, not false</td></tr>\n",
			g->rig_explained, RIG_PRESSURE_BOUND * 100);
	if (g->effect_explained)
		fprintf(f,
			"<tr><th>side effect</th><td>%d verdict(s) on the link flap the fault's "
			"driver made (measured): right, not false</td></tr>\n",
			g->effect_explained);
	for (size_t i = 0; i < r->n_comps; i++) {
		const struct comp_result *c = &r->comps[i];

		fprintf(f, "<tr><th>%s</th><td class=\"%s\">%s%s%s", c->sc->ops->name,
			run_verdict_name(c->g.verdict), run_verdict_name(c->g.verdict),
			c->g.reason[0] ? ": " : "", rl_xml_escape(c->g.reason, a, sizeof(a)));
		for (size_t k = 0; k < c->obs.n_metrics; k++) {
			char v[64];

			fprintf(f, "%s%s %s", k ? ", " : "; ",
				rl_xml_escape(c->obs.metrics[k].name, a, sizeof(a)),
				rl_xml_escape(metric_text(&c->obs.metrics[k], v, sizeof(v)), b,
					      sizeof(b)));
		}
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
	html_incidents(f, r);
	if (r->n_comps > 1)
		html_side_by_side(f, r);
	return f;
}

/* Every file of the scenario's folder, linked: logs, the analyzer's lines, plot data. */
static void html_files(FILE *f, const char *dir)
{
	struct dirent **ents = NULL;
	char a[512];
	int n = scandir(dir, &ents, NULL, alphasort);

	fprintf(f, "<h2>files</h2>\n<p>");
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.' && strcmp(ents[i]->d_name, "report.html"))
			fprintf(f, "<a href=\"%s\">%s</a> ",
				rl_xml_escape(ents[i]->d_name, a, sizeof(a)), a);
		free(ents[i]);
	}
	free(ents);
	fprintf(f, "(inject.log: the faults; load.log: the load; report.gp redraws the plot "
		   "with 'gnuplot report.gp' here)</p>\n");
}

int report_incident(const struct run_info *ri, struct scn_result *r)
{
	struct comp_times t = runner_times(r);
	char title[512], png[160], caption[256], ts[32];
	const char *rig;
	int ret = 0, rig_cols = 0;
	FILE *f;

	snprintf(caption, sizeof(caption), "lab %s, seed %u, %s UTC, rocelab %s, run %s",
		 ri->inv ? ri->inv->name : "?", ri->seed,
		 rl_utc(r->t_start, ISO_UTC, ts, sizeof(ts)), ri->version,
		 ri->run_id[0] ? ri->run_id : "-");
	if (rl_mkdir_p(r->dir, 0755))
		return -errno;
	if (!(f = html_head(r)))
		return -errno;
	rig = rig_dat(r, &rig_cols);
	/* Each component its section; the first one's plot is report.png. */
	for (size_t i = 0; i < r->n_comps; i++) {
		const struct comp_result *c = &r->comps[i];
		struct comp_report cr = {.dir = r->dir,
					 .png = png,
					 .title = title,
					 .caption = caption,
					 .t = &t,
					 .obs = &c->obs,
					 .html = f,
					 .down = (const double(*)[2])r->down,
					 .n_down = r->n_down,
					 .rig_dat = rig,
					 .rig_source = rig_source(r),
					 .rig_cols = rig_cols,
					 .rig_bound = RIG_PRESSURE_BOUND,
					 .component = c->sc->ops->name};
		int e;

		if (!c->started || !c->sc->ops->report)
			continue;
		/* its own grade: of several, one may fail where the scenario's is another's */
		snprintf(title, sizeof(title), "%s: %s%s%s", r->s->name,
			 run_verdict_name(r->n_comps > 1 ? c->g.verdict : r->g.verdict),
			 (r->n_comps > 1 ? c->g.reason : r->g.reason)[0] ? " - " : "",
			 r->n_comps > 1 ? c->g.reason : r->g.reason);
		if (i == 0)
			snprintf(png, sizeof(png), "report.png");
		else
			snprintf(png, sizeof(png), "report-%s.png", c->sc->ops->name);
		e = c->sc->ops->report(c->state, &cr);
		if (e && !ret)
			ret = e;
	}
	html_files(f, r->dir);
	fprintf(f, "<p><small>%s</small></p>\n</body></html>\n",
		rl_xml_escape(caption, title, sizeof(title)));
	if (fclose(f) && !ret)
		ret = -errno;
	/* One file to mail or archive: the plots inlined (report.png stays beside it). */
	{
		char html[PATH_MAX + 16];

		snprintf(html, sizeof(html), "%s/report.html", r->dir);
		if (!ret && (ret = pages_inline_images(html)))
			rl_warn("run: %s: plots not inlined: %s", html, strerror(-ret));
	}
	return ret;
}
