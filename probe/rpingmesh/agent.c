// SPDX-License-Identifier: MIT
/*
 * The R-Pingmesh agent (agent.h).  One thread and one poll loop serve every
 * RNIC of the host, as the Hostmesh agent does: each RNIC's port sends the
 * probes of its pinglist's targets at each list's rate, answers the probes
 * other agents send it (ACK1 at once, ACK2 when ACK1's send time T4 is
 * known), and matches the ACKs its own probes get (rpm.h's pending table).
 *
 * An ACK goes back to the probe's source address and QP from the probe's
 * source port, so it takes the reverse 5-tuple, which ECMP may hash onto
 * another path than the probe's: a timeout implicates the forward or the
 * reverse path.  So the agent traces both: the 5-tuples of its probes
 * (forward) and those of the ACKs it sent recently (the reverse paths of
 * the other agents' probes).
 */
#define _GNU_SOURCE
#include "probe/rpingmesh/agent.h"

#include "harness/lib/common.h"
#include "harness/lib/topo.h"
#include "probe/agentcore.h"
#include "probe/dueheap.h"
#include "probe/hostmesh/hmrec.h"
#include "probe/pathmap.h"
#include "probe/recout.h"
#include "probe/rpingmesh/ctl.h"
#include "probe/rpingmesh/rpmrec.h"
#include "probe/rpingmesh/svc.h"
#include "probe/tracer.h"

#include <arpa/inet.h>
#include <limits.h>
#include <linux/if_packet.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define NS_PER_MS	 1000000ULL
#define MAX_FDS		 96
#define RECORD_LINGER_MS 50 /* records go out together, up to this late */
#define WOKE_RX		 1
#define WOKE_TX		 2
#define TRACE_COOKIE	 AGENT_TRACE_COOKIE
#define ACK_COOKIE	 (1ULL << 62)
#define ACK_WAIT	 64		  /* ACK1s awaiting their send time, per RNIC */
#define ACK_T4_WAIT	 (20 * NS_PER_MS) /* then ACK2 goes with T4 in app time */
#define ACK_TUPLES	 4096		  /* ACK 5-tuples kept for tracing */

void rpm_agent_defaults(struct rpm_agent_cfg *c)
{
	*c = (struct rpm_agent_cfg){
	    .tor_mesh_rate = 10,
	    .inter_tor_rate = 1,
	    .rotate_share = 0.2,
	    .services = true,
	    .service_rate = 10,
	    .service_idle_ms = 1000,
	};
	agent_cfg_defaults(&c->a);
	c->a.rotate_ms = 3600000;
	rpm_pl_cfg_default(&c->pl);
}

/*
 * A target as the agent keeps it: rpm_target's fields, its n_sports source ports out of line
 * (after the trace times, in one block) where rpm_target holds RPM_SPORTS_MAX of them: 48
 * bytes, not 168 (issue 59: a target's memory, about 5 ports used of 64).
 */
struct target_id {
	size_t src_rnic;
	size_t host, rnic;
	enum rpm_list list;
	unsigned paths;
	unsigned n_sports;
	uint16_t *sports; /* in traced's block */
};

/* A target of the pinglist, with its schedule and the trace times of its 5-tuples. */
struct target {
	struct target_id t;
	struct pt_dst dst;
	unsigned long long next, period; /* monotonic ns */
	unsigned next_sport, rotate_at;
	/* per source port: when its 5-tuple was traced, 0: never; then the ports (t.sports) */
	unsigned long long *traced;
};

/* x's t from a pinglist's target, the trace times and the ports in one new block. */
static void target_take(struct target *x, const struct rpm_target *t)
{
	size_t n = t->n_sports ? t->n_sports : 1;

	x->traced = rl_xcalloc(n, sizeof(*x->traced) + sizeof(*x->t.sports));
	x->t = (struct target_id){.src_rnic = t->src_rnic,
				  .host = t->host,
				  .rnic = t->rnic,
				  .list = t->list,
				  .paths = t->paths,
				  .n_sports = t->n_sports,
				  .sports = (uint16_t *)(x->traced + n)};
	memcpy(x->t.sports, t->sports, t->n_sports * sizeof(*x->t.sports));
}

/* A pinglist's target again, from x's. */
static void target_give(const struct target *x, struct rpm_target *t)
{
	*t = (struct rpm_target){.src_rnic = x->t.src_rnic,
				 .host = x->t.host,
				 .rnic = x->t.rnic,
				 .list = x->t.list,
				 .paths = x->t.paths,
				 .n_sports = x->t.n_sports};
	memcpy(t->sports, x->t.sports, x->t.n_sports * sizeof(*t->sports));
}

/* An ACK1 sent, awaiting its send time T4 for ACK2. */
struct ack_wait {
	bool used, ready;
	uint32_t seq;
	struct rpm_msg ack1;
	struct pt_dst to;
	uint64_t t4;
	unsigned long long deadline;
};

/* Per probe pending at the prober, beside rpm.h's table (same slot). */
struct extra {
	uint16_t ip_id;
	uint8_t ttl, flags;
	uint32_t late_us; /* how late its send was after it was due */
};

struct rnic {
	const struct inv_rnic *r;
	struct pt_port *port, *tracer;
	struct rpm_pend *pend;
	struct extra *ex;
	uint32_t next_id, ack_seq;
	struct ack_wait acks[ACK_WAIT];
	unsigned n_acks; /* of acks[] used */
	uint8_t woke;	 /* in a wake-up: WOKE_RX, WOKE_TX */
	int svc_fd;	 /* its outgoing service packets (-1: none) */
};

/* A 5-tuple the host's ACKs took: traced as the reverse path of a prober's probes. */
struct ack_tuple {
	uint64_t key; /* 0: empty */
	struct pt_dst to;
	unsigned long long used, traced;
	bool in_heap; /* in ath; out while unused for two refreshes (back when used) */
};

struct agent {
	struct agent_core c;		 /* its host, RNICs, tracer, records out, counters */
	const struct rpm_agent_cfg *cfg; /* its transport resolved */
	struct rnic *rn;
	struct target *tg;
	size_t n_tg;
	struct ack_tuple *at;
	unsigned long long next_expire;
	/* The targets by their next probe, earliest first (a binary heap of indices in tg). */
	size_t *due;
	/*
	 * The targets' 5-tuples by their trace time, the stalest first (never
	 * traced: 0), ties in target and port order: a binary heap, so the
	 * next to trace is its root, not a scan of every target's ports.
	 */
	struct dueheap th;
	struct dh_ent th_out; /* taken out for a trace (th_held) */
	bool th_held;
	/* The ACK 5-tuples in use lately, the same way (a: the index in at). */
	struct dueheap ath;
	struct dh_ent ath_out;
	bool ath_held;
	/*
	 * Every socket in one epoll set (agentcore.h): those that stay for the
	 * agent's life (each RNIC's, its packet socket, ICMP) and the two
	 * connections, which come and go (cw).
	 */
	int epfd;
	struct agent_conn_watch cw[2]; /* the analyzer's and the controller's connections */
	struct rpm_resp_stats resp;
	struct rpm_ctlc ctl; /* with a controller (fd -1: none) */
	/* The pinglist as last taken (the controller's, or computed here), and the service
	 * flows: the targets are both. */
	struct rpm_target *pl_t; /* a pinglist not yet taken into tg (then NULL), */
	uint32_t *pl_q;		 /* its QPNs (NULL: rocelab's own numbering), */
	size_t pl_n;		 /* and its length (once taken: tg's not RPM_SERVICE) */
	struct rpm_svc svc;
	bool svc_dirty;
	unsigned long long next_flows, next_svc_expire, svc_seen, svc_other;
	double rate_max; /* probes a second the tables are sized for */
	unsigned long long acks_sent, ack_tuples_full;
	unsigned n_acks; /* ACK1s awaiting their ACK2, every RNIC */
};

