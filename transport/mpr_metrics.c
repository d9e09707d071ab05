// SPDX-License-Identifier: MIT
/*
 * MP-RDMA's metrics per phase from its samples: the endpoints' CPU, each
 * VP's routes against the faults' links, paths in use, where the loss was
 * localized, the recovery time, and the spraying workload's figures.
 */
#define _GNU_SOURCE
#include "transport/mpr_comp_int.h"

#include "harness/lib/common.h"
#include "probe/pathmap.h"
#include "transport/mpr_vpmap.h"
#include "transport/mprdma/mpr_wire.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The share of [from, to] an endpoint spent on a CPU (*cpu) and on one or
 * waiting for one (the return; -1: no samples with the figures).
 */
static double cpu_busy(const struct mpr_sample *s, size_t n, double iv, double from, double to,
		       double *cpu)
{
	double c = 0, q = 0, span;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (mpr_in_window(&s[i], iv, from, to))
			c += s[i].cpu_ms, q += s[i].runq_ms, k++;
	if (!k || c + q <= 0)
		return -1;
	span = (double)k * iv * 1e3;
	*cpu = c / span;
	return (c + q) / span;
}

/*
 * Each endpoint's CPU per graded phase ([from[p], to[p]], named name[p]) for
 * results.json: {busy_max, sender: {baseline: {cpu, busy}}, receiver: ...}.
 * With judge, the first phase in which an endpoint (the sender first) never
 * idled makes the run invalid (rig-limited) -- unless that phase's goodput
 * good[p] reached its optimal opt[p] (mpr_cpu_limited()).  A CI run's sender
 * was busy 92% of a baseline it carried at 0.984 of the optimal: calling
 * that rig-limited graded the rig, not the transport.
 */
json_t *mpr_cpu_section(const struct mpr_state *st, double iv, const double *from, const double *to,
			const char *const *name, const double *good, const double *opt, size_t n,
			bool judge, struct comp_obs *obs)
{
	json_t *ep[2] = {json_object(), json_object()};
	json_t *paced = json_object();

	for (size_t p = 0; p < n; p++) {
		if (opt[p] > 0)
			json_object_set_new(paced, name[p],
					    json_boolean(mpr_net_paced(good[p], opt[p])));
		for (int e = 0; e < 2; e++) {
			double cpu = 0,
			       busy = cpu_busy(e ? st->rs : st->ss, e ? st->n_rs : st->n_ss, iv,
					       from[p], to[p], &cpu);

			if (busy < 0)
				continue;
			json_object_set_new(ep[e], name[p],
					    json_pack("{s:f,s:f}", "cpu", cpu, "busy", busy));
			if (!judge || !mpr_cpu_limited(busy, good[p], opt[p]))
				continue;
			snprintf(
			    obs->invalid, sizeof(obs->invalid),
			    "invalid (rig-limited): the MP-RDMA %s was on a CPU or waiting for "
			    "one %.0f%% of the %s phase (on one %.0f%%) and carried %s: the "
			    "rig's CPU was the limit",
			    e ? "receiver" : "sender", busy * 100, name[p], cpu * 100,
			    opt[p] > 0 ? "less than the fabric allowed" : "an unshaped fabric");
			judge = false;
		}
	}
	return json_pack("{s:f,s:f,s:o,s:o,s:o}", "busy_max", MPR_CPU_BUSY_MAX, "net_paced",
			 MPR_NET_PACED, "network_paced", paced, "sender", ep[0], "receiver", ep[1]);
}

/* The mean of field (an offset into struct mpr_sample) over the samples within [from, to]. */
double mpr_mean_of(const struct mpr_sample *s, size_t n, size_t field, double from, double to)
{
	double sum = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i].t >= from && s[i].t <= to)
			sum += *(const double *)((const char *)&s[i] + field), k++;
	return k ? sum / (double)k : 0;
}

void mpr_phase(json_t *sec, const char *name, double from, double to, double g)
{
	json_object_set_new(
	    json_object_get(sec, "phases"), name,
	    json_pack("{s:f,s:f,s:f}", "from", from, "to", to, "goodput_mbit", g < 0 ? 0 : g));
}

static bool same_route(const struct mpr_route *a, const struct mpr_route *b)
{
	return a->n == b->n && !memcmp(a->links, b->links, a->n * sizeof(a->links[0]));
}

