// SPDX-License-Identifier: MIT
/* The deterministic N-path simulator (pathsim.h). */
#include "transport/sim/pathsim.h"

#include "transport/mprdma/mpr_wire.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* EV_S*: the spraying workload's, whose flow is a connection */
enum ev_kind {
	EV_PATH,
	EV_DATA,
	EV_ACK,
	EV_TIMER,
	EV_SPATH,
	EV_SDATA,
	EV_SACK,
	EV_STIMER,
	EV_SAMPLE,
	EV_ARRIVE,
	EV_CWCTL,
	EV_CWFLUSH
};

struct ev {
	uint64_t t, seq; /* seq: first in, first out among equal times */
	uint8_t kind, path;
	int16_t flow;
	uint32_t epoch; /* on a path: its epoch then (a failure since drained it) */
	union {
		struct mpr_pkt p;
		struct mpr_ack a;
		struct {
			struct spr_pkt sp;
			bool sce;
			struct cw_tag cw; /* the source ToR's, with a reorderer */
		};
		struct spr_reply sr;
		struct {
			uint32_t epoch;
			uint8_t of; /* enum cw_flag the reply answers */
			bool notify;
			uint8_t path; /* NOTIFY: the path that marked */
		} ctl;		      /* the destination ToR's to the source ToR */
	};
};

/* A connection of the spraying workload. */
struct sconn {
	struct spr_snd snd;
	uint64_t start_ns, timer_at;
	uint32_t app_next; /* the next sequence the application expects, from Head */
	bool started, sender_done;
	/* the reorderer's: both ToRs' state, the VOQ and the flush event queued */
	struct cw_tx cwt;
	struct cw_rx cwr;
	struct ev *voq;
	unsigned voq_n, voq_cap;
	uint64_t flush_ev;
};

struct spray {
	struct ps_spray_cfg cfg;
	struct ord_rx *rx;
	struct sconn *conn;
	unsigned next; /* the next connection to start */
	/* an offered load: connections arrived, those on a QP now, and when each arrived */
	unsigned arrived, busy;
	uint64_t *arrive_ns;
	uint64_t rng;
	struct ps_spray_stats st;
	struct cw_paths cwp;
	uint64_t cw_rng;
	uint16_t cw_vp[PS_PATHS_MAX]; /* a VP on each path: the reorderer's route */
	unsigned rr;		      /* switch_spray: the ToR's next port in turn */
};

struct flow {
	struct mpr_snd snd;
	struct mpr_rcv rcv;
	struct ps_flow_stats st;
	uint64_t timer_at; /* the timer event queued, or MPR_NEVER */
};

struct pathsim {
	struct ps_cfg cfg;
	uint64_t now, seq, rng, host_busy;
	uint64_t busy[PS_PATHS_MAX];  /* when each path's queue drains */
	uint32_t epoch[PS_PATHS_MAX]; /* its failures so far (ps_fail()) */
	struct ps_path_stats pst[PS_PATHS_MAX];
	struct flow *flows[PS_FLOWS_MAX];
	int n_flows;
	struct spray *spray;
	struct ev *heap;
	size_t len, cap;
};

void ps_cfg_default(struct ps_cfg *cfg, unsigned n_paths)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->n_paths = n_paths;
	for (unsigned i = 0; i < n_paths && i < PS_PATHS_MAX; i++)
		cfg->path[i] = (struct ps_path_cfg){
		    .rate_bps = 1000000000,
		    .delay_ns = 10000,
		    .qlimit_bytes = 4 << 20,
		};
	cfg->host_qlimit_bytes = 4 << 20;
	cfg->data_bytes = (unsigned)mpr_wire_frame_len(MPR_WIRE_PAYLOAD, false);
	cfg->payload_bytes = MPR_WIRE_PAYLOAD;
	cfg->ack_bytes = (unsigned)mpr_wire_frame_len(0, true);
	cfg->seed = 1;
}

struct pathsim *ps_new(const struct ps_cfg *cfg)
{
	struct pathsim *ps;
	bool bad = cfg->n_paths < 1 || cfg->n_paths > PS_PATHS_MAX || !cfg->data_bytes;

