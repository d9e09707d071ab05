// SPDX-License-Identifier: MIT
/*
 * MP-RDMA as a component under test: endpoints through the lab, statistics
 * per phase, the rig's own limits, and its part of the incident report.
 */
#define _GNU_SOURCE
#include "transport/mpr_comp.h"

#include "harness/lib/common.h"
#include "transport/mprdma/mpr_wire.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WARMUP_S   1.0 /* the baseline counts from this long after the start */
#define SETTLE_S   0.5 /* after a revert, before recovery counts */
#define PLOT_BIN_S 0.1 /* the report's timeline resolution */
#define PARAMS_MAX 40

/* ---- endpoints through the lab (also 'rocelab transport run') --------------------------- */

/* The host of "host:rnic" into host; -EINVAL when there is no ':' or it does not fit. */
static int host_of(const char *spec, char *host, size_t len)
{
	const char *c = strchr(spec, ':');

	if (!c || (size_t)(c - spec) >= len)
		return -EINVAL;
	memcpy(host, spec, (size_t)(c - spec));
	host[c - spec] = '\0';
	return 0;
}

json_t *mpr_last_line(const char *path, const char *type)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	json_t *found = NULL;

	while (f && getline(&line, &cap, f) > 0) {
		json_t *j = line[0] == '{' ? json_loads(line, 0, NULL) : NULL;
		const char *t = j ? json_string_value(json_object_get(j, "type")) : NULL;

		if (t && !strcmp(t, type)) {
			json_decref(found);
			found = j;
		} else {
			json_decref(j);
		}
	}
	free(line);
	if (f)
		fclose(f);
	return found;
}

/* 'rocelab transport VERB' on host, where (NULL-ended) naming the RNICs; 0 or -errno. */
static int spawn(struct lab *l, const char *self, const char *inv_path, const char *host,
		 const char *verb, const char *const *where, const struct ep_params *p,
		 long long duration_ms, const char *log, struct lab_proc *proc)
{
	const char *argv[96];
	char inv_there[PATH_MAX], dur[32];
	struct opt_store store = {0};
	struct ep_params d, q = *p;
	size_t n = 0;
	int r = lab_share(l, host, inv_path, inv_there, sizeof(inv_there));

	if (r)
		return r;
	ep_defaults(&d);
	q.duration_ms = 0;
	argv[n++] = lab_program(l, host, self);
	argv[n++] = "transport";
	argv[n++] = verb;
	argv[n++] = "-i";
	argv[n++] = inv_there;
	for (; *where; where++)
		argv[n++] = *where;
	if (opt_argv(ep_opts, &q, &d, argv, &n, ARRAY_SIZE(argv) - 3, &store)) {
		opt_store_free(&store);
		return -E2BIG;
	}
	if (duration_ms) {
		snprintf(dur, sizeof(dur), "%lldms", duration_ms);
		argv[n++] = "--duration";
		argv[n++] = dur;
	}
	argv[n] = NULL;
	r = lab_spawn(l, host, argv, log, proc);
	opt_store_free(&store);
	return r;
}

int mpr_flow_check(const struct inventory *inv, const char *from, const char *to, char *why,
		   size_t whylen)
{
	struct inv_endpoint a, b;
	char msg[160];

	if (inventory_endpoint(inv, from, &a, msg, sizeof(msg)) || a.kind != INV_DEV_HOST ||
	    inventory_endpoint(inv, to, &b, msg, sizeof(msg)) || b.kind != INV_DEV_HOST) {
		snprintf(why, whylen, "from %s / to %s: not RNICs (host:rnic) of %s", from, to,
			 inv->name);
		return -ENOENT;
	}
	return 0;
}

/*
 * Wait for the receiver's first statistics line (its sockets are open), up to
 * 2 s; a lab that brings logs back only at the end (over SSH) gets those 2 s.
 */
static bool receiver_up(struct mpr_flow *fl)
{
	for (int i = 0; i < 40; i++) {
		json_t *j = mpr_last_line(fl->rlog, "rcv");

		json_decref(j);
		if (j)
			return true;
		if (!lab_alive(fl->lab, &fl->rcv))
			return false;
		usleep(50000);
	}
	return lab_alive(fl->lab, &fl->rcv);
}