static json_t *route_json(const struct inventory *inv, const struct mpr_route *r)
{
	json_t *a = json_array();
	char name[160];

	for (unsigned i = 0; i < r->n; i++)
		json_array_append_new(
		    a, json_string(pathmap_link_name(inv, r->links[i], name, sizeof(name))));
	return a;
}

/*
 * The VPs' routes traced before the fault (and during it), into results.json;
 * mask[vp - VP_LO] gets VP_HIT when a fault's link is on its data or ACK route
 * before the fault, VP_FWD when on its data route.
 */
json_t *mpr_vp_truth(struct mpr_state *st, const struct comp_times *t, uint8_t *mask)
{
	unsigned nv = st->cfg->ep.vps;
	double pre_to = t->t_fault > 0 ? t->t_inject : 1e18;
	struct mpr_route *d = rl_xcalloc(nv, sizeof(*d)), *a = rl_xcalloc(nv, sizeof(*a));
	struct mpr_route *dd = rl_xcalloc(nv, sizeof(*dd)), *ad = rl_xcalloc(nv, sizeof(*ad));
	struct topo *topo = topo_build(st->inv, false, NULL);
	json_t *o = json_object(), *vps = json_array(), *fl = json_array();
	unsigned hit = 0, fwd = 0, moved = 0, routes = 0, routes_fwd = 0;
	char name[160];
	int nd = -1, na = -1;

	if (topo) {
		nd = mpr_routes_read(st->flog, st->inv, topo, st->from, st->to, 0, pre_to, VP_LO, d,
				     nv);
		na = mpr_routes_read(st->alog, st->inv, topo, st->to, st->from, 0, pre_to, VP_LO, a,
				     nv);
		if (t->t_fault > 0) {
			mpr_routes_read(st->flog, st->inv, topo, st->from, st->to, t->t_fault,
					t->t_revert, VP_LO, dd, nv);
			mpr_routes_read(st->alog, st->inv, topo, st->to, st->from, t->t_fault,
					t->t_revert, VP_LO, ad, nv);
		}
	}
	for (size_t k = 0; k < st->n_fault_links; k++)
		json_array_append_new(fl, json_string(pathmap_link_name(st->inv, st->fault_links[k],
									name, sizeof(name))));
	for (unsigned i = 0; i < nv; i++) {
		bool on_d = false, on_a = false, first = d[i].complete;

		for (size_t k = 0; k < st->n_fault_links; k++) {
			on_d |= mpr_route_has(&d[i], st->fault_links[k]);
			on_a |= mpr_route_has(&a[i], st->fault_links[k]);
		}
		mask[i] = (uint8_t)((on_d || on_a ? VP_HIT : 0) | (on_d ? VP_FWD : 0));
		hit += on_d || on_a;
		fwd += on_d;
		/* distinct complete data routes: the paths, for the restored one's fair share */
		for (unsigned j = 0; first && j < i; j++)
			first = !(d[j].complete && same_route(&d[j], &d[i]));
		routes += first;
		routes_fwd += first && on_d;
		/* a route traced during the fault that leaves the one before (up to where it ends)
		 */
		for (unsigned k = 0; dd[i].t && d[i].t && k < dd[i].n && k < d[i].n; k++)
			if (dd[i].links[k] != d[i].links[k]) {
				moved++;
				break;
			}
		if (!d[i].t && !a[i].t)
			continue;
		json_array_append_new(vps,
				      json_pack("{s:i,s:o,s:o,s:b}", "vp", (int)(VP_LO + i), "data",
						route_json(st->inv, &d[i]), "ack",
						route_json(st->inv, &a[i]), "hit", on_d || on_a));
	}
	st->vps_hit = hit;
	st->vps_traced = nd < 0 ? 0 : (unsigned)nd;
	json_object_set_new(o, "traced_data", json_integer(nd < 0 ? 0 : nd));
	json_object_set_new(o, "traced_ack", json_integer(na < 0 ? 0 : na));
	json_object_set_new(o, "fault_links", fl);
	json_object_set_new(o, "vps_hit", json_integer(hit));
	json_object_set_new(o, "vps_fwd", json_integer(fwd));
	json_object_set_new(o, "data_routes", json_integer(routes));
	json_object_set_new(o, "fair_share", json_real(routes ? (double)routes_fwd / routes : 0));
	json_object_set_new(o, "moved_during_fault", json_integer(moved));
	json_object_set_new(o, "vps", vps);
	topo_free(topo);
	free(dd), free(ad);
	st->data = d;
	st->ack = a;
	return o;
}

