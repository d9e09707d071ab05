// SPDX-License-Identifier: MIT
/*
 * MP-RDMA's sender and receiver on an RNIC: state machines, RoCEv2 packets,
 * a raw-socket datapath and a timer wheel, with per-interval statistics.
 */
#define _GNU_SOURCE
#include "transport/mpr_ep.h"

#include "harness/lib/common.h"
#include "probe/trace.h"
#include "transport/dp/dp.h"
#include "transport/dp/tloop.h"
#include "transport/ep_core.h"
#include "transport/mprdma/mpr_wire.h"
#include "transport/spray_ep.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EP(f) offsetof(struct ep_params, f)
#define VP_LO EP_VP_LO

const struct opt_desc ep_opts[] = {
    {"single-path", OPT_BOOL, 0, 0, EP(single_path),
     "the rxe-like baseline: one VP, go-back-N, a receiver without a bitmap"},
    {"cc", OPT_STR, 0, 0, EP(cc),
     "the single path's congestion control: window (MP-RDMA's window on its VP) or dcqcn (a "
     "RoCE NIC's rate, paced at the line it is given: --line)",
     .size = sizeof(((struct ep_params *)0)->cc)},
    {"line", OPT_DOUBLE, 0, 1e6, EP(line_mbit),
     "dcqcn: the NIC's line rate in Mbit/s, where the rate starts and its ceiling (the link "
     "the flow leaves by)"},
    {"recovery", OPT_STR, 0, 0, EP(recovery),
     "the single path's loss recovery: gbn (rxe's go-back-N) or irn (IRN's selective repeat: "
     "a receiver keeping one BDP, bitmap packets, as many in flight at most, timeouts of "
     "rto-min and a third of it)",
     .size = sizeof(((struct ep_params *)0)->recovery)},
    {"delta", OPT_UINT, 1, MPR_L_MAX, EP(delta), "out-of-order target Δ (packets)"},
    {"bitmap", OPT_UINT, 1, MPR_L_MAX, EP(bitmap), "receiver bitmap L (packets)"},
    {"ooo-off", OPT_BOOL, 0, 0, EP(ooo_off), "out-of-order control off (the Fig. 14 ablation)"},
    {"iw", OPT_UINT, 1, MPR_SB / 2, EP(iw), "initial window (packets)"},
    {"probe", OPT_DOUBLE, 0, 1, EP(probe), "path probing probability a round trip"},
    {"mode", OPT_STR, 0, 0, EP(mode),
     "the sender: rocelab (its scoreboard, credit once a PSN) or paper (the paper's exactly: "
     "no scoreboard, credit per reply, probing once a round trip; transport/README.md)",
     .size = sizeof(((struct ep_params *)0)->mode)},
    {"scoreboard", OPT_STR, 0, 0, EP(scoreboard),
     "on or off: rocelab's SACK scoreboard (recovery skips what the receiver holds; default: "
     "the mode's)",
     .size = sizeof(((struct ep_params *)0)->scoreboard)},
    {"probe-mode", OPT_STR, 0, 0, EP(probe_mode),
     "per-rtt (the paper: one trial a round trip) or per-packet (NS3-MP-RDMA: each packet, "
     "once a round trip passed; default: the mode's)",
     .size = sizeof(((struct ep_params *)0)->probe_mode)},
    {"credit", OPT_STR, 0, 0, EP(credit),
     "window credit from replies: once (each PSN once), per-reply (each reply, none owed once "
     "nothing is held above the ACK) or paper (each reply); default: the mode's",
     .size = sizeof(((struct ep_params *)0)->credit)},
    {"nack", OPT_STR, 0, 0, EP(nack),
     "the receiver's answer to what it drops beyond its bitmap: once (the paper: one NACK a "
     "hole) or every (a NACK each drop, its credit back); default: the mode's",
     .size = sizeof(((struct ep_params *)0)->nack)},
    {"notify-every", OPT_UINT, 0, 1000000, EP(notify_every),
     "every n-th message asks the receiver for a completion (a SEND), the others are WRITEs "
     "(0: none)"},
    {"msg-kb", OPT_UINT, 1, 65536, EP(msg_kb),
     "message size in KB (packets of 1 KB; the last a message's tail)"},
    {"sync", OPT_DOUBLE, 0, 1, EP(sync),
     "share of the messages that are synchronise messages (section 3.4: each must land after "
     "every earlier one; evenly spaced)"},
    {"sync-wait", OPT_STR, 0, 0, EP(sync_wait),
     "synchronise: delay (the paper's MP-RDMA, α·Δ·RTT/cwnd after the previous message) or "
     "stop-wait (Fig. 19's MP-RDMA (Stop-Wait): once every earlier message is acknowledged)",
     .size = sizeof(((struct ep_params *)0)->sync_wait)},
    {"alpha", OPT_DOUBLE, 0, 16, EP(alpha),
     "synchronise: the sender holds one α·Δ·RTT/cwnd after the previous message (the paper: 1)"},
    {"receiver", OPT_STR, 0, 0, EP(receiver),
     "bitmap (MP-RDMA's, bitmap slots), eunomia (Eunomia's HD bitmap, 256 at most: give bitmap "
     "256) or gbn (spray: no ordering support, go-back-N)",
     .size = sizeof(((struct ep_params *)0)->receiver)},
    {"workload", OPT_STR, 0, 0, EP(workload),
     "stream (MP-RDMA: one backlogged flow) or spray (Eunomia's: finite connections, each "
     "sprayed over the VPs)",
     .size = sizeof(((struct ep_params *)0)->workload)},
    {"spray", OPT_STR, 0, 0, EP(spray),
     "spray: round-robin or random over the VPs, or ecmp (each connection on one of them, as a "
     "per-flow hash puts it: the baseline)",
     .size = sizeof(((struct ep_params *)0)->spray)},
    {"versus", OPT_STR, 0, 0, EP(versus),
     "spray: the odd QPs answered by a receiver of this kind instead (eunomia, static256 or "
     "static64), side by side with the even QPs' on the same fabric at the same moments",
     .size = sizeof(((struct ep_params *)0)->versus)},
    {"conns", OPT_UINT, 1, SPRAY_CONNS_MAX, EP(conns),
     "spray: connections at once, each its own QP pair from sender-qpn and receiver-qpn"},
    {"size-min", OPT_UINT, 1, 1048576, EP(size_min_kb), "spray: smallest connection (KB)"},
    {"size-max", OPT_UINT, 1, 1048576, EP(size_max_kb), "spray: largest connection (KB)"},
    {"load", OPT_DOUBLE, 0, 1e6, EP(load_mbit),
     "spray: offered load in Mbit/s of payload, connections arriving as a Poisson process "
     "(the Eunomia paper's section 5) and waiting for a free QP; 0: every QP starts its next "
     "connection when the last completes"},
    {"vp-set", OPT_STR, 0, 0, EP(vp_set),
     "spray: the VPs to spray over, source ports (\"49152,49160\"; default: all of vps)",
     .size = sizeof(((struct ep_params *)0)->vp_set)},
    {"vps", OPT_UINT, 1, 65536 - VP_LO, EP(vps), "virtual paths: UDP source ports from 49152"},
    {"sport", OPT_UINT, 0, 65535, EP(sport),
     "single path: its source port, one of the VPs' (0: 49152, the first)"},
    {"seed", OPT_UINT, 0, 4294967295.0, EP(seed), "random seed (VP choices, IP IDs)"},
    {"dscp", OPT_INT, 0, 63, EP(dscp), "DSCP of data and ACKs (26: PFC priority 3)"},
    {"sender-qpn", OPT_UINT, 1, 0xffffff, EP(snd_qpn), "the sender's QPN (ACKs go to it)"},
    {"receiver-qpn", OPT_UINT, 1, 0xffffff, EP(rcv_qpn), "the receiver's QPN (data goes to it)"},
    {"ecn", OPT_STR, 0, 0, EP(ecn),
     "sojourn (emulated from one-way delay), wire (CE bits only) or off",
     .size = sizeof(((struct ep_params *)0)->ecn)},
    {"ecn-threshold", OPT_US, 0.001, 1000, EP(ecn_k_us),
     "emulated ECN: mark when one-way delay exceeds its minimum by this"},
    {"ack-delay", OPT_US, 0, 1000, EP(ack_delay_us),
     "the receiver holds each ACK this long (emulated propagation: the paper's BDP)"},
    {"rto-min", OPT_US, 0.01, 10000, EP(rto_min_us), "retransmission timeout floor"},
    {"qp-timeout", OPT_UINT, 1, 31, EP(qp_timeout),
     "single path: rxe's retransmission timer, 4.096 us x 2^N (14: 67 ms)"},
    {"srtt-init", OPT_US, 0.001, 1000, EP(srtt_init_us), "round trip assumed before the first"},
    {"interval", OPT_MS, 1, 60000, EP(interval_ms), "statistics line interval"},
    {"duration", OPT_MS, 0, 86400000, EP(duration_ms), "run this long (0: until stopped)"},
    OPT_TABLE_END,
};