int mpr_flow_start(struct mpr_flow *fl, struct lab *l, const char *self, const char *inv_path,
		   const char *from, const char *to, const struct ep_params *p,
		   long long duration_ms, const char *slog, const char *rlog, char *what,
		   size_t whatlen)
{
	const char *rwhere[] = {"--at", to, NULL}, *swhere[] = {"--from", from, "--to", to, NULL};
	char sh[INV_NAME_MAX + 1], rh[INV_NAME_MAX + 1];
	int r;

	*fl = (struct mpr_flow){.lab = l, .slog = slog, .rlog = rlog};
	if (host_of(from, sh, sizeof(sh)) || host_of(to, rh, sizeof(rh))) {
		snprintf(what, whatlen, "from %s / to %s: give host:rnic", from, to);
		return -EINVAL;
	}
	r = spawn(l, self, inv_path, rh, "recv", rwhere, p, 0, rlog, &fl->rcv);
	if (r || !receiver_up(fl)) {
		snprintf(what, whatlen, "the receiver on %s did not start; see %s", rh, rlog);
		mpr_flow_stop(fl);
		return r ? r : -EIO;
	}
	fl->started_at = (double)rl_realtime_ns() / 1e9;
	r = spawn(l, self, inv_path, sh, "send", swhere, p, duration_ms, slog, &fl->snd);
	if (r) {
		snprintf(what, whatlen, "cannot start the sender on %s: %s", sh, strerror(-r));
		mpr_flow_stop(fl);
	}
	return r;
}

void mpr_flow_stop(struct mpr_flow *fl)
{
	if (fl->snd.pid > 0) {
		lab_stop(fl->lab, &fl->snd, 3000);
		usleep(100000); /* what is in flight arrives */
	}
	if (fl->rcv.pid > 0)
		lab_stop(fl->lab, &fl->rcv, 3000);
	fl->snd.pid = fl->rcv.pid = 0;
}

/* ---- figures ---------------------------------------------------------------------------- */

double mpr_goodput_mbit(const struct mpr_sample *s, size_t n, double interval_s, double from,
			double to)
{
	double pkts = 0, span = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i].t - interval_s >= from - 1e-6 && s[i].t <= to + 1e-6) {
			pkts += s[i].delivered;
			span += interval_s;
		}
	return span > 0 ? pkts * MPR_WIRE_PAYLOAD * 8 / span / 1e6 : -1;
}

/* The shaped rate of the link at endpoint ep (kbit/s), 0: unshaped. */
static unsigned long long shaped(const struct inventory *inv, const struct inv_endpoint *ep,
				 const struct comp_shape *shapes, size_t n)
{
	const struct inv_link *l = inventory_link_at(inv, ep);

	for (size_t i = 0; l && i < n; i++) {
		struct inv_endpoint e;
		char msg[128];

		if (!inventory_endpoint(inv, shapes[i].target, &e, msg, sizeof(msg)) &&
		    inventory_link_at(inv, &e) == l)
			return shapes[i].rate_kbit;
	}
	return 0;
}

double mpr_optimal_mbit(const struct inventory *inv, const char *from, const char *to,
			const struct comp_shape *shapes, size_t n)
{
	struct inv_endpoint a, b, rail;
	unsigned long long host = ULLONG_MAX, paths = 0, r;
	char msg[128];
	size_t uplinks = 0;

	if (inventory_endpoint(inv, from, &a, msg, sizeof(msg)) ||
	    inventory_endpoint(inv, to, &b, msg, sizeof(msg)) || inventory_peer(inv, &a, &rail) ||
	    rail.kind != INV_DEV_SWITCH)
		return 0;
	if ((r = shaped(inv, &a, shapes, n)))
		host = r;
	if ((r = shaped(inv, &b, shapes, n)) && r < host)
		host = r;
	/* The rail switch's links to other switches: the paths' first hops. */
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];
		const struct inv_endpoint *me = NULL, *other;

		if (l->a.kind == INV_DEV_SWITCH && l->a.dev == rail.dev)
			me = &l->a;
		else if (l->b.kind == INV_DEV_SWITCH && l->b.dev == rail.dev)
			me = &l->b;
		if (!me || (other = inv_link_other_end(l, me))->kind != INV_DEV_SWITCH)
			continue;
		uplinks++;
		r = shaped(inv, me, shapes, n);
		if (!r) {
			paths = ULLONG_MAX;
			break;
		}
		paths += r;
	}
	if (!uplinks)
		paths = ULLONG_MAX;
	r = host < paths ? host : paths;
	return r == ULLONG_MAX ? 0
			       : (double)r / 1e3 * MPR_WIRE_PAYLOAD /
				     (double)mpr_wire_frame_len(MPR_WIRE_PAYLOAD, false);
}

