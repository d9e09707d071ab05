// SPDX-License-Identifier: MIT
/*
 * R-Pingmesh's probe protocol: the payload codec, the six timestamps'
 * arithmetic (exact figures, skewed clocks, bad values) and the prober's
 * pending table (ACK2 lost, ACKs out of order, stale, duplicate, foreign
 * and short replies counted and never matched).
 */
#include "probe/rpingmesh/rpm.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#define US 1000ULL
#define MS 1000000ULL
#define S  1000000000ULL

static const struct rpm_msg probe = {.kind = RPM_PROBE,
				     .list = RPM_INTER_TOR,
				     .src_host = 0,
				     .dst_host = 2,
				     .src_rnic = 1,
				     .dst_rnic = 3,
				     .sport = 50001,
				     .nonce = 0xabcd,
				     .id = 7,
				     .t1 = 1234567890123ULL};

Test(rpm, the_payload_round_trips_big_endian)
{
	uint8_t buf[RPM_PAYLOAD_LEN];
	struct rpm_msg m = probe, d;

	m.ttl = 61, m.t3 = 0x0102030405060708ULL, m.t4 = 42;
	cr_assert_eq(rpm_encode(&m, buf), RPM_PAYLOAD_LEN);
	cr_assert_eq(memcmp(buf, "RLRP", 4), 0, "the magic, readable in a capture");
	cr_assert_eq(buf[4], RPM_VERSION);
	cr_assert_eq(buf[32], 0x01, "T3 big-endian");
	cr_assert_eq(buf[39], 0x08);
	cr_assert_eq(rpm_decode(buf, sizeof(buf), &d), 0);
	cr_assert(d.kind == m.kind && d.list == m.list && d.ttl == m.ttl &&
		  d.src_host == m.src_host && d.dst_host == m.dst_host &&
		  d.src_rnic == m.src_rnic && d.dst_rnic == m.dst_rnic && d.sport == m.sport &&
		  d.nonce == m.nonce && d.id == m.id && d.t1 == m.t1 && d.t3 == m.t3 &&
		  d.t4 == m.t4);
	cr_assert_eq(rpm_decode(buf, 47, &d), -EMSGSIZE);
	cr_assert_eq(rpm_decode(buf, 3, &d), -EMSGSIZE);
	buf[0] ^= 1;
	cr_assert_eq(rpm_decode(buf, sizeof(buf), &d), -EPROTO, "another magic");
	buf[0] ^= 1, buf[5] = 9;
	cr_assert_eq(rpm_decode(buf, sizeof(buf), &d), -EPROTO, "no such kind");
	buf[5] = RPM_ACK1, buf[6] = RPM_LISTS;
	cr_assert_eq(rpm_decode(buf, sizeof(buf), &d), -EPROTO, "no such list");
}

/* A probe whose network RTT is 20 us, prober 7 us, responder 3 us. */
static struct rpm_times clean(int64_t p_host, int64_t p_rnic, int64_t r_rnic)
{
	/* each clock has its own origin: P's host, P's RNIC, R's RNIC */
	return (struct rpm_times){.t1 = (uint64_t)(p_host + 100 * (int64_t)S),
				  .t2 = (uint64_t)(p_rnic + 100 * (int64_t)S + 2 * US),
				  .t3 = (uint64_t)(r_rnic + 100 * (int64_t)S + 12 * US),
				  .t4 = (uint64_t)(r_rnic + 100 * (int64_t)S + 15 * US),
				  .t5 = (uint64_t)(p_rnic + 100 * (int64_t)S + 25 * US),
				  .t6 = (uint64_t)(p_host + 100 * (int64_t)S + 30 * US)};
}

Test(rpm, the_six_timestamps_give_rtt_and_both_delays_exactly)
{
	struct rpm_result r;
	struct rpm_times t = clean(0, 0, 0);

	rpm_compute(&t, true, &r);
	cr_assert_eq(r.status, RPM_OK);
	cr_assert_eq(r.rtt_ns, 20 * US, "(T5 - T2) - (T4 - T3) = 23 - 3");
	cr_assert_eq(r.prober_ns, 7 * US, "(T6 - T1) - (T5 - T2) = 30 - 23");
	cr_assert_eq(r.responder_ns, 3 * US);
}