void ep_defaults(struct ep_params *p)
{
	struct mpr_cfg c;

	mpr_cfg_default(&c);
	*p = (struct ep_params){
	    .delta = c.delta,
	    .bitmap = c.bitmap,
	    .iw = c.iw,
	    .probe = c.probe_ppm / 1e6,
	    .vps = 64,
	    .seed = 1,
	    .dscp = 26,
	    .snd_qpn = 0x200 + SPRAY_CONNS_MAX, /* room for a spraying workload's QPs */
	    .rcv_qpn = 0x200,
	    .ecn = "sojourn",
	    .mode = "rocelab",
	    .msg_kb = c.msg_pkts,
	    .notify_every = c.notify_every,
	    .alpha = (double)c.alpha_q16 / MPR_ONE,
	    .receiver = "bitmap",
	    .recovery = "gbn",
	    .sync_wait = "delay",
	    .cc = "window",
	    .workload = "stream",
	    .spray = "round-robin",
	    .conns = 20,       /* Eunomia's section 4: 20 concurrent connections */
	    .size_min_kb = 16, /* the brief's D.8: 16 KB to 4 MB, AliStorage-like, scaled */
	    .size_max_kb = 4096,
	    .ecn_k_us = 700,	 /* the brief's T_K: about 4 packets at 50 Mbit/s */
	    .rto_min_us = 10000, /* this rig's scheduling stalls reach milliseconds */
	    .qp_timeout = 14,	 /* ibv_rc_pingpong's (rdma-core libibverbs/examples) */
	    .srtt_init_us = 100,
	    .interval_ms = 10,
	};
}

