// SPDX-License-Identifier: MIT
/* RoCEv2 packets: the ICRC of a real ConnectX-4 Lx packet, build/parse round trips, and hostile
 * input. */
#define _GNU_SOURCE
#include "probe/hostmesh/hostmesh.h"
#include "probe/roce.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

/* A CNP captured from a ConnectX-4 Lx (public test vector of scapy's RoCE layer), from its IPv4
 * header on. */
static const uint8_t cx4_cnp[] = {
    0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11,
    0x01, 0x0a, 0x00, 0x12, 0x01, 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x81, 0x00,
    0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0xfd, 0x00, 0x2a,
};

Test(roce, icrc_matches_real_hardware)
{
	uint32_t crc = roce_icrc(cx4_cnp, sizeof(cx4_cnp));

	/* On the wire least significant byte first: 82 fd 00 2a. */
	cr_assert_eq(crc, 0x2a00fd82u, "ICRC %08x", crc);
}

static void sample(struct roce_ip *ip, struct roce_ud *ud)
{
	memset(ip, 0, sizeof(*ip));
	memset(ud, 0, sizeof(*ud));
	inet_pton(AF_INET, "198.18.1.2", &ip->src);
	inet_pton(AF_INET, "198.18.2.2", &ip->dst);
	ip->sport = 54321;
	ip->dport = 4791;
	ip->id = 4242;
	ip->ttl = 64;
	ip->tos = 0x68;
	ud->dst_qpn = 0x101;
	ud->src_qpn = 0x100;
	ud->qkey = ROCE_DEFAULT_QKEY;
	ud->psn = 77;
}

Test(roce, build_and_parse_round_trip)
{
	struct roce_ip ip, got_ip;
	struct roce_ud ud, got_ud;
	uint8_t payload[HM_PAYLOAD_LEN], pkt[256];
	const uint8_t *pl;
	size_t plen;
	ssize_t n;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)i;
	sample(&ip, &ud);
	n = roce_build_ud(pkt, sizeof(pkt), &ip, &ud, payload, sizeof(payload));
	/* 20 IP + 8 UDP + 12 BTH + 8 DETH + 52 (50 padded) + 4 ICRC */
	cr_assert_eq(n, 104);
	cr_assert_eq(roce_ip_checksum(pkt, 20), 0, "IPv4 header checksum");
	cr_assert_eq(pkt[28], ROCE_OP_UD_SEND_ONLY);
	cr_assert_eq((pkt[29] >> 4) & 3, 2, "pad count");
	cr_assert_eq(roce_parse_ud(pkt, (size_t)n, &got_ip, &got_ud, &pl, &plen), 0);
	cr_assert_eq(plen, sizeof(payload));
	cr_assert_eq(memcmp(pl, payload, plen), 0);
	cr_assert_eq(got_ip.id, 4242);
	cr_assert_eq(got_ip.sport, 54321);
	cr_assert_eq(got_ud.dst_qpn, 0x101);
	cr_assert_eq(got_ud.src_qpn, 0x100);
	cr_assert_eq(got_ud.qkey, ROCE_DEFAULT_QKEY);

	/* The ICRC ignores what routers change: TTL, TOS/ECN, the header checksum. */
	pkt[8] = 3;
	pkt[1] |= 3;
	cr_assert_eq(roce_parse_ud(pkt, (size_t)n, &got_ip, &got_ud, &pl, &plen), 0);
	/* ...but not the IP ID or the payload. */
	pkt[5] ^= 1;
	cr_assert_eq(roce_parse_ud(pkt, (size_t)n, &got_ip, &got_ud, &pl, &plen), -EBADMSG);
	pkt[5] ^= 1;
	pkt[60] ^= 0x40;
	cr_assert_eq(roce_parse_ud(pkt, (size_t)n, &got_ip, &got_ud, &pl, &plen), -EBADMSG);
}

Test(roce, rejects_truncated_and_foreign)
{
	struct roce_ip ip;
	struct roce_ud ud;
	uint8_t payload[8] = {0}, pkt[256], junk[64];
	const uint8_t *pl;
	size_t plen;
	ssize_t n;

	sample(&ip, &ud);
	n = roce_build_ud(pkt, sizeof(pkt), &ip, &ud, payload, sizeof(payload));
	cr_assert_gt(n, 0);
	for (size_t cut = 0; cut < (size_t)n; cut++)
		cr_assert_neq(roce_parse_ud(pkt, cut, &ip, &ud, &pl, &plen), 0, "cut at %zu", cut);
	memset(junk, 0xa5, sizeof(junk));
	cr_assert_neq(roce_parse_ud(junk, sizeof(junk), &ip, &ud, &pl, &plen), 0);
	/* the real CNP is RoCEv2 but not a UD SEND */
	cr_assert_eq(roce_parse_ud(cx4_cnp, sizeof(cx4_cnp), &ip, &ud, &pl, &plen), -EPROTO);
	cr_assert_eq(roce_build_ud(pkt, 40, &ip, &ud, payload, sizeof(payload)), -ENOSPC);
}

Test(roce, payload_round_trip_and_rejects)
{
	struct hm_payload p = {.kind = HM_KIND_TRACE,
			       .src = 3,
			       .dst = 1,
			       .ttl = 4,
			       .nonce = 0xdeadbeef,
			       .id = 123456,
			       .sport = 61000,
			       .t1_ns = 1795241000123456789ULL},
			  q;
	uint8_t b[HM_PAYLOAD_LEN];

	hm_payload_encode(&p, b);
	cr_assert_eq(hm_payload_decode(b, sizeof(b), &q), 0);
	cr_assert(q.kind == p.kind && q.src == p.src && q.dst == p.dst && q.ttl == p.ttl &&
		  q.nonce == p.nonce && q.id == p.id && q.sport == p.sport && q.t1_ns == p.t1_ns);
	cr_assert_eq(hm_payload_decode(b, sizeof(b) - 1, &q), -EPROTO);
	b[0] ^= 1;
	cr_assert_eq(hm_payload_decode(b, sizeof(b), &q), -EPROTO);
}
