// SPDX-License-Identifier: MIT
/*
 * MP-RDMA's sender and receiver, exact: the design brief's acceptance
 * sequences (../shared/briefs/mp-rdma-eunomia.md F.1-F.7), the rxe-like
 * single-path baseline, and a sender/receiver pair over a random lossy,
 * reordering channel that must deliver every packet once, in order.
 */
#include "transport/mprdma/mprdma.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define US 1000ULL

static struct mpr_cfg cfg_exact(void)
{
	struct mpr_cfg c;

	mpr_cfg_default(&c);
	c.iw = 10;
	c.probe_ppm = 0; /* no random VP unless a test asks */
	c.srtt_init_ns = 100 * US;
	c.rto_min_ns = 1000000 * US;
	c.msg_pkts = 1000000;
	return c;
}

/* A sender that sent packets 0..9, one each on ten distinct VPs. */
static void started(struct mpr_snd *s, const struct mpr_cfg *c)
{
	struct mpr_pkt out[MPR_OUT_MAX];

	cr_assert_eq(mpr_snd_init(s, c, 42), 0);
	cr_assert_eq(mpr_snd_push(s, 1000000, 0, out), c->iw);
}

/* A sender with [una, nxt) in flight and a window of cwnd packets. */
static void in_flight(struct mpr_snd *s, uint32_t una, uint32_t nxt, uint32_t cwnd)
{
	s->snd_una = una;
	s->snd_nxt = s->snd_max = nxt;
	s->cwnd = cwnd * MPR_ONE;
}

/* An ACK (valid until the next call). */
static const struct mpr_ack *ack_of(uint16_t vp, uint32_t sack, uint32_t aack, bool ece)
{
	static struct mpr_ack a;

	a = (struct mpr_ack){.vp = vp, .sack = sack, .aack = aack, .ece = ece};
	return &a;
}

Test(mprdma, config_is_checked)
{
	struct mpr_cfg c = cfg_exact();
	const char *why;

	cr_assert_eq(mpr_cfg_check(&c, &why), 0);
	c.delta = 65;
	cr_assert_eq(mpr_cfg_check(&c, &why), -EINVAL);
	cr_assert_not_null(strstr(why, "delta"));
	c = cfg_exact();
	c.vp_lo = c.vp_hi = 50000;
	cr_assert_eq(mpr_cfg_check(&c, &why), -EINVAL);
	cr_assert_not_null(strstr(why, "VP range"));
}

/* F.1: cwnd += 1/cwnd on a clean ACK, -= 1/2 on an ECN one, never below 1. */
Test(mprdma, window_rule_is_exact_in_q16)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	started(&s, &c);
	cr_assert_eq(s.cwnd, 655360);
	mpr_snd_ack(&s, &(struct mpr_ack){.vp = 50000, .sack = 3, .aack = 0}, 1, out);
	cr_assert_eq(s.cwnd, 661913);

	started(&s, &c);
	mpr_snd_ack(&s, &(struct mpr_ack){.vp = 50000, .sack = 3, .ece = true}, 1, out);
	cr_assert_eq(s.cwnd, 622592);

	s.cwnd = MPR_ONE + 100;
	mpr_snd_ack(&s, &(struct mpr_ack){.vp = 50000, .sack = 4, .ece = true}, 2, out);
	cr_assert_eq(s.cwnd, MPR_ONE);
}

/* F.2: awnd = cwnd + inflate - in flight; the packet goes on the ACK's VP. */
Test(mprdma, ack_clocks_on_its_own_path)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	started(&s, &c);
	cr_assert_eq(mpr_snd_ack(&s, &(struct mpr_ack){.vp = 50001, .sack = 3, .aack = 0}, 5, out),
		     1);
	cr_assert_eq(out[0].vp, 50001);
	cr_assert_eq(out[0].psn, 10);
	cr_assert_not(out[0].retx);
	cr_assert_eq(s.inflate, 1);

	/* inflate 5, an ACK moving snd_una by 4: +1 - 4 */
	s.inflate = 5;
	mpr_snd_ack(&s, &(struct mpr_ack){.vp = 50001, .sack = 0, .aack = 4}, 6, out);
	cr_assert_eq(s.inflate, 2);
	cr_assert_eq(s.snd_una, 4);
}

/*
 * MPR_CREDIT_PER_REPLY: inflate + 1 a reply, as the paper counts: a packet
 * and its retransmission that both land balance (+1 +1, -1 for the copy, -1
 * for the AACK), and a reply to a copy sent before a timeout carries no
 * credit (the timeout took inflate back to 0 and sends the window again).
 */
Test(mprdma, every_reply_is_credit_but_none_from_before_a_timeout)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	c.credit = MPR_CREDIT_PER_REPLY;
	started(&s, &c);
	in_flight(&s, 0, 10, 10);
	s.total = 10; /* no new data: spare window resends what is overdue (FUSO) */
	/* 5's reply (tx_ns 0: no RTT sample): +1, awnd 1, and the overdue 0 goes again */
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50005, 5, 0, false), 1000 * US, out), 1);
	cr_assert_eq(out[0].psn, 0);
	cr_assert(out[0].retx);
	cr_assert_eq(s.inflate, 0, "+1 for 5's reply, -1 for 0's copy");
	for (uint32_t p = 1; p < 10; p++)
		s.sent_ns[p] = 1000 * US; /* none other overdue: no more copies */
	/* the copy lands: +1, and its AACK 1: -1 */
	struct mpr_ack r = {.vp = 50000, .sack = 0, .aack = 1, .retx = true, .tx_ns = 1000 * US};

	mpr_snd_ack(&s, &r, 1001 * US, out);
	cr_assert_eq(s.inflate, 0);
	/* the first copy lands late, a duplicate: +1, which balances the copy's -1 */
	mpr_snd_ack(&s, ack_of(50000, 0, 1, false), 1002 * US, out);
	cr_assert_eq(s.inflate, 1);

	/* a timeout: inflate 0, and the replies to what was in flight before it add nothing */
	uint64_t at = s.rto_at;

	cr_assert_neq(at, MPR_NEVER);
	mpr_snd_timer(&s, at, out);
	cr_assert_eq(s.st.rtos, 1);
	cr_assert_eq(s.inflate, 0);
	mpr_snd_ack(&s, ack_of(50007, 7, 1, false), at + 1, out);
	cr_assert_eq(s.inflate, 0, "a copy from before the timeout");
	r = (struct mpr_ack){.vp = 50008, .sack = 8, .aack = 1, .retx = true, .tx_ns = at};
	mpr_snd_ack(&s, &r, at + 2, out);
	cr_assert_eq(s.inflate, 1, "a copy the timeout sent");
}

/*
 * MPR_CREDIT_PER_REPLY: credit is owed only while the receiver holds
 * something above its cumulative ACK.  On the lab inflate had leaked to 36
 * with the window at 1 packet: a single VP kept 37 packets queued, every
 * ACK marked.  In order again, inflate is 0 and the window is cwnd.
 */
