// SPDX-License-Identifier: MIT
/*
 * MP-RDMA as a component under test: endpoints through the lab, statistics
 * per phase, the rig's own limits, and its part of the incident report
 * (mpr_comp_int.h names the files it is split into).
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

/* ---- the component ---------------------------------------------------------------------- */

struct opt_desc mpr_comp_params[PARAMS_MAX];

#define CF(f) offsetof(struct mpr_comp_cfg, f)

__attribute__((constructor)) static void build_params(void)
{
	size_t n = 0;

	mpr_comp_params[n++] =
	    (struct opt_desc){"from",
			      OPT_STR,
			      0,
			      0,
			      CF(from),
			      "the sending RNIC (host:rnic; default: the first host's lowest rail)",
			      .size = sizeof(((struct mpr_comp_cfg *)0)->from)};
	mpr_comp_params[n++] = (struct opt_desc){
	    "to",
	    OPT_STR,
	    0,
	    0,
	    CF(to),
	    "the receiving RNIC (host:rnic; default: the second host's next rail)",
	    .size = sizeof(((struct mpr_comp_cfg *)0)->to)};
	mpr_comp_params[n++] = (struct opt_desc){
	    "across",
	    OPT_STR,
	    0,
	    0,
	    CF(across),
	    "single path: place it across this port (SWITCH:PORT): its source port is the first "
	    "of the VPs' whose traced path crosses it (the paper's placement on each spine)",
	    .size = sizeof(((struct mpr_comp_cfg *)0)->across)};
	mpr_comp_params[n++] = (struct opt_desc){
	    "vps-per-path",
	    OPT_UINT,
	    0,
	    16,
	    CF(vps_per_path),
	    "spray: pick this many VPs through each spine by tracing and spray over those (the "
	    "brief's D.8: 4 a spine; 0: every VP, as ECMP spreads them)"};
	for (const struct opt_desc *d = ep_opts; d->type != OPT_END && n < PARAMS_MAX - 1; d++) {
		if (!strcmp(d->name, "duration"))
			continue; /* the scenario's phases say how long */
		mpr_comp_params[n] = *d;
		mpr_comp_params[n++].off += CF(ep);
	}
	mpr_comp_params[n] = (struct opt_desc)OPT_TABLE_END;
}

void mpr_comp_defaults(void *cfg)
{
	struct mpr_comp_cfg *c = cfg;

	ep_defaults(&c->ep);
	c->ep.seed = 0;		      /* 0: the run's seed */
	c->from[0] = c->to[0] = '\0'; /* picked from the inventory: see pick_pair() */
}

/*
 * The default flow, the same on any lab: the first host's RNIC on its lowest
 * rail to the second host's RNIC on the next rail, so that every path
 * crosses a spine (the paper's cross-ToR paths).  false: fewer than two rails.
 */
static bool pick_pair(const struct inventory *inv, char *from, char *to, size_t len)
{
	const struct inv_host *a = inv->n_hosts ? &inv->hosts[0] : NULL;
	const struct inv_host *b = inv->n_hosts > 1 ? &inv->hosts[1] : a;
	const struct inv_rnic *ra = NULL, *rb = NULL;

	for (size_t i = 0; a && i < a->n_rnics; i++)
		if (!ra || a->rnics[i].rail < ra->rail)
			ra = &a->rnics[i];
	for (size_t i = 0; ra && i < b->n_rnics; i++)
		if (b->rnics[i].rail > ra->rail && (!rb || b->rnics[i].rail < rb->rail))
			rb = &b->rnics[i];
	if (!rb)
		return false;
	snprintf(from, len, "%s:%s", a->name, ra->name);
	snprintf(to, len, "%s:%s", b->name, rb->name);
	return true;
}

