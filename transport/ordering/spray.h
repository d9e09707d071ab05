/* SPDX-License-Identifier: MIT */
/*
 * Eunomia's sender agent over a spraying load balancer
 * (../shared/briefs/mp-rdma-eunomia.md C.1, D.8): one finite connection
 * whose packets go round-robin (or at random) over a set of VPs (UDP
 * source ports) balanced across the spines, each carrying Eunomia's
 * metadata (the connection's Head and the last-packet bit).
 *
 * The window is MP-RDMA's per-ACK ECN rule: +1/cwnd on a clean reply,
 * -1/2 on an ECN-echo one, never below one packet.  SACK: the packet is
 * delivered, nothing is resent.  NACK from a receiver with ordering
 * support: the packet it names was dropped and is resent (selective
 * repeat), and so is the hole it reports, once a hole.  NACK from a
 * receiver without (go-back-N): everything from the hole is sent again.
 * No progress for the timeout (the cumulative ACK still, no packet newly
 * SACKed; NACKs do not count): go back N from the cumulative ACK at the
 * initial window.  Choices the paper leaves open ([inferred] in the brief):
 * the hole resent once, the window after a timeout, and the timeout
 * itself: IRN's is fixed, but a sprayed window collects on a degraded
 * path (its packets stay longest), whose queue then outlasts any fixed
 * timeout a healthy fabric would choose, and each spurious go-back adds
 * to that queue.  So the timeout is RFC 6298's, from the send times
 * replies echo (Karn: never a retransmission's), and at least twice the
 * slowest round trip seen (forgotten by 1/64 a sample: a sprayed slow path
 * answers one reply in n_vps) and rto_ns; doubled on each timeout, to at
 * most 64 rto_ns.
 *
 * Pure: no I/O, no clock reads; storage is allocated once, at init.
 */
#ifndef ROCELAB_SPRAY_H
#define ROCELAB_SPRAY_H

#include "transport/ordering/eunomia.h"

#include <stdbool.h>
#include <stdint.h>

#define SPR_VPS_MAX 64
#define SPR_NEVER   UINT64_MAX

struct spr_cfg {
	uint16_t vps[SPR_VPS_MAX];
	unsigned n_vps;
	bool random; /* a random VP a packet, not round-robin */
	bool ecmp;   /* every packet on the connection's one VP, as a per-flow hash puts it */
	bool gbn;    /* the receiver has no ordering support: a NACK goes back N */
	unsigned iw; /* the initial window, packets */
	unsigned cwnd_max;
	uint64_t rto_ns; /* the smallest timeout (nothing heard this long: go back N) */
};

struct spr_pkt {
	uint32_t seq, head; /* head: the connection's first sequence (Eunomia's metadata) */
	uint16_t vp;
	bool last, retx;
	uint64_t tx_ns; /* echoed by the reply */
};

/*
 * A receiver's reply, as eu_result gives it, with the ECN echo, send time
 * and retransmission flag of the packet it answers.
 */
struct spr_reply {
	enum eu_reply reply;
	uint32_t ack, seq;
	bool ece, retx;
	uint64_t tx_ns;
};

struct spr_stats {
	unsigned long long sent, retx, acks, sacks, nacks, ece, timeouts, go_backs;
};

struct spr_snd {
	struct spr_cfg cfg;
	uint64_t rng;
	uint32_t head, n;      /* sequences head .. head + n - 1 */
	uint32_t una, nxt;     /* cumulatively ACKed below una; new data from nxt */
	uint32_t hole_resent;  /* the hole last resent on a NACK, + 1 (0: none) */
	unsigned rr, inflight; /* the next VP round-robin; packets in the network */
	double cwnd;
	uint64_t rto_at, srtt, rttvar, rtt_max, rto; /* srtt 0: no sample yet */
	uint8_t *state; /* per packet: SPR_UNSENT, SPR_OUT, SPR_LOST, SPR_DONE */
	struct spr_stats st;
};

/*
 * Defaults: round-robin, selective repeat, IW 16, cwnd at most 256,
 * timeouts from 10 ms (50 round trips of a healthy lab path; an RNIC's QP
 * timeout is 67 ms at rdma-core's usual 14).
 */
void spr_cfg_default(struct spr_cfg *cfg);
/*
 * A connection of n packets from sequence head; 0, -EINVAL (no VPs, n 0,
 * a zero window or timeout), -ENOMEM.  Free with spr_free().
 */
int spr_init(struct spr_snd *s, const struct spr_cfg *cfg, uint32_t head, uint32_t n,
	     uint64_t seed);
void spr_free(struct spr_snd *s);

/* What the window lets out now, at most max packets into out; their count. */
unsigned spr_pull(struct spr_snd *s, uint64_t now, struct spr_pkt *out, unsigned max);
/* One reply (EU_DROP never comes: nothing is sent for it). */
void spr_reply(struct spr_snd *s, const struct spr_reply *r, uint64_t now);
/* When spr_timer() should run, or SPR_NEVER. */
uint64_t spr_deadline(const struct spr_snd *s);
void spr_timer(struct spr_snd *s, uint64_t now);
/* Every packet is cumulatively acknowledged. */
bool spr_done(const struct spr_snd *s);

#endif
