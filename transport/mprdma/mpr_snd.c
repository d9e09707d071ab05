// SPDX-License-Identifier: MIT
/* MP-RDMA's sender: one window clocked by the ACKs of every path (mprdma.h). */
#include "transport/mprdma/mprdma.h"

#include "transport/ordering/xorshift.h"

#include <errno.h>
#include <math.h>
#include <string.h>

void mpr_cfg_default(struct mpr_cfg *cfg)
{
	*cfg = (struct mpr_cfg){
	    .iw = 16,
	    .delta = 32,
	    .bitmap = 64,
	    .ooo_aware = true,
	    .probe_ppm = 10000,
	    .probe_mode = MPR_PROBE_PER_RTT,
	    .burst = 2,
	    .idle_rtts = 3,
	    .alpha_q16 = MPR_ONE,
	    .vp_lo = 49152,
	    .vp_hi = 65535,
	    .srtt_init_ns = 10000,
	    .rto_min_ns = 1000000,
	    .qp_timeout_ns = 4096ULL << 14,
	    .cwnd_max = MPR_SB / 2,
	    .msg_pkts = 64,
	    .notify_every = 1,
	    .sync_every = 0,
	    .scoreboard = true,
	};
}

void mpr_cfg_paper(struct mpr_cfg *cfg)
{
	cfg->scoreboard = false;
	cfg->credit = MPR_CREDIT_PAPER;
	cfg->probe_mode = MPR_PROBE_PER_RTT;
	cfg->nack = MPR_NACK_ONCE;
}

#define IRN_N 3 /* IRN's N: RTO_low with this many packets in flight or fewer */

void mpr_irn_default(struct mpr_cfg *cfg, unsigned bdp_pkts, uint64_t rto_high_ns)
{
	if (bdp_pkts < 1)
		bdp_pkts = 1;
	cfg->single_path = true;
	cfg->sp_recovery = MPR_SP_IRN;
	cfg->scoreboard = true;
	cfg->bitmap = bdp_pkts;
	cfg->cwnd_max = bdp_pkts;
	if (cfg->iw > bdp_pkts)
		cfg->iw = bdp_pkts;
	if (cfg->delta > bdp_pkts)
		cfg->delta = bdp_pkts; /* unused on one path; kept within the bitmap */
	cfg->irn_rto_high_ns = rto_high_ns;
	cfg->irn_rto_low_ns = rto_high_ns * 454 / 1350; /* conweave-ns3's IrnRtoLow/IrnRtoHigh */
}

void mpr_dcqcn_default(struct mpr_cfg *cfg, uint64_t line_bps, uint64_t rtt_ns)
{
	double t = (double)rtt_ns / 12000.0, r = (double)line_bps / 40e9;

	cfg->cc = MPR_CC_DCQCN;
	cfg->dcqcn = (struct mpr_dcqcn){
	    .line_bps = line_bps,
	    .min_bps = line_bps / 1000 ? line_bps / 1000 : 1,
	    .pkt_bytes = 1098,
	    .g_ppm = 1000000 / 256,
	    .alpha_ns = (uint64_t)(55000 * t),
	    .timer_ns = (uint64_t)(55000 * t),
	    .cnp_ns = (uint64_t)(50000 * t),
	    .f = 5,
	    .rai_bps = (uint64_t)(40e6 * r),
	    .rhai_bps = (uint64_t)(200e6 * r),
	};
}

/* names[v], or NULL past them */
static const char *name_of(const char *const *names, unsigned n, unsigned v)
{
	return v < n ? names[v] : NULL;
}

/* *v = the index of name in names, or -EINVAL */
static int parse_in(const char *const *names, unsigned n, const char *name, unsigned *v)
{
	for (unsigned i = 0; i < n; i++)
		if (names[i] && !strcmp(name, names[i])) {
			*v = i;
			return 0;
		}
	return -EINVAL;
}

/* mpr_<what>_name() and mpr_<what>_parse() over the table <what>_names of enum type T. */
#define NAMED(what, T)                                                                             \
	const char *mpr_##what##_name(T v)                                                         \
	{                                                                                          \
		return name_of(what##_names, sizeof(what##_names) / sizeof(what##_names[0]),       \
			       (unsigned)v);                                                       \
	}                                                                                          \
	int mpr_##what##_parse(const char *name, T *v)                                             \
	{                                                                                          \
		unsigned i;                                                                        \
		int r = parse_in(what##_names, sizeof(what##_names) / sizeof(what##_names[0]),     \
				 name, &i);                                                        \
		if (!r)                                                                            \
			*v = (T)i;                                                                 \
		return r;                                                                          \
	}

static const char *const credit_names[] = {
    [MPR_CREDIT_ONCE] = "once",
    [MPR_CREDIT_PER_REPLY] = "per-reply",
    [MPR_CREDIT_PAPER] = "paper",
};
NAMED(credit, enum mpr_credit)

static const char *const probe_mode_names[] = {
    [MPR_PROBE_PER_RTT] = "per-rtt",
    [MPR_PROBE_PER_PACKET] = "per-packet",
};
NAMED(probe_mode, enum mpr_probe_mode)

static const char *const nack_names[] = {
    [MPR_NACK_EVERY] = "every",
    [MPR_NACK_ONCE] = "once",
};
NAMED(nack, enum mpr_nack)

static const char *const sync_wait_names[] = {
    [MPR_SYNC_DELAY] = "delay",
    [MPR_SYNC_STOP_WAIT] = "stop-wait",
};
NAMED(sync_wait, enum mpr_sync_wait)

const char *mpr_recovery_name(const struct mpr_cfg *cfg)
{
	return !cfg->single_path ? "mp-rdma" : mpr_cfg_irn(cfg) ? "irn" : "gbn";
}

