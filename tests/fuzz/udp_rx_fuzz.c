// SPDX-License-Identifier: MIT
/*
 * What the udp transport's raw socket receives (probe/ptrans_udp.c): an IPv4
 * packet that may hold a RoCEv2 UD SEND (IPv4, UDP, BTH, DETH, payload,
 * ICRC) carrying a Hostmesh probe payload, and the ICMP errors a trace reads
 * (probe/trace.c).  Byte 0 bit 0: write the right ICRC over the packet first,
 * so the fuzzer gets past the checksum into the payload.  Property checked: a
 * packet that parses, built again from what was parsed, parses the same.
 */
#include "probe/hostmesh/hostmesh.h"
#include "probe/roce.h"
#include "probe/trace.h"
#include "tests/fuzz/fuzz.h"

#include <arpa/inet.h>

static void same_again(const struct roce_ip *ip, const struct roce_ud *ud, const uint8_t *pl,
		       size_t plen)
{
	uint8_t buf[70000];
	struct roce_ip ip2;
	struct roce_ud ud2;
	const uint8_t *pl2;
	size_t plen2;
	ssize_t n = roce_build_ud(buf, sizeof(buf), ip, ud, pl, plen);

	if (n < 0)
		return; /* too long to build again */
	if (roce_parse_ud(buf, (size_t)n, &ip2, &ud2, &pl2, &plen2) || plen2 != plen ||
	    memcmp(pl, pl2, plen) || ip2.src.s_addr != ip->src.s_addr ||
	    ip2.dst.s_addr != ip->dst.s_addr || ip2.sport != ip->sport || ip2.id != ip->id ||
	    ip2.ttl != ip->ttl || ip2.tos != ip->tos || ud2.dst_qpn != ud->dst_qpn ||
	    ud2.src_qpn != ud->src_qpn || ud2.qkey != ud->qkey || ud2.psn != ud->psn) {
		fprintf(stderr, "a parsed packet built again does not parse the same\n");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_req req = {.sport = 49152, .dport = 33434};
	struct roce_ip ip;
	struct roce_ud ud;
	const uint8_t *pl;
	size_t plen, len;
	uint8_t *pkt;
	struct in_addr from;
	int type;

	pkt = fuzz_packet(data, size, &len, roce_seal);
	if (!pkt)
		return 0;
	if (!roce_parse_ud(pkt, len, &ip, &ud, &pl, &plen)) {
		struct hm_payload p;

		if (pl < pkt || pl + plen > pkt + len)
			abort();
		hm_payload_decode(pl, plen, &p);
		same_again(&ip, &ud, pl, plen);
	}
	inet_pton(AF_INET, "198.18.1.1", &req.src);
	inet_pton(AF_INET, "198.18.2.1", &req.dst);
	trace_match_icmp(pkt, len, &req, &from, &type);
	free(pkt);
	return 0;
}