int ep_check(const struct ep_params *p, enum ep_ecn *ecn, char *err, size_t errlen)
{
	if (!strcmp(p->ecn, "sojourn"))
		*ecn = EP_ECN_SOJOURN;
	else if (!strcmp(p->ecn, "wire"))
		*ecn = EP_ECN_WIRE;
	else if (!strcmp(p->ecn, "off"))
		*ecn = EP_ECN_OFF;
	else {
		snprintf(err, errlen, "ecn '%s': give sojourn, wire or off", p->ecn);
		return -EINVAL;
	}
	enum mpr_credit credit;

	if (strcmp(p->mode, "rocelab") && strcmp(p->mode, "paper")) {
		snprintf(err, errlen, "mode '%s': give rocelab or paper", p->mode);
		return -EINVAL;
	}
	if (*p->scoreboard && strcmp(p->scoreboard, "on") && strcmp(p->scoreboard, "off")) {
		snprintf(err, errlen, "scoreboard '%s': give on or off", p->scoreboard);
		return -EINVAL;
	}
	enum mpr_probe_mode probe_mode;

	if (*p->probe_mode && mpr_probe_mode_parse(p->probe_mode, &probe_mode)) {
		snprintf(err, errlen, "probe-mode '%s': give per-rtt or per-packet", p->probe_mode);
		return -EINVAL;
	}
	if (strcmp(p->cc, "window") && strcmp(p->cc, "dcqcn")) {
		snprintf(err, errlen, "cc '%s': give window or dcqcn", p->cc);
		return -EINVAL;
	}
	if (!strcmp(p->cc, "dcqcn") && (!p->single_path || p->line_mbit < 1)) {
		snprintf(err, errlen,
			 "cc dcqcn is the single path's, paced at a line: give --single-path and "
			 "--line MBIT (at least 1, the rate of the link it leaves by)");
		return -EINVAL;
	}
	if (strcmp(p->recovery, "gbn") && strcmp(p->recovery, "irn")) {
		snprintf(err, errlen, "recovery '%s': give gbn or irn", p->recovery);
		return -EINVAL;
	}
	if (!strcmp(p->recovery, "irn") && !p->single_path) {
		snprintf(err, errlen,
			 "recovery irn is the single path's (IRN's selective repeat): give "
			 "--single-path, or leave recovery out for MP-RDMA");
		return -EINVAL;
	}
	enum mpr_nack nack;

	if (*p->nack && mpr_nack_parse(p->nack, &nack)) {
		snprintf(err, errlen, "nack '%s': give once or every", p->nack);
		return -EINVAL;
	}
	enum mpr_sync_wait sync_wait;

	if (mpr_sync_wait_parse(p->sync_wait, &sync_wait)) {
		snprintf(err, errlen, "sync-wait '%s': give delay or stop-wait", p->sync_wait);
		return -EINVAL;
	}
	if (*p->credit && mpr_credit_parse(p->credit, &credit)) {
		snprintf(err, errlen, "credit '%s': give once, per-reply or paper", p->credit);
		return -EINVAL;
	}
	bool spray = !strcmp(p->workload, "spray");

	if (!spray && strcmp(p->workload, "stream")) {
		snprintf(err, errlen, "workload '%s': give stream or spray", p->workload);
		return -EINVAL;
	}
	if (strcmp(p->receiver, "bitmap") && strcmp(p->receiver, "eunomia") &&
	    (!spray || strcmp(p->receiver, "gbn"))) {
		snprintf(err, errlen, "receiver '%s': give bitmap or eunomia%s", p->receiver,
			 spray ? " or gbn"
			       : " (gbn: with workload spray; the stream's go-back-N "
				 "is single-path)");
		return -EINVAL;
	}
	if (!strcmp(p->receiver, "eunomia") &&
	    (p->single_path || p->bitmap != EU_CAP_ROWS * EU_BLOCK_BITS)) {
		snprintf(
		    err, errlen,
		    "receiver eunomia: Eunomia's HD bitmap reaches 256 packets on a multi-path "
		    "flow: give bitmap 256 and no single-path");
		return -EINVAL;
	}
	if (!spray && p->load_mbit > 0) {
		snprintf(err, errlen,
			 "load %g Mbit/s: an offered load is the spraying workload's (workload "
			 "spray); the stream is backlogged",
			 p->load_mbit);
		return -EINVAL;
	}
	if (spray && spray_check(p, err, errlen))
		return -EINVAL;
	if (p->delta > p->bitmap) {
		snprintf(err, errlen, "delta %u is more than bitmap %u: give delta <= bitmap",
			 p->delta, p->bitmap);
		return -EINVAL;
	}
	if (p->sport && (!p->single_path || p->sport < VP_LO || p->sport >= VP_LO + p->vps)) {
		snprintf(err, errlen,
			 "sport %u: with single-path, give one of the VPs' ports, %u to %u",
			 p->sport, VP_LO, VP_LO + p->vps - 1);
		return -EINVAL;
	}
	if (p->snd_qpn == p->rcv_qpn) {
		snprintf(err, errlen, "sender-qpn and receiver-qpn are both 0x%x: give two QPNs",
			 p->snd_qpn);
		return -EINVAL;
	}
	return 0;
}

/* ---- sender ----------------------------------------------------------------------------- */

/* Per VP figures at an interval's start, to print the interval's own. */
struct vp_bin {
	unsigned long long data, acks, resent, prunes;
};

struct vp_stat {
	unsigned long long sent, retx, acks, ece, nacks, prunes;
	unsigned long long data;   /* sends, probes aside */
	unsigned long long resent; /* copies sent on this VP that were sent again */
	struct vp_bin at_bin;
	uint64_t bin; /* the last bin it sent in, + 1 */
	/* its clocking: a packet sent after its last ACK and unanswered for 3 RTTs is lost */
	uint64_t last_send, last_ack;
	bool lost_said;
};

struct snd_bin {
	struct mpr_snd_stats st;
	struct dp_stats dp;
};

struct snd_ep {
	struct ep_core c;
	struct mpr_snd s;
	struct mpr_wire_ep wep;
	uint64_t rng;
	unsigned vps;
	struct vp_stat *vp;
	struct tw_timer t_snd;
	unsigned vps_in_bin;
	struct snd_bin last;
	unsigned long long bad;
	uint8_t payload[MPR_WIRE_PAYLOAD];
};

static void snd_queue(struct snd_ep *e, const struct mpr_pkt *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct vp_stat *v = &e->vp[p[i].vp - VP_LO];
		ssize_t len;

		mpr_wire_pattern(p[i].psn, e->payload, sizeof(e->payload));
		len = mpr_wire_data(e->c.q.buf[e->c.q.n], sizeof(e->c.q.buf[0]), &e->wep,
				    ep_fresh_ip_id(&e->rng), &p[i], e->payload, sizeof(e->payload));
		if (len < 0)
			continue; /* cannot happen: the buffer holds a full packet */
		v->sent++;
		v->retx += p[i].retx;
		v->data += !p[i].probe;
		v->last_send = p[i].tx_ns;
		v->lost_said = false;
		if (p[i].lost_vp >= VP_LO && p[i].lost_vp < VP_LO + e->vps)
			e->vp[p[i].lost_vp - VP_LO].resent++;
		if (v->bin != e->c.bin + 1) {
			v->bin = e->c.bin + 1;
			e->vps_in_bin++;
		}
		ep_txq_push(&e->c.q, (size_t)len, e->wep.dst);
	}
}

static void snd_arm(struct snd_ep *e)
{
	uint64_t d = mpr_snd_deadline(&e->s);

	if (d == MPR_NEVER)
		tw_cancel(&e->c.loop.tw, &e->t_snd);
	else if (!tw_armed(&e->t_snd) || e->t_snd.at != d)
		tw_arm(&e->c.loop.tw, &e->t_snd, d);
}

static void snd_on_timer(void *ctx, uint64_t now)
{
	struct snd_ep *e = ctx;
	struct mpr_pkt out[MPR_OUT_MAX];

	if (mpr_snd_deadline(&e->s) <= now)
		snd_queue(e, out, mpr_snd_timer(&e->s, now, out));
	ep_txq_flush(&e->c.q);
	snd_arm(e);
}