	for (unsigned i = 0; !bad && i < cfg->n_paths; i++) {
		const struct ps_path_cfg *p = &cfg->path[i];

		bad = p->red_pmax_ppm > 1000000 ||
		      (p->red_pmax_ppm && (!p->ecn_k_bytes || p->red_kmax_bytes <= p->ecn_k_bytes));
	}
	if (bad) {
		errno = EINVAL;
		return NULL;
	}
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->cfg = *cfg;
	ps->rng = cfg->seed ? cfg->seed : 1;
	return ps;
}

void ps_free(struct pathsim *ps)
{
	if (!ps)
		return;
	for (int i = 0; i < ps->n_flows; i++) {
		mpr_rcv_free(&ps->flows[i]->rcv);
		free(ps->flows[i]);
	}
	if (ps->spray) {
		for (unsigned i = 0; i < ps->spray->cfg.n_conns; i++) {
			spr_free(&ps->spray->conn[i].snd);
			free(ps->spray->conn[i].voq);
		}
		free(ps->spray->conn);
		free(ps->spray->arrive_ns);
		ord_rx_free(ps->spray->rx);
		free(ps->spray);
	}
	free(ps->heap);
	free(ps);
}

static uint64_t rnd(struct pathsim *ps)
{
	return mpr_rand(&ps->rng);
}

static bool chance(struct pathsim *ps, uint32_t ppm)
{
	return ppm && rnd(ps) % 1000000 < ppm;
}

/* Binary min-heap on (t, seq); the simulator cannot lose an event, so growth failure aborts. */
static bool ev_before(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void ev_push(struct pathsim *ps, struct ev e)
{
	size_t i;

	if (ps->len == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 1024;
		struct ev *h = realloc(ps->heap, cap * sizeof(*h));

		if (!h)
			abort();
		ps->heap = h;
		ps->cap = cap;
	}
	e.seq = ps->seq++;
	for (i = ps->len++; i && ev_before(&e, &ps->heap[(i - 1) / 2]); i = (i - 1) / 2)
		ps->heap[i] = ps->heap[(i - 1) / 2];
	ps->heap[i] = e;
}

static struct ev ev_pop(struct pathsim *ps)
{
	struct ev top = ps->heap[0], last = ps->heap[--ps->len];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < ps->len) {
		if (c + 1 < ps->len && ev_before(&ps->heap[c + 1], &ps->heap[c]))
			c++;
		if (!ev_before(&ps->heap[c], &last))
			break;
		ps->heap[i] = ps->heap[c];
		i = c;
	}
	ps->heap[i] = last;
	return top;
}

/* ECMP: a fixed mix of the source port, as a switch's hash would be. */
static uint32_t vp_hash(uint16_t vp)
{
	uint32_t h = vp * 0x9e3779b1u;

	h ^= h >> 15;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return h;
}

/* The live path n-th of them (with reroute), or NULL-like n_paths when none is live. */
static unsigned live_path(const struct pathsim *ps, uint32_t nth)
{
	unsigned live[PS_PATHS_MAX], n = 0;

	for (unsigned i = 0; i < ps->cfg.n_paths; i++)
		if (!ps->cfg.path[i].down)
			live[n++] = i;
	return n ? live[nth % n] : ps->cfg.n_paths;
}

unsigned ps_path_of(const struct pathsim *ps, uint16_t vp)
{
	uint32_t h = vp_hash(vp);
	unsigned p = h % ps->cfg.n_paths, q;

	if (!ps->cfg.reroute || !ps->cfg.path[p].down)
		return p;
	q = live_path(ps, h / ps->cfg.n_paths); /* the ECMP group without it */
	return q < ps->cfg.n_paths ? q : p;
}

uint16_t ps_vp_on(const struct pathsim *ps, unsigned path, unsigned nth)
{
	for (uint32_t vp = 49152; vp <= 65535; vp++)
		if (vp_hash((uint16_t)vp) % ps->cfg.n_paths == path && nth-- == 0)
			return (uint16_t)vp;
	return 0;
}

/*
 * Serialise bytes behind what is queued: false when the queue is full,
 * else the departure time and the backlog the packet found.
 */
