// SPDX-License-Identifier: MIT
/*
 * MP-RDMA's packets on the wire: every field there and back, the sizes the
 * simulator and the goodput efficiency assume, ECN, and what is refused.
 */
#include "transport/mprdma/mpr_wire.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

static struct mpr_wire_ep ep(void)
{
	struct mpr_wire_ep e = {.dst_qpn = 0x123456, .dscp = 26};

	inet_pton(AF_INET, "198.18.1.1", &e.src);
	inet_pton(AF_INET, "198.18.2.1", &e.dst);
	return e;
}

Test(wire, data_round_trip)
{
	struct mpr_wire_ep e = ep();
	struct mpr_pkt p = {.psn = 0x01abcdef,
			    .msg_first = 0x01abcd00,
			    .vp = 51234,
			    .retx = true,
			    .tail = true,
			    .cqe = true,
			    .tx_ns = 0x1122334455667788ULL,
			    .conn = 0xbeef},
		       got;
	uint8_t pl[MPR_WIRE_PAYLOAD], buf[2048];
	struct roce_ip ip;
	uint32_t qpn;
	const uint8_t *gpl;
	size_t glen;

	mpr_wire_pattern(p.psn, pl, sizeof(pl));
	ssize_t n = mpr_wire_data(buf, sizeof(buf), &e, 777, &p, pl, sizeof(pl));

	cr_assert_eq(n, 1098 - 14, "1098 bytes on a veth wire, as pathsim assumes");
	cr_assert_eq(mpr_wire_frame_len(sizeof(pl), false), 1098);
	cr_assert_eq(mpr_wire_parse_data(buf, (size_t)n, &ip, &qpn, &got, &gpl, &glen), 0);
	cr_assert_eq(got.psn, p.psn);
	cr_assert_eq(got.msg_first, p.msg_first);
	cr_assert_eq(got.vp, 51234);
	cr_assert(got.retx && got.tail && got.cqe && !got.sync && !got.probe && !got.ce);
	cr_assert_eq(got.tx_ns, p.tx_ns);
	cr_assert_eq(got.conn, 0xbeef, "a spraying workload's connection number");
	cr_assert_eq(qpn, 0x123456);
	cr_assert_eq(ip.id, 777);
	cr_assert_eq(ip.dport, 4791);
	cr_assert_eq(ip.tos, 26 << 2 | MPR_WIRE_ECT0);
	cr_assert_eq(glen, sizeof(pl));
	cr_assert(mpr_wire_pattern_ok(p.psn, gpl, glen));
	cr_assert_not(mpr_wire_pattern_ok(p.psn + 1, gpl, glen), "another PSN's payload");

	/* the fabric marks CE: TOS and TTL are outside the ICRC */
	buf[1] |= MPR_WIRE_CE;
	buf[8] = 3;
	buf[10] = buf[11] = 0; /* and the header checksum with them */
	uint16_t sum = roce_ip_checksum(buf, ROCE_IP_LEN);

	buf[10] = (uint8_t)(sum >> 8);
	buf[11] = (uint8_t)sum;
	cr_assert_eq(mpr_wire_parse_data(buf, (size_t)n, &ip, &qpn, &got, &gpl, &glen), 0);
	cr_assert(got.ce);

	/* anything else changed breaks the ICRC */
	buf[60] ^= 1;
	cr_assert_eq(mpr_wire_parse_data(buf, (size_t)n, &ip, &qpn, &got, &gpl, &glen), -EBADMSG);
}

Test(wire, ack_and_nack_round_trip)
{
	struct mpr_wire_ep e = ep();
	struct mpr_ack acks[] = {
	    {.vp = 49152, .sack = 0x02000010, .aack = 0x02000001, .ece = true, .tx_ns = 42},
	    {.vp = 65535, .sack = 900, .aack = 800, .nack = true, .nack_psn = 800, .retx = true},
	    {.vp = 50000,
	     .sack = 0x7fffff40,
	     .aack = 0x7fffff00,
	     .nack = true,
	     .sync_fail = true,
	     .nack_psn = 0x7fffff40},
	};
	uint8_t buf[256];
	struct roce_ip ip;
	uint32_t qpn;

	for (unsigned i = 0; i < 3; i++) {
		struct mpr_ack got;
		ssize_t n = mpr_wire_ack(buf, sizeof(buf), &e, (uint16_t)(i + 1), &acks[i]);

		cr_assert_eq(n, 78 - 14, "78 bytes on a veth wire, as pathsim assumes");
		cr_assert_eq(mpr_wire_frame_len(0, true), 78);
		cr_assert_eq(mpr_wire_parse_ack(buf, (size_t)n, &ip, &qpn, &got), 0);
		cr_assert(got.vp == acks[i].vp && got.sack == acks[i].sack &&
			      got.aack == acks[i].aack && got.nack_psn == acks[i].nack_psn &&
			      got.ece == acks[i].ece && got.retx == acks[i].retx &&
			      got.nack == acks[i].nack && got.sync_fail == acks[i].sync_fail &&
			      got.tx_ns == acks[i].tx_ns,
			  "ACK %u", i);
		cr_assert_eq(ip.sport, acks[i].vp, "the ACK goes back on the data's VP");
		cr_assert_eq(ip.tos & 3, 0, "ACKs are not ECN-capable");
		struct mpr_pkt p;
		const uint8_t *pl;
		size_t plen;

		cr_assert_eq(mpr_wire_parse_data(buf, (size_t)n, &ip, &qpn, &p, &pl, &plen),
			     -EPROTO, "an ACK is no data");
	}
	struct mpr_ack bad = acks[1];

	bad.nack_psn = 801; /* neither the AACK nor a synchronise SACK */
	cr_assert_eq(mpr_wire_ack(buf, sizeof(buf), &e, 1, &bad), -EINVAL);
	cr_assert_eq(mpr_wire_ack(buf, 40, &e, 1, &acks[0]), -ENOSPC);
}

