// SPDX-License-Identifier: MIT
/*
 * Eunomia's spraying sender agent (spray.h) in exact sequences, and the
 * receiver NIC of each kind it is compared with (ordrx.h): replies,
 * counters and the NIC-wide ordering memory.
 */
#include "transport/ordering/ordrx.h"
#include "transport/ordering/spray.h"

#include <criterion/criterion.h>
#include <errno.h>

#define H 1000u /* the connection's Head */

static struct spr_snd snd(unsigned n, bool gbn)
{
	struct spr_cfg cfg;
	struct spr_snd s;

	spr_cfg_default(&cfg);
	cfg.vps[0] = 100, cfg.vps[1] = 101, cfg.vps[2] = 102;
	cfg.n_vps = 3;
	cfg.iw = 4;
	cfg.gbn = gbn;
	cr_assert_eq(spr_init(&s, &cfg, H, n, 3), 0);
	return s;
}

/* Pulls and checks the sequences (relative to H) and retransmission flags. */
static void pull(struct spr_snd *s, uint64_t now, unsigned n, const uint32_t *seq, const bool *retx)
{
	struct spr_pkt out[16];
	unsigned k = spr_pull(s, now, out, 16);

	cr_assert_eq(k, n, "pulled %u, not %u", k, n);
	for (unsigned i = 0; i < n; i++) {
		cr_assert_eq(out[i].seq, H + seq[i], "packet %u: seq %u, not %u", i, out[i].seq - H,
			     seq[i]);
		cr_assert_eq(out[i].retx, retx[i], "packet %u (seq %u): retx", i, seq[i]);
		cr_assert_eq(out[i].head, H);
		cr_assert_eq(out[i].last, out[i].seq == H + s->n - 1);
	}
}

static void reply(struct spr_snd *s, enum eu_reply r, uint32_t ack, uint32_t seq, bool ece)
{
	spr_reply(s, &(struct spr_reply){r, H + ack, H + seq, ece}, 0);
}

Test(spray, bad_configuration_is_refused)
{
	struct spr_cfg cfg;
	struct spr_snd s;

	spr_cfg_default(&cfg);
	cr_assert_eq(spr_init(&s, &cfg, 0, 10, 1), -EINVAL); /* no VPs */
	cfg.n_vps = 1;
	cr_assert_eq(spr_init(&s, &cfg, 0, 0, 1), -EINVAL); /* no packets */
	cr_assert_eq(spr_init(&s, &cfg, UINT32_MAX - 5, 10, 1), -EINVAL);
	cfg.iw = 0;
	cr_assert_eq(spr_init(&s, &cfg, 0, 10, 1), -EINVAL);
}

Test(spray, round_robin_and_the_window)
{
	struct spr_snd s = snd(8, false);
	struct spr_pkt out[8];

	cr_assert_eq(spr_pull(&s, 0, out, 8), 4);
	/* seed 3 over 3 VPs starts at the first, round-robin after */
	for (unsigned i = 0; i < 4; i++)
		cr_assert_eq(out[i].vp, 100 + i % 3);
	cr_assert_eq(spr_pull(&s, 0, out, 8), 0, "the window is full");
	cr_assert_eq(spr_deadline(&s), 10000000);
	spr_free(&s);
}

/* ECMP, the baseline: every packet of a connection on its one VP, which its seed picks. */
Test(spray, ecmp_keeps_a_connection_on_one_vp)
{
	struct spr_snd s = snd(8, true);
	struct spr_pkt out[8];

	s.cfg.ecmp = true;
	cr_assert_eq(spr_pull(&s, 0, out, 8), 4);
	for (unsigned i = 0; i < 4; i++)
		cr_assert_eq(out[i].vp, 100, "seed 3 over 3 VPs: the first");
	spr_free(&s);
	struct spr_cfg cfg = s.cfg;

	cr_assert_eq(spr_init(&s, &cfg, H, 8, 4), 0);
	cr_assert_eq(spr_pull(&s, 0, out, 8), 4);
	for (unsigned i = 0; i < 4; i++)
		cr_assert_eq(out[i].vp, 101, "seed 4: the second");
	spr_free(&s);
}

