// SPDX-License-Identifier: MIT
/*
 * The grader's side of a run: each component's observations against the
 * injected truth (grade.c), the rig's pressure and the declared services
 * their senders' own record
 */
#define _GNU_SOURCE
#include "harness/run/runner.h"

#include "harness/lab/traffic.h"
#include "harness/run/registry.h"
#include "probe/observe.h"

#include <dirent.h>
#include <string.h>

/*
 * Of a service's windows a monitor said it was impacted in, not by the
 * network, those in which its own sender (its "sent" lines in log; 1042
 * bytes a datagram as the monitor counts it, Ethernet's 14 and IP's 1028)
 * really sent less than the monitor's degraded line, (1 - degrade) of its
 * best: the rig held the sender back, and the monitor saw it right (issue
 * 64: measured conditions are ground truth too).
 */
static long long sender_windows(const struct svc_obs *g, const char *log, double degrade)
{
	long long own = 0;

	for (size_t i = 0; g && i < g->n_sender; i++) {
		const struct svc_window *w = &g->sender[i];
		double sent = traffic_sent_between(log, 0, w->start, w->end);

		if (sent >= 0 && w->end > w->start &&
		    sent * 1042 * 8 / (w->end - w->start) / 1e6 < (1 - degrade) * w->best_mbps)
			own++;
	}
	return own;
}

/*
 * What a monitor that traces services saw of each declared one (its typed
 * observations, by from, to and source port) against what the service
 * expects; the section gains "declared".  false with why when one is not met.
 */
static bool grade_services(const struct scn_result *r, struct comp_result *c, char *why,
			   size_t whylen)
{
	const struct scenario *s = r->s;
	json_t *declared;
	bool ok = true;

	if (!c->obs.traces_services || !c->obs.section)
		return true; /* a monitor that does not trace services */
	declared = json_array();
	for (size_t i = 0; i < s->n_services && i < SVC_MAX; i++) {
		const struct scn_service *x = &s->services[i];
		const struct svc_obs *g = NULL;
		long long win, imp, net, own;
		bool pass = true;
		char got[160], log[PATH_MAX + 96];

		for (size_t k = 0; k < c->obs.n_services && !g; k++)
			if (c->obs.services[k].sport == r->svc_sport[i] &&
			    !strcmp(c->obs.services[k].from, x->from) &&
			    !strcmp(c->obs.services[k].to, x->to))
				g = &c->obs.services[k];
		win = g ? g->windows : 0;
		imp = g ? g->impacted : 0;
		net = g ? g->network : 0;
		snprintf(log, sizeof(log), "%s/service-%s.log", r->dir, x->name);
		own = sender_windows(g, log, c->obs.svc_degrade);
		snprintf(got, sizeof(got),
			 "seen in %lld window(s), impacted in %lld (%lld its sender's), network in "
			 "%lld",
			 win, imp, own, net);
		/* expected never impacted: its sender's own slowdowns were right verdicts */
		own = x->want_impacted == 0 ? own : 0;
		imp -= own;
		if (!win)
			pass = x->want_impacted < 0 && x->want_network < 0;
		else if (x->want_network == 1)
			pass = net > 0;
		else if (x->want_network == 0)
			pass = imp > net && net == 0;
		if (x->want_impacted >= 0)
			pass &= x->want_impacted ? imp > 0 : imp == 0;
		json_array_append_new(
		    declared,
		    json_pack("{s:s,s:s,s:s,s:i,s:s?,s:b,s:o,s:o,s:I,s:I,s:I,s:b}", "name", x->name,
			      "from", x->from, "to", x->to, "sport", r->svc_sport[i], "port",
			      x->port[0] ? x->port : NULL, "avoids", x->avoids, "network_related",
			      x->want_network < 0 ? json_null() : json_boolean(x->want_network),
			      "impacted",
			      x->want_impacted < 0 ? json_null() : json_boolean(x->want_impacted),
			      "windows", (json_int_t)win, "windows_impacted",
			      (json_int_t)(imp + own), "windows_network", (json_int_t)net, "pass",
			      pass));
		json_object_set_new(json_array_get(declared, json_array_size(declared) - 1),
				    "windows_sender", json_integer(own));
		if (!pass && ok) {
			snprintf(why, whylen, "service %s: %s (expected %s)", x->name, got,
				 x->want_network == 1	 ? "network-related"
				 : x->want_network == 0	 ? "impacted, not network-related"
				 : x->want_impacted == 0 ? "never impacted"
							 : "impacted");
			ok = false;
		}
	}
	json_object_set_new(c->obs.section, "declared", declared);
	return ok;
}

