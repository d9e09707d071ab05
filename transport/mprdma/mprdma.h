/* SPDX-License-Identifier: MIT */
/*
 * MP-RDMA, the multi-path RDMA transport (../shared/papers/mp-rdma-nsdi18.txt;
 * ../shared/briefs/mp-rdma-eunomia.md sections A.2-A.4), as pure state
 * machines: no I/O, no clock reads (the time is passed in, in ns), a seeded
 * RNG and a Q16.16 window, so that tests assert exact values.  Also the
 * single-path go-back-N sender (rxe-like) it is compared with.
 *
 * The sender returns the packets it wants sent in an array the caller
 * gives (at most MPR_OUT_MAX per call); the receiver answers each data
 * packet with at most one ACK or NACK.  A virtual path (VP) is the UDP
 * source port; the fabric's ECMP maps it to a physical path.
 *
 * PSNs are 32-bit and grow within a connection (no wrap: a run is far
 * shorter than 2^31 packets).  Functions return 0 or -errno.
 */
#ifndef ROCELAB_MPRDMA_H
#define ROCELAB_MPRDMA_H

#include "transport/ordering/eunomia.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Q16.16 fixed point: one packet of window. */
#define MPR_ONE 65536u
/* The sender's SACK scoreboard: packets in flight at most. */
#define MPR_SB 4096u
/* The receiver's bitmap may be set up to this many slots (the paper's L is 64). */
#define MPR_L_MAX 1024u
/* Packets one call may ask to send, at most. */
#define MPR_OUT_MAX 64u
#define MPR_NEVER   UINT64_MAX

/*
 * How replies give window credit back (inflate).  ONCE: each PSN once, the
 * first reply above snd_una (rocelab's default; it needs the scoreboard).
 * PER_REPLY: every reply, as the paper counts, and none owed once the
 * receiver holds nothing above its cumulative ACK (rocelab's addition: the
 * paper's count leaks).  PAPER: every reply, nothing more (see mpr_snd_ack()).
 */
enum mpr_credit {
	MPR_CREDIT_ONCE,
	MPR_CREDIT_PER_REPLY,
	MPR_CREDIT_PAPER,
};

/*
 * What the receiver answers a packet it drops beyond its bitmap with.
 * ONCE: the paper's "a NACK will be generated ... to notify the PSN of the
 * lost packet" (section 3.3.3), one for each hole (rcv_nxt), the rest of
 * the drops unanswered; a lost retransmission waits for the RTO, as the
 * paper says.  EVERY: rocelab's addition, a NACK for every dropped packet,
 * so each drop's window credit comes back (mpr_rcv.c).
 */
enum mpr_nack {
	MPR_NACK_EVERY,
	MPR_NACK_ONCE,
};

/*
 * When a synchronise message may leave (section 3.4).  DELAY: the paper's
 * MP-RDMA, Δt = α·Δ·RTT/cwnd after the previous message's end (about half
 * a round trip), optimistic: the receiver drops and NACKs one that still
 * comes early.  STOP_WAIT: the paper's "MP-RDMA (Stop-Wait)" of Fig. 19,
 * only once every earlier message is acknowledged (about a round trip).
 */
enum mpr_sync_wait {
	MPR_SYNC_DELAY,
	MPR_SYNC_STOP_WAIT,
};

/*
 * The single path's loss recovery.  GBN: rxe's (an in-order receiver NAKs a
 * gap once, the sender goes back to it and sends everything after it
 * again).  IRN: selective repeat as IRN (Mittal et al., SIGCOMM'18) and
 * conweave-ns3's IrnEnable model it: the receiver keeps what arrives out
 * of order within one BDP and answers each packet with its PSN (a SACK);
 * the sender's first such answer starts a recovery that resends only what
 * the receiver misses below the highest PSN it holds (a single path
 * delivers in order, so those were lost), its packets in flight are capped
 * at one BDP (BDP-FC), and its timeout is short with 3 packets or fewer in
 * flight (RTO_low), long otherwise (RTO_high).
 */
enum mpr_sp_recovery {
	MPR_SP_GBN,
	MPR_SP_IRN,
};

/*
 * The single path's congestion control: the MP-RDMA window on its one VP
 * (ECN +1/cwnd, -1/2), or DCQCN's rate (a RoCE NIC's: Zhu et al.,
 * SIGCOMM'15, as Mellanox's NICs run it; see mpr_snd.c).
 */
enum mpr_cc {
	MPR_CC_WINDOW,
	MPR_CC_DCQCN,
};