struct rx_ctx {
	struct agent *a;
	size_t rnic;
};

/* A 5-tuple's key: local RNIC, remote host:RNIC, source port. */
static uint64_t tuple_key(size_t s, size_t host, size_t rnic, uint16_t sport)
{
	return (uint64_t)(s + 1) << 48 | (uint64_t)host << 24 | (uint64_t)rnic << 16 | sport;
}

static uint64_t rec_time(const struct agent *a, uint64_t t)
{
	return t - (uint64_t)a->cfg->a.clock_offset_ns;
}

static uint32_t clamp_ns(int64_t v)
{
	return v < 0 ? RPM_UNKNOWN_NS : v >= RPM_UNKNOWN_NS ? RPM_UNKNOWN_NS - 1 : (uint32_t)v;
}

/* ---- prober ------------------------------------------------------------------------- */

/* A packet of len payload bytes went out (probe, ACK, TRACE_ACK): the overhead figures. */
static void sent(struct agent *a, size_t len)
{
	a->c.st.tx_pkts++;
	a->c.st.tx_bytes += REC_WIRE_BYTES(len);
}

static void emit_done(struct agent *a, size_t s, const struct rpm_done *d)
{
	const struct extra *x = &a->rn[s].ex[d->probe.id % a->rn[s].pend->cap];
	struct rpm_probe_rec r = {.t1_ns = rec_time(a, d->t.t1),
				  .rtt_ns = clamp_ns(d->r.rtt_ns),
				  .prober_ns = clamp_ns(d->r.prober_ns),
				  .responder_ns = clamp_ns(d->r.responder_ns),
				  .dst_host = d->probe.dst_host,
				  .src_rnic = d->probe.src_rnic,
				  .dst_rnic = d->probe.dst_rnic,
				  .list = d->probe.list,
				  .status = (uint8_t)d->r.status,
				  .flags = x->flags,
				  .ttl = x->ttl,
				  .sport = d->probe.sport,
				  .ip_id = x->ip_id,
				  .late_us = x->late_us};

	if (d->r.status == RPM_TIMEOUT || d->r.status == RPM_ACK2_LOST)
		a->c.st.timeouts++;
	else if (d->r.status == RPM_SEND_ERROR)
		a->c.st.send_errors++;
	recout_emit(&a->c.out, RPM_REC_PROBE, &r, sizeof(r));
}

static void send_probe(struct agent *a, struct target *t, unsigned long long late)
{
	size_t s = t->t.src_rnic;
	struct rnic *rs = &a->rn[s];
	uint16_t sport = t->t.sports[t->next_sport++ % t->t.n_sports], used = 0, ipid = 0;
	struct rpm_msg m = {.kind = RPM_PROBE,
			    .list = (uint8_t)t->t.list,
			    .src_host = (uint16_t)a->c.host,
			    .dst_host = (uint16_t)t->t.host,
			    .src_rnic = (uint8_t)s,
			    .dst_rnic = (uint8_t)t->t.rnic,
			    .sport = sport,
			    .nonce = a->c.nonce,
			    .id = rs->next_id++};
	uint8_t buf[RPM_PAYLOAD_LEN];
	struct extra *x = &rs->ex[m.id % rs->pend->cap];
	int r;

	m.t1 = rl_realtime_ns();
	rpm_encode(&m, buf);
	if (rpm_pend_sent(rs->pend, &m, m.t1, rl_realtime_ns())) {
		/* Its slot still awaits an older probe: more in flight than the table holds. */
		a->c.st.dropped_records++;
		return;
	}
	*x = (struct extra){.late_us =
				late / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(late / 1000)};
	a->c.st.probes++;
	r = a->cfg->a.transport->send(rs->port, &t->dst, sport, 64, buf, sizeof(buf),
				      m.id | s << 40, &used, &ipid);
	if (r) {
		struct rpm_pending *p = &rs->pend->slot[m.id % rs->pend->cap];
		struct rpm_done d = {.probe = m, .t = p->t, .r = {RPM_SEND_ERROR, -1, -1, -1}};

		rl_dbg("agent: %s -> %s:%s: send: %s", rs->r->name, a->c.inv->hosts[t->t.host].name,
		       a->c.inv->hosts[t->t.host].rnics[t->t.rnic].name, strerror(-r));
		rpm_pend_drop(rs->pend, m.id);
		emit_done(a, s, &d);
		return;
	}
	sent(a, sizeof(buf));
	x->ip_id = ipid;
}

static void expire_each(void *ctx, const struct rpm_done *d)
{
	struct rx_ctx *c = ctx;

	emit_done(c->a, c->rnic, d);
}

/* ---- responder ------------------------------------------------------------------------ */

static void ack_tuple_use(struct agent *a, size_t s, const struct rpm_msg *m,
			  const struct pt_dst *to, unsigned long long now)
{
	uint64_t k = tuple_key(s, m->src_host, m->src_rnic, m->sport);
	size_t i = (size_t)(k * 0x9e3779b97f4a7c15ULL >> 40) % ACK_TUPLES;

	for (size_t probe = 0; probe < ACK_TUPLES; probe++, i = (i + 1) % ACK_TUPLES) {
		struct ack_tuple *t = &a->at[i];

		if (t->key == k || !t->key) {
			if (!t->key)
				*t = (struct ack_tuple){.key = k, .to = *to};
			t->used = now;
			if (!t->in_heap) {
				dh_push(&a->ath, (struct dh_ent){(uint32_t)i, 0});
				t->in_heap = true;
			}
			return;
		}
		if (probe > 32)
			break;
	}
	a->ack_tuples_full++;
}

/* ACK2 for the ACK1 waiting in w, with its T4 (the app time at ACK1's send if none came). */
static void send_ack2(struct agent *a, size_t s, struct ack_wait *w)
{
	struct rnic *rs = &a->rn[s];
	struct rpm_msg ack2;
	uint8_t buf[RPM_PAYLOAD_LEN];
	uint16_t used, ipid;

	rpm_ack(&w->ack1, true, w->ack1.t3, w->t4, &ack2);
	rpm_encode(&ack2, buf);
	if (a->cfg->a.transport->send(rs->port, &w->to, ack2.sport, 64, buf, sizeof(buf), 0, &used,
				      &ipid))
		a->c.st.send_errors++;
	else {
		sent(a, sizeof(buf));
		a->acks_sent++;
	}
	w->used = false;
	rs->n_acks--;
	a->n_acks--;
}

/* Send ACK1 for probe m that arrived on RNIC s, and await its send time for ACK2. */
static void send_ack1(struct agent *a, size_t s, const struct rpm_msg *ack1, const struct pt_rx *rx)
{
	struct rnic *rs = &a->rn[s];
	struct pt_dst to = {rx->src, rx->src_qpn};
	uint8_t buf[RPM_PAYLOAD_LEN];
	uint16_t used = 0, ipid = 0;
	uint32_t seq = rs->ack_seq++;
	struct ack_wait *w = &rs->acks[seq % ACK_WAIT];
	unsigned long long now = rl_now_ns();

	rpm_encode(ack1, buf);
	if (a->cfg->a.transport->send(rs->port, &to, ack1->sport, 64, buf, sizeof(buf),
				      ACK_COOKIE | (uint64_t)s << 40 | seq, &used, &ipid)) {
		a->c.st.send_errors++;
		return;
	}
	sent(a, sizeof(buf));
	a->acks_sent++;
	/* An older ACK1 still waiting for T4 goes with its app time now. */
	if (w->used)
		send_ack2(a, s, w);
	rs->n_acks++;
	a->n_acks++;
	*w = (struct ack_wait){.used = true,
			       .seq = seq,
			       .ack1 = *ack1,
			       .to = to,
			       .t4 = rl_realtime_ns(),
			       .deadline = now + ACK_T4_WAIT};
	ack_tuple_use(a, s, ack1, &to, now);
}