Test(spray, sack_resends_nothing_nack_resends_the_drop_and_the_hole_once)
{
	struct spr_snd s = snd(8, false);

	pull(&s, 0, 4, (uint32_t[]){0, 1, 2, 3}, (bool[]){0, 0, 0, 0});
	/* SACK 2: delivered, nothing resent; one packet fewer in flight, cwnd 4.25 */
	reply(&s, EU_SACK, 0, 2, false);
	cr_assert_eq(s.inflight, 3);
	pull(&s, 0, 1, (uint32_t[]){4}, (bool[]){0});
	/* NACK 3 (dropped beyond the window) with hole 0: both resent */
	reply(&s, EU_NACK, 0, 3, false);
	cr_assert_eq(s.inflight, 2);
	pull(&s, 0, 2, (uint32_t[]){0, 3}, (bool[]){1, 1});
	/* another NACK with the same hole: only its drop is resent */
	reply(&s, EU_NACK, 0, 4, false);
	pull(&s, 0, 1, (uint32_t[]){4}, (bool[]){1});
	cr_assert_eq(s.st.sent, 8);
	cr_assert_eq(s.st.retx, 3);
	/* the hole filled: ACK 5 settles all, three new packets, the last flagged */
	reply(&s, EU_ACK, 5, 0, false);
	cr_assert_eq(s.inflight, 0);
	pull(&s, 0, 3, (uint32_t[]){5, 6, 7}, (bool[]){0, 0, 0});
	cr_assert_eq(s.st.acks, 1);
	cr_assert_eq(s.st.sacks, 1);
	cr_assert_eq(s.st.nacks, 2);
	reply(&s, EU_ACK, 8, 0, false);
	cr_assert(spr_done(&s));
	cr_assert_eq(spr_deadline(&s), SPR_NEVER);
	spr_free(&s);
}

Test(spray, the_ecn_rule_per_reply)
{
	struct spr_snd s = snd(100, false);
	struct spr_pkt out[16];

	spr_pull(&s, 0, out, 16);
	reply(&s, EU_ACK, 1, 0, false);
	cr_assert_float_eq(s.cwnd, 4.25, 1e-9);
	reply(&s, EU_SACK, 1, 3, true);
	cr_assert_float_eq(s.cwnd, 3.75, 1e-9);
	for (int i = 0; i < 10; i++)
		reply(&s, EU_ACK, 1, 0, true);
	cr_assert_float_eq(s.cwnd, 1, 1e-9, "never below one packet");
	cr_assert_eq(s.st.ece, 11);
	spr_free(&s);
}

Test(spray, a_timeout_goes_back_n_at_the_initial_window)
{
	struct spr_snd s = snd(8, false);

	pull(&s, 0, 4, (uint32_t[]){0, 1, 2, 3}, (bool[]){0, 0, 0, 0});
	reply(&s, EU_SACK, 0, 1, false); /* cwnd 4.25, the deadline now + 10 ms */
	pull(&s, 0, 1, (uint32_t[]){4}, (bool[]){0});
	spr_timer(&s, 9999999);
	cr_assert_eq(s.st.timeouts, 0, "not yet");
	spr_timer(&s, 10000000);
	cr_assert_eq(s.st.timeouts, 1);
	cr_assert_eq(spr_deadline(&s), SPR_NEVER);
	/* from the cumulative ACK, the SACKed one skipped, four again; the timeout doubled */
	pull(&s, 10000000, 4, (uint32_t[]){0, 2, 3, 4}, (bool[]){1, 1, 1, 1});
	cr_assert_eq(spr_deadline(&s), 30000000);
	for (int i = 0; i < 10; i++)
		spr_timer(&s, spr_deadline(&s)),
		    spr_pull(&s, s.rto_at, (struct spr_pkt[16]){0}, 16);
	cr_assert_eq(s.rto, 640000000, "at most 64 times the smallest");
	spr_free(&s);
}