int mpr_comp_check(void *cfg, char *err, size_t errlen)
{
	struct mpr_comp_cfg *c = cfg;
	enum ep_ecn ecn;
	char h[INV_NAME_MAX + 1];

	if (!c->from[0] != !c->to[0] || (c->from[0] && (mpr_host_of(c->from, h, sizeof(h)) ||
							mpr_host_of(c->to, h, sizeof(h))))) {
		snprintf(err, errlen,
			 "mp-rdma: give both from and to as RNICs (host:rnic), or neither (the "
			 "first host's lowest rail to the second host's next rail)");
		return -EINVAL;
	}
	if (c->across[0] && !c->ep.single_path) {
		snprintf(err, errlen,
			 "mp-rdma: across places the single path on a port: add single-path: true "
			 "(MP-RDMA spreads over every path)");
		return -EINVAL;
	}
	if (c->across[0]) {
		char why[160];

		if (inventory_endpoint_form(c->across, why, sizeof(why))) {
			snprintf(err, errlen,
				 "mp-rdma: across places the single path on a switch "
				 "port: %s",
				 why);
			return -EINVAL;
		}
	}
	if (c->across[0] && c->ep.sport) {
		snprintf(err, errlen,
			 "mp-rdma: across picks the single path's source port by tracing: give "
			 "across or sport, not both");
		return -EINVAL;
	}
	if (ep_check(&c->ep, &ecn, err, errlen))
		return -EINVAL;
	return 0;
}

long long mpr_comp_settle_ms(const void *cfg)
{
	(void)cfg;
	return (long long)(SETTLE_S * 1e3);
}

/* A fault kind that drops everything on its link (abandon, reuse; the optimal loses the link). */
static bool blackholes(const char *kind)
{
	return !strcmp(kind, "link-flap") || !strcmp(kind, "acl-error");
}

/* The inventory links the faults sit on; blackhole when one of them drops everything. */
static void fault_links(struct mpr_state *st, const struct inventory *inv,
			const struct comp_fault *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct inv_endpoint ep;
		char msg[160];
		ssize_t l;

		if (!strncmp(f[i].kind, "load-", 5) && strcmp(f[i].kind, "load-stream"))
			continue; /* an incast's target is an RNIC: no path is singled out */
		if (inventory_endpoint(inv, f[i].target, &ep, msg, sizeof(msg)) ||
		    (l = pathmap_link_index(inv, &ep)) < 0 || st->n_fault_links == FAULT_LINKS)
			continue; /* a whole switch, or no link: no path is singled out */
		st->fault_links[st->n_fault_links++] = (size_t)l;
		st->blackhole |= blackholes(f[i].kind);
		st->compete |= !strcmp(f[i].kind, "load-stream");
	}
}

/*
 * The optimal while the faults are live: a blackholing fault's link carries
 * nothing, a degraded one its rate; the rest (losses, routes) leave it as it is.
 */
static double optimal_in_fault(const struct comp_env *e, const char *from, const char *to)
{
	struct comp_shape *s = rl_xcalloc(e->n_shapes + e->n_faults + 1, sizeof(*s));
	size_t n = e->n_shapes;
	double r;

	if (n)
		memcpy(s, e->shapes, n * sizeof(*s));
	for (size_t i = 0; i < e->n_faults; i++) {
		const struct comp_fault *f = &e->faults[i];
		bool down = blackholes(f->kind);

		if (!down && !(!strcmp(f->kind, "link-degrade") && f->rate_kbit))
			continue;
		snprintf(s[n].target, sizeof(s[n].target), "%s", f->target);
		s[n++].rate_kbit = down ? 0 : f->rate_kbit;
	}
	r = mpr_optimal_mbit(e->inv, from, to, s, n);
	free(s);
	return r;
}

/*
 * 'rocelab transport paths' on each end, a sweep a second until stopped: the
 * data's routes from the sender, the ACKs' from the receiver (the brief's D.5:
 * before the fault and during it, as ECMP may spread them anew).
 */
