// SPDX-License-Identifier: MIT
/*
 * Eunomia's spraying workload on an RNIC: many finite connections sprayed
 * over the VPs, and a receiver NIC of any ordering kind (spray_ep.h).
 */
#define _GNU_SOURCE
#include "transport/spray_ep.h"

#include "harness/lib/common.h"
#include "transport/ep_core.h"
#include "transport/ordering/ordrx.h"
#include "transport/ordering/spray.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VP_LO EP_VP_LO

/* The VPs of p's vp-set into vps (all of vps when none); how many, or -EINVAL with err. */
static int vp_set_parse(const struct ep_params *p, uint16_t *vps, char *err, size_t errlen)
{
	const char *c = p->vp_set;
	int n = 0;

	if (!*c) {
		for (unsigned i = 0; i < p->vps && i < SPR_VPS_MAX; i++)
			vps[n++] = (uint16_t)(VP_LO + i);
		return n;
	}
	while (*c) {
		char *end;
		unsigned long v = strtoul(c, &end, 10);

		if (end == c || (*end && *end != ',') || v < VP_LO || v >= VP_LO + p->vps) {
			snprintf(
			    err, errlen,
			    "vp-set '%s': give source ports %u to %u (the VPs), comma-separated",
			    p->vp_set, VP_LO, VP_LO + p->vps - 1);
			return -EINVAL;
		}
		for (int k = 0; k < n; k++)
			if (vps[k] == v) {
				snprintf(err, errlen, "vp-set '%s': %lu twice", p->vp_set, v);
				return -EINVAL;
			}
		if (n == SPR_VPS_MAX) {
			snprintf(err, errlen, "vp-set '%s': at most %u VPs", p->vp_set,
				 SPR_VPS_MAX);
			return -EINVAL;
		}
		vps[n++] = (uint16_t)v;
		c = *end ? end + 1 : end;
	}
	return n;
}

static enum ord_kind kind_of(const struct ep_params *p)
{
	if (!strcmp(p->receiver, "eunomia"))
		return ORD_EUNOMIA;
	if (!strcmp(p->receiver, "gbn"))
		return ORD_GBN;
	return p->bitmap == 64 ? ORD_STATIC64 : ORD_STATIC256;
}

/* Can the odd QPs take a receiver of kind p->versus beside the even QPs' kind? */
static bool versus_bad(const struct ep_params *p)
{
	int k = ord_kind_parse(p->versus);

	return k < 0 || k == ORD_GBN || kind_of(p) == ORD_GBN || k == (int)kind_of(p) ||
	       p->conns < 2;
}

int spray_check(const struct ep_params *p, char *err, size_t errlen)
{
	if (p->single_path)
		snprintf(err, errlen,
			 "workload spray sprays each connection over the VPs: leave "
			 "single-path off");
	else if (strcmp(p->spray, "round-robin") && strcmp(p->spray, "random") &&
		 strcmp(p->spray, "ecmp"))
		snprintf(err, errlen, "spray '%s': give round-robin, random or ecmp", p->spray);
	else if (!strcmp(p->receiver, "bitmap") && p->bitmap != 64 && p->bitmap != 256)
		snprintf(
		    err, errlen,
		    "receiver bitmap with workload spray is a static bitmap a connection: give "
		    "bitmap 256 (41 B, the Eunomia paper's baseline) or 64 (MP-RDMA's)");
	else if (p->vps > SPR_VPS_MAX && !p->vp_set[0])
		snprintf(err, errlen,
			 "workload spray sprays over at most %u VPs: give vps <= %u, or a vp-set",
			 SPR_VPS_MAX, SPR_VPS_MAX);
	else if (p->size_min_kb > p->size_max_kb)
		snprintf(err, errlen, "size-min %u KB is more than size-max %u KB", p->size_min_kb,
			 p->size_max_kb);
	else if (p->ack_delay_us)
		snprintf(err, errlen,
			 "ack-delay holds the stream's ACKs; the spraying workload "
			 "answers at once: leave it 0");
	else if (p->versus[0] && p->load_mbit > 0)
		snprintf(err, errlen,
			 "versus pairs QPs 2k and 2k + 1 on the same connection sizes, each "
			 "replaced as it completes: give load 0 (an offered load draws sizes as "
			 "connections arrive)");
	else if (p->versus[0] && versus_bad(p))
		snprintf(err, errlen,
			 "versus '%s': give eunomia, static256 or static64, a kind other than the "
			 "receiver's (%s, not gbn: its sender goes back N on every QP), and at "
			 "least 2 conns",
			 p->versus, ord_kind_name(kind_of(p)));
	else if (p->snd_qpn < p->rcv_qpn + p->conns && p->rcv_qpn < p->snd_qpn + p->conns)
		snprintf(
		    err, errlen,
		    "sender-qpn 0x%x and receiver-qpn 0x%x: %u connections take a QP each from "
		    "both, and those overlap: give QPNs at least %u apart",
		    p->snd_qpn, p->rcv_qpn, p->conns, p->conns);
	else if (p->snd_qpn + p->conns > 0x1000000 || p->rcv_qpn + p->conns > 0x1000000)
		snprintf(err, errlen, "%u connections from QPN 0x%x pass the 24-bit QPN space",
			 p->conns, p->snd_qpn > p->rcv_qpn ? p->snd_qpn : p->rcv_qpn);
	else {
		uint16_t vps[SPR_VPS_MAX];

		return vp_set_parse(p, vps, err, errlen) < 0 ? -EINVAL : 0;
	}
	return -EINVAL;
}

/* ---- sender ----------------------------------------------------------------------------- */

struct svp {
	unsigned long long sent, retx, acks, ece, nacks;
	/* copies sent on it never answered, a copy sent later was (presumed lost) */
	unsigned long long resent;
	unsigned long long unlost; /* of those, answered after all */
	unsigned long long late;   /* copies answered only after a copy sent later was */
	long long b_resent;	   /* resent - unlost at the last line */
	unsigned long long b_sent, b_acks, b_late;
	uint64_t bin; /* the last line it sent in, + 1 */
};

struct spray_snd;

enum { ANS_NO, ANS_YES, ANS_PRESUMED_LOST };