static bool enqueue(uint64_t now, uint64_t *busy, uint64_t rate, uint64_t qlimit, unsigned bytes,
		    uint64_t *backlog, uint64_t *depart)
{
	uint64_t start = *busy > now ? *busy : now;

	*backlog = (start - now) * rate / 8000000000ULL;
	if (*backlog + bytes > qlimit)
		return false;
	*depart = *busy = start + bytes * 8000000000ULL / rate;
	return true;
}

/*
 * CE for a packet that found backlog bytes queued: a step at k, or RED's
 * ramp from k (probability 0) to kmax (pmax), and always at kmax or above.
 */
static bool mark(struct pathsim *ps, uint64_t backlog, uint64_t k, uint64_t kmax, uint32_t pmax_ppm)
{
	if (!k || backlog <= k)
		return false;
	if (!pmax_ppm || backlog >= kmax)
		return true;
	return chance(ps, (uint32_t)((backlog - k) * pmax_ppm / (kmax - k)));
}

/* A data packet's CE bit, whichever sender's it is. */
static bool *ce_of(struct ev *e)
{
	return e->kind == EV_SPATH || e->kind == EV_SDATA ? &e->sce : &e->p.ce;
}

/* A data packet onto its path, through the sender's host link when there is one. */
static void host_out(struct pathsim *ps, struct ev *e)
{
	e->t = ps->now;
	if (ps->cfg.host_bps) {
		uint64_t q;

		if (!enqueue(ps->now, &ps->host_busy, ps->cfg.host_bps, ps->cfg.host_qlimit_bytes,
			     ps->cfg.data_bytes, &q, &e->t))
			return; /* the host's own queue overflowed */
		*ce_of(e) |= mark(ps, q, ps->cfg.host_ecn_k_bytes, 0, 0);
	}
	ev_push(ps, *e);
}

static void send_pkts(struct pathsim *ps, int f, const struct mpr_pkt *out, unsigned k)
{
	struct flow *fl = ps->flows[f];

	for (unsigned i = 0; i < k; i++) {
		struct ev e = {.kind = EV_PATH, .flow = (int16_t)f, .p = out[i]};
		unsigned path = ps_path_of(ps, out[i].vp);

		e.path = (uint8_t)path;
		fl->st.sent[path] += !out[i].probe;
		fl->st.probe_sent[path] += out[i].probe;
		host_out(ps, &e);
	}
}

static void arm(struct pathsim *ps, int f)
{
	struct flow *fl = ps->flows[f];
	uint64_t d = mpr_snd_deadline(&fl->snd);

	if (d != MPR_NEVER && d < fl->timer_at) {
		fl->timer_at = d;
		ev_push(ps, (struct ev){.kind = EV_TIMER, .flow = (int16_t)f, .t = d});
	}
}

int ps_add_flow(struct pathsim *ps, const struct mpr_cfg *cfg, uint64_t seed, uint32_t pkts)
{
	struct mpr_pkt out[MPR_OUT_MAX];
	struct flow *fl;
	int f = ps->n_flows;

	if (mpr_cfg_check(cfg, NULL))
		return -EINVAL;
	if (f == PS_FLOWS_MAX)
		return -ENOSPC;
	fl = calloc(1, sizeof(*fl));
	if (!fl)
		return -ENOMEM;
	if (mpr_rcv_init_cfg(&fl->rcv, cfg)) {
		free(fl);
		return -ENOMEM;
	}
	mpr_snd_init(&fl->snd, cfg, seed);
	fl->timer_at = MPR_NEVER;
	ps->flows[ps->n_flows++] = fl;
	send_pkts(ps, f, out, mpr_snd_push(&fl->snd, pkts ? pkts : 0x7fffffff, ps->now, out));
	arm(ps, f);
	return f;
}

static void on_path(struct pathsim *ps, struct ev *e)
{
	const struct ps_path_cfg *pc = &ps->cfg.path[e->path];
	struct ps_path_stats *st = &ps->pst[e->path];
	uint64_t depart = ps->now;

	st->data++;
	st->probes += e->kind == EV_PATH && e->p.probe;
	if (pc->down) {
		st->down_drops++;
		return;
	}
	if (chance(ps, pc->loss_ppm)) {
		st->lost++;
		return;
	}
	if (pc->rate_bps) {
		uint64_t q;

		if (!enqueue(ps->now, &ps->busy[e->path], pc->rate_bps, pc->qlimit_bytes,
			     ps->cfg.data_bytes, &q, &depart)) {
			st->qdrops++;
			return;
		}
		*ce_of(e) |= mark(ps, q, pc->ecn_k_bytes, pc->red_kmax_bytes, pc->red_pmax_ppm);
	}
	st->marked += *ce_of(e);
	e->kind = e->kind == EV_SPATH ? EV_SDATA : EV_DATA;
	e->t = depart + pc->delay_ns;
	e->epoch = ps->epoch[e->path];
	ev_push(ps, *e);
}