struct comp_times runner_times(const struct scn_result *r)
{
	return (struct comp_times){.t_start = r->t_start,
				   .t_inject = r->t_inject,
				   .t_fault = r->t_fault,
				   .t_revert = r->t_revert,
				   .t_end = r->t_end,
				   .t_stop = r->t_stop,
				   .t_verified = r->t_verified,
				   .t_unapply = r->t_unapply,
				   .t_effect = r->t_load > r->t_fault ? r->t_load : r->t_fault,
				   .t_origin = r->t_fault > 0 ? r->t_fault : r->t_phase};
}

/*
 * An injector's "effect: link-flap HOST:RNIC (clock A to B[; again at
 * revert])" line into r->effect: a link the fault's own driver flapped (an
 * mlx5 PFC change).  Only this lab's RNICs, and times that are times.
 */
static void effect_line(struct scn_result *r, const char *line)
{
	const char *p = strstr(line, "effect: link-flap ");
	struct run_effect *e = &r->effect[r->n_effect];
	char name[sizeof(e->target)], why[160];
	struct inv_endpoint ep;
	int end = 0;

	if (!p || !r->s || r->n_effect == ARRAY_SIZE(r->effect) ||
	    sscanf(p, "effect: link-flap %63s (clock %lf to %lf%n", name, &e->from, &e->to, &end) !=
		3 ||
	    !end || !(e->to >= e->from) || e->to - e->from > 600 ||
	    inventory_endpoint(r->s->inv, name, &ep, why, sizeof(why)) || ep.kind != INV_DEV_HOST)
		return; /* not an effect line, or not one of this lab's RNICs */
	snprintf(e->target, sizeof(e->target), "%s", name);
	e->at_revert = !strncmp(p + end, "; again at revert)", 18);
	r->n_effect++;
}

/*
 * The down intervals of flapping links, from the holders' own lines in
 * inject.log ("flap F: down at +T s (cycle C; clock R)", "flap F: up at
 * ...", R in CLOCK_REALTIME seconds; before issue 58 "at R (cycle C)"): one
 * still down at the revert ends there; and the links a fault's driver
 * flapped (effect_line()).  Read once, after the fault phase (the results
 * and the incident page both use them).
 */
void runner_read_effect(struct scn_result *r)
{
	char path[PATH_MAX + 16], *log, *line, *save = NULL;
	size_t n = 0, len, max = ARRAY_SIZE(r->down);
	double(*down)[2] = r->down;
	struct open_flap {
		unsigned id;
		double from;
	} open[8];
	size_t n_open = 0;

	r->n_down = r->n_effect = 0;
	snprintf(path, sizeof(path), "%s/inject.log", r->dir);
	if (!(log = rl_read_file(path, &len)))
		return;
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *p = strstr(line, "flap "), *clock;
		char what[8];
		unsigned id;
		double at;
		size_t k;

		effect_line(r, line);
		if (!p || sscanf(p, "flap %u: %7s at %lf", &id, what, &at) != 3)
			continue;
		if ((clock = strstr(p, "; clock ")) && sscanf(clock, "; clock %lf", &at) != 1)
			continue;
		if (!clock && at < 1e8) /* seconds from the start, and no clock: not a time */
			continue;
		for (k = 0; k < n_open && open[k].id != id; k++)
			;
		if (!strcmp(what, "down") && k == n_open && n_open < ARRAY_SIZE(open))
			open[n_open++] = (struct open_flap){id, at};
		else if (!strcmp(what, "up") && k < n_open) {
			if (n < max)
				down[n][0] = open[k].from, down[n++][1] = at;
			open[k] = open[--n_open];
		}
	}
	for (size_t k = 0; k < n_open && n < max; k++)
		down[n][0] = open[k].from, down[n++][1] = r->t_revert;
	free(log);
	r->n_down = n;
}