struct sslot {
	struct spr_snd s;
	struct tw_timer t;
	struct spray_snd *e;
	unsigned idx;
	bool live;
	uint16_t gen;
	uint64_t start_ns;
	uint64_t moved_ns; /* when the cumulative ACK last moved (or the connection began) */
	/* per sequence: the VP its last copy went on, the one before, and whether one was answered
	 */
	uint16_t *vp_of, *prev_vp;
	uint8_t *answered;
	/* with a versus receiver: QPs 2k and 2k + 1 draw the same sizes, a paired comparison */
	uint64_t size_rng;
};

struct spray_snd {
	struct ep_core c;
	struct mpr_wire_ep wep;
	struct spr_cfg cfg;
	const struct ep_params *p;
	uint64_t rng;
	struct sslot *slot;
	struct svp *vp;
	unsigned vps_in_bin;
	uint16_t next_gen;
	struct spr_stats done, last; /* of the connections that ended; all at the last line */
	unsigned long long completed, last_completed, stale, bad;
	double fct_ms_bin;
	double *fct_ms; /* every completion's, for the end line's percentiles */
	size_t n_fct;
	/*
	 * An offered load (p->load_mbit): connections arrive as a Poisson
	 * process, each at the lowest idle QP, or waiting in arrival order for
	 * one; its FCT counts from its arrival.
	 */
	struct tw_timer t_arrive;
	double arrive_mean_ns;
	struct pending {
		uint64_t at;
		uint32_t n;
	} * backlog;
	size_t n_backlog, backlog_head, backlog_max;
	unsigned long long arrivals, offered_kb;
	unsigned idle;
	/* with a versus receiver: the even QPs' and the odd QPs' completions and FCTs summed */
	unsigned long long completed_half[2];
	double fct_ms_half[2];
	uint8_t payload[MPR_WIRE_PAYLOAD];
};

static void stats_add(struct spr_stats *a, const struct spr_stats *b)
{
	a->sent += b->sent, a->retx += b->retx, a->acks += b->acks, a->sacks += b->sacks;
	a->nacks += b->nacks, a->ece += b->ece, a->timeouts += b->timeouts;
	a->go_backs += b->go_backs;
}

/* A connection's size in KB (packets), log-uniform from size-min to size-max, drawn from rng. */
static uint32_t conn_size(struct spray_snd *e, uint64_t *rng)
{
	const struct ep_params *p = e->p;
	double lo = log((double)p->size_min_kb), hi = log((double)p->size_max_kb + 1);
	double u = (double)(mpr_rand(rng) >> 11) * 0x1.0p-53;
	uint32_t n = (uint32_t)exp(lo + (hi - lo) * u);

	return n < p->size_min_kb ? p->size_min_kb : n > p->size_max_kb ? p->size_max_kb : n;
}

/* conn_size()'s mean, exactly: P(n = k) = ln((k + 1) / k) / ln((max + 1) / min). */
double spray_mean_kb(unsigned size_min_kb, unsigned size_max_kb)
{
	double sum = 0;

	for (unsigned k = size_min_kb; k <= size_max_kb; k++)
		sum += (double)k * log1p(1.0 / k);
	return sum / log(((double)size_max_kb + 1) / size_min_kb);
}

/* A connection of n packets on slot sl from now, with a Head of its own; it arrived at t. */
static void slot_start(struct spray_snd *e, struct sslot *sl, uint32_t n, uint64_t t, uint64_t now)
{
	/* 30 bits: a connection never wraps the 32-bit sequence space */
	uint32_t head = (uint32_t)(mpr_rand(&e->rng) >> 34);

	spr_free(&sl->s);
	if (spr_init(&sl->s, &e->cfg, head, n, mpr_rand(&e->rng) | 1)) {
		sl->live = false; /* cannot happen: spray_check() passed the configuration */
		return;
	}
	sl->gen = e->next_gen++;
	sl->live = true;
	sl->start_ns = t;
	sl->moved_ns = now;
	memset(sl->answered, 0, n);
}

static void snd_queue(struct spray_snd *e, struct sslot *sl, const struct spr_pkt *o)
{
	uint32_t i = o->seq - sl->s.head;
	struct svp *v = &e->vp[o->vp - VP_LO];
	struct mpr_pkt pkt = {.psn = o->seq,
			      .msg_first = o->head,
			      .vp = o->vp,
			      .retx = o->retx,
			      .tail = o->last,
			      .tx_ns = o->tx_ns,
			      .conn = sl->gen};
	ssize_t len;

	sl->prev_vp[i] = o->retx ? sl->vp_of[i] : 0;
	sl->vp_of[i] = o->vp;
	e->wep.dst_qpn = e->p->rcv_qpn + sl->idx;
	mpr_wire_pattern(o->seq, e->payload, sizeof(e->payload));
	len = mpr_wire_data(e->c.q.buf[e->c.q.n], sizeof(e->c.q.buf[0]), &e->wep,
			    ep_fresh_ip_id(&e->rng), &pkt, e->payload, sizeof(e->payload));
	if (len < 0)
		return; /* cannot happen: the buffer holds a full packet */
	v->sent++;
	v->retx += o->retx;
	if (v->bin != e->c.bin + 1) {
		v->bin = e->c.bin + 1;
		e->vps_in_bin++;
	}
	ep_txq_push(&e->c.q, (size_t)len, e->wep.dst);
}

/* What the slot's window lets out now, and its timer. */
static void slot_send(struct spray_snd *e, struct sslot *sl, uint64_t now)
{
	struct spr_pkt out[DP_BATCH];
	unsigned k;
	uint64_t d;

	if (!sl->live)
		return;
	do {
		k = spr_pull(&sl->s, now, out, DP_BATCH);
		for (unsigned i = 0; i < k; i++)
			snd_queue(e, sl, &out[i]);
	} while (k == DP_BATCH);
	d = spr_deadline(&sl->s);
	if (d == SPR_NEVER)
		tw_cancel(&e->c.loop.tw, &sl->t);
	else if (!tw_armed(&sl->t) || sl->t.at != d)
		tw_arm(&e->c.loop.tw, &sl->t, d);
}

/*
 * The slot's connection is acknowledged in full: its figures kept, and the
 * next one started on it (backlogged), the longest waiting (an offered
 * load), or the QP left idle.
 */
