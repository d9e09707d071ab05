// SPDX-License-Identifier: MIT
/*
 * The transport endpoints' own work per data packet: what the sender does
 * to put one on the wire (the payload's pattern, the RoCEv2 headers, the
 * ICRC) and what the receiver does to take it off (parse, ICRC, the
 * pattern's check), without the kernel's.  Run under callgrind by
 * transport_bench.sh: the instructions per packet are repeatable where the
 * endpoints' CPU share in a scenario is not.
 *
 * wire_bench N: builds and checks N packets; prints "N BAD" (BAD: packets
 * that failed a check, 0 unless the wire format broke).
 */
#include "transport/mprdma/mpr_wire.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct mpr_wire_ep ep = {.dst_qpn = 0x12, .dscp = 26};
	uint8_t payload[MPR_WIRE_PAYLOAD], pkt[2048];
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 0, bad = 0;

	if (!n) {
		fprintf(stderr, "usage: wire_bench PACKETS\n");
		return 2;
	}
	ep.src.s_addr = htonl(0xc6120101); /* 198.18.1.1 */
	ep.dst.s_addr = htonl(0xc6120201);
	for (unsigned long i = 0; i < n; i++) {
		struct mpr_pkt p = {.psn = (uint32_t)i, .vp = 49152 + (uint16_t)(i % 16)}, got;
		struct roce_ip ip;
		const uint8_t *pl;
		size_t plen;
		uint32_t qpn;
		ssize_t len;

		mpr_wire_pattern(p.psn, payload, sizeof(payload));
		len =
		    mpr_wire_data(pkt, sizeof(pkt), &ep, (uint16_t)i, &p, payload, sizeof(payload));
		if (len < 0 || mpr_wire_parse_data(pkt, (size_t)len, &ip, &qpn, &got, &pl, &plen) ||
		    !mpr_wire_pattern_ok(got.psn, pl, plen))
			bad++;
	}
	printf("%lu %lu\n", n, bad);
	return bad != 0;
}