Test(mprdma, per_reply_credit_ends_when_nothing_is_held_above_the_ack)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	c.credit = MPR_CREDIT_PER_REPLY;
	started(&s, &c);
	in_flight(&s, 0, 40, 1);
	s.snd_ooh = 6; /* 5 is the highest SACK: 0..4 still held out */
	s.inflate = 36;
	/* 2 lands, 0 and 1 still missing: +1, nothing delivered, the credit stays */
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50001, 2, 0, false), 10, out), 0);
	cr_assert_eq(s.inflate, 37);
	/* 0 lands and the AACK reaches 3, below 5: -3 +1 */
	mpr_snd_ack(&s, ack_of(50001, 0, 3, false), 11, out);
	cr_assert_eq(s.inflate, 35);
	/* 3 and 4 land: the AACK reaches 6 = snd_ooh, nothing held above it */
	mpr_snd_ack(&s, ack_of(50001, 3, 4, false), 12, out);
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50001, 4, 6, false), 13, out), 0);
	cr_assert_eq(s.inflate, 0);
	cr_assert_eq(s.snd_una, 6);
	/* 34 in flight and a window of 1 packet: an in-order reply clocks nothing */
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50001, 6, 7, false), 14, out), 0);
	cr_assert_eq(s.inflate, 0);

	/* the default credit (once a PSN) is left as it was */
	c.credit = MPR_CREDIT_ONCE;
	started(&s, &c);
	in_flight(&s, 0, 40, 1);
	s.snd_ooh = 1;
	s.inflate = 36;
	mpr_snd_ack(&s, ack_of(50001, 1, 2, false), 10, out);
	cr_assert_eq(s.inflate, 35, "+1 for 1, -2 for the AACK");
}

/* F.3: an ACK more than Δ below the highest SACK prunes its path. */
Test(mprdma, slow_path_is_pruned_but_retransmissions_are_not)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	started(&s, &c);
	in_flight(&s, 58, 101, 70);
	s.snd_ooh = 101; /* highest SACK 100 */
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50002, 60, 58, false), 10, out), 0);
	cr_assert_eq(s.cwnd, 69 * MPR_ONE);
	cr_assert_eq(s.st.prunes, 1);

	struct mpr_ack retx = *ack_of(50002, 61, 58, false);

	retx.retx = true;
	cr_assert_eq(mpr_snd_ack(&s, &retx, 11, out), 2);
	cr_assert_eq(s.cwnd, 69 * MPR_ONE + (uint32_t)((1ULL << 32) / (69 * MPR_ONE)));

	uint32_t before = s.cwnd;

	cr_assert_gt(mpr_snd_ack(&s, ack_of(50002, 68, 58, false), 12, out), 0);
	cr_assert_gt(s.cwnd, before);
	cr_assert_eq(s.st.prunes, 1);

	/* the ablation: out-of-order control off, nothing is pruned */
	c.ooo_aware = false;
	started(&s, &c);
	in_flight(&s, 58, 101, 70);
	s.snd_ooh = 101;
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50002, 60, 58, false), 10, out), 2);
	cr_assert_eq(s.st.prunes, 0);
}

/* F.4: two packets an ACK; the rest half an RTT later to random VPs, unless an ACK comes. */
Test(mprdma, burst_control_and_use_it_or_lose_it)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	started(&s, &c);
	/* 4 of 10 cumulatively acked, inflate 0: in flight 6, awnd after the ACK 10 + 1 - 6 = 5 */
	s.snd_una = 4;
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50003, 7, 4, false), 1000, out), 2);
	cr_assert_eq(out[0].vp, 50003);
	cr_assert_eq(out[1].vp, 50003);
	cr_assert_eq(s.backlog, 3);
	cr_assert_eq(mpr_snd_deadline(&s), 1000 + 50 * US);
	cr_assert_eq(mpr_snd_timer(&s, 1000 + 50 * US - 1, out), 0);
	cr_assert_eq(mpr_snd_timer(&s, 1000 + 50 * US, out), 3);
	cr_assert_eq(s.st.burst_timer_sends, 3);
	cr_assert_eq(mpr_snd_deadline(&s), s.rto_at);

	/* an ACK before the timer takes the backlog over */
	started(&s, &c);
	s.snd_una = 4;
	mpr_snd_ack(&s, ack_of(50003, 7, 4, false), 1000, out);
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50004, 8, 4, false), 2000, out), 2);
	cr_assert_eq(s.burst_at, 2000 + 50 * US);

	/* no data left, nothing unacked: the window shrinks by one */
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 10, 0, out), 10);
	s.snd_una = 9;
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50005, 9, 10, false), 10, out), 0);
	cr_assert_eq(s.cwnd, 655360 + 6553 - 65536);
	cr_assert_eq(s.st.window_cuts, 1);
	cr_assert(mpr_snd_done(&s));
	cr_assert_eq(mpr_snd_deadline(&s), MPR_NEVER);
}

/* With no new data, spare window retransmits an unacknowledged packet early (FUSO). */
Test(mprdma, early_retransmission_skips_what_was_sacked)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 10, 0, out), 10);
	/* before the others are overdue (srtt + 4 rttvar = 300 µs), the window just shrinks */
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50006, 0, 1, false), 10, out), 0);
	cr_assert_eq(s.st.window_cuts, 1);
	/* a second ACK of 0 adds nothing: a packet leaves the network once */
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50006, 0, 1, false), 399 * US, out), 0);
	cr_assert_eq(s.inflate, 0);
	/* 5 SACKed: awnd 9 + 1 - 9 = 1, the lowest overdue unacknowledged PSN goes again */
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50006, 5, 1, false), 400 * US, out), 1);
	cr_assert_eq(out[0].psn, 1);
	cr_assert(out[0].retx);
	/* 2 was SACKed: 3 is next */
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50006, 2, 1, false), 401 * US, out), 1);
	cr_assert_eq(out[0].psn, 3);
	cr_assert_eq(s.st.early_retx, 2);
}

/* F.5: NACK -> recovery sweep with ReTx; stale NACKs ignored; RTO goes back N; IW spread. */
Test(mprdma, recovery_timeout_and_initial_spread)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	uint16_t vps[10];

	cr_assert_eq(mpr_snd_init(&s, &c, 7), 0);
	cr_assert_eq(mpr_snd_push(&s, 1000000, 0, out), 10);
	for (int i = 0; i < 10; i++) {
		vps[i] = out[i].vp;
		cr_assert_eq(out[i].psn, (uint32_t)i);
		for (int j = 0; j < i; j++)
			cr_assert_neq(vps[i], vps[j], "IW packets %d and %d share a VP", i, j);
	}

	in_flight(&s, 45, 120, 100);
	struct mpr_ack n = {.vp = 50007, .nack = true, .nack_psn = 50, .aack = 45};

	mpr_snd_ack(&s, &n, 10, out);
	cr_assert_eq(s.mode, MPR_RECOVERY);
	cr_assert_eq(s.recovery, 120);
	cr_assert_eq(out[0].psn, 50);
	cr_assert(out[0].retx);
	cr_assert_eq(out[1].psn, 51);
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50008, 90, 45, false), 11, out), 2);
	cr_assert_eq(out[0].psn, 52);
	cr_assert(out[1].retx);

	/* a second NACK during recovery does not restart it */
	n.nack_psn = 60;
	mpr_snd_ack(&s, &n, 12, out);
	cr_assert_eq(out[0].psn, 54);
	struct mpr_ack fill = *ack_of(50008, 50, 120, false);

	fill.retx = true; /* a retransmission's ACK is never pruned */
	cr_assert_eq(mpr_snd_ack(&s, &fill, 13, out), 2);
	cr_assert_eq(s.mode, MPR_NORMAL);
	cr_assert_eq(out[0].psn, 120);
	cr_assert_not(out[0].retx);

	/* stale: below snd_una */
	n.nack_psn = 100;
	n.aack = 120;
	mpr_snd_ack(&s, &n, 14, out);
	cr_assert_eq(s.mode, MPR_NORMAL);

	/* timeout: back to IW, go back N from snd_una over distinct VPs */
	uint64_t at = s.rto_at;

	cr_assert_neq(at, MPR_NEVER);
	cr_assert_leq(mpr_snd_deadline(&s), at);
	cr_assert_eq(mpr_snd_timer(&s, at, out), 10);
	cr_assert_eq(s.cwnd, 10 * MPR_ONE);
	cr_assert_eq(out[0].psn, 120);
	cr_assert(out[0].retx);
	cr_assert_eq(s.st.rtos, 1);
	cr_assert_gt(mpr_snd_deadline(&s), at + c.rto_min_ns, "the timeout backs off");
}