static void slot_done(struct spray_snd *e, struct sslot *sl, uint64_t now)
{
	double ms = (double)(now - sl->start_ns) / 1e6;

	stats_add(&e->done, &sl->s.st);
	e->completed++;
	e->completed_half[sl->idx & 1]++;
	e->fct_ms_half[sl->idx & 1] += ms;
	e->fct_ms_bin += ms;
	*RL_PUSH(e->fct_ms, e->n_fct) = ms;
	if (e->p->load_mbit <= 0) {
		slot_start(e, sl, conn_size(e, e->p->versus[0] ? &sl->size_rng : &e->rng), now,
			   now);
	} else if (e->n_backlog > e->backlog_head) {
		struct pending w = e->backlog[e->backlog_head++];

		slot_start(e, sl, w.n, w.at, now);
	} else {
		spr_free(&sl->s);
		sl->live = false;
		tw_cancel(&e->c.loop.tw, &sl->t);
		e->idle++;
		return;
	}
	slot_send(e, sl, now);
}

/* A connection arrives (an offered load): on the lowest idle QP, or it waits. */
static void snd_on_arrival(void *ctx, uint64_t now)
{
	struct spray_snd *e = ctx;
	uint32_t n = conn_size(e, &e->rng);
	uint64_t gap = mpr_rand_gap(&e->rng, e->arrive_mean_ns);

	e->arrivals++;
	e->offered_kb += n;
	for (unsigned i = 0; i < e->p->conns && e->idle; i++) {
		struct sslot *sl = &e->slot[i];

		if (sl->live)
			continue;
		e->idle--;
		slot_start(e, sl, n, now, now);
		slot_send(e, sl, now);
		ep_txq_flush(&e->c.q);
		n = 0;
		break;
	}
	if (n) {
		/* the queue's taken front is reused once it is empty */
		if (e->backlog_head == e->n_backlog)
			e->backlog_head = e->n_backlog = 0;
		*RL_PUSH(e->backlog, e->n_backlog) = (struct pending){.at = now, .n = n};
		if (e->n_backlog - e->backlog_head > e->backlog_max)
			e->backlog_max = e->n_backlog - e->backlog_head;
	}
	tw_arm(&e->c.loop.tw, &e->t_arrive, now + gap);
}

static void slot_on_timer(void *ctx, uint64_t now)
{
	struct sslot *sl = ctx;

	if (!sl->live)
		return;
	spr_timer(&sl->s, now);
	slot_send(sl->e, sl, now);
	ep_txq_flush(&sl->e->c.q);
}

/* One ACK, SACK or NACK for slot sl. */
static void snd_reply(struct spray_snd *e, struct sslot *sl, const struct mpr_ack *a, uint64_t now)
{
	struct svp *v = &e->vp[a->vp - VP_LO];
	struct spr_reply r = {
	    .ack = a->aack, .seq = a->sack, .ece = a->ece, .retx = a->retx, .tx_ns = a->tx_ns};

	r.reply = a->nack ? EU_NACK : a->sack >= a->aack ? EU_SACK : EU_ACK;
	v->acks++;
	v->ece += a->ece;
	v->nacks += a->nack;
	uint32_t i = a->sack - sl->s.head, una = sl->s.una;
	struct svp *prev = sl->prev_vp[i] >= VP_LO ? &e->vp[sl->prev_vp[i] - VP_LO] : NULL;

	/*
	 * Which path failed a copy sent again: the first answer for a sequence
	 * came for its later copy, so the copy before it (on prev) is presumed
	 * lost; when that one is answered after all, it was late instead: the
	 * path is slow, not lossy.  A NACK answers a drop at the receiver, not
	 * in the network: it says nothing of the path.
	 */
	if (!a->nack && !sl->answered[i]) {
		sl->answered[i] = a->retx && prev ? ANS_PRESUMED_LOST : ANS_YES;
		if (sl->answered[i] == ANS_PRESUMED_LOST)
			prev->resent++;
	} else if (!a->nack && !a->retx && sl->answered[i] == ANS_PRESUMED_LOST && prev) {
		sl->answered[i] = ANS_YES;
		prev->unlost++;
		prev->late++;
	}
	spr_reply(&sl->s, &r, now);
	if (sl->s.una != una)
		sl->moved_ns = now;
	if (spr_done(&sl->s))
		slot_done(e, sl, now);
	else
		slot_send(e, sl, now);
}

static void snd_ack(void *ctx, const struct dp_rx *rx, uint64_t now)
{
	struct spray_snd *e = ctx;
	struct roce_ip ip;
	struct mpr_ack a;
	uint32_t qpn;
	struct sslot *sl;

	if (mpr_wire_parse_ack(rx->pkt, rx->len, &ip, &qpn, &a) ||
	    ip.src.s_addr != e->wep.dst.s_addr || a.vp < VP_LO || a.vp >= VP_LO + e->p->vps ||
	    qpn - e->p->snd_qpn >= e->p->conns) {
		e->bad++;
		return;
	}
	sl = &e->slot[qpn - e->p->snd_qpn];
	if (!sl->live || a.sack < sl->s.head || a.sack - sl->s.head >= sl->s.n ||
	    a.aack < sl->s.head || a.aack - sl->s.head > sl->s.n) {
		e->stale++; /* a reply to the slot's previous connection */
		return;
	}
	snd_reply(e, sl, &a, now);
}

static void snd_on_rx(void *ctx, uint64_t now)
{
	ep_core_drain(&((struct spray_snd *)ctx)->c, snd_ack, ctx, now, NULL);
}

/* Every connection's figures so far: the ended ones and the live ones. */
static struct spr_stats snd_totals(const struct spray_snd *e)
{
	struct spr_stats t = e->done;

	for (unsigned i = 0; i < e->p->conns; i++)
		if (e->slot[i].live)
			stats_add(&t, &e->slot[i].s.st);
	return t;
}

#define D(f) (json_int_t)(st.f - e->last.f)