/*
 * The ACK2s of RNIC s that are due (all: every one waiting); returns how many
 * went out.  Most wake-ups have none waiting: the count saves the scan.
 */
static int send_ack2s(struct agent *a, size_t s, bool all)
{
	struct rnic *rs = &a->rn[s];
	unsigned long long now;
	int n = 0;

	if (!rs->n_acks)
		return 0;
	now = rl_now_ns();
	for (int i = 0; i < ACK_WAIT && rs->n_acks; i++) {
		struct ack_wait *w = &rs->acks[i];

		if (w->used && (w->ready || all || now >= w->deadline)) {
			send_ack2(a, s, w);
			n++;
		}
	}
	return n;
}

/* ---- completions and arrivals ---------------------------------------------------------- */

static void on_tx(void *ctx, uint64_t cookie, uint64_t tx_ns, enum pt_ts ts)
{
	struct rx_ctx *c = ctx;
	struct agent *a = c->a;
	size_t s = (size_t)(cookie >> 40 & 0xff);
	uint32_t id = (uint32_t)cookie;

	if (cookie & TRACE_COOKIE || s >= a->c.n || ts == PT_TS_APP)
		return;
	if (cookie & ACK_COOKIE) {
		struct ack_wait *w = &a->rn[s].acks[id % ACK_WAIT];

		if (w->used && w->seq == id && !w->ready) {
			w->t4 = tx_ns;
			w->ready = true;
		}
	} else if (cookie) {
		struct rpm_pending *p = &a->rn[s].pend->slot[id % a->rn[s].pend->cap];

		if (p->used && p->probe.id == id && !p->ack1) {
			p->t.t2 = tx_ns;
			a->rn[s].ex[id % a->rn[s].pend->cap].flags |=
			    ts == PT_TS_HW ? RPM_F_HW : RPM_F_KERNEL;
		}
	}
}

static void on_tx_failed(void *ctx, uint64_t cookie, int err)
{
	struct rx_ctx *c = ctx;

	(void)cookie;
	(void)err;
	c->a->c.st.send_errors++;
}

static void on_reply(struct agent *a, size_t s, const struct rpm_msg *m, const struct pt_rx *rx)
{
	struct rnic *rs = &a->rn[s];
	struct rpm_done d;
	uint64_t t6 = rl_realtime_ns();
	int r;

	if (m->kind == RPM_ACK1 && m->nonce == a->c.nonce) {
		struct extra *x = &rs->ex[m->id % rs->pend->cap];
		struct rpm_pending *p = &rs->pend->slot[m->id % rs->pend->cap];

		if (p->used && p->probe.id == m->id && !p->ack1) {
			x->ttl = m->ttl;
			/* T2 and T5 from one clock, or neither is the kernel's. */
			if (rx->rx_ts == PT_TS_APP ||
			    (rx->rx_ts == PT_TS_HW) != !!(x->flags & RPM_F_HW))
				x->flags &= (uint8_t) ~(RPM_F_HW | RPM_F_KERNEL);
		}
	}
	r = rpm_pend_reply(rs->pend, rx->payload, rx->len, rx->rx_ns, t6, &d);
	if (r == 1)
		emit_done(a, s, &d);
}

static void on_rx(void *ctx, const struct pt_rx *rx)
{
	struct rx_ctx *c = ctx;
	struct agent *a = c->a;
	size_t s = c->rnic;
	struct rpm_msg m, ack1;
	int r = rpm_decode(rx->payload, rx->len, &m);

	if (r) {
		if (r == -EMSGSIZE)
			a->c.st.malformed++;
		else
			a->c.st.foreign++;
		return;
	}
	switch (m.kind) {
	case RPM_PROBE:
		if (rpm_respond(rx->payload, rx->len, (uint16_t)a->c.host, (uint8_t)s, rx->ttl,
				rx->rx_ns, &ack1, &a->resp))
			a->c.st.foreign++;
		else
			send_ack1(a, s, &ack1, rx);
		break;
	case RPM_TRACE:
		if (m.dst_host == a->c.host && m.dst_rnic == s) {
			struct pt_dst to = {rx->src, rx->src_qpn};
			uint8_t buf[RPM_PAYLOAD_LEN];
			uint16_t used, ipid;

			m.kind = RPM_TRACE_ACK;
			rpm_encode(&m, buf);
			if (!a->cfg->a.transport->send(a->rn[s].port, &to, m.sport, 64, buf,
						       sizeof(buf), 0, &used, &ipid))
				sent(a, sizeof(buf));
		} else {
			a->c.st.foreign++;
		}
		break;
	case RPM_TRACE_ACK:
		if (m.src_host == a->c.host && m.src_rnic == s && m.nonce == a->c.nonce)
			tracer_reached(&a->c.tr, tuple_key(s, m.dst_host, m.dst_rnic, m.sport),
				       m.ttl);
		else
			a->c.st.foreign++;
		break;
	default: /* ACK1, ACK2 */
		if (m.src_host != a->c.host || m.src_rnic != s) {
			a->c.st.foreign++;
			break;
		}
		on_reply(a, s, &m, rx);
		break;
	}
}

static void on_bad(void *ctx, int reason)
{
	agent_core_bad(&((struct rx_ctx *)ctx)->a->c, reason);
}

static const struct pt_events tx_events = {on_tx, NULL, NULL, on_tx_failed};
static const struct pt_events all_events = {on_tx, on_rx, on_bad, on_tx_failed};

/*
 * RNIC s's send completions (and with rx, its arrivals: poll() takes both,
 * completions first, so a probe's T2 is in before its ACK's T5), then the
 * ACK2s they made ready.
 */
static void port_poll(struct agent *a, size_t s, bool rx)
{
	struct rx_ctx c = {a, s};

	unsigned long long acks = a->acks_sent;

	if (rx)
		a->cfg->a.transport->poll(a->rn[s].port, &all_events, &c);
	/*
	 * With rx, the send times only of ACK1s that went out for probes that
	 * arrived, so their ACK2s follow at once.  Left to the error queue's own
	 * wake-up, each answer cost a wake-up here and one at the prober, where
	 * ACK1 and ACK2 came apart (issue 59).
	 */
	if (!rx || a->acks_sent != acks)
		a->cfg->a.transport->poll_tx(a->rn[s].port, &tx_events, &c);
	/* The ACK2s' send completions too, when some went (a read that finds none costs). */
	if (send_ack2s(a, s, false))
		a->cfg->a.transport->poll_tx(a->rn[s].port, &tx_events, &c);
}

/*
 * Probes unanswered for the timeout.  An RNIC is read first when one of its
 * probes is past it (an agent descheduled on a busy host finds its answers
 * waiting), and while an ACK1 of its awaits its send completion (verbs: send
 * completions do not wake the agent).  Reading every RNIC every time found
 * nothing nearly always: 16 empty reads every 50 ms on 8 RNICs.
 */
static void expire(struct agent *a)
{
	uint64_t now = rl_realtime_ns();

	for (size_t s = 0; s < a->c.n; s++) {
		struct rx_ctx c = {a, s};

		if (a->rn[s].n_acks || rpm_pend_due(a->rn[s].pend, now))
			port_poll(a, s, true);
		rpm_pend_expire(a->rn[s].pend, now, expire_each, &c);
	}
}

/* ---- source ports ------------------------------------------------------------------------ */

static bool has_sport(const struct target *t, uint16_t p)
{
	for (unsigned k = 0; k < t->t.n_sports; k++)
		if (t->t.sports[k] == p)
			return true;
	return false;
}