/*
 * How MP-RDMA's sends moved off the VPs the fault touched and, after a
 * blackhole, back onto the restored link (the brief's D.6).
 */
void mpr_path_metrics(const struct mpr_state *st, const struct comp_times *t, double iv,
		      double t_end, json_t *paths, struct comp_obs *obs)
{
	struct mpr_share *hit = rl_xcalloc(st->n_ss + 1, sizeof(*hit));
	struct mpr_share *fwd = rl_xcalloc(st->n_ss + 1, sizeof(*fwd));
	double fair = json_real_value(json_object_get(paths, "fair_share"));
	double base, during;

	for (size_t i = 0; i < st->n_ss; i++) {
		hit[i] = (struct mpr_share){st->ss[i].t, st->ss[i].sent_hit, st->ss[i].sent};
		fwd[i] = (struct mpr_share){st->ss[i].t, st->ss[i].sent_fwd, st->ss[i].sent};
	}
	base = mpr_share_mean(hit, st->n_ss, iv, t->t_start, t->t_inject);
	during = mpr_share_mean(hit, st->n_ss, iv, t->t_fault, t->t_revert);
	if (base >= 0)
		comp_obs_metric(obs, "hit-share-baseline", base, "ratio");
	if (during >= 0)
		comp_obs_metric(obs, "hit-share-fault", during, "ratio");
	/* against an even spread over the traced VPs: 1, no preference for the clean ones */
	if (during >= 0 && st->vps_traced && st->vps_hit)
		comp_obs_metric(obs, "hit-share-fault-vs-even",
				during / ((double)st->vps_hit / st->vps_traced), "ratio");
	if (st->compete) {
		double left = mpr_share_settles(hit, st->n_ss, iv, t->t_fault, t->t_revert,
						COMPETE_W, COMPETE_MAX, true);
		double after =
		    mpr_share_mean(hit, st->n_ss, iv, t->t_fault + COMPETE_AFTER, t->t_revert);

		/* never: the whole phase (a bound that fails, never one that passes) */
		comp_obs_metric(obs, "compete-ms",
				(left < 0 ? t->t_revert - t->t_fault : left) * 1e3, "ms");
		if (after >= 0)
			comp_obs_metric(obs, "compete-share", after, "ratio");
		json_object_set_new(paths, "compete_s", left < 0 ? json_null() : json_real(left));
	}
	if (st->blackhole) {
		double ab = mpr_share_settles(hit, st->n_ss, iv, t->t_fault, t->t_revert, ABANDON_W,
					      ABANDON_MAX, true);
		double re = fair > 0 ? mpr_share_settles(fwd, st->n_ss, iv, t->t_revert, t_end,
							 REUSE_W, REUSE_SHARE * fair, false)
				     : -1;

		/* never: the whole phase (a bound that fails, never one that passes) */
		comp_obs_metric(obs, "abandon-ms", (ab < 0 ? t->t_revert - t->t_fault : ab) * 1e3,
				"ms");
		double srtt = mpr_mean_of(st->ss, st->n_ss, offsetof(struct mpr_sample, srtt_us),
					  t->t_revert, t_end);

		if (fair > 0)
			comp_obs_metric(obs, "reuse-ms", (re < 0 ? t_end - t->t_revert : re) * 1e3,
					"ms");
		/* the paper's "under 1 s" was at 10 Gbit/s, thousands of its round trips */
		if (fair > 0 && srtt > 0)
			comp_obs_metric(obs, "reuse-rtts",
					(re < 0 ? t_end - t->t_revert : re) * 1e6 / srtt, "RTTs");
		json_object_set_new(paths, "abandon_s", ab < 0 ? json_null() : json_real(ab));
		json_object_set_new(paths, "reuse_s", re < 0 ? json_null() : json_real(re));
	}
	free(hit);
	free(fwd);
}

/*
 * The brief's D.7: the VPs MP-RDMA's own behaviour marks bad over the fault
 * (lost their clocking, lost packets, pruned as slow; mpr_vp_judge) against
 * those it found fine, graded against the VPs the faults' links carry, and
 * voted onto links: the faulted ones' best rank among the suspects, and a
 * verdict the grader ranks (class, suspects) when any VP was bad.
 */