static void snd_ack(void *ctx, const struct dp_rx *rx, uint64_t now)
{
	struct snd_ep *e = ctx;
	struct mpr_pkt out[MPR_OUT_MAX];
	struct roce_ip ip;
	struct mpr_ack a;
	uint32_t qpn;
	unsigned long long prunes = e->s.st.prunes;
	struct vp_stat *v;

	if (mpr_wire_parse_ack(rx->pkt, rx->len, &ip, &qpn, &a) ||
	    ip.src.s_addr != e->wep.dst.s_addr || a.vp < VP_LO || a.vp >= VP_LO + e->vps) {
		e->bad++;
		return;
	}
	snd_queue(e, out, mpr_snd_ack(&e->s, &a, now, out));
	v = &e->vp[a.vp - VP_LO];
	v->acks++;
	v->last_ack = now;
	v->ece += a.ece;
	v->nacks += a.nack;
	v->prunes += e->s.st.prunes - prunes;
}

static void snd_on_rx(void *ctx, uint64_t now)
{
	struct snd_ep *e = ctx;

	ep_core_drain(&e->c, snd_ack, e, now, NULL);
	snd_arm(e);
}

#define D(f) (json_int_t)(st.f - e->last.st.f)

static void snd_on_bin(void *ctx, uint64_t now)
{
	struct snd_ep *e = ctx;
	struct mpr_snd_stats st = e->s.st;
	struct dp_stats dp;
	json_t *per_vp = json_array(), *lost = json_array();

	for (unsigned i = 0; i < e->vps; i++) {
		struct vp_stat *v = &e->vp[i];

		struct vp_bin d = {v->data - v->at_bin.data, v->acks - v->at_bin.acks,
				   v->resent - v->at_bin.resent, v->prunes - v->at_bin.prunes};

		/*
		 * [vp, sends, acks, resent, prunes] for each VP that sent (probes
		 * aside) or was ACKed this interval: which paths carry the flow,
		 * which stopped answering, which lost packets (their copies were
		 * sent again) and which were pruned as too slow
		 */
		if (d.data || d.acks || d.resent || d.prunes)
			json_array_append_new(
			    per_vp, json_pack("[i,I,I,I,I]", (int)(VP_LO + i), (json_int_t)d.data,
					      (json_int_t)d.acks, (json_int_t)d.resent,
					      (json_int_t)d.prunes));
		v->at_bin = (struct vp_bin){v->data, v->acks, v->resent, v->prunes};
		/*
		 * VPs that lost their clocking this interval (the brief's D.7): their
		 * last packet went out after their last ACK and none came for 3 RTTs.
		 * A VP that simply stops (its ACK found the window closed) never is.
		 */
		if (!v->lost_said && v->last_send > v->last_ack &&
		    now - v->last_send >= 3 * e->s.srtt) {
			json_array_append_new(lost, json_integer(VP_LO + i));
			v->lost_said = true;
		}
	}
	e->c.q.dp->stats(e->c.q.port, &dp);
	ep_emit_bin(&e->c,
		    json_pack("{s:s,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:i,s:I,s:I,s:I,s:"
			      "I,s:f,s:f,s:o,s:o}",
			      "type", "snd", "t", (double)rl_realtime_ns() / 1e9, "sent", D(sent),
			      "retx", D(retx), "probes", D(probes), "acks", D(acks), "ece_acks",
			      D(ece_acks), "nacks", D(nacks), "prunes", D(prunes), "rtos", D(rtos),
			      "recoveries", D(recoveries), "cwnd", mpr_snd_cwnd(&e->s), "vps_used",
			      (int)e->vps_in_bin, "tx_full",
			      (json_int_t)(dp.tx_full - e->last.dp.tx_full), "unroutable",
			      (json_int_t)(dp.tx_unroutable - e->last.dp.tx_unroutable), "inflight",
			      (json_int_t)(e->s.snd_nxt - e->s.snd_una), "inflate",
			      (json_int_t)e->s.inflate, "srtt_us", (double)e->s.srtt / 1e3,
			      /* until the retransmission timer fires (0: none armed): what a
				 stalled flow waits */
			      "rto_left_ms",
			      e->s.rto_at == MPR_NEVER || e->s.rto_at <= now
				  ? 0.0
				  : (double)(e->s.rto_at - now) / 1e6,
			      "vp_sent", per_vp, "vp_lost", lost));
	e->last = (struct snd_bin){st, dp};
	e->vps_in_bin = 0;
	ep_core_next_bin(&e->c);
}

#undef D

static void snd_end(struct snd_ep *e, double secs)
{
	const struct mpr_snd_stats *st = &e->s.st;
	json_t *vps = json_array();
	struct dp_stats dp;

	e->c.q.dp->stats(e->c.q.port, &dp);
	for (unsigned i = 0; i < e->vps; i++) {
		const struct vp_stat *v = &e->vp[i];

		if (v->sent || v->acks)
			json_array_append_new(
			    vps,
			    json_pack("{s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "vp", (int)(VP_LO + i),
				      "sent", (json_int_t)v->sent, "retx", (json_int_t)v->retx,
				      "acks", (json_int_t)v->acks, "ece", (json_int_t)v->ece,
				      "resent", (json_int_t)v->resent, "nacks",
				      (json_int_t)v->nacks, "prunes", (json_int_t)v->prunes));
	}
	json_t *end = json_pack(
	    "{s:s,s:f,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:"
	    "b,s:s,s:s,s:s,s:s,s:o}",
	    "type", "snd-end", "t", (double)rl_realtime_ns() / 1e9, "seconds", secs, "sent",
	    (json_int_t)st->sent, "retx", (json_int_t)st->retx, "probes", (json_int_t)st->probes,
	    "acks", (json_int_t)st->acks, "nacks", (json_int_t)st->nacks, "prunes",
	    (json_int_t)st->prunes, "rtos", (json_int_t)st->rtos, "snd_una",
	    (json_int_t)e->s.snd_una, "tx_full", (json_int_t)dp.tx_full, "unroutable",
	    (json_int_t)dp.tx_unroutable, "rx_overflow", (json_int_t)dp.rx_overflow, "foreign",
	    (json_int_t)e->bad, "wakeups", (json_int_t)e->c.loop.wakeups, "scoreboard",
	    e->s.cfg.scoreboard, "credit", mpr_credit_name(e->s.cfg.credit), "nack",
	    mpr_nack_name(e->s.cfg.nack), "recovery", mpr_recovery_name(&e->s.cfg), "sync_wait",
	    mpr_sync_wait_name(e->s.cfg.sync_wait), "per_vp", vps);

	/* the single path's congestion control; DCQCN's rate at the end and the CNPs it took */
	json_object_set_new(end, "cc",
			    json_string(e->s.cfg.cc == MPR_CC_DCQCN ? "dcqcn" : "window"));
	if (e->s.cfg.cc == MPR_CC_DCQCN) {
		json_object_set_new(end, "rate_mbit", json_real((double)e->s.dq.rc / 1e6));
		json_object_set_new(end, "cnps", json_integer((json_int_t)e->s.dq.cnps));
	}
	ep_emit_end(&e->c, end);
}