/*
 * Replace rotate_share of each target's source ports (those longest in use
 * first, round the set), so a fault on one 5-tuple shows in time.  A target
 * with one path keeps its port.
 */
static void th_build(struct agent *a);

static void rotate(void *ctx, unsigned long long now)
{
	struct agent *a = ctx;

	(void)now;
	for (size_t i = 0; i < a->n_tg; i++) {
		struct target *t = &a->tg[i];
		unsigned n = t->t.n_sports,
			 k = (unsigned)ceil(a->cfg->rotate_share * (double)n - 1e-9);

		if (t->t.paths <= 1 || !k)
			continue;
		for (unsigned j = 0; j < k && j < n; j++) {
			unsigned slot = t->rotate_at++ % n;
			uint16_t p;

			do
				p = (uint16_t)(RPM_SPORT_LO + (unsigned)random() % 16384);
			while (has_sport(t, p));
			t->t.sports[slot] = p;
			t->traced[slot] = 0;
		}
	}
	th_build(a); /* the new ports first */
	a->c.trace_idle_until = 0;
}

/* ---- path tracing -------------------------------------------------------------------------- */

struct trace_pl {
	const struct agent *a;
	size_t s, host, rnic;
	uint16_t sport;
};

static size_t trace_payload(void *ctx, int ttl, uint8_t *buf)
{
	const struct trace_pl *c = ctx;
	struct rpm_msg m = {.kind = RPM_TRACE,
			    .ttl = (uint8_t)ttl,
			    .src_host = (uint16_t)c->a->c.host,
			    .dst_host = (uint16_t)c->host,
			    .src_rnic = (uint8_t)c->s,
			    .dst_rnic = (uint8_t)c->rnic,
			    .sport = c->sport,
			    .nonce = c->a->c.nonce,
			    .t1 = rl_realtime_ns()};

	return rpm_encode(&m, buf);
}

static void finish_trace(void *ctx, struct tr_job *j)
{
	struct agent *a = ctx;
	size_t s = (size_t)(j->key >> 48) - 1, host = (size_t)(j->key >> 24 & 0xffffff),
	       rnic = (size_t)(j->key >> 16 & 0xff);
	/*
	 * The 5-tuple by the port its probes (or ACKs) carry, as their records and
	 * the ACKs name it; the trace went out on the port the transport puts on
	 * the wire for it (verbs on rxe: its QP's).  Keyed by the wire port, a
	 * verbs host's paths were never found: each timeout with it voted for the
	 * other direction's path alone (the VM tier's uplink flap, ranked second).
	 */
	struct rpm_path_rec p = {.t_ns = rec_time(a, rl_realtime_ns()),
				 .sport = (uint16_t)j->key,
				 .dst_host = (uint16_t)host,
				 .src_rnic = (uint8_t)s,
				 .dst_rnic = (uint8_t)rnic};
	struct inv_endpoint src = {INV_DEV_HOST, a->c.host, s}, dst = {INV_DEV_HOST, host, rnic};
	int n_hops = tracer_hops(j), n_links = 0;
	rec_link_t links[REC_MAX_LINKS] = {0};
	bool ok = a->c.topo && pathmap_links(a->c.inv, a->c.topo, &src, &dst, j->hops, n_hops,
					     j->reached_ttl > 0, links, REC_MAX_LINKS, &n_links);

	memcpy(p.links, links, sizeof(links));
	p.n_hops = (uint8_t)n_hops;
	p.n_links = (uint8_t)n_links;
	p.complete = ok;
	for (int i = 0; i < n_hops; i++)
		p.hops[i] = j->hops[i].s_addr;
	if (ok)
		a->c.st.traces_complete++;
	a->c.trace_idle_until = 0;
	recout_emit(&a->c.out, RPM_REC_PATH, &p, sizeof(p));
}

/* ---- the trace heaps: the targets' 5-tuples, and the ACKs', by trace time ---------------- */

/* Entry (target, port slot)'s trace time: the heap's key. */
static unsigned long long th_key(const void *ctx, struct dh_ent e)
{
	const struct agent *a = ctx;

	return a->tg[e.a].traced[e.b];
}

/* ACK 5-tuple e.a's. */
static unsigned long long ath_key(const void *ctx, struct dh_ent e)
{
	const struct agent *a = ctx;

	return a->at[e.a].traced;
}

/* Every target's 5-tuples (one under the same ToR, where there is one path), heaped. */
static void th_build(struct agent *a)
{
	size_t n = 0;
	struct dh_ent *e;

	for (size_t i = 0; i < a->n_tg; i++)
		n += a->tg[i].t.paths <= 1 ? 1 : a->tg[i].t.n_sports;
	e = rl_xcalloc(n ? n : 1, sizeof(*e));
	n = 0;
	for (size_t i = 0; i < a->n_tg; i++) {
		/* Under one ToR there is one path: one 5-tuple shows it. */
		unsigned m = a->tg[i].t.paths <= 1 ? 1 : a->tg[i].t.n_sports;

		for (unsigned k = 0; k < m; k++)
			e[n++] = (struct dh_ent){(uint32_t)i, k};
	}
	dh_build(&a->th, e, n);
	a->th_held = false;
	free(e);
}

/* A 5-tuple picked to trace, and where its trace time is kept. */
struct pick {
	unsigned long long *traced;
	size_t s, host, rnic;
	uint16_t sport;
	struct pt_dst dst;
};

/* What consider() made of a 5-tuple. */
enum tuple_state { NOT_DUE, BUSY, PICKED };

/*
 * A 5-tuple, the best so far if it is due, staler than *best_t and not
 * being traced now.  NOT_DUE: neither it nor any as stale or fresher is a
 * pick (it was traced within the refresh, or is no staler than the best).
 */
static enum tuple_state consider(const struct agent *a, struct pick *best,
				 unsigned long long *best_t, unsigned long long now,
				 unsigned long long *traced, size_t s, size_t host, size_t rnic,
				 uint16_t sport, const struct pt_dst *dst)
{
	unsigned long long refresh = (unsigned long long)a->cfg->a.trace_refresh_ms * NS_PER_MS;

	if ((*traced && now - *traced < refresh) || *traced >= *best_t)
		return NOT_DUE;
	if (tracer_busy(&a->c.tr, tuple_key(s, host, rnic, sport)))
		return BUSY;
	*best_t = *traced;
	*best = (struct pick){traced, s, host, rnic, sport, *dst};
	return PICKED;
}

/*
 * The stalest 5-tuple of a heap (the targets', or with acks the ACKs' in use
 * lately) that is due, not being traced and staler than *best: the root,
 * past those a trace holds now (put back).  Taken out into *out until
 * th_return().  An ACK 5-tuple unused for `recent` leaves the heap until its
 * next use.
 */
static bool heap_take(struct agent *a, bool acks, unsigned long long now, unsigned long long recent,
		      struct pick *p, unsigned long long *best, struct dh_ent *out)
{
	struct dueheap *h = acks ? &a->ath : &a->th;
	struct dh_ent busy[16];
	size_t n_busy = 0;
	enum tuple_state v = NOT_DUE;

	while (h->n) {
		struct dh_ent e = h->h[0];

		if (acks) {
			struct ack_tuple *t = &a->at[e.a];

			if (now - t->used >= recent) {
				t->in_heap = false;
				dh_pop(h);
				continue;
			}
			v = consider(a, p, best, now, &t->traced, (size_t)(t->key >> 48) - 1,
				     (size_t)(t->key >> 24 & 0xffffff),
				     (size_t)(t->key >> 16 & 0xff), (uint16_t)t->key, &t->to);
		} else {
			struct target *t = &a->tg[e.a];

			v = consider(a, p, best, now, &t->traced[e.b], t->t.src_rnic, t->t.host,
				     t->t.rnic, t->t.sports[e.b], &t->dst);
		}
		if (v == PICKED)
			*out = dh_pop(h);
		if (v != BUSY || n_busy == ARRAY_SIZE(busy))
			break; /* picked, or none is: every other is as stale or less */
		busy[n_busy++] = dh_pop(h);
	}
	while (n_busy)
		dh_push(h, busy[--n_busy]);
	return v == PICKED;
}