/*
 * DCQCN's reaction point.  The DCQCN paper's values are for 40 Gbit/s and
 * a 12 µs fabric; mpr_dcqcn_default() scales its times by the round trip
 * and its rates by the line rate, so the rate moves as many steps a round
 * trip and by the same share of the line.
 */
struct mpr_dcqcn {
	uint64_t line_bps;  /* the NIC's rate: where it starts, and its ceiling */
	uint64_t min_bps;   /* the floor */
	unsigned pkt_bytes; /* a data packet on the wire (paces the sends) */
	uint32_t g_ppm;	    /* α's gain (1/256) */
	uint64_t alpha_ns;  /* α update period (55 µs) */
	uint64_t timer_ns;  /* rate increase timer (55 µs) */
	uint64_t cnp_ns;    /* the notification point's CNP interval: one per 50 µs at most */
	unsigned f;	    /* fast recovery steps before additive increase (5) */
	uint64_t rai_bps;   /* additive increase (40 Mbit/s of 40 Gbit/s) */
	uint64_t rhai_bps;  /* hyper increase (200 Mbit/s of 40 Gbit/s) */
};

enum mpr_probe_mode {
	MPR_PROBE_PER_RTT,    /* the paper: one Bernoulli(p) trial a round trip */
	MPR_PROBE_PER_PACKET, /* NS3-MP-RDMA: each packet with p, once a round trip passed */
};

struct mpr_cfg {
	unsigned iw;	    /* initial window, packets (the paper: 1 BDP) */
	unsigned delta;	    /* Δ, the out-of-order target (32), at most bitmap */
	unsigned bitmap;    /* L, the receiver's bitmap slots (64) */
	bool ooo_aware;	    /* prune slow paths (on); off for the ablation */
	uint32_t probe_ppm; /* probing probability p in parts per million (10000: 1%) */
	enum mpr_probe_mode probe_mode;
	unsigned burst;	       /* packets one ACK may clock out (2) */
	unsigned idle_rtts;    /* idle this many RTTs: restart from IW (3) */
	uint32_t alpha_q16;    /* synchronise delay α (1.0) */
	uint16_t vp_lo, vp_hi; /* virtual paths: UDP source ports (49152..65535) */
	uint64_t srtt_init_ns; /* RTT assumed before the first sample */
	uint64_t rto_min_ns;   /* retransmission timeout floor */
	/*
	 * The single path's retransmission timer, fixed, as rxe's: 4.096 us <<
	 * the QP's timeout attribute (rxe_qp_from_attr(); 14, as ibv_rc_pingpong
	 * sets it: 67.1 ms), re-armed on progress, never adapted or backed off.
	 */
	uint64_t qp_timeout_ns;
	uint32_t cwnd_max;   /* packets; at most MPR_SB / 2 */
	unsigned msg_pkts;   /* packets a message (the last one is its Tail) */
	unsigned sync_every; /* every n-th message is a synchronise one (0: none) */
	/*
	 * Or this share of the messages (parts per million), evenly spaced:
	 * message m > 0 is one when floor((m + 1) r) > floor(m r).  0: sync_every decides.
	 */
	uint32_t sync_ppm;
	enum mpr_sync_wait sync_wait;
	bool single_path;			  /* one VP (vp_lo): the baselines */
	enum mpr_sp_recovery sp_recovery;	  /* the single path's: rxe's go-back-N, or IRN's */
	uint64_t irn_rto_low_ns, irn_rto_high_ns; /* IRN: 3 packets or fewer in flight, more */
	enum mpr_cc cc; /* the single path's: its window, or DCQCN's rate */
	struct mpr_dcqcn dcqcn;
	enum mpr_credit credit;
	enum mpr_nack nack; /* the receiver's, beyond its bitmap (L = 1: rxe's, always once) */
	/*
	 * Every notify_every-th message asks the receiver for a completion
	 * (a SEND, or a WRITE with immediate: its Tail slot is "Tail with
	 * completion"); the others are WRITEs, whose Tail completes nothing at
	 * the receiver (section 3.3.1's four slot states).  1: every message.
	 */
	unsigned notify_every;
	/*
	 * rocelab's SACK scoreboard (a bit a PSN in flight for SACKed and for
	 * dropped, and each PSN's send time): recovery passes what the receiver
	 * holds, a lost retransmission is sent again at the next NACK, spare
	 * window resends only what is overdue.  Off is the paper's sender
	 * (section 3.3.3): recovery resends every PSN from the NACKed one up to
	 * snd_nxt at the NACK, one an ACK, and a lost retransmission waits for
	 * the RTO; its state is the paper's budget (mpr_snd_bytes()).
	 */
	bool scoreboard;
	/*
	 * The receiver is Eunomia's HD bitmap (transport/ordering), not an
	 * L-slot one; bitmap must then be its reach, 256 (issue 15: MP-RDMA
	 * without out-of-order control over Eunomia).
	 */
	bool eunomia_rx;
};