Test(wire, truncated_and_foreign_packets_are_refused)
{
	struct mpr_wire_ep e = ep();
	struct mpr_pkt p = {.psn = 5, .vp = 50000}, got;
	uint8_t pl[100] = {0}, buf[512];
	struct roce_ip ip;
	uint32_t qpn;
	const uint8_t *gpl;
	size_t glen;
	ssize_t n = mpr_wire_data(buf, sizeof(buf), &e, 1, &p, pl, sizeof(pl));

	cr_assert_gt(n, 0);
	for (size_t cut = 0; cut < (size_t)n; cut++)
		cr_assert_neq(mpr_wire_parse_data(buf, cut, &ip, &qpn, &got, &gpl, &glen), 0,
			      "cut at %zu", cut);
	/* a UD SEND (a Hostmesh probe) on the same port */
	struct roce_ud ud = {.dst_qpn = 1, .qkey = ROCE_DEFAULT_QKEY};

	ip = (struct roce_ip){.src = e.src, .dst = e.dst, .sport = 50000, .dport = 4791, .ttl = 64};

	n = roce_build_ud(buf, sizeof(buf), &ip, &ud, pl, sizeof(pl));
	cr_assert_gt(n, 0);
	cr_assert_eq(mpr_wire_parse_data(buf, (size_t)n, &ip, &qpn, &got, &gpl, &glen), -EPROTO);
	/* a completion asked by a packet that is not its message's tail: malformed */
	p.cqe = true;
	n = mpr_wire_data(buf, sizeof(buf), &e, 1, &p, pl, sizeof(pl));
	cr_assert_gt(n, 0);
	cr_assert_eq(mpr_wire_parse_data(buf, (size_t)n, &ip, &qpn, &got, &gpl, &glen), -EPROTO);
}

/* The pattern as first written, a byte at a time: the word-wide fill must not drift from it. */
static uint8_t pattern_byte(uint32_t psn, size_t i)
{
	uint64_t z = ((uint64_t)psn << 32 | (i & ~(size_t)7)) + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (uint8_t)(z >> (8 * (i % 8)));
}

Test(wire, the_pattern_is_the_psns_splitmix_byte_for_byte_at_every_length)
{
	static const uint32_t psns[] = {0, 1, 0x00ffffff, 0x01000000, 0xdeadbeef, 0xffffffff};
	uint8_t buf[MPR_WIRE_PAYLOAD + 8];

	for (size_t k = 0; k < sizeof(psns) / sizeof(psns[0]); k++)
		for (size_t len = 0; len <= MPR_WIRE_PAYLOAD; len += len < 20 ? 1 : 61) {
			memset(buf, 0xa5, sizeof(buf));
			mpr_wire_pattern(psns[k], buf, len);
			for (size_t i = 0; i < len; i++)
				cr_assert_eq(buf[i], pattern_byte(psns[k], i),
					     "psn %#x len %zu byte %zu", psns[k], len, i);
			cr_assert_eq(buf[len], 0xa5, "psn %#x len %zu: nothing written past it",
				     psns[k], len);
			cr_assert(mpr_wire_pattern_ok(psns[k], buf, len));
			/* any one byte changed, in the last partial word too, is caught */
			for (size_t i = 0; i < len; i += len < 20 ? 1 : 97) {
				buf[i] ^= 0x10;
				cr_assert_not(mpr_wire_pattern_ok(psns[k], buf, len),
					      "psn %#x len %zu: byte %zu changed", psns[k], len, i);
				buf[i] ^= 0x10;
			}
			if (len)
				cr_assert_not(mpr_wire_pattern_ok(psns[k] ^ 1, buf, len),
					      "psn %#x len %zu: another PSN's", psns[k], len);
		}
	cr_assert_not(mpr_wire_pattern_ok(0, buf, MPR_WIRE_PAYLOAD + 1), "longer than a packet");
}