/* A NACK's packet, dropped beyond the bitmap (valid until the next call). */
static const struct mpr_ack *nack_of(uint32_t hole, uint32_t dropped)
{
	static struct mpr_ack a;

	a = (struct mpr_ack){
	    .vp = 50011, .nack = true, .nack_psn = hole, .sack = dropped, .aack = hole};
	return &a;
}

/*
 * New data goes past the receiver's bitmap, as in the paper; what it drops
 * comes back as a NACK naming it.  A hole whose copy is lost again is sent
 * once more, and the sweep walks again over what was dropped since.
 */
Test(mprdma, overflow_nacks_and_lost_retransmission)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	started(&s, &c);
	in_flight(&s, 10, 74, 100); /* 64 beyond snd_una: the bitmap is full */
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50010, 40, 10, false), 10, out), 2);
	cr_assert_eq(out[0].psn, 74, "not held at the bitmap");
	cr_assert_eq(out[1].psn, 75);

	/* 10 lost; 11..73 landed; 74..79 were dropped or are on their way */
	started(&s, &c);
	in_flight(&s, 10, 80, 100);
	for (uint32_t p = 11; p < 74; p++)
		s.sacked[p / 64] |= 1ULL << (p % 64);
	cr_assert_eq(mpr_snd_ack(&s, nack_of(10, 74), 10, out), 2);
	cr_assert_eq(s.mode, MPR_RECOVERY);
	cr_assert_eq(s.recovery, 80);
	cr_assert_eq(out[0].psn, 10);
	cr_assert(out[0].retx);
	cr_assert_eq(out[1].psn, 74, "the sweep passes what the receiver holds");
	cr_assert_eq(mpr_snd_ack(&s, nack_of(10, 75), 11, out), 2);
	cr_assert_eq(out[0].psn, 75);
	cr_assert_eq(out[1].psn, 76);
	mpr_snd_ack(&s, nack_of(10, 74), 12, out); /* 74's copy dropped too: 10 not in yet */
	cr_assert_eq(out[0].psn, 77);
	cr_assert_eq(out[1].psn, 78);
	cr_assert_eq(s.st.lost_retx, 0, "10's copy is not overdue yet");

	/* a round trip on, the receiver still misses 10: its copy was lost */
	cr_assert_eq(mpr_snd_ack(&s, nack_of(10, 79), 10 + 301 * US, out), 2);
	cr_assert_eq(s.st.lost_retx, 1);
	cr_assert_eq(out[0].psn, 10);
	cr_assert(out[0].retx);
	cr_assert_eq(out[1].psn, 74, "dropped since: in the new walk");
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50010, 11, 10, false), 11 + 301 * US, out), 2);
	cr_assert_eq(out[0].psn, 79, "75..78 are on their way: passed");
	cr_assert_eq(out[1].psn, 80, "then new data");
	cr_assert_not(out[1].retx);
	cr_assert_eq(s.st.rtos, 0);
}

/*
 * The paper's sender (mpr_cfg_paper(): no scoreboard, credit per reply),
 * exactly: a NACK starts a recovery round from the NACKed PSN to snd_nxt,
 * one PSN an ACK's credit whatever the receiver holds; further NACKs wait
 * for it (or the RTO); every reply is credit, duplicates and copies from
 * before a timeout too; spare window resends the unacknowledged in turn.
 */
Test(mprdma, the_papers_sender)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	mpr_cfg_paper(&c);
	cr_assert_not(c.scoreboard);
	cr_assert_eq(c.credit, MPR_CREDIT_PAPER);
	started(&s, &c);
	/* 10 lost; 11..73 landed (the receiver holds them); 74..79 dropped or on their way */
	in_flight(&s, 10, 80, 100);
	cr_assert_eq(mpr_snd_ack(&s, nack_of(10, 74), 10, out), 2);
	cr_assert_eq(s.mode, MPR_RECOVERY);
	cr_assert_eq(s.recovery, 80);
	cr_assert_eq(out[0].psn, 10);
	cr_assert(out[0].retx);
	cr_assert_eq(out[1].psn, 11, "no scoreboard: what the receiver holds goes again");
	cr_assert_eq(s.inflate, 1 - 2, "+1 for the NACK, -1 a copy");
	/* another NACK for the same hole, overdue or not: the round goes on */
	cr_assert_eq(mpr_snd_ack(&s, nack_of(10, 75), 10 + 400 * US, out), 2);
	cr_assert_eq(out[0].psn, 12);
	cr_assert_eq(out[1].psn, 13);
	cr_assert_eq(s.st.lost_retx, 0);
	cr_assert_eq(s.st.recoveries, 1);
	/* a duplicate's reply (12 landed before) is credit too */
	int32_t before = s.inflate;

	mpr_snd_ack(&s, ack_of(50010, 12, 10, false), 10 + 401 * US, out);
	cr_assert_eq(s.inflate, before + 1 - 2);
	/* the hole filled: AACK 80 ends the round, new data follows */
	struct mpr_ack fill = *ack_of(50010, 10, 80, false);

	fill.retx = true;
	cr_assert_eq(mpr_snd_ack(&s, &fill, 10 + 402 * US, out), 2);
	cr_assert_eq(s.mode, MPR_NORMAL);
	cr_assert_eq(out[0].psn, 80);
	cr_assert_not(out[0].retx);
	cr_assert_eq(s.st.retx, 6);

	/* a timeout zeroes inflate; a reply to a copy from before it still counts */
	uint64_t at = s.rto_at;

	mpr_snd_timer(&s, at, out);
	cr_assert_eq(s.st.rtos, 1);
	cr_assert_eq(s.inflate, 0);
	mpr_snd_ack(&s, ack_of(50010, 81, 80, false), at + 1, out);
	cr_assert_eq(s.inflate, 1, "credit: paper counts every reply");

	/* FUSO: no new data, spare window resends from snd_una in turn, overdue or not */
	c = cfg_exact();
	mpr_cfg_paper(&c);
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 10, 0, out), 10);
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50006, 5, 0, false), 10, out), 1);
	cr_assert_eq(out[0].psn, 0);
	cr_assert(out[0].retx);
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50006, 6, 0, false), 11, out), 1);
	cr_assert_eq(out[0].psn, 1);
	cr_assert_eq(s.st.early_retx, 2);
}

/* A share of the messages synchronise, evenly spaced: 4 of every 5 at 80%, every other at 50%. */
Test(mprdma, synchronise_share)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];
	const char *why;

	c.msg_pkts = 1;
	c.iw = 10;
	c.sync_ppm = 800000;
	c.alpha_q16 = 0; /* no wait: each message goes at once, its flag shows */
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 10, 0, out), 10);
	bool want80[10] = {false, true, true, true, true, false, true, true, true, true};

	for (int i = 0; i < 10; i++)
		cr_assert_eq(out[i].sync, want80[i], "message %d", i);
	c.sync_ppm = 500000;
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 10, 0, out), 10);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(out[i].sync, i % 2 == 1, "message %d", i);
	c.sync_ppm = 1000001;
	cr_assert_eq(mpr_cfg_check(&c, &why), -EINVAL);
}

