// SPDX-License-Identifier: MIT
/*
 * What MP-RDMA's datapath receives (transport/mprdma/mpr_wire.c): an IPv4
 * packet that may hold an MP-RDMA data packet (RC SEND Only + MPX-D) or its
 * ACK/NACK (RC Acknowledge + AETH + MPX-A).  Byte 0 bit 0: write the right
 * ICRC over the packet first, so the fuzzer gets past the checksum into the
 * headers.  Property checked: a packet that parses, built again from what
 * was parsed, parses the same.
 */
#include "tests/fuzz/fuzz.h"
#include "transport/mprdma/mpr_wire.h"

static struct mpr_wire_ep ep_of(const struct roce_ip *ip, uint32_t qpn)
{
	return (struct mpr_wire_ep){.src = ip->src,
				    .dst = ip->dst,
				    .dst_qpn = qpn,
				    .dscp = (uint8_t)(ip->tos >> 2),
				    .ttl = ip->ttl ? ip->ttl : 64};
}

static void data_again(const struct roce_ip *ip, uint32_t qpn, const struct mpr_pkt *p,
		       const uint8_t *pl, size_t plen)
{
	uint8_t buf[70000];
	struct mpr_wire_ep e = ep_of(ip, qpn);
	struct roce_ip ip2;
	struct mpr_pkt p2;
	uint32_t qpn2;
	const uint8_t *pl2;
	size_t plen2;
	ssize_t n = mpr_wire_data(buf, sizeof(buf), &e, ip->id, p, pl, plen);

	if (n < 0)
		return;
	if (mpr_wire_parse_data(buf, (size_t)n, &ip2, &qpn2, &p2, &pl2, &plen2) || qpn2 != qpn ||
	    p2.psn != p->psn || p2.msg_first != p->msg_first || p2.vp != p->vp ||
	    p2.retx != p->retx || p2.sync != p->sync || p2.tail != p->tail || p2.cqe != p->cqe ||
	    p2.probe != p->probe || p2.tx_ns != p->tx_ns || plen2 != plen ||
	    memcmp(pl, pl2, plen) || ip2.id != ip->id || ip2.src.s_addr != ip->src.s_addr) {
		fprintf(stderr, "a parsed data packet built again does not parse the same\n");
		abort();
	}
}

static void ack_again(const struct roce_ip *ip, uint32_t qpn, const struct mpr_ack *a)
{
	uint8_t buf[256];
	struct mpr_wire_ep e = ep_of(ip, qpn);
	struct roce_ip ip2;
	struct mpr_ack a2;
	uint32_t qpn2;
	ssize_t n = mpr_wire_ack(buf, sizeof(buf), &e, ip->id, a);

	if (n < 0 || mpr_wire_parse_ack(buf, (size_t)n, &ip2, &qpn2, &a2) || qpn2 != qpn ||
	    a2.vp != a->vp || a2.sack != a->sack || a2.aack != a->aack ||
	    a2.nack_psn != a->nack_psn || a2.ece != a->ece || a2.retx != a->retx ||
	    a2.nack != a->nack || a2.sync_fail != a->sync_fail || a2.tx_ns != a->tx_ns) {
		fprintf(stderr, "a parsed ACK built again does not parse the same\n");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_ip ip;
	struct mpr_pkt p;
	struct mpr_ack a;
	const uint8_t *pl;
	uint32_t qpn;
	size_t plen, len;
	uint8_t *pkt;

	pkt = fuzz_packet(data, size, &len, roce_seal);
	if (!pkt)
		return 0;
	if (!mpr_wire_parse_data(pkt, len, &ip, &qpn, &p, &pl, &plen)) {
		if (pl < pkt || pl + plen > pkt + len)
			abort();
		mpr_wire_pattern_ok(p.psn, pl, plen);
		data_again(&ip, qpn, &p, pl, plen);
	}
	if (!mpr_wire_parse_ack(pkt, len, &ip, &qpn, &a))
		ack_again(&ip, qpn, &a);
	free(pkt);
	return 0;
}
