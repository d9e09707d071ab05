// SPDX-License-Identifier: MIT
/* The grader, on typed verdicts and metrics from any component. */
#define _GNU_SOURCE
#include "harness/run/grade.h"

#include "probe/observe.h"

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

bool grade_names_truth(const char *target, const struct scn_expect *e)
{
	if (grade_target_matches(target, e->target))
		return true;
	for (size_t i = 0; i < e->n_also; i++)
		if (grade_target_matches(target, e->also[i]))
			return true;
	return false;
}

/* Does target name the truth: exactly, or (gc) as a member of its class? */
static bool names(const char *target, const struct scn_expect *e, const struct grade_class *gc)
{
	return grade_names_truth(target, e) || (gc && observe_names_class(gc->o, target, gc->cls));
}

/*
 * Does verdict v name the truth?  Its target (names()), or, where the monitor
 * named a set of elements it cannot tell apart (issue 64), a set that holds
 * the truth and is no larger than the truth's class (without the class: the
 * truth alone); a larger set says less than the monitor's probes could.
 */
static bool verdict_names(const struct verdict *v, const struct scn_expect *e,
			  const struct grade_class *gc)
{
	if (!v->n_set)
		return names(v->target, e, gc);
	if (v->n_set > (gc ? gc->o->cls_size[gc->cls] : 1))
		return false;
	for (size_t i = 0; i < v->n_set && i < VERDICT_SET_MAX; i++)
		if (grade_names_truth(v->set[i], e))
			return true;
	return false;
}

/*
 * Is cls the expected class?  Where the truth's class holds a switch and links
 * (a spine and its rail links on a thin lab), no probe tells a switch fault
 * from a link fault either: switch and switch-link are the same answer there.
 */
static bool class_is(const char *cls, const struct scn_expect *e, const struct grade_class *gc)
{
	bool sw = !strcmp(cls, "switch") || !strcmp(cls, "switch-link");

	return !strcmp(cls, e->cls) ||
	       (gc && sw && (!strcmp(e->cls, "switch") || !strcmp(e->cls, "switch-link")) &&
		observe_class_mixes(gc->o, gc->cls));
}

/*
 * Rank of the truth among a verdict's suspects, in the order the component
 * gave them (best first: each ranks them its own way): 1 + the suspects
 * before it, and ties (as many votes and good) after it count against it
 * too.  With several faults, the best-placed of their targets, and the
 * other faults' targets never count against it.
 */
static int truth_rank(const struct verdict *v, const struct scn_expect *e,
		      const struct grade_class *gc)
{
	int best = 0;

	if (!v->n_sus || v->n_set) /* a set is one answer, ranked whole */
		return verdict_names(v, e, gc) ? 1 : 0;
	for (size_t i = 0; i < v->n_sus; i++) {
		const struct suspect *c = &v->sus[i];
		int rank = 1;

		if (!names(c->target, e, gc))
			continue;
		for (size_t k = 0; k < v->n_sus; k++) {
			const struct suspect *o = &v->sus[k];

			if (k != i && !names(o->target, e, gc) &&
			    (k < i || (o->votes == c->votes && o->good == c->good)))
				rank++;
		}
		if (!best || rank < best)
			best = rank;
	}
	return best;
}

/* ---- incidents ------------------------------------------------------------------------ */

#define INC_CLASSES 6

struct inc_tally {
	char cls[INC_CLASSES][24];
	int n[INC_CLASSES];
	int k;
};

static bool loss_class(const char *cls)
{
	return !strcmp(cls, "rnic") || !strcmp(cls, "switch-link") || !strcmp(cls, "switch");
}

static void tally_add(struct inc_tally *t, const char *cls)
{
	int i;

	for (i = 0; i < t->k && strcmp(t->cls[i], cls); i++)
		;
	if (i == t->k) {
		if (t->k == INC_CLASSES)
			return;
		snprintf(t->cls[t->k++], sizeof(t->cls[0]), "%s", cls);
	}
	t->n[i]++;
}

/* The most frequent loss class, else the most frequent class; ties to the first seen. */
static int primary(const struct inc_tally *t)
{
	int best = -1;

	for (int pass = 0; pass < 2 && best < 0; pass++)
		for (int i = 0; i < t->k; i++)
			if ((pass || loss_class(t->cls[i])) && (best < 0 || t->n[i] > t->n[best]))
				best = i;
	return best;
}

