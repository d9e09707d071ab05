// SPDX-License-Identifier: MIT
/* The grader, on typed verdicts and metrics from any component. */
#define _GNU_SOURCE
#include "harness/run/grade.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *run_verdict_name(enum run_verdict v)
{
	return v == RV_PASS ? "pass" : v == RV_FAIL ? "fail" : "invalid";
}

bool grade_target_matches(const char *cand, const char *truth)
{
	const char *sep = strstr(cand, "--");
	size_t tl = strlen(truth);

	if (!strcmp(cand, truth))
		return true;
	if (!sep)
		return false;
	/* A link matches either of its endpoints. */
	if (((size_t)(sep - cand) == tl && !strncmp(cand, truth, tl)) || !strcmp(sep + 2, truth))
		return true;
	/* A whole switch (a name without a port: buffer-alpha) matches a link with a port on it. */
	return !strchr(truth, ':') && ((!strncmp(cand, truth, tl) && cand[tl] == ':') ||
				       (!strncmp(sep + 2, truth, tl) && sep[2 + tl] == ':'));
}

static bool names_truth(const char *target, const struct scn_expect *e)
{
	if (grade_target_matches(target, e->target))
		return true;
	for (size_t i = 0; i < e->n_also; i++)
		if (grade_target_matches(target, e->also[i]))
			return true;
	return false;
}

/*
 * Rank of the truth among a verdict's suspects, in the order the component
 * gave them (best first: each ranks them its own way): 1 + the suspects
 * before it, and ties (as many votes and good) after it count against it
 * too.  With several faults, the best-placed of their targets, and the
 * other faults' targets never count against it.
 */
static int truth_rank(const struct verdict *v, const struct scn_expect *e)
{
	int best = 0;

	if (!v->n_sus)
		return names_truth(v->target, e) ? 1 : 0;
	for (size_t i = 0; i < v->n_sus; i++) {
		const struct suspect *c = &v->sus[i];
		int rank = 1;

		if (!names_truth(c->target, e))
			continue;
		for (size_t k = 0; k < v->n_sus; k++) {
			const struct suspect *o = &v->sus[k];

			if (k != i && !names_truth(o->target, e) &&
			    (k < i || (o->votes == c->votes && o->good == c->good)))
				rank++;
		}
		if (!best || rank < best)
			best = rank;
	}
	return best;
}

static void detection(const struct scn_expect *e, const struct comp_obs *obs,
		      const struct comp_times *t, double settle, struct grade *g)
{
	double first = -1;
	int best = 0, in = 0, right = 0;

	for (size_t i = 0; i < obs->n_verdicts; i++) {
		const struct verdict *v = &obs->verdicts[i];
		double ws = v->win[0], we = v->win[1];
		bool in_fault = t->t_fault > 0 && ws < t->t_revert && we > t->t_fault;
		/* Detection time: when the verdict came out (window end + grace when live). */
		double at = v->emitted > 0 ? v->emitted : we;
		int rank;

		if (!in_fault) {
			/*
			 * Baseline, or recovery once in-flight probes have settled.  A
			 * window that ends while the injector works (an SSH login to a
			 * switch is seconds of CPU under qemu) judged a lab being
			 * changed: neither a detection nor a false positive.  Nor is
			 * one that ends once the monitor is being stopped (agents on
			 * hosts stopped one by one over SSH, their logs fetched).
			 */
			if (t->t_stop > 0 && we > t->t_stop)
				continue;
			if (t->t_fault <= 0 || we <= t->t_inject || ws >= t->t_revert + settle) {
				if (!g->false_positives++)
					snprintf(g->fp_first, sizeof(g->fp_first),
						 "%s %.60s in [%.1f, %.1f] s", v->cls, v->target,
						 ws - t->t_start, we - t->t_start);
			}
			continue;
		}
		if (first < 0 || at < first)
			first = at;
		g->detected = true;
		in++;
		right += !strcmp(v->cls, e->cls) && names_truth(v->target, e);
		if (!g->got_class[0]) { /* what it said first, until a right one comes */
			snprintf(g->got_class, sizeof(g->got_class), "%s", v->cls);
			snprintf(g->got_target, sizeof(g->got_target), "%s", v->target);
		}
		if (strcmp(v->cls, e->cls))
			continue;
		if (!g->class_ok) {
			snprintf(g->got_class, sizeof(g->got_class), "%s", v->cls);
			snprintf(g->got_target, sizeof(g->got_target), "%s", v->target);
		}
		g->class_ok = true;
		rank = truth_rank(v, e);
		if (rank && (!best || rank < best)) {
			best = rank;
			snprintf(g->got_target, sizeof(g->got_target), "%s", v->target);
		}
	}
	g->rank = best;
	g->precision = in && e->cls[0] ? (double)right / in : -1;
	g->localized = best > 0 && best <= e->top_k;
	if (g->detected)
		g->time_to_detect_s = first - t->t_fault > 0 ? first - t->t_fault : 0;
}