double runner_t0(const struct scn_result *r)
{
	struct comp_times t = runner_times(r);

	return comp_t0(&t);
}

bool runner_known_blind(const struct scn_result *r)
{
	return r->g.verdict == RV_FAIL && r->s &&
	       (r->s->expect.blind[0] || (r->g.class_known && !r->g.observable));
}

/* Does v, during the fault, say what the component was to find (a cpu-hog's host)? */
static bool finds_the_fault(const struct scn_result *r, const struct scn_expect *e,
			    const struct verdict *v)
{
	return r->t_fault > 0 && v->win[0] < r->t_revert && v->win[1] > r->t_fault &&
	       !strcmp(v->cls, e->cls) && grade_names_truth(v->target, e);
}

/*
 * Host h's rig: this machine's on the virtual lab (every host is this
 * machine), the host's own over SSH ('rocelab rig' there); NULL when not
 * measured.
 */
static const struct rig *host_rig(const struct scn_result *r, size_t h)
{
	return r->rig_local ? &r->rig : h < r->n_host_rig ? &r->host_rig[h] : NULL;
}

/*
 * How long some task of host (its name, or "HOST:RNIC") waited for a CPU
 * over [from, to], as a share; -1 when not measured.
 */
static double host_pressure(const struct scn_result *r, const char *host, double from, double to)
{
	size_t len = strcspn(host, ":");

	for (size_t h = 0; r->s && h < r->s->inv->n_hosts; h++)
		if (strlen(r->s->inv->hosts[h].name) == len &&
		    !strncmp(r->s->inv->hosts[h].name, host, len))
			return host_rig(r, h) ? rig_pressure(host_rig(r, h), from, to) : -1;
	return r->rig_local ? rig_pressure(&r->rig, from, to) : -1;
}

/*
 * A latency verdict most of whose votes a host's clock_gettime timed (no
 * kernel or completion clock: rxe), while one of those hosts waited for a
 * CPU past the rig's bound: the probes measured the agent's scheduling,
 * which such a monitor cannot tell from the network's.  The VM tier's
 * fault-free run drew one as its agents started: 6 slow probes, all of
 * host1 (verbs on rxe) over 50 ms, this machine's pressure 0.76.
 */
static bool app_timed_pressed(const struct scn_result *r, const struct verdict *v)
{
	double worst = -1;

	if (!v->n_app_hosts || 2 * v->app_timed <= v->votes)
		return false;
	for (size_t k = 0; k < v->n_app_hosts; k++) {
		double p = host_pressure(r, v->app_hosts[k], v->win[0], v->win[1]);

		worst = p > worst ? p : worst;
	}
	return worst >= RIG_PRESSURE_BOUND;
}

/* Is v on link-flap effect e: an rnic or link verdict naming its RNIC, in its time? */
static bool on_effect(const struct scn_result *r, const struct run_effect *e,
		      const struct verdict *v)
{
	size_t n = strlen(e->target);
	const char *t = v->target, *dash = strstr(t, "--");
	bool names = !strcmp(t, e->target) ||
		     (dash && ((size_t)(dash - t) == n && !strncmp(t, e->target, n))) ||
		     (dash && !strcmp(dash + 2, e->target));
	double span = e->to - e->from;

	if (!names || (strcmp(v->cls, "rnic") && strcmp(v->cls, "switch-link")))
		return false;
	/* its window meets the flap, or the one at the revert (as long as the apply's) */
	return (v->win[0] < e->to && v->win[1] > e->from) ||
	       (e->at_revert && r->t_revert > 0 && v->win[0] < r->t_revert + span &&
		v->win[1] > r->t_revert);
}