int mpr_cfg_check(const struct mpr_cfg *cfg, const char **why)
{
	const char *w = NULL;

	if (cfg->bitmap < 1 || cfg->bitmap > MPR_L_MAX)
		w = "the bitmap must hold 1 to 1024 slots";
	else if (cfg->delta < 1 || cfg->delta > cfg->bitmap)
		w = "delta must be 1 to the bitmap's size (the paper: 32 with a 64-slot bitmap)";
	else if (cfg->cwnd_max < 1 || cfg->cwnd_max > MPR_SB / 2)
		w = "cwnd-max must be 1 to 2048 packets";
	else if (cfg->iw < 1 || cfg->iw > cfg->cwnd_max)
		w = "the initial window must be 1 to cwnd-max packets";
	else if (cfg->iw > MPR_OUT_MAX)
		w = "the initial window must be at most 64 packets (one call's output)";
	else if (cfg->burst < 1 || cfg->burst > MPR_OUT_MAX)
		w = "burst must be 1 to 64 packets an ACK";
	else if (cfg->sync_ppm > 1000000)
		w = "the synchronise share must be 0 to 1";
	else if ((unsigned)cfg->sync_wait > MPR_SYNC_STOP_WAIT)
		w = "a synchronise message waits by delay or stop-wait";
	else if (cfg->probe_ppm > 1000000)
		w = "the probing probability must be 0 to 1";
	else if (cfg->vp_hi < cfg->vp_lo ||
		 (!cfg->single_path && (unsigned)(cfg->vp_hi - cfg->vp_lo) + 1 < cfg->iw))
		w = "the VP range must hold at least the initial window's ports";
	else if (cfg->msg_pkts < 1)
		w = "a message is at least one packet";
	else if (cfg->srtt_init_ns < 1 || cfg->rto_min_ns < 1)
		w = "the initial RTT and the RTO floor must be positive";
	else if (cfg->single_path && cfg->qp_timeout_ns < 1)
		w = "the single path's QP timeout must be positive";
	else if ((unsigned)cfg->sp_recovery > MPR_SP_IRN)
		w = "the single path's recovery must be go-back-N or IRN";
	else if (cfg->sp_recovery == MPR_SP_IRN &&
		 (!cfg->single_path || !cfg->scoreboard || !cfg->irn_rto_low_ns ||
		  cfg->irn_rto_high_ns < cfg->irn_rto_low_ns))
		w = "IRN is a single path's, with its SACK bitmap and two timeouts "
		    "(mpr_irn_default())";
	else if ((unsigned)cfg->nack > MPR_NACK_ONCE)
		w = "the receiver's NACK must be every or once";
	else if ((unsigned)cfg->credit > MPR_CREDIT_PAPER)
		w = "the credit rule must be once, per-reply or paper";
	else if (cfg->credit == MPR_CREDIT_ONCE && !cfg->scoreboard && !cfg->single_path)
		w = "credit once a PSN needs the scoreboard (which PSNs were SACKed): use "
		    "per-reply "
		    "or paper without it";
	else if (cfg->cc == MPR_CC_DCQCN &&
		 (!cfg->single_path || cfg->dcqcn.line_bps < 1000 || !cfg->dcqcn.min_bps ||
		  cfg->dcqcn.min_bps > cfg->dcqcn.line_bps || cfg->dcqcn.pkt_bytes < 64 ||
		  !cfg->dcqcn.f || !cfg->dcqcn.g_ppm || cfg->dcqcn.g_ppm > 1000000 ||
		  !cfg->dcqcn.alpha_ns || !cfg->dcqcn.timer_ns))
		w = "DCQCN is the single path's, with a line rate, a floor below it, a packet "
		    "size, "
		    "gain and timers (mpr_dcqcn_default())";
	else if ((unsigned)cfg->cc > MPR_CC_DCQCN)
		w = "the congestion control must be the window or DCQCN";
	else if (cfg->eunomia_rx &&
		 (cfg->single_path || cfg->bitmap != EU_CAP_ROWS * EU_BLOCK_BITS))
		w = "the Eunomia receiver is multi-path, with the bitmap at its reach: 256";
	if (why)
		*why = w;
	return w ? -EINVAL : 0;
}

uint64_t mpr_rand(uint64_t *state)
{
	return ord_rand(state);
}

uint64_t mpr_rand_gap(uint64_t *state, double mean_ns)
{
	double u = ((double)(mpr_rand(state) >> 11) + 1) * 0x1.0p-53; /* (0, 1] */

	return 1 + (uint64_t)(-log(u) * mean_ns);
}

static uint64_t rnd(struct mpr_snd *s)
{
	return mpr_rand(&s->rng);
}

static uint16_t rand_vp(struct mpr_snd *s)
{
	uint32_t span = (uint32_t)(s->cfg.vp_hi - s->cfg.vp_lo) + 1;

	return (uint16_t)(s->cfg.vp_lo + (uint16_t)(rnd(s) % span));
}

int mpr_snd_init(struct mpr_snd *s, const struct mpr_cfg *cfg, uint64_t seed)
{
	if (mpr_cfg_check(cfg, NULL))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
	s->cwnd = cfg->iw * MPR_ONE;
	s->srtt = cfg->srtt_init_ns;
	s->rttvar = cfg->srtt_init_ns / 2;
	s->rto = cfg->single_path ? cfg->qp_timeout_ns : cfg->rto_min_ns;
	s->burst_at = s->rto_at = s->sync_at = MPR_NEVER;
	s->dq = (struct mpr_dcqcn_state){
	    .rc = cfg->dcqcn.line_bps,
	    .rt = cfg->dcqcn.line_bps,
	    .alpha = 1000000,
	    .alpha_at = MPR_NEVER,
	    .inc_at = MPR_NEVER,
	};
	return 0;
}

/* A scoreboard bit of psn: sacked (the receiver holds it), dropped (a NACK said so). */
static bool flag(const uint64_t *bits, uint32_t psn)
{
	uint32_t i = psn % MPR_SB;

	return bits[i / 64] >> (i % 64) & 1;
}

static void set_flag(uint64_t *bits, uint32_t psn, bool on)
{
	uint32_t i = psn % MPR_SB;

	if (on)
		bits[i / 64] |= 1ULL << (i % 64);
	else
		bits[i / 64] &= ~(1ULL << (i % 64));
}