static void snd_on_bin(void *ctx, uint64_t now)
{
	struct spray_snd *e = ctx;
	struct spr_stats st = snd_totals(e);
	json_t *per_vp = json_array();
	double srtt = 0, cwnd = 0;
	unsigned long long inflight = 0, done = e->completed - e->last_completed;
	unsigned live = 0;
	struct dp_stats dp;
	json_t *o;

	for (unsigned i = 0; i < e->p->vps; i++) {
		struct svp *v = &e->vp[i];
		long long resent = (long long)(v->resent - v->unlost);

		/*
		 * [vp, sends, acks, lost, late], as MP-RDMA's sender writes [vp, sends,
		 * acks, resent, prunes]: copies presumed lost (a later copy answered
		 * first; negative when an earlier interval's turned up late) and copies
		 * answered only after a later one, the spraying sender's evidence of a
		 * lossy path and of a slow one
		 */
		if (v->sent != v->b_sent || v->acks != v->b_acks || resent != v->b_resent ||
		    v->late != v->b_late)
			json_array_append_new(per_vp, json_pack("[i,I,I,I,I]", (int)(VP_LO + i),
								(json_int_t)(v->sent - v->b_sent),
								(json_int_t)(v->acks - v->b_acks),
								(json_int_t)(resent - v->b_resent),
								(json_int_t)(v->late - v->b_late)));
		v->b_sent = v->sent, v->b_acks = v->acks, v->b_resent = resent;
		v->b_late = v->late;
	}
	for (unsigned i = 0; i < e->p->conns; i++) {
		const struct sslot *sl = &e->slot[i];

		if (!sl->live)
			continue;
		live++;
		srtt += (double)sl->s.srtt / 1e3;
		cwnd += sl->s.cwnd;
		inflight += sl->s.inflight;
	}
	e->c.q.dp->stats(e->c.q.port, &dp);
	o = json_pack(
	    "{s:s,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:i,s:f,s:f,s:I,s:I,s:I,s:o,"
	    "s:o}",
	    "type", "snd", "t", (double)rl_realtime_ns() / 1e9, "sent", D(sent), "retx", D(retx),
	    "acks", D(acks), "sacks", D(sacks), "nacks", D(nacks), "ece_acks", D(ece), "rtos",
	    D(timeouts), "go_backs", D(go_backs), "completed", (json_int_t)done, "fct_ms",
	    done ? json_real(e->fct_ms_bin / (double)done) : json_null(), "vps_used",
	    (int)e->vps_in_bin, "srtt_us", live ? srtt / live : 0.0, "cwnd",
	    live ? cwnd / live : 0.0, "inflight", (json_int_t)inflight, "stale",
	    (json_int_t)e->stale, "tx_full", (json_int_t)dp.tx_full, "vp_sent", per_vp, "vp_lost",
	    json_array());
	if (e->p->load_mbit > 0)
		/* an offered load: connections waiting for a QP, QPs idle */
		json_object_update_new(o, json_pack("{s:I,s:i}", "backlog",
						    (json_int_t)(e->n_backlog - e->backlog_head),
						    "idle", (int)e->idle));
	ep_emit_bin(&e->c, o);
	e->last = st;
	e->last_completed = e->completed;
	e->fct_ms_bin = 0;
	e->vps_in_bin = 0;
	ep_core_next_bin(&e->c);
	(void)now;
}

#undef D

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of the sorted v[n] (0 when empty). */
static double quantile(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n);

	return n ? v[i < n ? i : n - 1] : 0;
}

#define STALLED_NS 1000000000ULL /* a live connection whose cumulative ACK stood this long */

static void snd_end(struct spray_snd *e, double secs)
{
	struct spr_stats st = snd_totals(e);
	json_t *vps = json_array();
	struct dp_stats dp;
	double sum = 0;
	unsigned stalled = 0, live = 0;
	uint64_t now = tloop_now();
	json_t *o;

	for (unsigned i = 0; i < e->p->conns; i++) {
		live += e->slot[i].live;
		stalled += e->slot[i].live && now - e->slot[i].moved_ns > STALLED_NS;
	}
	e->c.q.dp->stats(e->c.q.port, &dp);
	qsort(e->fct_ms, e->n_fct, sizeof(*e->fct_ms), cmp_double);
	for (size_t i = 0; i < e->n_fct; i++)
		sum += e->fct_ms[i];
	for (unsigned i = 0; i < e->p->vps; i++) {
		const struct svp *v = &e->vp[i];

		if (v->sent || v->acks)
			json_array_append_new(
			    vps,
			    json_pack("{s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "vp",
				      (int)(VP_LO + i), "sent", (json_int_t)v->sent, "retx",
				      (json_int_t)v->retx, "acks", (json_int_t)v->acks, "ece",
				      (json_int_t)v->ece, "resent", (json_int_t)v->resent, "nacks",
				      (json_int_t)v->nacks, "late", (json_int_t)v->late, "lost",
				      (json_int_t)(v->resent - v->unlost)));
	}
	o = json_pack(
	    "{s:s,s:f,s:f,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:f,s:f,s:f,s:I,"
	    "s:I,s:I,s:I,s:I,s:I,s:o}",
	    "type", "snd-end", "t", (double)rl_realtime_ns() / 1e9, "seconds", secs, "workload",
	    "spray", "sent", (json_int_t)st.sent, "retx", (json_int_t)st.retx, "acks",
	    (json_int_t)st.acks, "sacks", (json_int_t)st.sacks, "nacks", (json_int_t)st.nacks,
	    "rtos", (json_int_t)st.timeouts, "go_backs", (json_int_t)st.go_backs, "completed",
	    (json_int_t)e->completed, "live", (json_int_t)live, "stalled", (json_int_t)stalled,
	    "fct_ms_mean", e->n_fct ? sum / (double)e->n_fct : 0.0, "fct_ms_p50",
	    quantile(e->fct_ms, e->n_fct, 0.5), "fct_ms_p99", quantile(e->fct_ms, e->n_fct, 0.99),
	    "fct_ms_max", e->n_fct ? e->fct_ms[e->n_fct - 1] : 0.0, "stale", (json_int_t)e->stale,
	    "tx_full", (json_int_t)dp.tx_full, "unroutable", (json_int_t)dp.tx_unroutable,
	    "rx_overflow", (json_int_t)dp.rx_overflow, "foreign", (json_int_t)e->bad, "wakeups",
	    (json_int_t)e->c.loop.wakeups, "per_vp", vps);
	if (e->p->load_mbit > 0)
		/* what arrived, as payload over the run; still waiting at the end, and at most */
		json_object_update_new(
		    o,
		    json_pack("{s:f,s:f,s:I,s:I,s:I}", "load_mbit", e->p->load_mbit, "offered_mbit",
			      secs > 0 ? (double)e->offered_kb * 1024 * 8 / secs / 1e6 : 0.0,
			      "arrivals", (json_int_t)e->arrivals, "backlog",
			      (json_int_t)(e->n_backlog - e->backlog_head), "backlog_max",
			      (json_int_t)e->backlog_max));
	if (e->p->versus[0]) {
		/* the even QPs' connections (the receiver's kind), the odd ones' (the versus kind)
		 */
		const unsigned long long *c = e->completed_half;

		json_object_update_new(
		    o, json_pack("{s:I,s:f,s:I,s:f}", "completed_a", (json_int_t)c[0],
				 "fct_ms_mean_a", c[0] ? e->fct_ms_half[0] / (double)c[0] : 0.0,
				 "completed_b", (json_int_t)c[1], "fct_ms_mean_b",
				 c[1] ? e->fct_ms_half[1] / (double)c[1] : 0.0));
	}
	ep_emit_end(&e->c, o);
}