/*
 * The hole's one resend lost, and every packet past the receiver's reach
 * NACKed and sent again: NACKs are no progress, so the timeout still
 * fires from the last SACK and goes back to the hole (before, each NACK
 * pushed it on and the sender resent NACKed packets for good).
 */
Test(spray, nacks_alone_do_not_hold_the_timeout_off)
{
	struct spr_snd s = snd(8, false);
	struct spr_pkt out[16];
	uint64_t t = 1000000;

	pull(&s, 0, 4, (uint32_t[]){0, 1, 2, 3}, (bool[]){0, 0, 0, 0});
	spr_reply(&s, &(struct spr_reply){EU_SACK, H, H + 1, false}, t);
	cr_assert_eq(spr_deadline(&s), t + 10000000, "a SACK is progress: the timeout from it");
	/* 2 and 3 past the reach: NACKed; the hole (0) resent once, then only 2 and 3 */
	spr_reply(&s, &(struct spr_reply){EU_NACK, H, H + 2, false}, t + 1000);
	cr_assert_eq(s.st.nacks, 1);
	for (int round = 0; round < 50; round++) {
		uint64_t now = t + 2000 + (uint64_t)round * 100000;
		unsigned k = spr_pull(&s, now, out, 16);

		for (unsigned i = 0; i < k; i++)
			if (out[i].seq != H)
				spr_reply(&s, &(struct spr_reply){EU_NACK, H, out[i].seq, false},
					  now + 50000);
		cr_assert_eq(spr_deadline(&s), t + 10000000,
			     "round %d: a NACK moved the timeout to %llu", round,
			     (unsigned long long)spr_deadline(&s));
	}
	cr_assert_gt(s.st.nacks, 50);
	spr_timer(&s, t + 10000000);
	cr_assert_eq(s.st.timeouts, 1, "the timeout fired");
	/* back to the hole: 0 first, at the initial window */
	{
		unsigned k = spr_pull(&s, t + 10000000, out, 16);

		cr_assert_geq(k, 1);
		cr_assert_eq(out[0].seq, H, "the hole again");
		cr_assert(out[0].retx);
	}
	/* a duplicate ACK is no progress either */
	spr_reply(&s, &(struct spr_reply){EU_ACK, H, H, false}, t + 12000000);
	cr_assert_eq(spr_deadline(&s), t + 10000000 + 20000000, "from the go-back, doubled");
	spr_free(&s);
}

Test(spray, the_timeout_follows_the_slowest_round_trip)
{
	struct spr_snd s = snd(100, false);
	struct spr_pkt out[16];

	spr_pull(&s, 0, out, 16);
	/* 20 ms: srtt 20, rttvar 10, the timeout 60 ms */
	spr_reply(&s, &(struct spr_reply){EU_ACK, H + 1, 0, false, false, 1000000}, 21000000);
	cr_assert_eq(s.rto, 60000000);
	cr_assert_eq(spr_deadline(&s), 21000000 + 60000000);
	/* a retransmission's echo is no sample (Karn) */
	spr_reply(&s, &(struct spr_reply){EU_ACK, H + 2, 0, false, true, 1000000}, 90000000);
	cr_assert_eq(s.srtt, 20000000);
	/* fast replies shrink srtt and rttvar, but twice the slowest stays the floor */
	for (int i = 0; i < 40; i++)
		spr_reply(&s,
			  &(struct spr_reply){EU_SACK, H + 2, H + 3 + (uint32_t)i, false, false,
					      100000000},
			  100200000);
	cr_assert_lt(s.srtt + 4 * s.rttvar, 20000000);
	cr_assert_gt(s.rto, 2 * 20000000 * 0.5, "the slowest round trip, forgotten slowly");
	cr_assert_eq(s.rto, 2 * s.rtt_max);
	spr_free(&s);
}