/* ---- the component ---------------------------------------------------------------------- */

static struct opt_desc params[PARAMS_MAX];

#define CF(f) offsetof(struct mpr_comp_cfg, f)

__attribute__((constructor)) static void build_params(void)
{
	size_t n = 0;

	params[n++] =
	    (struct opt_desc){"from",
			      OPT_STR,
			      0,
			      0,
			      CF(from),
			      "the sending RNIC (host:rnic; default: the first host's lowest rail)",
			      .size = sizeof(((struct mpr_comp_cfg *)0)->from)};
	params[n++] = (struct opt_desc){
	    "to",
	    OPT_STR,
	    0,
	    0,
	    CF(to),
	    "the receiving RNIC (host:rnic; default: the second host's next rail)",
	    .size = sizeof(((struct mpr_comp_cfg *)0)->to)};
	for (const struct opt_desc *d = ep_opts; d->type != OPT_END && n < PARAMS_MAX - 1; d++) {
		if (!strcmp(d->name, "duration"))
			continue; /* the scenario's phases say how long */
		params[n] = *d;
		params[n++].off += CF(ep);
	}
	params[n] = (struct opt_desc)OPT_TABLE_END;
}

static void defaults(void *cfg)
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

static int check(void *cfg, char *err, size_t errlen)
{
	struct mpr_comp_cfg *c = cfg;
	enum ep_ecn ecn;
	char h[INV_NAME_MAX + 1];

	if (!c->from[0] != !c->to[0] ||
	    (c->from[0] && (host_of(c->from, h, sizeof(h)) || host_of(c->to, h, sizeof(h))))) {
		snprintf(err, errlen,
			 "mp-rdma: give both from and to as RNICs (host:rnic), or neither (the "
			 "first host's lowest rail to the second host's next rail)");
		return -EINVAL;
	}
	if (ep_check(&c->ep, &ecn, err, errlen))
		return -EINVAL;
	return 0;
}

static long long settle_ms(const void *cfg)
{
	(void)cfg;
	return (long long)(SETTLE_S * 1e3);
}

struct mpr_state {
	const struct mpr_comp_cfg *cfg;
	char from[72], to[72]; /* as given, or picked */
	struct mpr_flow flow;
	char slog[PATH_MAX + 32], rlog[PATH_MAX + 32];
	double optimal; /* Mbit/s, 0: unknown */
	struct mpr_sample *rs, *ss;
	size_t n_rs, n_ss;
};

static int start(const struct comp_env *e, const void *cfg, void **state, char *what,
		 size_t whatlen)
{
	const struct mpr_comp_cfg *c = cfg;
	struct mpr_state *st = rl_xcalloc(1, sizeof(*st));
	struct ep_params p = c->ep;
	int r;

	*state = st;
	st->cfg = c;
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
	st->optimal = mpr_optimal_mbit(e->inv, st->from, st->to, e->shapes, e->n_shapes);
	snprintf(st->slog, sizeof(st->slog), "%s/mp-rdma-send.log", e->dir);
	snprintf(st->rlog, sizeof(st->rlog), "%s/mp-rdma-recv.log", e->dir);
	r = mpr_flow_start(&st->flow, e->lab, e->self_exe, e->inv_path, st->from, st->to, &p, 0,
			   st->slog, st->rlog, what, whatlen);
	if (r)
		return r;
	if (st->optimal > 0)
		snprintf(what, whatlen, "%s %s -> %s, optimal %.1f Mbit/s (fabric)",
			 p.single_path ? "single path" : "MP-RDMA", st->from, st->to, st->optimal);
	else
		snprintf(what, whatlen, "%s %s -> %s, unshaped (no optimal)",
			 p.single_path ? "single path" : "MP-RDMA", st->from, st->to);
	return 0;
}