static bool sacked(const struct mpr_snd *s, uint32_t psn)
{
	return flag(s->sacked, psn);
}

static uint32_t cwnd_pkts(const struct mpr_snd *s)
{
	return s->cwnd / MPR_ONE;
}

static void cwnd_sub(struct mpr_snd *s, uint32_t q16)
{
	s->cwnd = s->cwnd > MPR_ONE + q16 ? s->cwnd - q16 : MPR_ONE; /* floor: 1 packet */
}

/* awnd = cwnd + inflate - (snd_nxt - snd_una): what the window lets out now. */
static uint32_t awnd(const struct mpr_snd *s)
{
	int64_t a = (int64_t)cwnd_pkts(s) + s->inflate - (int64_t)(s->snd_nxt - s->snd_una);

	return a > 0 ? (uint32_t)a : 0;
}

/*
 * inflate back to 0: the window's credit starts again now, and replies to
 * copies sent before carry none (MPR_CREDIT_PER_REPLY; mpr_snd_ack()).
 */
static void credit_reset(struct mpr_snd *s, uint64_t now)
{
	s->inflate = 0;
	s->credit_from = now;
}

static bool is_tail(const struct mpr_snd *s, uint32_t psn)
{
	return (psn + 1) % s->cfg.msg_pkts == 0 || psn + 1 == s->total;
}

/* Every notify_every-th message asks the receiver for a completion (a SEND); the rest are WRITEs.
 */
static bool notifies(const struct mpr_snd *s, uint32_t psn)
{
	return s->cfg.notify_every && (psn / s->cfg.msg_pkts + 1) % s->cfg.notify_every == 0;
}

/* Every sync_every-th message but the first (or a share sync_ppm of them) must land after all
 * earlier ones. */
static bool is_sync_msg(const struct mpr_snd *s, uint32_t psn)
{
	uint64_t m = psn / s->cfg.msg_pkts;

	if (s->cfg.sync_ppm)
		return m > 0 && (m + 1) * s->cfg.sync_ppm / 1000000 > m * s->cfg.sync_ppm / 1000000;
	return s->cfg.sync_every && m > 0 && m % s->cfg.sync_every == 0;
}

/*
 * A synchronise message waits Δt = α·Δ·RTT/cwnd after the previous message
 * (section 3.4): by then its predecessors have most likely landed.
 */
static uint64_t sync_release(const struct mpr_snd *s)
{
	uint64_t dt = (uint64_t)s->cfg.alpha_q16 * s->cfg.delta / MPR_ONE * s->srtt /
		      (cwnd_pkts(s) ? cwnd_pkts(s) : 1);

	return s->last_msg_end + dt;
}

/*
 * Holds the synchronise message at snd_nxt back: until its delay has passed
 * (the synchronise timer set), or, Stop-Wait, until every earlier packet is
 * acknowledged (the reply that acknowledges the last one sends it).
 */
static bool sync_held(struct mpr_snd *s, uint64_t now)
{
	bool wait = s->cfg.sync_wait == MPR_SYNC_STOP_WAIT ? s->snd_una < s->snd_nxt
							   : now < sync_release(s);

	if (wait && s->hold_psn != s->snd_nxt + 1) {
		s->hold_psn = s->snd_nxt + 1;
		s->st.sync_holds++;
	}
	if (wait && s->cfg.sync_wait == MPR_SYNC_DELAY)
		s->sync_at = sync_release(s);
	return wait;
}

/* Does this packet go to a fresh random VP (section 3.5: p a round trip)? */
static bool probe_now(struct mpr_snd *s, uint64_t now)
{
	if (!s->cfg.probe_ppm || s->cfg.single_path)
		return false;
	if (s->cfg.probe_mode == MPR_PROBE_PER_RTT) {
		if (now >= s->probe_epoch + s->srtt) {
			s->probe_epoch = now;
			s->probe_due = rnd(s) % 1000000 < s->cfg.probe_ppm;
		}
		if (!s->probe_due)
			return false;
		s->probe_due = false;
		return true;
	}
	if (now < s->last_probe + s->srtt || rnd(s) % 1000000 >= s->cfg.probe_ppm)
		return false;
	s->last_probe = now;
	return true;
}

static bool irn(const struct mpr_snd *s)
{
	return mpr_cfg_irn(&s->cfg);
}

/* The timeout from now: IRN's RTO_low or RTO_high by what is in flight, else the RTO. */
static uint64_t rto_now(const struct mpr_snd *s)
{
	if (irn(s))
		return s->snd_max - s->snd_una <= IRN_N ? s->cfg.irn_rto_low_ns
							: s->cfg.irn_rto_high_ns;
	return s->rto << s->rto_backoff;
}

static void arm_rto(struct mpr_snd *s, uint64_t now)
{
	s->rto_at = s->snd_una == s->snd_max ? MPR_NEVER : now + rto_now(s);
}

static void emit(struct mpr_snd *s, uint32_t psn, uint16_t vp, bool probe, uint64_t now,
		 struct mpr_pkt *out)
{
	*out = (struct mpr_pkt){
	    .psn = psn,
	    .msg_first = psn - psn % s->cfg.msg_pkts,
	    .vp = s->cfg.single_path ? s->cfg.vp_lo : vp,
	    .retx = psn < s->snd_max,
	    .sync = is_sync_msg(s, psn),
	    .tail = is_tail(s, psn),
	    .cqe = is_tail(s, psn) && notifies(s, psn),
	    .probe = probe,
	    .lost_vp = psn < s->snd_max ? s->sent_vp[psn % MPR_SB] : 0,
	    .tx_ns = now,
	};
	s->sent_ns[psn % MPR_SB] = now;
	s->sent_vp[psn % MPR_SB] = out->vp;
	set_flag(s->dropped, psn, false);
	if (psn >= s->snd_max) {
		set_flag(s->sacked, psn, false);
		s->snd_max = psn + 1;
		if (out->tail)
			s->last_msg_end = now;
	} else {
		s->st.retx++;
	}
	if (s->rto_at == MPR_NEVER || irn(s))
		s->rto_at =
		    now + rto_now(s); /* IRN's restarts at every send (conweave-ns3 PktSent) */
	s->st.sent++;
	s->st.probes += probe;
	s->last_send = now;
	s->sent_any = true;
}