/* A reply goes back on the data packet's path (its VP echoes the source port), unqueued. */
static void reply_back(struct pathsim *ps, struct ev r, unsigned path)
{
	const struct ps_path_cfg *pc = &ps->cfg.path[path];
	unsigned q;

	if (pc->down && ps->cfg.reroute && (q = live_path(ps, 0)) < ps->cfg.n_paths) {
		path = q; /* routed around the failure */
		pc = &ps->cfg.path[path];
	}
	if (pc->down || chance(ps, pc->ack_loss_ppm)) {
		ps->pst[path].down_drops += pc->down;
		return;
	}
	r.path = (uint8_t)path;
	r.t = ps->now + pc->delay_ns;
	r.epoch = ps->epoch[path];
	ev_push(ps, r);
}

static void on_data(struct pathsim *ps, struct ev *e)
{
	struct flow *fl = ps->flows[e->flow];
	struct mpr_rx_result res;

	mpr_rcv_data(&fl->rcv, &e->p, &res);
	fl->st.delivered += res.deliver_to - res.deliver_from;
	mpr_ood_add(&fl->st.ood, &fl->rcv, &res);
	if (res.reply)
		reply_back(ps, (struct ev){.kind = EV_ACK, .flow = e->flow, .a = res.ack}, e->path);
}

static void on_ack(struct pathsim *ps, struct ev *e)
{
	struct flow *fl = ps->flows[e->flow];
	struct mpr_pkt out[MPR_OUT_MAX];

	ps->pst[e->path].acks++;
	ps->pst[e->path].ece_acks += e->a.ece;
	fl->st.acks[e->path]++;
	fl->st.ece_acks[e->path] += e->a.ece;
	send_pkts(ps, e->flow, out, mpr_snd_ack(&fl->snd, &e->a, ps->now, out));
	if (!fl->st.done_ns && mpr_snd_done(&fl->snd))
		fl->st.done_ns = ps->now;
	arm(ps, e->flow);
}

static void on_timer(struct pathsim *ps, struct ev *e)
{
	struct flow *fl = ps->flows[e->flow];
	struct mpr_pkt out[MPR_OUT_MAX];

	if (e->t != fl->timer_at)
		return; /* superseded by an earlier one */
	fl->timer_at = MPR_NEVER;
	if (mpr_snd_deadline(&fl->snd) <= ps->now)
		send_pkts(ps, e->flow, out, mpr_snd_timer(&fl->snd, ps->now, out));
	arm(ps, e->flow);
}

/* ---- the spraying workload ---------------------------------------------------------------- */

#define SPRAY_SAMPLE_NS 1000000ULL /* the paper's 1 ms memory samples */

static void spray_arm(struct pathsim *ps, unsigned c)
{
	struct sconn *sc = &ps->spray->conn[c];
	uint64_t d = spr_deadline(&sc->snd);

	if (d != SPR_NEVER && d < sc->timer_at) {
		sc->timer_at = d;
		ev_push(ps, (struct ev){.kind = EV_STIMER, .flow = (int16_t)c, .t = d});
	}
}