/* What heap_take() took out, back in its heap (its trace time set now or not). */
static void th_return(struct agent *a)
{
	if (a->th_held)
		dh_push(&a->th, a->th_out);
	if (a->ath_held)
		dh_push(&a->ath, a->ath_out);
	a->th_held = a->ath_held = false;
}

/*
 * The 5-tuple most in need of a trace: never traced first, then the
 * stalest; a target's before an ACK's as stale (the order a scan of the
 * targets' ports, then the ACKs', would meet them).
 */
static bool next_tuple(struct agent *a, unsigned long long now, struct pick *p)
{
	unsigned long long best = ULLONG_MAX,
			   recent =
			       2ULL * (unsigned long long)a->cfg->a.trace_refresh_ms * NS_PER_MS;

	a->th_held = heap_take(a, false, now, recent, p, &best, &a->th_out);
	a->ath_held = heap_take(a, true, now, recent, p, &best, &a->ath_out);
	return best != ULLONG_MAX;
}

static bool trace_next(void *ctx, struct tr_job *j, unsigned long long now)
{
	struct agent *a = ctx;
	struct pick p;
	struct trace_pl c;

	if (!next_tuple(a, now, &p)) {
		th_return(a);
		return false;
	}
	c = (struct trace_pl){a, p.s, p.host, p.rnic, p.sport};
	agent_core_trace(&a->c, j, tuple_key(p.s, p.host, p.rnic, p.sport), a->cfg->a.transport,
			 a->rn[p.s].port, a->rn[p.s].tracer, a->rn[p.s].r->addr.addr, &p.dst,
			 p.sport, a->cfg->a.max_ttl, trace_payload, &c, now);
	*p.traced = now;
	th_return(a); /* traced now, or an ACK's 5-tuple was staler: back in either way */
	return true;
}

/* ---- setup and the loop ---------------------------------------------------------------------- */

static struct pt_port *port_of(void *ctx, size_t i)
{
	return ((struct agent *)ctx)->rn[i].port;
}

static void emit_stats(void *ctx)
{
	struct agent *a = ctx;

	for (size_t s = 0; s < a->c.n; s++) {
		const struct rpm_pend *p = a->rn[s].pend;

		a->c.st.foreign += p->foreign + p->stale + p->unknown + p->duplicate;
		a->c.st.malformed += p->short_msg;
		a->rn[s].pend->foreign = a->rn[s].pend->stale = a->rn[s].pend->unknown =
		    a->rn[s].pend->duplicate = a->rn[s].pend->short_msg = 0;
	}
	a->c.st.malformed += a->ctl.malformed; /* the controller's frames that could not be read */
	a->ctl.malformed = 0;
	agent_core_stats(&a->c, a->cfg->a.transport, port_of, a, "probes and ACKs",
			 rec_time(a, rl_realtime_ns()));
}

static void hello_frame(const struct agent *a, void *buf)
{
	struct {
		struct rec_frame h;
		struct rpm_hello b;
	} __attribute__((packed)) m = {{RPM_REC_HELLO, sizeof(struct rpm_hello)}};

	agent_core_hello(&a->c, &m.b.head, RPM_REC_MAGIC, RPM_REC_VERSION, a->cfg->a.transport);
	m.b.timeout_us = (uint32_t)(a->cfg->a.timeout_ms * 1000);
	memcpy(buf, &m, sizeof(m));
}
#define HELLO_LEN (sizeof(struct rec_frame) + sizeof(struct rpm_hello))

static int open_ports(struct agent *a, const struct inv_host *h)
{
	const struct rpm_agent_cfg *cfg = a->cfg;
	double rate = a->rate_max;
	char err[256];

	for (size_t i = 0; i < a->c.n; i++) {
		struct rnic *rs = &a->rn[i];
		struct pt_cfg pc = agent_core_port_cfg(&a->c, i, RPM_QPN_BASE + (uint32_t)i);
		/* Room for every probe of the RNIC within two timeouts. */
		size_t cap =
		    (size_t)(rate / (double)a->c.n * (double)cfg->a.timeout_ms / 1000.0 * 2) + 64;
		int r;

		rs->r = &h->rnics[i];
		rs->pend = rpm_pend_new(a->c.nonce, cap, (uint64_t)cfg->a.timeout_ms * NS_PER_MS);
		if (!rs->pend)
			return RL_EXIT_SETUP;
		rs->ex = rl_xcalloc(cap, sizeof(*rs->ex));
		r = cfg->a.transport->open(&pc, &rs->port, err, sizeof(err));
		if (r) {
			rl_err("agent: %s:%s: %s", h->name, rs->r->name, err);
			return RL_EXIT_SETUP;
		}
		if (!cfg->a.transport->traces) {
			pc.share_port = pc.send_only = true;
			pc.qpn = cfg->a.transport->qpn(rs->port);
			if (pt_udp_ops.open(&pc, &rs->tracer, err, sizeof(err)))
				rl_warn("agent: %s:%s: no path tracer: %s", h->name, rs->r->name,
					err);
		}
		if (cfg->a.transport->describe)
			rl_info("agent: %s:%s: %s", h->name, rs->r->name,
				cfg->a.transport->describe(rs->port, err, sizeof(err)));
		rs->svc_fd = -1;
		if (cfg->services &&
		    (rs->svc_fd = rpm_svc_open(h->rnics[i].netdev, err, sizeof(err))) < 0) {
			rl_warn("agent: %s:%s: no service tracing: %s", h->name, rs->r->name, err);
			rs->svc_fd = -1;
		}
	}
	a->svc.idle_ns = (unsigned long long)cfg->service_idle_ms * NS_PER_MS;
	return 0;
}

/* Probes a second to a target of list. */
static double list_rate(const struct agent *a, unsigned list)
{
	return list == RPM_TOR_MESH    ? a->cfg->tor_mesh_rate
	       : list == RPM_INTER_TOR ? a->cfg->inter_tor_rate
				       : a->cfg->service_rate;
}

/* Probes a second the RNICs of the host send to targets t[0..n), at most. */
static double rate_of(const struct agent *a, const struct rpm_target *t, size_t n)
{
	double rate = 0;

	for (size_t i = 0; i < n; i++)
		rate += list_rate(a, t[i].list);
	return rate;
}

/* ---- the schedule: a binary heap of targets by their next probe ------------------------ */

static bool earlier(const struct agent *a, size_t i, size_t j)
{
	return a->tg[a->due[i]].next < a->tg[a->due[j]].next;
}

static void heap_down(struct agent *a, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, x;

		if (l < a->n_tg && earlier(a, l, m))
			m = l;
		if (l + 1 < a->n_tg && earlier(a, l + 1, m))
			m = l + 1;
		if (m == i)
			return;
		x = a->due[i], a->due[i] = a->due[m], a->due[m] = x;
		i = m;
	}
}

static void heap_build(struct agent *a)
{
	free(a->due);
	a->due = rl_xcalloc(a->n_tg ? a->n_tg : 1, sizeof(*a->due));
	for (size_t i = 0; i < a->n_tg; i++)
		a->due[i] = i;
	for (size_t i = a->n_tg / 2; i-- > 0;)
		heap_down(a, i);
}

/*
 * Take the targets t[0..n) (qpn: each one's QPN; NULL: rocelab's own
 * numbering, RPM_QPN_BASE + the RNIC's index).  A target already probed
 * keeps its schedule, its source ports (rotated) and their trace times;
 * a new one starts within one period.
 */