enum pick { PICK_SENT, PICK_NOTHING, PICK_HELD };

/* Sent long enough ago that its reply should be back: probably lost. */
static bool overdue(const struct mpr_snd *s, uint32_t psn, uint64_t now)
{
	return now > s->sent_ns[psn % MPR_SB] + s->srtt + 4 * s->rttvar;
}

/*
 * A retransmission takes its window from inflate, as snd_nxt does not
 * move for it: each copy sent brings one reply back.
 */
static void retransmit(struct mpr_snd *s, uint32_t psn, uint16_t vp, uint64_t now,
		       struct mpr_pkt *out)
{
	bool probe = probe_now(s, now);

	emit(s, psn, probe ? rand_vp(s) : vp, probe, now, out);
	s->inflate--;
}

/*
 * The next packet the recovery sweep retransmits (section 3.3.3: each ACK
 * clocks out the one snd_retx indicates), or UINT32_MAX for none.  The
 * sweep passes packets the receiver holds (SACKed) and those already sent
 * again this round, unless a NACK since said they were dropped: a round
 * the receiver's hole outlived walks again (mpr_snd_ack) and sends only
 * what is still missing.
 */
/*
 * The recovery round owes psn a resend: the receiver does not hold it, and
 * it was not sent again this round unless a NACK since said it was dropped.
 */
static bool owed(const struct mpr_snd *s, uint32_t psn)
{
	return !sacked(s, psn) && (s->sent_ns[psn % MPR_SB] < s->round_ns || flag(s->dropped, psn));
}

static uint32_t sweep_next(struct mpr_snd *s)
{
	uint32_t p = s->snd_retx > s->snd_una ? s->snd_retx : s->snd_una;

	if (!s->cfg.scoreboard) {
		/* the paper: snd_retx names the next one, whatever the receiver holds */
		s->snd_retx = p < s->recovery ? p + 1 : p;
		return p < s->recovery ? p : UINT32_MAX;
	}
	for (; p < s->recovery; p++) {
		if (irn(s) && p >= s->snd_ooh)
			break; /* IRN: lost is what the receiver misses below what it holds */
		if (!owed(s, p))
			continue;
		s->snd_retx = p + 1;
		return p;
	}
	s->snd_retx = p;
	return UINT32_MAX;
}

/*
 * One packet the window allows: the recovery sweep, new data, or an early
 * retransmission (FUSO).
 *
 * New data is sent whatever the receiver's bitmap holds, as the paper
 * does: what lands beyond it is dropped and answered with a NACK, which
 * keeps that VP clocked and tells the sender to send it again.  The
 * scoreboard bounds it (MPR_SB / 2 past snd_una).  With no new data, the
 * lowest unacknowledged packet that is overdue goes again (FUSO: "early
 * retransmits unacknowledged packets as new data if there is no new data
 * to transmit and awnd allows"; only overdue ones, or every ACK would
 * duplicate a packet still in flight).  Not when the window is spread at a
 * start, where every packet is fresh.  With nothing at all to send, the
 * caller shrinks the window ("use it or lose it"); held back by the
 * scoreboard or a synchronise message, it keeps it.
 */
static enum pick send_one(struct mpr_snd *s, uint16_t vp, bool early, uint64_t now,
			  struct mpr_pkt *out)
{
	bool held = false;

	if (s->mode == MPR_RECOVERY) {
		uint32_t p = sweep_next(s);

		if (p != UINT32_MAX) {
			retransmit(s, p, vp, now, out);
			return PICK_SENT;
		}
	}
	while (s->cfg.scoreboard && s->snd_nxt < s->snd_max && sacked(s, s->snd_nxt))
		s->snd_nxt++; /* after a timeout: what the receiver holds is not sent again */
	if (s->snd_nxt < s->total) {
		if (s->snd_nxt - s->snd_una >= (irn(s) ? s->cfg.cwnd_max : MPR_SB / 2)) {
			held = true;
		} else if (s->snd_nxt >= s->snd_max && s->snd_nxt % s->cfg.msg_pkts == 0 &&
			   is_sync_msg(s, s->snd_nxt) && sync_held(s, now)) {
			return PICK_HELD;
		} else {
			bool probe = probe_now(s, now);

			emit(s, s->snd_nxt++, probe ? rand_vp(s) : vp, probe, now, out);
			return PICK_SENT;
		}
	}
	if (early && !s->cfg.single_path && !s->cfg.scoreboard) {
		/* the paper's FUSO: the unacknowledged packets again in turn, from snd_una */
		uint32_t p = s->snd_retx > s->snd_una ? s->snd_retx : s->snd_una;

		if (p < s->snd_nxt) {
			s->snd_retx = p + 1;
			s->st.early_retx++;
			retransmit(s, p, vp, now, out);
			return PICK_SENT;
		}
	} else if (early && !s->cfg.single_path) {
		for (uint32_t p = s->snd_una; p < s->snd_nxt; p++) {
			if (sacked(s, p) || (!overdue(s, p, now) && !flag(s->dropped, p)))
				continue;
			s->st.early_retx++;
			retransmit(s, p, vp, now, out);
			return PICK_SENT;
		}
	}
	return held ? PICK_HELD : PICK_NOTHING;
}

/* Up to n packets, all on vp (or each on a random VP when vp is 0). */
static unsigned send_up_to(struct mpr_snd *s, unsigned n, uint16_t vp, bool cut, uint64_t now,
			   struct mpr_pkt *out)
{
	unsigned k = 0;

	while (k < n && k < MPR_OUT_MAX) {
		enum pick r = send_one(s, vp ? vp : rand_vp(s), true, now, &out[k]);

		if (r == PICK_SENT) {
			k++;
			continue;
		}
		if (r == PICK_NOTHING && cut && !s->cfg.single_path) {
			cwnd_sub(s, MPR_ONE);
			s->st.window_cuts++;
		}
		break;
	}
	return k;
}

