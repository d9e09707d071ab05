// SPDX-License-Identifier: MIT
/* RoCEv2 UD SEND packets: build and parse, with the invariant CRC of the InfiniBand spec (zlib
 * crc32). */
#include "probe/roce.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <zlib.h>

void roce_put_be(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

uint64_t roce_get_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

uint16_t roce_ip_checksum(const uint8_t *hdr, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += roce_get_be(hdr + i, 2);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * ICRC (IBA 1.4 annex A17, RoCEv2): CRC-32 over 8 bytes of ones standing for
 * the LRH, then the packet from the IPv4 header to the end of the payload with
 * the variant fields masked to ones: IP TOS, TTL and header checksum, the UDP
 * checksum, and BTH byte 4 (FECN, BECN, reserved).  On the wire the CRC goes
 * least significant byte first, like the Ethernet FCS.
 */
uint32_t roce_icrc(const uint8_t *pkt, size_t len)
{
	static const uint8_t ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	uint8_t hdr[ROCE_IP_LEN + ROCE_UDP_LEN + ROCE_BTH_LEN];
	const size_t ihl = ROCE_IP_LEN; /* option-less IPv4 only (roce_parse_ud checks) */
	uLong crc = crc32(0L, Z_NULL, 0);

	if (len < sizeof(hdr) + ROCE_ICRC_LEN)
		return 0; /* no room for the headers it covers: no RoCEv2 packet */
	memcpy(hdr, pkt, sizeof(hdr));
	hdr[1] = 0xff;			    /* TOS: DSCP and ECN */
	hdr[8] = 0xff;			    /* TTL */
	hdr[10] = hdr[11] = 0xff;	    /* header checksum */
	hdr[ihl + 6] = hdr[ihl + 7] = 0xff; /* UDP checksum */
	hdr[ihl + ROCE_UDP_LEN + 4] = 0xff; /* BTH FECN/BECN/resv6a */
	crc = crc32(crc, ones, sizeof(ones));
	crc = crc32(crc, hdr, sizeof(hdr));
	crc = crc32(crc, pkt + sizeof(hdr), (uInt)(len - sizeof(hdr) - ROCE_ICRC_LEN));
	return (uint32_t)crc;
}

void roce_seal(uint8_t *pkt, size_t cap)
{
	size_t tot;
	uint32_t icrc;

	if (cap < ROCE_IP_LEN)
		return;
	tot = (size_t)pkt[2] << 8 | pkt[3];
	if (tot < ROCE_IP_LEN + 4 || tot > cap)
		return;
	icrc = roce_icrc(pkt, tot);
	for (int i = 0; i < 4; i++)
		pkt[tot - 4 + (size_t)i] = (uint8_t)(icrc >> (8 * i));
}

size_t roce_packet_len(size_t hlen, size_t len)
{
	return ROCE_IP_LEN + ROCE_UDP_LEN + ROCE_BTH_LEN + hlen + ((len + 3) & ~(size_t)3) +
	       ROCE_ICRC_LEN;
}

ssize_t roce_build(uint8_t *buf, size_t cap, const struct roce_ip *ip, const struct roce_bth *b,
		   const void *hdr, size_t hlen, const void *payload, size_t len)
{
	size_t total = roce_packet_len(hlen, len), padded = (len + 3) & ~(size_t)3;
	uint8_t *u = buf + ROCE_IP_LEN, *bth = u + ROCE_UDP_LEN, *ext = bth + ROCE_BTH_LEN;

	if (total > cap || total > 0xffff)
		return -ENOSPC;
	memset(buf, 0, total);
	buf[0] = 0x45;
	buf[1] = ip->tos;
	roce_put_be(buf + 2, (uint16_t)total, 2);
	roce_put_be(buf + 4, ip->id, 2);
	roce_put_be(buf + 6, 0x4000, 2); /* DF, as RoCE stacks send */
	buf[8] = ip->ttl;
	buf[9] = IPPROTO_UDP;
	memcpy(buf + 12, &ip->src, 4);
	memcpy(buf + 16, &ip->dst, 4);
	roce_put_be(buf + 10, roce_ip_checksum(buf, ROCE_IP_LEN), 2);

	roce_put_be(u, ip->sport, 2);
	roce_put_be(u + 2, ip->dport, 2);
	roce_put_be(u + 4, (uint16_t)(total - ROCE_IP_LEN), 2);
	/* UDP checksum 0: RoCEv2 relies on the ICRC. */

	bth[0] = b->opcode;
	bth[1] = (uint8_t)(((padded - len) & 3) << 4); /* SE 0, M 0, PadCnt, TVer 0 */
	roce_put_be(bth + 2, b->pkey ? b->pkey : ROCE_DEFAULT_PKEY, 2);
	roce_put_be(bth + 5, b->dst_qpn & 0xffffff, 3);
	bth[8] = b->ack_req ? 0x80 : 0;
	roce_put_be(bth + 9, b->psn & 0xffffff, 3);

	if (hlen)
		memcpy(ext, hdr, hlen);
	if (len)
		memcpy(ext + hlen, payload, len);

	roce_seal(buf, total);
	return (ssize_t)total;
}

size_t roce_ud_packet_len(size_t len)
{
	return roce_packet_len(ROCE_DETH_LEN, len);
}

ssize_t roce_build_ud(uint8_t *buf, size_t cap, const struct roce_ip *ip, const struct roce_ud *ud,
		      const void *payload, size_t len)
{
	struct roce_bth b = {
	    .opcode = ud->opcode ? ud->opcode : ROCE_OP_UD_SEND_ONLY,
	    .pkey = ud->pkey,
	    .dst_qpn = ud->dst_qpn,
	    .psn = ud->psn,
	};
	uint8_t deth[ROCE_DETH_LEN] = {0};

	roce_put_be(deth, ud->qkey, 4);
	roce_put_be(deth + 5, ud->src_qpn & 0xffffff, 3);
	return roce_build(buf, cap, ip, &b, deth, sizeof(deth), payload, len);
}

int roce_parse(const uint8_t *pkt, size_t len, uint8_t opcode, size_t hlen, struct roce_ip *ip,
	       struct roce_bth *b, const uint8_t **rest, size_t *rlen)
{
	size_t ihl, ulen, pad, min = roce_packet_len(hlen, 0);
	const uint8_t *u, *bth;
	uint32_t icrc, got = 0;

	if (len < min)
		return -EMSGSIZE;
	ihl = (size_t)(pkt[0] & 0x0f) * 4;
	if ((pkt[0] >> 4) != 4 || ihl != ROCE_IP_LEN || pkt[9] != IPPROTO_UDP)
		return -EPROTO;
	if (roce_get_be(pkt + 6, 2) & 0x3fff) /* a fragment */
		return -EPROTO;
	if (roce_get_be(pkt + 2, 2) > len || roce_get_be(pkt + 2, 2) < min)
		return -EMSGSIZE;
	len = roce_get_be(pkt + 2, 2);
	u = pkt + ihl;
	ulen = roce_get_be(u + 4, 2);
	if (ulen != len - ihl)
		return -EMSGSIZE;
	bth = u + ROCE_UDP_LEN;
	if (roce_get_be(u + 2, 2) != 4791 || (opcode && bth[0] != opcode) || (bth[1] & 0x0f) != 0)
		return -EPROTO;
	pad = (bth[1] >> 4) & 3;
	if (len - min < pad)
		return -EMSGSIZE;
	icrc = roce_icrc(pkt, len);
	for (int i = 0; i < 4; i++)
		got |= (uint32_t)pkt[len - 4 + (size_t)i] << (8 * i);
	if (got != icrc)
		return -EBADMSG;

	memset(ip, 0, sizeof(*ip));
	ip->tos = pkt[1];
	ip->id = (uint16_t)roce_get_be(pkt + 4, 2);
	ip->ttl = pkt[8];
	memcpy(&ip->src, pkt + 12, 4);
	memcpy(&ip->dst, pkt + 16, 4);
	ip->sport = (uint16_t)roce_get_be(u, 2);
	ip->dport = (uint16_t)roce_get_be(u + 2, 2);
	memset(b, 0, sizeof(*b));
	b->opcode = bth[0];
	b->pkey = (uint16_t)roce_get_be(bth + 2, 2);
	b->fecn_becn = bth[4];
	b->dst_qpn = (uint32_t)roce_get_be(bth + 5, 3);
	b->ack_req = bth[8] & 0x80;
	b->psn = (uint32_t)roce_get_be(bth + 9, 3);
	*rest = bth + ROCE_BTH_LEN;
	*rlen = len - min + hlen - pad;
	return 0;
}

int roce_parse_ud(const uint8_t *pkt, size_t len, struct roce_ip *ip, struct roce_ud *ud,
		  const uint8_t **payload, size_t *plen)
{
	struct roce_bth b;
	const uint8_t *deth;
	size_t rlen;
	int r = roce_parse(pkt, len, ROCE_OP_UD_SEND_ONLY, ROCE_DETH_LEN, ip, &b, &deth, &rlen);

	if (r)
		return r;
	memset(ud, 0, sizeof(*ud));
	ud->opcode = b.opcode;
	ud->pkey = b.pkey;
	ud->fecn_becn = b.fecn_becn;
	ud->dst_qpn = b.dst_qpn;
	ud->psn = b.psn;
	ud->qkey = (uint32_t)roce_get_be(deth, 4);
	ud->src_qpn = (uint32_t)roce_get_be(deth + 5, 3);
	*payload = deth + ROCE_DETH_LEN;
	*plen = rlen - ROCE_DETH_LEN;
	return 0;
}