static int start_tracers(struct mpr_state *st, const struct comp_env *e, const struct ep_params *p)
{
	const char *fwd[] = {"--from", st->from, "--to", st->to, NULL};
	const char *ack[] = {"--from", st->to, "--to", st->from, NULL};
	char sh[INV_NAME_MAX + 1], rh[INV_NAME_MAX + 1];
	int r;

	snprintf(st->flog, sizeof(st->flog), "%s/%s-paths-data.log", e->dir, st->name);
	snprintf(st->alog, sizeof(st->alog), "%s/%s-paths-ack.log", e->dir, st->name);
	if (mpr_host_of(st->from, sh, sizeof(sh)) || mpr_host_of(st->to, rh, sizeof(rh)))
		return -EINVAL;
	r = mpr_spawn(e->lab, e->self_exe, e->inv_path, sh, "paths", fwd, p, TRACE_MS, st->flog,
		      &st->trace_fwd);
	if (!r)
		r = mpr_spawn(e->lab, e->self_exe, e->inv_path, rh, "paths", ack, p, TRACE_MS,
			      st->alog, &st->trace_ack);
	return r;
}

int mpr_comp_start(const struct comp_env *e, const void *cfg, void **state, char *what,
		   size_t whatlen)
{
	const struct mpr_comp_cfg *c = cfg;
	struct mpr_state *st = rl_xcalloc(1, sizeof(*st));
	struct ep_params p = c->ep;
	int r;

	*state = st;
	st->cfg = c;
	st->inv = e->inv;
	st->spray = !strcmp(c->ep.workload, "spray");
	st->name = st->spray ? "eunomia" : "mp-rdma";
	if (!p.seed)
		p.seed = e->seed ? e->seed : 1;
	snprintf(st->from, sizeof(st->from), "%s", c->from);
	snprintf(st->to, sizeof(st->to), "%s", c->to);
	if (!c->from[0] && !pick_pair(e->inv, st->from, st->to, sizeof(st->from))) {
		snprintf(what, whatlen, "%s has no two rails to send across; give from and to",
			 e->inv->name);
		return -ENOENT;
	}
	if ((r = mpr_flow_check(e->inv, st->from, st->to, what, whatlen)))
		return r;
	if (c->across[0]) {
		char log[PATH_MAX + 32], why[400];
		uint16_t sport;

		snprintf(log, sizeof(log), "%s/mp-rdma-place.log", e->dir);
		if ((r = mpr_pin_port(e->lab, e->self_exe, e->inv, e->inv_path, st->from, st->to,
				      c->across, false, log, &sport, why, sizeof(why)))) {
			snprintf(what, whatlen, "cannot place the single path across %s: %s",
				 c->across, why);
			return r;
		}
		p.sport = sport;
	}
	if (st->spray && c->vps_per_path && !p.vp_set[0]) {
		char log[PATH_MAX + 32], why[400];

		snprintf(log, sizeof(log), "%s/eunomia-vps.log", e->dir);
		if ((r = mpr_balance_vps(e->lab, e->self_exe, e->inv, e->inv_path, st->from, st->to,
					 c->vps_per_path, log, p.vp_set, sizeof(p.vp_set), why,
					 sizeof(why))) < 0) {
			snprintf(what, whatlen, "cannot balance the VPs over the paths: %s", why);
			return r;
		}
	}
	st->optimal = mpr_optimal_mbit(e->inv, st->from, st->to, e->shapes, e->n_shapes);
	st->optimal_fault = optimal_in_fault(e, st->from, st->to);
	snprintf(st->slog, sizeof(st->slog), "%s/%s-send.log", e->dir, st->name);
	snprintf(st->rlog, sizeof(st->rlog), "%s/%s-recv.log", e->dir, st->name);
	r = mpr_flow_start(&st->flow, e->lab, e->self_exe, e->inv_path, st->from, st->to, &p, 0,
			   st->slog, st->rlog, what, whatlen);
	if (r)
		return r;
	fault_links(st, e->inv, e->faults, e->n_faults);
	r = start_tracers(st, e, &p);
	if (r) {
		snprintf(what, whatlen, "cannot trace the VPs' paths: %s (see %s, %s)",
			 strerror(-r), st->flog, st->alog);
		return r;
	}
	char mode[128] = "MP-RDMA";

	if (st->spray)
		snprintf(mode, sizeof(mode), "%u connections sprayed over %s (%s receiver)",
			 p.conns, p.vp_set[0] ? "VPs balanced by tracing" : "every VP",
			 !strcmp(p.receiver, "bitmap") ? (p.bitmap == 64 ? "static64" : "static256")
						       : p.receiver);
	if (p.single_path)
		snprintf(mode, sizeof(mode), "single path%s%s", c->across[0] ? " across " : "",
			 c->across);
	if (c->across[0])
		snprintf(mode + strlen(mode), sizeof(mode) - strlen(mode), " (source port %u)",
			 p.sport);
	st->sport = p.sport;
	if (st->optimal > 0)
		snprintf(what, whatlen, "%s %s -> %s, optimal %.1f Mbit/s (fabric)", mode, st->from,
			 st->to, st->optimal);
	else
		snprintf(what, whatlen, "%s %s -> %s, unshaped (no optimal)", mode, st->from,
			 st->to);
	return 0;
}