int spray_send(const struct inventory *inv, const char *from, const char *to,
	       const struct ep_params *p, const volatile sig_atomic_t *stop, FILE *out)
{
	const struct inv_rnic *me, *peer;
	struct spray_snd *e;
	char a1[INET_ADDRSTRLEN], a2[INET_ADDRSTRLEN];
	double secs;
	int r = RL_EXIT_SETUP;

	if (ep_find_rnic(inv, from, &me) || ep_find_rnic(inv, to, &peer))
		return RL_EXIT_USAGE;
	e = rl_xcalloc(1, sizeof(*e));
	e->p = p;
	e->c.out = out;
	e->rng = (uint64_t)p->seed * 0x9e3779b97f4a7c15ULL + 0x5eed;
	e->wep = (struct mpr_wire_ep){
	    .src = me->addr.addr, .dst = peer->addr.addr, .dscp = (uint8_t)p->dscp};
	spr_cfg_default(&e->cfg);
	e->cfg.n_vps = (unsigned)vp_set_parse(p, e->cfg.vps, NULL, 0); /* checked: spray_check() */
	e->cfg.random = !strcmp(p->spray, "random");
	e->cfg.ecmp = !strcmp(p->spray, "ecmp");
	e->cfg.gbn = kind_of(p) == ORD_GBN;
	e->cfg.iw = p->iw < e->cfg.cwnd_max ? p->iw : e->cfg.cwnd_max;
	e->cfg.rto_ns = (uint64_t)p->rto_min_us * 1000;
	e->vp = rl_xcalloc(p->vps, sizeof(*e->vp));
	e->slot = rl_xcalloc(p->conns, sizeof(*e->slot));
	for (unsigned i = 0; i < p->conns; i++) {
		struct sslot *sl = &e->slot[i];

		sl->e = e;
		sl->idx = i;
		sl->size_rng = (uint64_t)p->seed * 0xd1b54a32d192ed03ULL + i / 2 + 1;
		sl->vp_of = rl_xcalloc(p->size_max_kb, sizeof(*sl->vp_of));
		sl->prev_vp = rl_xcalloc(p->size_max_kb, sizeof(*sl->prev_vp));
		sl->answered = rl_xcalloc(p->size_max_kb, 1);
		tw_timer_init(&sl->t, slot_on_timer, sl);
	}
	if (ep_core_open(&e->c, me, p->snd_qpn, p->conns, p->interval_ms, p->duration_ms, snd_on_rx,
			 snd_on_bin, e))
		goto clean;
	inet_ntop(AF_INET, &me->addr.addr, a1, sizeof(a1));
	inet_ntop(AF_INET, &peer->addr.addr, a2, sizeof(a2));
	fprintf(stderr,
		"rocelab: transport send: %s (%s) -> %s (%s), spraying %s%u connections at once "
		"(%u-%u KB) %s over %u VPs%s%s%s, for a %s receiver\n",
		from, a1, to, a2, p->load_mbit > 0 ? "a Poisson load over " : "", p->conns,
		p->size_min_kb, p->size_max_kb, p->spray, e->cfg.n_vps, p->vp_set[0] ? " (" : "",
		p->vp_set, p->vp_set[0] ? ")" : "", ord_kind_name(kind_of(p)));
	if (p->load_mbit > 0) {
		/* payload bits a connection brings, over the offered bits a nanosecond */
		e->arrive_mean_ns = spray_mean_kb(p->size_min_kb, p->size_max_kb) * 1024 * 8 /
				    (p->load_mbit * 1e-3);
		e->idle = p->conns;
		tw_timer_init(&e->t_arrive, snd_on_arrival, e);
		snd_on_arrival(e, e->c.t0);
	} else {
		for (unsigned i = 0; i < p->conns; i++) {
			struct sslot *sl = &e->slot[i];

			slot_start(e, sl, conn_size(e, p->versus[0] ? &sl->size_rng : &e->rng),
				   e->c.t0, e->c.t0);
			slot_send(e, &e->slot[i], e->c.t0);
		}
	}
	ep_txq_flush(&e->c.q);
	secs = ep_core_run(&e->c, stop);
	snd_end(e, secs < 0 ? 0 : secs);
	r = secs < 0 ? RL_EXIT_SETUP : RL_EXIT_OK;
	ep_core_close(&e->c);
clean:
	for (unsigned i = 0; i < p->conns; i++) {
		spr_free(&e->slot[i].s);
		free(e->slot[i].vp_of);
		free(e->slot[i].prev_vp);
		free(e->slot[i].answered);
	}
	free(e->slot);
	free(e->vp);
	free(e->fct_ms);
	free(e->backlog);
	free(e);
	return r;
}

/* ---- receiver --------------------------------------------------------------------------- */

struct rslot {
	uint16_t gen;
	bool used, done;
	uint32_t head, app_next, end_ack;
	uint32_t high; /* the highest sequence that arrived, + 1 */
};

/* Per VP, this interval: the holes its packets filled, how late, and by retransmissions. */
struct rvp {
	unsigned long long fills, late_sum, retx_fills;
	uint32_t late_max;
};