/* What connection c's window lets out, onto the paths. */
static void spray_send(struct pathsim *ps, unsigned c)
{
	struct spray *sp = ps->spray;
	struct spr_pkt out[32];
	unsigned k;

	do {
		k = spr_pull(&sp->conn[c].snd, ps->now, out, 32);
		for (unsigned i = 0; i < k; i++) {
			struct ev e = {.kind = EV_SPATH, .flow = (int16_t)c, .sp = out[i]};

			if (sp->cfg.conweave)
				e.sp.vp =
				    sp->cw_vp[cw_tx_route(&sp->conn[c].cwt, &sp->cfg.cw, &sp->cwp,
							  ps->now, &sp->cw_rng, &e.cw, &sp->st.cw)];
			e.path = (uint8_t)(sp->cfg.switch_spray ? live_path(ps, sp->rr++)
								: ps_path_of(ps, e.sp.vp));
			if (e.path >= ps->cfg.n_paths)
				e.path = 0; /* none live: into the blackhole */
			sp->st.path_sent[e.path]++;
			sp->st.path_retx[e.path] += out[i].retx;
			host_out(ps, &e);
		}
	} while (k == 32);
	spray_arm(ps, c);
}

/* The next connection of the workload, when there is one. */
static void spray_start(struct pathsim *ps)
{
	struct spray *sp = ps->spray;
	struct sconn *sc;
	double lo, hi;
	uint32_t n;

	if (sp->next == sp->cfg.n_conns)
		return;
	sc = &sp->conn[sp->next];
	lo = log((double)sp->cfg.min_pkts);
	hi = log((double)sp->cfg.max_pkts + 1);
	n = (uint32_t)exp(lo + (hi - lo) * (double)(mpr_rand(&sp->rng) % 1000000) / 1e6);
	n = n < sp->cfg.min_pkts ? sp->cfg.min_pkts : n > sp->cfg.max_pkts ? sp->cfg.max_pkts : n;
	if (spr_init(&sc->snd, &sp->cfg.snd, (uint32_t)(mpr_rand(&sp->rng) % (1u << 30)), n,
		     mpr_rand(&sp->rng)))
		abort(); /* the configuration was checked when the workload was added */
	sc->start_ns = sp->arrive_ns ? sp->arrive_ns[sp->next] : ps->now;
	sc->timer_at = MPR_NEVER;
	cw_tx_init(&sc->cwt);
	cw_rx_init(&sc->cwr);
	sc->started = true;
	sp->st.started++;
	spray_send(ps, sp->next++);
}

/* A data packet reaches the receiver NIC. */
static void sdata_nic(struct pathsim *ps, struct ev *e)
{
	struct spray *sp = ps->spray;
	struct sconn *sc = &sp->conn[e->flow];
	uint32_t next = sc->snd.head + sc->app_next;
	struct eu_result res;

	if (ord_rx_data(sp->rx, (unsigned)e->flow, e->sp.seq, e->sp.head, e->sp.last, &res))
		return; /* a copy after the completion: the connection is gone at the receiver */
	if (!res.duplicate && e->sp.seq >= next) {
		uint32_t d = e->sp.seq - next;

		sp->st.reorder.hist[d < MPR_OOD_MAX ? d : MPR_OOD_MAX]++;
		sp->st.reorder.n++;
	}
	if (res.deliver_to > res.deliver_from) {
		/* the application: exactly the next sequences, once */
		if (res.deliver_from < next)
			sp->st.duplicated += res.deliver_to - res.deliver_from;
		else if (res.deliver_from > next)
			sp->st.misordered++;
		else
			sc->app_next = res.deliver_to - sc->snd.head;
		sp->st.delivered += res.deliver_to - res.deliver_from;
	}
	if (res.completed) {
		uint64_t fct = ps->now - sc->start_ns;

		sp->st.misordered += sc->app_next != sc->snd.n;
		sp->st.completed++;
		sp->st.fct_sum_ns += fct;
		sp->st.fct_max_ns = fct > sp->st.fct_max_ns ? fct : sp->st.fct_max_ns;
		if (sp->st.completed == sp->cfg.n_conns)
			sp->st.done_ns = ps->now;
	}
	if (res.reply != EU_DROP)
		reply_back(ps,
			   (struct ev){.kind = EV_SACK,
				       .flow = e->flow,
				       .sr = {res.reply, res.ack, res.seq, e->sce, e->sp.retx,
					      e->sp.tx_ns}},
			   e->path);
}

/* The destination ToR releases connection c's VOQ to the NIC, in the order it took it. */
static void cw_flush(struct pathsim *ps, unsigned c, bool by_tail)
{
	struct sconn *sc = &ps->spray->conn[c];

	for (unsigned i = 0; i < sc->voq_n; i++)
		sdata_nic(ps, &sc->voq[i]);
	sc->voq_n = 0;
	sc->flush_ev = 0;
	cw_rx_flushed(&sc->cwr, by_tail, &ps->spray->st.cw);
}

