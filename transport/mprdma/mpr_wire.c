// SPDX-License-Identifier: MIT
/* MP-RDMA's data and ACK packets as RoCEv2 (mpr_wire.h). */
#include "transport/mprdma/mpr_wire.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

enum { D_RETX = 0x01, D_SYNC = 0x02, D_TAIL = 0x04, D_PROBE = 0x08, D_CQE = 0x10 };
enum { A_ECE = 0x01, A_RETX = 0x02, A_SYNC_FAIL = 0x04, A_NACK = 0x08 };
enum { AETH_ACK = 0x1f, AETH_NAK_PSN = 0x60 };

static struct roce_ip ip_of(const struct mpr_wire_ep *ep, uint16_t id, uint16_t vp, uint8_t ecn)
{
	return (struct roce_ip){
	    .src = ep->src,
	    .dst = ep->dst,
	    .sport = vp,
	    .dport = 4791,
	    .id = id,
	    .ttl = ep->ttl ? ep->ttl : 64,
	    .tos = (uint8_t)(ep->dscp << 2 | ecn),
	};
}

size_t mpr_wire_frame_len(size_t len, bool ack)
{
	return MPR_WIRE_ETH + roce_packet_len(ack ? MPR_WIRE_ACK_HDR : MPR_WIRE_MPXD_LEN, len);
}

ssize_t mpr_wire_data(uint8_t *buf, size_t cap, const struct mpr_wire_ep *ep, uint16_t ip_id,
		      const struct mpr_pkt *p, const void *payload, size_t len)
{
	struct roce_ip ip = ip_of(ep, ip_id, p->vp, MPR_WIRE_ECT0);
	struct roce_bth bth = {
	    .opcode = ROCE_OP_RC_SEND_ONLY,
	    .dst_qpn = ep->dst_qpn,
	    .psn = p->psn,
	    .ack_req = true,
	};
	uint8_t x[MPR_WIRE_MPXD_LEN] = {0};

	x[0] = (uint8_t)((p->retx ? D_RETX : 0) | (p->sync ? D_SYNC : 0) | (p->tail ? D_TAIL : 0) |
			 (p->probe ? D_PROBE : 0) | (p->cqe ? D_CQE : 0));
	x[1] = (uint8_t)(p->psn >> 24);
	roce_put_be(x + 2, p->conn, 2);
	roce_put_be(x + 4, p->msg_first, 4);
	roce_put_be(x + 8, p->tx_ns, 8);
	return roce_build(buf, cap, &ip, &bth, x, sizeof(x), payload, len);
}

int mpr_wire_parse_data(const uint8_t *pkt, size_t len, struct roce_ip *ip, uint32_t *dst_qpn,
			struct mpr_pkt *p, const uint8_t **payload, size_t *plen)
{
	struct roce_bth bth;
	const uint8_t *x;
	size_t rlen;
	int r = roce_parse(pkt, len, ROCE_OP_RC_SEND_ONLY, MPR_WIRE_MPXD_LEN, ip, &bth, &x, &rlen);

	if (r)
		return r;
	if (x[0] & ~(D_RETX | D_SYNC | D_TAIL | D_PROBE | D_CQE))
		return -EPROTO; /* flags this format does not know */
	if ((x[0] & (D_CQE | D_TAIL)) == D_CQE)
		return -EPROTO; /* only a message's tail asks for its completion */
	*p = (struct mpr_pkt){
	    .psn = (uint32_t)x[1] << 24 | bth.psn,
	    .msg_first = (uint32_t)roce_get_be(x + 4, 4),
	    .conn = (uint16_t)roce_get_be(x + 2, 2),
	    .vp = ip->sport,
	    .retx = x[0] & D_RETX,
	    .sync = x[0] & D_SYNC,
	    .tail = x[0] & D_TAIL,
	    .probe = x[0] & D_PROBE,
	    .cqe = x[0] & D_CQE,
	    .ce = (ip->tos & 3) == MPR_WIRE_CE,
	    .tx_ns = roce_get_be(x + 8, 8),
	};
	if (p->msg_first > p->psn)
		return -EPROTO;
	*dst_qpn = bth.dst_qpn;
	*payload = x + MPR_WIRE_MPXD_LEN;
	*plen = rlen - MPR_WIRE_MPXD_LEN;
	return 0;
}