static bool metric_ok(const struct metric_expect *x, double v)
{
	switch (x->op) {
	case MOP_GE:
		return v >= x->value;
	case MOP_GT:
		return v > x->value;
	case MOP_LE:
		return v <= x->value;
	case MOP_LT:
		return v < x->value;
	case MOP_EQ:
		return fabs(v - x->value) <= 1e-9 * fmax(1, fabs(x->value));
	}
	return false;
}

static void fail(struct grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct grade *g, const char *fmt, ...)
{
	va_list ap;

	if (g->verdict == RV_FAIL)
		return; /* the first reason stands */
	g->verdict = RV_FAIL;
	va_start(ap, fmt);
	vsnprintf(g->reason, sizeof(g->reason), fmt, ap);
	va_end(ap);
}

void grade_component(const struct scn_expect *e, const struct comp_obs *obs,
		     const struct comp_times *t, double settle_s, struct grade *g)
{
	enum run_verdict was = g->verdict;

	g->detected = g->localized = g->class_ok = false;
	g->rank = g->false_positives = 0;
	g->time_to_detect_s = g->precision = -1;
	g->got_class[0] = g->got_target[0] = g->fp_first[0] = '\0';
	detection(e, obs, t, settle_s, g);
	if (was == RV_INVALID)
		return;
	g->verdict = RV_PASS;
	g->reason[0] = '\0';
	if (e->silent) {
		if (g->false_positives > e->max_false_positives)
			fail(g, "%d verdict(s) on a fault-free lab (at most %d allowed)",
			     g->false_positives, e->max_false_positives);
	} else if (e->cls[0]) {
		if (!g->detected)
			fail(g, "not detected: no verdict during the fault");
		else if (g->time_to_detect_s > (double)e->within_ms / 1e3)
			fail(g, "detected after %.1f s, later than %.1f s", g->time_to_detect_s,
			     (double)e->within_ms / 1e3);
		else if (!g->class_ok)
			fail(g, "no %s verdict (got %s %s)", e->cls, g->got_class, g->got_target);
		else if (!g->localized)
			fail(g, "%s ranked %s among %s suspects (top-%d expected)", e->target,
			     g->rank ? "low" : "nowhere", e->cls, e->top_k);
		else if (g->false_positives > e->max_false_positives)
			fail(
			    g,
			    "%d false positive(s) outside the fault (at most %d allowed), first %s",
			    g->false_positives, e->max_false_positives, g->fp_first);
		if (g->verdict == RV_FAIL && g->rank > 1 && !g->localized && g->class_ok)
			snprintf(g->reason + strlen(g->reason),
				 sizeof(g->reason) - strlen(g->reason), " (rank %d)", g->rank);
	}
	for (size_t i = 0; i < e->n_metrics; i++) {
		const struct metric_expect *x = &e->metrics[i];
		size_t k;

		for (k = 0; k < obs->n_metrics && strcmp(obs->metrics[k].name, x->name); k++)
			;
		if (k == obs->n_metrics)
			fail(g, "metric %s was not reported", x->name);
		else if (!metric_ok(x, obs->metrics[k].value))
			fail(g, "%s = %g %s, expected %s", x->name, obs->metrics[k].value,
			     obs->metrics[k].unit, x->text);
	}
}
