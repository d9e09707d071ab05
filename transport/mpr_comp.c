// SPDX-License-Identifier: MIT
/*
 * MP-RDMA as a component under test: endpoints through the lab, statistics
 * per phase, the rig's own limits, and its part of the incident report.
 */
#define _GNU_SOURCE
#include "transport/mpr_comp.h"

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

#define WARMUP_S    2.0 /* the baseline counts from this long after the start (docs/scenarios.md) */
#define SETTLE_S    0.5 /* after a revert, before recovery counts */
#define PLOT_BIN_S  0.1 /* the report's timeline resolution */
#define PARAMS_MAX  56
#define VP_LO	    EP_VP_LO
#define TRACE_MS    86400000LL /* the tracers run until stopped */
#define FAULT_LINKS 8
/*
 * The fault phase's OOD counts from this long after the fault was verified:
 * the path in its steady state, as the paper's Fig. 14(a) measures a path
 * degraded for the whole experiment, not the packets that were already on
 * it when it slowed (docs/scenarios.md, "ood-p999-fault").
 */
#define OOD_SETTLE_S 1.0
/* Ground truth for abandonment and reuse (the brief's D.6) */
#define ABANDON_W   0.1 /* the touched VPs' share stays below ABANDON_MAX this long */
#define ABANDON_MAX 0.01
#define REUSE_W	    0.2 /* the restored link carries REUSE_SHARE of its fair share this long */
#define REUSE_SHARE 0.9
/* A competing stream (Fig. 15): MP-RDMA's share on its link, after COMPETE_AFTER */
#define COMPETE_W     0.2 /* the share stays below COMPETE_MAX this long */
#define COMPETE_MAX   0.10
#define COMPETE_AFTER 1.0
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

/*
 * One sweep of 'rocelab transport paths' from RNIC from to RNIC to on from's
 * host, kept in log, read into routes[n] (VP_LO + i each); how many VPs
 * were traced, or -errno with why.
 */
static int trace_once(struct lab *l, const char *self, const struct inventory *inv,
		      const char *inv_path, const char *from, const char *to, const char *log,
		      struct mpr_route *routes, size_t n, char *why, size_t whylen)
{
	char host[INV_NAME_MAX + 1], inv_there[PATH_MAX], err[256] = "";
	struct topo *topo;
	char *out = NULL;
	FILE *f;
	int r;

	if (host_of(from, host, sizeof(host)))
		return snprintf(why, whylen, "%s is no HOST:RNIC", from), -EINVAL;
	if ((r = lab_share(l, host, inv_path, inv_there, sizeof(inv_there))))
		return snprintf(why, whylen, "%s: cannot share the inventory", host), r;
	const char *argv[] = {lab_program(l, host, self),
			      "transport",
			      "paths",
			      "-i",
			      inv_there,
			      "--from",
			      from,
			      "--to",
			      to,
			      NULL};

	if ((r = lab_exec(l, host, argv, NULL, &out, err, sizeof(err)))) {
		snprintf(why, whylen, "tracing %s -> %s: %s", from, to, err);
		free(out);
		return r;
	}
	if (!(f = fopen(log, "we"))) {
		free(out);
		return snprintf(why, whylen, "%s: %s", log, strerror(errno)), -errno;
	}
	fputs(out ? out : "", f);
	fclose(f);
	free(out);
	topo = topo_build(inv, false, NULL);
	r = mpr_routes_read(log, inv, topo, from, to, 0, 1e18, VP_LO, routes, n);
	topo_free(topo);
	if (r < 0)
		snprintf(why, whylen, "cannot read the traces in %s", log);
	return r < 0 ? -EIO : r;
}

int mpr_pin_port(struct lab *l, const char *self, const struct inventory *inv, const char *inv_path,
		 const char *from, const char *to, const char *across, bool avoid, const char *log,
		 uint16_t *sport, char *why, size_t whylen)
{
	struct mpr_route routes[64] = {0};
	struct inv_endpoint ep;
	char err[256] = "";
	ssize_t link;
	int n;

	if (inventory_endpoint(inv, across, &ep, err, sizeof(err)) ||
	    (link = pathmap_link_index(inv, &ep)) < 0) {
		snprintf(why, whylen, "%s is no cabled port (%s)", across, err);
		return -EINVAL;
	}
	n = trace_once(l, self, inv, inv_path, from, to, log, routes, ARRAY_SIZE(routes), why,
		       whylen);
	if (n < 0)
		return n;
	for (size_t i = 0; i < ARRAY_SIZE(routes); i++)
		if (routes[i].complete && mpr_route_has(&routes[i], (size_t)link) != avoid) {
			*sport = (uint16_t)(VP_LO + (unsigned)i);
			return 0;
		}
	snprintf(why, whylen, "none of the %d source ports traced from %s to %s %s %s (see %s)", n,
		 from, to, avoid ? "avoids" : "crosses", across, log);
	return -ENOENT;
}