void ep_snd_cfg(const struct ep_params *p, struct mpr_cfg *c)
{
	mpr_cfg_default(c);
	c->single_path = p->single_path;
	c->delta = p->delta;
	c->bitmap = p->bitmap; /* the receiver is L = 1 in single-path mode */
	c->ooo_aware = !p->ooo_off;
	c->iw = p->iw;
	c->probe_ppm = (uint32_t)(p->probe * 1e6 + 0.5);
	if (!strcmp(p->mode, "paper"))
		mpr_cfg_paper(c);
	if (*p->scoreboard)
		c->scoreboard = !strcmp(p->scoreboard, "on");
	if (*p->probe_mode)
		mpr_probe_mode_parse(p->probe_mode, &c->probe_mode);
	if (*p->credit)
		mpr_credit_parse(p->credit, &c->credit);
	if (*p->nack)
		mpr_nack_parse(p->nack, &c->nack);
	c->notify_every = p->notify_every;
	c->msg_pkts = p->msg_kb;
	c->sync_ppm = (uint32_t)(p->sync * 1e6 + 0.5);
	c->alpha_q16 = (uint32_t)(p->alpha * MPR_ONE + 0.5);
	mpr_sync_wait_parse(p->sync_wait, &c->sync_wait);
	c->eunomia_rx = !strcmp(p->receiver, "eunomia");
	c->vp_lo = (uint16_t)(p->sport ? p->sport : VP_LO);
	c->vp_hi = (uint16_t)(VP_LO + p->vps - 1);
	c->rto_min_ns = (uint64_t)p->rto_min_us * 1000;
	c->qp_timeout_ns = 4096ULL << p->qp_timeout;
	c->srtt_init_ns = (uint64_t)p->srtt_init_us * 1000;
	if (p->single_path && !strcmp(p->cc, "dcqcn"))
		mpr_dcqcn_default(c, (uint64_t)(p->line_mbit * 1e6), c->srtt_init_ns);
	if (p->single_path && !strcmp(p->recovery, "irn"))
		mpr_irn_default(c, p->bitmap, c->rto_min_ns);
}

int ep_send(const struct inventory *inv, const char *from, const char *to,
	    const struct ep_params *p, const volatile sig_atomic_t *stop, FILE *out)
{
	const struct inv_rnic *me, *peer;
	struct snd_ep *e;
	struct mpr_cfg c;
	struct mpr_pkt first[MPR_OUT_MAX];
	enum ep_ecn ecn;
	const char *why = NULL;
	char err[256], a1[INET_ADDRSTRLEN], a2[INET_ADDRSTRLEN], line[32];
	double secs;
	int r = RL_EXIT_SETUP;

	ep_snd_cfg(p, &c);
	if (ep_check(p, &ecn, err, sizeof(err)) ||
	    (strcmp(p->workload, "spray") && mpr_cfg_check(&c, &why))) {
		fprintf(stderr, "rocelab: transport send: %s\n", why ? why : err);
		return RL_EXIT_USAGE;
	}
	if (!strcmp(p->workload, "spray"))
		return spray_send(inv, from, to, p, stop, out);
	if (ep_find_rnic(inv, from, &me) || ep_find_rnic(inv, to, &peer))
		return RL_EXIT_USAGE;
	e = rl_xcalloc(1, sizeof(*e));
	e->c.out = out;
	e->vps = p->vps;
	e->vp = rl_xcalloc(p->vps, sizeof(*e->vp));
	e->rng = (uint64_t)p->seed * 0x9e3779b97f4a7c15ULL + 0x5eed;
	e->wep = (struct mpr_wire_ep){.src = me->addr.addr,
				      .dst = peer->addr.addr,
				      .dst_qpn = p->rcv_qpn,
				      .dscp = (uint8_t)p->dscp};
	mpr_snd_init(&e->s, &c, p->seed ? p->seed : 1);
	tw_timer_init(&e->t_snd, snd_on_timer, e);
	if (ep_core_open(&e->c, me, p->snd_qpn, 1, p->interval_ms, p->duration_ms, snd_on_rx,
			 snd_on_bin, e))
		goto clean;
	inet_ntop(AF_INET, &me->addr.addr, a1, sizeof(a1));
	inet_ntop(AF_INET, &peer->addr.addr, a2, sizeof(a2));
	snprintf(line, sizeof(line), "%g Mbit/s", p->line_mbit);
	fprintf(
	    stderr,
	    "rocelab: transport send: %s (%s) -> %s (%s), %s%s%s, %u VPs, delta %u, bitmap %u%s, "
	    "scoreboard %s, credit %s\n",
	    from, a1, to, a2,
	    !p->single_path   ? "MP-RDMA"
	    : mpr_cfg_irn(&c) ? "single path (IRN's selective repeat)"
			      : "single path (go-back-N)",
	    c.cc == MPR_CC_DCQCN ? ", DCQCN's rate from " : "", c.cc == MPR_CC_DCQCN ? line : "",
	    p->single_path ? 1 : p->vps, p->delta,
	    p->single_path && !mpr_cfg_irn(&c) ? 1 : c.bitmap,
	    p->ooo_off ? ", out-of-order control off" : "", c.scoreboard ? "on" : "off",
	    mpr_credit_name(c.credit));
	/* A backlogged sender: data for longer than any run. */
	snd_queue(e, first, mpr_snd_push(&e->s, 0x7fffffff, e->c.t0, first));
	ep_txq_flush(&e->c.q);
	snd_arm(e);
	secs = ep_core_run(&e->c, stop);
	snd_end(e, secs < 0 ? 0 : secs);
	r = secs < 0 ? RL_EXIT_SETUP : RL_EXIT_OK;
	ep_core_close(&e->c);
clean:
	free(e->vp);
	free(e);
	return r;
}