/*
 * DCQCN, the paper's single-path baseline (mpr_snd.c; Mellanox's version as
 * HPCC's NS-3 models it): paced at the line rate; a CNP (an ECE ACK, one a
 * CNP interval) halves the rate at α = 1 and sets the target to the rate it
 * had; every timer the rate moves half way back; α decays by g without
 * CNPs; after F steps the target grows by R_AI, then R_HAI.
 */
Test(mprdma, dcqcn_rate)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];
	const char *why;

	mpr_dcqcn_default(&c, 1000000000, 12000);
	cr_assert_eq(mpr_cfg_check(&c, &why), -EINVAL, "DCQCN is the single path's");
	c.single_path = true;
	c.vp_lo = c.vp_hi = 50000;
	cr_assert_eq(mpr_cfg_check(&c, &why), 0, "%s", why);
	/* at 12 µs the paper's own values; rates scaled from 40 Gbit/s to 1 */
	cr_assert_eq(c.dcqcn.timer_ns, 55000);
	cr_assert_eq(c.dcqcn.cnp_ns, 50000);
	cr_assert_eq(c.dcqcn.rai_bps, 1000000);
	cr_assert_eq(c.dcqcn.rhai_bps, 5000000);
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);

	/* paced: one packet now, the next 1098 B at 1 Gbit/s later (8784 ns) */
	cr_assert_eq(mpr_snd_push(&s, 1000, 0, out), 1);
	cr_assert_eq(out[0].vp, 50000);
	cr_assert_eq(mpr_snd_deadline(&s), 8784);
	cr_assert_eq(mpr_snd_timer(&s, 8784, out), 1);
	cr_assert_eq(out[0].psn, 1);
	cr_assert_eq(mpr_snd_ack(&s, ack_of(50000, 0, 1, false), 9000, out), 0, "not clocked");

	/* the first CNP: α 1, the rate halved, the target the line */
	mpr_snd_ack(&s, ack_of(50000, 1, 2, true), 10000, out);
	cr_assert_eq(s.dq.rc, 500000000);
	cr_assert_eq(s.dq.rt, 1000000000);
	cr_assert_eq(s.dq.cnps, 1);
	/* another ECE inside the CNP interval: no CNP */
	mpr_snd_ack(&s, ack_of(50000, 2, 3, true), 20000, out);
	cr_assert_eq(s.dq.cnps, 1);
	cr_assert_eq(s.dq.rc, 500000000);
	/* a timer: half way back; α's update without a CNP: 1 - g */
	uint64_t t = 10000 + 55000;

	mpr_snd_timer(&s, t, out);
	cr_assert_eq(s.dq.rc, 750000000);
	cr_assert_eq(s.dq.alpha, 1000000 - 1000000 / 256);
	/* a CNP after the interval: cut by α/2, the target the rate it had (stage 1) */
	mpr_snd_ack(&s, ack_of(50000, 3, 4, true), t + 1, out);
	cr_assert_eq(s.dq.rt, 750000000);
	cr_assert_eq(s.dq.rc, 750000000 - (uint64_t)(750000000.0 * s.dq.alpha / 2e6));
	cr_assert_eq(s.dq.stage, 0);
	/* F = 5 steps of fast recovery, then additive increase of the target */
	for (unsigned i = 0; i < 5; i++)
		mpr_snd_timer(&s, s.dq.inc_at, out);
	cr_assert_eq(s.dq.rt, 750000000);
	mpr_snd_timer(&s, s.dq.inc_at, out);
	cr_assert_eq(s.dq.rt, 751000000, "R_AI");
	mpr_snd_timer(&s, s.dq.inc_at, out);
	cr_assert_eq(s.dq.rt, 756000000, "R_HAI");
	/* a NAK goes back N, at the same rate */
	uint64_t rc = s.dq.rc;
	struct mpr_ack n = {.vp = 50000, .nack = true, .nack_psn = 4, .aack = 4};

	cr_assert_gt(s.snd_nxt, 5);
	unsigned k = mpr_snd_ack(&s, &n, s.dq.next_tx, out);

	cr_assert_eq(k, 1, "paced: one packet due");
	cr_assert_eq(out[0].psn, 4);
	cr_assert(out[0].retx);
	cr_assert_eq(s.snd_nxt, 5);
	cr_assert_eq(s.dq.rc, rc);
}

/*
 * The pacer woken late with packets waiting (a busy host's scheduler) makes
 * up at most 8 packets of the time it lost, as a NIC's rate limiter keeps
 * its rate with a small burst; woken after having nothing to send, it
 * sends one and paces on.
 */
Test(mprdma, dcqcn_pacer_catches_up_a_little)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	mpr_dcqcn_default(&c, 1000000000, 12000);
	c.single_path = true;
	c.vp_lo = c.vp_hi = 50000;
	c.cwnd_max = 1000;
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 1000, 0, out), 1);
	/* due at 8784 ns; woken 100 gaps late: 8 packets of them and the one due */
	cr_assert_eq(mpr_snd_timer(&s, 8784 * 101, out), 9);
	cr_assert_eq(mpr_snd_deadline(&s), 8784 * 102, "then paced again");
	cr_assert_eq(mpr_snd_timer(&s, 8784 * 102 + 4000, out), 1, "a little late: the one due");

	/* nothing left to send, then more: no burst for the idle time */
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 1, 0, out), 1);
	cr_assert_eq(mpr_snd_timer(&s, 8784, out), 0, "the one packet is out");
	cr_assert_eq(mpr_snd_push(&s, 50, 8784 * 100, out), 1, "idle, not late: one");
}

/*
 * The state a NIC would hold, as the paper counts it (66 B with the 17 B
 * bitmap): the paper's sender at hardware widths, each departure's cost.
 */
Test(mprdma, sender_state_bytes)
{
	struct mpr_cfg c;

	mpr_cfg_default(&c);
	mpr_cfg_paper(&c);
	cr_assert_eq(mpr_snd_bytes(&c), 62);
	c.credit = MPR_CREDIT_PER_REPLY;
	cr_assert_eq(mpr_snd_bytes(&c), 66, "credit_from: a time");
	c.sync_every = 4;
	cr_assert_eq(mpr_snd_bytes(&c), 74, "synchronise: the last message's end and a timer");
	mpr_cfg_default(&c);
	cr_assert_eq(mpr_snd_bytes(&c), 62 + 2 * 4096 / 8 + 4096 * 4, "the scoreboard");
	c.single_path = true;
	cr_assert_eq(mpr_snd_bytes(&c), 57, "no probing, no scoreboard on the single path");
	/* credit once a PSN reads the scoreboard */
	const char *why;

	mpr_cfg_default(&c);
	c.scoreboard = false;
	cr_assert_eq(mpr_cfg_check(&c, &why), -EINVAL);
	cr_assert_not_null(strstr(why, "scoreboard"));
	c.credit = MPR_CREDIT_PAPER;
	cr_assert_eq(mpr_cfg_check(&c, NULL), 0);
	c.credit = (enum mpr_credit)7;
	cr_assert_eq(mpr_cfg_check(&c, NULL), -EINVAL);
	enum mpr_credit k;

	cr_assert_eq(mpr_credit_parse("paper", &k), 0);
	cr_assert_eq(k, MPR_CREDIT_PAPER);
	cr_assert_str_eq(mpr_credit_name(MPR_CREDIT_PER_REPLY), "per-reply");
	cr_assert_eq(mpr_credit_parse("twice", &k), -EINVAL);
	enum mpr_probe_mode pm;

	cr_assert_eq(mpr_probe_mode_parse("per-packet", &pm), 0);
	cr_assert_eq(pm, MPR_PROBE_PER_PACKET);
	cr_assert_str_eq(mpr_probe_mode_name(MPR_PROBE_PER_RTT), "per-rtt");
	cr_assert_eq(mpr_probe_mode_parse("per-second", &pm), -EINVAL);
}