void mpr_localize(const struct mpr_state *st, const struct vp_acc *acc, const struct comp_times *t,
		  json_t *paths, struct comp_obs *obs)
{
	unsigned nv = st->cfg->ep.vps, bad, bad_hit = 0, judged_hit = 0, rank = 0, slow = 0;
	int8_t *verdict = rl_xcalloc(nv, 1);
	struct mpr_vote votes[VERDICT_SUSPECTS];
	json_t *sus = json_array();
	char name[160];
	size_t n;

	bad = mpr_vp_judge(acc->ev, nv, verdict);
	for (unsigned i = 0; i < nv; i++) {
		bool hit = acc->mask[i] & VP_HIT;

		if (verdict[i] < 0)
			continue;
		bad_hit += verdict[i] > 0 && hit;
		judged_hit += hit;
	}
	n = mpr_vote(st->data, st->ack, verdict, nv, votes, ARRAY_SIZE(votes));
	for (size_t k = 0; k < st->n_fault_links; k++) {
		unsigned r = mpr_vote_rank(votes, n, st->fault_links[k]);

		if (r && (!rank || r < rank))
			rank = r;
	}
	comp_obs_metric(obs, "bad-vps", bad, "VPs");
	if (bad)
		comp_obs_metric(obs, "bad-vps-precision", (double)bad_hit / bad, "ratio");
	if (judged_hit)
		comp_obs_metric(obs, "bad-vps-recall", (double)bad_hit / judged_hit, "ratio");
	/* not among the suspects: ranked after all of them */
	comp_obs_metric(obs, "suspect-rank", rank ? rank : (double)n + 1, "rank");
	if (n) {
		struct verdict *v = comp_obs_verdict(obs);

		double first = t->t_revert;

		/*
		 * Most bad VPs on the top suspect slow (pruned), not lossy: it is
		 * congested.  Said when the first of them showed it: the judgement
		 * is over the whole fault, but the evidence was there from then on.
		 */
		for (unsigned i = 0; i < nv; i++) {
			if (verdict[i] <= 0 || !(mpr_route_has(&st->data[i], votes[0].link) ||
						 mpr_route_has(&st->ack[i], votes[0].link)))
				continue;
			slow += verdict[i] == 2;
			if (acc->ev[i].first && acc->ev[i].first < first)
				first = acc->ev[i].first;
		}
		*v = (struct verdict){.time = first,
				      .emitted = first,
				      .win = {t->t_fault, t->t_revert},
				      .votes = votes[0].bad,
				      .n_sus = n};
		snprintf(v->cls, sizeof(v->cls), "%s",
			 slow * 2 > votes[0].bad ? "congestion" : "switch-link");
		pathmap_link_name(st->inv, votes[0].link, v->target, sizeof(v->target));
		for (size_t k = 0; k < n; k++) {
			pathmap_link_name(st->inv, votes[k].link, v->sus[k].target,
					  sizeof(v->sus[k].target));
			v->sus[k].votes = votes[k].bad;
			v->sus[k].good = votes[k].good;
		}
	}
	for (size_t k = 0; k < n && k < 5; k++)
		json_array_append_new(
		    sus, json_pack("{s:s,s:i,s:i}", "link",
				   pathmap_link_name(st->inv, votes[k].link, name, sizeof(name)),
				   "bad", (int)votes[k].bad, "good", (int)votes[k].good));
	json_object_set_new(paths, "suspects", sus);
	free(verdict);
}

/*
 * From the revert to the first 200 ms in which goodput is back to 0.9 of the
 * baseline (the whole recovery phase when it never is).
 */
/* Each receiver sample's delivered packets against what mbit would deliver in it (free it). */
static struct mpr_share *delivered_of(const struct mpr_state *st, double mbit, double iv)
{
	struct mpr_share *g = rl_xcalloc(st->n_rs + 1, sizeof(*g));
	double per_iv = mbit * 1e6 * iv / (MPR_WIRE_PAYLOAD * 8);

	for (size_t i = 0; i < st->n_rs; i++)
		g[i] = (struct mpr_share){st->rs[i].t, st->rs[i].delivered, per_iv};
	return g;
}

double mpr_fault_from(const struct comp_times *t)
{
	return t->t_verified > t->t_fault ? t->t_verified : t->t_fault;
}