static bool alive(void *state, char *why, size_t whylen)
{
	struct mpr_flow *fl = &((struct mpr_state *)state)->flow;

	if (fl->rcv.pid > 0 && !lab_alive(fl->lab, &fl->rcv)) {
		snprintf(why, whylen, "the MP-RDMA receiver exited early; see %s", fl->rlog);
		return false;
	}
	if (fl->snd.pid > 0 && !lab_alive(fl->lab, &fl->snd)) {
		snprintf(why, whylen, "the MP-RDMA sender exited early; see %s", fl->slog);
		return false;
	}
	return true;
}

static void stop(void *state)
{
	mpr_flow_stop(&((struct mpr_state *)state)->flow);
}

static double jnum(const json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

/*
 * A log's per-interval lines of type, and its last line of type "TYPE-end"
 * into *end (NULL: none; a new reference).
 */
static size_t read_log(const char *path, const char *type, struct mpr_sample **out, json_t **end)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, end_type[32];
	size_t cap = 0, n = 0;

	*out = NULL;
	*end = NULL;
	snprintf(end_type, sizeof(end_type), "%s-end", type);
	while (f && getline(&line, &cap, f) > 0) {
		json_t *j = line[0] == '{' ? json_loads(line, 0, NULL) : NULL;
		const char *t = j ? json_string_value(json_object_get(j, "type")) : NULL;

		if (t && !strcmp(t, type)) {
			*RL_PUSH(*out, n) = (struct mpr_sample){.t = jnum(j, "t"),
								.delivered = jnum(j, "delivered"),
								.retx = jnum(j, "retx"),
								.vps_used = jnum(j, "vps_used")};
		} else if (t && !strcmp(t, end_type)) {
			json_decref(*end);
			*end = j;
			continue;
		}
		json_decref(j);
	}
	free(line);
	if (f)
		fclose(f);
	return n;
}

static double mean_vps(const struct mpr_sample *s, size_t n, double from, double to)
{
	double sum = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i].t >= from && s[i].t <= to)
			sum += s[i].vps_used, k++;
	return k ? sum / (double)k : 0;
}

static void phase(json_t *sec, const char *name, double from, double to, double g)
{
	json_object_set_new(
	    json_object_get(sec, "phases"), name,
	    json_pack("{s:f,s:f,s:f}", "from", from, "to", to, "goodput_mbit", g < 0 ? 0 : g));
}