/* ---- receiver --------------------------------------------------------------------------- */

#define HELD_MAX 8192 /* ACKs held for ack-delay: 5 ms at 1.6 Mpps */

struct held_ack {
	uint64_t due;
	struct in_addr dst;
	uint16_t len;
	uint8_t pkt[MPR_WIRE_ACK_HDR + 64];
};

#define PLACED_RING 4096 /* beyond any receiver's reach (MPR_L_MAX) */

struct rcv_bin {
	struct mpr_rcv_stats st;
	unsigned long long ce, ce_wire, pattern_bad;
};

struct rcv_ep {
	struct ep_core c;
	struct mpr_rcv r;
	struct mpr_wire_ep wep;
	enum ep_ecn ecn;
	uint64_t ack_delay_ns, rng;
	struct ep_sojourn soj;
	uint64_t rt_off; /* CLOCK_REALTIME - CLOCK_MONOTONIC, read with each receive batch */
	struct held_ack *held;
	unsigned held_head, held_n;
	unsigned long long ce, ce_wire, pattern_bad, bad, held_full, kernel_ts, from_app;
	/*
	 * What the application's memory holds, kept apart from the state
	 * machine: a bit a PSN placed (accepted, not a duplicate) beyond
	 * placed_upto, every PSN below it placed.  A synchronise packet placed
	 * while an earlier message is not whole is sync_early: the update it
	 * carries (a flag after its data, say) would be seen before the data.
	 */
	uint64_t placed[PLACED_RING / 64];
	uint32_t placed_upto;
	unsigned long long sync_placed, sync_early, placed_beyond;
	struct mpr_ood ood;	/* the run's, but for the interval in ood_bin */
	struct mpr_ood ood_bin; /* this interval's, for an OOD per phase (mpr_comp.c) */
	uint32_t ood_bin_max;	/* this interval */
	size_t mem_max;		/* the ordering memory's high-water mark this interval */
	struct tw_timer t_held;
	struct rcv_bin last;
};

static void rcv_release_held(void *ctx, uint64_t now)
{
	struct rcv_ep *e = ctx;

	while (e->held_n && e->held[e->held_head].due <= now) {
		struct held_ack *h = &e->held[e->held_head];

		memcpy(e->c.q.buf[e->c.q.n], h->pkt, h->len);
		ep_txq_push(&e->c.q, h->len, h->dst);
		e->held_head = (e->held_head + 1) % HELD_MAX;
		e->held_n--;
	}
	ep_txq_flush(&e->c.q);
	if (e->held_n)
		tw_arm(&e->c.loop.tw, &e->t_held, e->held[e->held_head].due);
}

static void rcv_reply(struct rcv_ep *e, const struct mpr_ack *a, uint64_t now)
{
	uint8_t *b;
	size_t cap;
	ssize_t len;

	if (!e->ack_delay_ns) {
		b = e->c.q.buf[e->c.q.n];
		cap = sizeof(e->c.q.buf[0]);
	} else if (e->held_n == HELD_MAX) {
		e->held_full++; /* counted: a run with any is rig-limited */
		return;
	} else {
		struct held_ack *h = &e->held[(e->held_head + e->held_n) % HELD_MAX];

		b = h->pkt;
		cap = sizeof(h->pkt);
	}
	len = mpr_wire_ack(b, cap, &e->wep, ep_fresh_ip_id(&e->rng), a);
	if (len < 0)
		return;
	if (!e->ack_delay_ns) {
		ep_txq_push(&e->c.q, (size_t)len, e->wep.dst);
		return;
	}
	struct held_ack *h = &e->held[(e->held_head + e->held_n++) % HELD_MAX];

	h->due = now + e->ack_delay_ns;
	h->dst = e->wep.dst;
	h->len = (uint16_t)len;
	if (!tw_armed(&e->t_held))
		tw_arm(&e->c.loop.tw, &e->t_held, h->due);
}

/* A PSN placed in the application's memory; the run of placed PSNs from placed_upto moves on. */
static void rcv_place(struct rcv_ep *e, uint32_t psn)
{
	if (psn < e->placed_upto)
		return;
	if (psn - e->placed_upto >= PLACED_RING) {
		e->placed_beyond++; /* beyond any receiver's reach: a state machine bug */
		return;
	}
	e->placed[psn % PLACED_RING / 64] |= 1ULL << (psn % 64);
	while (e->placed[e->placed_upto % PLACED_RING / 64] >> (e->placed_upto % 64) & 1) {
		e->placed[e->placed_upto % PLACED_RING / 64] &= ~(1ULL << (e->placed_upto % 64));
		e->placed_upto++;
	}
}

static void rcv_data(void *ctx, const struct dp_rx *rx, uint64_t now)
{
	struct rcv_ep *e = ctx;
	struct roce_ip ip;
	struct mpr_pkt p;
	struct mpr_rx_result res;
	const uint8_t *pl;
	size_t plen;
	uint32_t qpn;
	bool ce_wire;

	if (mpr_wire_parse_data(rx->pkt, rx->len, &ip, &qpn, &p, &pl, &plen)) {
		e->bad++;
		return;
	}
	e->kernel_ts += rx->kernel_ts;
	e->from_app += !rx->kernel_ts;
	ce_wire = p.ce && e->ecn != EP_ECN_OFF;
	p.ce = ce_wire;
	if (e->ecn == EP_ECN_SOJOURN && ep_sojourn(&e->soj, rx->rx_ns - e->rt_off, p.tx_ns))
		p.ce = true;
	e->ce += p.ce;
	e->ce_wire += ce_wire;
	mpr_rcv_data(&e->r, &p, &res);
	if (!res.duplicate && !res.dropped) {
		if (!mpr_wire_pattern_ok(p.psn, pl, plen))
			e->pattern_bad++;
		if (p.sync) {
			e->sync_placed++;
			e->sync_early += e->placed_upto < p.msg_first;
		}
		rcv_place(e, p.psn);
	}
	if (mpr_rcv_bytes(&e->r) > e->mem_max)
		e->mem_max = mpr_rcv_bytes(&e->r);
	if (mpr_ood_add(&e->ood_bin, &e->r, &res)) {
		if (res.ood > e->ood_bin_max)
			e->ood_bin_max = res.ood;
	}
	if (res.reply) {
		e->wep.dst = ip.src;
		rcv_reply(e, &res.ack, now);
	}
}