void mpr_recovery_time(const struct mpr_state *st, const struct comp_times *t, double iv,
		       double t_end, double base_mbit, struct comp_obs *obs)
{
	struct mpr_share *g = delivered_of(st, base_mbit, iv);
	double r;

	r = mpr_share_settles(g, st->n_rs, iv, t->t_revert, t_end, REUSE_W, REUSE_SHARE, false);
	r = r < 0 ? t_end - t->t_revert : r;
	comp_obs_metric(obs, "recover-ms", r * 1e3, "ms");
	/*
	 * A flow the fault stalled resumes when its retransmission timer fires,
	 * backed off up to 64 times by then: how long it took past that moment
	 * is the transport's, the wait before it its timer's (the sender's first
	 * line after the revert says how long was left).
	 */
	for (size_t i = 0; i < st->n_ss; i++)
		if (st->ss[i].t >= t->t_revert) {
			double left = st->ss[i].rto_left_ms / 1e3 + (st->ss[i].t - t->t_revert);

			comp_obs_metric(obs, "timer-left-ms", left * 1e3, "ms");
			comp_obs_metric(obs, "recover-past-timer-ms",
					(r > left ? r - left : 0) * 1e3, "ms");
			break;
		}
	free(g);
}

/*
 * The fault's onset.  A burst of marked ACKs comes back as the path
 * slows (65 in 10 ms in one run of mprdma-degraded-marked), and each takes
 * half a packet off the shared window: it falls to a few packets within
 * two round trips.  ACK clocking then keeps the flow on the
 * VPs those few replies come back on (one, in the worst runs of
 * mprdma-degraded-marked: 45 Mbit/s, a path's worth, for half a second),
 * and only probing spreads it again.  onset-ms: from the verified fault
 * until goodput holds ONSET_SHARE of the optimal the fault left for
 * ONSET_W (the whole phase when it never does).  fault-settled-vs-optimal:
 * goodput from ONSET_SETTLE_S after it on, the steady state the paper's
 * Fig. 14(b) reports, when the phase is twice that long.
 */
void mpr_onset(const struct mpr_state *st, const struct comp_times *t, double iv,
	       struct comp_obs *obs)
{
	double f_from = mpr_fault_from(t), r;
	struct mpr_share *g;

	if (st->optimal_fault <= 0 || t->t_revert <= f_from)
		return;
	g = delivered_of(st, st->optimal_fault, iv);
	r = mpr_share_settles(g, st->n_rs, iv, f_from, t->t_revert, ONSET_W, ONSET_SHARE, false);
	comp_obs_metric(obs, "onset-ms", (r < 0 ? t->t_revert - f_from : r) * 1e3, "ms");
	if (t->t_revert - f_from >= 2 * ONSET_SETTLE_S)
		comp_obs_metric(
		    obs, "fault-settled-vs-optimal",
		    mpr_goodput_mbit(st->rs, st->n_rs, iv, f_from + ONSET_SETTLE_S, t->t_revert) /
			st->optimal_fault,
		    "ratio");
	free(g);
}

/* A window's mean of a sample field, as mpr_mean_of() but over [from, to] of whole intervals. */
static double fault_mean(const struct mpr_state *st, const struct comp_times *t, size_t field)
{
	return mpr_mean_of(st->rs, st->n_rs, field, mpr_fault_from(t), t->t_revert);
}

/*
 * A run with a versus receiver: the even QPs (the receiver's kind) and the
 * odd ones (the versus kind) side by side, on the same fabric at the same
 * moments: goodput during the fault, ordering memory, NACKs, completions.
 */