/* A data packet as the state machines see it (the wire carries the same fields). */
struct mpr_pkt {
	uint32_t psn;
	uint32_t msg_first; /* the first PSN of its message (the wire's iPSN offset) */
	uint16_t vp;
	bool retx, sync, tail, probe;
	bool cqe; /* a tail whose message asks the receiver for a completion */
	bool ce;  /* arrived with ECN CE (set by the fabric) */
	/*
	 * A retransmission: the VP its previous copy went on, which that copy
	 * presumably never crossed (0: a first send).  Not on the wire: the
	 * harness charges the loss to that path (the brief's D.7).
	 */
	uint16_t lost_vp;
	uint64_t tx_ns;
	uint16_t conn; /* a spraying workload's connection number (mpr_wire.h); 0 otherwise */
};

/* An ACK or NACK. */
struct mpr_ack {
	uint16_t vp;	   /* the echoed VP of the data packet */
	uint32_t sack;	   /* the PSN it answers */
	uint32_t aack;	   /* cumulative: every PSN below is in */
	uint32_t nack_psn; /* NACK: the missing PSN */
	bool ece, retx, nack, sync_fail;
	uint64_t tx_ns; /* the data packet's, echoed */
};

struct mpr_snd_stats {
	unsigned long long sent, retx, probes, acks, ece_acks, nacks, prunes, recoveries, rtos,
	    early_retx, lost_retx, window_cuts, burst_timer_sends, sync_holds, restarts;
};

enum mpr_mode { MPR_NORMAL, MPR_RECOVERY };

/* DCQCN's state (cc MPR_CC_DCQCN): the current and target rates, α, the timers. */
struct mpr_dcqcn_state {
	uint64_t rc, rt;   /* bits per second */
	uint32_t alpha;	   /* parts per million */
	unsigned stage;	   /* rate increase steps since the last decrease */
	bool cnp_seen;	   /* a CNP since α's last update */
	bool cnp_any;	   /* the first CNP came */
	uint64_t next_tx;  /* pacing: the next packet's time */
	bool backlog;	   /* the pacer, not the window or the data, held the last send back */
	uint64_t alpha_at; /* α's next update */
	uint64_t inc_at;   /* the next rate increase */
	uint64_t last_cnp; /* when the last CNP was accepted (the NP's interval) */
	unsigned long long cnps, decreases;
};

struct mpr_snd {
	struct mpr_cfg cfg;
	struct mpr_dcqcn_state dq;
	uint64_t rng;
	uint32_t cwnd;	      /* Q16.16 */
	int32_t inflate;      /* packets that left the network but are not yet cumulatively ACKed */
	uint64_t credit_from; /* inflate was reset then: replies to older copies carry no credit */
	uint32_t snd_una, snd_nxt, snd_max, total;
	uint32_t snd_ooh; /* highest SACKed PSN + 1 (0: none yet) */
	enum mpr_mode mode;
	uint32_t recovery, snd_retx;
	unsigned backlog; /* window burst control held back */
	uint64_t burst_at, rto_at, sync_at;
	uint32_t hold_psn; /* the synchronise message last counted in sync_holds, + 1 */
	uint64_t srtt, rttvar, rto;
	unsigned rto_backoff;
	uint64_t last_send, probe_epoch, last_probe, last_msg_end;
	bool probe_due, sent_any;
	uint64_t round_ns; /* when the recovery round began */
	uint64_t sacked[MPR_SB / 64];
	uint64_t dropped[MPR_SB / 64]; /* a NACK reported it dropped beyond the bitmap */
	uint64_t sent_ns[MPR_SB];      /* when each PSN in flight was last sent */
	uint16_t sent_vp[MPR_SB];      /* and on which VP */
	struct mpr_snd_stats st;
};

/* xorshift64*: small, seeded, the same sequence on every machine (*state nonzero). */
uint64_t mpr_rand(uint64_t *state);
/* A Poisson process's next gap (ns, at least 1): exponential of mean_ns, one mpr_rand() draw. */
uint64_t mpr_rand_gap(uint64_t *state, double mean_ns);