/*
 * A retransmission names the VP its previous copy went on (where it was
 * presumably lost: the harness's localisation charges it there); a first
 * send names none.
 */
Test(mprdma, retransmission_names_the_path_of_the_lost_copy)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];
	uint16_t vp_of[10];

	cr_assert_eq(mpr_snd_init(&s, &c, 42), 0);
	cr_assert_eq(mpr_snd_push(&s, 1000000, 0, out), 10);
	for (unsigned i = 0; i < 10; i++) {
		cr_assert_eq(out[i].psn, i);
		cr_assert_eq(out[i].lost_vp, 0, "a first send");
		vp_of[i] = out[i].vp;
	}
	s.cwnd = 100 * MPR_ONE;
	for (uint32_t p = 1; p < 9; p++)
		s.sacked[0] |= 1ULL << p;
	/* 0 lost, 9 dropped beyond the bitmap, 1..8 in: 0 and 9 go again on the NACK's VP */
	cr_assert_eq(mpr_snd_ack(&s, nack_of(0, 9), 10, out), 2);
	cr_assert_eq(out[0].psn, 0);
	cr_assert_eq(out[0].vp, 50011, "sent on the NACK's path");
	cr_assert_eq(out[0].lost_vp, vp_of[0], "charged to the first copy's path");
	cr_assert_eq(out[1].psn, 9);
	cr_assert_eq(out[1].lost_vp, vp_of[9]);
	/* lost again: now charged to the path the copy took */
	cr_assert_eq(mpr_snd_ack(&s, nack_of(0, 10), 10 + 1000 * US, out), 2);
	cr_assert_eq(out[0].psn, 0);
	cr_assert_eq(out[0].lost_vp, 50011);
}

/* F.6: probing sends one packet a round trip to a random VP, never two. */
Test(mprdma, probing_once_a_round_trip)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	for (int mode = 0; mode < 2; mode++) {
		c.probe_ppm = 1000000;
		c.probe_mode = mode ? MPR_PROBE_PER_PACKET : MPR_PROBE_PER_RTT;
		cr_assert_eq(mpr_snd_init(&s, &c, 3), 0);
		mpr_snd_push(&s, 1000000, 200 * US, out);
		unsigned long long probes = s.st.probes;

		cr_assert_eq(probes, 1, "mode %d: one of the IW packets probes", mode);
		for (uint32_t i = 0; i < 40; i++) {
			uint64_t t = 200 * US + i * US; /* 40 ACKs within one 100 µs RTT */

			mpr_snd_ack(&s, ack_of(50009, i, i + 1, false), t, out);
		}
		cr_assert_eq(s.st.probes, 1, "mode %d: never two in one round trip", mode);
		mpr_snd_ack(&s, ack_of(50009, 40, 41, false), 301 * US, out);
		cr_assert_eq(s.st.probes, 2, "mode %d: the next round trip probes again", mode);
	}
}

/* Idle for 3 RTTs: new data restarts from IW over fresh VPs. */
Test(mprdma, restart_after_idle)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 4, 0, out), 4);
	for (uint32_t i = 0; i < 4; i++)
		mpr_snd_ack(&s, ack_of(out[i].vp, i, i + 1, false), 10 + i, out + 4);
	s.cwnd = 3 * MPR_ONE;
	cr_assert_eq(mpr_snd_push(&s, 100, 20 + 299 * US, out), 3, "not idle long enough");
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	mpr_snd_push(&s, 4, 0, out);
	for (uint32_t i = 0; i < 4; i++)
		mpr_snd_ack(&s, ack_of(out[i].vp, i, i + 1, false), 10 + i, out + 4);
	s.cwnd = 3 * MPR_ONE;
	cr_assert_eq(mpr_snd_push(&s, 100, 20 + 300 * US, out), 10);
	cr_assert_eq(s.st.restarts, 1);
}

/* A synchronise message waits α·Δ·RTT/cwnd after the previous message. */
Test(mprdma, synchronise_waits_and_early_ones_are_refused)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	c.msg_pkts = 4;
	c.sync_every = 2; /* messages 2, 4, ... */
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	/* IW 10 reaches message 2 (PSN 8): held; 32 * 100 µs / 10 = 320 µs after message 1 */
	cr_assert_eq(mpr_snd_push(&s, 100, 1000, out), 8);
	cr_assert_eq(s.st.sync_holds, 1);
	cr_assert_eq(mpr_snd_deadline(&s), 1000 + 320 * US);
	cr_assert_eq(mpr_snd_timer(&s, 1000 + 320 * US, out), 2);
	cr_assert_eq(out[0].psn, 8);
	cr_assert(out[0].sync);

	struct mpr_rcv r;
	struct mpr_rx_result res;

	cr_assert_eq(mpr_rcv_init(&r, 64), 0);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 0}, &res);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 8, .msg_first = 8, .sync = true}, &res);
	cr_assert(res.dropped);
	cr_assert(res.ack.nack && res.ack.sync_fail);
	cr_assert_eq(res.ack.nack_psn, 8);
	cr_assert_eq(r.st.sync_drops, 1);
}

/*
 * Stop-Wait (Fig. 19's "MP-RDMA (Stop-Wait)"): the synchronise message
 * leaves when every earlier packet is acknowledged, not after a delay; no
 * timer, and the reply that acknowledges the last one sends it.
 */
Test(mprdma, synchronise_stop_wait_waits_for_every_earlier_ack)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX], more[MPR_OUT_MAX];
	const char *why;

	c.sync_wait = (enum mpr_sync_wait)2;
	cr_assert_eq(mpr_cfg_check(&c, &why), -EINVAL);
	cr_assert_str_eq(mpr_sync_wait_name(MPR_SYNC_STOP_WAIT), "stop-wait");
	cr_assert_eq(mpr_sync_wait_parse("stop-wait", &c.sync_wait), 0);
	cr_assert_eq(mpr_sync_wait_parse("later", &c.sync_wait), -EINVAL);
	cr_assert_eq(c.sync_wait, MPR_SYNC_STOP_WAIT);
	c.msg_pkts = 4;
	c.sync_every = 2; /* messages 2, 4, ... */
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 100, 1000, out), 8, "held at PSN 8");
	cr_assert_eq(s.st.sync_holds, 1);
	cr_assert_eq(mpr_snd_deadline(&s) == MPR_NEVER || mpr_snd_deadline(&s) > 1000 + 320 * US,
		     true, "no synchronise timer: the delay's 320 µs do not send it");
	cr_assert_eq(mpr_snd_timer(&s, 1000 + 320 * US, more), 0);
	/* seven of eight acknowledged: still held, whatever the window */
	for (uint32_t i = 0; i < 7; i++)
		cr_assert_eq(mpr_snd_ack(&s, ack_of(out[i].vp, i, i + 1, false), 2000 + i, more), 0,
			     "PSN %u acknowledged, PSN 7 is not", i);
	cr_assert_eq(s.st.sync_holds, 1, "one message held, counted once");
	unsigned k = mpr_snd_ack(&s, ack_of(out[7].vp, 7, 8, false), 2100, more);

	cr_assert_geq(k, 1);
	cr_assert_eq(more[0].psn, 8);
	cr_assert(more[0].sync);
}