void runner_mark_rig(struct scn_result *r)
{
	for (size_t i = 0; i < r->n_comps; i++)
		for (size_t k = 0; k < r->comps[i].obs.n_verdicts; k++) {
			struct verdict *v = &r->comps[i].obs.verdicts[k];
			/* what finds the fault stays the fault's, whatever else happened */
			bool own = finds_the_fault(r, &r->comps[i].sc->expect, v);

			/*
			 * The host's own pressure: this machine's on the virtual lab, its
			 * own sampler's over SSH.  A fault that is the pressure (a
			 * cpu-hog) is found by the verdicts it causes: those stay its.
			 */
			v->rig = !own &&
				 (!strcmp(v->cls, "host-processing")
				      ? host_pressure(r, v->target, v->win[0], v->win[1]) >=
					    RIG_PRESSURE_BOUND
				      : !strcmp(v->cls, "congestion") && app_timed_pressed(r, v));
			v->effect = false;
			for (size_t e = 0; e < r->n_effect && !own && !v->rig && !v->effect; e++)
				v->effect = on_effect(r, &r->effect[e], v);
		}
}

size_t runner_phases(const struct scn_result *r, const char *name[3], double from[3], double to[3])
{
	name[0] = "baseline", name[1] = "fault", name[2] = "recovery";
	from[0] = r->t_start, from[1] = r->t_fault, from[2] = r->t_revert;
	to[0] = r->t_fault > 0 ? r->t_inject : r->t_stop, to[1] = r->t_revert, to[2] = r->t_stop;
	return r->t_fault > 0 ? 3 : 1;
}

const char *runner_load_text(const struct scn_result *r, size_t i, char *buf, size_t len)
{
	const struct scn_load *l = &r->s->loads[i];
	const struct run_load *x = &r->loads[i];
	char share[160];
	int n = snprintf(buf, len, "%s %s: asked %llu Mbit/s%s",
			 l->kind == LOAD_STREAM ? "stream across"
			 : l->rc		? "RC WRITE incast to"
						: "incast to",
			 l->kind == LOAD_STREAM ? l->across : l->to, l->rate_mbps,
			 scn_load_share_text(l, share, sizeof(share)));

	if (n < 0 || (size_t)n >= len || i >= r->n_loads)
		return buf;
	if (x->sent_mbps < 0)
		n += snprintf(buf + n, len - (size_t)n, ", sent: not known (no sender's lines)");
	else
		n += snprintf(buf + n, len - (size_t)n, ", sent %.0f Mbit/s (%.0f%%)%s",
			      x->sent_mbps, x->sent_mbps * 100 / (double)l->rate_mbps,
			      x->refused ? ", sends refused downstream" : "");
	/* an RC load's pace is its RNICs': what it got through while the fault held it */
	if (l->rc && x->fault_mbps >= 0 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; %.1f Mbit/s while the fault was in effect",
			 x->fault_mbps);
	return buf;
}

bool runner_load_short(const struct scn_result *r, size_t i)
{
	const struct run_load *x = &r->loads[i];

	return r->s && i < r->n_loads && i < r->s->n_loads && x->sent_mbps >= 0 && !x->refused &&
	       x->sent_mbps < LOAD_SHORT_BOUND * (double)r->s->loads[i].rate_mbps;
}

/* The first load the rig could not send (runner_load_short()), said in why. */
static bool load_limited(const struct scn_result *r, char *why, size_t len)
{
	char text[300];

	for (size_t i = 0; i < r->n_loads; i++)
		if (runner_load_short(r, i)) {
			snprintf(why, len,
				 "invalid (rig-limited): the %s, none refused: the rig could not "
				 "send it",
				 runner_load_text(r, i, text, sizeof(text)));
			return true;
		}
	return false;
}