static int collect(void *state, const struct comp_times *t, struct comp_obs *obs)
{
	struct mpr_state *st = state;
	double iv = (double)st->cfg->ep.interval_ms / 1e3, t_end = t->t_stop ? t->t_stop : t->t_end;
	double started = st->flow.started_at;
	double b_from = (started > t->t_start ? started : t->t_start) + WARMUP_S;
	double b_to = t->t_fault > 0 ? t->t_inject : t_end;
	json_t *se, *re;
	double base, fault = -1, rec = -1;
	unsigned long long rig;

	st->n_rs = read_log(st->rlog, "rcv", &st->rs, &re);
	st->n_ss = read_log(st->slog, "snd", &st->ss, &se);
	obs->section = json_object();
	if (!se || !re) {
		snprintf(obs->invalid, sizeof(obs->invalid),
			 "no summary from the MP-RDMA %s (see its log)",
			 se ? "receiver" : "sender");
		json_decref(se);
		json_decref(re);
		return 0;
	}
	base = mpr_goodput_mbit(st->rs, st->n_rs, iv, b_from, b_to);
	comp_obs_metric(obs, "goodput-mbit", base, "Mbit/s");
	json_object_set_new(obs->section, "phases", json_object());
	phase(obs->section, "baseline", b_from, b_to, base);
	if (t->t_fault > 0) {
		double r_from = t->t_revert + SETTLE_S;

		fault = mpr_goodput_mbit(st->rs, st->n_rs, iv, t->t_fault, t->t_revert);
		rec = mpr_goodput_mbit(st->rs, st->n_rs, iv, r_from, t_end);
		comp_obs_metric(obs, "goodput-fault-mbit", fault, "Mbit/s");
		comp_obs_metric(obs, "goodput-recovery-mbit", rec, "Mbit/s");
		if (base > 0) {
			comp_obs_metric(obs, "fault-vs-baseline", fault / base, "ratio");
			comp_obs_metric(obs, "recovery-vs-baseline", rec / base, "ratio");
		}
		phase(obs->section, "fault", t->t_fault, t->t_revert, fault);
		phase(obs->section, "recovery", r_from, t_end, rec);
	}
	if (st->optimal > 0) {
		comp_obs_metric(obs, "goodput-vs-optimal", base / st->optimal, "ratio");
		if (fault >= 0)
			comp_obs_metric(obs, "fault-vs-optimal", fault / st->optimal, "ratio");
	}
	comp_obs_metric(obs, "vps-used", mean_vps(st->ss, st->n_ss, b_from, b_to), "VPs");
	comp_obs_metric(obs, "retransmissions", jnum(se, "retx"), "packets");
	comp_obs_metric(obs, "nacks", jnum(se, "nacks"), "ACKs");
	comp_obs_metric(obs, "rtos", jnum(se, "rtos"), "timeouts");
	comp_obs_metric(obs, "ood-p999", jnum(re, "ood_p999"), "packets");
	comp_obs_metric(obs, "ood-max", jnum(re, "ood_max"), "packets");
	comp_obs_metric(obs, "payload-errors", jnum(re, "pattern_bad"), "packets");
	json_object_set_new(obs->section, "from", json_string(st->from));
	json_object_set_new(obs->section, "to", json_string(st->to));
	json_object_set_new(obs->section, "mode",
			    json_string(st->cfg->ep.single_path ? "single-path" : "mp-rdma"));
	json_object_set_new(obs->section, "optimal_mbit",
			    st->optimal > 0 ? json_real(st->optimal) : json_null());
	json_object_set_new(obs->section, "ecn",
			    json_string(!strcmp(st->cfg->ep.ecn, "sojourn")
					    ? "emulated (one-way delay at the receiver)"
					    : st->cfg->ep.ecn));
	json_object_set_new(obs->section, "sender", se);
	json_object_set_new(obs->section, "receiver", re);
	/* Packets the endpoints' own sockets lost: the rig was the limit, not the transport. */
	rig = (unsigned long long)(jnum(se, "tx_full") + jnum(re, "tx_full") +
				   jnum(se, "rx_overflow") + jnum(re, "rx_overflow") +
				   jnum(re, "held_full"));
	if (rig)
		snprintf(obs->invalid, sizeof(obs->invalid),
			 "invalid (rig-limited): the endpoints' sockets lost %llu packets (full "
			 "send queues, receive overflows, held ACKs)",
			 rig);
	return 0;
}

/* ---- report ----------------------------------------------------------------------------- */

static int write_timeline(const struct mpr_state *st, const struct comp_report *r)
{
	double t0 = r->t->t_start;
	char path[PATH_MAX + 32];
	FILE *f;
	size_t i = 0, k = 0;

	snprintf(path, sizeof(path), "%s/mp-rdma.dat", r->dir);
	if (!(f = fopen(path, "we")))
		return -errno;
	fprintf(f, "# t_s goodput_mbit retx_per_s vps_in_use (per %.0f ms)\n", PLOT_BIN_S * 1e3);
	for (double b = t0; b < r->t->t_end; b += PLOT_BIN_S) {
		double pk = 0, rt = 0, vps = 0;
		size_t nv = 0;

		for (; i < st->n_rs && st->rs[i].t < b + PLOT_BIN_S; i++)
			if (st->rs[i].t >= b)
				pk += st->rs[i].delivered;
		for (; k < st->n_ss && st->ss[k].t < b + PLOT_BIN_S; k++)
			if (st->ss[k].t >= b)
				rt += st->ss[k].retx, vps += st->ss[k].vps_used, nv++;
		fprintf(f, "%.2f %.2f %.0f %.1f\n", b + PLOT_BIN_S / 2 - t0,
			pk * MPR_WIRE_PAYLOAD * 8 / PLOT_BIN_S / 1e6, rt / PLOT_BIN_S,
			nv ? vps / (double)nv : 0);
	}
	fclose(f);
	return 0;
}