/* IW packets, each on its own random VP. */
static unsigned spread(struct mpr_snd *s, uint64_t now, struct mpr_pkt *out)
{
	uint16_t used[MPR_OUT_MAX];
	unsigned k = 0, n = awnd(s);

	if (n > s->cfg.iw)
		n = s->cfg.iw;
	while (k < n) {
		uint16_t vp = rand_vp(s);
		bool dup = false;

		for (unsigned i = 0; i < k && !s->cfg.single_path; i++)
			dup |= used[i] == vp;
		if (dup)
			continue;
		if (send_one(s, vp, false, now, &out[k]) != PICK_SENT)
			break;
		used[k++] = vp;
	}
	return k;
}

/*
 * DCQCN, the single path's rate (Zhu et al., SIGCOMM'15), as Mellanox's
 * NICs run it: the model in HPCC's NS-3 (alibaba-edu/High-Precision-
 * Congestion-Control, simulation/src/point-to-point/model/rdma-hw.cc:
 * cnp_received_mlx, UpdateAlphaMlx, CheckRateDecreaseMlx, RateIncEventMlx).
 * A CNP (here an ACK with ECE, at most one a cnp_ns as the notification
 * point sends them) cuts the rate by α/2 and sets the target to the rate
 * it had; α follows whether CNPs came, every alpha_ns; every timer_ns the
 * rate moves half way to the target (fast recovery, f steps), then the
 * target grows by R_AI, then by R_HAI.  The cut is at once, not at the next
 * 4 µs check.  Packets leave paced at the rate; loss recovery is rxe's
 * go-back-N on the NAK and its fixed timer.
 */
static void rtt_sample(struct mpr_snd *s, uint64_t rtt);
static void on_nack(struct mpr_snd *s, const struct mpr_ack *a, uint64_t now);

/*
 * IRN, after a reply's SACK and cumulative ACK were taken: a reply above
 * the cumulative ACK (IRN's NACK: the receiver misses what is below its
 * PSN) or a NACK starts a recovery round unless one is on.  The round
 * resends, one a send opportunity, what is not SACKed below the highest
 * SACKed PSN (sweep_next()); a copy lost again waits for the timeout, as
 * in IRN.
 */
static void irn_loss(struct mpr_snd *s, const struct mpr_ack *a, uint64_t now)
{
	if ((a->nack || a->sack > a->aack) && s->mode == MPR_NORMAL && s->snd_una < s->snd_max) {
		s->mode = MPR_RECOVERY;
		s->recovery = s->snd_nxt;
		s->snd_retx = s->snd_una;
		s->round_ns = now;
		s->st.recoveries++;
	}
}

/* Any reply: counted, and its round trip sampled (Karn: never from a retransmission). */
static void reply_seen(struct mpr_snd *s, const struct mpr_ack *a, uint64_t now)
{
	s->st.acks++;
	s->st.ece_acks += a->ece;
	if (!a->retx && a->tx_ns && a->tx_ns <= now)
		rtt_sample(s, now - a->tx_ns);
}

/*
 * What a reply says of the PSNs, after its credit was counted: the one it
 * SACKs (with the scoreboard), the cumulative ACK (which ends a recovery
 * round past its end), a NACK, the highest SACK, and for IRN whether a
 * round starts.  The window's sender and DCQCN's take it alike (DCQCN keeps
 * no inflate and never backs its timer off, so those two are moot there).
 */
static void reply_psns(struct mpr_snd *s, const struct mpr_ack *a, uint64_t now)
{
	if (s->cfg.scoreboard && !a->nack && a->sack >= s->snd_una && a->sack < s->snd_max)
		set_flag(s->sacked, a->sack, true);
	if (a->aack > s->snd_una && a->aack <= s->snd_max) {
		s->inflate -= (int32_t)(a->aack - s->snd_una);
		if (s->inflate < 0)
			s->inflate = 0;
		s->snd_una = a->aack;
		if (s->snd_nxt < s->snd_una)
			s->snd_nxt = s->snd_una;
		s->rto_backoff = 0;
		arm_rto(s, now);
		if (s->mode == MPR_RECOVERY && s->snd_una >= s->recovery)
			s->mode = MPR_NORMAL;
	}
	if (a->nack)
		on_nack(s, a, now); /* MP-RDMA's recovery, go back N from a NAK, or IRN's drop */
	if (!a->retx && !a->nack && a->sack + 1 > s->snd_ooh)
		s->snd_ooh = a->sack + 1;
	if (irn(s))
		irn_loss(s, a, now);
}

/* IRN: a packet its recovery round has yet to resend (one sweep_next() would pick). */
static bool irn_resend_due(const struct mpr_snd *s)
{
	uint32_t end = s->recovery < s->snd_ooh ? s->recovery : s->snd_ooh;

	if (!irn(s) || s->mode != MPR_RECOVERY)
		return false;
	for (uint32_t p = s->snd_retx > s->snd_una ? s->snd_retx : s->snd_una; p < end; p++)
		if (owed(s, p))
			return true;
	return false;
}

/* New data within the window (IRN: within one BDP), or a resend IRN's round owes. */
static bool dcqcn_can_send(const struct mpr_snd *s)
{
	return (s->snd_nxt < s->total && s->snd_nxt - s->snd_una < s->cfg.cwnd_max) ||
	       irn_resend_due(s);
}

static uint64_t dcqcn_gap(const struct mpr_snd *s)
{
	return (uint64_t)s->cfg.dcqcn.pkt_bytes * 8000000000ULL / s->dq.rc;
}

/*
 * Packets a late pacer may send at once to make up the time it was held from
 * running (a host's scheduler, not the network): a NIC's rate limiter keeps
 * its rate with a burst of a few packets.  Eight are 8.8 KB, within the
 * virtual lab's 100 Mbit/s link's 12.5 KB bucket.
 */
#define DCQCN_CATCH_UP 8