int mpr_balance_vps(struct lab *l, const char *self, const struct inventory *inv,
		    const char *inv_path, const char *from, const char *to, unsigned per,
		    const char *log, char *set, size_t setlen, char *why, size_t whylen)
{
	struct mpr_route routes[64] = {0};
	uint16_t uplink[64]; /* the distinct first links out of from's rail */
	unsigned count[64] = {0}, n_up = 0, take = per, k = 0;
	size_t len = 0;
	int n = trace_once(l, self, inv, inv_path, from, to, log, routes, ARRAY_SIZE(routes), why,
			   whylen);

	if (n < 0)
		return n;
	for (size_t i = 0; i < ARRAY_SIZE(routes); i++) {
		unsigned u;

		if (!routes[i].complete || routes[i].n < 2)
			continue;
		for (u = 0; u < n_up && uplink[u] != routes[i].links[1]; u++)
			;
		if (u == n_up)
			uplink[n_up++] = routes[i].links[1];
		count[u]++;
	}
	for (unsigned u = 0; u < n_up; u++)
		take = count[u] < take ? count[u] : take;
	if (!n_up || !take) {
		snprintf(why, whylen,
			 "the %d source ports traced from %s to %s leave by %u paths "
			 "(see %s): none to balance over",
			 n, from, to, n_up, log);
		return -ENOENT;
	}
	set[0] = '\0';
	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < ARRAY_SIZE(routes); i++) {
		unsigned u;

		if (!routes[i].complete || routes[i].n < 2)
			continue;
		for (u = 0; uplink[u] != routes[i].links[1]; u++)
			;
		if (count[u] == take)
			continue;
		count[u]++;
		len += (size_t)snprintf(set + len, len < setlen ? setlen - len : 0, "%s%u",
					k++ ? "," : "", VP_LO + (unsigned)i);
	}
	if (len >= setlen) {
		snprintf(why, whylen, "%u source ports do not fit the VP set", k);
		return -E2BIG;
	}
	return (int)k;
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

/* Does the sample's whole interval (iv s, ending at its t) lie within [from, to]? */
static bool in_window(const struct mpr_sample *s, double iv, double from, double to)
{
	return s->t - iv >= from - 1e-6 && s->t <= to + 1e-6;
}

double mpr_goodput_mbit(const struct mpr_sample *s, size_t n, double interval_s, double from,
			double to)
{
	double pkts = 0, span = 0;

	for (size_t i = 0; i < n; i++)
		if (in_window(&s[i], interval_s, from, to)) {
			pkts += s[i].delivered;
			span += interval_s;
		}
	return span > 0 ? pkts * MPR_WIRE_PAYLOAD * 8 / span / 1e6 : -1;
}

/*
 * The rate of the link at endpoint ep (kbit/s): the smallest shape on it (0:
 * down), ULLONG_MAX when none is.
 */
static unsigned long long shaped(const struct inventory *inv, const struct inv_endpoint *ep,
				 const struct comp_shape *shapes, size_t n)
{
	const struct inv_link *l = inventory_link_at(inv, ep);
	unsigned long long r = ULLONG_MAX;

	for (size_t i = 0; l && i < n; i++) {
		struct inv_endpoint e;
		char msg[128];

		if (!inventory_endpoint(inv, shapes[i].target, &e, msg, sizeof(msg)) &&
		    inventory_link_at(inv, &e) == l && shapes[i].rate_kbit < r)
			r = shapes[i].rate_kbit;
	}
	return r;
}

/* The end on switch sw of a link between sw and switch other, NULL when none. */
static const struct inv_endpoint *switch_link(const struct inventory *inv, size_t sw, size_t other)
{
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];

		if (l->a.kind != INV_DEV_SWITCH || l->b.kind != INV_DEV_SWITCH)
			continue;
		if (l->a.dev == sw && l->b.dev == other)
			return &l->a;
		if (l->b.dev == sw && l->a.dev == other)
			return &l->b;
	}
	return NULL;
}