/* The VOQ's release at flush_at unless its TAIL comes first (or flush_at moves). */
static void cw_arm(struct pathsim *ps, unsigned c)
{
	struct sconn *sc = &ps->spray->conn[c];

	if (sc->cwr.reordering && sc->flush_ev != sc->cwr.flush_at) {
		sc->flush_ev = sc->cwr.flush_at;
		ev_push(ps, (struct ev){.kind = EV_CWFLUSH, .flow = (int16_t)c, .t = sc->flush_ev});
	}
}

/* A data packet reaches the destination ToR: on to the NIC, or into the reorderer's VOQ. */
static void on_sdata(struct pathsim *ps, struct ev *e)
{
	struct spray *sp = ps->spray;
	struct sconn *sc = &sp->conn[e->flow];
	enum cw_flag reply;
	enum cw_act a;

	if (!sp->cfg.conweave) {
		sdata_nic(ps, e);
		return;
	}
	a = cw_rx_data(&sc->cwr, &sp->cfg.cw, &e->cw, ps->now, &reply, &sp->st.cw);
	if (e->sce)
		reply_back(ps,
			   (struct ev){.kind = EV_CWCTL,
				       .flow = e->flow,
				       .ctl = {.notify = true, .path = e->path}},
			   e->path);
	if (reply != CW_DATA)
		reply_back(ps,
			   (struct ev){.kind = EV_CWCTL,
				       .flow = e->flow,
				       .ctl = {.epoch = e->cw.epoch, .of = (uint8_t)reply}},
			   e->path);
	if (a == CW_HOLD) {
		if (sc->voq_n == sc->voq_cap) {
			unsigned cap = sc->voq_cap ? 2 * sc->voq_cap : 64;
			struct ev *q = realloc(sc->voq, cap * sizeof(*q));

			if (!q)
				abort(); /* the simulator's memory: nothing to recover */
			sc->voq = q;
			sc->voq_cap = cap;
		}
		sc->voq[sc->voq_n++] = *e;
	} else {
		sdata_nic(ps, e);
		if (a == CW_PASS_FLUSH)
			cw_flush(ps, (unsigned)e->flow, true);
	}
	cw_arm(ps, (unsigned)e->flow);
}

/* The destination ToR's reply or NOTIFY reaches the source ToR. */
static void on_cwctl(struct pathsim *ps, struct ev *e)
{
	struct spray *sp = ps->spray;

	if (e->ctl.notify)
		cw_tx_notify(&sp->cwp, &sp->cfg.cw, e->ctl.path, ps->now);
	else
		cw_tx_reply(&sp->conn[e->flow].cwt, e->ctl.epoch, (enum cw_flag)e->ctl.of, ps->now);
}

static void on_cwflush(struct pathsim *ps, struct ev *e)
{
	struct sconn *sc = &ps->spray->conn[e->flow];

	if (sc->cwr.reordering && e->t == sc->cwr.flush_at)
		cw_flush(ps, (unsigned)e->flow, false);
}

/* The sender's figures into the workload's, once a connection is done. */
static void spray_account(struct spray *sp, const struct spr_snd *s)
{
	sp->st.sent += s->st.sent;
	sp->st.retx += s->st.retx;
	sp->st.timeouts += s->st.timeouts;
	sp->st.go_backs += s->st.go_backs;
}

static void spray_progress(struct pathsim *ps, unsigned c)
{
	struct sconn *sc = &ps->spray->conn[c];

	if (!sc->sender_done && spr_done(&sc->snd)) {
		struct spray *sp = ps->spray;

		sc->sender_done = true;
		spray_account(sp, &sc->snd);
		/* the workload keeps its concurrency, or the QP takes the longest waiting */
		if (!sp->arrive_ns || sp->next < sp->arrived)
			spray_start(ps);
		else
			sp->busy--;
		return;
	}
	spray_send(ps, c);
}