static unsigned dcqcn_send(struct mpr_snd *s, uint64_t now, struct mpr_pkt *out)
{
	unsigned k = 0;
	uint64_t gap = dcqcn_gap(s); /* the rate moves only on a CNP or a timer */
	bool held = false;

	if (now > s->dq.next_tx + gap) {
		if (!s->dq.backlog)
			s->dq.next_tx = now; /* it had nothing to send: no burst for the wait */
		else if (now - s->dq.next_tx > DCQCN_CATCH_UP * gap)
			s->dq.next_tx = now - DCQCN_CATCH_UP * gap; /* woken late: some of it */
	}
	while (k < MPR_OUT_MAX && now >= s->dq.next_tx && dcqcn_can_send(s)) {
		if (send_one(s, s->cfg.vp_lo, false, now, &out[k]) != PICK_SENT) {
			held = true;
			break;
		}
		k++;
		s->dq.next_tx += gap;
	}
	s->dq.backlog = !held && dcqcn_can_send(s);
	return k;
}

static void dcqcn_cnp(struct mpr_snd *s, uint64_t now)
{
	struct mpr_dcqcn_state *d = &s->dq;
	const struct mpr_dcqcn *c = &s->cfg.dcqcn;

	d->cnps++;
	d->last_cnp = now;
	if (!d->cnp_any) {
		d->cnp_any = true; /* the first: α from 1, its updates begin */
		d->alpha = 1000000;
		d->alpha_at = now + c->alpha_ns;
	} else {
		d->cnp_seen = true;
	}
	if (d->stage || d->decreases == 0)
		d->rt = d->rc; /* the target is the rate it had (not clamped twice at stage 0) */
	d->rc -= (uint64_t)((double)d->rc * d->alpha / 2e6);
	if (d->rc < c->min_bps)
		d->rc = c->min_bps;
	d->stage = 0;
	d->decreases++;
	d->inc_at = now + c->timer_ns;
}

/* The α and rate-increase timers due at now. */
static void dcqcn_timers(struct mpr_snd *s, uint64_t now)
{
	struct mpr_dcqcn_state *d = &s->dq;
	const struct mpr_dcqcn *c = &s->cfg.dcqcn;

	while (d->alpha_at <= now) {
		d->alpha -= (uint32_t)((uint64_t)d->alpha * c->g_ppm / 1000000);
		if (d->cnp_seen)
			d->alpha += c->g_ppm;
		d->cnp_seen = false;
		d->alpha_at += c->alpha_ns;
	}
	while (d->inc_at <= now) {
		if (d->stage >= c->f)
			d->rt += d->stage == c->f ? c->rai_bps : c->rhai_bps;
		if (d->rt > c->line_bps)
			d->rt = c->line_bps;
		d->rc = (d->rc + d->rt) / 2;
		d->stage++;
		/* back at the line rate: nothing to increase until the next CNP */
		d->inc_at = d->rc >= c->line_bps - 1 ? MPR_NEVER : d->inc_at + c->timer_ns;
	}
}

static unsigned dcqcn_ack(struct mpr_snd *s, const struct mpr_ack *a, uint64_t now,
			  struct mpr_pkt *out)
{
	reply_seen(s, a, now);
	if (a->ece && (!s->dq.cnp_any || now >= s->dq.last_cnp + s->cfg.dcqcn.cnp_ns))
		dcqcn_cnp(s, now);
	reply_psns(s, a, now);
	unsigned k = dcqcn_send(s, now, out);

	if (s->snd_una == s->snd_max)
		s->rto_at = MPR_NEVER;
	return k;
}

static unsigned dcqcn_timer(struct mpr_snd *s, uint64_t now, struct mpr_pkt *out)
{
	if (s->rto_at <= now) {
		/* rxe's timer: go back N from snd_una, at the same rate (IRN: what is not SACKed)
		 */
		s->st.rtos++;
		s->mode = MPR_NORMAL;
		s->snd_nxt = s->snd_una;
		s->rto_at = MPR_NEVER;
	}
	dcqcn_timers(s, now);
	unsigned k = dcqcn_send(s, now, out);

	if (s->rto_at == MPR_NEVER)
		arm_rto(s, now);
	return k;
}

unsigned mpr_snd_push(struct mpr_snd *s, uint32_t n, uint64_t now, struct mpr_pkt *out)
{
	bool idle = s->snd_una == s->snd_max;

	s->total += n;
	if (s->cfg.cc == MPR_CC_DCQCN)
		return dcqcn_send(s, now, out); /* paced at its rate, not clocked */
	if (!idle)
		return 0; /* the ACKs in flight clock the new data out */
	if (!s->sent_any || now >= s->last_send + (uint64_t)s->cfg.idle_rtts * s->srtt) {
		if (s->sent_any)
			s->st.restarts++;
		s->cwnd = s->cfg.iw * MPR_ONE;
		credit_reset(s, now);
	}
	return spread(s, now, out);
}

#define RTO_NACK_RTTS 4 /* the RTO waits for a NACK at least this many round trips when capped */