/* The paper's defaults (A.2), a 10 µs RTT assumed until measured, with rocelab's scoreboard and
 * credit. */
void mpr_cfg_default(struct mpr_cfg *cfg);
/*
 * The paper's connection exactly: no scoreboard, credit per reply (PAPER),
 * probing once a round trip at p, a NACK once a hole (the rest of cfg as
 * it is).
 */
void mpr_cfg_paper(struct mpr_cfg *cfg);
/*
 * DCQCN for the single path on a line of line_bps and a base round trip of
 * rtt_ns: the DCQCN paper's parameters (g 1/256, α and rate timers 55 µs,
 * CNPs 50 µs apart, F 5, R_AI 40 and R_HAI 200 Mbit/s at 40 Gbit/s), times
 * scaled by rtt_ns / 12 µs and rates by line_bps / 40 Gbit/s.
 */
void mpr_dcqcn_default(struct mpr_cfg *cfg, uint64_t line_bps, uint64_t rtt_ns);
/*
 * IRN on the single path (mpr_sp_recovery): the receiver and the packets
 * in flight bounded by bdp_pkts, its SACK bitmap (the scoreboard's bits),
 * RTO_high rto_high_ns and RTO_low in conweave-ns3's ratio to it (454 of
 * 1350 us).  Sets single_path; the congestion control is left as it is.
 */
void mpr_irn_default(struct mpr_cfg *cfg, unsigned bdp_pkts, uint64_t rto_high_ns);
/* "once", "per-reply", "paper" (NULL for another value); -EINVAL for an unknown name. */
const char *mpr_credit_name(enum mpr_credit c);
int mpr_credit_parse(const char *name, enum mpr_credit *c);
/* "per-rtt", "per-packet" (NULL for another value); -EINVAL for an unknown name. */
const char *mpr_probe_mode_name(enum mpr_probe_mode m);
int mpr_probe_mode_parse(const char *name, enum mpr_probe_mode *m);
/* cfg's single path recovers as IRN does (mpr_irn_default()). */
static inline bool mpr_cfg_irn(const struct mpr_cfg *cfg)
{
	return cfg->single_path && cfg->sp_recovery == MPR_SP_IRN;
}
/* How cfg's connection recovers loss: "mp-rdma", or the single path's "gbn" or "irn". */
const char *mpr_recovery_name(const struct mpr_cfg *cfg);
/* "every", "once" (NULL for another value); -EINVAL for an unknown name. */
const char *mpr_nack_name(enum mpr_nack n);
int mpr_nack_parse(const char *name, enum mpr_nack *n);
/* "delay", "stop-wait" (NULL for another value); -EINVAL for an unknown name. */
const char *mpr_sync_wait_name(enum mpr_sync_wait w);
int mpr_sync_wait_parse(const char *name, enum mpr_sync_wait *w);
/* 0, or -EINVAL with what is wrong in why (may be NULL). */
int mpr_cfg_check(const struct mpr_cfg *cfg, const char **why);

/* -EINVAL when cfg fails mpr_cfg_check(). */
int mpr_snd_init(struct mpr_snd *s, const struct mpr_cfg *cfg, uint64_t seed);

/*
 * The application hands n more packets of data.  A sender that was idle
 * for idle_rtts round trips (or never sent) restarts from IW, spread over
 * IW distinct random VPs.  Returns how many packets it put in out.
 */
unsigned mpr_snd_push(struct mpr_snd *s, uint32_t n, uint64_t now, struct mpr_pkt *out);
/* One ACK or NACK; returns how many packets it clocked out into out. */
unsigned mpr_snd_ack(struct mpr_snd *s, const struct mpr_ack *a, uint64_t now, struct mpr_pkt *out);
/* When mpr_snd_timer() should run next, or MPR_NEVER. */
uint64_t mpr_snd_deadline(const struct mpr_snd *s);
/* Runs the burst, synchronise and retransmission timers due at now. */
unsigned mpr_snd_timer(struct mpr_snd *s, uint64_t now, struct mpr_pkt *out);
/* Every pushed packet is cumulatively acknowledged. */
bool mpr_snd_done(const struct mpr_snd *s);
/* The window in packets, as a double (for reports). */
double mpr_snd_cwnd(const struct mpr_snd *s);
/*
 * The sender's state for this connection as a NIC would hold it, in bytes:
 * each field the configuration makes it use, at hardware widths (a PSN 3
 * bytes as BTH carries it, the window Q16.16 4, a time 4: µs on a 32-bit
 * timer), and the scoreboard's bits and send times when it is on.  With
 * mpr_rcv_bytes() it is what MP-RDMA adds to a connection (the paper's 66 B
 * is 49 + 17; transport/README.md lists the fields).  harness-only state
 * (statistics, which VP each copy took) is not counted.
 */
