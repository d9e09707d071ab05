// SPDX-License-Identifier: MIT
/*
 * A run's results.json as OpenMetrics text, for the dashboards labs already
 * run: node-exporter's textfile collector (or any scrape of the file) takes
 * it to Prometheus, and docs/grafana/rocelab.json charts it.
 *
 * Every family is a gauge: a run's figures are what they were, not counts a
 * scrape could rate().  Series are labelled by lab, suite, scenario and
 * component, never by run: each night's run replaces the last one's values,
 * and Prometheus keeps the history (the run's id is in rocelab_run_identity).
 */
#define _GNU_SOURCE
#include "reports/openmetrics.h"

#include "harness/lib/common.h"
#include "reports/history.h"
#include "reports/pages.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a family's samples are of: the run, each scenario, each component of each scenario. */
enum om_level { OM_RUN, OM_SCENARIO, OM_COMPONENT };

struct om_ctx {
	FILE *f;
	const json_t *root;
	const char *lab;
	json_t *skip; /* indexes of scenarios left out */
	size_t skipped;
};

struct om_family;
typedef void (*om_emit_fn)(struct om_ctx *c, const struct om_family *fam, const json_t *s,
			   const char *comp, const json_t *o);

struct om_family {
	const char *name, *unit, *help;
	enum om_level level;
	om_emit_fn emit;
	const char *key; /* the field it reads, for the plain ones */
};

/* A label value as OpenMetrics writes it: \\, \" and \n escaped, other controls '?'. */
static void om_label_value(FILE *f, const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', f), fputc(*p, f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p == 0x7f)
			fputc('?', f);
		else
			fputc(*p, f);
	}
}