struct rcv_count {
	unsigned long long data, delivered, completions, misordered, duplicated, pattern_bad, dups,
	    stale, ce, ce_wire, abandoned;
	unsigned long long acks, sacks, nacks, cap_drops, alloc_failures;
	unsigned long long delivered_b, nacks_b; /* the odd QPs' with a versus receiver */
};

struct spray_rcv {
	struct ep_core c;
	struct mpr_wire_ep wep;
	const struct ep_params *p;
	struct ord_rx *rx;
	struct ord_rx *rx_b; /* --versus: the odd QPs' receiver (NULL: rx answers every QP) */
	struct rslot *slot;
	enum ep_ecn ecn;
	struct ep_sojourn soj;
	uint64_t rt_off, rng;
	struct rcv_count n, last;
	unsigned long long bad, kernel_ts, from_app;
	struct mpr_ood reorder, reorder_bin; /* the run's (but the bin's), the interval's */
	uint32_t reorder_max_bin;
	struct rvp *vp;
	/* ordering memory: this interval's 1 ms samples summed, and their most; the run's most */
	struct tw_timer t_mem;
	struct ord_mem mem_sum, mem_high, run_high;
	struct ord_mem mem_sum_b; /* the versus receiver's, this interval */
	unsigned long long mem_n;
	double run_total_sum;
	unsigned long long run_n;
};

/* The receiver that answers QP idx: the versus kind for the odd QPs, when there is one. */
static struct ord_rx *rx_of(const struct spray_rcv *e, unsigned idx)
{
	return e->rx_b && idx & 1 ? e->rx_b : e->rx;
}

static void rcv_reply(struct spray_rcv *e, unsigned idx, const struct mpr_pkt *p,
		      const struct eu_result *res, struct in_addr to)
{
	struct mpr_ack a = {.vp = p->vp,
			    .sack = p->psn,
			    .aack = res->ack,
			    .nack = res->reply == EU_NACK,
			    .nack_psn = res->ack,
			    .ece = p->ce,
			    .retx = p->retx,
			    .tx_ns = p->tx_ns};
	ssize_t len;

	e->wep.dst = to;
	e->wep.dst_qpn = e->p->snd_qpn + idx;
	len = mpr_wire_ack(e->c.q.buf[e->c.q.n], sizeof(e->c.q.buf[0]), &e->wep,
			   ep_fresh_ip_id(&e->rng), &a);
	if (len > 0)
		ep_txq_push(&e->c.q, (size_t)len, to);
}

/* The arrival's place: its distance above the next in order, and the hole it may fill. */
static void rcv_arrival(struct spray_rcv *e, struct rslot *sl, const struct mpr_pkt *p)
{
	uint32_t next = sl->head + sl->app_next, d = p->psn - next;

	e->reorder_bin.hist[d < MPR_OOD_MAX ? d : MPR_OOD_MAX]++;
	e->reorder_bin.n++;
	if (d > e->reorder_max_bin)
		e->reorder_max_bin = d;
	if (p->psn == next && sl->high > p->psn + 1) {
		/* it filled the hole the ones behind it waited on: how late it came */
		struct rvp *v = &e->vp[p->vp - VP_LO];
		uint32_t late = sl->high - 1 - p->psn;

		v->fills++;
		v->late_sum += late;
		v->retx_fills += p->retx;
		if (late > v->late_max)
			v->late_max = late;
	}
	if (p->psn + 1 > sl->high)
		sl->high = p->psn + 1;
}

/* What the application got: exactly the next sequences, each once. */
static void rcv_deliver(struct spray_rcv *e, struct rslot *sl, const struct eu_result *res)
{
	uint32_t next = sl->head + sl->app_next;

	if (res->deliver_to > res->deliver_from) {
		if (res->deliver_from < next)
			e->n.duplicated += res->deliver_to - res->deliver_from;
		else if (res->deliver_from > next)
			e->n.misordered++;
		else
			sl->app_next = res->deliver_to - sl->head;
		e->n.delivered += res->deliver_to - res->deliver_from;
		if (rx_of(e, (unsigned)(sl - e->slot)) != e->rx)
			e->n.delivered_b += res->deliver_to - res->deliver_from;
	}
	if (res->completed) {
		e->n.completions++;
		sl->done = true;
		sl->end_ack = res->ack;
	}
}

static void rcv_data(void *ctx, const struct dp_rx *rx, uint64_t now)
{
	struct spray_rcv *e = ctx;
	struct roce_ip ip;
	struct mpr_pkt p;
	struct eu_result res;
	const uint8_t *pl;
	size_t plen;
	uint32_t qpn;
	unsigned idx;
	struct rslot *sl;
	bool ce_wire;

	(void)now;
	if (mpr_wire_parse_data(rx->pkt, rx->len, &ip, &qpn, &p, &pl, &plen) ||
	    qpn - e->p->rcv_qpn >= e->p->conns || p.vp < VP_LO || p.vp >= VP_LO + e->p->vps) {
		e->bad++;
		return;
	}
	idx = qpn - e->p->rcv_qpn;
	sl = &e->slot[idx];
	if (!sl->used || (int16_t)(p.conn - sl->gen) > 0) {
		/* the QP's next connection: the last one's state goes, complete or not */
		e->n.abandoned += sl->used && !sl->done;
		ord_rx_reset(rx_of(e, idx), idx);
		*sl = (struct rslot){.gen = p.conn, .used = true, .head = p.msg_first};
	} else if (p.conn != sl->gen || p.msg_first != sl->head) {
		e->n.stale++; /* a late copy of a connection before it */
		return;
	}
	e->kernel_ts += rx->kernel_ts;
	e->from_app += !rx->kernel_ts;
	e->n.data++;
	ce_wire = p.ce && e->ecn != EP_ECN_OFF;
	p.ce = ce_wire;
	if (e->ecn == EP_ECN_SOJOURN && ep_sojourn(&e->soj, rx->rx_ns - e->rt_off, p.tx_ns))
		p.ce = true;
	e->n.ce += p.ce;
	e->n.ce_wire += ce_wire;
	if (sl->done) {
		/* a copy after the completion: acknowledged, so its sender can finish */
		res = (struct eu_result){.reply = EU_ACK, .ack = sl->end_ack, .duplicate = true};
		e->n.dups++;
		rcv_reply(e, idx, &p, &res, ip.src);
		return;
	}
	if (ord_rx_data(rx_of(e, idx), idx, p.psn, p.msg_first, p.tail, &res)) {
		e->bad++;
		return;
	}
	e->n.dups += res.duplicate;
	if (!res.duplicate && p.psn >= sl->head + sl->app_next)
		rcv_arrival(e, sl, &p);
	if (!res.duplicate && (res.reply == EU_ACK || res.reply == EU_SACK) &&
	    !mpr_wire_pattern_ok(p.psn, pl, plen))
		e->n.pattern_bad++; /* placed in the application's memory: its bytes checked */
	rcv_deliver(e, sl, &res);
	if (res.reply != EU_DROP)
		rcv_reply(e, idx, &p, &res, ip.src);
}