/* F.7: the L = 64 receiver. */
Test(mprdma, receiver_bitmap_window_nack_duplicates_and_completions)
{
	struct mpr_rcv r;
	struct mpr_rx_result res;

	cr_assert_eq(mpr_rcv_init(&r, 0), -EINVAL);
	cr_assert_eq(mpr_rcv_init(&r, 64), 0);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 63, .vp = 5, .ce = true}, &res);
	cr_assert(res.reply && !res.ack.nack && !res.dropped);
	cr_assert_eq(res.ack.sack, 63);
	cr_assert_eq(res.ack.aack, 0);
	cr_assert_eq(res.ack.vp, 5);
	cr_assert(res.ack.ece);
	cr_assert_eq(res.ood, 63);

	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 64}, &res);
	cr_assert(res.dropped && res.reply && res.ack.nack);
	cr_assert_eq(res.ack.nack_psn, 0);
	/* every dropped packet is answered: the sender's clock keeps running */
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 70, .vp = 6}, &res);
	cr_assert(res.dropped && res.reply && res.ack.nack);
	cr_assert_eq(res.ack.nack_psn, 0);
	cr_assert_eq(res.ack.vp, 6);
	cr_assert_eq(r.st.nacks, 2);
	cr_assert_eq(r.st.overflow_drops, 2);

	/*
	 * Messages of 2: 0-1 a WRITE (Tail), 2-3 a SEND (Tail with
	 * completion); 3 then 1 then 0 then 2.  Both complete in order; only
	 * the SEND pushes a CQE (section 3.3.1's four states).
	 */
	cr_assert_eq(mpr_rcv_init(&r, 64), 0);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 3, .msg_first = 2, .tail = true, .cqe = true},
		     &res);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 1, .tail = true}, &res);
	cr_assert_eq(res.msgs, 0);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 0}, &res);
	cr_assert_eq(res.msgs, 1);
	cr_assert_eq(res.cqes, 0, "a WRITE's tail completes nothing at the receiver");
	cr_assert_eq(res.deliver_from, 0);
	cr_assert_eq(res.deliver_to, 2);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 3, .tail = true, .cqe = true}, &res);
	cr_assert(res.duplicate && res.reply);
	cr_assert_eq(res.deliver_to - res.deliver_from, 0);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 2, .msg_first = 2}, &res);
	cr_assert_eq(res.msgs, 1);
	cr_assert_eq(res.cqes, 1);
	cr_assert_eq(res.ack.aack, 4);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 1}, &res);
	cr_assert(res.duplicate);
	cr_assert_eq(r.st.delivered, 4);
	cr_assert_eq(r.st.msgs, 2);
	cr_assert_eq(r.st.cqes, 1);

	/* the next hole gets its own NACK */
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 100}, &res);
	cr_assert(res.ack.nack);
	cr_assert_eq(res.ack.nack_psn, 4);
}

/*
 * The paper's receiver (nack once): the first drop beyond the bitmap is
 * NACKed, the rest of that hole's drops are not answered, and the next
 * hole gets its own.  Its memory: two bits a slot and the head's index.
 */
Test(mprdma, receiver_nacks_once_a_hole_in_the_papers_mode)
{
	struct mpr_cfg c;
	struct mpr_rcv r;
	struct mpr_rx_result res;

	mpr_cfg_default(&c);
	cr_assert_eq(mpr_rcv_init_cfg(&r, &c), 0);
	cr_assert_not(r.nack_once, "rocelab's receiver answers every drop");
	cr_assert_eq(mpr_rcv_bytes(&r), 17, "64 slots of 2 bits and the head's index");
	mpr_cfg_paper(&c);
	cr_assert_eq(c.nack, MPR_NACK_ONCE);
	cr_assert_eq(mpr_rcv_init_cfg(&r, &c), 0);
	cr_assert(r.nack_once && r.L == 64);

	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 64, .vp = 3}, &res);
	cr_assert(res.dropped && res.reply && res.ack.nack);
	cr_assert_eq(res.ack.nack_psn, 0);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 65}, &res);
	cr_assert(res.dropped);
	cr_assert_not(res.reply, "the hole was NACKed: later drops are not answered");
	cr_assert_eq(r.st.nacks, 1);
	cr_assert_eq(r.st.overflow_drops, 2);
	/* the hole fills; the next one is NACKed once again */
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 0}, &res);
	cr_assert(res.reply && !res.ack.nack);
	cr_assert_eq(res.ack.aack, 1);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 70}, &res);
	cr_assert(res.dropped && res.reply && res.ack.nack);
	cr_assert_eq(res.ack.nack_psn, 1);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 71}, &res);
	cr_assert_not(res.reply);
	cr_assert_eq(r.st.nacks, 2);

	/* the single path is rxe's in any mode; Eunomia's keeps the mode's answer */
	mpr_cfg_default(&c);
	c.single_path = true;
	cr_assert_eq(mpr_rcv_init_cfg(&r, &c), 0);
	cr_assert(r.nack_once && r.L == 1);
	mpr_cfg_default(&c);
	c.eunomia_rx = true;
	c.bitmap = 256;
	cr_assert_eq(mpr_rcv_init_cfg(&r, &c), 0);
	cr_assert(r.eu && !r.nack_once);
	mpr_rcv_free(&r);
	c.bitmap = 0;
	c.eunomia_rx = false;
	cr_assert_eq(mpr_rcv_init_cfg(&r, &c), -EINVAL);
	cr_assert_eq(mpr_nack_parse("once", &c.nack), 0);
	cr_assert_eq(c.nack, MPR_NACK_ONCE);
	cr_assert_eq(mpr_nack_parse("sometimes", &c.nack), -EINVAL);
	cr_assert_str_eq(mpr_nack_name(MPR_NACK_EVERY), "every");
	cr_assert_null(mpr_nack_name((enum mpr_nack)7));
}

/* Every notify_every-th message's tail asks for a completion; the rest are WRITEs. */
Test(mprdma, sender_marks_the_tails_that_ask_for_a_completion)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];

	c.msg_pkts = 2;
	c.notify_every = 2;
	c.iw = 8;
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 8, 0, out), 8);
	for (unsigned i = 0; i < 8; i++) {
		uint32_t psn = out[i].psn;

		cr_assert_eq(out[i].tail, psn % 2 == 1, "psn %u", psn);
		cr_assert_eq(out[i].cqe, psn == 3 || psn == 7, "psn %u", psn);
	}
	c.notify_every = 0;
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 8, 0, out), 8);
	for (unsigned i = 0; i < 8; i++)
		cr_assert_not(out[i].cqe, "0: every message a WRITE");
}

/* The baseline: one VP, no probing, a NAK sends it back N (rxe's completer). */
Test(mprdma, single_path_goes_back_n)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];
	struct mpr_rcv r;
	struct mpr_rx_result res;

	c.single_path = true;
	c.probe_ppm = 1000000;
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(mpr_snd_push(&s, 1000, 0, out), 10);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(out[i].vp, c.vp_lo);
	cr_assert_eq(s.st.probes, 0);

	cr_assert_eq(mpr_rcv_init(&r, 1), 0);
	mpr_rcv_data(&r, &out[0], &res);
	cr_assert_eq(res.ack.aack, 1);
	mpr_rcv_data(&r, &out[2], &res); /* 1 lost: NAK(1) */
	cr_assert(res.ack.nack);
	cr_assert_eq(res.ack.nack_psn, 1);
	struct mpr_ack nak = res.ack;

	mpr_rcv_data(&r, &out[3], &res);
	cr_assert_not(res.reply, "later packets of the gap are dropped silently");

	unsigned k = mpr_snd_ack(&s, &nak, 10, out);

	cr_assert_gt(k, 0);
	cr_assert_eq(out[0].psn, 1);
	cr_assert(out[0].retx);
	cr_assert_eq(out[1].psn, 2);
	cr_assert_eq(s.st.recoveries, 1);
}