static void rcv_on_rx(void *ctx, uint64_t now)
{
	struct rcv_ep *e = ctx;

	ep_core_drain(&e->c, rcv_data, e, now, &e->rt_off);
}

#define D(f) (json_int_t)(st.f - e->last.st.f)

/*
 * This interval's OOD histogram into the run's and back to empty; with h,
 * also appended to it as [[degree, arrivals], ...] of the degrees that
 * arrived (0 counts: it is the denominator).
 */
static void ood_bin_fold(struct rcv_ep *e, json_t *h)
{
	uint32_t top = e->ood_bin_max < MPR_OOD_MAX ? e->ood_bin_max : MPR_OOD_MAX;

	for (uint32_t v = 0; v <= top; v++)
		if (e->ood_bin.hist[v]) {
			if (h)
				json_array_append_new(
				    h, json_pack("[i,i]", (int)v, (int)e->ood_bin.hist[v]));
			e->ood.hist[v] += e->ood_bin.hist[v];
			e->ood_bin.hist[v] = 0;
		}
	e->ood.n += e->ood_bin.n;
	e->ood_bin.n = 0;
	e->ood_bin_max = 0;
}

static void rcv_on_bin(void *ctx, uint64_t now)
{
	struct rcv_ep *e = ctx;
	struct mpr_rcv_stats st = e->r.st;
	uint32_t ood_max = e->ood_bin_max;
	json_t *ood_hist = json_array();

	ood_bin_fold(e, ood_hist);
	ep_emit_bin(
	    &e->c,
	    json_pack("{s:s,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:i,s:o,s:f,s:I,s:I,"
		      "s:I}",
		      "type", "rcv", "t", (double)rl_realtime_ns() / 1e9, "data", D(data),
		      "delivered", D(delivered), "dups", D(dups), "overflow_drops",
		      D(overflow_drops), "acks", D(acks), "nacks", D(nacks), "ce",
		      (json_int_t)(e->ce - e->last.ce), "ce_wire",
		      (json_int_t)(e->ce_wire - e->last.ce_wire), "pattern_bad",
		      (json_int_t)(e->pattern_bad - e->last.pattern_bad), "ood_max", (int)ood_max,
		      "ood_hist", ood_hist, "queue_us_mean",
		      e->soj.n ? e->soj.queue_us_sum / (double)e->soj.n : 0.0, "queue_us_max",
		      (json_int_t)e->soj.queue_us_max, "ord_bytes",
		      (json_int_t)mpr_rcv_bytes(&e->r), "ord_bytes_max",
		      (json_int_t)(e->mem_max > mpr_rcv_bytes(&e->r) ? e->mem_max
								     : mpr_rcv_bytes(&e->r))));
	e->mem_max = 0;
	e->soj.queue_us_sum = 0;
	e->soj.n = e->soj.queue_us_max = 0;
	e->last = (struct rcv_bin){st, e->ce, e->ce_wire, e->pattern_bad};
	ep_core_next_bin(&e->c);
	(void)now;
}

#undef D

static void rcv_end(struct rcv_ep *e, double secs)
{
	const struct mpr_rcv_stats *st = &e->r.st;
	struct dp_stats dp;

	ood_bin_fold(e, NULL);
	e->c.q.dp->stats(e->c.q.port, &dp);
	ep_emit_end(
	    &e->c,
	    json_pack(
		"{s:s,s:f,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:i,s:i,s:i,s:I,s:I,s:I,"
		"s:I,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
		"type", "rcv-end", "t", (double)rl_realtime_ns() / 1e9, "seconds", secs, "data",
		(json_int_t)st->data, "delivered", (json_int_t)st->delivered, "dups",
		(json_int_t)st->dups, "overflow_drops", (json_int_t)st->overflow_drops, "acks",
		(json_int_t)st->acks, "nacks", (json_int_t)st->nacks, "ce", (json_int_t)e->ce,
		"ce_wire", (json_int_t)e->ce_wire, "pattern_bad", (json_int_t)e->pattern_bad,
		"ood_p99", (int)mpr_ood_quantile(&e->ood, 0.99), "ood_p999",
		(int)mpr_ood_quantile(&e->ood, 0.999), "ood_max", (int)st->ood_max, "rx_overflow",
		(json_int_t)dp.rx_overflow, "tx_full", (json_int_t)dp.tx_full, "held_full",
		(json_int_t)e->held_full, "foreign", (json_int_t)e->bad, "timestamps",
		e->from_app ? (e->kernel_ts ? "mixed" : "clock_gettime") : "kernel-software",
		"unroutable", (json_int_t)dp.tx_unroutable, "sync_placed",
		(json_int_t)e->sync_placed, "sync_early", (json_int_t)e->sync_early, "sync_refused",
		(json_int_t)st->sync_drops, "placed_beyond", (json_int_t)e->placed_beyond,
		"messages", (json_int_t)st->msgs, "completions", (json_int_t)st->cqes));
}