static void rcv_on_rx(void *ctx, uint64_t now)
{
	struct spray_rcv *e = ctx;

	ep_core_drain(&e->c, rcv_data, e, now, &e->rt_off);
}

#define MEM_EVERY_NS 1000000ULL /* the paper's 1 ms samples (Fig. 18(c)) */

static void rcv_on_mem(void *ctx, uint64_t now)
{
	struct spray_rcv *e = ctx;
	struct ord_mem m, *s = &e->mem_sum, *h = &e->mem_high, *r = &e->run_high;

	if (e->rx_b) {
		ord_rx_mem(e->rx_b, &m);
		e->mem_sum_b.total += m.total, e->mem_sum_b.static_total += m.static_total;
	}
	ord_rx_mem(e->rx, &m);
	s->total += m.total, s->bitmap += m.bitmap;
	s->static_total += m.static_total, s->static_bitmap += m.static_bitmap;
#define HW(x, f) x->f = m.f > x->f ? m.f : x->f
	HW(h, total), HW(h, bitmap), HW(h, static_total), HW(r, total), HW(r, bitmap);
#undef HW
	e->mem_n++;
	e->run_total_sum += (double)m.total;
	e->run_n++;
	tw_arm(&e->c.loop.tw, &e->t_mem, now + MEM_EVERY_NS);
}

/* The interval's reorder distances, [[distance, arrivals], ...], into the run's. */
static json_t *reorder_take(struct spray_rcv *e)
{
	uint32_t top = e->reorder_max_bin < MPR_OOD_MAX ? e->reorder_max_bin : MPR_OOD_MAX;
	json_t *h = json_array();

	for (uint32_t v = 0; v <= top; v++)
		if (e->reorder_bin.hist[v]) {
			json_array_append_new(
			    h, json_pack("[i,i]", (int)v, (int)e->reorder_bin.hist[v]));
			e->reorder.hist[v] += e->reorder_bin.hist[v];
			e->reorder_bin.hist[v] = 0;
		}
	e->reorder.n += e->reorder_bin.n;
	e->reorder_bin.n = 0;
	e->reorder_max_bin = 0;
	return h;
}

static json_t *vp_late_take(struct spray_rcv *e)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < e->p->vps; i++) {
		struct rvp *v = &e->vp[i];

		if (v->fills)
			json_array_append_new(
			    a, json_pack("[i,I,I,i,I]", (int)(VP_LO + i), (json_int_t)v->fills,
					 (json_int_t)v->late_sum, (int)v->late_max,
					 (json_int_t)v->retx_fills));
		*v = (struct rvp){0};
	}
	return a;
}

/* The receiver's counters, with the NIC's. */
static struct rcv_count rcv_totals(const struct spray_rcv *e)
{
	struct rcv_count n = e->n;

	for (const struct ord_rx *rx = e->rx; rx; rx = rx == e->rx ? e->rx_b : NULL) {
		n.acks += rx->eu.acks, n.sacks += rx->eu.sacks, n.nacks += rx->eu.nacks;
		n.cap_drops += rx->eu.cap_drops, n.alloc_failures += rx->eu.alloc_failures;
	}
	n.nacks_b = e->rx_b ? e->rx_b->eu.nacks : 0;
	return n;
}

#define D(f) (json_int_t)(n.f - e->last.f)

static void rcv_on_bin(void *ctx, uint64_t now)
{
	struct spray_rcv *e = ctx;
	struct rcv_count n = rcv_totals(e);
	double k = e->mem_n ? (double)e->mem_n : 1;
	uint32_t reorder_max = e->reorder_max_bin;
	json_t *o, *hist = reorder_take(e);

	o = json_pack("{s:s,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
		      "type", "rcv", "t", (double)rl_realtime_ns() / 1e9, "data", D(data),
		      "delivered", D(delivered), "completions", D(completions), "misordered",
		      D(misordered), "duplicated", D(duplicated), "pattern_bad", D(pattern_bad),
		      "dups", D(dups), "stale", D(stale), "acks", D(acks), "sacks", D(sacks),
		      "nacks", D(nacks), "cap_drops", D(cap_drops), "alloc_failures",
		      D(alloc_failures), "ce", D(ce), "ce_wire", D(ce_wire), "live",
		      (json_int_t)(e->rx->live + (e->rx_b ? e->rx_b->live : 0)));
	json_object_update_new(
	    o,
	    json_pack("{s:f,s:I,s:f,s:I,s:f,s:f,s:f,s:I,s:i,s:o,s:o,s:f,s:I}", "mem_mean",
		      (double)e->mem_sum.total / k, "mem_high", (json_int_t)e->mem_high.total,
		      "bm_mean", (double)e->mem_sum.bitmap / k, "bm_high",
		      (json_int_t)e->mem_high.bitmap, "static_mean",
		      (double)e->mem_sum.static_total / k, "static_bm_mean",
		      (double)e->mem_sum.static_bitmap / k, "ord_bytes",
		      (double)e->mem_sum.total / k, "ord_bytes_max", (json_int_t)e->mem_high.total,
		      "reorder_max", (int)reorder_max, "ood_hist", hist, "vp_late", vp_late_take(e),
		      "queue_us_mean", e->soj.n ? e->soj.queue_us_sum / (double)e->soj.n : 0.0,
		      "queue_us_max", (json_int_t)e->soj.queue_us_max));
	if (e->rx_b)
		/* the odd QPs' receiver apart (the memory above is the even QPs' alone) */
		json_object_update_new(
		    o, json_pack("{s:I,s:I,s:f,s:f}", "delivered_b", D(delivered_b), "nacks_b",
				 D(nacks_b), "mem_mean_b", (double)e->mem_sum_b.total / k,
				 "static_mean_b", (double)e->mem_sum_b.static_total / k));
	ep_emit_bin(&e->c, o);
	e->last = n;
	e->mem_sum = e->mem_high = e->mem_sum_b = (struct ord_mem){0};
	e->mem_n = 0;
	e->soj.queue_us_sum = 0;
	e->soj.n = e->soj.queue_us_max = 0;
	ep_core_next_bin(&e->c);
	(void)now;
}