static void take_targets(struct agent *a, const struct rpm_target *t, const uint32_t *qpn, size_t n,
			 unsigned long long now)
{
	struct target *tg = rl_xcalloc(n ? n : 1, sizeof(*tg));
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		struct target *x = &tg[i], *old = NULL;
		double rate = list_rate(a, t[i].list);

		for (size_t k = 0; k < a->n_tg && !old; k++) {
			const struct target_id *o = &a->tg[k].t;

			if (a->tg[k].traced && o->src_rnic == t[i].src_rnic &&
			    o->host == t[i].host && o->rnic == t[i].rnic && o->list == t[i].list &&
			    o->n_sports == t[i].n_sports &&
			    (t[i].list != RPM_SERVICE || o->sports[0] == t[i].sports[0]))
				old = &a->tg[k];
		}
		x->dst = (struct pt_dst){a->c.inv->hosts[t[i].host].rnics[t[i].rnic].addr.addr,
					 qpn ? qpn[i] : RPM_QPN_BASE + (uint32_t)t[i].rnic};
		if (old && old->dst.qpn == x->dst.qpn) {
			*x = *old;
			old->traced = NULL; /* moved */
			kept++;
			continue;
		}
		target_take(x, &t[i]);
		x->period = (unsigned long long)(1e9 / rate);
		/* Spread the first probes over one period, so targets do not fire together. */
		x->next = now + (unsigned long long)random() % x->period;
		x->next_sport = (unsigned)random();
		if (a->cfg->a.transport->prepare) {
			int r = a->cfg->a.transport->prepare(a->rn[x->t.src_rnic].port, &x->dst);

			if (r)
				rl_warn("agent: %s: a route to %s:%s: %s (probes will say whether "
					"it lasts)",
					a->c.inv->hosts[a->c.host].name,
					a->c.inv->hosts[x->t.host].name,
					a->c.inv->hosts[x->t.host].rnics[x->t.rnic].name,
					strerror(-r));
		}
	}
	for (size_t k = 0; k < a->n_tg; k++)
		free(a->tg[k].traced);
	free(a->tg);
	if (kept != n || kept != a->n_tg)
		rl_info("agent: %s: %zu targets (%zu kept, %zu new, %zu gone)%s",
			a->c.inv->hosts[a->c.host].name, n, kept, n - kept, a->n_tg - kept,
			n > a->pl_n ? ", services among them" : "");
	a->tg = tg;
	a->n_tg = n;
	heap_build(a);
	th_build(a);
}

/* ---- service tracing ------------------------------------------------------------------- */

/* The inventory RNIC at address dst (network order): its host and index, false when none. */
static bool rnic_at(const struct agent *a, uint32_t dst, size_t *host, size_t *rnic)
{
	for (size_t h = 0; h < a->c.inv->n_hosts; h++)
		for (size_t r = 0; r < a->c.inv->hosts[h].n_rnics; r++)
			if (a->c.inv->hosts[h].rnics[r].addr.addr.s_addr == dst) {
				*host = h, *rnic = r;
				return true;
			}
	return false;
}

/*
 * The QPN of (host, rnic)'s probe port: as a pinglist just received has it, else as the
 * targets hold it (the pinglist kept there), else rocelab's own.
 */
static uint32_t qpn_of(const struct agent *a, size_t host, size_t rnic)
{
	for (size_t i = 0; a->pl_t && a->pl_q && i < a->pl_n; i++)
		if (a->pl_t[i].host == host && a->pl_t[i].rnic == rnic)
			return a->pl_q[i];
	for (size_t k = 0; !a->pl_t && k < a->n_tg; k++)
		if (a->tg[k].t.list != RPM_SERVICE && a->tg[k].t.host == host &&
		    a->tg[k].t.rnic == rnic)
			return a->tg[k].dst.qpn;
	return RPM_QPN_BASE + (uint32_t)rnic;
}

/*
 * The targets anew: the pinglist's, then one per service flow to an RNIC of
 * the inventory, probed on the flow's own 5-tuple (its source port) so that
 * ECMP puts the probes on the service's path.
 */
static void retarget(struct agent *a, unsigned long long now)
{
	size_t n = 0, cap = (a->pl_t ? a->pl_n : a->n_tg) + RPM_SVC_MAX, n_list;
	struct rpm_target *t = rl_xcalloc(cap, sizeof(*t));
	uint32_t *q = rl_xcalloc(cap, sizeof(*q));

	/*
	 * The pinglist is kept once, in the targets (a target of R-Pingmesh's lists
	 * is 168 bytes, most of them its source ports; 960 of them at a 16-host
	 * lab's rates were 161 kB a second time, issue 59): one just received, else
	 * the targets' own.
	 */
	if (a->pl_t) {
		memcpy(t, a->pl_t, a->pl_n * sizeof(*t));
		for (; n < a->pl_n; n++)
			q[n] = a->pl_q ? a->pl_q[n] : RPM_QPN_BASE + (uint32_t)a->pl_t[n].rnic;
	} else {
		for (size_t k = 0; k < a->n_tg; k++)
			if (a->tg[k].t.list != RPM_SERVICE)
				target_give(&a->tg[k], &t[n]), q[n++] = a->tg[k].dst.qpn;
	}
	n_list = n;
	for (size_t i = 0; i < RPM_SVC_MAX; i++) {
		const struct rpm_flow *f = &a->svc.f[i];
		size_t h, r;

		if (!f->used || !rnic_at(a, f->dst, &h, &r))
			continue;
		t[n] = (struct rpm_target){.src_rnic = f->src_rnic,
					   .host = h,
					   .rnic = r,
					   .list = RPM_SERVICE,
					   .paths = 1,
					   .n_sports = 1};
		t[n].sports[0] = f->sport;
		q[n++] = qpn_of(a, h, r);
	}
	free(a->pl_t);
	free(a->pl_q);
	a->pl_t = NULL, a->pl_q = NULL, a->pl_n = n_list;
	take_targets(a, t, q, n, now);
	free(t);
	free(q);
	a->svc_dirty = false;
}

static void flow_rec(struct agent *a, struct rpm_flow *f, bool ended, unsigned long long now)
{
	size_t h = 0, r = 0;
	/*
	 * A record is of the flow's last packet counted: its bytes go to the window
	 * they were sent in, and an ended flow's end to the window it stopped in.
	 */
	uint64_t t = rl_realtime_ns() - (uint64_t)(now - f->last);
	struct rpm_flow_rec x = {.t_ns = rec_time(a, t),
				 .src_rnic = f->src_rnic,
				 .sport = f->sport,
				 .ended = ended,
				 .pkts = (uint32_t)(f->pkts - f->rep_pkts),
				 .bytes = (uint32_t)(f->bytes - f->rep_bytes),
				 .qpn = f->qpn};

	if (!rnic_at(a, f->dst, &h, &r) || (!ended && f->pkts == f->rep_pkts))
		return; /* to an address the inventory does not know, or nothing new to say */
	x.dst_host = (uint16_t)h;
	x.dst_rnic = (uint8_t)r;
	x.span_ms = (uint32_t)((now - f->rep_t) / NS_PER_MS);
	f->rep_t = now;
	f->rep_pkts = f->pkts;
	f->rep_bytes = f->bytes;
	recout_emit(&a->c.out, RPM_REC_FLOW, &x, sizeof(x));
}

static void flow_ended(void *ctx, const struct rpm_flow *f)
{
	struct agent *a = ctx;
	struct rpm_flow copy = *f;
	char d[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &f->dst, d, sizeof(d));
	rl_info("agent: %s:%s: service flow to %s from UDP port %u ended (%llu packets)",
		a->c.inv->hosts[a->c.host].name, a->rn[f->src_rnic].r->name, d, f->sport,
		(unsigned long long)f->pkts);
	flow_rec(a, &copy, true, rl_now_ns());
	a->svc_dirty = true;
}