static void on_sack(struct pathsim *ps, struct ev *e)
{
	struct sconn *sc = &ps->spray->conn[e->flow];

	ps->pst[e->path].acks++;
	ps->pst[e->path].ece_acks += e->sr.ece;
	if (sc->sender_done)
		return;
	spr_reply(&sc->snd, &e->sr, ps->now);
	spray_progress(ps, (unsigned)e->flow);
}

static void on_stimer(struct pathsim *ps, struct ev *e)
{
	struct sconn *sc = &ps->spray->conn[e->flow];

	if (e->t != sc->timer_at || sc->sender_done)
		return;
	sc->timer_at = MPR_NEVER;
	spr_timer(&sc->snd, ps->now);
	spray_progress(ps, (unsigned)e->flow);
}

static void on_sample(struct pathsim *ps, struct ev *e)
{
	struct spray *sp = ps->spray;
	struct ord_mem m, *sum = &sp->st.mem_sum, *hw = &sp->st.mem_high;

	ord_rx_mem(sp->rx, &m);
	sp->st.mem_samples++;
	sum->total += m.total, sum->bitmap += m.bitmap;
	sum->static_total += m.static_total, sum->static_bitmap += m.static_bitmap;
#define HW(f) hw->f = m.f > hw->f ? m.f : hw->f
	HW(total), HW(bitmap), HW(static_total), HW(static_bitmap);
#undef HW
	if (!sp->st.done_ns)
		ev_push(ps, (struct ev){.kind = EV_SAMPLE, .t = ps->now + SPRAY_SAMPLE_NS});
	(void)e;
}

/* A connection arrives (an offered load): on an idle QP, or it waits; the next arrival. */
static void on_arrive(struct pathsim *ps, struct ev *e)
{
	struct spray *sp = ps->spray;
	uint64_t gap = mpr_rand_gap(&sp->rng, (double)sp->cfg.arrive_mean_ns);

	sp->arrive_ns[sp->arrived++] = ps->now;
	if (sp->busy < sp->cfg.concurrent) {
		sp->busy++;
		spray_start(ps);
	}
	if (sp->arrived < sp->cfg.n_conns)
		ev_push(ps, (struct ev){.kind = EV_ARRIVE, .t = ps->now + gap});
	(void)e;
}

int ps_add_spray(struct pathsim *ps, const struct ps_spray_cfg *cfg)
{
	struct spr_snd probe;
	struct spray *sp;

	if (ps->spray || !cfg->n_conns || !cfg->concurrent || cfg->concurrent > cfg->n_conns ||
	    !cfg->min_pkts || cfg->max_pkts < cfg->min_pkts || cfg->max_pkts > (1u << 24))
		return -EINVAL;
	if (spr_init(&probe, &cfg->snd, 0, 1, 1))
		return -EINVAL;
	if (cfg->conweave && (cfg->cw.n_paths != ps->cfg.n_paths || !cfg->cw.base_rtt_ns))
		return -EINVAL;
	spr_free(&probe);
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	sp->conn = calloc(cfg->n_conns, sizeof(*sp->conn));
	sp->rx = ord_rx_new(cfg->rx, cfg->n_conns);
	if (cfg->arrive_mean_ns)
		sp->arrive_ns = calloc(cfg->n_conns, sizeof(*sp->arrive_ns));
	if (!sp->conn || !sp->rx || (cfg->arrive_mean_ns && !sp->arrive_ns)) {
		int r = sp->rx || errno != EINVAL ? -ENOMEM : -EINVAL;

		free(sp->arrive_ns);
		free(sp->conn);
		ord_rx_free(sp->rx);
		free(sp);
		return r;
	}
	sp->cfg = *cfg;
	sp->rng = cfg->seed ? cfg->seed : 1;
	sp->rx->qps = cfg->concurrent; /* the NIC's QPs, idle or not */
	sp->cw_rng = sp->rng ^ 0xc0ffee;
	for (unsigned i = 0; i < ps->cfg.n_paths; i++)
		sp->cw_vp[i] = ps_vp_on(ps, i, 0);
	ps->spray = sp;
	if (cfg->arrive_mean_ns)
		ev_push(ps, (struct ev){.kind = EV_ARRIVE, .t = ps->now});
	else
		for (unsigned i = 0; i < cfg->concurrent; i++)
			spray_start(ps);
	ev_push(ps, (struct ev){.kind = EV_SAMPLE, .t = ps->now + SPRAY_SAMPLE_NS});
	return 0;
}