bool runner_rig_limited(const struct scn_result *r, char *why, size_t len)
{
	const char *name[3];
	double from[3], to[3], worst = -1;
	size_t n, at = 0, who = 0;
	bool own = r->s && r->s->n_loads; /* the fault phase's pressure is the scenario's own */

	for (size_t i = 0; r->s && i < r->s->n_faults; i++)
		own |= r->s->faults[i].spec.kind->loads_cpu;
	n = runner_phases(r, name, from, to);
	/* the virtual lab: this machine; over SSH: each host's own (this machine is none) */
	for (size_t h = 0; h < (r->rig_local ? 1 : r->n_host_rig); h++)
		for (size_t p = 0; p < n; p++) {
			double v =
			    p == 1 && own ? -1 : rig_pressure(host_rig(r, h), from[p], to[p]);

			if (v > worst)
				worst = v, at = p, who = h;
		}
	if (worst < RIG_PRESSURE_BOUND)
		return load_limited(r, why, len);
	snprintf(why, len,
		 "invalid (rig-limited): some task of %s%s waited for a CPU %.0f%% of the %s "
		 "phase (bound %.0f%%): the rig's CPU was the limit",
		 r->rig_local ? "this machine" : "host ",
		 r->rig_local || !r->s ? "" : r->s->inv->hosts[who].name, worst * 100, name[at],
		 RIG_PRESSURE_BOUND * 100);
	return true;
}

/*
 * What a monitor can tell apart (issue 64): the classes of the paths its
 * probes took until the fault ended, as its agents traced them (those it
 * took around the fault too: a probe that crossed a link observed it); a
 * monitor that traced none, those of every equal-cost path its pairs could
 * take (predicted).  basis says which, n how many paths; NULL: none.
 */
static struct observe *monitor_classes(const struct scn_result *r, const struct comp_result *c,
				       const char **basis, long *n)
{
	const struct scn_component *sc = c->sc;
	double until = r->t_fault > 0 ? r->t_revert : r->t_stop;
	struct observe_builder *b;
	struct observe *o;
	size_t n_pairs = 0;

	if (c->obs.n_paths && (b = observe_begin(r->s->inv))) {
		for (size_t i = 0; i < c->obs.n_paths; i++)
			if (until <= 0 || c->obs.paths[i].t <= until)
				observe_path(b, c->obs.paths[i].links, c->obs.paths[i].n);
		o = observe_end(b); /* its n_paths: those it took (none of another inventory) */
		if (o && o->n_paths) {
			*basis = "traced", *n = (long)o->n_paths;
			return o;
		}
		observe_free(o);
	}
	o = component_observe(sc->ops, sc->cfg, r->s->inv, r->s->seed, &n_pairs);
	*basis = "predicted", *n = o ? (long)o->n_paths : 0;
	return o;
}