Test(rpm, skewed_clocks_change_nothing)
{
	static const int64_t skew[] = {(int64_t)S, -(int64_t)S, 37 * (int64_t)MS, 1};

	for (size_t a = 0; a < 4; a++)
		for (size_t b = 0; b < 4; b++) {
			struct rpm_result r;
			struct rpm_times t = clean(skew[a], skew[b], -skew[(a + b) % 4]);

			rpm_compute(&t, true, &r);
			cr_assert_eq(r.status, RPM_OK);
			cr_assert_eq(r.rtt_ns, 20 * US);
			cr_assert_eq(r.prober_ns, 7 * US);
			cr_assert_eq(r.responder_ns, 3 * US);
		}
}

Test(rpm, bad_timestamps_are_invalid_never_figures)
{
	struct rpm_result r;
	struct rpm_times t;

	t = clean(0, 0, 0), t.t2 = 0; /* a zero hardware timestamp ("56-year" RTTs) */
	rpm_compute(&t, true, &r);
	cr_assert_eq(r.status, RPM_INVALID);
	cr_assert_eq(r.rtt_ns, -1);
	t = clean(0, 0, 0), t.t5 = t.t2 - 1; /* ACK1 before the probe on one clock */
	rpm_compute(&t, true, &r);
	cr_assert_eq(r.status, RPM_INVALID);
	t = clean(0, 0, 0), t.t4 = t.t3 - 1;
	rpm_compute(&t, true, &r);
	cr_assert_eq(r.status, RPM_INVALID, "the responder sent before it received");
	t = clean(0, 0, 0), t.t4 = t.t3 + 30 * US; /* longer than the whole round trip */
	rpm_compute(&t, true, &r);
	cr_assert_eq(r.status, RPM_INVALID, "a negative network RTT");
	t = clean(0, 0, 0), t.t6 = t.t1 + 10 * US; /* the app's span inside the RNIC's */
	rpm_compute(&t, true, &r);
	cr_assert_eq(r.status, RPM_INVALID, "a negative prober delay");
	t = clean(0, 0, 0), t.t5 = t.t2 + 11 * S, t.t6 = t.t1 + 11 * S;
	rpm_compute(&t, true, &r);
	cr_assert_eq(r.status, RPM_INVALID, "past the 10 s bound");
	t = clean(0, 0, 0), t.t4 = t.t3 + 2 * S, t.t5 = t.t2 + 3 * S, t.t6 = t.t1 + 3 * S;
	rpm_compute(&t, true, &r);
	cr_assert_eq(r.status, RPM_INVALID, "a responder delay past 1 s");
}

Test(rpm, ack2_lost_gives_the_prober_delay_and_no_rtt)
{
	struct rpm_result r;
	struct rpm_times t = clean(0, 0, 0);

	t.t4 = 0;
	rpm_compute(&t, false, &r);
	cr_assert_eq(r.status, RPM_ACK2_LOST);
	cr_assert_eq(r.rtt_ns, -1);
	cr_assert_eq(r.responder_ns, -1);
	cr_assert_eq(r.prober_ns, 7 * US);
}

/* The responder's ACK of kind to p, with its T3 and T4, encoded into buf. */
static size_t ack(const struct rpm_msg *p, bool ack2, uint64_t t3, uint64_t t4, uint8_t *buf)
{
	struct rpm_msg a;

	rpm_ack(p, ack2, t3, t4, &a);
	cr_assert_eq(a.kind, ack2 ? RPM_ACK2 : RPM_ACK1);
	cr_assert_eq(a.t4, ack2 ? t4 : 0, "ACK1 carries no T4: it is not known yet");
	return rpm_encode(&a, buf);
}

static struct rpm_done expired[8];
static size_t n_expired;

static void on_expired(void *ctx, const struct rpm_done *d)
{
	(void)ctx;
	expired[n_expired++] = *d;
}