ssize_t mpr_wire_ack(uint8_t *buf, size_t cap, const struct mpr_wire_ep *ep, uint16_t ip_id,
		     const struct mpr_ack *a)
{
	struct roce_ip ip = ip_of(ep, ip_id, a->vp, 0);
	struct roce_bth bth = {.opcode = ROCE_OP_RC_ACK, .dst_qpn = ep->dst_qpn, .psn = a->sack};
	uint8_t x[MPR_WIRE_ACK_HDR] = {0};

	if (a->nack && a->nack_psn != (a->sync_fail ? a->sack : a->aack))
		return -EINVAL;
	if (a->sync_fail && !a->nack)
		return -EINVAL;
	x[0] = a->nack ? AETH_NAK_PSN : AETH_ACK;
	roce_put_be(x + 1, a->aack & 0xffffff, 3);
	roce_put_be(x + 4, a->vp, 2);
	x[6] = (uint8_t)((a->ece ? A_ECE : 0) | (a->retx ? A_RETX : 0) |
			 (a->sync_fail ? A_SYNC_FAIL : 0) | (a->nack ? A_NACK : 0));
	x[7] = (uint8_t)(a->sack >> 24);
	roce_put_be(x + 8, a->aack, 4);
	roce_put_be(x + 12, a->tx_ns, 8);
	return roce_build(buf, cap, &ip, &bth, x, sizeof(x), NULL, 0);
}

int mpr_wire_parse_ack(const uint8_t *pkt, size_t len, struct roce_ip *ip, uint32_t *dst_qpn,
		       struct mpr_ack *a)
{
	struct roce_bth bth;
	const uint8_t *x;
	size_t rlen;
	int r = roce_parse(pkt, len, ROCE_OP_RC_ACK, MPR_WIRE_ACK_HDR, ip, &bth, &x, &rlen);
	bool nack;

	if (r)
		return r;
	nack = x[6] & A_NACK;
	if (rlen != MPR_WIRE_ACK_HDR || (x[6] & ~(A_ECE | A_RETX | A_SYNC_FAIL | A_NACK)) ||
	    x[0] != (nack ? AETH_NAK_PSN : AETH_ACK) ||
	    roce_get_be(x + 1, 3) != (roce_get_be(x + 8, 4) & 0xffffff) ||
	    ((x[6] & A_SYNC_FAIL) && !nack))
		return -EPROTO;
	*a = (struct mpr_ack){
	    .vp = (uint16_t)roce_get_be(x + 4, 2),
	    .sack = (uint32_t)x[7] << 24 | bth.psn,
	    .aack = (uint32_t)roce_get_be(x + 8, 4),
	    .ece = x[6] & A_ECE,
	    .retx = x[6] & A_RETX,
	    .sync_fail = x[6] & A_SYNC_FAIL,
	    .nack = nack,
	    .tx_ns = roce_get_be(x + 12, 8),
	};
	if (nack)
		a->nack_psn = a->sync_fail ? a->sack : a->aack;
	*dst_qpn = bth.dst_qpn;
	return 0;
}

/*
 * The pattern's 8 bytes at offset i (a multiple of 8), little-endian:
 * splitmix64 of the PSN and the offset, so every byte depends on the PSN.
 */
static inline uint64_t pattern_word(uint32_t psn, size_t i)
{
	uint64_t z = ((uint64_t)psn << 32 | i) + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return htole64(z ^ (z >> 31));
}

/* A word at a time: the endpoints fill and check one for every packet (bench wire_*). */
void mpr_wire_pattern(uint32_t psn, uint8_t *buf, size_t len)
{
	size_t i = 0;
	uint64_t z;

	for (; i + 8 <= len; i += 8) {
		z = pattern_word(psn, i);
		memcpy(buf + i, &z, 8);
	}
	if (i < len) {
		z = pattern_word(psn, i);
		memcpy(buf + i, &z, len - i);
	}
}

bool mpr_wire_pattern_ok(uint32_t psn, const uint8_t *buf, size_t len)
{
	uint64_t diff = 0, w, z;
	size_t i = 0;

	if (len > MPR_WIRE_PAYLOAD)
		return false; /* more than a packet of ours carries */
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, buf + i, 8);
		diff |= w ^ pattern_word(psn, i);
	}
	if (i < len) {
		z = pattern_word(psn, i);
		return !diff && !memcmp(buf + i, &z, len - i);
	}
	return !diff;
}