const struct ps_spray_stats *ps_spray_stats(const struct pathsim *ps, const struct ord_rx **rx)
{
	if (!ps->spray)
		return NULL;
	if (rx)
		*rx = ps->spray->rx;
	return &ps->spray->st;
}

static void (*const on[])(struct pathsim *, struct ev *) = {
    [EV_PATH] = on_path,     [EV_DATA] = on_data,     [EV_ACK] = on_ack,
    [EV_TIMER] = on_timer,   [EV_SPATH] = on_path,    [EV_SDATA] = on_sdata,
    [EV_SACK] = on_sack,     [EV_STIMER] = on_stimer, [EV_SAMPLE] = on_sample,
    [EV_ARRIVE] = on_arrive, [EV_CWCTL] = on_cwctl,   [EV_CWFLUSH] = on_cwflush,
};

void ps_run_until(struct pathsim *ps, uint64_t t)
{
	while (ps->len && ps->heap[0].t <= t) {
		struct ev e = ev_pop(ps);

		ps->now = e.t;
		if (e.epoch != ps->epoch[e.path] &&
		    (e.kind == EV_DATA || e.kind == EV_SDATA || e.kind == EV_ACK ||
		     e.kind == EV_SACK || e.kind == EV_CWCTL)) {
			ps->pst[e.path].drained++; /* on the wire of a path that failed since */
			continue;
		}
		on[e.kind](ps, &e);
	}
	ps->now = t;
}

uint64_t ps_now(const struct pathsim *ps)
{
	return ps->now;
}

struct ps_path_cfg *ps_path(struct pathsim *ps, unsigned i)
{
	return i < ps->cfg.n_paths ? &ps->cfg.path[i] : NULL;
}

void ps_fail(struct pathsim *ps, unsigned i, bool down)
{
	if (i >= ps->cfg.n_paths)
		return;
	if (down && !ps->cfg.path[i].down) {
		ps->epoch[i]++;	       /* what its queue holds and its wire carries is lost */
		ps->busy[i] = ps->now; /* (counted in drained as each would have arrived) */
	}
	ps->cfg.path[i].down = down;
}

const struct ps_path_stats *ps_path_stats(const struct pathsim *ps, unsigned i)
{
	return i < ps->cfg.n_paths ? &ps->pst[i] : NULL;
}

/* Flow i, or NULL when there is none. */
static struct flow *flow_at(const struct pathsim *ps, int i)
{
	return i >= 0 && i < ps->n_flows ? ps->flows[i] : NULL;
}

const struct ps_flow_stats *ps_flow_stats(const struct pathsim *ps, int flow)
{
	struct flow *fl = flow_at(ps, flow);

	return fl ? &fl->st : NULL;
}

void ps_flow_stats_reset(struct pathsim *ps, int flow)
{
	struct flow *fl = flow_at(ps, flow);

	if (fl) {
		uint64_t done = fl->st.done_ns;

		memset(&fl->st, 0, sizeof(fl->st));
		fl->st.done_ns = done;
	}
}

const struct mpr_snd *ps_flow_sender(const struct pathsim *ps, int flow)
{
	struct flow *fl = flow_at(ps, flow);

	return fl ? &fl->snd : NULL;
}

const struct mpr_rcv *ps_flow_receiver(const struct pathsim *ps, int flow)
{
	struct flow *fl = flow_at(ps, flow);

	return fl ? &fl->rcv : NULL;
}

double ps_goodput(struct pathsim *ps, int flow, uint64_t t0, uint64_t t1)
{
	const struct ps_flow_stats *st = ps_flow_stats(ps, flow);
	unsigned long long d0;

	if (!st || t1 <= t0)
		return 0;
	ps_run_until(ps, t0);
	d0 = st->delivered;
	ps_run_until(ps, t1);
	return (double)(st->delivered - d0) * ps->cfg.payload_bytes * 8 / ((double)(t1 - t0) / 1e9);
}

uint32_t ps_ood_quantile(const struct pathsim *ps, int flow, double q)
{
	const struct ps_flow_stats *st = ps_flow_stats(ps, flow);

	return st ? mpr_ood_quantile(&st->ood, q) : 0;
}