static const char *text(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/* One sample: NAME{lab=..., suite=..., scenario=..., component=..., extra} VALUE. */
static void om_sample(struct om_ctx *c, const struct om_family *fam, const json_t *s,
		      const char *comp, const char *const *extra, double v)
{
	FILE *f = c->f;

	fprintf(f, "%s{lab=\"", fam->name);
	om_label_value(f, c->lab);
	fputc('"', f);
	if (s) {
		fputs(",suite=\"", f);
		om_label_value(f, text(s, "suite"));
		fputs("\",scenario=\"", f);
		om_label_value(f, text(s, "name"));
		fputc('"', f);
	}
	if (comp) {
		fputs(",component=\"", f);
		om_label_value(f, comp);
		fputc('"', f);
	}
	for (; extra && extra[0]; extra += 2) {
		fprintf(f, ",%s=\"", extra[0]);
		om_label_value(f, extra[1]);
		fputc('"', f);
	}
	fprintf(f, "} %.10g\n", v);
}

/* ---- the run ------------------------------------------------------------------------------ */

static void emit_number(struct om_ctx *c, const struct om_family *fam, const json_t *s,
			const char *comp, const json_t *o)
{
	const json_t *v = json_object_get(o, fam->key);

	if (json_is_number(v))
		om_sample(c, fam, s, comp, NULL, json_number_value(v));
}

static void emit_identity(struct om_ctx *c, const struct om_family *fam, const json_t *s,
			  const char *comp, const json_t *o)
{
	const char *extra[] = {"run_id",   text(o, "run_id"),	"rocelab", text(o, "rocelab"),
			       "lab_kind", text(o, "lab_kind"), NULL};

	om_sample(c, fam, s, comp, extra, 1);
}

static void emit_duration(struct om_ctx *c, const struct om_family *fam, const json_t *s,
			  const char *comp, const json_t *o)
{
	const json_t *a = json_object_get(o, "started"), *b = json_object_get(o, "ended");

	if (json_is_number(a) && json_is_number(b))
		om_sample(c, fam, s, comp, NULL, json_number_value(b) - json_number_value(a));
}

static bool skipped(const struct om_ctx *c, size_t i)
{
	for (size_t k = 0; k < json_array_size(c->skip); k++)
		if ((size_t)json_integer_value(json_array_get(c->skip, k)) == i)
			return true;
	return false;
}

static void emit_counts(struct om_ctx *c, const struct om_family *fam, const json_t *s,
			const char *comp, const json_t *o)
{
	static const char *const results[] = {"pass", "fail", "invalid", "known-blind"};
	const json_t *sc = json_object_get(o, "scenarios");

	for (size_t r = 0; r < ARRAY_SIZE(results); r++) {
		const char *extra[] = {"result", results[r], NULL};
		size_t n = 0;

		for (size_t i = 0; i < json_array_size(sc); i++)
			n += !skipped(c, i) &&
			     !strcmp(pages_result_of(json_array_get(sc, i)), results[r]);
		om_sample(c, fam, s, comp, extra, (double)n);
	}
}

static void emit_skipped(struct om_ctx *c, const struct om_family *fam, const json_t *s,
			 const char *comp, const json_t *o)
{
	(void)o;
	om_sample(c, fam, s, comp, NULL, (double)c->skipped);
}

/* ---- each scenario ------------------------------------------------------------------------ */

static void emit_result_is(struct om_ctx *c, const struct om_family *fam, const json_t *s,
			   const char *comp, const json_t *o)
{
	om_sample(c, fam, s, comp, NULL, !strcmp(pages_result_of(o), fam->key));
}

/* The rig by phase: fam->key is the phase's field. */
static void emit_rig(struct om_ctx *c, const struct om_family *fam, const json_t *s,
		     const char *comp, const json_t *o)
{
	const json_t *phases = json_object_get(json_object_get(o, "rig"), "phases"), *p;
	const char *name;

	json_object_foreach((json_t *)phases, name, p)
	{
		const json_t *v = json_object_get(p, fam->key);
		const char *extra[] = {"phase", name, NULL};
		double x = json_number_value(v);

		if (!json_is_number(v))
			continue;
		if (!strcmp(fam->key, "stall_max_ms"))
			x /= 1e3;
		om_sample(c, fam, s, comp, extra, x);
	}
}

/* ---- each component ----------------------------------------------------------------------- */

static bool fault_expected(const json_t *o)
{
	const json_t *e = json_object_get(o, "expected");

	return json_is_object(e) && !json_is_true(json_object_get(e, "silent")) &&
	       (*text(e, "class") || *text(e, "target"));
}

static void emit_comp_passed(struct om_ctx *c, const struct om_family *fam, const json_t *s,
			     const char *comp, const json_t *o)
{
	om_sample(c, fam, s, comp, NULL, !strcmp(text(o, "verdict"), "pass"));
}

static void emit_detected(struct om_ctx *c, const struct om_family *fam, const json_t *s,
			  const char *comp, const json_t *o)
{
	if (fault_expected(o))
		om_sample(c, fam, s, comp, NULL, json_is_true(json_object_get(o, "detected")));
}

static void emit_bound(struct om_ctx *c, const struct om_family *fam, const json_t *s,
		       const char *comp, const json_t *o)
{
	const json_t *v = json_object_get(json_object_get(o, "expected"), "within_s");

	if (fault_expected(o) && json_is_number(v))
		om_sample(c, fam, s, comp, NULL, json_number_value(v));
}

static void emit_metrics(struct om_ctx *c, const struct om_family *fam, const json_t *s,
			 const char *comp, const json_t *o)
{
	const json_t *m = json_object_get(o, "metrics"), *v;
	const char *name;

	json_object_foreach((json_t *)m, name, v)
	{
		const json_t *x = json_object_get(v, "value");
		const char *extra[] = {"metric", name, "unit", text(v, "unit"), NULL};

		if (json_is_number(x))
			om_sample(c, fam, s, comp, extra, json_number_value(x));
	}
}

static const struct om_family families[] = {
    {"rocelab_run_identity", NULL,
     "The run: its id, rocelab's version, the lab's kind (vlab, ssh).", OM_RUN, emit_identity,
     NULL},
    {"rocelab_run_start_timestamp_seconds", "seconds", "When the run started (Unix time).", OM_RUN,
     emit_number, "started"},
    {"rocelab_run_duration_seconds", "seconds", "How long the run took.", OM_RUN, emit_duration,
     NULL},
    {"rocelab_run_scenarios", NULL,
     "The run's scenarios by result: pass, fail, invalid (its fault or lab could not be set up "
     "or verified), known-blind (skipped: the monitors cannot see it).",
     OM_RUN, emit_counts, NULL},
    {"rocelab_export_skipped", NULL,
     "Scenarios of the results left out: a scenario name met again.", OM_RUN, emit_skipped, NULL},
    {"rocelab_scenario_passed", NULL, "1 when the scenario passed (every component), else 0.",
     OM_SCENARIO, emit_result_is, "pass"},
    {"rocelab_scenario_invalid", NULL,
     "1 when the scenario was invalid (nothing graded: its fault or lab could not be set up or "
     "verified).",
     OM_SCENARIO, emit_result_is, "invalid"},
    {"rocelab_scenario_attempts", NULL, "Runs of the scenario (more than 1 with --retries).",
     OM_SCENARIO, emit_number, "attempts"},
    {"rocelab_scenario_duration_seconds", "seconds", "How long the scenario took.", OM_SCENARIO,
     emit_number, "duration_s"},
    {"rocelab_rig_pressure_ratio", "ratio",
     "The rig's mean CPU pressure (PSI some) in a phase of the scenario.", OM_SCENARIO, emit_rig,
     "pressure_mean"},
    {"rocelab_rig_pressure_over_bound_ratio", "ratio",
     "The share of a phase the rig's CPU pressure was over its bound (a verdict then may be the "
     "rig's).",
     OM_SCENARIO, emit_rig, "over_bound"},
    {"rocelab_rig_busy_ratio", "ratio", "The rig's mean CPU busy share in a phase.", OM_SCENARIO,
     emit_rig, "busy_mean"},
    {"rocelab_rig_stall_max_seconds", "seconds",
     "The rig's longest scheduling stall measured in a phase.", OM_SCENARIO, emit_rig,
     "stall_max_ms"},
    {"rocelab_component_passed", NULL, "1 when the component passed its grade, else 0.",
     OM_COMPONENT, emit_comp_passed, NULL},
    {"rocelab_component_detected", NULL,
     "1 when the component detected the fault it was to find, else 0 (only where one was).",
     OM_COMPONENT, emit_detected, NULL},
    {"rocelab_time_to_detect_seconds", "seconds",
     "From the fault (and its load) being live to the component's first right verdict.",
     OM_COMPONENT, emit_number, "time_to_detect_s"},
    {"rocelab_time_to_detect_bound_seconds", "seconds",
     "The scenario's bound on the time to detect (expect: within).", OM_COMPONENT, emit_bound,
     NULL},
    {"rocelab_precision_ratio", "ratio",
     "The share of the component's verdicts during the fault that named the fault.", OM_COMPONENT,
     emit_number, "precision"},
    {"rocelab_false_positives", NULL,
     "The component's verdicts with no fault live (baseline and late recovery).", OM_COMPONENT,
     emit_number, "false_positives"},
    {"rocelab_truth_rank", NULL,
     "The injected element's rank among the component's suspects (1: named first).", OM_COMPONENT,
     emit_number, "rank"},
    {"rocelab_component_metric", NULL,
     "Each metric a component reports (goodput against optimal, reordering, probes and CPU "
     "per RNIC, ...), in the unit its label names.",
     OM_COMPONENT, emit_metrics, NULL},
};

/* Which scenarios go out: each name once (history_check() saw that each is a name). */
static void pick(struct om_ctx *c)
{
	const json_t *sc = json_object_get(c->root, "scenarios");
	json_t *seen = json_object();

	for (size_t i = 0; i < json_array_size(sc); i++) {
		const json_t *s = json_array_get(sc, i);
		const char *name = json_string_value(json_object_get(s, "name"));
		const json_t *suite = json_object_get(s, "suite");

		if (!json_is_object(s) || !rl_test_name_ok(name, 95) ||
		    (suite && !json_is_null(suite) && !json_is_string(suite)) ||
		    json_object_get(seen, name)) {
			json_array_append_new(c->skip, json_integer((json_int_t)i));
			c->skipped++;
			continue;
		}
		json_object_set_new(seen, name, json_true());
	}
	json_decref(seen);
}

char *om_results(const json_t *root, char *err, size_t errlen)
{
	struct om_ctx c = {.root = root, .skip = json_array()};
	const json_t *sc = json_object_get(root, "scenarios");
	char *buf = NULL;
	size_t len = 0;

	if (history_check(root, err, errlen)) {
		json_decref(c.skip);
		return NULL;
	}
	c.lab = text(root, "lab");
	if (!(c.f = open_memstream(&buf, &len))) {
		snprintf(err, errlen, "%s", strerror(errno));
		json_decref(c.skip);
		return NULL;
	}
	pick(&c);
	for (size_t k = 0; k < ARRAY_SIZE(families); k++) {
		const struct om_family *fam = &families[k];

		fprintf(c.f, "# TYPE %s gauge\n", fam->name);
		if (fam->unit)
			fprintf(c.f, "# UNIT %s %s\n", fam->name, fam->unit);
		fprintf(c.f, "# HELP %s %s\n", fam->name, fam->help);
		if (fam->level == OM_RUN) {
			fam->emit(&c, fam, NULL, NULL, root);
			continue;
		}
		for (size_t i = 0; i < json_array_size(sc); i++) {
			const json_t *s = json_array_get(sc, i), *comp;
			const char *name;

			if (skipped(&c, i))
				continue;
			if (fam->level == OM_SCENARIO) {
				fam->emit(&c, fam, s, NULL, s);
				continue;
			}
			json_object_foreach((json_t *)json_object_get(s, "components"), name, comp)
			    fam->emit(&c, fam, s, name, comp);
		}
	}
	fputs("# EOF\n", c.f);
	json_decref(c.skip);
	if (fclose(c.f) || !buf) {
		snprintf(err, errlen, "out of memory");
		free(buf);
		return NULL;
	}
	return buf;
}

int om_write(const char *text, const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX], base[PATH_MAX];
	int dfd, r;

	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(base, sizeof(base), "%s", path);
	if ((dfd = rl_open_dir(dirname(dir))) < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(-dfd));
		return dfd;
	}
	r = rl_replace_at(dfd, basename(base), text, strlen(text), 0644);
	if (r)
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
	close(dfd);
	return r;
}