/*
 * IRN on the single path: the receiver keeps what comes after a hole (one
 * BDP), each reply SACKs its packet, and the sender resends only the hole,
 * never more than one BDP in flight; a timeout of RTO_low with 3 packets
 * or fewer in flight, RTO_high with more.  Over DCQCN's rate, as IRN runs.
 */
Test(mprdma, irn_resends_only_what_is_missing)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX], sent[64];
	struct mpr_rcv r;
	struct mpr_rx_result res;
	unsigned n = 0;
	uint64_t t = 0;

	c.single_path = true;
	mpr_dcqcn_default(&c, 1000000000, 100 * US);
	mpr_irn_default(&c, 8, 4000 * US);
	cr_assert_eq(mpr_cfg_check(&c, NULL), 0);
	cr_assert_eq(c.irn_rto_low_ns, 4000 * US * 454 / 1350);
	cr_assert_eq(mpr_rcv_init_cfg(&r, &c), 0);
	cr_assert_eq(r.L, 8, "the receiver keeps one BDP");
	cr_assert_not(r.nack_once);
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	n = mpr_snd_push(&s, 100, 0, sent);
	/* paced at the line: run the timers until BDP-FC holds it at 8 in flight */
	for (t = 1 * US; t < 1000 * US && n < 64; t += 1 * US) {
		unsigned k = mpr_snd_timer(&s, t, out);

		for (unsigned i = 0; i < k; i++)
			sent[n++] = out[i];
	}
	cr_assert_eq(n, 8, "BDP-FC: %u packets in flight, not more than one BDP", n);
	cr_assert_eq(mpr_snd_deadline(&s) - s.rto_at, 0, "held: only the timeout is due");
	cr_assert_eq(s.rto_at, sent[7].tx_ns + c.irn_rto_high_ns, "8 in flight: RTO_high");

	/*
	 * Packet 2's first copy is lost, the rest arrive in the order sent (one
	 * path): 3.. are kept and SACKed, and only 2 is sent again.
	 */
	struct mpr_pkt q[512];
	unsigned qh = 0, qt = 0, retx = 0;
	bool lost = false;

	for (unsigned i = 0; i < n; i++)
		q[qt++] = sent[i];
	while (qh < qt && t < 100000 * US) {
		struct mpr_pkt p = q[qh++];
		unsigned k;

		if (p.psn == 2 && !lost) {
			lost = true;
			continue;
		}
		if (p.retx) {
			cr_assert_eq(p.psn, 2, "only the hole is resent, not %u", p.psn);
			retx++;
		}
		mpr_rcv_data(&r, &p, &res);
		cr_assert(res.reply && !res.ack.nack && !res.dropped, "psn %u kept", p.psn);
		t += 10 * US;
		k = mpr_snd_ack(&s, &res.ack, t, out);
		for (unsigned j = 0; j < k && qt < 512; j++)
			q[qt++] = out[j];
		cr_assert_leq(s.snd_nxt - s.snd_una, 8, "BDP-FC");
		while (qh == qt && !mpr_snd_done(&s) && t < 100000 * US) {
			t = mpr_snd_deadline(&s) > t ? mpr_snd_deadline(&s) : t;
			k = mpr_snd_timer(&s, t, out);
			for (unsigned j = 0; j < k && qt < 512; j++)
				q[qt++] = out[j];
		}
	}
	cr_assert(mpr_snd_done(&s), "all 100 acknowledged (%u)", s.snd_una);
	cr_assert_eq(retx, 1, "the hole once");
	cr_assert_eq(s.st.retx, 1);
	cr_assert_eq(s.st.recoveries, 1);
	cr_assert_eq(s.mode, MPR_NORMAL, "the round ended at the cumulative ACK");
	cr_assert_eq(s.st.rtos, 0);
	cr_assert_eq(r.st.delivered, 100);

	/* 3 or fewer in flight: RTO_low */
	struct mpr_snd lo;

	mpr_irn_default(&c, 2, 4000 * US);
	cr_assert_eq(mpr_snd_init(&lo, &c, 1), 0);
	mpr_snd_push(&lo, 100, 0, out);
	for (t = 0; t < 100 * US; t += 1 * US)
		mpr_snd_timer(&lo, t, out);
	cr_assert_eq(lo.snd_max, 2);
	cr_assert_lt(lo.rto_at, c.irn_rto_high_ns, "2 in flight: RTO_low");

	/* IRN is the single path's, with its bitmap and timeouts */
	c.single_path = false;
	cr_assert_eq(mpr_cfg_check(&c, NULL), -EINVAL);
	c.single_path = true;
	c.irn_rto_low_ns = 0;
	cr_assert_eq(mpr_cfg_check(&c, NULL), -EINVAL);
}

/*
 * rxe's retransmission timer: the QP's timeout (4.096 us << 14 = 67.1 ms),
 * whatever the round trip, re-armed the same after each expiry, never
 * backed off (MP-RDMA's is adaptive and doubles).
 */
Test(mprdma, single_path_times_out_as_rxe)
{
	struct mpr_cfg c = cfg_exact();
	struct mpr_snd s;
	struct mpr_pkt out[MPR_OUT_MAX];
	struct mpr_ack a = {.vp = 0, .sack = 0, .aack = 1, .tx_ns = 1 * US};
	uint64_t qp = 4096ULL << 14;

	c.single_path = true;
	cr_assert_eq(mpr_snd_init(&s, &c, 1), 0);
	cr_assert_eq(s.rto, qp);
	cr_assert_eq(mpr_snd_push(&s, 1000, 1 * US, out), 10);
	a.vp = c.vp_lo;
	mpr_snd_ack(&s, &a, 201 * US, out); /* a 200 us round trip */
	cr_assert_eq(s.srtt, (7 * c.srtt_init_ns + 200 * US) / 8, "the round trip is measured");
	cr_assert_eq(s.rto, qp, "but not used");
	uint64_t at = mpr_snd_deadline(&s);

	cr_assert_eq(at, 201 * US + qp, "re-armed on progress");
	mpr_snd_timer(&s, at, out);
	cr_assert_eq(s.st.rtos, 1);
	cr_assert_eq(mpr_snd_deadline(&s), at + qp, "the same timer again");
	mpr_snd_timer(&s, mpr_snd_deadline(&s), out);
	cr_assert_eq(s.st.rtos, 2);
	cr_assert_eq(s.rto_backoff, 0);
	c.qp_timeout_ns = 0;
	cr_assert_eq(mpr_snd_init(&s, &c, 1), -EINVAL);
}

/* A small deterministic channel: random delay (reordering), loss of data and ACKs. */
struct ev {
	uint64_t t;
	bool is_ack;
	struct mpr_pkt p;
	struct mpr_ack a;
};

/* A binary min-heap on t. */
static void push(struct ev *q, size_t *len, struct ev e)
{
	size_t i = (*len)++;

	for (; i && q[(i - 1) / 2].t > e.t; i = (i - 1) / 2)
		q[i] = q[(i - 1) / 2];
	q[i] = e;
}

static struct ev pop(struct ev *q, size_t *len)
{
	struct ev top = q[0], last = q[--*len];
	size_t i = 0;

	for (size_t c; (c = 2 * i + 1) < *len; i = c) {
		if (c + 1 < *len && q[c + 1].t < q[c].t)
			c++;
		if (q[c].t >= last.t)
			break;
		q[i] = q[c];
	}
	q[i] = last;
	return top;
}