Test(rpm, the_pending_table_matches_each_ack_once_and_counts_the_rest)
{
	struct rpm_pend *pt = rpm_pend_new(0xabcd, 16, 500 * MS);
	struct rpm_times t = clean(0, 0, 0);
	struct rpm_done d;
	uint8_t buf[RPM_PAYLOAD_LEN];
	size_t len;

	cr_assert_not_null(pt);
	cr_assert_eq(rpm_pend_sent(pt, &probe, t.t1, t.t2), 0);
	cr_assert_eq(rpm_pend_sent(pt, &probe, t.t1, t.t2), -EBUSY, "its slot awaits an answer");
	len = ack(&probe, false, t.t3, 0, buf);
	cr_assert_eq(rpm_pend_reply(pt, buf, len, t.t5, t.t6, &d), 0, "ACK1: matched, not done");
	cr_assert_eq(rpm_pend_reply(pt, buf, len, t.t5, t.t6, &d), -EALREADY);
	cr_assert_eq(pt->duplicate, 1);
	len = ack(&probe, true, t.t3, t.t4, buf);
	cr_assert_eq(rpm_pend_reply(pt, buf, len, t.t5 + 9 * US, 0, &d), 1, "ACK2 completes it");
	cr_assert_eq(d.r.status, RPM_OK);
	cr_assert_eq(d.r.rtt_ns, 20 * US, "T5 and T6 are ACK1's, whenever ACK2 came");
	cr_assert_eq(d.r.prober_ns, 7 * US);
	cr_assert_eq(d.probe.id, 7);
	cr_assert_eq(rpm_pend_reply(pt, buf, len, t.t5, t.t6, &d), -ENOENT,
		     "done: no longer pending");
	cr_assert_eq(pt->unknown, 1);

	/* ACK2 before ACK1 (another path back): the same figures */
	cr_assert_eq(rpm_pend_sent(pt, &probe, t.t1, t.t2), 0);
	len = ack(&probe, true, t.t3, t.t4, buf);
	cr_assert_eq(rpm_pend_reply(pt, buf, len, t.t5, 0, &d), 0);
	len = ack(&probe, false, t.t3, 0, buf);
	cr_assert_eq(rpm_pend_reply(pt, buf, len, t.t5, t.t6, &d), 1);
	cr_assert_eq(d.r.status, RPM_OK);
	cr_assert_eq(d.r.rtt_ns, 20 * US);
	cr_assert_eq(pt->used, 0);
	cr_assert_not(rpm_pend_due(pt, t.t1 + S), "every probe answered: none can be due");

	/* a probe not sent after all: its slot free, nothing to expire */
	cr_assert_eq(rpm_pend_sent(pt, &probe, t.t1, t.t2), 0);
	rpm_pend_drop(pt, probe.id + 1);
	cr_assert_eq(pt->used, 1, "another id: not dropped");
	rpm_pend_drop(pt, probe.id);
	cr_assert_eq(pt->used, 0);
	cr_assert_eq(rpm_pend_expire(pt, t.t1 + S, on_expired, NULL), 0);

	/* a stale epoch, a stranger's payload, a short one, the probe itself echoed */
	struct rpm_msg old = probe;

	old.nonce = 0xabcc;
	cr_assert_eq(rpm_pend_sent(pt, &probe, t.t1, t.t2), 0);
	len = ack(&old, false, t.t3, 0, buf);
	cr_assert_eq(rpm_pend_reply(pt, buf, len, t.t5, t.t6, &d), -ESTALE);
	cr_assert_eq(pt->stale, 1);
	memset(buf, 0x5a, sizeof(buf));
	cr_assert_eq(rpm_pend_reply(pt, buf, sizeof(buf), t.t5, t.t6, &d), -EPROTO);
	cr_assert_eq(rpm_pend_reply(pt, buf, 5, t.t5, t.t6, &d), -EMSGSIZE);
	cr_assert_eq(pt->short_msg, 1);
	len = rpm_encode(&probe, buf);
	cr_assert_eq(rpm_pend_reply(pt, buf, len, t.t5, t.t6, &d), -EPROTO, "a probe is no ACK");
	cr_assert_eq(pt->foreign, 2);
	/* an ACK for another target with the same id: never matched to this probe */
	struct rpm_msg other = probe;

	other.dst_rnic = 0;
	len = ack(&other, false, t.t3, 0, buf);
	cr_assert_eq(rpm_pend_reply(pt, buf, len, t.t5, t.t6, &d), -ENOENT);

	/* nothing came: a timeout, once, and only past its time */
	n_expired = 0;
	cr_assert_not(rpm_pend_due(pt, t.t1 + 499 * MS), "due tells before expire reads");
	cr_assert_not(rpm_pend_due(pt, t.t1 - 1));
	cr_assert(rpm_pend_due(pt, t.t1 + 500 * MS));
	cr_assert_eq(rpm_pend_expire(pt, t.t1 + 499 * MS, on_expired, NULL), 0);
	cr_assert_eq(rpm_pend_expire(pt, t.t1 - 1, on_expired, NULL), 0, "a clock before T1");
	cr_assert_eq(rpm_pend_expire(pt, t.t1 + 500 * MS, on_expired, NULL), 1);
	cr_assert_eq(expired[0].r.status, RPM_TIMEOUT);
	cr_assert_not(rpm_pend_due(pt, t.t1 + 900 * MS), "expired once: no longer due");
	cr_assert_eq(rpm_pend_expire(pt, t.t1 + 900 * MS, on_expired, NULL), 0);

	/* ACK1 alone: ACK2 lost, with the prober's delay */
	struct rpm_msg p2 = probe;

	p2.id = 8;
	cr_assert_eq(rpm_pend_sent(pt, &p2, t.t1, t.t2), 0);
	len = ack(&p2, false, t.t3, 0, buf);
	cr_assert_eq(rpm_pend_reply(pt, buf, len, t.t5, t.t6, &d), 0);
	cr_assert_eq(rpm_pend_expire(pt, t.t1 + S, on_expired, NULL), 1);
	cr_assert_eq(expired[1].r.status, RPM_ACK2_LOST);
	cr_assert_eq(expired[1].r.prober_ns, 7 * US);
	cr_assert_eq(expired[1].r.rtt_ns, -1);
	cr_assert_eq(expired[1].probe.id, 8);

	/* two pending, one past its time: it alone expires, and the other is due at its own */
	struct rpm_msg p3 = probe, p4 = probe;

	p3.id = 9, p4.id = 10;
	cr_assert_eq(rpm_pend_sent(pt, &p3, t.t1, t.t2), 0);
	cr_assert_eq(rpm_pend_sent(pt, &p4, t.t1 + 300 * MS, t.t2 + 300 * MS), 0);
	cr_assert_eq(rpm_pend_expire(pt, t.t1 + 600 * MS, on_expired, NULL), 1);
	cr_assert_eq(expired[2].probe.id, 9);
	cr_assert_not(rpm_pend_due(pt, t.t1 + 799 * MS));
	cr_assert(rpm_pend_due(pt, t.t1 + 800 * MS));
	cr_assert_eq(rpm_pend_expire(pt, t.t1 + 800 * MS, on_expired, NULL), 1);
	cr_assert_eq(expired[3].probe.id, 10);
	cr_assert_eq(pt->used, 0);
	rpm_pend_free(pt);
	cr_assert_null(rpm_pend_new(1, 0, MS));
}