static int plot(const struct mpr_state *st, const struct comp_report *r)
{
	char gp[PATH_MAX + 32];
	FILE *f = comp_plot_begin(r, "MP-RDMA", 2, 800, gp, sizeof(gp));

	if (!f)
		return -errno;
	fprintf(f, "set title 'goodput, payload in order per %.0f ms (fault window shaded)'\n",
		PLOT_BIN_S * 1e3);
	fprintf(f, "set ylabel 'Mbit/s'\nset xlabel 'time since start (s)'\nset yrange [0:*]\n");
	fprintf(f, "plot 'mp-rdma.dat' using 1:2 with lines lw 2 title '%s'",
		st->cfg->ep.single_path ? "single path" : "MP-RDMA");
	if (st->optimal > 0)
		fprintf(f, ", %.3f with lines dt 2 lw 2 lc rgb '#606060' title 'optimal (fabric)'",
			st->optimal);
	fprintf(f, "\nunset label 100\n");
	fprintf(f, "set title 'virtual paths in use and retransmissions'\n");
	fprintf(f, "set ylabel 'VPs in use (mean per 10 ms)'\nset y2label 'retransmissions/s'\n"
		   "set y2tics\nset ytics nomirror\nset y2range [0:*]\n");
	fprintf(f, "plot 'mp-rdma.dat' using 1:4 with lines lw 2 title 'VPs in use', "
		   "'' using 1:3 axes x1y2 with lines lw 1 lc rgb '#c03030' "
		   "title 'retransmissions/s'\n");
	fprintf(f, "unset multiplot\n");
	fclose(f);
	return comp_plot_draw(r, gp);
}

static int report(void *state, const struct comp_report *r)
{
	const struct mpr_state *st = state;
	FILE *f = r->html;
	char a[1024];
	int ret = write_timeline(st, r);

	if (!ret)
		ret = plot(st, r);
	fprintf(f, "<h2>mp-rdma</h2>\n<table>\n");
	fprintf(f, "<tr><th>flow</th><td>%s &rarr; %s, %s</td></tr>\n", st->from, st->to,
		st->cfg->ep.single_path ? "single path (go-back-N)" : "MP-RDMA");
	fprintf(f, "<tr><th>optimal</th><td>%s</td></tr>\n",
		st->optimal > 0 ? "from the fabric profile (see results.json)"
				: "none: no fabric profile shapes this flow's links");
	for (size_t i = 0; i < r->obs->n_metrics; i++)
		fprintf(f, "<tr><th>%s</th><td>%.3g %s</td></tr>\n",
			rl_xml_escape(r->obs->metrics[i].name, a, sizeof(a)),
			r->obs->metrics[i].value, r->obs->metrics[i].unit);
	fprintf(f, "<tr><th>ECN</th><td>%s</td></tr>\n</table>\n",
		!strcmp(st->cfg->ep.ecn, "sojourn")
		    ? "emulated: marked at the receiver from one-way delay (this kernel has no RED)"
		    : st->cfg->ep.ecn);
	if (!ret)
		fprintf(f, "<p><img src=\"%s\" alt=\"goodput timeline\" width=\"1200\"></p>\n",
			rl_xml_escape(r->png, a, sizeof(a)));
	else
		fprintf(f, "<p>(no plot: gnuplot did not run; data in mp-rdma.dat)</p>\n");
	fprintf(f, "<p>Files: mp-rdma-send.log, mp-rdma-recv.log (JSON lines), mp-rdma.dat, "
		   "report.gp</p>\n");
	return ret;
}

static void release(void *state)
{
	struct mpr_state *st = state;

	if (!st)
		return;
	free(st->rs);
	free(st->ss);
	free(st);
}

const struct component_ops mprdma_component = {
    .name = "mp-rdma",
    .summary = "MP-RDMA (NSDI'18): multi-path RDMA transport, graded on goodput",
    .params = params,
    .cfg_size = sizeof(struct mpr_comp_cfg),
    .defaults = defaults,
    .check = check,
    .settle_ms = settle_ms,
    .start = start,
    .alive = alive,
    .stop = stop,
    .collect = collect,
    .report = report,
    .release = release,
};