static void rtt_sample(struct mpr_snd *s, uint64_t rtt)
{
	uint64_t err = rtt > s->srtt ? rtt - s->srtt : s->srtt - rtt;

	s->rttvar = (3 * s->rttvar + err) / 4;
	s->srtt = (7 * s->srtt + rtt) / 8;
	if (s->cfg.single_path)
		return; /* rxe's timer is the QP's, whatever the round trip */
	s->rto = s->srtt + 4 * s->rttvar;
	if (s->rto < s->cfg.rto_min_ns)
		s->rto = s->cfg.rto_min_ns;
	/*
	 * Not before the NACK could have come (the paper gives no RTO value):
	 * a hole is NACKed once L packets were sent past it, L / cwnd round
	 * trips at this window after the hole's own, and the NACK and the copy
	 * take about one more: 2 + L / cwnd round trips.  An
	 * RTO that fires first resends the whole window on random VPs, most of
	 * them lossy when most paths are: at 36 packets of BDP and L = 64, one
	 * path of four clean, it fired every 20 ms and the flow kept 0.3 of
	 * optimal (transport/README.md, Fig. 11(a)).  At most what the initial
	 * window needs, 2 + L / IW (and at least 4): a small window pushes no
	 * NACK out soon, and 2 + L / cwnd at a window of 1 was 66 round trips,
	 * which kept a flow whose route came back silent; a timeout restarts
	 * from IW, where the NACK comes within the cap.  The cap was 4 round
	 * trips until 2026-11-30: at the lab's BDP (36 packets, IW 16) a window
	 * of 16-20 needs 5-6, the RTO fired first every 20 ms and put the
	 * window back to IW, and 5 seeds of 10 kept 0.30-0.77 of optimal in the
	 * simulator (`rocelab transport sim --figure fig11a-lab --seeds 10`);
	 * with the cap at the initial window's, 0.95-0.96 each.
	 */
	uint64_t nack_by = 2 * s->srtt + s->srtt * s->cfg.bitmap * MPR_ONE /
					     (s->cwnd > MPR_ONE ? s->cwnd : MPR_ONE);
	uint64_t cap_rtts = 2 + (s->cfg.bitmap + s->cfg.iw - 1) / s->cfg.iw;

	if (cap_rtts < RTO_NACK_RTTS)
		cap_rtts = RTO_NACK_RTTS;
	if (nack_by > cap_rtts * s->srtt)
		nack_by = cap_rtts * s->srtt;

	if (s->rto < nack_by)
		s->rto = nack_by;
}

/*
 * A NACK: the receiver misses nack_psn (its rcv_nxt) and, unless the NACK
 * is for a synchronise message, dropped the packet it answers (sack) beyond
 * its bitmap.  The first one enters recovery (section 3.3.3).
 */
static void on_nack(struct mpr_snd *s, const struct mpr_ack *a, uint64_t now)
{
	s->st.nacks++;
	if (irn(s)) {
		/* beyond the receiver's BDP: dropped, to be sent again (irn_loss() starts the
		 * round) */
		if (a->sack >= s->snd_una && a->sack < s->snd_max && !sacked(s, a->sack))
			set_flag(s->dropped, a->sack, true);
		return;
	}
	if (s->cfg.single_path) {
		/* rxe's completer: a sequence-error NAK retries from its PSN (go back N) */
		if (a->nack_psn >= s->snd_una && a->nack_psn < s->snd_nxt) {
			s->snd_nxt = a->nack_psn;
			credit_reset(s, now);
			s->st.recoveries++;
		}
		return;
	}
	if (a->nack_psn < s->snd_una || a->nack_psn >= s->snd_max)
		return; /* stale: the hole was filled since */
	if (!s->cfg.scoreboard) {
		/* the paper: the first NACK starts a recovery round; the rest wait for it or the
		 * RTO */
		if (s->mode == MPR_NORMAL) {
			s->mode = MPR_RECOVERY;
			s->recovery = s->snd_nxt;
			s->snd_retx = a->nack_psn;
			s->st.recoveries++;
		}
		return;
	}
	if (!a->sync_fail && a->sack != a->nack_psn && a->sack >= s->snd_una &&
	    a->sack < s->snd_max && !sacked(s, a->sack))
		set_flag(s->dropped, a->sack, true); /* to be sent again */
	if (s->mode == MPR_NORMAL) {
		s->mode = MPR_RECOVERY;
		s->recovery = s->snd_nxt;
		s->snd_retx = a->nack_psn;
		s->round_ns = now;
		s->st.recoveries++;
	} else if (a->nack_psn < s->snd_retx &&
		   (overdue(s, a->nack_psn, now) || flag(s->dropped, a->nack_psn))) {
		/*
		 * The hole was sent again this round and the receiver still
		 * misses it: that copy was lost or dropped too.  Marked dropped,
		 * it goes next, and the sweep walks again from it over what was
		 * dropped since, up to what was sent by now (an addition to the
		 * paper, which leaves this case to the RTO).
		 */
		set_flag(s->dropped, a->nack_psn, true);
		s->snd_retx = a->nack_psn;
		s->recovery = s->snd_nxt;
		s->st.lost_retx++;
	}
}

unsigned mpr_snd_ack(struct mpr_snd *s, const struct mpr_ack *a, uint64_t now, struct mpr_pkt *out)
{
	unsigned clock;
	uint32_t n;

	if (s->cfg.cc == MPR_CC_DCQCN)
		return dcqcn_ack(s, a, now, out);
	reply_seen(s, a, now);
	/*
	 * inflate counts what left the network.  ONCE: each PSN once, a
	 * duplicate ACK (a packet and its retransmission) or a second NACK for
	 * the same drop adds nothing.  Counted per reply on the lab, a standing
	 * queue formed that every ECN mark failed to drain: the window at 1
	 * packet, inflate held at 32-93, every ACK marked (mprdma-degraded;
	 * transport/README.md).
	 *
	 * PER_REPLY: + 1 for every reply, as the paper counts.  Each copy sent
	 * brings one back (the receiver answers every packet, duplicates and
	 * drops beyond its bitmap too), a retransmission took one from inflate
	 * and the AACK takes one a PSN, so a packet and its retransmission that
	 * both land balance.  Not for a copy sent before inflate was last reset
	 * (a timeout, go-back-N, a restart): its credit went with the reset.
	 * ONCE leaves the late copy of a packet whose retransmission already
	 * landed without credit, so a slow path's late replies clock nothing:
	 * that alone keeps a 1/40 path from holding the bitmap's head, and the
	 * Fig. 14 ablation shows the paper's loss only with PER_REPLY.
	 *
	 * PAPER: + 1 for every reply, whenever its copy was sent.
	 */
	bool credit;

	switch (s->cfg.credit) {
	case MPR_CREDIT_PAPER:
		credit = true;
		break;
	case MPR_CREDIT_PER_REPLY:
		credit = a->tx_ns >= s->credit_from;
		break;
	default:
		credit = a->sack >= s->snd_una && a->sack < s->snd_max && !sacked(s, a->sack) &&
			 !(a->nack && flag(s->dropped, a->sack));
	}
	s->inflate += credit;
	reply_psns(s, a, now);
	/*
	 * PER_REPLY: the receiver holds nothing above its cumulative ACK, so no
	 * packet beyond snd_una has left the network and no credit is owed.
	 * Counted per reply, credit leaks (a reply whose AACK found inflate
	 * already at 0, a late copy's reply): on the lab it grew to 36 while the
	 * window was 1 packet, and a single VP kept 37 packets queued on its
	 * path, every ACK marked, through the rest of the run.
	 */
	if (s->cfg.credit == MPR_CREDIT_PER_REPLY && !a->nack && a->aack >= s->snd_ooh)
		s->inflate = 0;
	if (s->cfg.ooo_aware && !s->cfg.single_path && !a->retx && !a->nack &&
	    (int64_t)a->sack < (int64_t)s->snd_ooh - 1 - s->cfg.delta) {
		/* a slow path: its credit moves to the fast ones (section 3.3.2) */
		cwnd_sub(s, MPR_ONE);
		s->st.prunes++;
		clock = 0;
	} else {
		if (a->ece)
			cwnd_sub(s, MPR_ONE / 2);
		else
			s->cwnd += (uint32_t)((1ULL << 32) / s->cwnd);
		if (s->cwnd > s->cfg.cwnd_max * MPR_ONE)
			s->cwnd = s->cfg.cwnd_max * MPR_ONE;
		clock = s->cfg.single_path ? MPR_OUT_MAX : s->cfg.burst;
	}
	n = awnd(s);
	if (clock > n)
		clock = n;
	unsigned k = send_up_to(s, clock, a->vp, clock > 0, now, out);

	/* burst control: what the window allows beyond it goes later, to random VPs */
	s->backlog = k == clock && n > clock && !s->cfg.single_path ? n - clock : 0;
	s->burst_at = s->backlog ? now + s->srtt / 2 : MPR_NEVER;
	if (s->snd_una == s->snd_max)
		s->rto_at = MPR_NEVER;
	return k;
}