Test(spray, a_nak_from_a_receiver_without_ordering_goes_back_n)
{
	struct spr_snd s = snd(8, true);

	pull(&s, 0, 4, (uint32_t[]){0, 1, 2, 3}, (bool[]){0, 0, 0, 0});
	reply(&s, EU_ACK, 1, 0, false);
	reply(&s, EU_NACK, 1, 3, false);
	cr_assert_eq(s.st.go_backs, 1);
	cr_assert_eq(s.inflight, 0);
	pull(&s, 0, 4, (uint32_t[]){1, 2, 3, 4}, (bool[]){1, 1, 1, 0});
	spr_free(&s);
}

/* One packet to rx's connection c; its reply checked. */
static void rx(struct ord_rx *r, unsigned c, uint32_t seq, bool last, enum eu_reply want)
{
	struct eu_result res;

	cr_assert_eq(ord_rx_data(r, c, seq, 0, last, &res), 0);
	cr_assert_eq(res.reply, want, "%s: conn %u seq %u: reply %d, not %d",
		     ord_kind_name(r->kind), c, seq, res.reply, want);
}

/* The NIC's memory now, and the static 256-bit bitmap's for its live connections. */
static void mem(const struct ord_rx *r, size_t total, size_t bitmap, unsigned live)
{
	struct ord_mem m;

	ord_rx_mem(r, &m);
	cr_assert_eq(m.total, total, "%s: %zu B, not %zu", ord_kind_name(r->kind), m.total, total);
	cr_assert_eq(m.bitmap, bitmap, "%s: bitmaps %zu B, not %zu", ord_kind_name(r->kind),
		     m.bitmap, bitmap);
	cr_assert_eq(m.static_total, 41 * live);
	cr_assert_eq(m.static_bitmap, 32 * live);
}

Test(ordrx, a_connection_reset_midway_gives_its_memory_back)
{
	for (int k = 0; k < ORD_KINDS; k++) {
		struct ord_rx *r = ord_rx_new(k, 2);

		cr_assert_not_null(r);
		rx(r, 0, 0, false, EU_ACK);
		rx(r, 0, 5, false, k == ORD_GBN ? EU_NACK : EU_SACK);
		rx(r, 0, 40, false, k == ORD_GBN ? EU_DROP : EU_SACK);
		cr_assert_eq(ord_rx_reset(r, 0), 0);
		mem(r, 0, 0, 0);
		cr_assert_eq(r->eu.mc.used, 0, "%s: every block back", ord_kind_name(k));
		/* the QP's next flow, from its own Head */
		struct eu_result res;

		cr_assert_eq(ord_rx_data(r, 0, 1000, 1000, true, &res), 0);
		cr_assert(res.completed && res.deliver_from == 1000 && res.deliver_to == 1001);
		cr_assert_eq(ord_rx_reset(r, 2), -EINVAL);
		ord_rx_free(r);
	}
}

/*
 * A NIC of 4 QPs, one connection live and reordering: the idle QPs cost
 * Eunomia its DBA each and a static bitmap all of it (the paper's section
 * 4 counts every connection the NIC holds), so with few QPs busy
 * Eunomia's total is below the static bitmap's; and the QP's memory once
 * the connection completed is its DBA again.
 */