int ep_recv(const struct inventory *inv, const char *at, const struct ep_params *p,
	    const volatile sig_atomic_t *stop, FILE *out)
{
	const struct inv_rnic *me;
	struct rcv_ep *e;
	struct mpr_cfg c;
	enum ep_ecn ecn;
	char err[256];
	double secs;
	int r = RL_EXIT_SETUP;

	if (ep_check(p, &ecn, err, sizeof(err))) {
		fprintf(stderr, "rocelab: transport recv: %s\n", err);
		return RL_EXIT_USAGE;
	}
	if (!strcmp(p->workload, "spray"))
		return spray_recv(inv, at, p, ecn, stop, out);
	if (ep_find_rnic(inv, at, &me))
		return RL_EXIT_USAGE;
	e = rl_xcalloc(1, sizeof(*e));
	e->c.out = out;
	e->ecn = ecn;
	e->soj.k_ns = (uint64_t)p->ecn_k_us * 1000;
	e->ack_delay_ns = (uint64_t)p->ack_delay_us * 1000;
	e->rng = (uint64_t)p->seed * 0xbf58476d1ce4e5b9ULL + 0xacc;
	e->wep = (struct mpr_wire_ep){
	    .src = me->addr.addr, .dst_qpn = p->snd_qpn, .dscp = (uint8_t)p->dscp};
	if (e->ack_delay_ns)
		e->held = rl_xcalloc(HELD_MAX, sizeof(*e->held));
	ep_snd_cfg(p, &c);
	if (mpr_rcv_init_cfg(&e->r, &c)) {
		fprintf(stderr, "rocelab: transport recv: out of memory\n");
		goto clean;
	}
	tw_timer_init(&e->t_held, rcv_release_held, e);
	if (ep_core_open(&e->c, me, p->rcv_qpn, 1, p->interval_ms, p->duration_ms, rcv_on_rx,
			 rcv_on_bin, e))
		goto clean;
	fprintf(stderr,
		"rocelab: transport recv: %s (%s), %s %u, a NACK %s, ECN %s%s, ACK delay %lld us\n",
		at, inet_ntoa(me->addr.addr), e->r.eu ? "Eunomia's HD bitmap, reach" : "bitmap",
		e->r.L, e->r.nack_once ? "once a hole" : "every drop", p->ecn,
		ecn == EP_ECN_SOJOURN ? " (emulated from one-way delay)" : "", p->ack_delay_us);
	secs = ep_core_run(&e->c, stop);
	rcv_end(e, secs < 0 ? 0 : secs);
	r = secs < 0 ? RL_EXIT_SETUP : RL_EXIT_OK;
	ep_core_close(&e->c);
clean:
	mpr_rcv_free(&e->r);
	free(e->held);
	free(e);
	return r;
}

/* ---- paths: each VP's route, traced --------------------------------------------------- */

#define SWEEP_EVERY_NS 1000000000ULL /* one sweep a second, when it runs for a while */
#define PATHS_BATCH    64	     /* VPs traced together (a socket each) */
/*
 * A round's probes leave this far apart.  Back to back, the 16 of 64 that
 * cross a link degraded to 1.25 Mbit/s held it for 10 ms each round: the
 * flow's probe packet queued behind them arrived 8-12 ms late, 140-250
 * packets out of order, which set the OOD p99.9 of mprdma-degraded-marked-ood
 * (the tracer measured itself).  Paced, 64 take 32 ms a round.
 */
#define PATHS_GAP_US 500

/*
 * One VP's trace as a JSON line: the addresses that answered TTL 1, 2, ...
 * (null: none), the peer's own last when reached.
 */
static void paths_line(FILE *out, unsigned sweep, unsigned vp, const struct trace_hop *h, int n,
		       bool reached)
{
	json_t *hops = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(hops, h[i].addr.s_addr ? json_string(inet_ntoa(h[i].addr))
							     : json_null());
	ep_emit(out, json_pack("{s:s,s:f,s:i,s:i,s:o,s:b}", "type", "trace", "t",
			       (double)rl_realtime_ns() / 1e9, "sweep", (int)sweep, "vp", (int)vp,
			       "hops", hops, "reached", reached));
}

int ep_paths(const struct inventory *inv, const char *from, const char *to,
	     const struct ep_params *p, const volatile sig_atomic_t *stop, FILE *out)
{
	const struct inv_rnic *me, *peer;
	unsigned long long t0 = rl_now_ns(), traced = 0, reached = 0;
	unsigned sweep = 0;
	enum ep_ecn ecn;
	char err[256];

	if (ep_check(p, &ecn, err, sizeof(err))) {
		fprintf(stderr, "rocelab: transport paths: %s\n", err);
		return RL_EXIT_USAGE;
	}
	if (ep_find_rnic(inv, from, &me) || ep_find_rnic(inv, to, &peer))
		return RL_EXIT_USAGE;
	fprintf(stderr, "rocelab: transport paths: %s -> %s, %u VPs (UDP source ports %u-%u)%s\n",
		from, to, p->vps, VP_LO, VP_LO + p->vps - 1,
		p->duration_ms ? ", a sweep a second" : "");
	do {
		unsigned long long start = rl_now_ns();

		for (unsigned i0 = 0; i0 < p->vps && !*stop; i0 += PATHS_BATCH) {
			unsigned k = p->vps - i0 < PATHS_BATCH ? p->vps - i0 : PATHS_BATCH;
			struct trace_req req[PATHS_BATCH];
			struct trace_hop hops[PATHS_BATCH][TRACE_MAX_HOPS];
			int n[PATHS_BATCH], res[PATHS_BATCH], r;

			for (unsigned i = 0; i < k; i++)
				req[i] = (struct trace_req){.src = me->addr.addr,
							    .dst = peer->addr.addr,
							    .sport = (uint16_t)(VP_LO + i0 + i),
							    .dport = ROCEV2_UDP_PORT,
							    .max_ttl = 8,
							    .timeout_ms = 100,
							    .max_misses = 2,
							    .gap_us = PATHS_GAP_US};
			r = trace_udp_many(req, k, hops, n, res);
			if (r && r != -EINTR) {
				fprintf(stderr,
					"rocelab: transport paths: cannot trace from %s: %s\n",
					from, strerror(-r));
				return RL_EXIT_SETUP;
			}
			for (unsigned i = 0; !r && i < k; i++) {
				/* reached: the peer itself answered (a router's "unreachable" ends
				 * a trace too); an endpoint holding UDP 4791 stays silent */
				bool at_peer =
				    res[i] == 0 && n[i] > 0 &&
				    hops[i][n[i] - 1].addr.s_addr == peer->addr.addr.s_addr;

				paths_line(out, sweep, VP_LO + i0 + i, hops[i], n[i], at_peer);
				traced++;
				reached += at_peer;
			}
		}
		sweep++;
		while (p->duration_ms && !*stop && rl_now_ns() - start < SWEEP_EVERY_NS &&
		       rl_now_ns() - t0 < (unsigned long long)p->duration_ms * 1000000)
			nanosleep(&(struct timespec){0, 20000000}, NULL);
	} while (p->duration_ms && !*stop &&
		 rl_now_ns() - t0 < (unsigned long long)p->duration_ms * 1000000);
	ep_emit(out, json_pack("{s:s,s:f,s:i,s:I,s:I}", "type", "paths-end", "t",
			       (double)rl_realtime_ns() / 1e9, "sweeps", (int)sweep, "traced",
			       (json_int_t)traced, "reached", (json_int_t)reached));
	return RL_EXIT_OK;
}