bool mpr_comp_alive(void *state, char *why, size_t whylen)
{
	struct mpr_flow *fl = &((struct mpr_state *)state)->flow;

	if (fl->rcv.pid > 0 && !lab_alive(fl->lab, &fl->rcv)) {
		snprintf(why, whylen, "the %s receiver exited early; see %s",
			 ((struct mpr_state *)state)->name, fl->rlog);
		return false;
	}
	if (fl->snd.pid > 0 && !lab_alive(fl->lab, &fl->snd)) {
		snprintf(why, whylen, "the %s sender exited early; see %s",
			 ((struct mpr_state *)state)->name, fl->slog);
		return false;
	}
	return true;
}

void mpr_comp_stop(void *state)
{
	struct mpr_state *st = state;

	mpr_flow_stop(&st->flow);
	for (int i = 0; i < 2; i++) {
		struct lab_proc *pr = i ? &st->trace_ack : &st->trace_fwd;

		if (pr->pid > 0)
			lab_stop(st->flow.lab, pr, 3000);
		pr->pid = 0;
	}
}

int mpr_comp_collect(void *state, const struct comp_times *t, struct comp_obs *obs)
{
	struct mpr_state *st = state;

	/* it did not start (its scenario is invalid with why): nothing ran to read */
	if (!st->flow.started_at)
		return 0;

	double iv = (double)st->cfg->ep.interval_ms / 1e3, t_end = t->t_stop ? t->t_stop : t->t_end;
	double started = st->flow.started_at;
	double b_from = (started > t->t_start ? started : t->t_start) + WARMUP_S;
	double b_to = t->t_fault > 0 ? t->t_inject : t_end;
	json_t *se, *re;
	double base, fault = -1, rec = -1, ood_fault = -1;
	unsigned long long rig;
	/* the graded phases, for the rig's CPU */
	double ph_from[3] = {b_from}, ph_to[3] = {b_to}, ph_good[3] = {0}, ph_opt[3] = {0};
	const char *ph_name[3] = {"baseline", "fault", "recovery"};
	size_t n_ph = 1;

	unsigned nv = st->cfg->ep.vps;
	/* the whole fault: MP-RDMA leaves a bad path within RTTs, then probes it now and then */
	struct vp_acc acc = {.mask = rl_xcalloc(nv, 1),
			     .n = nv,
			     .from = t->t_fault,
			     .to = t->t_fault > 0 ? t->t_revert : -1,
			     .ev = rl_xcalloc(nv, sizeof(*acc.ev))};
	json_t *paths = mpr_vp_truth(st, t, (uint8_t *)acc.mask);

	st->n_rs = mpr_read_log_acc(st->rlog, "rcv", &st->rs, &re, NULL);
	st->n_ss = mpr_read_log_acc(st->slog, "snd", &st->ss, &se, &acc);
	/* a competing stream is no fault of a link, one path has none to vote among */
	if (t->t_fault > 0 && st->n_fault_links && !st->compete && !st->cfg->ep.single_path)
		mpr_localize(st, &acc, t, paths, obs);
	free((uint8_t *)acc.mask);
	free(acc.ev);
	obs->section = json_object();
	json_object_set_new(obs->section, "paths", paths);
	if (!se || !re) {
		snprintf(obs->invalid, sizeof(obs->invalid),
			 "no summary from the %s %s (see its log)", st->name,
			 se ? "receiver" : "sender");
		json_decref(se);
		json_decref(re);
		return 0;
	}
	base = mpr_goodput_mbit(st->rs, st->n_rs, iv, b_from, b_to);
	comp_obs_metric(obs, "goodput-mbit", base, "Mbit/s");
	json_object_set_new(obs->section, "phases", json_object());
	mpr_phase(obs->section, "baseline", b_from, b_to, base);
	if (t->t_fault > 0) {
		double r_from = t->t_revert + SETTLE_S;
		/*
		 * Goodput during the fault counts once its injector had verified it:
		 * the test traffic it verifies with (pfc-misconfig: a second of
		 * incast at full speed) loads the rig's own CPUs, not the fabric.
		 */
		double f_from = mpr_fault_from(t);

		fault = mpr_goodput_mbit(st->rs, st->n_rs, iv, f_from, t->t_revert);
		rec = mpr_goodput_mbit(st->rs, st->n_rs, iv, r_from, t_end);
		comp_obs_metric(obs, "goodput-fault-mbit", fault, "Mbit/s");
		comp_obs_metric(obs, "goodput-recovery-mbit", rec, "Mbit/s");
		if (base > 0) {
			comp_obs_metric(obs, "fault-vs-baseline", fault / base, "ratio");
			comp_obs_metric(obs, "recovery-vs-baseline", rec / base, "ratio");
		}
		mpr_phase(obs->section, "fault", f_from, t->t_revert, fault);
		ood_fault = mpr_ood_quantile_in(st->rs, st->n_rs, iv, f_from + OOD_SETTLE_S,
						mpr_ood_fault_to(t, f_from), 0.999);
		mpr_phase(obs->section, "recovery", r_from, t_end, rec);
		ph_from[1] = f_from, ph_to[1] = t->t_revert;
		ph_from[2] = r_from, ph_to[2] = t_end;
		ph_good[1] = fault, ph_good[2] = rec;
		ph_opt[1] = st->optimal_fault, ph_opt[2] = st->optimal;
		n_ph = 3;
		if (base > 0)
			mpr_recovery_time(st, t, iv, t_end, base, obs);
	}
	ph_good[0] = base, ph_opt[0] = st->optimal;
	if (st->optimal > 0)
		comp_obs_metric(obs, "goodput-vs-optimal", base / st->optimal, "ratio");
	/* during the fault: of the optimal that the faults left (0: they left nothing) */
	if (st->optimal_fault > 0 && fault >= 0) {
		comp_obs_metric(obs, "fault-vs-optimal", fault / st->optimal_fault, "ratio");
		mpr_onset(st, t, iv, obs);
	}
	comp_obs_metric(
	    obs, "vps-used",
	    mpr_mean_of(st->ss, st->n_ss, offsetof(struct mpr_sample, vps_used), b_from, b_to),
	    "VPs");
	if (t->t_fault > 0 && json_integer_value(json_object_get(paths, "vps_hit")) > 0)
		mpr_path_metrics(st, t, iv, t_end, paths, obs);
	comp_obs_metric(obs, "retransmissions", mpr_jnum(se, "retx"), "packets");
	comp_obs_metric(obs, "nacks", mpr_jnum(se, "nacks"), "ACKs");
	comp_obs_metric(obs, "rtos", mpr_jnum(se, "rtos"), "timeouts");
	comp_obs_metric(obs, "ood-p999", mpr_jnum(re, "ood_p999"), "packets");
	comp_obs_metric(obs, "ood-max", mpr_jnum(re, "ood_max"), "packets");
	if (ood_fault >= 0)
		comp_obs_metric(obs, "ood-p999-fault", ood_fault, "packets");
	comp_obs_metric(obs, "payload-errors", mpr_jnum(re, "pattern_bad"), "packets");
	if (st->cfg->ep.sync > 0) {
		/* section 3.4: synchronise messages placed, and any placed before an earlier one */
		comp_obs_metric(obs, "sync-placed", mpr_jnum(re, "sync_placed"), "packets");
		comp_obs_metric(obs, "sync-early",
				mpr_jnum(re, "sync_early") + mpr_jnum(re, "placed_beyond"),
				"packets");
		comp_obs_metric(obs, "sync-refused", mpr_jnum(re, "sync_refused"), "packets");
	}
	if (t->t_fault > 0) {
		double f_from = mpr_fault_from(t), high = 0;

		/* the receiver's ordering memory in the fault (Eunomia's Table 1: MP-RDMA's 17 B)
		 */
		comp_obs_metric(obs, "ordering-memory-fault",
				mpr_mean_of(st->rs, st->n_rs,
					    offsetof(struct mpr_sample, ord_bytes), f_from,
					    t->t_revert),
				"bytes");
		for (size_t i = 0; i < st->n_rs; i++)
			high = st->rs[i].ord_bytes_max > high ? st->rs[i].ord_bytes_max : high;
		comp_obs_metric(obs, "ordering-memory-high", high, "bytes");
	}
	json_object_set_new(obs->section, "from", json_string(st->from));
	json_object_set_new(obs->section, "to", json_string(st->to));
	if (st->spray)
		mpr_spray_metrics(st, t, re, se, obs);
	json_object_set_new(obs->section, "mode",
			    json_string(st->spray		  ? "spray"
					: st->cfg->ep.single_path ? "single-path"
								  : "mp-rdma"));
	if (!st->spray) {
		struct mpr_cfg mc;

		ep_snd_cfg(&st->cfg->ep, &mc);
		json_object_set_new(
		    obs->section, "sender",
		    json_pack("{s:s, s:b, s:s, s:s, s:s, s:s}", "mode", st->cfg->ep.mode,
			      "scoreboard", mc.scoreboard, "credit", mpr_credit_name(mc.credit),
			      "probe_mode", mpr_probe_mode_name(mc.probe_mode), "nack",
			      mpr_nack_name(mc.nack), "recovery", mpr_recovery_name(&mc)));
	}
	if (st->cfg->across[0])
		json_object_set_new(obs->section, "across", json_string(st->cfg->across));
	if (st->sport)
		json_object_set_new(obs->section, "sport", json_integer(st->sport));
	json_object_set_new(obs->section, "optimal_mbit",
			    st->optimal > 0 ? json_real(st->optimal) : json_null());
	if (t->t_fault > 0)
		json_object_set_new(obs->section, "optimal_fault_mbit",
				    st->optimal_fault > 0 ? json_real(st->optimal_fault)
							  : json_null());
	json_object_set_new(obs->section, "ecn",
			    json_string(!strcmp(st->cfg->ep.ecn, "sojourn")
					    ? "emulated (one-way delay at the receiver)"
					    : st->cfg->ep.ecn));
	json_object_set_new(obs->section, "sender", se);
	json_object_set_new(obs->section, "receiver", re);
	/* Packets the endpoints' own sockets lost: the rig was the limit, not the transport. */
	rig = (unsigned long long)(mpr_jnum(se, "tx_full") + mpr_jnum(re, "tx_full") +
				   mpr_jnum(se, "rx_overflow") + mpr_jnum(re, "rx_overflow") +
				   mpr_jnum(re, "held_full"));
	if (rig)
		snprintf(obs->invalid, sizeof(obs->invalid),
			 "invalid (rig-limited): the endpoints' sockets lost %llu packets (full "
			 "send queues, receive overflows, held ACKs)",
			 rig);
	/* an endpoint that never idled is rig-limited too (a socket loss, said first, stands) */
	json_object_set_new(
	    obs->section, "cpu",
	    mpr_cpu_section(st, iv, ph_from, ph_to, ph_name, ph_good, ph_opt, n_ph, !rig, obs));
	return 0;
}

void mpr_comp_release(void *state)
{
	struct mpr_state *st = state;

	if (!st)
		return;
	mpr_samples_free(st->rs, st->n_rs);
	mpr_samples_free(st->ss, st->n_ss);
	free(st->data);
	free(st->ack);
	free(st);
}

const struct component_ops mprdma_component =
    MPR_COMPONENT("mp-rdma", "MP-RDMA (NSDI'18): multi-path RDMA transport, graded on goodput",
		  mpr_comp_defaults, mpr_comp_check);