double mpr_optimal_mbit(const struct inventory *inv, const char *from, const char *to,
			const struct comp_shape *shapes, size_t n)
{
	struct inv_endpoint a, b, rail, rail_b;
	unsigned long long host, paths = 0, r;
	char msg[128];
	size_t uplinks = 0;

	if (inventory_endpoint(inv, from, &a, msg, sizeof(msg)) ||
	    inventory_endpoint(inv, to, &b, msg, sizeof(msg)) || inventory_peer(inv, &a, &rail) ||
	    rail.kind != INV_DEV_SWITCH || inventory_peer(inv, &b, &rail_b) ||
	    rail_b.kind != INV_DEV_SWITCH)
		return 0;
	host = shaped(inv, &a, shapes, n);
	if ((r = shaped(inv, &b, shapes, n)) < host)
		host = r;
	/*
	 * A path a spine: the smaller of the rail switch's link up to it and the
	 * spine's link down to the far rail (the far one counts only when shaped).
	 */
	for (size_t i = 0; i < inv->n_links; i++) {
		const struct inv_link *l = &inv->links[i];
		const struct inv_endpoint *me = NULL, *other, *down;

		if (l->a.kind == INV_DEV_SWITCH && l->a.dev == rail.dev)
			me = &l->a;
		else if (l->b.kind == INV_DEV_SWITCH && l->b.dev == rail.dev)
			me = &l->b;
		if (!me || (other = inv_link_other_end(l, me))->kind != INV_DEV_SWITCH)
			continue;
		uplinks++;
		r = shaped(inv, me, shapes, n);
		if (r == ULLONG_MAX) {
			paths = ULLONG_MAX;
			break;
		}
		down = rail_b.dev != rail.dev ? switch_link(inv, other->dev, rail_b.dev) : NULL;
		if (down && shaped(inv, down, shapes, n) < r)
			r = shaped(inv, down, shapes, n);
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
	params[n++] = (struct opt_desc){
	    "across",
	    OPT_STR,
	    0,
	    0,
	    CF(across),
	    "single path: place it across this port (SWITCH:PORT): its source port is the first "
	    "of the VPs' whose traced path crosses it (the paper's placement on each spine)",
	    .size = sizeof(((struct mpr_comp_cfg *)0)->across)};
	params[n++] = (struct opt_desc){
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
	if (c->across[0] && !c->ep.single_path) {
		snprintf(err, errlen,
			 "mp-rdma: across places the single path on a port: add single-path: true "
			 "(MP-RDMA spreads over every path)");
		return -EINVAL;
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

static long long settle_ms(const void *cfg)
{
	(void)cfg;
	return (long long)(SETTLE_S * 1e3);
}

struct mpr_state {
	const struct mpr_comp_cfg *cfg;
	const char *name; /* mp-rdma, or eunomia (the spraying workload): its files' prefix */
	bool spray;
	const struct inventory *inv;
	char from[72], to[72]; /* as given, or picked */
	struct mpr_flow flow;
	char slog[PATH_MAX + 32], rlog[PATH_MAX + 32];
	/* 'transport paths' from each end: the VPs' data (fwd) and ACK routes */
	struct lab_proc trace_fwd, trace_ack;
	char flog[PATH_MAX + 32], alog[PATH_MAX + 32];
	unsigned sport;	      /* a placed single path's source port (0: not placed) */
	double optimal;	      /* Mbit/s, 0: unknown */
	double optimal_fault; /* the same with the faults' links down or degraded */
	struct mpr_sample *rs, *ss;
	size_t n_rs, n_ss;
	/*
	 * The faults' links (inventory indexes), and whether they blackhole (abandon,
	 * reuse) or a competing stream crosses them (the share left there)
	 */
	size_t fault_links[FAULT_LINKS], n_fault_links;
	bool blackhole, compete;
	/* each VP's data and ACK routes before the fault (NULL until collect) */
	struct mpr_route *data, *ack;
	unsigned vps_hit, vps_traced; /* VPs a fault's link carries, of those traced */
};

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
	if (host_of(st->from, sh, sizeof(sh)) || host_of(st->to, rh, sizeof(rh)))
		return -EINVAL;
	r = spawn(e->lab, e->self_exe, e->inv_path, sh, "paths", fwd, p, TRACE_MS, st->flog,
		  &st->trace_fwd);
	if (!r)
		r = spawn(e->lab, e->self_exe, e->inv_path, rh, "paths", ack, p, TRACE_MS, st->alog,
			  &st->trace_ack);
	return r;
}

static int start(const struct comp_env *e, const void *cfg, void **state, char *what,
		 size_t whatlen)
{
	const struct mpr_comp_cfg *c = cfg;
	struct mpr_state *st = rl_xcalloc(1, sizeof(*st));
	struct ep_params p = c->ep;
	int r;

	*state = st;
	st->cfg = c;
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
	st->inv = e->inv;
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

static bool alive(void *state, char *why, size_t whylen)
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

static void stop(void *state)
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

static double jnum(const json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

#define VP_HIT 1 /* a VP a fault touches, data or ACKs */
#define VP_FWD 2 /* a VP whose data crosses a fault's link */

/* What the sender's lines say per VP: sorted by mask, and summed over a window. */
struct vp_acc {
	const uint8_t *mask; /* VP_HIT | VP_FWD per VP from VP_LO */
	size_t n;
	double from, to;	    /* the window (CLOCK_REALTIME s) */
	struct mpr_vp_evidence *ev; /* per VP: what its behaviour said within it */
};

/*
 * A sender line's sends per VP ("vp_sent": [[vp, sends, acks, resent,
 * prunes], ...]) summed into s by acc->mask, and with its lost clockings
 * ("vp_lost") into acc's window.
 */
static void per_vp(const json_t *line, const struct vp_acc *acc, struct mpr_sample *s)
{
	bool in = s->t >= acc->from && s->t <= acc->to;
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(line, "vp_sent"), i, e)
	{
		json_int_t vp = json_integer_value(json_array_get(e, 0));
		double k = json_number_value(json_array_get(e, 1));
		bool ours = vp >= VP_LO && (size_t)(vp - VP_LO) < acc->n;
		uint8_t m = ours ? acc->mask[vp - VP_LO] : 0;

		s->sent += k;
		s->sent_hit += m & VP_HIT ? k : 0;
		s->sent_fwd += m & VP_FWD ? k : 0;
		if (ours && in) {
			struct mpr_vp_evidence *v = &acc->ev[vp - VP_LO];

			v->sent += k;
			v->acks += json_number_value(json_array_get(e, 2));
			v->resent += json_number_value(json_array_get(e, 3));
			v->prunes += json_number_value(json_array_get(e, 4));
			if (!v->first && v->resent + v->prunes > 0)
				v->first = s->t;
		}
	}
	json_array_foreach(json_object_get(line, "vp_lost"), i, e)
	{
		json_int_t vp = json_integer_value(e);

		if (in && vp >= VP_LO && (size_t)(vp - VP_LO) < acc->n) {
			acc->ev[vp - VP_LO].lost = true;
			if (!acc->ev[vp - VP_LO].first)
				acc->ev[vp - VP_LO].first = s->t;
		}
	}
}

/*
 * A log's per-interval lines of type, and its last line of type "TYPE-end"
 * into *end (NULL: none; a new reference); acc (or NULL) gets the sender's
 * figures per VP.
 */
static size_t read_log(const char *path, const char *type, struct mpr_sample **out, json_t **end,
		       const struct vp_acc *acc)
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
			struct mpr_sample *smp = RL_PUSH(*out, n);

			*smp = (struct mpr_sample){.t = jnum(j, "t"),
						   .delivered = jnum(j, "delivered"),
						   .retx = jnum(j, "retx"),
						   .vps_used = jnum(j, "vps_used"),
						   .srtt_us = jnum(j, "srtt_us"),
						   .rto_left_ms = jnum(j, "rto_left_ms"),
						   .cpu_ms = jnum(j, "cpu_ms"),
						   .runq_ms = jnum(j, "runq_ms"),
						   .ord_bytes = jnum(j, "ord_bytes"),
						   .ord_bytes_max = jnum(j, "ord_bytes_max"),
						   .static_bytes = jnum(j, "static_mean"),
						   .bm_bytes = jnum(j, "bm_mean"),
						   .static_bm_bytes = jnum(j, "static_bm_mean"),
						   .delivered_b = jnum(j, "delivered_b"),
						   .ord_bytes_b = jnum(j, "mem_mean_b"),
						   .reorder_max = json_object_get(j, "reorder_max")
								      ? jnum(j, "reorder_max")
								      : jnum(j, "ood_max"),
						   .ood_hist =
						       json_incref(json_object_get(j, "ood_hist"))};
			if (acc)
				per_vp(j, acc, smp);
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

size_t mpr_read_log(const char *path, const char *type, struct mpr_sample **out, json_t **end)
{
	return read_log(path, type, out, end, NULL);
}

void mpr_samples_free(struct mpr_sample *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(s[i].ood_hist);
	free(s);
}

bool mpr_net_paced(double good, double opt)
{
	return opt > 0 && good >= MPR_NET_PACED * opt;
}

bool mpr_cpu_limited(double busy, double good, double opt)
{
	return busy >= MPR_CPU_BUSY_MAX && !mpr_net_paced(good, opt);
}

double mpr_ood_fault_to(const struct comp_times *t, double f_from)
{
	return t->t_unapply > f_from && t->t_unapply < t->t_revert ? t->t_unapply : t->t_revert;
}

double mpr_ood_quantile_in(const struct mpr_sample *s, size_t n, double iv, double from, double to,
			   double q)
{
	struct mpr_ood *o = rl_xcalloc(1, sizeof(*o));
	double r = -1;

	for (size_t k = 0; k < n; k++) {
		size_t i;
		json_t *e;

		if (!in_window(&s[k], iv, from, to))
			continue;
		json_array_foreach(s[k].ood_hist, i, e)
		{
			json_int_t v = json_integer_value(json_array_get(e, 0)),
				   c = json_integer_value(json_array_get(e, 1));

			if (v < 0 || v > MPR_OOD_MAX || c <= 0)
				continue; /* not the receiver's: counted nowhere */
			o->hist[v] += (uint32_t)c;
			o->n += (unsigned long long)c;
		}
	}
	if (o->n)
		r = mpr_ood_quantile(o, q);
	free(o);
	return r;
}

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
		if (in_window(&s[i], iv, from, to))
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
static json_t *cpu_section(const struct mpr_state *st, double iv, const double *from,
			   const double *to, const char *const *name, const double *good,
			   const double *opt, size_t n, bool judge, struct comp_obs *obs)
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
static double mean_of(const struct mpr_sample *s, size_t n, size_t field, double from, double to)
{
	double sum = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i].t >= from && s[i].t <= to)
			sum += *(const double *)((const char *)&s[i] + field), k++;
	return k ? sum / (double)k : 0;
}

static void phase(json_t *sec, const char *name, double from, double to, double g)
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
static json_t *vp_truth(struct mpr_state *st, const struct comp_times *t, uint8_t *mask)
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
static void path_metrics(const struct mpr_state *st, const struct comp_times *t, double iv,
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
		double srtt = mean_of(st->ss, st->n_ss, offsetof(struct mpr_sample, srtt_us),
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
static void localize(const struct mpr_state *st, const struct vp_acc *acc,
		     const struct comp_times *t, json_t *paths, struct comp_obs *obs)
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
static void recovery_time(const struct mpr_state *st, const struct comp_times *t, double iv,
			  double t_end, double base_mbit, struct comp_obs *obs)
{
	struct mpr_share *g = rl_xcalloc(st->n_rs + 1, sizeof(*g));
	double per_iv = base_mbit * 1e6 * iv / (MPR_WIRE_PAYLOAD * 8), r;

	for (size_t i = 0; i < st->n_rs; i++)
		g[i] = (struct mpr_share){st->rs[i].t, st->rs[i].delivered, per_iv};
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

/* A window's mean of a sample field, as mean_of() but over [from, to] of whole intervals. */
static double fault_mean(const struct mpr_state *st, const struct comp_times *t, size_t field)
{
	double f_from = t->t_verified > t->t_fault ? t->t_verified : t->t_fault;

	return mean_of(st->rs, st->n_rs, field, f_from, t->t_revert);
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

	comp_obs_metric(obs, "half-nacks", jnum(re, "nacks") - jnum(re, "nacks_b"), "ACKs");
	comp_obs_metric(obs, "versus-nacks", jnum(re, "nacks_b"), "ACKs");
	comp_obs_metric(obs, "half-completions", jnum(se, "completed_a"), "connections");
	comp_obs_metric(obs, "versus-completions", jnum(se, "completed_b"), "connections");
	comp_obs_metric(obs, "half-fct-ms-mean", jnum(se, "fct_ms_mean_a"), "ms");
	comp_obs_metric(obs, "versus-fct-ms-mean", jnum(se, "fct_ms_mean_b"), "ms");
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
static void spray_metrics(const struct mpr_state *st, const struct comp_times *t, const json_t *re,
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
		comp_obs_metric(obs, figs[i][0], jnum(figs[i][1][0] == 's' ? se : re, figs[i][2]),
				figs[i][3]);
	if (st->cfg->ep.load_mbit > 0) {
		/* an offered load: what arrived, and the connections still waiting for a QP */
		comp_obs_metric(obs, "offered-mbit", jnum(se, "offered_mbit"), "Mbit/s");
		comp_obs_metric(obs, "backlog", jnum(se, "backlog"), "connections");
		comp_obs_metric(obs, "backlog-max", jnum(se, "backlog_max"), "connections");
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

static int collect(void *state, const struct comp_times *t, struct comp_obs *obs)
{
	struct mpr_state *st = state;
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
	json_t *paths = vp_truth(st, t, (uint8_t *)acc.mask);

	st->n_rs = read_log(st->rlog, "rcv", &st->rs, &re, NULL);
	st->n_ss = read_log(st->slog, "snd", &st->ss, &se, &acc);
	/* a competing stream is no fault of a link, one path has none to vote among */
	if (t->t_fault > 0 && st->n_fault_links && !st->compete && !st->cfg->ep.single_path)
		localize(st, &acc, t, paths, obs);
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
	phase(obs->section, "baseline", b_from, b_to, base);
	if (t->t_fault > 0) {
		double r_from = t->t_revert + SETTLE_S;
		/*
		 * Goodput during the fault counts once its injector had verified it:
		 * the test traffic it verifies with (pfc-misconfig: a second of
		 * incast at full speed) loads the rig's own CPUs, not the fabric.
		 */
		double f_from = t->t_verified > t->t_fault ? t->t_verified : t->t_fault;

		fault = mpr_goodput_mbit(st->rs, st->n_rs, iv, f_from, t->t_revert);
		rec = mpr_goodput_mbit(st->rs, st->n_rs, iv, r_from, t_end);
		comp_obs_metric(obs, "goodput-fault-mbit", fault, "Mbit/s");
		comp_obs_metric(obs, "goodput-recovery-mbit", rec, "Mbit/s");
		if (base > 0) {
			comp_obs_metric(obs, "fault-vs-baseline", fault / base, "ratio");
			comp_obs_metric(obs, "recovery-vs-baseline", rec / base, "ratio");
		}
		phase(obs->section, "fault", f_from, t->t_revert, fault);
		ood_fault = mpr_ood_quantile_in(st->rs, st->n_rs, iv, f_from + OOD_SETTLE_S,
						mpr_ood_fault_to(t, f_from), 0.999);
		phase(obs->section, "recovery", r_from, t_end, rec);
		ph_from[1] = f_from, ph_to[1] = t->t_revert;
		ph_from[2] = r_from, ph_to[2] = t_end;
		ph_good[1] = fault, ph_good[2] = rec;
		ph_opt[1] = st->optimal_fault, ph_opt[2] = st->optimal;
		n_ph = 3;
		if (base > 0)
			recovery_time(st, t, iv, t_end, base, obs);
	}
	ph_good[0] = base, ph_opt[0] = st->optimal;
	if (st->optimal > 0)
		comp_obs_metric(obs, "goodput-vs-optimal", base / st->optimal, "ratio");
	/* during the fault: of the optimal that the faults left (0: they left nothing) */
	if (st->optimal_fault > 0 && fault >= 0)
		comp_obs_metric(obs, "fault-vs-optimal", fault / st->optimal_fault, "ratio");
	comp_obs_metric(
	    obs, "vps-used",
	    mean_of(st->ss, st->n_ss, offsetof(struct mpr_sample, vps_used), b_from, b_to), "VPs");
	if (t->t_fault > 0 && json_integer_value(json_object_get(paths, "vps_hit")) > 0)
		path_metrics(st, t, iv, t_end, paths, obs);
	comp_obs_metric(obs, "retransmissions", jnum(se, "retx"), "packets");
	comp_obs_metric(obs, "nacks", jnum(se, "nacks"), "ACKs");
	comp_obs_metric(obs, "rtos", jnum(se, "rtos"), "timeouts");
	comp_obs_metric(obs, "ood-p999", jnum(re, "ood_p999"), "packets");
	comp_obs_metric(obs, "ood-max", jnum(re, "ood_max"), "packets");
	if (ood_fault >= 0)
		comp_obs_metric(obs, "ood-p999-fault", ood_fault, "packets");
	comp_obs_metric(obs, "payload-errors", jnum(re, "pattern_bad"), "packets");
	if (t->t_fault > 0) {
		double f_from = t->t_verified > t->t_fault ? t->t_verified : t->t_fault, high = 0;

		/* the receiver's ordering memory in the fault (Eunomia's Table 1: MP-RDMA's 17 B)
		 */
		comp_obs_metric(obs, "ordering-memory-fault",
				mean_of(st->rs, st->n_rs, offsetof(struct mpr_sample, ord_bytes),
					f_from, t->t_revert),
				"bytes");
		for (size_t i = 0; i < st->n_rs; i++)
			high = st->rs[i].ord_bytes_max > high ? st->rs[i].ord_bytes_max : high;
		comp_obs_metric(obs, "ordering-memory-high", high, "bytes");
	}
	json_object_set_new(obs->section, "from", json_string(st->from));
	json_object_set_new(obs->section, "to", json_string(st->to));
	if (st->spray)
		spray_metrics(st, t, re, se, obs);
	json_object_set_new(obs->section, "mode",
			    json_string(st->spray		  ? "spray"
					: st->cfg->ep.single_path ? "single-path"
								  : "mp-rdma"));
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
	rig = (unsigned long long)(jnum(se, "tx_full") + jnum(re, "tx_full") +
				   jnum(se, "rx_overflow") + jnum(re, "rx_overflow") +
				   jnum(re, "held_full"));
	if (rig)
		snprintf(obs->invalid, sizeof(obs->invalid),
			 "invalid (rig-limited): the endpoints' sockets lost %llu packets (full "
			 "send queues, receive overflows, held ACKs)",
			 rig);
	/* an endpoint that never idled is rig-limited too (a socket loss, said first, stands) */
	json_object_set_new(
	    obs->section, "cpu",
	    cpu_section(st, iv, ph_from, ph_to, ph_name, ph_good, ph_opt, n_ph, !rig, obs));
	return 0;
}

/* ---- report ----------------------------------------------------------------------------- */

static int write_timeline(const struct mpr_state *st, const struct comp_report *r)
{
	double t0 = r->t->t_start;
	char path[PATH_MAX + 32];
	FILE *f;
	size_t i = 0, k = 0;

	snprintf(path, sizeof(path), "%s/%s.dat", r->dir, st->name);
	if (!(f = fopen(path, "we")))
		return -errno;
	fprintf(
	    f,
	    "# t_s goodput_mbit retx_per_s vps_in_use hit_pct fwd_pct mem_b static_b bitmap_b "
	    "reorder_max versus_goodput_mbit versus_mem_b (per %.0f ms; the sends, probes aside, "
	    "on the VPs a fault's link carries data or ACKs of, and data of; the receiver's "
	    "ordering memory, a static 256-bit bitmap's for its QPs, its bitmaps, means of 1 ms "
	    "samples; the largest reorder distance; with a versus receiver, the odd QPs' "
	    "goodput and memory, the rest the even QPs')\n",
	    PLOT_BIN_S * 1e3);
	for (double b = t0; b < r->t->t_end; b += PLOT_BIN_S) {
		double pk = 0, rt = 0, vps = 0, sent = 0, hit = 0, fwd = 0;
		double mem = 0, sta = 0, bm = 0, ro = 0, pk_b = 0, mem_b = 0;
		size_t nv = 0, nr = 0;

		for (; i < st->n_rs && st->rs[i].t < b + PLOT_BIN_S; i++)
			if (st->rs[i].t >= b) {
				const struct mpr_sample *x = &st->rs[i];

				pk += x->delivered, nr++;
				mem += x->ord_bytes, sta += x->static_bytes, bm += x->bm_bytes;
				pk_b += x->delivered_b, mem_b += x->ord_bytes_b;
				ro = x->reorder_max > ro ? x->reorder_max : ro;
			}
		for (; k < st->n_ss && st->ss[k].t < b + PLOT_BIN_S; k++)
			if (st->ss[k].t >= b) {
				rt += st->ss[k].retx, vps += st->ss[k].vps_used, nv++;
				sent += st->ss[k].sent, hit += st->ss[k].sent_hit;
				fwd += st->ss[k].sent_fwd;
			}
		if (!nr)
			nr = 1;
		fprintf(f, "%.2f %.2f %.0f %.1f %.1f %.1f %.1f %.1f %.1f %.0f %.2f %.1f\n",
			b + PLOT_BIN_S / 2 - t0, pk * MPR_WIRE_PAYLOAD * 8 / PLOT_BIN_S / 1e6,
			rt / PLOT_BIN_S, nv ? vps / (double)nv : 0, sent ? 100 * hit / sent : 0,
			sent ? 100 * fwd / sent : 0, mem / (double)nr, sta / (double)nr,
			bm / (double)nr, ro, pk_b * MPR_WIRE_PAYLOAD * 8 / PLOT_BIN_S / 1e6,
			mem_b / (double)nr);
	}
	fclose(f);
	return 0;
}

/* A versus receiver's kind as the keys name it (short: the keys sit beside the axes). */
static const char *versus_name(const char *kind)
{
	return !strcmp(kind, "eunomia")	   ? "Eunomia"
	       : !strcmp(kind, "static64") ? "static 64"
					   : "static 256";
}

static int plot(const struct mpr_state *st, const struct comp_report *r)
{
	char gp[PATH_MAX + 32];
	/* the share on the faulted link's VPs says something only when some VPs avoid it */
	bool paths = st->n_fault_links > 0 && st->vps_hit && st->vps_hit < st->vps_traced;
	int rows = 2 + paths + st->spray;
	FILE *f = comp_plot_begin(r, st->spray ? "Eunomia" : "MP-RDMA", rows, 300 * rows + 200, gp,
				  sizeof(gp));
	char dat[40];
	const char *who = st->spray		    ? (st->cfg->ep.receiver[0] == 'e'	? "Eunomia"
						       : st->cfg->ep.receiver[0] == 'g' ? "go-back-N"
						       : st->cfg->ep.bitmap == 64	? "static 64-bit bitmap"
											: "static 256-bit bitmap")
			  : st->cfg->ep.single_path ? "single path"
						    : "MP-RDMA";

	if (!f)
		return -errno;
	snprintf(dat, sizeof(dat), "%s.dat", st->name);
	fprintf(f, "set title 'goodput, payload in order per %.0f ms (fault window shaded)'\n",
		PLOT_BIN_S * 1e3);
	fprintf(f, "set ylabel 'Mbit/s'\nset xlabel 'time since start (s)'\nset yrange [0:*]\n");
	if (st->cfg->ep.versus[0])
		/* the even QPs' and the odd QPs' apart, each with its own receiver */
		fprintf(f,
			"plot '%s' using 1:($2-$11) with lines lw 2 title '%s, even QPs', '' "
			"using 1:11 with lines lw 2 lc rgb '#20a0a0' title '%s, odd QPs'",
			dat, who, versus_name(st->cfg->ep.versus));
	else
		fprintf(f, "plot '%s' using 1:2 with lines lw 2 title '%s'", dat, who);
	if (st->cfg->ep.load_mbit > 0)
		fprintf(f, ", %.3f with lines dt 4 lw 2 lc rgb '#208020' title 'offered load'",
			st->cfg->ep.load_mbit);
	if (st->optimal > 0)
		fprintf(f, ", %.3f with lines dt 2 lw 2 lc rgb '#606060' title 'optimal (fabric)'",
			st->optimal);
	/* where the faults take capacity away, the optimal they leave (x: s since the start) */
	if (st->optimal_fault > 0 && r->t->t_fault > 0 && st->optimal_fault < st->optimal - 1e-6)
		fprintf(f,
			", (x >= %.3f && x <= %.3f ? %.3f : 1/0) with lines dt 3 lw 2 lc rgb "
			"'#a06000' title 'optimal while the fault is live'",
			r->t->t_fault - r->t->t_start, r->t->t_revert - r->t->t_start,
			st->optimal_fault);
	fprintf(f, "\nunset label 100\n");
	fprintf(f, "set title 'virtual paths in use and retransmissions'\n");
	fprintf(f, "set ylabel 'VPs in use (mean per 10 ms)'\nset y2label 'retransmissions/s'\n"
		   "set y2tics\nset ytics nomirror\nset y2range [0:*]\n");
	fprintf(f,
		"plot '%s' using 1:4 with lines lw 2 title 'VPs in use', "
		"'' using 1:3 axes x1y2 with lines lw 1 lc rgb '#c03030' "
		"title 'retransmissions/s'\n",
		dat);
	if (st->spray) {
		fprintf(
		    f,
		    "set title 'ordering memory at the receiver NIC (1 ms samples; static 256-bit: "
		    "41 B a QP) and reorder distance'\n");
		fprintf(f, "set ylabel 'bytes'\nset y2label 'reorder distance, max (packets)'\n"
			   "set yrange [0:*]\n");
		fprintf(
		    f,
		    "plot '%s' using 1:7 with lines lw 2 lc rgb '#7030a0' title '%s, all', "
		    "'' using 1:9 with lines lw 1 lc rgb '#b080d0' title '%s, bitmaps', "
		    "'' using 1:8 with lines dt 2 lw 2 lc rgb '#606060' title 'static 256-bit', "
		    "'' using 1:10 axes x1y2 with lines lw 1 lc rgb '#c06000' title 'reorder "
		    "distance'",
		    dat, who, who);
		if (st->cfg->ep.versus[0])
			fprintf(
			    f,
			    ", '' using 1:12 with lines lw 2 lc rgb '#20a0a0' title '%s, odd QPs'",
			    versus_name(st->cfg->ep.versus));
		fprintf(f, "\n");
	}
	if (paths) {
		fprintf(f,
			"set title \"the sender's sends on the VPs that cross %s (traced; probes "
			"aside)\"\n",
			st->compete ? "the competing stream's link" : "the faulted link");
		fprintf(f, "set ylabel '%% of sends'\nunset y2label\nunset y2tics\nset ytics "
			   "mirror\nset yrange [0:100]\n");
		fprintf(f,
			"plot '%s' using 1:5 with lines lw 2 lc rgb '#c03030' "
			"title 'data or ACKs cross it', '' using 1:6 with lines lw 2 "
			"lc rgb '#3060c0' title 'data crosses it'\n",
			dat);
	}
	comp_plot_rig(r, f);
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
	fprintf(f, "<h2>%s</h2>\n<table>\n", st->name);
	fprintf(f, "<tr><th>flow</th><td>%s &rarr; %s, %s</td></tr>\n", st->from, st->to,
		st->spray		  ? "finite connections sprayed over the VPs"
		: st->cfg->ep.single_path ? "single path (go-back-N)"
					  : "MP-RDMA");
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
		fprintf(f, "<p>(no plot: gnuplot did not run; data in %s.dat)</p>\n", st->name);
	fprintf(f,
		"<p>Files: %s-send.log, %s-recv.log (JSON lines), %s.dat, "
		"report.gp</p>\n",
		st->name, st->name, st->name);
	return ret;
}

static void release(void *state)
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

/* The two components are one machine: MP-RDMA's stream, or Eunomia's spraying workload. */
#define MPR_COMPONENT(nm, sum, def, chk)                                                           \
	{                                                                                          \
		.name = nm, .summary = sum, .params = params,                                      \
		.cfg_size = sizeof(struct mpr_comp_cfg), .defaults = def, .check = chk,            \
		.settle_ms = settle_ms, .start = start, .alive = alive, .stop = stop,              \
		.collect = collect, .report = report, .release = release,                          \
	}

const struct component_ops mprdma_component = MPR_COMPONENT(
    "mp-rdma", "MP-RDMA (NSDI'18): multi-path RDMA transport, graded on goodput", defaults, check);

static void eunomia_defaults(void *cfg)
{
	struct mpr_comp_cfg *c = cfg;

	defaults(cfg);
	snprintf(c->ep.workload, sizeof(c->ep.workload), "spray");
	c->vps_per_path = 4;
	snprintf(c->ep.receiver, sizeof(c->ep.receiver), "eunomia");
	c->ep.bitmap = EU_CAP_ROWS * EU_BLOCK_BITS;
}

static int eunomia_check(void *cfg, char *err, size_t errlen)
{
	struct mpr_comp_cfg *c = cfg;

	if (strcmp(c->ep.workload, "spray")) {
		snprintf(err, errlen,
			 "eunomia: the component runs the spraying workload (workload: spray); "
			 "MP-RDMA's stream over Eunomia is the mp-rdma component with receiver: "
			 "eunomia");
		return -EINVAL;
	}
	return check(cfg, err, errlen);
}

const struct component_ops eunomia_component =
    MPR_COMPONENT("eunomia",
		  "Eunomia: the receiver ordering layer under a spraying workload, graded on "
		  "in-order delivery, memory and goodput",
		  eunomia_defaults, eunomia_check);