/* What RNIC s's packet socket has: its service packets counted, new flows probed. */
static void svc_read(struct agent *a, size_t s, unsigned long long now)
{
	uint8_t buf[256];

	for (int k = 0; k < 256; k++) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(a->rn[s].svc_fd, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &fl);
		struct rpm_svc_pkt p;
		bool is_new;
		struct rpm_flow *f;

		if (n < 0)
			return;
		if (from.sll_pkttype != PACKET_OUTGOING ||
		    rpm_svc_parse(buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf), &p) !=
			1 ||
		    p.src != a->rn[s].r->addr.addr.s_addr) {
			a->svc_other++;
			continue;
		}
		a->svc_seen++;
		f = rpm_svc_add(&a->svc, (uint8_t)s, &p, now, &is_new);
		if (f && is_new) {
			char d[INET_ADDRSTRLEN];
			size_t h, r;

			inet_ntop(AF_INET, &p.dst, d, sizeof(d));
			if (rnic_at(a, p.dst, &h, &r))
				rl_info("agent: %s:%s: service flow to %s:%s (%s) from UDP port "
					"%u, QP 0x%x: probed on its 5-tuple",
					a->c.inv->hosts[a->c.host].name, a->rn[s].r->name,
					a->c.inv->hosts[h].name, a->c.inv->hosts[h].rnics[r].name,
					d, p.sport, p.qpn);
			else
				rl_info("agent: %s:%s: service flow to %s, no RNIC of the "
					"inventory: not probed",
					a->c.inv->hosts[a->c.host].name, a->rn[s].r->name, d);
			a->svc_dirty = true;
		}
	}
}

/* Each second: what each live flow sent; flows gone idle end. */
static void svc_tick(struct agent *a, unsigned long long now)
{
	/* Idle is a second or more: a look every 100 ms, not at each wake-up. */
	if (now >= a->next_svc_expire) {
		a->next_svc_expire = now + 100 * NS_PER_MS;
		if (rpm_svc_expire(&a->svc, now, flow_ended, a))
			a->svc_dirty = true;
	}
	if (now >= a->next_flows) {
		a->next_flows = now + 1000 * NS_PER_MS;
		for (size_t i = 0; i < RPM_SVC_MAX; i++)
			if (a->svc.f[i].used)
				flow_rec(a, &a->svc.f[i], false, now);
	}
	if (a->svc_dirty)
		retarget(a, now);
}

/* A pinglist from the controller. */
static void got_list(void *ctx, struct rpm_ctl_got *g)
{
	struct agent *a = ctx;
	double rate = rate_of(a, g->t, g->n);

	if (rate > a->rate_max * 1.001) {
		rl_warn("agent: %s: the controller's pinglist %u asks %.0f probes/s, past the "
			"%.0f this agent sized its tables for (all other RNICs of the "
			"inventory): left out",
			a->c.inv->hosts[a->c.host].name, g->generation, rate, a->rate_max);
		a->ctl.malformed++;
		return;
	}
	rl_dbg("agent: pinglist generation %u from the controller", g->generation);
	free(a->pl_t);
	free(a->pl_q);
	a->pl_t = g->t, a->pl_q = g->qpn, a->pl_n = g->n;
	g->t = NULL, g->qpn = NULL, g->n = 0;
	retarget(a, rl_now_ns());
	a->c.trace_idle_until = 0;
}

/*
 * The pinglist computed here from the inventory (no controller), or, with
 * one, only the bound on what it can hand out (every other RNIC), for the
 * tables' size.
 */
static int load_targets(struct agent *a)
{
	struct rpm_pl_cfg c = a->cfg->pl;
	struct rpm_pinglist pl;
	int r;

	if (a->cfg->a.controller)
		c.inter_tor_per_tor = 0, c.same_host = true, c.live = NULL;
	r = rpm_pinglist(a->c.inv, a->c.host, &c, &pl);
	if (r) {
		rl_err("agent: the pinglist of %s: %s", a->c.inv->hosts[a->c.host].name,
		       strerror(-r));
		return RL_EXIT_SETUP;
	}
	a->rate_max = rate_of(a, pl.t, pl.n);
	if (a->cfg->services) /* room for the probes of as many service flows as it follows */
		a->rate_max += RPM_SVC_MAX * a->cfg->service_rate;
	if (!a->cfg->a.controller) { /* the targets, once the ports are open (setup) */
		a->pl_t = pl.t, a->pl_n = pl.n;
		pl.t = NULL;
	}
	rpm_pinglist_free(&pl);
	return 0;
}

/* Owners of the descriptors in the epoll set and the poll: RNIC s is s itself. */
#define OWN_ICMP SIZE_MAX
#define OWN_OUT	 (SIZE_MAX - 1)
#define OWN_CTL	 (SIZE_MAX - 2)
#define OWN_SVC0 (SIZE_MAX - 16) /* RNIC s's packet socket: OWN_SVC0 - s */

/* Every socket that stays for the agent's life, in a->epfd. */
static int watch_sockets(struct agent *a)
{
	int r = agent_core_watch(&a->c, a->cfg->a.transport, port_of, a, OWN_ICMP, &a->epfd);

	for (size_t s = 0; s < a->c.n && !r; s++)
		if (a->rn[s].svc_fd >= 0) /* its packet socket (service tracing) */
			r = agent_watch(a->epfd, a->rn[s].svc_fd, OWN_SVC0 - s);
	return r;
}

static int setup(void *ctx, const struct inventory *inv, void *own)
{
	struct agent *a = ctx;
	struct rpm_agent_cfg *cfg = own;
	const struct inv_host *h;
	unsigned long long now = rl_now_ns();
	uint8_t hello[HELLO_LEN];
	char err[256];
	int r;

	a->cfg = cfg;
	dh_init(&a->th, th_key, a);
	dh_init(&a->ath, ath_key, a);
	a->ctl.fd = a->epfd = -1; /* before any way out: teardown closes what is not -1 */
	a->cw[0].fd = a->cw[1].fd = -1;
	r = agent_core_setup(&a->c, inv, &cfg->a, RPM_DEFAULT_PORT, 1, 255,
			     "an agent serves 1 to 255");
	if (r)
		return r;
	h = a->c.h;
	r = load_targets(a);
	if (r)
		return r;
	a->rn = rl_xcalloc(a->c.n, sizeof(*a->rn));
	a->at = rl_xcalloc(ACK_TUPLES, sizeof(*a->at));
	r = open_ports(a, h);
	if (r)
		return r;
	retarget(a, now); /* the pinglist computed here (with a controller: none yet) */
	if (cfg->a.controller) {
		uint32_t qpn[RPM_CTL_RNICS];

		for (size_t i = 0; i < a->c.n; i++)
			qpn[i] = cfg->a.transport->qpn(a->rn[i].port);
		if (rpm_ctlc_open(&a->ctl, inv, a->c.host, cfg->a.controller,
				  (uint64_t)a->c.nonce << 32 | (uint32_t)getpid(), qpn, err,
				  sizeof(err))) {
			rl_err("agent: %s", err);
			return RL_EXIT_USAGE;
		}
	}
	hello_frame(a, hello);
	if ((r = agent_core_open(&a->c, hello, sizeof(hello), now)))
		return r;
	if ((r = watch_sockets(a))) {
		rl_err("agent: epoll: %s", strerror(-r));
		return RL_EXIT_SETUP;
	}
	recout_linger(&a->c.out, RECORD_LINGER_MS);
	/* Said first, before any probe: from now on this host answers (the analyzer's
	 * first_seen; its ports are open). */
	emit_stats(a);
	rl_info("agent: %s: R-Pingmesh probing %zu targets from %zu RNICs (ToR-mesh %.3g/s, "
		"inter-ToR %.3g/s a target; timeout %lld ms; %s)",
		h->name, a->n_tg, a->c.n, cfg->tor_mesh_rate, cfg->inter_tor_rate,
		cfg->a.timeout_ms, a->c.how);
	return 0;
}