static void run_channel(const struct mpr_cfg *c, uint32_t n, unsigned loss_pct, uint64_t seed)
{
	struct mpr_snd *s = malloc(sizeof(*s));
	struct mpr_rcv *r = malloc(sizeof(*r));
	size_t cap = 1 << 16, len = 0;
	struct ev *q = malloc(cap * sizeof(*q));
	struct mpr_pkt out[MPR_OUT_MAX];
	struct mpr_rx_result res;
	uint64_t now = 0, rng = seed;
	uint32_t next_deliver = 0;

	cr_assert(s && r && q);
	cr_assert_eq(mpr_snd_init(s, c, seed), 0);
	cr_assert_eq(c->eunomia_rx ? mpr_rcv_init_eunomia(r)
				   : mpr_rcv_init(r, c->single_path ? 1 : c->bitmap),
		     0);
#define RND() (rng = rng * 6364136223846793005ULL + 1442695040888963407ULL, (rng >> 33))
#define ENQ(pkt)                                                                                   \
	do {                                                                                       \
		cr_assert_lt(len, cap);                                                            \
		push(q, &len, (struct ev){.t = now + 20 * US + RND() % (30 * US), .p = (pkt)});    \
	} while (0)
	unsigned k = mpr_snd_push(s, n, now, out);

	for (unsigned i = 0; i < k; i++)
		ENQ(out[i]);
	while (!mpr_snd_done(s)) {
		uint64_t dl = mpr_snd_deadline(s);

		cr_assert(len || dl != MPR_NEVER, "stalled at %u of %u", s->snd_una, n);
		if (!len || dl < q[0].t) {
			now = dl;
			k = mpr_snd_timer(s, now, out);
		} else {
			struct ev e = pop(q, &len);

			now = e.t;
			k = 0;
			if (e.is_ack) {
				k = mpr_snd_ack(s, &e.a, now, out);
			} else if (RND() % 100 >= loss_pct) {
				mpr_rcv_data(r, &e.p, &res);
				for (uint32_t p = res.deliver_from; p < res.deliver_to; p++)
					cr_assert_eq(p, next_deliver++, "delivered out of order");
				if (r->eu && r->euc.dba >= 0) {
					struct eu_meta m;

					cr_assert_eq(eu_conn_meta(r->eu, &r->euc, &m), 0);
					cr_assert_eq(m.head, r->rcv_nxt,
						     "Eunomia's Head is rcv_nxt");
				} else if (r->eu) {
					cr_assert_eq(r->euc.expected, r->rcv_nxt);
				}
				if (res.reply && RND() % 100 >= loss_pct) {
					cr_assert_lt(len, cap);
					push(q, &len,
					     (struct ev){
						 .t = now + 20 * US, .is_ack = true, .a = res.ack});
				}
			}
		}
		for (unsigned i = 0; i < k; i++)
			ENQ(out[i]);
		cr_assert_lt(now, 100ULL * 1000000000, "no progress in 100 s of simulated time");
	}
#undef ENQ
#undef RND
	cr_assert_eq(next_deliver, n);
	cr_assert_eq(r->st.delivered, n);
	mpr_rcv_free(r);
	free(q);
	free(r);
	free(s);
}

Test(mprdma, every_packet_arrives_once_and_in_order_despite_loss_and_reordering)
{
	struct mpr_cfg c = cfg_exact();

	c.iw = 32;
	c.rto_min_ns = 2000 * US;
	c.probe_ppm = 10000;
	c.msg_pkts = 16;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		run_channel(&c, 20000, 0, seed);
		run_channel(&c, 20000, 2, seed);
		run_channel(&c, 5000, 20, seed);
	}
	c.single_path = true;
	run_channel(&c, 5000, 2, 9);
	c.single_path = false;
	c.ooo_aware = false;
	c.sync_every = 3;
	run_channel(&c, 5000, 5, 11);
	/* MP-RDMA without out-of-order control over Eunomia's receiver */
	c.sync_every = 0;
	c.eunomia_rx = true;
	c.bitmap = 256;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		run_channel(&c, 20000, 0, seed);
		run_channel(&c, 5000, 5, seed);
	}
	c.sync_every = 3;
	run_channel(&c, 5000, 5, 11);
}

/*
 * MP-RDMA over Eunomia (issue 15): the same replies as an L = 256 bitmap
 * while the HD bitmap reaches as far, a NACK where its linear rows end
 * sooner, and its memory: 4 B in order, 48 + 2 a row once reordered.
 */
Test(mprdma, the_eunomia_receiver)
{
	struct mpr_rcv r;
	struct mpr_rx_result res;
	struct mpr_cfg c;
	const char *why;

	cr_assert_eq(mpr_rcv_init_eunomia(&r), 0);
	cr_assert_eq(r.L, 256);
	cr_assert_eq(mpr_rcv_bytes(&r), 4);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 0, .vp = 7}, &res);
	cr_assert(res.reply && !res.ack.nack && res.ack.aack == 1 && res.deliver_to == 1);
	cr_assert_eq(mpr_rcv_bytes(&r), 4, "in order: the DBA alone");
	/* 1 is late: 2 makes the bitmap, one row */
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 2, .vp = 7, .tail = true, .cqe = true}, &res);
	cr_assert(res.reply && !res.ack.nack && res.ack.aack == 1 && res.ack.sack == 2);
	cr_assert_eq(mpr_rcv_bytes(&r), 4 + 48 + 2);
	/* 40 grows it by linear rows (Tail stays at 16) */
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 40, .vp = 7}, &res);
	cr_assert(!res.ack.nack && res.ack.aack == 1);
	cr_assert_eq(mpr_rcv_bytes(&r), 4 + 48 + 2 * 3);
	/* 1 fills the hole: 0..2 in order, the message that ended at 2 completes */
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 1, .vp = 7}, &res);
	cr_assert(!res.ack.nack && res.ack.aack == 3 && res.deliver_from == 1 &&
		  res.deliver_to == 3 && res.cqes == 1);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 2, .vp = 7}, &res);
	cr_assert(res.duplicate && res.ack.aack == 3);
	/*
	 * Head (3) has not passed Tail (16): the rows stay linear and reach
	 * Tail + 15 rows = 256.  An L = 256 bitmap would take 257 (3 + 254);
	 * Eunomia refuses it and NACKs the hole.
	 */
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 257, .vp = 7}, &res);
	cr_assert(res.dropped && res.ack.nack && res.ack.nack_psn == 3 && res.ack.aack == 3);
	cr_assert_eq(r.st.overflow_drops, 1);
	mpr_rcv_data(&r, &(struct mpr_pkt){.psn = 256, .vp = 7}, &res);
	cr_assert(!res.dropped && !res.ack.nack && res.ack.sack == 256);
	mpr_rcv_free(&r);
	/* the sender's side: the bitmap at the reach, not with a single path */
	mpr_cfg_default(&c);
	c.eunomia_rx = true;
	cr_assert_eq(mpr_cfg_check(&c, &why), -EINVAL);
	cr_assert_str_eq(why,
			 "the Eunomia receiver is multi-path, with the bitmap at its reach: 256");
	c.bitmap = 256;
	cr_assert_eq(mpr_cfg_check(&c, NULL), 0);
	c.single_path = true;
	cr_assert_eq(mpr_cfg_check(&c, NULL), -EINVAL);
	/* an L-slot receiver's memory: 17 B at 64 (Eunomia's Table 1 for MP-RDMA) */
	cr_assert_eq(mpr_rcv_init(&r, 64), 0);
	cr_assert_eq(mpr_rcv_bytes(&r), 17);
	mpr_rcv_free(&r);
}