#undef D

static void rcv_end(struct spray_rcv *e, double secs)
{
	struct rcv_count n = rcv_totals(e);
	struct dp_stats dp;
	json_t *o;

	json_decref(reorder_take(e));
	e->c.q.dp->stats(e->c.q.port, &dp);
	o = json_pack(
	    "{s:s,s:f,s:f,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
	    "s:I,s:i,s:i,s:i,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:s}",
	    "type", "rcv-end", "t", (double)rl_realtime_ns() / 1e9, "seconds", secs, "workload",
	    "spray", "receiver", ord_kind_name(e->rx->kind), "data", (json_int_t)n.data,
	    "delivered", (json_int_t)n.delivered, "completions", (json_int_t)n.completions,
	    "misordered", (json_int_t)n.misordered, "duplicated", (json_int_t)n.duplicated,
	    "pattern_bad", (json_int_t)n.pattern_bad, "dups", (json_int_t)n.dups, "stale",
	    (json_int_t)n.stale, "abandoned", (json_int_t)n.abandoned, "acks", (json_int_t)n.acks,
	    "sacks", (json_int_t)n.sacks, "nacks", (json_int_t)n.nacks, "cap_drops",
	    (json_int_t)n.cap_drops, "alloc_failures", (json_int_t)n.alloc_failures, "ce",
	    (json_int_t)n.ce, "ood_p99", (int)mpr_ood_quantile(&e->reorder, 0.99), "ood_p999",
	    (int)mpr_ood_quantile(&e->reorder, 0.999), "ood_max",
	    (int)mpr_ood_quantile(&e->reorder, 1.0), "mem_mean",
	    e->run_n ? e->run_total_sum / (double)e->run_n : 0.0, "mem_high",
	    (json_int_t)e->run_high.total, "bm_high", (json_int_t)e->run_high.bitmap, "rx_overflow",
	    (json_int_t)dp.rx_overflow, "tx_full", (json_int_t)dp.tx_full, "unroutable",
	    (json_int_t)dp.tx_unroutable, "foreign", (json_int_t)e->bad, "timestamps",
	    e->from_app ? (e->kernel_ts ? "mixed" : "clock_gettime") : "kernel-software");
	if (e->rx_b)
		json_object_update_new(
		    o, json_pack("{s:s,s:I,s:I,s:I,s:I}", "versus", ord_kind_name(e->rx_b->kind),
				 "delivered_b", (json_int_t)n.delivered_b, "nacks_b",
				 (json_int_t)n.nacks_b, "sacks_b", (json_int_t)e->rx_b->eu.sacks,
				 "cap_drops_b", (json_int_t)e->rx_b->eu.cap_drops));
	ep_emit_end(&e->c, o);
}

int spray_recv(const struct inventory *inv, const char *at, const struct ep_params *p,
	       enum ep_ecn ecn, const volatile sig_atomic_t *stop, FILE *out)
{
	const struct inv_rnic *me;
	struct spray_rcv *e;
	double secs;
	int r = RL_EXIT_SETUP;

	if (ep_find_rnic(inv, at, &me))
		return RL_EXIT_USAGE;
	e = rl_xcalloc(1, sizeof(*e));
	e->p = p;
	e->c.out = out;
	e->ecn = ecn;
	e->soj.k_ns = (uint64_t)p->ecn_k_us * 1000;
	e->rng = (uint64_t)p->seed * 0xbf58476d1ce4e5b9ULL + 0xacc;
	e->wep = (struct mpr_wire_ep){.src = me->addr.addr, .dscp = (uint8_t)p->dscp};
	e->rx = ord_rx_new(kind_of(p), p->conns);
	if (p->versus[0])
		e->rx_b = ord_rx_new(ord_kind_parse(p->versus), p->conns);
	/* every QP the NIC keeps counts, idle or not: with a versus kind, the even ones here */
	if (e->rx)
		e->rx->qps = p->versus[0] ? (p->conns + 1) / 2 : p->conns;
	if (e->rx_b)
		e->rx_b->qps = p->conns / 2;
	e->slot = rl_xcalloc(p->conns, sizeof(*e->slot));
	e->vp = rl_xcalloc(p->vps, sizeof(*e->vp));
	if (!e->rx || (p->versus[0] && !e->rx_b)) {
		fprintf(stderr, "rocelab: transport recv: out of memory\n");
		goto clean;
	}
	tw_timer_init(&e->t_mem, rcv_on_mem, e);
	if (ep_core_open(&e->c, me, p->rcv_qpn, p->conns, p->interval_ms, p->duration_ms, rcv_on_rx,
			 rcv_on_bin, e))
		goto clean;
	tw_arm(&e->c.loop.tw, &e->t_mem, e->c.t0 + MEM_EVERY_NS);
	fprintf(stderr,
		"rocelab: transport recv: %s (%s), spraying workload, %u connections, a %s "
		"receiver%s%s%s, ECN %s%s\n",
		at, inet_ntoa(me->addr.addr), p->conns, ord_kind_name(e->rx->kind),
		e->rx_b ? " (even QPs) beside a " : "", e->rx_b ? ord_kind_name(e->rx_b->kind) : "",
		e->rx_b ? " one (odd QPs)" : "", p->ecn,
		ecn == EP_ECN_SOJOURN ? " (emulated from one-way delay)" : "");
	secs = ep_core_run(&e->c, stop);
	rcv_end(e, secs < 0 ? 0 : secs);
	r = secs < 0 ? RL_EXIT_SETUP : RL_EXIT_OK;
	ep_core_close(&e->c);
clean:
	ord_rx_free(e->rx);
	ord_rx_free(e->rx_b);
	free(e->slot);
	free(e->vp);
	free(e);
	return r;
}