size_t mpr_snd_bytes(const struct mpr_cfg *cfg);

/* The receiver: a cyclic bitmap of L slots headed by rcv_nxt (section 3.3.1). */
struct mpr_rcv_stats {
	unsigned long long data, acks, nacks, dups, overflow_drops, sync_drops, msgs, cqes,
	    delivered;
	uint32_t ood_max;
};

struct mpr_rcv {
	unsigned L;
	bool nack_once; /* MPR_NACK_ONCE (L = 1: always) */
	uint32_t rcv_nxt;
	uint32_t nak_for;	 /* nack_once: the hole already NACKed, + 1 (0: none) */
	uint8_t slot[MPR_L_MAX]; /* Eunomia: only which PSNs are a message's tail */
	struct mpr_rcv_stats st;
	struct eu_rx *eu; /* Eunomia's receiver (one connection: the QP), or NULL */
	struct eu_conn euc;
};

/* What one data packet did at the receiver. */
struct mpr_rx_result {
	bool reply; /* ack holds an ACK or NACK to send */
	struct mpr_ack ack;
	bool dropped, duplicate;
	uint32_t ood;			   /* PSN - rcv_nxt on arrival (0 when late) */
	uint32_t deliver_from, deliver_to; /* now in order: [from, to) */
	unsigned msgs;			   /* messages completed, in order */
	unsigned cqes;			   /* of them, those that asked for a completion */
};

/*
 * L = 1 is the rxe-like receiver: in order or dropped, one NACK a hole.
 * Otherwise a NACK for every drop (MPR_NACK_EVERY); mpr_rcv_init_cfg()
 * takes the connection's.
 */
int mpr_rcv_init(struct mpr_rcv *r, unsigned L);
/*
 * The receiver cfg's connection needs: Eunomia's (eunomia_rx), rxe's
 * (single_path) or an L = bitmap one, answering drops as cfg->nack says.
 * -EINVAL, -ENOMEM; free with mpr_rcv_free().
 */
int mpr_rcv_init_cfg(struct mpr_rcv *r, const struct mpr_cfg *cfg);
/*
 * The same replies from Eunomia's receiver: the QP is one connection from
 * PSN 0 that never ends, whose HD bitmap (16-bit rows, 256 bits at most)
 * is made at its first out-of-order packet.  What is L or more beyond
 * rcv_nxt (L: the reach, 256) is dropped and NACKed as the L-slot
 * receiver does.  -ENOMEM; free with mpr_rcv_free().
 */
int mpr_rcv_init_eunomia(struct mpr_rcv *r);
void mpr_rcv_free(struct mpr_rcv *r);
/*
 * The receiver's ordering memory now: Eunomia's (4 B, + 48 + 2 a row once
 * it reordered), or an L-slot bitmap's two bits a slot (section 3.3.1: Empty,
 * Received, Tail, Tail with completion) and its head's index, 1 B (17 B at
 * L = 64: the Eunomia paper's Table 1 for MP-RDMA).  rcv_nxt is the PSN a
 * RoCE v2 responder expects anyway, and whether the hole was NACKed its
 * NAK-sent bit (rxe: resp.sent_psn_nak).
 */
size_t mpr_rcv_bytes(const struct mpr_rcv *r);
void mpr_rcv_data(struct mpr_rcv *r, const struct mpr_pkt *p, struct mpr_rx_result *res);

/*
 * The out-of-order degree as the paper reports it: each arrival's distance
 * above rcv_nxt, duplicates and a synchronise packet's drop aside (a drop
 * beyond the bitmap counts: it arrived that far out).  Zero it to start.
 */
#define MPR_OOD_MAX 4096 /* buckets; larger degrees land in the last */
struct mpr_ood {
	unsigned long long n;
	uint32_t hist[MPR_OOD_MAX + 1];
};

/* Count what one data packet did at receiver r; false when it does not count. */
bool mpr_ood_add(struct mpr_ood *o, const struct mpr_rcv *r, const struct mpr_rx_result *res);
/* The smallest degree at or below which a share q of arrivals sits (0 when none). */
uint32_t mpr_ood_quantile(const struct mpr_ood *o, double q);

#endif