Test(ordrx, idle_qps_hold_a_dba_or_a_whole_static_bitmap)
{
	static const size_t busy[ORD_KINDS] = {
	    [ORD_EUNOMIA] = 3 * 4 + 4 + 48 + 2,
	    [ORD_STATIC256] = 4 * 41,
	    [ORD_STATIC64] = 4 * 17,
	    [ORD_GBN] = 0,
	};
	static const size_t idle[ORD_KINDS] = {[ORD_EUNOMIA] = 4 * 4,
					       [ORD_STATIC256] = 4 * 41,
					       [ORD_STATIC64] = 4 * 17,
					       [ORD_GBN] = 0};

	for (int k = 0; k < ORD_KINDS; k++) {
		struct ord_rx *r = ord_rx_new(k, 4);
		struct ord_mem m;

		cr_assert_not_null(r);
		r->qps = 4;
		ord_rx_mem(r, &m);
		cr_assert_eq(m.total, idle[k], "%s: %zu B idle", ord_kind_name(k), m.total);
		cr_assert_eq(m.static_total, 4 * 41);
		cr_assert_eq(m.static_bitmap, 4 * 32);
		rx(r, 2, 0, false, EU_ACK);
		rx(r, 2, 3, true, k == ORD_GBN ? EU_NACK : EU_SACK);
		ord_rx_mem(r, &m);
		cr_assert_eq(m.total, busy[k], "%s: %zu B with one reordering", ord_kind_name(k),
			     m.total);
		cr_assert_eq(m.static_total, 4 * 41, "the static bitmaps count once a QP");
		if (k == ORD_EUNOMIA)
			cr_assert_lt(m.total, m.static_total);
		rx(r, 2, 1, false, EU_ACK);
		rx(r, 2, 2, false, EU_ACK);
		if (k == ORD_GBN)
			rx(r, 2, 3, true, EU_ACK);
		cr_assert_eq(r->live, 0, "%s: completed", ord_kind_name(k));
		ord_rx_mem(r, &m);
		cr_assert_eq(m.total, idle[k], "%s: %zu B after completion", ord_kind_name(k),
			     m.total);
		ord_rx_free(r);
	}
}

Test(ordrx, kinds_by_name)
{
	for (int k = 0; k < ORD_KINDS; k++)
		cr_assert_eq(ord_kind_parse(ord_kind_name(k)), k);
	cr_assert_eq(ord_kind_parse("static128"), -EINVAL);
	cr_assert_null(ord_rx_new(ORD_KINDS, 4));
	cr_assert_null(ord_rx_new(ORD_EUNOMIA, 0));
}

Test(ordrx, memory_of_each_kind_over_a_connections_life)
{
	/* conn 0 in order, conn 1 reordered, then both complete: total and bitmap bytes */
	static const size_t want[ORD_KINDS][4] = {
	    [ORD_EUNOMIA] = {4, 8, 8 + 48 + 2, 0},
	    [ORD_STATIC256] = {41, 82, 82, 0},
	    [ORD_STATIC64] = {17, 34, 34, 0},
	    [ORD_GBN] = {0, 0, 0, 0},
	};
	static const size_t want_bm[ORD_KINDS][4] = {
	    [ORD_EUNOMIA] = {0, 0, 2, 0},
	    [ORD_STATIC256] = {32, 64, 64, 0},
	    [ORD_STATIC64] = {8, 16, 16, 0},
	    [ORD_GBN] = {0, 0, 0, 0},
	};

	for (int k = 0; k < ORD_KINDS; k++) {
		struct ord_rx *r = ord_rx_new(k, 3);
		struct eu_result res;

		cr_assert_not_null(r);
		mem(r, 0, 0, 0);
		rx(r, 0, 0, false, EU_ACK);
		mem(r, want[k][0], want_bm[k][0], 1);
		rx(r, 1, 0, false, EU_ACK);
		mem(r, want[k][1], want_bm[k][1], 2);
		rx(r, 1, 2, true, k == ORD_GBN ? EU_NACK : EU_SACK);
		mem(r, want[k][2], want_bm[k][2], 2);
		rx(r, 0, 1, true, EU_ACK);
		if (k == ORD_GBN) {
			rx(r, 1, 1, false, EU_ACK);
			rx(r, 1, 2, true, EU_ACK);
		} else {
			rx(r, 1, 1, false, EU_ACK);
		}
		cr_assert_eq(r->live, 0, "%s", ord_kind_name(k));
		mem(r, want[k][3], want_bm[k][3], 0);
		cr_assert_eq(ord_rx_data(r, 1, 3, 0, false, &res), -EINVAL, "completed");
		cr_assert_eq(ord_rx_data(r, 3, 0, 0, false, &res), -EINVAL, "no such connection");
		cr_assert_eq(r->eu.nacks, k == ORD_GBN);
		cr_assert_eq(r->eu.sacks, k != ORD_GBN);
		ord_rx_free(r);
	}
}