static void versus_metrics(const struct mpr_state *st, const struct comp_times *t, const json_t *re,
			   const json_t *se, struct comp_obs *obs)
{
	double per_pkt = MPR_WIRE_PAYLOAD * 8 / ((double)st->cfg->ep.interval_ms / 1e3) / 1e6;

	comp_obs_metric(obs, "half-nacks", mpr_jnum(re, "nacks") - mpr_jnum(re, "nacks_b"), "ACKs");
	comp_obs_metric(obs, "versus-nacks", mpr_jnum(re, "nacks_b"), "ACKs");
	comp_obs_metric(obs, "half-completions", mpr_jnum(se, "completed_a"), "connections");
	comp_obs_metric(obs, "versus-completions", mpr_jnum(se, "completed_b"), "connections");
	comp_obs_metric(obs, "half-fct-ms-mean", mpr_jnum(se, "fct_ms_mean_a"), "ms");
	comp_obs_metric(obs, "versus-fct-ms-mean", mpr_jnum(se, "fct_ms_mean_b"), "ms");
	if (t->t_fault > 0) {
		double all = fault_mean(st, t, offsetof(struct mpr_sample, delivered)) * per_pkt,
		       b = fault_mean(st, t, offsetof(struct mpr_sample, delivered_b)) * per_pkt,
		       mem = fault_mean(st, t, offsetof(struct mpr_sample, ord_bytes)),
		       mem_b = fault_mean(st, t, offsetof(struct mpr_sample, ord_bytes_b));

		comp_obs_metric(obs, "half-goodput-fault-mbit", all - b, "Mbit/s");
		comp_obs_metric(obs, "versus-goodput-fault-mbit", b, "Mbit/s");
		if (b > 0)
			comp_obs_metric(obs, "goodput-vs-versus", (all - b) / b, "ratio");
		comp_obs_metric(obs, "versus-memory-fault", mem_b, "bytes");
		if (mem_b > 0)
			comp_obs_metric(obs, "memory-vs-versus", mem / mem_b, "ratio");
	}
}

/*
 * The spraying workload's figures (issue 15): what the application got, the
 * connections' completions, the receiver's replies and reorder distance,
 * and its ordering memory against a static 256-bit bitmap's for the same
 * live connections, during the fault.
 */
void mpr_spray_metrics(const struct mpr_state *st, const struct comp_times *t, const json_t *re,
		       const json_t *se, struct comp_obs *obs)
{
	/* metric, the end line it comes from (s: the sender's, r: the receiver's), its key, unit */
	static const char *const figs[][4] = {
	    {"misordered", "r", "misordered", "deliveries"},
	    {"duplicated", "r", "duplicated", "packets"},
	    {"completions", "s", "completed", "connections"},
	    {"abandoned", "r", "abandoned", "connections"},
	    /* live at the end, their cumulative ACK standing for a second: lost for good */
	    {"stalled", "s", "stalled", "connections"},
	    {"fct-ms-mean", "s", "fct_ms_mean", "ms"},
	    {"fct-ms-p99", "s", "fct_ms_p99", "ms"},
	    {"sacks", "r", "sacks", "ACKs"},
	    {"cap-drops", "r", "cap_drops", "packets"},
	    {"alloc-failures", "r", "alloc_failures", "packets"},
	    {"go-backs", "s", "go_backs", "NAKs"},
	    {"reorder-p99", "r", "ood_p99", "packets"},
	    {"reorder-max", "r", "ood_max", "packets"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(figs); i++)
		comp_obs_metric(obs, figs[i][0],
				mpr_jnum(figs[i][1][0] == 's' ? se : re, figs[i][2]), figs[i][3]);
	if (st->cfg->ep.load_mbit > 0) {
		/* an offered load: what arrived, and the connections still waiting for a QP */
		comp_obs_metric(obs, "offered-mbit", mpr_jnum(se, "offered_mbit"), "Mbit/s");
		comp_obs_metric(obs, "backlog", mpr_jnum(se, "backlog"), "connections");
		comp_obs_metric(obs, "backlog-max", mpr_jnum(se, "backlog_max"), "connections");
	}
	if (t->t_fault > 0) {
		double mem = fault_mean(st, t, offsetof(struct mpr_sample, ord_bytes)),
		       sta = fault_mean(st, t, offsetof(struct mpr_sample, static_bytes)),
		       bm = fault_mean(st, t, offsetof(struct mpr_sample, bm_bytes)),
		       sbm = fault_mean(st, t, offsetof(struct mpr_sample, static_bm_bytes));

		comp_obs_metric(obs, "static-memory-fault", sta, "bytes");
		comp_obs_metric(obs, "bitmap-memory-fault", bm, "bytes");
		comp_obs_metric(obs, "static-bitmap-memory-fault", sbm, "bytes");
		if (sta > 0)
			comp_obs_metric(obs, "memory-vs-static", mem / sta, "ratio");
		if (sbm > 0)
			comp_obs_metric(obs, "bitmap-vs-static", bm / sbm, "ratio");
	}
	if (st->cfg->ep.versus[0])
		versus_metrics(st, t, re, se, obs);
}