/*
 * Merge the verdicts into incidents, one per element while its verdicts keep
 * coming: a verdict joins the element's last incident when its window starts
 * at most two of its windows after that incident's end.  Verdicts of windows
 * ending once the components are being stopped are left out, as for
 * detection.
 */
static void incidents(const struct scn_expect *e, const struct comp_obs *obs,
		      const struct comp_times *t, const struct grade_class *gc, struct grade *g)
{
	struct inc_tally tl[GRADE_MAX_INCIDENTS] = {0};

	for (size_t i = 0; i < obs->n_verdicts; i++) {
		const struct verdict *v = &obs->verdicts[i];
		double ws = v->win[0], we = v->win[1], gap = 2 * (we - ws);
		struct grade_incident *x = NULL;

		if ((t->t_stop > 0 && we > t->t_stop) || v->rig || v->effect)
			continue;
		for (size_t k = g->n_inc; k-- > 0;)
			if (!strcmp(g->inc[k].target, v->target)) {
				if (ws <= g->inc[k].end + gap)
					x = &g->inc[k];
				break;
			}
		if (!x) {
			if (g->n_inc == GRADE_MAX_INCIDENTS)
				continue;
			x = &g->inc[g->n_inc++];
			*x = (struct grade_incident){.start = ws, .end = we};
			snprintf(x->target, sizeof(x->target), "%s", v->target);
		}
		x->start = ws < x->start ? ws : x->start;
		x->end = we > x->end ? we : x->end;
		x->verdicts++;
		x->in_fault |= t->t_fault > 0 && ws < t->t_revert && we > t->t_fault;
		tally_add(&tl[x - g->inc], v->cls);
	}
	for (size_t k = 0; k < g->n_inc; k++) {
		struct grade_incident *x = &g->inc[k];
		int p = primary(&tl[k]);

		snprintf(x->cls, sizeof(x->cls), "%s", p >= 0 ? tl[k].cls[p] : "");
		x->other_cls = x->verdicts - (p >= 0 ? tl[k].n[p] : 0);
		x->right =
		    x->in_fault && e->cls[0] && class_is(x->cls, e, gc) && names(x->target, e, gc);
		g->incidents += x->in_fault;
		g->incidents_right += x->right;
	}
	g->incident_precision =
	    g->incidents && e->cls[0] ? (double)g->incidents_right / g->incidents : -1;
}

static void detection(const struct scn_expect *e, const struct comp_obs *obs,
		      const struct comp_times *t, double settle, const struct grade_class *gc,
		      struct grade *g)
{
	double first = -1;
	int best = 0, best_exact = 0, in = 0, right = 0;

	for (size_t i = 0; i < obs->n_verdicts; i++) {
		const struct verdict *v = &obs->verdicts[i];
		double ws = v->win[0], we = v->win[1];
		bool in_fault = t->t_fault > 0 && ws < t->t_revert && we > t->t_fault;
		/* Detection time: when the verdict came out (window end + grace when live). */
		double at = v->emitted > 0 ? v->emitted : we;
		int rank;

		if (v->rig || v->effect) {
			/* the hosts' processing was slow, or the fault's driver flapped a link,
			 * measured: right, and not of the fault */
			if (!(t->t_stop > 0 && we > t->t_stop))
				++*(v->rig ? &g->rig_explained : &g->effect_explained);
			continue;
		}

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
						 "%s %.60s in [%.1f, %.1f] s %s", v->cls, v->target,
						 ws - comp_t0(t), we - comp_t0(t),
						 comp_time_zero(t));
			}
			continue;
		}
		if (first < 0 || at < first)
			first = at;
		g->detected = true;
		in++;
		if (g->n_ranks < GRADE_MAX_RANKS) {
			g->ranks[g->n_ranks].t = we;
			g->ranks[g->n_ranks++].rank = truth_rank(v, e, gc);
		}
		right += class_is(v->cls, e, gc) && verdict_names(v, e, gc);
		if (!g->got_class[0]) { /* what it said first, until a right one comes */
			snprintf(g->got_class, sizeof(g->got_class), "%s", v->cls);
			snprintf(g->got_target, sizeof(g->got_target), "%s", v->target);
		}
		if (!class_is(v->cls, e, gc))
			continue;
		if (!g->class_ok) {
			snprintf(g->got_class, sizeof(g->got_class), "%s", v->cls);
			snprintf(g->got_target, sizeof(g->got_target), "%s", v->target);
		}
		g->class_ok = true;
		rank = truth_rank(v, e, gc);
		if (rank && (!best || rank < best)) {
			best = rank;
			snprintf(g->got_target, sizeof(g->got_target), "%s", v->target);
		}
		rank = gc ? truth_rank(v, e, NULL) : rank;
		if (rank && (!best_exact || rank < best_exact))
			best_exact = rank;
	}
	/* rank: the exact one; rank_class: against the class (the same with no class) */
	g->rank = best_exact;
	g->rank_class = best;
	g->precision = in && e->cls[0] ? (double)right / in : -1;
	g->verdicts_in = in;
	g->verdicts_right = right;
	g->localized = best > 0 && best <= e->top_k;
	if (g->detected) {
		double from = t->t_effect > t->t_fault ? t->t_effect : t->t_fault;

		g->time_to_detect_s = first - from > 0 ? first - from : 0;
	}
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
		     const struct comp_times *t, double settle_s, const struct grade_class *gc,
		     struct grade *g)
{
	enum run_verdict was = g->verdict;