static void teardown(void *ctx)
{
	struct agent *a = ctx;

	for (size_t i = 0; a->rn && i < a->c.n; i++) {
		if (a->rn[i].port)
			a->cfg->a.transport->close(a->rn[i].port);
		if (a->rn[i].tracer)
			pt_udp_ops.close(a->rn[i].tracer);
		if (a->rn[i].svc_fd > 0)
			close(a->rn[i].svc_fd);
		rpm_pend_free(a->rn[i].pend);
		free(a->rn[i].ex);
	}
	free(a->rn);
	for (size_t i = 0; a->tg && i < a->n_tg; i++)
		free(a->tg[i].traced);
	free(a->tg);
	free(a->due);
	dh_free(&a->th);
	dh_free(&a->ath);
	free(a->pl_t);
	free(a->pl_q);
	free(a->at);
	rpm_ctlc_close(&a->ctl);
	agent_core_teardown(&a->c);
	if (a->epfd >= 0)
		close(a->epfd);
}

/*
 * A target due within this much of now goes with those due now, early by no
 * more than its own jitter (a tenth of its period) allows: one wake-up sends
 * several probes, where each had its own (a wake-up, two context switches,
 * cost more than a probe's send on the 2-core machine of make bench).
 */
#define SEND_BATCH_NS (20 * NS_PER_MS)
static unsigned long long early_ok(const struct target *t)
{
	return t->period / 10 < SEND_BATCH_NS ? t->period / 10 : SEND_BATCH_NS;
}

/*
 * Send what is due; returns when the next probe is due (monotonic ns).  The
 * heap's top is the earliest: a wake-up looks at the targets it sends to only
 * (a scan of every target at each probe cost more than the probe, with
 * hundreds of targets an RNIC).
 */
static unsigned long long send_due(struct agent *a, unsigned long long now)
{
	uint64_t sent = 0;

	while (a->n_tg && now + early_ok(&a->tg[a->due[0]]) >= a->tg[a->due[0]].next) {
		struct target *t = &a->tg[a->due[0]];
		long long jit = (long long)t->period / 10;

		send_probe(a, t, now > t->next ? now - t->next : 0);
		sent |= 1ULL << (t->t.src_rnic % 64);
		t->next += (unsigned long long)((long long)t->period - jit +
						(jit ? random() % (2 * jit + 1) : 0));
		if (t->next < now)
			t->next = now + t->period;
		heap_down(a, 0);
	}
	/* Their send completions now: no separate wake-up for them. */
	for (size_t s = 0; s < a->c.n; s++)
		if (sent & 1ULL << (s % 64)) {
			struct rx_ctx c = {a, s};

			a->cfg->a.transport->poll_tx(a->rn[s].port, &tx_events, &c);
		}
	return a->n_tg ? a->tg[a->due[0]].next : ULLONG_MAX;
}

/* Waits for the epoll set until next (monotonic ns) at the latest, then serves what woke. */
static int poll_once(struct agent *a, unsigned long long now, unsigned long long next)
{
	struct epoll_event ev[MAX_FDS + 2];
	struct pollfd p;
	int n, wait_ms;

	agent_watch_conn(a->epfd, &a->cw[0], OWN_OUT, recout_pollfd(&a->c.out, &p) ? &p : NULL,
			 a->c.out.conns);
	agent_watch_conn(a->epfd, &a->cw[1], OWN_CTL, rpm_ctlc_pollfd(&a->ctl, &p) ? &p : NULL,
			 a->ctl.fds);
	wait_ms = next > now ? (int)((next - now + NS_PER_MS - 1) / NS_PER_MS) : 0;
	n = epoll_wait(a->epfd, ev, MAX_FDS + 2, wait_ms);
	/* An RNIC's sockets (two with udp): its arrivals and completions, or completions alone. */
	for (int i = 0; i < n; i++) {
		size_t o = (size_t)ev[i].data.u64;

		if (o < a->c.n)
			a->rn[o].woke |= ev[i].events & EPOLLIN ? WOKE_RX : WOKE_TX;
	}
	now = rl_now_ns();
	for (int i = 0; i < n; i++) {
		size_t o = (size_t)ev[i].data.u64;
		short rev = agent_poll_revents(ev[i].events);

		if (o == OWN_ICMP)
			tracer_icmp(&a->c.tr);
		else if (o == OWN_OUT)
			recout_event(&a->c.out, rev);
		else if (o == OWN_CTL)
			rpm_ctlc_event(&a->ctl, rev, now, got_list, a);
		else if (o >= OWN_SVC0 - a->c.n && o <= OWN_SVC0)
			svc_read(a, OWN_SVC0 - o, now);
		else if (o < a->c.n && a->rn[o].woke) {
			/* A send timestamp that came late (a qdisc held the packet) before the
			 * arrivals: poll() reads the error queue only after a send. */
			if (a->rn[o].woke == (WOKE_RX | WOKE_TX))
				a->cfg->a.transport->poll_tx(a->rn[o].port, &tx_events,
							     &(struct rx_ctx){a, o});
			port_poll(a, o, a->rn[o].woke & WOKE_RX);
			a->rn[o].woke = 0;
		}
	}
	return 0;
}

/* Probes and ACK2s due at now, then the expiry of those unanswered (each 50 ms). */
static unsigned long long tick(void *ctx, unsigned long long now, unsigned long long next)
{
	struct agent *a = ctx;
	unsigned long long due = send_due(a, now);

	if (due < next)
		next = due;
	if (now >= a->next_expire) {
		expire(a);
		a->next_expire = now + 50 * NS_PER_MS;
	}
	for (size_t s = 0; s < a->c.n; s++)
		send_ack2s(a, s, false);
	return next;
}

/* The controller's connection and the services seen, after the record stream. */
static unsigned long long service(void *ctx, unsigned long long now, unsigned long long next)
{
	struct agent *a = ctx;

	if (a->cfg->a.controller)
		rpm_ctlc_service(&a->ctl, now);
	if (a->cfg->services)
		svc_tick(a, now);
	return next;
}

static void wait_once(void *ctx, unsigned long long now, unsigned long long next)
{
	struct agent *a = ctx;

	if ((a->c.out.connected || a->c.out.outfd >= 0) && recout_due(&a->c.out) > now &&
	    recout_due(&a->c.out) < next)
		next = recout_due(&a->c.out); /* past due and still waiting: POLLOUT wakes */
	if (next > now + ACK_T4_WAIT && a->n_acks)
		next = now + ACK_T4_WAIT; /* an ACK2 may have to go without its T4 */
	poll_once(a, now, next);
}

/* Last words: ACK2s still owed go out; probes in flight are not judged. */
static void last(void *ctx)
{
	struct agent *a = ctx;

	for (size_t s = 0; s < a->c.n; s++)
		send_ack2s(a, s, true);
}

static void summary(const void *ctx, char *buf, size_t len)
{
	snprintf(buf, len, ", %llu ACKs sent", ((const struct agent *)ctx)->acks_sent);
}

const struct agent_loop rpm_agent_loop = {.setup = setup,
					  .agent_size = sizeof(struct agent),
					  .teardown = teardown,
					  .tick = tick,
					  .trace_done = finish_trace,
					  .trace_next = trace_next,
					  .rotate = rotate,
					  .stats = emit_stats,
					  .service = service,
					  .wait = wait_once,
					  .last = last,
					  .summary = summary};