Test(rpm, the_responder_answers_its_own_probes_and_counts_the_rest)
{
	struct rpm_resp_stats st = {0};
	struct rpm_msg a1, a2, p = probe;
	uint8_t buf[RPM_PAYLOAD_LEN];
	size_t len = rpm_encode(&p, buf);

	cr_assert_eq(rpm_respond(buf, len, 2, 3, 61, 5 * S, &a1, &st), 0);
	cr_assert_eq(a1.kind, RPM_ACK1);
	cr_assert_eq(a1.t3, 5 * S);
	cr_assert_eq(a1.t4, 0);
	cr_assert_eq(a1.ttl, 61, "the arrival TTL echoed");
	cr_assert(a1.id == p.id && a1.nonce == p.nonce && a1.sport == p.sport && a1.t1 == p.t1 &&
		  a1.src_host == p.src_host && a1.src_rnic == p.src_rnic);
	rpm_ack(&a1, true, a1.t3, 5 * S + 4 * US, &a2);
	cr_assert_eq(a2.kind, RPM_ACK2);
	cr_assert_eq(a2.t4 - a2.t3, 4 * US);
	cr_assert_eq(a2.ttl, 61);
	cr_assert_eq(rpm_respond(buf, len, 2, 0, 61, 5 * S, &a1, &st), -EDESTADDRREQ);
	cr_assert_eq(rpm_respond(buf, len, 1, 3, 61, 5 * S, &a1, &st), -EDESTADDRREQ);
	cr_assert_eq(rpm_respond(buf, 20, 2, 3, 61, 5 * S, &a1, &st), -EMSGSIZE);
	len = rpm_encode(&a2, buf);
	cr_assert_eq(rpm_respond(buf, len, 2, 3, 61, 5 * S, &a1, &st), -EPROTO, "an ACK");
	memset(buf, 0, sizeof(buf));
	cr_assert_eq(rpm_respond(buf, sizeof(buf), 2, 3, 61, 5 * S, &a1, &st), -EPROTO);
	cr_assert(st.answered == 1 && st.misaddressed == 2 && st.short_msg == 1 &&
		  st.not_probe == 1 && st.foreign == 1);
}