	g->detected = g->localized = g->class_ok = false;
	g->rank = g->rank_class = g->false_positives = g->rig_explained = g->effect_explained = 0;
	g->time_to_detect_s = g->precision = -1;
	g->got_class[0] = g->got_target[0] = g->fp_first[0] = '\0';
	g->verdicts_in = g->verdicts_right = g->incidents = g->incidents_right = 0;
	g->n_inc = g->n_ranks = 0;
	g->class_known = gc;
	g->observable = !gc || gc->o->cls_seen[gc->cls];
	g->class_size = gc ? (int)gc->o->cls_size[gc->cls] : 0;
	g->class_names[0] = '\0';
	if (gc)
		observe_class_names(gc->o, gc->cls, g->class_names, sizeof(g->class_names));
	detection(e, obs, t, settle_s, gc, g);
	incidents(e, obs, t, gc, g);
	if (was == RV_INVALID)
		return;
	g->verdict = RV_PASS;
	g->reason[0] = '\0';
	if (e->silent && t->t_fault > 0 && g->detected) {
		/* Blind by design to this fault: anything said during it is a false alarm. */
		fail(g, "expected blind to the fault, but said %s %s during it", g->got_class,
		     g->got_target);
	} else if (e->silent) {
		if (g->false_positives > e->max_false_positives)
			fail(g, "%d verdict(s) %s (at most %d allowed)", g->false_positives,
			     t->t_fault > 0 ? "outside the fault" : "on a fault-free lab",
			     e->max_false_positives);
	} else if (e->cls[0]) {
		if (!g->detected)
			fail(g, "not detected: no verdict during the fault");
		else if (g->time_to_detect_s > (double)e->within_ms / 1e3)
			fail(g, "detected after %.1f s, later than %.1f s", g->time_to_detect_s,
			     (double)e->within_ms / 1e3);
		else if (!g->class_ok)
			fail(g, "no %s verdict (got %s %s)", e->cls, g->got_class, g->got_target);
		else if (!g->localized)
			fail(g, "%s%s ranked %s among %s suspects (top-%d expected)", e->target,
			     g->class_size > 1 ? " (its class)" : "",
			     g->rank_class ? "low" : "nowhere", e->cls, e->top_k);
		else if (g->precision < e->min_precision)
			fail(g,
			     "precision %.2f, below %.2f: %d of the %d verdicts during the fault "
			     "name %s as %s (%d incident(s), %d of them right)",
			     g->precision, e->min_precision, g->verdicts_right, g->verdicts_in,
			     e->target, e->cls, g->incidents, g->incidents_right);
		else if (g->false_positives > e->max_false_positives)
			fail(
			    g,
			    "%d false positive(s) outside the fault (at most %d allowed), first %s",
			    g->false_positives, e->max_false_positives, g->fp_first);
		if (g->verdict == RV_FAIL && g->rank_class > 1 && !g->localized && g->class_ok)
			snprintf(g->reason + strlen(g->reason),
				 sizeof(g->reason) - strlen(g->reason), " (rank %d)",
				 g->rank_class);
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