void runner_grade(struct scn_result *r)
{
	struct comp_times t = runner_times(r);
	const struct grade *headline = NULL;
	bool invalid = r->g.verdict == RV_INVALID;
	char svc_why[300], rig_why[320];

	for (size_t i = 0; i < r->n_comps; i++) {
		struct comp_result *c = &r->comps[i];
		const struct scn_component *sc = c->sc;

		struct grade_class gc = {0};
		struct observe *ob = NULL;
		const char *basis = "";
		long n_paths = 0;
		ssize_t el = -1;

		/* A monitor is graded against what its probes can tell apart (issue 64). */
		if (r->s && sc->expect.cls[0] && sc->expect.target[0] && sc->ops->probe_pairs &&
		    (ob = monitor_classes(r, c, &basis, &n_paths)) &&
		    (el = observe_element_of(ob, sc->expect.target)) >= 0)
			gc = (struct grade_class){ob, ob->class_of[el]};
		c->g.verdict = invalid ? RV_INVALID : RV_PASS;
		grade_component(&sc->expect, &c->obs, &t, (double)sc->ops->settle_ms(sc->cfg) / 1e3,
				gc.o ? &gc : NULL, &c->g);
		snprintf(c->g.class_basis, sizeof(c->g.class_basis), "%s", gc.o ? basis : "");
		c->g.class_paths = gc.o ? n_paths : 0;
		observe_free(ob);
		/*
		 * A failure on a rig measured saturated says nothing of the component:
		 * invalid, never a fail (what it measured stays in its section).  One
		 * expected (known blind, unobservable) stays what it was.
		 */
		if (c->g.verdict == RV_FAIL && c->g.observable && !sc->expect.blind[0] &&
		    runner_rig_limited(r, rig_why, sizeof(rig_why))) {
			char was[sizeof(c->g.reason)];

			snprintf(was, sizeof(was), "%s", c->g.reason);
			snprintf(c->g.reason, sizeof(c->g.reason), "%.220s (measured: %.80s)",
				 rig_why, was);
			c->g.verdict = RV_INVALID;
			if (!invalid) {
				invalid = true;
				r->g.verdict = RV_INVALID;
				snprintf(r->g.reason, sizeof(r->g.reason), "%.24s: %.290s",
					 sc->ops->name, c->g.reason);
			}
		}
		if (c->g.verdict == RV_FAIL && !c->g.observable) {
			/* What no probe crosses, no monitor can be asked to find: a count apart. */
			char why[sizeof(c->g.reason)];

			snprintf(why, sizeof(why), "%s", c->g.reason);
			snprintf(c->g.reason, sizeof(c->g.reason),
				 "unobservable by %.20s (no probe path crosses %.72s): %.180s",
				 sc->ops->name, sc->expect.target, why);
		}
		if (r->s && r->s->n_services && !grade_services(r, c, svc_why, sizeof(svc_why)) &&
		    c->g.verdict == RV_PASS) {
			c->g.verdict = RV_FAIL;
			snprintf(c->g.reason, sizeof(c->g.reason), "%s", svc_why);
		}
		/* The headline: the first component to name a fault and not known blind to it,
		 * else the first to keep silent (a monitor blind to this fault beside one that
		 * finds it does not speak for the scenario). */
		if (!headline && sc->expect.cls[0] && !sc->expect.blind[0])
			headline = &c->g;
	}
	for (size_t i = 0; !headline && i < r->n_comps; i++)
		if (r->comps[i].sc->expect.cls[0] &&
		    !strcmp(r->comps[i].sc->expect.blind, r->s->expect.blind))
			headline = &r->comps[i].g;
	for (size_t i = 0; !headline && i < r->n_comps; i++)
		if (r->comps[i].sc->expect.silent)
			headline = &r->comps[i].g;
	if (!headline && r->n_comps)
		headline = &r->comps[0].g;
	if (headline) {
		char reason[sizeof(r->g.reason)];

		snprintf(reason, sizeof(reason), "%s", r->g.reason);
		r->g = *headline;
		if (invalid) {
			r->g.verdict = RV_INVALID;
			snprintf(r->g.reason, sizeof(r->g.reason), "%s", reason);
		}
	}
	if (invalid)
		return;
	/*
	 * The scenario fails with its first failing component.  One known not to
	 * meet its own expectation today (its expect.known-blind, beside others
	 * that do) stays failed in its section and fails no run.
	 */
	for (size_t i = 0; i < r->n_comps; i++)
		if (r->comps[i].g.verdict == RV_FAIL &&
		    !(r->comps[i].sc->expect.blind[0] &&
		      strcmp(r->comps[i].sc->expect.blind, r->s->expect.blind))) {
			r->g.verdict = RV_FAIL;
			if (r->n_comps > 1)
				snprintf(r->g.reason, sizeof(r->g.reason), "%s: %.280s",
					 r->comps[i].sc->ops->name, r->comps[i].g.reason);
			else
				snprintf(r->g.reason, sizeof(r->g.reason), "%s",
					 r->comps[i].g.reason);
			break;
		}
}