uint64_t mpr_snd_deadline(const struct mpr_snd *s)
{
	uint64_t d = s->burst_at;

	if (s->cfg.cc == MPR_CC_DCQCN) {
		if (dcqcn_can_send(s) && s->dq.next_tx < d)
			d = s->dq.next_tx;
		if (s->dq.alpha_at < d)
			d = s->dq.alpha_at;
		if (s->dq.inc_at < d)
			d = s->dq.inc_at;
	}

	if (s->rto_at < d)
		d = s->rto_at;
	if (s->sync_at < d)
		d = s->sync_at;
	return d;
}

/* Every unacknowledged packet again from snd_una, the window back to IW. */
static unsigned timeout(struct mpr_snd *s, uint64_t now, struct mpr_pkt *out)
{
	s->st.rtos++;
	s->mode = MPR_NORMAL;
	s->snd_nxt = s->snd_una;
	credit_reset(s, now);
	s->backlog = 0;
	s->burst_at = MPR_NEVER;
	s->cwnd = s->cfg.iw * MPR_ONE;
	if (s->rto_backoff < 6 && !s->cfg.single_path)
		s->rto_backoff++; /* rxe re-arms the same timer (and gives up after retry_cnt) */
	s->rto_at = MPR_NEVER;
	unsigned k = spread(s, now, out);

	arm_rto(s, now);
	return k;
}

unsigned mpr_snd_timer(struct mpr_snd *s, uint64_t now, struct mpr_pkt *out)
{
	unsigned k = 0;

	if (s->cfg.cc == MPR_CC_DCQCN)
		return dcqcn_timer(s, now, out);
	if (s->rto_at <= now)
		return timeout(s, now, out);
	if (s->sync_at <= now) {
		s->sync_at = MPR_NEVER;
		k = send_up_to(s, awnd(s) < s->cfg.burst ? awnd(s) : s->cfg.burst, 0, false, now,
			       out);
	}
	if (s->burst_at <= now) {
		unsigned n = s->backlog < awnd(s) ? s->backlog : awnd(s);
		unsigned j = send_up_to(s, n, 0, false, now, out + k);

		s->st.burst_timer_sends += j;
		k += j;
		s->backlog = 0;
		s->burst_at = MPR_NEVER;
	}
	return k;
}

bool mpr_snd_done(const struct mpr_snd *s)
{
	return s->snd_una >= s->total;
}

double mpr_snd_cwnd(const struct mpr_snd *s)
{
	return (double)s->cwnd / MPR_ONE;
}

/* Hardware widths (mprdma.h): a PSN as BTH carries it, a time on a 32-bit µs timer. */
#define HW_PSN	3
#define HW_TIME 4

size_t mpr_snd_bytes(const struct mpr_cfg *cfg)
{
	size_t b = 4 + 4; /* cwnd (Q16.16), inflate */
	b += 6 * HW_PSN;  /* snd_una, snd_nxt, snd_max, snd_ooh, recovery, snd_retx */
	b += 1;		  /* mode */
	b += 1 + HW_TIME; /* burst control: backlog, its timer */
	b += HW_TIME + 1; /* the RTO timer, its back-off */
	b += 2 * HW_TIME; /* srtt, rttvar */
	b += HW_TIME;	  /* last send (restart after idle) */
	b += 8;		  /* the RNG (xorshift64*) */
	if (mpr_cfg_irn(cfg))
		b += (cfg->bitmap + 7) / 8 + HW_TIME; /* IRN: its SACK bitmap (a BDP), RTO_low */
	if (cfg->single_path)
		return b + (cfg->cc == MPR_CC_DCQCN ? 4 + 4 + 4 + 1 + 1 + 3 * HW_TIME : 0);
	b += cfg->probe_mode == MPR_PROBE_PER_RTT ? HW_TIME + 1 : HW_TIME; /* probing */
	if (cfg->sync_every || cfg->sync_ppm)
		b += 2 * HW_TIME; /* the last message's end, the synchronise timer */
	if (cfg->credit == MPR_CREDIT_PER_REPLY)
		b += HW_TIME; /* credit_from */
	if (cfg->scoreboard)
		b += 2 * MPR_SB / 8 + MPR_SB * HW_TIME; /* SACKed, dropped, a send time a PSN */
	return b;
}
